"""What the phone page shows, as one JSON object built on the loop's own thread.

The loop owns the game, the store and the flow; the web thread may only read
what the loop hands over. So the loop gathers a ``TableView`` (which still
holds its live ``Game``) and ``table_snapshot`` turns it into plain JSON data
right there, before the loop moves on; the hub then keeps only that text.

``revision`` names the store's state: it changes with every append, undo or
new match and never comes back to an earlier value while the store lives
(row ids only grow, and for one last row id each undo shortens the log), so a
change request that names the revision it was made against can be refused
when the table has moved on since.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol

from engine.cards import Card
from engine.game import Game
from engine.records import Side
from engine.rules import Rules
from firmware.table.flow import misdeal_allowed, open_match_words
from firmware.table.words import REASON_NAMES, next_words, pegged_words, reason_names

if TYPE_CHECKING:  # a type only: the club, which shows sides as the page does, needs no OpenCV
    from vision.live.focus_watch import FocusState

__all__ = ["TableView", "BoardLimits", "table_snapshot", "revision", "hex_colour",
           "side_json", "match_standing", "SCORE_NAMES"]

#: How the page names each reason a score was pegged: the table's names.
SCORE_NAMES = REASON_NAMES


class _Store(Protocol):
    @property
    def last_id(self) -> int: ...

    @property
    def line_count(self) -> int: ...


def revision(store: _Store) -> str:
    """The store's state as a short token: ``"<last row id>.<events in the match>"``."""
    return f"{store.last_id}.{store.line_count}"


@dataclass(frozen=True)
class BoardLimits:
    """What the LED board can show: how many sides get a track, and its game hole."""

    tracks: int = 2
    shared: bool = False
    game_hole: int = 121

    def to_json(self) -> dict[str, Any]:
        return {"tracks": self.tracks, "shared": self.shared, "game_hole": self.game_hole}


@dataclass(frozen=True)
class TableView:
    """Everything the page shows, gathered by the loop. Read it on the loop's thread only:
    ``game`` is the store's live game."""

    game: Game
    lines: Sequence[str]
    rev: str
    players: tuple[str, ...]
    rules: Mapping[str, Any]
    colours: tuple[tuple[int, int, int], ...]
    feedback: Sequence[tuple[str, str]] = ()
    matches: Sequence[Any] = ()
    camera: bool = False
    manual: bool = False
    # "out of focus" once the players have been told so (vision.live.focus_watch).
    camera_focus: FocusState = "unknown"
    limits: BoardLimits = field(default_factory=BoardLimits)
    status: str = ""


def hex_colour(rgb: Sequence[int]) -> str:
    """``(0, 114, 178)`` as ``"#0072b2"``, as CSS wants it."""
    return "#" + "".join(f"{int(c):02x}" for c in rgb[:3])


def side_json(side: Side) -> dict[str, Any]:
    """A side as every scoreboard shows it: the page, the club's ``now`` message and its
    boards. The pegs are named front and back here, where ``Side.to_json`` (the log's
    replay) keeps them as a pair; the page adds its colour and result after these keys."""
    return {"name": side.name, "players": list(side.players), "score": side.score,
            "front": side.pegs[0], "back": side.pegs[1]}


def match_standing(game: Game, rules: Rules | None = None) -> dict[str, Any]:
    """Where the match stands, as the page and ``history`` show it: each side's match points,
    what the match is played to (``best_of`` games or ``first_to`` points, or neither), the
    sides at match point and the match's winner. ``rules`` stand in for the game's before a
    game begins (the page shows the settings then); a match without sides has no points."""
    playing = bool(game.sides)
    rules = game.rules if rules is None else rules
    return {"points": game.match_points if playing else {},
            "best_of": rules.best_of, "first_to": rules.first_to,
            "match_point": list(game.match_point) if playing else [],
            "winner": game.match_winner if playing else None}


def table_snapshot(view: TableView) -> dict[str, Any]:
    """The page's JSON: board, count, scores in words, history, settings."""
    game = view.game
    events = [_event(line) for line in view.lines]
    sides = game.sides
    colours = list(view.colours)
    playing = bool(sides)
    rules = game.rules if playing else _rules(view)
    turn = game.turn if playing and game.phase != "over" else None
    turn_side = None
    if turn is not None:
        turn_side = next((i for i, s in enumerate(sides) if turn in s.players), None)
    winner_side = next((i for i, s in enumerate(sides) if s.name == game.winner), None)
    starter = game.starter
    return {
        "rev": view.rev,
        "phase": game.phase,
        "next": next_words(game),
        # The buttons the page offers only when the table allows them, and what a new match
        # would do to this one (the question that asks for CONFIRM says it).
        "misdeal_allowed": misdeal_allowed(game),
        "open_match": open_match_words(game),
        "status": view.status,
        "players": list(game.players),
        "turn": turn,
        "turn_side": turn_side,
        "dealer": game.dealer,
        "winner": game.winner,
        "winner_side": winner_side,
        "result": game.result,
        "board": {
            "target": rules.target,
            "skunk": rules.skunk,
            "double_skunk": rules.double_skunk,
            "limits": view.limits.to_json(),
        },
        "sides": [{
            **side_json(side),
            "colour": hex_colour(colours[i]) if i < len(colours) else "#888888",
            "result": side.result,
        } for i, side in enumerate(sides)],
        "count": game.count,
        "pile": [str(c) for c in game.pile],
        "starter": None if starter is None else str(starter),
        "laid": {p: [str(c) for c in game.laid(p)] for p in game.players} if playing else {},
        "awaiting_claim": list(game.awaiting_claim),
        "rules": rules.to_json(),
        "scores": _scores(game, events),
        "match": {
            "games": [{"winner": g.winner, "result": g.result, "value": g.value,
                       "scores": list(g.scores)} for g in game.match],
            **match_standing(game, rules),
        },
        "history": [_match(m) for m in list(view.matches)[-10:]][::-1],
        "feedback": [{"kind": k, "text": t} for k, t in list(view.feedback)[::-1]],
        "camera": view.camera,
        "camera_focus": view.camera_focus,
        "manual": view.manual,
        "settings": {
            "players": list(view.players),
            "rules": dict(view.rules),
            "colours": [hex_colour(c) for c in colours],
        },
    }


def _rules(view: TableView) -> Rules:
    try:
        return Rules.from_json(view.rules, players=len(view.players))
    except ValueError:  # the flow checked them; a page must never break the loop
        return Rules()


@lru_cache(maxsize=4096)
def _event(line: str) -> Mapping[str, Any]:
    """One stored line as data. Cached: every publish reads the whole match's log, and a
    line, once stored, never changes (the result is shared: read it, never change it)."""
    try:
        found = json.loads(line)
    except ValueError:
        return {}
    return found if isinstance(found, Mapping) else {}


def _scores(game: Game, events: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Every score of the current game, newest first, with the cards that made it."""
    starters: dict[int, str] = {}
    deals: dict[int, int] = {}  # each event's deal in its game (0: before the first deal)
    current: str | None = None
    deal = 0
    for number, event in enumerate(events):
        if event.get("type") == "starter":
            current = str(event.get("card"))
        elif event.get("type") == "deal":
            current, deal = None, deal + 1
        elif event.get("type") == "new_game":
            deal = 0
        starters[number] = current or ""
        deals[number] = deal
    dealers = _dealers(game, deal)
    out: list[dict[str, Any]] = []
    for pegged in game.points:
        event = events[pegged.event] if 0 <= pegged.event < len(events) else {}
        kind = str(event.get("type", ""))
        item: dict[str, Any] = {
            "event": pegged.event,
            "side": pegged.side,
            "player": pegged.player,
            "points": pegged.points,
            "reason": pegged.reason,
            "what": reason_names(pegged.reason),
            "words": pegged_words(pegged, game),
            "kind": kind,
            "deal": deals.get(pegged.event, 0),
            "dealer": dealers.get(deals.get(pegged.event, 0)),
        }
        if kind in ("show", "crib"):
            item["cards"] = [str(Card.parse(c)) for c in event.get("cards", ())]
            item["starter"] = starters.get(pegged.event) or None
        elif kind == "play":
            item["cards"] = [str(event.get("card"))]
        out.append(item)
    return out[::-1]


def _dealers(game: Game, deals: int) -> dict[int, str]:
    """Who dealt each deal of the game (1 to ``deals``, the current one last): the deal
    passes to the left each deal (a misdeal is redealt within its deal), so the dealers
    follow from the current one."""
    if game.dealer is None or deals == 0:
        return {}
    seat, n = game.players.index(game.dealer), len(game.players)
    return {k: game.players[(seat - (deals - k)) % n] for k in range(1, deals + 1)}


def _match(summary: Any) -> dict[str, Any]:
    data: dict[str, Any] = summary.to_json()
    return data
