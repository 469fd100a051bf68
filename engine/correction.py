"""A misread card put right: which lines of the log a ``correct`` event rewrites.

The stored log stays append-only: a ``correct`` line is added after the
misread one, and the game is refolded from the events as they should have
been. A card lies once in a deal, so every mention of the wrong card in that
deal (the play, then the show of the same hand) is the same misread card;
earlier or later deals may hold that card legitimately and are left alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.cards import Card
from engine.errors import IllegalEventError
from engine.events import (
    Correct,
    Crib,
    Deal,
    Discard,
    Event,
    NewGame,
    Play,
    Show,
    Starter,
    as_event,
)
from engine.records import Pegged, Side

__all__ = ["Correction", "corrected_log", "names_card", "settled_log"]


@dataclass(frozen=True, slots=True)
class Correction:
    """What a correction changed: ``lines`` rewritten, the sides before and after, and the
    scores of the game that are gone or new, so the table can be told each one."""

    was: Card
    card: Card
    lines: tuple[int, ...]
    before: tuple[Side, ...]
    after: tuple[Side, ...]
    gone: tuple[Pegged, ...]
    added: tuple[Pegged, ...]


def names_card(event: Event, card: Card) -> bool:
    """Whether ``event`` names ``card`` as laid, cut or shown."""
    if isinstance(event, Starter | Play):
        return event.card == card
    if isinstance(event, Show | Crib | Discard):
        return card in event.cards
    return False


def corrected_log(log: Sequence[tuple[int, Event]], fix: Correct
                  ) -> tuple[list[tuple[int, Event]], tuple[int, ...]]:
    """The log with ``fix.was`` read as ``fix.card`` in the latest deal of the current game
    (from its last ``new_game``) that names it, and the line numbers rewritten."""
    if fix.was == fix.card:
        raise IllegalEventError("correct_same_card",
                                f"a correction must name another card than {fix.was}")
    game_start = next((i for i in range(len(log) - 1, -1, -1)
                       if isinstance(log[i][1], NewGame)), 0)
    last = next((i for i in range(len(log) - 1, game_start - 1, -1)
                 if names_card(log[i][1], fix.was)), None)
    if last is None:
        raise IllegalEventError("correct_unknown_card",
                                f"no {fix.was} was read in this game, so none can be corrected")
    start = next((i for i in range(last, game_start - 1, -1) if isinstance(log[i][1], Deal)),
                 game_start)
    end = next((i for i in range(last + 1, len(log)) if isinstance(log[i][1], Deal)), len(log))
    out = list(log)
    lines = []
    for i in range(start, end):
        number, event = log[i]
        if names_card(event, fix.was):
            out[i] = (number, _swap(event, fix.was, fix.card))
            lines.append(number)
    return out, tuple(lines)


def settled_log(lines: Iterable[str | Mapping[str, Any] | Event]) -> list[tuple[int, Event]]:
    """The log's events, numbered by line, with every correction applied where it points and
    the ``correct`` lines themselves gone: the game as it was really played, for readers
    that fold it again (the coach's review and statistics). Blank lines are skipped."""
    log: list[tuple[int, Event]] = []
    for number, line in enumerate(lines):
        if isinstance(line, str) and not line.strip():
            continue
        event = as_event(line)
        if isinstance(event, Correct):
            log, _ = corrected_log(log, event)
        else:
            log.append((number, event))
    return log


def _swap(event: Event, was: Card, card: Card) -> Event:
    if isinstance(event, Starter):
        return Starter(card)
    if isinstance(event, Play):
        return Play(event.player, card)
    if isinstance(event, Show):
        return Show(event.player, tuple(card if c == was else c for c in event.cards))
    if isinstance(event, Discard):
        return Discard(event.player, tuple(card if c == was else c for c in event.cards))
    assert isinstance(event, Crib)
    return Crib(tuple(card if c == was else c for c in event.cards))
