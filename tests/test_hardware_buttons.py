"""hardware.buttons: debounce and long press on their own, then every button
behaviour through gpiozero's MockFactory, then the actions they mean."""

from __future__ import annotations

import importlib
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory
from standins.lgpio_import import fresh_lgpio

from hardware.buttons import (
    Action,
    ButtonConfig,
    ButtonConfigError,
    ButtonEvent,
    ButtonPanel,
    ButtonsUnavailableError,
    Controls,
    EncoderSpec,
    PressLogic,
    lgpio_work_dir,
    make_pin_factory,
)

# -- PressLogic: the part MockFactory cannot simulate -------------------------


def test_bouncing_contacts_make_one_press() -> None:
    logic = PressLogic("go", debounce_s=0.03)
    events: list[ButtonEvent] = []
    for level, t in [(True, 1.000), (False, 1.002), (True, 1.003), (False, 1.005), (True, 1.006)]:
        events += logic.feed(level, t)
    assert events == []
    assert logic.poll(1.030) == []  # steady for only 24 ms
    assert logic.poll(1.036) == [ButtonEvent("go", "press", at=1.006)]
    # Release bounce is not a second press either.
    for level, t in [(False, 1.200), (True, 1.201), (False, 1.203)]:
        events += logic.feed(level, t)
    assert events + logic.poll(1.5) == []
    assert not logic.pressed


def test_a_spike_shorter_than_the_debounce_is_ignored() -> None:
    logic = PressLogic("go", debounce_s=0.03)
    assert logic.feed(True, 5.0) + logic.feed(False, 5.001) + logic.poll(6.0) == []


def test_a_level_steady_between_edges_settles_on_the_next_edge() -> None:
    logic = PressLogic("go", debounce_s=0.03)
    logic.feed(True, 1.0)
    # No poll in between: the release edge settles the press first.
    assert logic.feed(False, 1.5) == [ButtonEvent("go", "press", at=1.0)]


def test_long_press_fires_while_held_and_swallows_the_press() -> None:
    logic = PressLogic("undo", debounce_s=0.03, long_press_s=1.5)
    logic.feed(True, 10.0)
    assert logic.poll(10.05) == []  # a long-press button waits to see which it is
    assert logic.next_deadline() == pytest.approx(11.5)
    assert logic.poll(11.49) == []
    assert logic.poll(11.5) == [ButtonEvent("undo", "long_press", at=11.5)]
    assert logic.poll(12.0) == []
    assert logic.feed(False, 12.1) + logic.poll(12.2) == []
    assert logic.next_deadline() is None


def test_short_press_of_a_long_press_button_reports_on_release() -> None:
    logic = PressLogic("undo", debounce_s=0.03, long_press_s=1.5)
    logic.feed(True, 10.0)
    logic.feed(False, 10.4)
    assert logic.poll(10.45) == [ButtonEvent("undo", "press", at=10.0)]


def test_logic_settings_are_checked() -> None:
    with pytest.raises(
        ButtonConfigError, match="long_press_s 0.01 must be longer than debounce_s 0.03"
    ):
        PressLogic("undo", long_press_s=0.01)


# -- ButtonPanel on gpiozero's MockFactory -----------------------------------


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture()
def factory() -> Iterator[MockFactory]:
    mock = MockFactory()
    yield mock
    mock.reset()


@pytest.fixture()
def clock() -> Clock:
    return Clock()


@pytest.fixture()
def panel(factory: MockFactory, clock: Clock) -> Iterator[ButtonPanel]:
    config = ButtonConfig(pin_factory="mock", encoder=EncoderSpec(5, 6))
    made = ButtonPanel.from_config(config, pin_factory=factory, clock=clock)
    yield made
    made.close()


def press(factory: MockFactory, clock: Clock, pin: int, hold: float = 0.1) -> None:
    factory.pin(pin).drive_low()
    clock.t += hold
    factory.pin(pin).drive_high()


@pytest.mark.parametrize(("name", "pin"), [("go", 17), ("muggins", 27), ("confirm", 23)])
def test_each_button_press_reaches_the_loop(
    panel: ButtonPanel, factory: MockFactory, clock: Clock, name: str, pin: int
) -> None:
    factory.pin(pin).drive_low()
    assert panel.poll(clock.t) == []  # callbacks only queued an edge
    clock.t += 0.05
    assert panel.poll() == [ButtonEvent(name, "press", at=100.0)]
    factory.pin(pin).drive_high()
    clock.t += 0.05
    assert panel.poll() == []


def test_undo_short_press(panel: ButtonPanel, factory: MockFactory, clock: Clock) -> None:
    press(factory, clock, 22, hold=0.3)
    clock.t += 0.05
    assert panel.poll() == [ButtonEvent("undo", "press", at=100.0)]


def test_undo_long_press(panel: ButtonPanel, factory: MockFactory, clock: Clock) -> None:
    factory.pin(22).drive_low()
    clock.t += 1.0
    assert panel.poll() == []
    assert panel.next_deadline() == pytest.approx(101.5)
    clock.t += 0.6
    assert panel.poll() == [ButtonEvent("undo", "long_press", at=101.5)]
    factory.pin(22).drive_high()
    clock.t += 0.05
    assert panel.poll() == []


def test_bouncing_mock_pin_gives_one_press(
    panel: ButtonPanel, factory: MockFactory, clock: Clock
) -> None:
    pin = factory.pin(17)
    for _ in range(3):
        pin.drive_low()
        clock.t += 0.002
        pin.drive_high()
        clock.t += 0.001
    pin.drive_low()
    clock.t += 0.05
    assert [e.kind for e in panel.poll()] == ["press"]


def test_encoder_turns(panel: ButtonPanel, factory: MockFactory, clock: Clock) -> None:
    a, b = factory.pin(5), factory.pin(6)
    for pin, low in [(a, True), (b, True), (a, False), (b, False)]:  # one detent clockwise
        pin.drive_low() if low else pin.drive_high()
    for pin, low in [(b, True), (a, True), (b, False), (a, False)]:  # and back
        pin.drive_low() if low else pin.drive_high()
    assert [(e.name, e.kind, e.value) for e in panel.poll()] == [
        ("dial", "turn", 1),
        ("dial", "turn", -1),
    ]


def test_close_releases_the_pins(factory: MockFactory, clock: Clock) -> None:
    config = ButtonConfig(pin_factory="mock")
    first = ButtonPanel.from_config(config, pin_factory=factory, clock=clock)
    first.close()
    second = ButtonPanel.from_config(config, pin_factory=factory, clock=clock)  # pins free again
    second.close()


def test_a_pin_in_use_releases_the_ones_already_taken(factory: MockFactory) -> None:
    from gpiozero import Button

    taken = Button(23, pin_factory=factory)
    with pytest.raises(Exception, match="23"):
        ButtonPanel.from_config(ButtonConfig(pin_factory="mock"), pin_factory=factory)
    alone = ButtonConfig(pin_factory="mock", pins={"go": 17}, long_press={})
    ButtonPanel.from_config(alone, pin_factory=factory).close()
    taken.close()


# -- pin factories and config ------------------------------------------------


def test_pin_factory_by_name() -> None:
    mock = make_pin_factory("mock")
    assert isinstance(mock, MockFactory)
    mock.close()
    with pytest.raises(ButtonConfigError, match="unknown pin_factory 'gpio'"):
        make_pin_factory("gpio")


def test_unavailable_pin_factory_is_an_error_not_a_fallback() -> None:
    try:
        import lgpio  # noqa: F401
    except ImportError:
        with pytest.raises(ButtonsUnavailableError, match="pin factory 'lgpio' is unavailable"):
            make_pin_factory("lgpio")
    else:
        pytest.skip("lgpio is installed here")


def test_lgpio_in_an_unwritable_directory_says_where_and_what_to_do(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the stand-in lgpio, whose import makes its pipe as lgNotify.c does: /proc
    refuses a FIFO even to root. Fails on a bare "[Errno 2] ... '.lgd-nfy-3'"."""
    monkeypatch.delenv("LG_WD", raising=False)
    monkeypatch.chdir("/proc")
    fresh_lgpio(monkeypatch)
    with pytest.raises(ButtonsUnavailableError,
                       match=r"pipe \.lgd-nfy0 in '/proc' .*WorkingDirectory=/var/lib/"
                             r"cribbage-board\) or set LG_WD"):
        make_pin_factory("lgpio")


def test_lgpio_makes_its_pipe_in_the_working_directory(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("LG_WD", raising=False)
    monkeypatch.chdir(tmp_path)
    fresh_lgpio(monkeypatch)
    try:
        make_pin_factory("lgpio").close()  # no /dev/gpiochip* or not a Pi here: unavailable
    except ButtonsUnavailableError as exc:
        assert ".lgd-nfy" not in str(exc)
    assert stat.S_ISFIFO((tmp_path / ".lgd-nfy0").stat().st_mode)


def test_standin_lgpio_moves_the_process_to_lg_wd(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """lguGetWorkDir chdir()s the whole process: a fact the service must not trip on."""
    (tmp_path / "wd").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LG_WD", "wd")
    fresh_lgpio(monkeypatch)
    assert lgpio_work_dir() == str(tmp_path / "wd")
    importlib.import_module("lgpio")
    assert Path.cwd() == tmp_path / "wd" and (tmp_path / "wd" / ".lgd-nfy0").exists()


def test_config_defaults_and_keys() -> None:
    config = ButtonConfig.from_config(
        {
            "pin_factory": "mock",
            "go": 5,
            "confirm": 6,
            "long_press_s": 2,
            "long_press": {"confirm": "shutdown"},
            "encoder": {"a": 20, "b": 21, "max_value": 15},
        }
    )
    assert dict(config.pins) == {"go": 5, "confirm": 6}
    assert [s.long_press_s for s in config.specs()] == [None, 2.0]
    assert config.encoder == EncoderSpec(20, 21, 15)
    assert ButtonConfig.from_config({}).pins == ButtonConfig().pins
    # Without an UNDO button, holding UNDO means nothing.
    assert dict(ButtonConfig.from_config({"go": 5}).long_press) == {}


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"go": 17, "undo": 17}, r"GPIO17 is given to both 'go' and 'undo'"),
        ({"go": 40}, r"buttons.go must be a BCM GPIO number 0..27, got 40"),
        ({"stop": 3}, r"unknown buttons key 'stop'"),
        ({"encoder": {"a": 5}}, r"buttons.encoder needs a and b"),
        ({"pin_factory": "gpio"}, r"unknown pin_factory 'gpio'"),
        ({"go": 17, "long_press": {"undo": "new_game"}}, r"long_press names 'undo'"),
        ({"debounce_s": -1}, r"buttons.debounce_s must be a number of seconds, got -1"),
    ],
)
def test_config_errors(table: dict[str, object], message: str) -> None:
    with pytest.raises(ButtonConfigError, match=message):
        ButtonConfig.from_config(table)


# -- Controls: what the events mean --------------------------------------------


def ev(name: str, kind: str = "press", value: int = 0, at: float = 0.0) -> ButtonEvent:
    return ButtonEvent(name, kind, value, at)  # type: ignore[arg-type]


def test_plain_presses_are_their_actions() -> None:
    controls = Controls()
    assert [controls.handle(ev(n)) for n in ("go", "muggins", "undo", "confirm")] == [
        Action("go"),
        Action("muggins"),
        Action("undo"),
        Action("confirm"),
    ]


def test_hold_undo_then_confirm_starts_a_new_game() -> None:
    controls = Controls()
    assert controls.handle(ev("undo", "long_press", at=1.0)) == Action(
        "ask_confirm", subject="new_game"
    )
    assert controls.pending == "new_game"
    assert controls.handle(ev("confirm", at=2.0)) == Action("new_game")
    assert controls.pending is None


def test_any_other_button_cancels_the_new_game() -> None:
    controls = Controls(choices={})
    controls.handle(ev("undo", "long_press", at=1.0))
    assert controls.handle(ev("undo", at=2.0)) == Action("cancelled", subject="new_game")
    assert controls.handle(ev("confirm", at=2.5)) == Action("confirm")
    controls.handle(ev("undo", "long_press", at=1.0))
    assert controls.handle(ev("go", at=2.0)) == Action("cancelled", subject="new_game")


def test_hold_undo_then_go_is_a_misdeal_and_muggins_a_correction() -> None:
    controls = Controls()
    controls.handle(ev("undo", "long_press", at=1.0))
    assert controls.handle(ev("go", at=2.0)) == Action("misdeal")
    assert controls.pending is None
    controls.handle(ev("undo", "long_press", at=3.0))
    assert controls.handle(ev("muggins", at=4.0)) == Action("correct")
    assert controls.handle(ev("go", at=5.0)) == Action("go")


def test_hold_undo_then_undo_again_adjusts_a_score_by_hand() -> None:
    controls = Controls()
    controls.handle(ev("undo", "long_press", at=1.0))
    assert controls.handle(ev("undo", at=2.0)) == Action("adjust")
    assert controls.pending is None


def test_an_unconfirmed_new_game_expires() -> None:
    controls = Controls(confirm_timeout_s=5.0)
    controls.handle(ev("undo", "long_press", at=1.0))
    assert controls.expire(5.0) is None
    assert controls.expire(6.5) == Action("cancelled", subject="new_game")
    controls.handle(ev("undo", "long_press", at=10.0))
    assert controls.handle(ev("confirm", at=20.0)) == Action("confirm")  # too late


def test_dial_then_confirm_claims_the_count() -> None:
    controls = Controls(max_value=29)
    assert controls.handle(ev("dial", "turn", -1)) == Action("dial", 0)  # never below 0
    for _ in range(12):
        controls.handle(ev("dial", "turn", 1))
    assert controls.handle(ev("dial", "turn", 1)) == Action("dial", 13)
    assert controls.handle(ev("confirm")) == Action("claim", 13)
    assert controls.handle(ev("confirm")) == Action("confirm")
    for _ in range(40):
        last = controls.handle(ev("dial", "turn", 1))
    assert last == Action("dial", 29)
