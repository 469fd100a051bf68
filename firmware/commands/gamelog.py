"""Reading a stored game: a JSON Lines event log folded through the engine."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from engine.game import Game
from engine.records import LogError
from firmware.commands.cli import UsageError


def load_game(path: Path) -> Game:
    """Folds the log at ``path``. An unreadable file is a ``UsageError``; a bad line (text
    that is not UTF-8 included), the engine's ``LogError``, which ``firmware.commands.cli`` reports
    with its line and rule."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    return Game.replay(_lines(data))


def _lines(data: bytes) -> Iterator[str]:
    # Bytes split only at line ends (str.splitlines would also split at U+2028, which
    # JSON strings may hold); each line is decoded alone so an error names its line.
    for number, raw in enumerate(data.splitlines()):
        try:
            yield raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise LogError(number, "malformed_event",
                           f"not UTF-8 text ({exc.reason} at byte {exc.start + 1} of the "
                           f"line)") from None
