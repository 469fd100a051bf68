"""Events, cards and scores as players say them, for the voice, the status line and the page.

A log line is for programs; what the table hears must be words a player
understands ("Bob's five of spades"), never the JSON.

>>> event_words({"type": "play", "player": "Bob", "card": "5S"})
"Bob's five of spades"
>>> points_words({"Ann": 2, "Bob": 0})
'Ann 2, Bob 0'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from engine.cards import Card
from engine.events import (
    Adjust,
    Claim,
    Correct,
    Crib,
    Deal,
    Discard,
    Event,
    Go,
    Misdeal,
    Muggins,
    NewGame,
    Play,
    Show,
    Starter,
    as_event,
)
from engine.records import Side

__all__ = ["card_words", "event_words", "fold_name", "result_words", "scores_words",
           "points_words"]


def card_words(card: Card) -> str:
    """``"five of spades"``."""
    return f"{card.rank.word} of {card.suit.name.lower()}"


def result_words(result: str | None) -> str:
    """A game's result as said: ``double_skunk`` is "double skunk"."""
    return "" if result is None else result.replace("_", " ")


def fold_name(name: str) -> str:
    """The key one player's spellings share: case and runs of spaces aside ("  aNN " is
    Ann), as the table's names (``firmware.table.names``), the club's rosters and the
    coach's ``--player`` match them."""
    return " ".join(name.split()).casefold()


def scores_words(sides: Iterable[Side | Mapping[str, Any]]) -> str:
    """The sides' scores in seating order, ``"Ann 12, Bob 9"``: the status line, the board
    picture's heading, the demo and ``history`` all say them so. A side may be its JSON
    (``Side.to_json``), where a report is described after it was written."""
    return _tally((s["name"], s["score"]) if isinstance(s, Mapping) else (s.name, s.score)
                  for s in sides)


def points_words(points: Mapping[str, int]) -> str:
    """Each side's match points in seating order, ``"Ann 2, Bob 0"``, said as the scores are."""
    return _tally(points.items())


def _tally(named: Iterable[tuple[str, int]]) -> str:
    return ", ".join(f"{name} {n}" for name, n in named)


def event_words(event: str | Mapping[str, Any] | Event) -> str:
    """One event of the log in words; a line that does not parse is described as such."""
    try:
        parsed = as_event(event)
    except ValueError:
        return "an unreadable event"
    return _words(parsed)


def _cards(cards: tuple[Card, ...]) -> str:
    named = [card_words(c) for c in cards]
    return ", ".join(named[:-1]) + " and " + named[-1] if len(named) > 1 else "".join(named)


def _words(event: Event) -> str:
    if isinstance(event, NewGame):
        return "the new game of " + " and ".join(event.players)
    if isinstance(event, Deal):
        return "the deal" if event.dealer is None else f"{event.dealer}'s deal"
    if isinstance(event, Starter):
        return f"the starter, the {card_words(event.card)}"
    if isinstance(event, Play):
        return f"{event.player}'s {card_words(event.card)}"
    if isinstance(event, Go):
        return f"{event.player}'s go"
    if isinstance(event, Show):
        return f"{event.player}'s show ({_cards(event.cards)})"
    if isinstance(event, Crib):
        return f"the crib ({_cards(event.cards)})"
    if isinstance(event, Claim):
        return f"{event.player}'s claim of {event.points}"
    if isinstance(event, Muggins):
        return f"{event.player}'s muggins"
    if isinstance(event, Adjust):
        return f"{event.player}'s {event.points:+d} ({event.reason})"
    if isinstance(event, Discard):
        return f"{event.player}'s throw to the crib ({_cards(event.cards)})"
    if isinstance(event, Correct):
        return f"the {card_words(event.was)} read as the {card_words(event.card)}"
    assert isinstance(event, Misdeal)
    return "the misdeal"
