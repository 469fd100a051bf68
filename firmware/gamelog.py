"""Reading a stored game: a JSON Lines event log folded through the engine."""

from __future__ import annotations

from pathlib import Path

from engine.game import Game
from firmware.cli import UsageError


def load_game(path: Path) -> Game:
    """Folds the log at ``path``. An unreadable file is a ``UsageError``; a bad line, the
    engine's ``LogError`` (which ``firmware.cli`` reports with its line and rule)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path} is not UTF-8 text: {exc.reason}") from None
    return Game.replay(text.splitlines())
