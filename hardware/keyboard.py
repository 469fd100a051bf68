"""The table's buttons from a laptop's keyboard: g GO, m MUGGINS, u UNDO, c CONFIRM.

So the whole device can be tried without the phone page or a button panel.
A terminal reports keys, not key-up, so holding a key is read from its
auto-repeat: ``u`` repeated without a gap for ``long_press_s`` is a long
press (hold UNDO), and ``U`` (shift) is one at once. A lone ``u`` is
reported once its repeats would have started, ``repeat_gap_s`` later.

Two layers, as ``hardware.buttons``: ``KeyLogic`` is pure (keys and times
in, ``ButtonEvent``s out, tested by feeding it keys); ``KeyboardPanel``
reads a terminal without blocking and fits the device loop's ``Panel``.
It is only ever used when stdin is a terminal.
"""

from __future__ import annotations

import os
import select
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from typing import Any, TextIO

from hardware.buttons import ButtonEvent

__all__ = ["KEYS", "HELD_KEYS", "KeyLogic", "KeyboardPanel", "keyboard_help", "keyboard_if_tty"]

#: Keys and the buttons they press.
KEYS: Mapping[str, str] = {"g": "go", "m": "muggins", "u": "undo", "c": "confirm"}
#: Keys that hold a button: shift, or the key held down until it repeats long enough.
HELD_KEYS: Mapping[str, str] = {"U": "undo"}


def keyboard_help() -> str:
    """The keys, as ``run`` and ``demo`` print them."""
    return ("keys: g GO, m MUGGINS, u UNDO, c CONFIRM; hold u (or press U) to hold UNDO: "
            "then c for a new match, g for a misdeal, m to correct a card, u to adjust a score")


class KeyLogic:
    """Turns keys with their times into button events; holds only a ``u`` being repeated."""

    def __init__(self, *, long_press_s: float = 1.2, repeat_gap_s: float = 0.8,
                 held: frozenset[str] = frozenset({"undo"})) -> None:
        if not 0 < repeat_gap_s < long_press_s:
            raise ValueError(f"repeat_gap_s {repeat_gap_s!r} must be positive and shorter "
                             f"than long_press_s {long_press_s!r}")
        self.long_press_s = long_press_s
        self.repeat_gap_s = repeat_gap_s
        self.held = held
        self._down: tuple[str, float, float, bool] | None = None  # button, first, last, fired

    def key(self, char: str, at: float) -> list[ButtonEvent]:
        """Events for one key; unknown keys are ignored (the terminal's own)."""
        out = self.due(at)
        if char in HELD_KEYS:
            self._down = None
            return [*out, ButtonEvent(HELD_KEYS[char], "long_press", at=at)]
        name = KEYS.get(char.lower()) if char.islower() else None
        if name is None:
            return out
        if name not in self.held:
            return [*out, ButtonEvent(name, "press", at=at)]
        if self._down is not None and self._down[0] == name:
            _, first, _, fired = self._down
            self._down = (name, first, at, fired)
            if not fired and at - first >= self.long_press_s:
                self._down = (name, first, at, True)
                out.append(ButtonEvent(name, "long_press", at=first + self.long_press_s))
            return out
        self._down = (name, at, at, False)
        return out

    def due(self, now: float) -> list[ButtonEvent]:
        """A held key let go: a short press if it never reached ``long_press_s``."""
        if self._down is None or now - self._down[2] <= self.repeat_gap_s:
            return []
        name, first, _, fired = self._down
        self._down = None
        return [] if fired else [ButtonEvent(name, "press", at=first)]


class KeyboardPanel:
    """Reads keys from a terminal (``stream``, default stdin) without waiting for Enter.

    The terminal goes to cbreak mode (Ctrl-C still stops the program) and is put
    back by ``close``.
    """

    def __init__(self, stream: TextIO, *, clock: Callable[[], float] = time.monotonic,
                 logic: KeyLogic | None = None) -> None:
        import termios
        import tty

        self._fd = stream.fileno()
        self._saved: Any = termios.tcgetattr(self._fd)
        tty.setcbreak(self._fd)
        self.clock = clock
        self.logic = logic or KeyLogic()

    def poll(self, now: float | None = None) -> list[ButtonEvent]:
        at = self.clock() if now is None else now
        events: list[ButtonEvent] = []
        while self._fd >= 0 and select.select([self._fd], [], [], 0)[0]:
            data = os.read(self._fd, 64)
            if not data:
                break
            for char in data.decode("utf-8", "replace"):
                events += self.logic.key(char, at)
        return events + self.logic.due(at)

    def __enter__(self) -> KeyboardPanel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._fd >= 0:
            import termios

            termios.tcsetattr(self._fd, termios.TCSADRAIN, self._saved)
            self._fd = -1


def keyboard_if_tty(stream: TextIO | None, *, clock: Callable[[], float] = time.monotonic
                    ) -> AbstractContextManager[KeyboardPanel | None]:
    """A ``KeyboardPanel`` on ``stream`` when it is a terminal; otherwise nothing (a
    service, a pipe, a test), so keys are never read from a stdin nobody types into."""
    if stream is None or not stream.isatty():
        return nullcontext(None)
    return KeyboardPanel(stream, clock=clock)
