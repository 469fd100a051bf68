"""The board's outbox is its event store: two small tables in the same SQLite file say
what has been published.

``club_outbox`` holds ``sent``, the id of the last row the broker acknowledged;
``club_undone_sent`` the ids of rows whose undo has been acknowledged. So a broker
that is down, a Wi-Fi drop or a restart only delays rows, never loses or reorders
them: the rows not yet acknowledged are read again in store order next time.
The cursor is written at most once every ``persist_s`` (and on ``close``), so the
loop's commits rarely meet this module's write lock; a cursor lost to a crash only
sends those rows again, which the consumer drops. It opens its own connection, so
the loop's store is untouched.

Undos go out newest first, before new rows, and cover every row the broker may have
passed on (``mark_attempted``), acknowledged or not: the club server takes an undo
only of the newest live row it holds, as the board's store undoes.

The store's id on the wire is made once, from the board's name and the store's
first row, and kept here, so renaming the board later changes nothing. A recovered
store (``firmware.store.eventstore``) is copied without these tables: it takes the id again
from the damaged original the repair keeps beside it (``NAME.damaged-STAMP``),
so a board renamed before its store was repaired is still the same store to the
club server; where that copy cannot be read it makes the same id again from its
first row (unless the board was renamed meanwhile). It then publishes its rows
again from the first, and the club server drops what it already has.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from firmware.store.repair import damaged_copies

__all__ = ["Outbox", "OutboxRow", "Pending", "store_id"]

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS club_outbox (key TEXT PRIMARY KEY, value NOT NULL)",
    "CREATE TABLE IF NOT EXISTS club_undone_sent (id INTEGER PRIMARY KEY)",
)


@dataclass(frozen=True, slots=True)
class OutboxRow:
    """A row to publish; ``lost`` is an id a store repair could not keep (its ``lost``
    table): sent so the consumer drops what it held under it and sees no gap."""

    id: int
    match: int
    crc: int
    at: float
    line: str
    undone: bool
    lost: bool = False


@dataclass(frozen=True, slots=True)
class Pending:
    """Rows to publish, in the order to publish them (undos of sent rows first, newest
    first, then new rows oldest first), read in one snapshot of the store."""

    store: str | None
    rows: tuple[OutboxRow, ...]
    last_id: int
    more: bool


def store_id(board: str, crc: int, at: float) -> str:
    """Names a store by its board and first row: two boards' stores never share a name,
    even when their first rows are alike (a fixed clock in tests and demos)."""
    return hashlib.sha1(f"{board}:{crc}:{at!r}".encode()).hexdigest()[:16]


class Outbox:
    """What of the store at ``path`` has been published; one publisher thread uses it."""

    def __init__(self, path: Path, *, board: str, persist_s: float = 1.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.path, self.board = path, board
        self.persist_s, self._clock = persist_s, clock
        self._undone_sent: set[int] = set()
        self._unwritten: set[int] = set()
        self._written_sent = 0
        self._last_write = -1e18
        self._conn = sqlite3.connect(f"file:{path.resolve().as_posix()}?mode=rw", uri=True,
                                     isolation_level=None, check_same_thread=False,
                                     timeout=5.0)
        # Losing the last cursor update to a power cut only sends those rows again.
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._ready = False
        self._sent = 0
        self._attempted = 0  # the newest row published, acknowledged or not
        self._store: str | None = None
        self._version: int | None = None

    def close(self) -> None:
        try:
            self.persist()
        finally:
            self._conn.close()

    @property
    def sent(self) -> int:
        return self._sent

    def changed(self) -> bool:
        """Whether another connection (the loop's store) committed since the last call."""
        version = int(self._conn.execute("PRAGMA data_version").fetchone()[0])
        changed = version != self._version
        self._version = version
        return changed

    def _prepare(self) -> bool:
        if self._ready:
            return True
        conn = self._conn
        if conn.execute("PRAGMA user_version").fetchone()[0] < 1:
            return False  # the store has not created its schema yet
        for statement in _SCHEMA:
            conn.execute(statement)
        found = conn.execute("SELECT value FROM club_outbox WHERE key = 'sent'").fetchone()
        self._sent = self._written_sent = int(found[0]) if found else 0
        self._attempted = self._sent
        self._undone_sent = {i for (i,) in conn.execute("SELECT id FROM club_undone_sent")}
        self._ready = True
        return True

    def _store_id(self) -> str | None:
        conn = self._conn
        kept = conn.execute("SELECT value FROM club_outbox WHERE key = 'store'").fetchone()
        if kept is not None:
            return str(kept[0])
        first = conn.execute("SELECT crc, at FROM events WHERE id = 1").fetchone()
        made = self._id_before_repair(first)
        if made is None:
            # Row 1 lost in a repair whose original is gone: the first row kept names it.
            oldest = first or conn.execute(
                "SELECT crc, at FROM events ORDER BY id LIMIT 1").fetchone()
            if oldest is None:
                return None
            made = store_id(self.board, oldest[0], oldest[1])
        conn.execute("INSERT INTO club_outbox (key, value) VALUES ('store', ?)", (made,))
        return made

    def _id_before_repair(self, first: tuple[int, float] | None) -> str | None:
        """The id of the damaged original of this store, newest first: only one whose row 1
        is this store's row 1, or any when this store's row 1 was lost in the repair (a new
        store beside an old damaged file never takes its id)."""
        if first is None and not self._lost_row_one():
            return None
        for copy in damaged_copies(self.path):
            try:
                with closing(sqlite3.connect(f"file:{copy.resolve().as_posix()}?mode=ro",
                                             uri=True)) as old:
                    kept = old.execute(
                        "SELECT value FROM club_outbox WHERE key = 'store'").fetchone()
                    row = old.execute("SELECT crc, at FROM events WHERE id = 1").fetchone()
            except sqlite3.Error:
                continue  # damaged where the id was kept: try an older copy
            if kept is not None and (first is None or tuple(first) == tuple(row or ())):
                return str(kept[0])
        return None

    def _lost_row_one(self) -> bool:
        return self._has_lost_table() and bool(
            self._conn.execute("SELECT 1 FROM lost WHERE id = 1").fetchall())

    def _has_lost_table(self) -> bool:
        """False for a store from before repairs kept a list of lost rows."""
        return bool(self._conn.execute(
            "SELECT 1 FROM sqlite_master WHERE name = 'lost'").fetchall())

    def store(self) -> str | None:
        """The store's id on the wire (None until the store has a row)."""
        if not self._prepare():
            return None
        if self._store is None:
            self._store = self._store_id()
        return self._store

    def last_id(self) -> int:
        return int(self._conn.execute("SELECT coalesce(max(id), 0) FROM events").fetchone()[0])

    def rewind(self, start: int) -> None:
        """Publishes again from row ``start`` (the club server asked for it: it lacks them)."""
        self._sent = min(self._sent, max(start - 1, 0))
        self._attempted = min(self._attempted, max(start - 1, 0))
        self._undone_sent = {i for i in self._undone_sent if i < start}
        self._unwritten = {i for i in self._unwritten if i < start}
        if self._ready:
            self._conn.execute("DELETE FROM club_undone_sent WHERE id >= ?", (start,))
            self._written_sent = min(self._written_sent, self._sent)

    def pending(self, *, limit: int = 500) -> Pending:
        if not self._prepare():
            return Pending(None, (), 0, False)
        conn = self._conn
        if self._store is None:
            self._store = self._store_id()
        conn.execute("BEGIN")
        try:
            undone = [r for r in conn.execute(
                "SELECT id, match, crc, at, line, undone_at FROM events "
                "WHERE undone_at IS NOT NULL AND id <= ? ORDER BY id DESC",
                (max(self._sent, self._attempted),))
                if r[0] not in self._undone_sent]
            new = conn.execute(
                "SELECT id, match, crc, at, line, undone_at FROM events WHERE id > ? "
                "ORDER BY id LIMIT ?", (self._sent, limit + 1)).fetchall()
            lost = self._lost(limit)
            last = conn.execute("SELECT coalesce(max(id), 0) FROM events").fetchone()[0]
        finally:
            conn.execute("COMMIT")
        fresh = sorted([OutboxRow(r[0], r[1], r[2], r[3], r[4], r[5] is not None) for r in new]
                       + lost, key=lambda r: r.id)
        rows = tuple([OutboxRow(r[0], r[1], r[2], r[3], r[4], True) for r in undone]
                     + fresh[:limit])
        return Pending(self._store, rows, max([last, *(r.id for r in lost)]),
                       len(fresh) > limit)

    def _lost(self, limit: int) -> list[OutboxRow]:
        """Ids past the cursor that a repair of the store recorded as lost."""
        conn = self._conn
        if not self._has_lost_table():
            return []
        out = []
        for event_id, place, at in conn.execute(
                "SELECT id, place, at FROM lost WHERE id > ? ORDER BY id LIMIT ?",
                (self._sent, limit + 1)):
            try:  # place: [[match, game], ...] where the event belonged
                match = int(json.loads(place)[0][0])
            except (ValueError, TypeError, IndexError, KeyError):
                match = 0
            out.append(OutboxRow(event_id, match, 0, float(at), "", True, lost=True))
        return out

    def mark_attempted(self, rows: tuple[OutboxRow, ...]) -> None:
        """Records rows handed to the broker, which may pass them on unacknowledged."""
        if rows:
            self._attempted = max(self._attempted, max(r.id for r in rows))

    def mark_sent(self, rows: tuple[OutboxRow, ...]) -> None:
        """Records rows the broker acknowledged (all of one ``pending`` batch); written to
        the store now if ``persist_s`` has passed since the last write."""
        if not rows:
            return
        self._sent = max(self._sent, max(r.id for r in rows))
        undone = {r.id for r in rows if r.undone}
        self._undone_sent |= undone
        self._unwritten |= undone
        self.persist_if_due()

    def persist_if_due(self) -> None:
        if self._clock() - self._last_write >= self.persist_s:
            self.persist()

    def persist(self) -> None:
        """Writes the cursor and the acknowledged undos to the store."""
        if not self._ready or (self._sent == self._written_sent and not self._unwritten):
            return
        conn = self._conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.executemany("INSERT OR IGNORE INTO club_undone_sent (id) VALUES (?)",
                             [(i,) for i in sorted(self._unwritten)])
            conn.execute("INSERT INTO club_outbox (key, value) VALUES ('sent', ?) "
                         "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (self._sent,))
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        self._written_sent, self._unwritten = self._sent, set()
        self._last_write = self._clock()

    def live_lines(self, match: int) -> list[str]:
        return [r[0] for r in self._conn.execute(
            "SELECT line FROM events WHERE match = ? AND undone_at IS NULL ORDER BY id",
            (match,))]

    def current_match(self) -> int | None:
        found = self._conn.execute("SELECT max(match) FROM events").fetchone()[0]
        return None if found is None else int(found)
