"""The board's outbox is its event store: two small tables in the same SQLite file say
what has been published.

``club_outbox`` holds ``sent``, the id of the last row the broker acknowledged;
``club_undone_sent`` the ids of rows whose undo has been acknowledged. So a broker
that is down, a Wi-Fi drop or a restart only delays rows, never loses or reorders
them: the rows not yet acknowledged are read again in store order next time.
The store's own writes never wait on this module for more than its one-row
updates, and it opens its own connection, so the loop's store is untouched.

The store's id on the wire is made once, from the board's name and the store's
first row, and kept here, so renaming the board later changes nothing. A recovered
store (``firmware.store``) is copied without these tables: it makes the same id
again from its first row (unless the board was renamed meanwhile) and publishes
its rows again from the first; the club server drops what it already has.
"""

from __future__ import annotations

import hashlib
import sqlite3
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Outbox", "OutboxRow", "Pending", "store_id"]

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS club_outbox (key TEXT PRIMARY KEY, value NOT NULL)",
    "CREATE TABLE IF NOT EXISTS club_undone_sent (id INTEGER PRIMARY KEY)",
)


@dataclass(frozen=True, slots=True)
class OutboxRow:
    id: int
    match: int
    crc: int
    at: float
    line: str
    undone: bool


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

    def __init__(self, path: Path, *, board: str) -> None:
        self.path, self.board = path, board
        self._conn = sqlite3.connect(f"file:{path.resolve().as_posix()}?mode=rw", uri=True,
                                     isolation_level=None, check_same_thread=False,
                                     timeout=5.0)
        # Losing the last cursor update to a power cut only sends those rows again.
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._ready = False
        self._sent = 0
        self._store: str | None = None
        self._version: int | None = None

    def close(self) -> None:
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
        self._sent = found[0] if found else 0
        self._ready = True
        return True

    def _store_id(self) -> str | None:
        conn = self._conn
        kept = conn.execute("SELECT value FROM club_outbox WHERE key = 'store'").fetchone()
        if kept is not None:
            return str(kept[0])
        first = conn.execute("SELECT crc, at FROM events WHERE id = 1").fetchone()
        if first is None:
            return None
        made = store_id(self.board, first[0], first[1])
        conn.execute("INSERT INTO club_outbox (key, value) VALUES ('store', ?)", (made,))
        return made

    def rewind(self, start: int) -> None:
        """Publishes again from row ``start`` (the club server asked for it)."""
        self._sent = min(self._sent, max(start - 1, 0))
        if self._ready:
            self._conn.execute("DELETE FROM club_undone_sent WHERE id >= ?", (start,))

    def pending(self, *, limit: int = 500) -> Pending:
        if not self._prepare():
            return Pending(None, (), 0, False)
        conn = self._conn
        if self._store is None:
            self._store = self._store_id()
        conn.execute("BEGIN")
        try:
            undone = conn.execute(
                "SELECT id, match, crc, at, line, undone_at FROM events "
                "WHERE undone_at IS NOT NULL AND id <= ? "
                "AND id NOT IN (SELECT id FROM club_undone_sent) ORDER BY id DESC",
                (self._sent,)).fetchall()
            new = conn.execute(
                "SELECT id, match, crc, at, line, undone_at FROM events WHERE id > ? "
                "ORDER BY id LIMIT ?", (self._sent, limit + 1)).fetchall()
            last = conn.execute("SELECT coalesce(max(id), 0) FROM events").fetchone()[0]
        finally:
            conn.execute("COMMIT")
        rows = tuple(OutboxRow(r[0], r[1], r[2], r[3], r[4], r[5] is not None)
                     for r in undone + new[:limit])
        return Pending(self._store, rows, last, len(new) > limit)

    def mark_sent(self, rows: tuple[OutboxRow, ...]) -> None:
        """Records rows the broker acknowledged (all of one ``pending`` batch)."""
        if not rows:
            return
        top = max(self._sent, max(r.id for r in rows))
        conn = self._conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.executemany("INSERT OR IGNORE INTO club_undone_sent (id) VALUES (?)",
                             [(r.id,) for r in rows if r.undone])
            conn.execute("INSERT INTO club_outbox (key, value) VALUES ('sent', ?) "
                         "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (top,))
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        self._sent = top

    def live_lines(self, match: int) -> list[str]:
        return [r[0] for r in self._conn.execute(
            "SELECT line FROM events WHERE match = ? AND undone_at IS NULL ORDER BY id",
            (match,))]

    def current_match(self) -> int | None:
        found = self._conn.execute("SELECT max(match) FROM events").fetchone()[0]
        return None if found is None else int(found)
