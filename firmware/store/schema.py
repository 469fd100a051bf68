"""The event store's tables and rows, for the store that writes them and the repair that
reads them back (``firmware.store.eventstore``, ``firmware.store.repair``).

Each row carries a CRC32 of its id, match, time and text (``row_crc``): SQLite does not
checksum its pages and an SD card can return garbage. An undo is a row of its own in
``undos``, checksummed the same way (``undo_crc``), never a change to the row it takes
back: a field no checksum covers could be changed without a trace. ``events.undone_at``,
``matches`` and ``games`` are derived (``firmware.store.derived``) and kept in the same
transaction as the row that changes them, for readers that want plain SQL; the store
itself trusts only the checksummed rows and rebuilds the rest when they disagree.
"""

from __future__ import annotations

import errno
import functools
import json
import os
import sqlite3
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from engine.game import Game

__all__ = ["SCHEMA_VERSION", "StoreError", "StorageFull", "Row", "Undo", "LostRow", "row_crc",
           "undo_crc", "connect", "create_schema", "players_and_sides", "expected_schema",
           "SUFFIXES", "family", "full_disk", "STORAGE_FULL", "schema_version"]

SCHEMA_VERSION = 4  # 2: the lost table; 3: undos as rows of their own, the derived digests;
# 4: the chain (firmware.store.chain)

# Version 2's tables, exactly as they were created (the schema check compares the text).
_SCHEMA_V2 = """
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

_SCHEMA_V3 = """
-- Undos, appended like events and never changed: the event taken back, when, and a CRC32
-- of "undo:id:event:repr(at)". events.undone_at repeats it for plain SQL readers.
CREATE TABLE IF NOT EXISTS undos (
    id    INTEGER PRIMARY KEY,
    event INTEGER NOT NULL,
    at    REAL NOT NULL,
    crc   INTEGER NOT NULL
);
-- Per match, a CRC32 over its history rows (matches, games): history that no longer
-- matches it is rebuilt from the events when the store opens.
CREATE TABLE IF NOT EXISTS derived (
    match  INTEGER PRIMARY KEY,
    digest INTEGER NOT NULL
);
"""

_SCHEMA_V4 = """
-- One link per row of events, undos and lost, in the order they were written: kind (e, u,
-- l) and id name the row, history is its match's history digest after it (0: not kept),
-- link a CRC32 of the row and history seeded with the link before (firmware.store.chain).
CREATE TABLE IF NOT EXISTS chain (
    seq     INTEGER PRIMARY KEY,
    kind    TEXT NOT NULL,
    ref     INTEGER NOT NULL,
    history INTEGER NOT NULL,
    link    INTEGER NOT NULL
);
"""

_SCHEMA = _SCHEMA_V2 + _SCHEMA_V3 + _SCHEMA_V4
_SCHEMAS = {1: _SCHEMA_V2, 2: _SCHEMA_V2, 3: _SCHEMA_V2 + _SCHEMA_V3, 4: _SCHEMA}


class StoreError(OSError):
    """The store cannot do what was asked: unreadable, newer schema, nothing to undo."""


STORAGE_FULL = "storage full"  # how StorageFull's words begin, said and shown (a 507)


class StorageFull(StoreError):
    """The card is full: nothing of the refused write was stored, and the store takes
    writes again once there is room (the device says "storage full" meanwhile)."""


def full_disk(exc: BaseException) -> bool:
    """Whether a failed write failed for want of space (SQLITE_FULL, ENOSPC, EDQUOT)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None and code & 0xFF == sqlite3.SQLITE_FULL:
        return True
    return getattr(exc, "errno", None) in (errno.ENOSPC, errno.EDQUOT)


@dataclass(frozen=True, slots=True)
class Row:
    id: int
    match: int
    line: str
    crc: int
    at: float
    undone_at: float | None


@dataclass(frozen=True, slots=True)
class LostRow:
    """One row of the ``lost`` table as stored (``place`` its JSON text)."""

    id: int
    place: str
    why: str
    at: float


@dataclass(frozen=True, slots=True)
class Undo:
    """One undo row: ``event`` was taken back at ``at``."""

    id: int
    event: int
    at: float
    crc: int


def row_crc(event_id: int, match: int, at: float, line: str) -> int:
    return zlib.crc32(f"{event_id}:{match}:{at!r}:{line}".encode())


def undo_crc(undo_id: int, event_id: int, at: float) -> int:
    return zlib.crc32(f"undo:{undo_id}:{event_id}:{at!r}".encode())


@functools.cache
def expected_schema(version: int) -> Mapping[str, str]:
    """The ``sqlite_master`` text of each table, index and view a store of ``version``
    has (version 1 lacked ``lost``), by name: anything else there is damage. Built once per
    version (every open checks against it), so read-only to callers."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.executescript(_SCHEMAS.get(version, _SCHEMA))
        found = {name: sql for name, sql in conn.execute("SELECT name, sql FROM sqlite_master")
                 if sql is not None}
    finally:
        conn.close()
    if version < 2:
        found.pop("lost", None)
    return found


def schema_version(found: Mapping[str, str], number: int) -> int:
    """The version a store is: the known version whose tables, indexes and views ``found``
    (name to ``sqlite_master`` text) holds exactly, else ``number`` (its ``user_version``).

    Why: ``user_version`` is four bytes of the file's header no checksum covers, and one
    flipped bit made a version 3 store read as version 2 (its undos migrated twice) or as a
    "newer version" the board refused to start on. A schema that is exactly a known
    version's is that version whatever the number says; opening puts the number right.
    """
    for version in (SCHEMA_VERSION, 3, 2, 1):
        if dict(found) == dict(expected_schema(version)):
            return version
    return number


def connect(path: Path, *, readonly: bool) -> sqlite3.Connection:
    uri = f"file:{quote(path.resolve().as_posix())}?mode={'ro' if readonly else 'rwc'}"
    if readonly and _frozen(path):
        uri += "&immutable=1"
    conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
    if not readonly:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
    return conn


def _frozen(path: Path) -> bool:
    """Whether nothing can write the store: its folder read-only (or its file system) and no
    -wal or -shm beside it. SQLite cannot read a WAL store there unless told it is
    immutable (it would make a -shm first), and ``run`` serves such a store read-only."""
    folder = path.resolve().parent
    return not os.access(folder, os.W_OK) and not any(
        path.with_name(path.name + suffix).exists() for suffix in ("-wal", "-shm"))


def players_and_sides(game: Game) -> tuple[str, str]:
    return (json.dumps(list(game.players), ensure_ascii=False),
            json.dumps([side.name for side in game.sides], ensure_ascii=False))


def create_schema(conn: sqlite3.Connection) -> None:
    number = conn.execute("PRAGMA user_version").fetchone()[0]
    found = {name: sql for name, sql in conn.execute("SELECT name, sql FROM sqlite_master")
             if sql is not None}
    version = schema_version(found, number) if found else number
    if version > SCHEMA_VERSION:
        raise StoreError(f"the event store was written by a newer version (schema {version}, "
                         f"this program knows {SCHEMA_VERSION})")
    # Every open: a derived table that went missing is made again (and refilled by the
    # store's check of its history); the events and undos are never made here but once.
    conn.execute("BEGIN IMMEDIATE")
    try:
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                conn.execute(statement)
        if 0 < version < 3:
            _migrate_undos(conn)
        if number != SCHEMA_VERSION:
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _migrate_undos(conn: sqlite3.Connection) -> None:
    """Version 2 marked an undo in the undone row itself (``undone_at``, outside its
    checksum): each becomes an undo row, in the order they were made."""
    done = conn.execute("SELECT id, undone_at FROM events WHERE undone_at IS NOT NULL "
                        "ORDER BY undone_at, id").fetchall()
    next_id = conn.execute("SELECT coalesce(max(id), 0) FROM undos").fetchone()[0]
    for event_id, at in done:
        next_id += 1
        at = float(at)
        conn.execute("INSERT INTO undos (id, event, at, crc) VALUES (?, ?, ?, ?)",
                     (next_id, event_id, at, undo_crc(next_id, event_id, at)))


SUFFIXES = ("", "-wal", "-shm", "-journal", "-mark")


def family(path: Path) -> list[Path]:
    return [path.with_name(path.name + suffix) for suffix in SUFFIXES]
