"""The device loop end to end: scripted table, gpiozero mock buttons, real store and renderer."""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.cards import Card
from engine.game import Game
from engine.simulate import simulate_game
from firmware.demo.scripted_table import (
    BlankCamera,
    ScriptedTracker,
    Step,
    SteppedClock,
    table_script,
)
from firmware.device.loop import DeviceLoop, UnknownWatch
from firmware.store.copy import copy_path
from firmware.store.eventstore import EventStore
from firmware.table.flow import Feedback, TableFlow
from hardware.buttons import ButtonConfig, ButtonPanel
from hardware.layout import per_side_tracks
from hardware.render import Renderer
from hardware.state import board_state_from_game
from hardware.strips.simulator import SimulatorStrip
from vision.live.sources import CameraUnavailableError
from vision.live.tracker import CardAppeared, CardTracker
from vision.live.zones import TableZones, Zone

PINS = {"go": 17, "muggins": 27, "undo": 22, "confirm": 23}


@pytest.fixture
def factory() -> Iterator[Any]:
    from gpiozero import Device  # type: ignore[import-untyped]
    from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

    mock = MockFactory()
    Device.pin_factory = mock
    yield mock
    mock.reset()
    Device.pin_factory = None


class FakeNotifier:
    def __init__(self) -> None:
        self.sent: list[str] = []

    def ready(self, status: str | None = None) -> bool:
        self.sent.append("READY=1")
        return True

    def status(self, text: str) -> bool:
        self.sent.append(f"STATUS={text}")
        return True

    def watchdog(self) -> bool:
        self.sent.append("WATCHDOG=1")
        return True

    def stopping(self) -> bool:
        self.sent.append("STOPPING=1")
        return True


class Rig:
    """One device: a store at ``path``, the loop and its fakes."""

    def __init__(self, path: Path, players: tuple[str, ...], rules: dict[str, Any],
                 factory: Any, clock: SteppedClock | None = None) -> None:
        self.clock = clock or SteppedClock()
        self.factory = factory
        self.store = EventStore.open(path, clock=self.clock)
        layout = per_side_tracks(3)
        self.strip = SimulatorStrip(layout)
        self.renderer = Renderer(layout)
        self.camera = BlankCamera(self.clock)
        self.tracker = ScriptedTracker()
        self.panel = ButtonPanel.from_config(ButtonConfig(pin_factory="mock", pins=PINS),
                                             pin_factory=factory, clock=self.clock)
        self.notifier = FakeNotifier()
        self.said: list[Feedback] = []
        self.loop = DeviceLoop(store=self.store, flow=TableFlow(players, rules),
                               strip=self.strip, renderer=self.renderer, clock=self.clock,
                               source=self.camera, recognise=lambda image: [],
                               tracker=self.tracker, panel=self.panel,
                               notifier=self.notifier,  # type: ignore[arg-type]
                               on_feedback=self.said.append)

    def press(self, name: str) -> None:
        pin = self.factory.pin(PINS[name])
        pin.drive_low()
        self.loop.step()
        self.loop.step()
        pin.drive_high()
        self.loop.step()
        self.loop.step()  # UNDO has a long-press meaning: it reports its press on release

    def play(self, steps: list[Step]) -> None:
        for step in steps:
            if step.press is not None:
                self.press(step.press)
            else:
                self.tracker.push(step.seen)
                self.loop.step()

    def close(self) -> None:
        self.panel.close()
        self.store.close()


def check_same_game(store: EventStore, truth: list[dict[str, Any]]) -> None:
    expected = Game.replay(truth)
    game = store.game
    assert game.phase == "over"
    assert [s.to_json() for s in game.sides] == [s.to_json() for s in expected.sides]
    assert (game.winner, game.result) == (expected.winner, expected.result)
    # Every stored line is the true event (shows in the order the cards were spread).
    assert [e["type"] for e in truth] == [json.loads(line)["type"] for line in store.lines]


@pytest.mark.parametrize(("players", "rules", "seed", "explicit_go"), [
    (("Ann", "Bob"), {}, 3, False),
    (("Ann", "Bob", "Cat"), {}, 5, True),
    (("Ann", "Bob", "Cat", "Dan"), {"partnership": True}, 7, False),
])
def test_a_whole_game_through_the_loop_matches_the_engine(
        tmp_path: Path, factory: Any, players: tuple[str, ...], rules: dict[str, Any],
        seed: int, explicit_go: bool) -> None:
    rng = random.Random(seed)
    truth = simulate_game(rng, players, rules, explicit_go=explicit_go)
    rig = Rig(tmp_path / "events.sqlite3", players, rules, factory)
    rig.loop.start()
    rig.play(table_script(truth, rng=rng))
    check_same_game(rig.store, truth)
    if explicit_go:
        assert any('"go"' in line for line in rig.store.lines)
    rig.loop.drain()
    final = rig.renderer(board_state_from_game(rig.store.game))
    assert (rig.strip.frame == final).all()
    spoken = [f.text for f in rig.said if f.kind == "say"]
    assert any("'s hand: " in t for t in spoken) and any("'s crib: " in t for t in spoken)
    assert [f.kind for f in rig.said].count("celebrate") == 1
    assert not [f for f in rig.said if f.kind == "flash"]
    rig.close()


def test_crash_mid_count_then_resume_on_the_same_store(tmp_path: Path, factory: Any) -> None:
    players = ("Ann", "Bob")
    rng = random.Random(11)
    truth = simulate_game(rng, players)
    steps = table_script(truth, rng=rng)
    plays = [i for i, s in enumerate(steps) if s.seen and isinstance(s.seen[0], CardAppeared)
             and s.seen[0].zone in players]
    cut = plays[len(plays) // 2]  # in the middle of some count
    path = tmp_path / "events.sqlite3"
    first = Rig(path, players, {}, factory)
    first.loop.start()
    first.play(steps[:cut])
    stored = list(first.store.lines)
    first.close()  # the power goes: no goodbye from the loop

    factory.reset()
    second = Rig(path, players, {}, factory, clock=first.clock)
    assert list(second.store.lines) == stored
    second.loop.start()
    # READY=1 went out only after the board showed the resumed game.
    assert second.notifier.sent[-1] == "READY=1"
    assert (second.strip.frame ==
            second.renderer(board_state_from_game(second.store.game))).all()
    # A fresh tracker sees every card still on the table as new: none is played again.
    since = max((i for i in range(cut) if steps[i].seen and
                 type(steps[i].seen[0]).__name__ == "CardRemoved"), default=0)
    seen_again = [s.seen[0] for s in steps[since:cut]
                  if s.seen and isinstance(s.seen[0], CardAppeared)]
    second.play([Step(tuple(seen_again))])
    assert list(second.store.lines) == stored
    assert not [f for f in second.said if f.kind == "flash"]
    second.play(steps[cut:])
    check_same_game(second.store, truth)
    second.close()


def test_a_store_repaired_at_start_tells_the_table_what_it_lost(tmp_path: Path,
                                                                  factory: Any) -> None:
    """A power cut that damaged the last event: the board says so aloud and on the page,
    and what to do, before it shows the game as kept."""
    import sqlite3

    players = ("Ann", "Bob")
    path = tmp_path / "events.sqlite3"
    with EventStore.open(path) as store:
        for event in simulate_game(random.Random(11), players)[:12]:
            store.append(event)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE events SET line = substr(line, 1, 10) WHERE id = 12")
    conn.close()
    copy_path(path).unlink()  # the second copy lost too: only then is an event lost
    rig = Rig(path, players, {}, factory)
    assert rig.store.recovery is not None
    rig.loop.start()
    told = rig.said[0]
    assert told.kind == "say"
    assert told.text == ("The event store was damaged, most likely by a power cut: 1 event of "
                         "match 1 game 1 could not be kept. The board shows the game as it "
                         "was kept: check the score, and lay or type again what is missing.")
    assert rig.notifier.sent[-1] == "READY=1"
    rig.close()


def starter_step(steps: list[Any]) -> int:
    """The index of the step that turns the starter up."""
    return next(i for i, s in enumerate(steps) if s.seen and
                isinstance(s.seen[0], CardAppeared) and s.seen[0].zone == "starter")


def test_buttons_undo_a_card_through_the_store(tmp_path: Path, factory: Any) -> None:
    rng = random.Random(2)
    truth = simulate_game(rng, ("Ann", "Bob"))
    steps = table_script(truth, rng=rng)
    rig = Rig(tmp_path / "events.sqlite3", ("Ann", "Bob"), {}, factory)
    rig.loop.start()
    starter = starter_step(steps)
    rig.play(steps[:starter + 2])  # the cut, the starter, Bob's lead
    assert '"play"' in rig.store.lines[-1]
    rig.press("undo")
    assert '"starter"' in rig.store.lines[-1]
    undone = list(rig.store.events(include_undone=True))[-1]
    assert undone.undone_at is not None and '"play"' in undone.line
    rig.close()


def test_a_rejected_card_flashes_the_board_and_stores_nothing(tmp_path: Path,
                                                              factory: Any) -> None:
    rng = random.Random(2)
    truth = simulate_game(rng, ("Ann", "Bob"))
    steps = table_script(truth, rng=rng)
    rig = Rig(tmp_path / "events.sqlite3", ("Ann", "Bob"), {}, factory)
    rig.loop.start()
    starter = starter_step(steps)
    rig.play(steps[:starter + 1])
    lines = list(rig.store.lines)
    before = rig.loop.frames_pushed
    # Ann dealt, so Bob leads: a card in Ann's area is out of turn.
    rig.play([Step((CardAppeared(Card.parse("KH") if "KH" not in str(truth[:30]) else
                                 Card.parse("KD"), "Ann", (), 0.0),))])
    assert list(rig.store.lines) == lines
    assert [f.kind for f in rig.said][-1] == "flash"
    for _ in range(30):
        rig.loop.step()
    assert rig.loop.frames_pushed > before + 5  # the flash animation ran
    rig.close()


def test_an_unplugged_camera_keeps_the_loop_running_on_buttons(tmp_path: Path,
                                                               factory: Any) -> None:
    clock = SteppedClock()
    store = EventStore.open(tmp_path / "events.sqlite3", clock=clock)
    layout = per_side_tracks(3)
    said: list[Feedback] = []
    camera = BlankCamera(clock)
    loop = DeviceLoop(store=store, flow=TableFlow(("Ann", "Bob")), strip=SimulatorStrip(layout),
                      renderer=Renderer(layout), clock=clock, source=camera,
                      recognise=lambda image: [], tracker=CardTracker(frame_size=(64, 48)),
                      on_feedback=said.append)
    loop.start()
    for _ in range(5):
        loop.step()
    camera.unplugged = True
    for _ in range(80):
        loop.step()
    assert loop.flow.manual
    assert any("no pictures from the camera: name each card on the phone page" in f.text
               for f in said)
    turns = loop.turns
    loop.step()
    assert loop.turns == turns + 1
    store.close()


def test_a_camera_that_fails_outright_is_closed_and_the_flow_goes_manual(tmp_path: Path) -> None:
    class Broken(BlankCamera):
        def read(self, timeout: float = 0.5) -> Any:
            raise CameraUnavailableError("opencv", "device unplugged")

    clock = SteppedClock()
    store = EventStore.open(tmp_path / "events.sqlite3", clock=clock)
    layout = per_side_tracks(3)
    said: list[Feedback] = []
    waited: list[float] = []
    loop = DeviceLoop(store=store, flow=TableFlow(("Ann", "Bob")), strip=SimulatorStrip(layout),
                      renderer=Renderer(layout), clock=clock, source=Broken(clock),
                      recognise=lambda image: [], tracker=ScriptedTracker(),
                      on_feedback=said.append, pace=waited.append)
    loop.start()
    loop.step()
    loop.step()
    assert loop.source is None and loop.flow.manual and waited == [0.02, 0.02]
    assert any("device unplugged" in f.text for f in said)
    store.close()


def test_unknown_watch_reports_an_unreadable_card_once_per_quiet_spell() -> None:
    class Seen:
        card = None
        corners = ((10.0, 10.0), (20.0, 10.0), (20.0, 30.0), (10.0, 30.0))
        confidence = 0.9

    zones = TableZones((Zone("Ann", ((0.0, 0.0), (50.0, 0.0), (50.0, 50.0), (0.0, 50.0))),))
    watch = UnknownWatch(frames=3, quiet_s=10.0)
    found = [watch.update(t, [Seen()], zones) for t in (0.0, 0.1, 0.2, 0.3, 5.0)]
    assert [len(f) for f in found] == [0, 0, 1, 0, 0]
    assert found[2][0].zone == "Ann"
    assert watch.update(20.0, [Seen()], zones) != []


def test_device_trouble_is_logged_at_warning_and_a_lost_strip_does_not_stop_scoring(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    class Broken(BlankCamera):
        def read(self, timeout: float = 0.5) -> Any:
            raise CameraUnavailableError("opencv", "device unplugged")

    class Flaky(SimulatorStrip):
        failing = True

        def show(self, frame: Any) -> None:
            if self.failing:
                raise OSError(5, "Input/output error")
            super().show(frame)

    clock = SteppedClock()
    store = EventStore.open(tmp_path / "events.sqlite3", clock=clock)
    layout = per_side_tracks(3)
    strip = Flaky(layout)
    loop = DeviceLoop(store=store, flow=TableFlow(("Ann", "Bob")), strip=strip,
                      renderer=Renderer(layout), clock=clock, source=Broken(clock),
                      recognise=lambda image: [], tracker=ScriptedTracker(),
                      pace=lambda s: None)
    caplog.set_level(logging.INFO, logger="firmware")
    loop.start()
    loop.step()
    loop.step()
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == ["[notice] LED strip unavailable: [Errno 5] Input/output error",
                        "[notice] camera gone: camera source 'opencv' is unavailable: "
                        "device unplugged"]
    assert loop.strip_problem == "[Errno 5] Input/output error" and loop.frames_pushed == 0
    strip.failing = False
    loop.step()
    assert loop.strip_problem is None and loop.frames_pushed >= 1
    assert "[notice] LED strip back" in [r.getMessage() for r in caplog.records
                                         if r.levelno == logging.INFO]
    store.close()
