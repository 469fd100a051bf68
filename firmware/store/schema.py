"""The event store's tables and rows, for the store that writes them and the repair that
reads them back (``firmware.store.eventstore``, ``firmware.store.repair``).

Each row carries a CRC32 of its id, match, time and text (``row_crc``): SQLite does not
checksum its pages and an SD card can return garbage. ``matches`` and ``games`` are derived
from the events by the engine, in the same transaction as the event that changes them.
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from dataclasses import dataclass
from pathlib import Path

from engine.game import Game

__all__ = ["SCHEMA_VERSION", "StoreError", "Row", "row_crc", "connect", "create_schema",
           "players_and_sides", "record_game", "SUFFIXES", "family"]

SCHEMA_VERSION = 2  # 2: the lost table

_SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id         INTEGER PRIMARY KEY,
    players    TEXT NOT NULL,            -- JSON list, seating order
    sides      TEXT NOT NULL,            -- JSON list of side names ("Ann & Cat" in partnership)
    started_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    id        INTEGER PRIMARY KEY,       -- assigned by the store: consecutive, never reused
    match     INTEGER NOT NULL REFERENCES matches(id),
    line      TEXT NOT NULL,             -- the event, one CONTRACT.md JSON Lines line
    crc       INTEGER NOT NULL,          -- CRC32 of "id:match:repr(at):line"
    at        REAL NOT NULL,             -- when the device stored it (the store's clock)
    undone_at REAL                       -- set by undo: replay skips undone rows
);
CREATE INDEX IF NOT EXISTS events_by_match ON events(match, id);
CREATE TABLE IF NOT EXISTS games (
    event   INTEGER PRIMARY KEY REFERENCES events(id),  -- the event that ended the game
    match   INTEGER NOT NULL REFERENCES matches(id),
    winner  TEXT NOT NULL,
    result  TEXT NOT NULL,               -- win | skunk | double_skunk
    value   INTEGER NOT NULL,            -- match points, from the game's rules.game_values
    scores  TEXT NOT NULL                -- JSON list, one score per side
);
-- Events a repair could not keep: their ids stay taken, so the events table may skip them.
CREATE TABLE IF NOT EXISTS lost (
    id     INTEGER PRIMARY KEY,          -- the lost event's id
    place  TEXT NOT NULL,                -- JSON list of [match, game] it belonged to
    why    TEXT NOT NULL,
    at     REAL NOT NULL                 -- when the repair found it lost
);
-- Finished games whose ending event still stands (an undone ending is not a result).
CREATE VIEW IF NOT EXISTS finished_games AS
    SELECT games.* FROM games JOIN events ON events.id = games.event
    WHERE events.undone_at IS NULL;
"""


class StoreError(OSError):
    """The store cannot do what was asked: unreadable, newer schema, nothing to undo."""


@dataclass(frozen=True, slots=True)
class Row:
    id: int
    match: int
    line: str
    crc: int
    at: float
    undone_at: float | None


def row_crc(event_id: int, match: int, at: float, line: str) -> int:
    return zlib.crc32(f"{event_id}:{match}:{at!r}:{line}".encode())


def connect(path: Path, *, readonly: bool) -> sqlite3.Connection:
    uri = f"file:{path.resolve().as_posix()}?mode={'ro' if readonly else 'rwc'}"
    conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
    if not readonly:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
    return conn


def players_and_sides(game: Game) -> tuple[str, str]:
    return (json.dumps(list(game.players), ensure_ascii=False),
            json.dumps([side.name for side in game.sides], ensure_ascii=False))


def record_game(conn: sqlite3.Connection, event_id: int, match: int, game: Game) -> None:
    finished = game.match[-1]
    conn.execute("INSERT INTO games (event, match, winner, result, value, scores) "
                 "VALUES (?, ?, ?, ?, ?, ?)",
                 (event_id, match, finished.winner, finished.result, finished.value,
                  json.dumps(list(finished.scores))))


def create_schema(conn: sqlite3.Connection) -> None:
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise StoreError(f"the event store was written by a newer version (schema {version}, "
                         f"this program knows {SCHEMA_VERSION})")
    if version < SCHEMA_VERSION:
        conn.execute("BEGIN IMMEDIATE")
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")


SUFFIXES = ("", "-wal", "-shm", "-journal", "-mark")


def family(path: Path) -> list[Path]:
    return [path.with_name(path.name + suffix) for suffix in SUFFIXES]
