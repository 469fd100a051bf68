"""A match's history (players, sides, finished games) derived from its checksummed events,
and the digest that ties the tables holding it to those events.

Why: ``matches`` and ``games`` let history be read without replaying years of games, but
nothing checksums them, so one ``UPDATE games SET winner = ...`` would rewrite who won.
Each match's ``derived.digest`` is a CRC32 over its history rows, written in the same
transaction as they are; the store compares it when it opens and replays only a match whose
rows no longer match their digest (or have none, as in a store from before it), rewriting
them from the replay. Its events are checksummed and only ever appended, so history
matching its digest still matches them.
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from collections.abc import Iterable
from dataclasses import dataclass

from engine.game import Game
from engine.records import LogError

__all__ = ["GameRow", "MatchHistory", "derive", "digest", "read_history", "write_history"]


@dataclass(frozen=True, slots=True)
class GameRow:
    """A finished game: the event that ended it, who won, how, for how much, the scores."""

    event: int
    winner: str
    result: str
    value: int
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class MatchHistory:
    """What the history tables hold for one match."""

    match: int
    players: tuple[str, ...]
    sides: tuple[str, ...]
    started_at: float
    games: tuple[GameRow, ...]


def derive(match: int, started_at: float, live: Iterable[tuple[int, str]]) -> MatchHistory:
    """Replays a match's live events ((id, line), oldest first) into its history; a line the
    engine refuses ends the replay there (the store's own checks report that as damage)."""
    game = Game()
    games: list[GameRow] = []
    players: tuple[str, ...] = ()
    sides: tuple[str, ...] = ()
    for event_id, line in live:
        finished = len(game.match)
        try:
            game.apply(line)
        except LogError:
            break
        if not players and game.players:
            players = tuple(game.players)
            sides = tuple(side.name for side in game.sides)
        if len(game.match) > finished:
            done = game.match[-1]
            games.append(GameRow(event_id, done.winner, done.result, done.value,
                                 tuple(done.scores)))
    return MatchHistory(match, players, sides, started_at, tuple(games))


def digest(history: MatchHistory) -> int:
    text = json.dumps([history.match, list(history.players), list(history.sides),
                       repr(history.started_at),
                       [[g.event, g.winner, g.result, g.value, list(g.scores)]
                        for g in history.games]], ensure_ascii=False)
    return zlib.crc32(text.encode())


def read_history(conn: sqlite3.Connection, match: int) -> tuple[MatchHistory, int] | None:
    """The history tables' rows for ``match`` and its stored digest; None where any is
    missing or not of the shape the store writes."""
    try:
        found = conn.execute("SELECT players, sides, started_at FROM matches WHERE id = ?",
                             (match,)).fetchone()
        stored = conn.execute("SELECT digest FROM derived WHERE match = ?",
                              (match,)).fetchone()
        if found is None or stored is None or not isinstance(found[2], float):
            return None
        players, sides = _texts(found[0]), _texts(found[1])
        games = []
        for event, winner, result, value, scores in conn.execute(
                "SELECT event, winner, result, value, scores FROM games WHERE match = ? "
                "ORDER BY event", (match,)):
            numbers = _json(scores)
            if not (isinstance(event, int) and isinstance(value, int)
                    and isinstance(numbers, list)
                    and all(type(n) is int for n in numbers)):
                return None
            games.append(GameRow(event, _text(winner), _text(result), value,
                                 tuple(int(n) for n in numbers)))
    except (sqlite3.DatabaseError, UnicodeDecodeError, ValueError, TypeError):
        return None
    if players is None or sides is None or not isinstance(stored[0], int):
        return None
    return MatchHistory(match, players, sides, found[2], tuple(games)), stored[0]


def write_history(conn: sqlite3.Connection, history: MatchHistory) -> None:
    """Replaces the history tables' rows for one match (inside the caller's transaction)."""
    match = history.match
    conn.execute("INSERT OR REPLACE INTO matches (id, players, sides, started_at) "
                 "VALUES (?, ?, ?, ?)",
                 (match, json.dumps(list(history.players), ensure_ascii=False),
                  json.dumps(list(history.sides), ensure_ascii=False), history.started_at))
    conn.execute("DELETE FROM games WHERE match = ?", (match,))
    conn.executemany("INSERT OR REPLACE INTO games (event, match, winner, result, value, "
                     "scores) VALUES (?, ?, ?, ?, ?, ?)",
                     [(g.event, match, g.winner, g.result, g.value, json.dumps(list(g.scores)))
                      for g in history.games])
    conn.execute("INSERT OR REPLACE INTO derived (match, digest) VALUES (?, ?)",
                 (match, digest(history)))


def _text(raw: object) -> str:
    if isinstance(raw, bytes):
        return raw.decode()
    if isinstance(raw, str):
        return raw
    raise TypeError("not text")


def _json(raw: object) -> object:
    return json.loads(_text(raw))


def _texts(raw: object) -> tuple[str, ...] | None:
    value = _json(raw)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    return None
