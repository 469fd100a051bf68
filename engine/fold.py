"""One walk of a stored match's log, event by event, for the readers that fold it again.

The coach's review (``engine.review``) and statistics (``engine.stats``) each read the
settled log (corrections applied where they point) through a ``Game``; walking it here
once means they all number games, spot a game's end and see each event's pegging the
same way, and a change to how a log is replayed is made in one place.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from engine.correction import settled_log
from engine.events import Event, NewGame
from engine.game import Game
from engine.records import Pegged

__all__ = ["Step", "fold_steps"]


@dataclass(frozen=True, slots=True)
class Step:
    """One applied event. ``fold`` is the live game just after it, so read it before asking
    for the next step; ``game`` counts the match's games from 1 (the one this event is in)
    and ``ended`` says this event finished that game."""

    number: int
    event: Event
    fold: Game
    pegged: tuple[Pegged, ...]
    game: int
    ended: bool


def fold_steps(lines: Iterable[str | Mapping[str, Any] | Event]) -> Iterator[Step]:
    """Replays a match's log as it was really played; a bad line raises ``LogError``."""
    fold = Game()
    games = 0
    for number, event in settled_log(lines):
        before = fold.phase
        pegged = fold.apply(event, number=number)  # a bad line raises LogError naming it
        games += isinstance(event, NewGame)
        yield Step(number, event, fold, pegged, games,
                   before != "over" and fold.phase == "over")
