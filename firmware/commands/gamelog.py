"""Reading a stored game: a JSON Lines event log folded through the engine.

The log is read a line at a time, each line at most ``MAX_LINE`` bytes, so memory stays
bounded whatever the file is (``/dev/zero`` is one line that never ends: refused at line 1).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from engine.game import Game
from engine.records import LogError
from firmware.commands.cli import UsageError

__all__ = ["MAX_LINE", "load_game"]

# The longest event the engine accepts is a new_game with four long names and every rule:
# well under a kilobyte. A line past this is not an event (a line within it is still read,
# so a deeply nested one is refused for its nesting, in the engine's words).
MAX_LINE = 1 << 20


def load_game(path: Path) -> Game:
    """Folds the log at ``path``. An unreadable file is a ``UsageError``; a bad line (text
    that is not UTF-8 or longer than ``MAX_LINE`` included), the engine's ``LogError``,
    which ``firmware.commands.cli`` reports with its line and rule."""
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    with handle:
        try:
            return Game.replay(_lines(handle))
        except OSError as exc:
            raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None


def _lines(handle: BinaryIO) -> Iterator[str]:
    # Bytes split only at line ends (str.splitlines would also split at U+2028, which
    # JSON strings may hold); each line is decoded alone so an error names its line.
    number = 0
    while True:
        chunk = handle.readline(MAX_LINE + 1)
        if not chunk:
            return
        if len(chunk) > MAX_LINE and not chunk.endswith(b"\n"):
            raise LogError(number, "malformed_event",
                           f"the line is longer than {MAX_LINE} bytes (no event is): "
                           "not an event log")
        for raw in chunk.splitlines():
            try:
                yield raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise LogError(number, "malformed_event",
                               f"not UTF-8 text ({exc.reason} at byte {exc.start + 1} of the "
                               f"line)") from None
            number += 1
