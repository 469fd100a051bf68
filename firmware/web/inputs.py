"""What a phone may ask the board to do, checked, and turned into table inputs.

Every change the page makes goes through the same door as the buttons and
the camera: this module turns a request body into the ``firmware.table.flow``
inputs (``ButtonAction``, ``ManualCard``, ``ManualSpread``, ``NewMatch``) that
the loop feeds to the flow. It only checks shape and meaning against the
page's latest snapshot (player names, what the LED board can show); the
rules of the game stay the engine's, judged by the loop.

A request body is one JSON object::

    {"action": "card", "card": "5H", "zone": "Ann", "rev": "12.9", "nonce": "k3j4..."}

``rev`` is the snapshot's revision the phone acted on, ``nonce`` a fresh
random token per request (8 to 64 letters, digits, ``-`` or ``_``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.cards import Card
from engine.errors import EngineError
from engine.rules import Rules
from firmware.table.flow import (
    CRIB,
    MAX_ADJUST,
    STARTER,
    AdjustScore,
    ButtonAction,
    CorrectCard,
    ManualCard,
    ManualDiscard,
    ManualSpread,
    NewMatch,
    TableInput,
)
from firmware.table.names import MAX_NAME, PlayerNameError, player_names
from hardware.palette import RGB, PaletteError, parse_colour

__all__ = ["InputError", "Change", "TableSettings", "parse_change", "check_settings",
           "ACTIONS", "MAX_CLAIM", "MAX_NAME"]

#: The actions and the fields each takes besides ``action``, ``rev`` and ``nonce``.
ACTIONS: Mapping[str, frozenset[str]] = {
    "undo": frozenset(), "go": frozenset(), "confirm": frozenset(), "muggins": frozenset(),
    "new_game": frozenset(), "misdeal": frozenset(),
    "correct": frozenset({"was", "card"}),
    "claim": frozenset({"points"}),
    "adjust": frozenset({"player", "points"}),
    "card": frozenset({"card", "zone"}),
    "spread": frozenset({"cards", "zone"}),
    "discard": frozenset({"player", "cards"}),
    "new_match": frozenset({"players", "rules", "colours"}),
}
#: The most a claim may say: the best show is 29 (the buttons' dial stops there too).
MAX_CLAIM = 29
_NONCE = re.compile(r"[A-Za-z0-9_-]{8,64}")
_REV = re.compile(r"[0-9]{1,12}\.[0-9]{1,12}")


class InputError(ValueError):
    """A request the board cannot take; the message says which field and why."""


@dataclass(frozen=True)
class TableSettings:
    """Players in seating order, the rules block and one colour per side."""

    players: tuple[str, ...]
    rules: Mapping[str, Any]
    colours: tuple[RGB, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"players": list(self.players), "rules": dict(self.rules),
                "colours": [list(c) for c in self.colours]}


@dataclass(frozen=True)
class Change:
    """A checked request: the inputs for the loop, and the settings a new match chose."""

    action: str
    items: tuple[TableInput, ...]
    rev: str
    nonce: str
    settings: TableSettings | None = None


def parse_change(body: Any, *, table: Mapping[str, Any]) -> Change:
    """Checks a request body against the page's latest snapshot ``table``.

    The inputs' times are 0: the loop stamps them with its own clock.
    """
    if not isinstance(body, Mapping):
        raise InputError(f"the request must be a JSON object, not {_kind(body)}")
    action = body.get("action")
    if not isinstance(action, str) or action not in ACTIONS:
        raise InputError(f"action must be one of {', '.join(ACTIONS)}, not {_show(action)}")
    allowed = ACTIONS[action] | {"action", "rev", "nonce"}
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise InputError(f"{action}: unknown field {unknown[0]!r} "
                         f"(it takes: {', '.join(sorted(allowed))})")
    missing = sorted(((ACTIONS[action] - {"colours"}) | {"rev", "nonce"}) - set(body))
    if missing:
        raise InputError(f"{action}: missing field {missing[0]!r}")
    rev, nonce = body["rev"], body["nonce"]
    if not isinstance(rev, str) or not _REV.fullmatch(rev):
        raise InputError(f"rev must be the revision the page shows, like \"12.9\", "
                         f"not {_show(rev)}")
    if not isinstance(nonce, str) or not _NONCE.fullmatch(nonce):
        raise InputError("nonce must be a fresh random token of 8 to 64 letters, digits, "
                         f"- or _, not {_show(nonce)}")
    players = tuple(str(p) for p in table.get("players", ()))
    settings = None
    items: tuple[TableInput, ...]
    if action == "claim":
        items = (ButtonAction("claim", _points(body["points"])),)
    elif action == "adjust":
        player = _zone(body["player"], players, (), "the score is adjusted for", "player")
        items = (AdjustScore(player, _adjustment(body["points"]), 0.0),)
    elif action == "card":
        zone = _zone(body["zone"], players, (STARTER,), "a card is laid")
        items = (ManualCard(_card(body["card"], "card"), zone, 0.0),)
    elif action == "correct":
        items = (CorrectCard(_card(body["was"], "was"), _card(body["card"], "card"), 0.0),)
    elif action == "spread":
        zone = _zone(body["zone"], players, (CRIB,), "a hand or the crib is spread")
        items = (ManualSpread(zone, _spread(body["cards"]), 0.0),)
    elif action == "discard":
        player = _zone(body["player"], players, (), "the cards were thrown from", "player")
        items = (ManualDiscard(player, _throw(body["cards"]), 0.0),)
    elif action == "new_match":
        limits = table.get("board", {}).get("limits", {})
        settings = check_settings(body["players"], body["rules"], body.get("colours"),
                                  tracks=int(limits.get("tracks", 4)),
                                  shared=bool(limits.get("shared", False)),
                                  game_hole=int(limits.get("game_hole", 121)))
        items = (NewMatch(settings.players, dict(settings.rules), 0.0, settings.colours),)
    else:
        items = (ButtonAction(action),)
    return Change(action, items, rev, nonce, settings)


def check_settings(players: Any, rules: Any, colours: Any = None, *, tracks: int = 4,
                   shared: bool = False, game_hole: int = 121) -> TableSettings:
    """Checks new-match settings: 2 to 4 distinct names, a rules block the engine takes,
    one colour per side (None: the board's default colours), and a board that can show
    them (``tracks`` sides unless ``shared``, a game hole at least the target)."""
    try:
        names = player_names(players)
    except PlayerNameError as exc:
        raise InputError(str(exc)) from None
    if not isinstance(rules, Mapping):
        raise InputError(f"rules must be an object (the new_game rules block), "
                         f"not {_show(rules)}")
    try:
        parsed = Rules.from_json(rules, players=len(names))
    except (EngineError, ValueError) as exc:
        raise InputError(str(exc)) from None
    sides = 2 if parsed.partnership else len(names)
    if not shared and sides > tracks:
        raise InputError(f"{sides} sides need {sides} peg tracks; this board has {tracks}")
    if parsed.target > game_hole:
        raise InputError(f"a {parsed.target}-point game does not fit this board "
                         f"(its game hole is {game_hole})")
    rgb: tuple[RGB, ...] = ()
    if colours is not None:
        if not isinstance(colours, list) or len(colours) != sides:
            raise InputError(f"colours must be a list of {sides} colours (one per side), "
                             f"not {_show(colours)}")
        try:
            rgb = tuple(parse_colour(c) for c in colours)
        except PaletteError as exc:
            raise InputError(f"colours: {exc}") from None
        if len(set(rgb)) != len(rgb):
            raise InputError("colours: two sides have the same colour")
    return TableSettings(names, dict(rules), rgb)


# -- fields ------------------------------------------------------------------------------------


def _points(value: Any) -> int:
    if type(value) is not int or not 0 <= value <= MAX_CLAIM:
        raise InputError(f"points must be a whole number from 0 to {MAX_CLAIM}, "
                         f"not {_show(value)}")
    return value


def _adjustment(value: Any) -> int:
    if type(value) is not int or value == 0 or abs(value) > MAX_ADJUST:
        raise InputError(f"points must be a whole number from -{MAX_ADJUST} to {MAX_ADJUST} "
                         f"other than 0, not {_show(value)}")
    return value


def _card(value: Any, where: str) -> Card:
    if not isinstance(value, str) or len(value) > 8:
        raise InputError(f"{where} must be a card like \"5H\" or \"10S\", not {_show(value)}")
    try:
        return Card.parse(value)
    except ValueError as exc:
        raise InputError(f"{where}: {exc}") from None


def _spread(value: Any) -> tuple[Card, ...]:
    if not isinstance(value, list) or len(value) != 4:
        raise InputError(f"cards must be a list of the 4 cards spread, not {_show(value)}")
    cards = tuple(_card(v, f"cards[{i}]") for i, v in enumerate(value))
    if len(set(cards)) != 4:
        raise InputError(f"cards names a card twice: {' '.join(str(c) for c in cards)}")
    return tuple(sorted(cards))


def _throw(value: Any) -> tuple[Card, ...]:
    if not isinstance(value, list) or not 1 <= len(value) <= 2:
        raise InputError(f"cards must be a list of the 1 or 2 cards thrown to the crib, "
                         f"not {_show(value)}")
    cards = tuple(_card(v, f"cards[{i}]") for i, v in enumerate(value))
    if len(set(cards)) != len(cards):
        raise InputError(f"cards names a card twice: {' '.join(str(c) for c in cards)}")
    return tuple(sorted(cards))


def _zone(value: Any, players: Sequence[str], areas: Sequence[str], what: str,
          field: str = "zone") -> str:
    """``value`` checked as one of ``players`` or ``areas``; the error names ``field``, the
    one the player filled in ("player" for an adjustment, "zone" for a card)."""
    allowed = [*players, *areas]
    if not isinstance(value, str) or value not in allowed:
        who = "who" if field == "player" else "where"
        raise InputError(f"{field} must say {who} {what}: one of {', '.join(allowed)}, "
                         f"not {_show(value)}")
    return value


def _kind(value: Any) -> str:
    return {list: "a list", str: "a string", int: "a number", float: "a number",
            bool: "true/false", type(None): "null"}.get(type(value), type(value).__name__)


def _show(value: Any) -> str:
    """``value`` as a player would write it: a name bare, never Python's reprs (None, quotes)."""
    if value is None:
        return "nothing"
    if isinstance(value, str):
        text = f'"{value}"' if value.strip() else "an empty name"
    else:
        try:
            text = json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError):
            text = str(value)
    return text if len(text) <= 40 else text[:37] + "..."
