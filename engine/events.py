"""Game events: the lines of the JSON Lines log in CONTRACT.md, as typed immutable values.

Parsing checks the *shape* of an event (its type, fields and their types);
whether the event is allowed now is the game's business (``engine.game``).
Keys beyond the contract's are ignored, so tools may annotate events
(a timestamp, a camera frame number) without breaking older readers.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.cards import Card
from engine.errors import EventError
from engine.jsontext import JsonTextError, loads
from engine.rules import Rules

__all__ = [
    "Event", "NewGame", "Deal", "Starter", "Play", "Go", "Show", "Crib", "Claim", "Muggins",
    "Adjust", "Discard", "Correct", "Misdeal", "as_event", "parse_event", "parse_line",
    "dumps_event", "MAX_NAME_LENGTH", "MAX_ADJUST", "MAX_REASON_LENGTH",
]

# Bounds at the log's boundary, so a log cannot carry numbers or text no table makes (a
# 100,000-character name, an adjust of 10^20): the table's own names stop at 20 characters.
MAX_NAME_LENGTH = 64
MAX_ADJUST = 999  # far past any game's hole: a bound on the log, not a rule of play
MAX_REASON_LENGTH = 200


@dataclass(frozen=True, slots=True)
class NewGame:
    players: tuple[str, ...]
    rules: Rules
    rules_json: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"type": "new_game", "players": list(self.players), "rules": dict(self.rules_json)}


@dataclass(frozen=True, slots=True)
class Deal:
    dealer: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "deal"}
        if self.dealer is not None:
            out["dealer"] = self.dealer
        return out


@dataclass(frozen=True, slots=True)
class Starter:
    card: Card

    def to_json(self) -> dict[str, Any]:
        return {"type": "starter", "card": str(self.card)}


@dataclass(frozen=True, slots=True)
class Play:
    player: str
    card: Card

    def to_json(self) -> dict[str, Any]:
        return {"type": "play", "player": self.player, "card": str(self.card)}


@dataclass(frozen=True, slots=True)
class Go:
    player: str

    def to_json(self) -> dict[str, Any]:
        return {"type": "go", "player": self.player}


@dataclass(frozen=True, slots=True)
class Show:
    player: str
    cards: tuple[Card, ...]

    def to_json(self) -> dict[str, Any]:
        return {"type": "show", "player": self.player, "cards": [str(c) for c in self.cards]}


@dataclass(frozen=True, slots=True)
class Crib:
    cards: tuple[Card, ...]

    def to_json(self) -> dict[str, Any]:
        return {"type": "crib", "cards": [str(c) for c in self.cards]}


@dataclass(frozen=True, slots=True)
class Claim:
    player: str
    points: int

    def to_json(self) -> dict[str, Any]:
        return {"type": "claim", "player": self.player, "points": self.points}


@dataclass(frozen=True, slots=True)
class Muggins:
    player: str

    def to_json(self) -> dict[str, Any]:
        return {"type": "muggins", "player": self.player}


@dataclass(frozen=True, slots=True)
class Adjust:
    player: str
    points: int
    reason: str = "adjust"

    def to_json(self) -> dict[str, Any]:
        return {"type": "adjust", "player": self.player, "points": self.points,
                "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Discard:
    """The cards a player threw to the crib this deal: kept for the coach, never scored."""

    player: str
    cards: tuple[Card, ...]

    def to_json(self) -> dict[str, Any]:
        return {"type": "discard", "player": self.player, "cards": [str(c) for c in self.cards]}


@dataclass(frozen=True, slots=True)
class Correct:
    """A card the board read wrongly: every mention of ``was`` in its deal becomes ``card``."""

    was: Card
    card: Card

    def to_json(self) -> dict[str, Any]:
        return {"type": "correct", "was": str(self.was), "card": str(self.card)}


@dataclass(frozen=True, slots=True)
class Misdeal:
    """The deal is void: the same dealer deals again (``rules.misdeal_penalty``)."""

    def to_json(self) -> dict[str, Any]:
        return {"type": "misdeal"}


Event = (NewGame | Deal | Starter | Play | Go | Show | Crib | Claim | Muggins | Adjust | Discard
         | Correct | Misdeal)


def parse_line(line: str) -> Event:
    """Parses one JSONL line; a line that is not a JSON object is an ``EventError``."""
    try:
        data = loads(line)
    except JsonTextError as exc:
        raise EventError(f"{exc}: {_quote(line.strip())}") from None
    return parse_event(data)


def as_event(event: str | Mapping[str, Any] | Event) -> Event:
    """A log line, an event object or a typed event, as its typed event."""
    if isinstance(event, str):
        return parse_line(event)
    if isinstance(event, Mapping):
        return parse_event(event)
    if isinstance(event, Event):
        return event
    raise EventError(f"not an event: {event!r}")


def _quote(text: str, *, limit: int = 80) -> str:
    """``text`` quoted for a one-line message, cut short when a log line is huge."""
    return repr(text) if len(text) <= limit else f"{text[:limit]!r}... ({len(text)} characters)"


def _shown(value: Any) -> str:
    """Any value for a one-line message: text quoted and cut short, others' repr cut short."""
    if isinstance(value, str):
        return _quote(value)
    text = repr(value)
    return text if len(text) <= 80 else f"{text[:80]}... ({len(text)} characters)"


def parse_event(data: Any) -> Event:
    """Parses one event object (a dict from JSON) into its typed event."""
    if not isinstance(data, Mapping):
        raise EventError(f"an event must be a JSON object, not {data!r}")
    kind = data.get("type")
    parser = _PARSERS.get(kind) if isinstance(kind, str) else None
    if parser is None:
        raise EventError(
            f"unknown event type {kind!r} (known: {', '.join(_PARSERS)})"
        )
    event: Event = parser(data)
    return event


def _field(data: Mapping[str, Any], key: str) -> Any:
    if key not in data:
        raise EventError(f"{data.get('type')} event needs {key!r}: {dict(data)!r}")
    return data[key]


def _name(data: Mapping[str, Any], key: str = "player") -> str:
    value = _field(data, key)
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_NAME_LENGTH:
        raise EventError(f"{data.get('type')}.{key} must be a player's name of 1 to "
                         f"{MAX_NAME_LENGTH} characters, not {_shown(value)}")
    return value


def _int(data: Mapping[str, Any], key: str) -> int:
    value = _field(data, key)
    if type(value) is not int:
        raise EventError(f"{data.get('type')}.{key} must be a whole number, not {value!r}")
    return value


def _card(value: Any, where: str) -> Card:
    if not isinstance(value, str):
        raise EventError(f"{where} must be a card like \"5H\", not {value!r}")
    return Card.parse(value)


def _cards(data: Mapping[str, Any], key: str = "cards") -> tuple[Card, ...]:
    value = _field(data, key)
    where = f"{data.get('type')}.{key}"
    if not isinstance(value, list):
        raise EventError(f"{where} must be a list of cards, not {value!r}")
    return tuple(_card(v, where) for v in value)


def _new_game(data: Mapping[str, Any]) -> NewGame:
    players = _field(data, "players")
    if not isinstance(players, list) or not all(isinstance(p, str) and p.strip()
                                                 for p in players):
        raise EventError(f"new_game.players must be a list of names, not "
                         f"{_shown(players)}")
    if not 2 <= len(players) <= 4:
        raise EventError(f"cribbage is for 2, 3 or 4 players, not {len(players)}: "
                         f"{_shown(players)}")
    if any(len(p) > MAX_NAME_LENGTH for p in players):
        raise EventError(f"new_game.players: a name is at most {MAX_NAME_LENGTH} characters, "
                         f"not {max(len(p) for p in players)}")
    if len(set(players)) != len(players):
        raise EventError(f"new_game.players names a player twice: {players!r}")
    rules_json = data.get("rules", {})
    if not isinstance(rules_json, Mapping):
        raise EventError(f"new_game.rules must be an object like {{\"target\": 61}}, "
                         f"not {rules_json!r}")
    rules = Rules.from_json(rules_json, players=len(players))
    return NewGame(tuple(players), rules, dict(rules_json))


def _deal(data: Mapping[str, Any]) -> Deal:
    return Deal(_name(data, "dealer") if data.get("dealer") is not None else None)


def _adjust(data: Mapping[str, Any]) -> Adjust:
    points = _int(data, "points")
    if points == 0 or abs(points) > MAX_ADJUST:
        raise EventError(f"adjust.points must be from -{MAX_ADJUST} to {MAX_ADJUST}, not 0, "
                         f"not {_shown(points)}")
    reason = data.get("reason", "adjust")
    if not isinstance(reason, str) or len(reason) > MAX_REASON_LENGTH:
        raise EventError(f"adjust.reason must be text of at most {MAX_REASON_LENGTH} "
                         f"characters, not {_shown(reason)}")
    return Adjust(_name(data), points, reason)


def _claim(data: Mapping[str, Any]) -> Claim:
    points = _int(data, "points")
    if points < 0:
        raise EventError(f"claim.points must not be negative, not {points!r}")
    return Claim(_name(data), points)


_PARSERS: dict[str, Callable[[Mapping[str, Any]], Event]] = {
    "new_game": _new_game,
    "deal": _deal,
    "starter": lambda d: Starter(_card(_field(d, "card"), "starter.card")),
    "play": lambda d: Play(_name(d), _card(_field(d, "card"), "play.card")),
    "go": lambda d: Go(_name(d)),
    "show": lambda d: Show(_name(d), _cards(d)),
    "crib": lambda d: Crib(_cards(d)),
    "claim": _claim,
    "muggins": lambda d: Muggins(_name(d)),
    "adjust": _adjust,
    "discard": lambda d: Discard(_name(d), _cards(d)),
    "correct": lambda d: Correct(_card(_field(d, "was"), "correct.was"),
                                 _card(_field(d, "card"), "correct.card")),
    "misdeal": lambda d: Misdeal(),
}


def dumps_event(event: Event) -> str:
    """One JSONL line for ``event``, as the device stores it and ``replay`` reads it."""
    return json.dumps(event.to_json(), ensure_ascii=False)
