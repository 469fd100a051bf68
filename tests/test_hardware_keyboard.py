"""hardware.keyboard: the buttons from a laptop's keyboard, fed keys directly and through a pty."""

from __future__ import annotations

import os
import termios

import pytest

from hardware.buttons import ButtonEvent, Controls
from hardware.keyboard import KeyboardPanel, KeyLogic, keyboard_if_tty


def test_keys_press_the_buttons_at_once() -> None:
    logic = KeyLogic()
    assert logic.key("g", 1.0) == [ButtonEvent("go", "press", at=1.0)]
    assert logic.key("m", 1.1) == [ButtonEvent("muggins", "press", at=1.1)]
    assert logic.key("c", 1.2) == [ButtonEvent("confirm", "press", at=1.2)]
    assert logic.key("x", 1.3) == [] and logic.key("\n", 1.3) == []


def test_a_lone_u_is_a_press_once_no_repeat_follows() -> None:
    logic = KeyLogic(long_press_s=1.2, repeat_gap_s=0.8)
    assert logic.key("u", 5.0) == []
    assert logic.due(5.5) == []
    assert logic.due(5.9) == [ButtonEvent("undo", "press", at=5.0)]
    assert logic.due(9.0) == []


def test_holding_u_until_it_repeats_long_enough_is_a_long_press() -> None:
    logic = KeyLogic(long_press_s=1.2, repeat_gap_s=0.8)
    events = logic.key("u", 0.0)
    t = 0.5  # the terminal's repeat delay, then 30 repeats a second
    while t < 2.0:
        events += logic.key("u", t)
        t += 1 / 30
    events += logic.due(3.0)
    assert events == [ButtonEvent("undo", "long_press", at=1.2)]
    # Shift-u holds at once; then c confirms a new match, as on the panel.
    controls = Controls()
    (held,) = logic.key("U", 4.0)
    assert controls.handle(held).name == "ask_confirm"
    (confirm,) = logic.key("c", 4.5)
    assert controls.handle(confirm).name == "new_game"


def test_no_keyboard_without_a_terminal() -> None:
    import io

    with keyboard_if_tty(None) as keys:
        assert keys is None
    with keyboard_if_tty(io.StringIO("g")) as keys:
        assert keys is None


def test_the_panel_reads_a_terminal_without_enter_and_puts_it_back() -> None:
    master, slave = os.openpty()
    stream = os.fdopen(slave, "r")
    try:
        before = termios.tcgetattr(slave)
        with keyboard_if_tty(stream, clock=lambda: 7.0) as keys:
            assert isinstance(keys, KeyboardPanel)
            assert termios.tcgetattr(slave)[3] & termios.ICANON == 0  # no waiting for Enter
            assert keys.poll() == []
            os.write(master, b"gc")
            assert keys.poll() == [ButtonEvent("go", "press", at=7.0),
                                   ButtonEvent("confirm", "press", at=7.0)]
        assert termios.tcgetattr(slave) == before
    finally:
        stream.close()
        os.close(master)


@pytest.mark.parametrize("gap", [0.0, -1.0, 2.0])
def test_a_repeat_gap_must_fit_inside_the_long_press(gap: float) -> None:
    with pytest.raises(ValueError, match="repeat_gap_s"):
        KeyLogic(long_press_s=1.2, repeat_gap_s=gap)
