"""The device's event store: every game event, durably, in one SQLite file.

Why SQLite in WAL mode with ``synchronous=FULL``: the board runs from an SD
card and loses power whenever someone pulls the plug. In WAL mode a commit
appends the event's pages to the ``-wal`` file and fsyncs that one file (the
rollback journal needs three or four fsyncs and rewrites pages in place, which
is slower and wears the card more). ``FULL`` makes that fsync happen on every
commit, so an event the store has acknowledged survives a power cut; WAL's
``NORMAL`` would only keep the file consistent and could forget the last few
events. SQLite checksums every WAL frame and ignores a torn tail, so a crash in
the middle of a commit leaves the event out, never half in.

SQLite does not checksum its database pages, and an SD card can return
garbage, so each row also carries a CRC32 of its id, match, time and text (read
as bytes: a byte that is not UTF-8 is that row's damage, not a failure to open).
A WAL frame that goes bad takes every later commit with it and looks like a
torn write, so the store keeps a mark beside itself (``firmware.store.mark``)
of the last event it acknowledged. Opening a store verifies it and repairs a damaged
one, keeping every row it can trust (``firmware.store.repair``); the tables and the
row checksum are ``firmware.store.schema``.

The ``line`` column is exactly one line of CONTRACT.md's JSON Lines log, so a
match can be exported with ``SELECT line`` and replayed by ``cribbage-board
replay``. Undo appends an undo row (checksummed, ``firmware.store.schema``) instead of
changing or deleting the event, so the history stays honest while replay skips it; the
mark counts and chains the undo rows, so an undo added or removed shows.
Finished games get a ``games`` row derived from the engine (winner, result, match points)
in the same transaction as the event that ended them, under a digest that opening checks
(``firmware.store.derived``): history rows that no longer match are rebuilt from the
events and said in ``notes``.

A write refused for want of space is ``StorageFull``: SQLite rolls the transaction back,
so nothing of it is stored and the in-memory game is as before; the next write tries again.
The store keeps every row in memory (a season of games is a few MB), so reading history
never trusts a table the checksums do not cover.
"""

from __future__ import annotations

import json
import logging
import os
import pwd
import shlex
import sqlite3
import stat
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from engine.events import Event, NewGame, dumps_event, parse_event, parse_line
from engine.game import Game
from engine.records import LogError, Pegged
from firmware.store.chain import Link, Record, build, natural_order, next_link
from firmware.store.chain import key as record_key
from firmware.store.copy import (
    Copy,
    CopyFile,
    contents,
    copy_path,
    intact,
    judge,
    keep_aside,
    line_of,
    parse_copy,
    read_copy,
    rewrite,
)
from firmware.store.derived import (
    GameRow,
    MatchHistory,
    derive,
    digest,
    read_history,
    write_history,
)
from firmware.store.header import put_right_versions
from firmware.store.lock import holds
from firmware.store.mark import Mark, MarkFile, mark_path, read_mark
from firmware.store.repair import (
    Damage,
    Loaded,
    LostEvent,
    Recovery,
    repair_store,
    restore_from_copy,
    undo_chain,
    verified_rows,
    write_chain,
)
from firmware.store.schema import (
    SCHEMA_VERSION,
    LostRow,
    Row,
    StorageFull,
    StoreError,
    Undo,
    connect,
    create_schema,
    family,
    full_disk,
    row_crc,
    undo_crc,
)

__all__ = [
    "EventStore", "Appended", "Recovery", "LostEvent", "StoredEvent", "MatchSummary",
    "GameSummary", "StoreError", "StoreDamagedError", "StorageFull", "SCHEMA_VERSION",
    "StoreUnwritable", "NOT_STORED", "read_only_words", "copy_trouble_words",
    "copy_unreadable_words",
]

_log = logging.getLogger(__name__)


def copy_trouble_words(copy: Path, why: object) -> str:
    """What the board, the journal and the doctor say of a second copy that cannot be
    written (``why``): the events stand (SQLite holds them), in the store alone, and the next
    open rewrites the copy from the store."""
    return (f"the event store's second copy could not be written ({why}): events are kept in "
            f"the store alone, with no second copy for a repair to take one from, until the "
            f"board restarts and rewrites {str(copy)!r}; if it goes on, check the card (sudo "
            "dmesg) and that the board's user can write that file")


def copy_unreadable_words(copy: Path, why: object, kept: Path | None,
                          problem: object = None) -> str:
    """What the board, the journal and the doctor say of a second copy that could not be
    read as this store's (``why``): kept aside as ``kept`` and a fresh one written from the
    store, or, where it could not be moved (``problem``), left as it is and no copy kept."""
    said = f"the event store's second copy could not be read ({why})"
    if kept is not None:
        return (f"{said}: what it held was kept aside, untouched, as {str(kept)!r}, and a "
                "fresh copy written from the store, whose own checks found it whole; if it "
                "happens again, check the card (sudo dmesg)")
    return (f"{said} nor kept aside ({problem}): events are kept in the store alone, with no "
            f"second copy for a repair to take one from; {str(copy)!r} is left as it is: move "
            "it away and restart the board")


class StoreDamagedError(StoreError):
    """A damaged store opened read-only, where it cannot be repaired (see ``EventStore.open``)."""


class StoreUnwritable(StoreError):
    """The store cannot keep a change: its file or folder read-only for this user, its file
    system mounted read-only, the file removed or replaced while the board ran, an I/O error.
    Nothing of the change was stored and the game is as before; the words say what is wrong
    and how to put it right (the board says them and the page answers 409)."""


#: How the device's words for a change the store could not keep begin (the page's 409).
NOT_STORED = "Not stored"


@dataclass(frozen=True, slots=True)
class Appended:
    """An event the store has committed: its row id, match, line number and what it pegged."""

    id: int
    match: int
    number: int
    pegged: tuple[Pegged, ...]


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """One row of the store."""

    id: int
    match: int
    line: str
    at: float
    undone_at: float | None = None


@dataclass(frozen=True, slots=True)
class GameSummary:
    winner: str
    result: str
    value: int
    scores: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {"winner": self.winner, "result": self.result, "value": self.value,
                "scores": list(self.scores)}


@dataclass(frozen=True, slots=True)
class MatchSummary:
    """A match as history shows it: its finished games and match points per side."""

    id: int
    players: tuple[str, ...]
    started_at: float
    events: int
    games: tuple[GameSummary, ...]
    points: Mapping[str, int]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "players": list(self.players), "started_at": self.started_at,
                "events": self.events, "games": [g.to_json() for g in self.games],
                "points": dict(self.points),
                "skunks": sum(g.result != "win" for g in self.games)}


def _canonical(event: str | Mapping[str, Any] | Event) -> tuple[str, Event]:
    """The CONTRACT.md line for an event the game has already accepted."""
    if isinstance(event, str):
        parsed = parse_line(event)
    elif isinstance(event, Mapping):
        parsed = parse_event(event)
    else:
        parsed = event
    return dumps_event(parsed), parsed


class EventStore:
    """The event log of every match played on this board, and the live game.

    ``append`` checks an event against the engine before storing it and
    commits before returning, so the caller shows its effect only once it is
    safe. One process writes; others may read (``history``) at the same time.
    """

    def __init__(self, path: Path, conn: sqlite3.Connection, *,
                 clock: Callable[[], float], recovery: Recovery | None,
                 loaded: Loaded, readonly: bool) -> None:
        self.path = path
        self.recovery = recovery
        self.readonly = readonly
        # Why a store opened with ``fallback_readonly`` cannot be written (None: it can).
        self.unwritable: str | None = None
        # Whether ``writable_again`` may still switch it back (no: it said to restart).
        self._may_reopen = True
        # The file SQLite has open: a store removed or replaced while open is never written
        # (SQLite would go on into the deleted file, and every change would be gone at restart).
        self._identity = _identity(path)
        self.notes: tuple[str, ...] = ()  # history rebuilt from the events when it opened
        self._conn = conn
        self._clock = clock
        rows, lost = loaded.rows, loaded.lost
        # Lost ids stay taken: a new event never reuses the id of one a repair reported.
        self._last_id = max([0, *lost, *(r.id for r in rows)])
        self._rows: dict[int, list[StoredEvent]] = {}
        for r in rows:
            self._rows.setdefault(r.match, []).append(
                StoredEvent(r.id, r.match, r.line, r.at, r.undone_at))
        self._undos = list(loaded.undos)
        self._histories: dict[int, MatchHistory] = {}
        self._check_history(loaded)
        self._links = self._chain(loaded)
        last = rows[-1] if rows else None
        self._acknowledged = Mark(self._last_id, last.crc if last else 0,
                                  last.match if last else 0, len(self._undos),
                                  undo_chain(self._undos))
        self._mark: MarkFile | None = None
        self._copy: CopyFile | None = None
        # Why an event went without its second copy since the store opened, or why the copy
        # could not be read at open (None: neither happened).
        self.copy_trouble: str | None = None
        self._copy_write_said = False  # a failed write is said once, after an unread copy too
        self._unsynced = 0
        if not readonly:
            self._mark = MarkFile.open(mark_path(path))
            self._mark.write(self._acknowledged, durable=True)
            self._copy = self._open_copy(rows, loaded)
        self._match: int | None = max((r.match for r in rows), default=None)
        if self._match is None:
            found = conn.execute("SELECT max(id) FROM matches").fetchone()[0]
            self._match = found
        live = [r for r in rows if r.match == self._match and r.undone_at is None]
        self._lines = [r.line for r in live]
        self._ids = [r.id for r in live]
        self._game = Game.replay(self._lines)

    # -- opening ---------------------------------------------------------------

    @classmethod
    def open(cls, path: Path | str, *, clock: Callable[[], float] = time.time,
             readonly: bool = False, fallback_readonly: bool = False,
             repairing: Callable[[], None] | None = None) -> EventStore:
        """Opens (or creates) the store at ``path`` and resumes its current match.

        A damaged store is repaired as the module docstring says and
        ``recovery`` describes it; read-only, damage is a ``StoreDamagedError``
        instead, because repairing means moving files. A path that cannot hold a
        store (a device, a folder, /proc) is a ``StoreError`` naming it, and so is a store
        this user cannot write when opened to write (its file or folder read-only): a
        ``StoreUnwritable`` before anything is served from it. With ``fallback_readonly`` such
        a store opens read-only instead (``run`` serves the game as stored), ``unwritable``
        holds those words and every change raises them. ``repairing`` is called now and then
        while a repair runs (``run`` tells systemd to wait longer).
        """
        path = Path(path)
        _check_place(path)
        present = path.exists() and path.stat().st_size > 0
        if readonly and not present:
            raise StoreError(f"no event store at {str(path)!r}"
                             + (" (the file is empty)" if path.exists() else ""))
        if not readonly:
            problem = _unwritable(path)
            if problem is not None:
                if not (fallback_readonly and present):
                    raise StoreUnwritable(problem)
                try:
                    store = cls._open(path, clock=clock, readonly=True, present=True,
                                      repairing=None)
                except StoreError as exc:  # damaged too (no repair without writing)
                    raise StoreUnwritable(f"{problem}; nor can it be read as it is: "
                                          f"{exc}") from None
                store.unwritable = problem
                return store
        header = put_right_versions(path) if present and not readonly else None
        store = cls._open(path, clock=clock, readonly=readonly, present=present,
                          repairing=repairing)
        if header is not None:
            store.notes = (*store.notes, header)
        return store

    @classmethod
    def _open(cls, path: Path, *, clock: Callable[[], float], readonly: bool, present: bool,
              repairing: Callable[[], None] | None) -> EventStore:
        try:
            if present:
                # The mark first: read after the rows, it could name a commit made meanwhile.
                mark = read_mark(mark_path(path))
                try:
                    loaded = verified_rows(path, mark)
                    if not readonly:
                        _check_copy(path, loaded)
                except Damage as damage:
                    if readonly:
                        where = "" if damage.row_id is None else f" at event id {damage.row_id}"
                        raise StoreDamagedError(
                            f"event store {str(path)!r} is damaged{where}: {damage.reason} "
                            "(the device repairs it when it next starts)") from None
                    return cls._repair(path, damage, mark, clock, repairing)
                conn = connect(path, readonly=readonly)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                conn = connect(path, readonly=False)
                loaded = Loaded([], [], frozenset(), 0, frozenset(), [])
            if not readonly:
                create_schema(conn)
                if 0 < loaded.version < 3:  # the undos were made from undone_at just now
                    loaded = replace(loaded, undos=_read_undos(conn))
            return cls(path, conn, clock=clock, recovery=None, loaded=loaded,
                       readonly=readonly)
        except sqlite3.Error as exc:
            raise _store_error(path, "open", exc) from exc
        except StoreError:
            raise
        except OSError as exc:
            if full_disk(exc):
                raise StorageFull(f"storage full: no room to open the event store "
                                  f"{str(path)!r}") from exc
            raise StoreError(f"cannot open event store {str(path)!r}: "
                             f"{exc.strerror or exc}") from exc

    @classmethod
    def _repair(cls, path: Path, damage: Damage, mark: Mark | None,
                clock: Callable[[], float],
                repairing: Callable[[], None] | None) -> EventStore:
        copy = read_copy(copy_path(path)) if damage.broken is not None else None
        if copy is not None and _covers(copy, damage.linked):
            # The store broke its chain and the copy's holds whole: the copy wins.
            recovery = restore_from_copy(path, damage, copy, clock)
        else:
            recovery = repair_store(path, damage, mark, clock, repairing or _nothing)
        try:
            loaded = verified_rows(path, None)
        except Damage as damage:  # never expected: the fresh store is what salvage made
            raise StoreError(f"event store {str(path)!r} is still damaged after its repair "
                             f"({damage.reason}); the original is "
                             f"{str(recovery.moved_to)!r}") from None
        conn = connect(path, readonly=False)
        create_schema(conn)
        return cls(path, conn, clock=clock, recovery=recovery, loaded=loaded, readonly=False)

    def _check_history(self, loaded: Loaded) -> None:
        """Compares each match's history rows with their digest and rebuilds from the
        events those that differ (or are missing); also puts right an ``undone_at`` that
        disagrees with the undo rows. Read-only, the rebuilt history is only kept here."""
        notes = []
        rebuilt: list[MatchHistory] = []
        chained = loaded.histories or {}
        for match, rows in self._rows.items():
            stored = read_history(self._conn, match)
            if stored is not None and digest(stored[0]) == stored[1] \
                    and chained.get(match, stored[1]) == stored[1]:
                self._histories[match] = stored[0]
                continue
            live = [(r.id, r.line) for r in rows if r.undone_at is None]
            history = derive(match, rows[0].at, live)
            self._histories[match] = history
            if stored is not None and digest(stored[0]) == stored[1]:
                notes.append(f"match {match}'s history (its matches and games rows) had been "
                             "changed: it did not agree with the chain and was rebuilt from "
                             "the events")
            elif loaded.version >= 3 and (stored is None or history != stored[0]):
                notes.append(f"match {match}'s history did not match its events and was "
                             "rebuilt from them")
            rebuilt.append(history)
        if loaded.stale:
            notes.append(f"events.undone_at of event id {_ids(loaded.stale)} disagreed with "
                         "the undo rows and was put right")
        self.notes = tuple(notes)
        if self.readonly or not (rebuilt or loaded.stale or loaded.version < SCHEMA_VERSION):
            return
        with self._transaction(check_last=False) as conn:
            for history in rebuilt:
                write_history(conn, history)
            at = {r.id: r.undone_at for rows in self._rows.values() for r in rows}
            conn.executemany("UPDATE events SET undone_at = ? WHERE id = ?",
                             [(at.get(i), i) for i in sorted(loaded.stale)])
            for table in ("games", "derived", "matches"):
                column = "id" if table == "matches" else "match"
                conn.execute(f"DELETE FROM {table} WHERE {column} NOT IN "  # noqa: S608
                             "(SELECT match FROM events)")

    def _chain(self, loaded: Loaded) -> list[Link]:
        """The store's chain; a store from before the chain is chained now, in the order
        its rows' times tell, and from then on (``firmware.store.chain``)."""
        if loaded.links is not None or self.readonly:
            return list(loaded.links or ())
        plain = [replace(r, undone_at=None) for r in loaded.rows]
        links = build(natural_order([*plain, *self._undos, *loaded.losts]),
                      {m: digest(h) for m, h in self._histories.items()})
        with self._transaction(check_last=False) as conn:
            write_chain(conn, links)
        return links

    def _open_copy(self, rows: list[Row], loaded: Loaded) -> CopyFile | None:
        """The second copy, rewritten from the store first where it differs (damaged, cut,
        missing, or made before there were copies or the chain: an older store gets one at
        its first open). Rows only the copy holds were taken into the store before this
        (``open``); a copy edited against the chain loses to the store, which keeps it. One
        that cannot be written is said, and the store is kept without it (None). One that holds
        what the store does not (``copy.judge``), or cannot be read, is kept aside first and
        said; where it cannot be moved it is left as it is, and the store kept without one."""
        where = copy_path(self.path)
        held = _as_copied(rows, self._undos, loaded.losts)
        chained = [(held[(link.kind, link.ref)], link) for link in self._links]
        expected = contents(chained)
        try:
            try:
                found = where.read_bytes()
            except FileNotFoundError:
                found = b""
            except OSError as exc:
                if not self._copy_aside(where, exc.strerror or exc, loud=True):
                    return None
                found = b""
            if found != expected:
                judged = judge(parse_copy(found), held, data=found)
                if judged.loses:
                    if not self._copy_aside(where, judged.why(), loud=judged.foreign):
                        return None
                elif found and loaded.links is not None:
                    self.notes = (*self.notes, "the event store's second copy differed from "
                                  "the store and was rewritten from it")
                rewrite(where, chained)
            return CopyFile.open(where)
        except OSError as exc:
            self._copy_not_written(exc)
            return None

    def _copy_aside(self, where: Path, why: object, *, loud: bool) -> bool:
        """Keeps the copy at ``where`` aside before it is written over, and says so: aloud
        (``copy_trouble``) where it holds what is not this store's or could not be read
        (``Judged.foreign``), in the journal (``notes``) where some lines are only damaged.
        False where it cannot be moved: then it is left as it is, said aloud, and the store
        keeps no copy."""
        try:
            kept = keep_aside(where, self._clock())
        except OSError as exc:
            words = copy_unreadable_words(where, why, None, exc.strerror or exc)
            _log.warning("%s", words)
            self.copy_trouble = words
            return False
        if loud:
            words = copy_unreadable_words(where, why, kept)
            _log.warning("%s", words)
            self.copy_trouble = words
        else:
            self.notes = (*self.notes, f"the event store's second copy differed from the store "
                          f"({why}) and was rewritten from it; what it held was kept aside, "
                          f"untouched, as {str(kept)!r}")
        return True

    def _link(self, conn: sqlite3.Connection, record: Record, history: MatchHistory) -> Link:
        """The next link, for ``record`` just written in ``conn``'s transaction and its
        match's ``history`` after it."""
        previous = self._links[-1].link if self._links else 0
        kind, ref = record_key(record)
        kept = digest(history)
        link = Link(len(self._links) + 1, kind, ref, kept, next_link(previous, record, kept))
        conn.execute("INSERT INTO chain (seq, kind, ref, history, link) VALUES (?, ?, ?, ?, ?)",
                     (link.seq, link.kind, link.ref, link.history, link.link))
        return link

    def close(self) -> None:
        if self._copy is not None:
            self._copy.close()
            self._copy = None
        if self._mark is not None:
            try:
                self._mark.write(self._acknowledged, durable=True)
            except OSError:  # a card failing as the board stops: a mark behind is safe
                pass
            self._mark.close()
            self._mark = None
        self._conn.close()

    def __enter__(self) -> EventStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the live game ---------------------------------------------------------

    @property
    def game(self) -> Game:
        """The current match's game, as the store holds it. Read it; change it only via
        ``append`` and ``undo``, or the store and the game disagree."""
        return self._game

    @property
    def match(self) -> int | None:
        """The current match's id (None in an empty store)."""
        return self._match

    @property
    def lines(self) -> tuple[str, ...]:
        """The current match's live log, as CONTRACT.md JSON Lines."""
        return tuple(self._lines)

    @property
    def line_count(self) -> int:
        """How many live events the current match holds (``len(lines)`` without the copy:
        the loop asks every frame)."""
        return len(self._lines)

    @property
    def last_id(self) -> int:
        """The id of the last row written (0 in an empty store)."""
        return self._last_id

    def append(self, event: str | Mapping[str, Any] | Event) -> Appended:
        """Checks ``event`` against the game, commits it durably, returns what it pegged.

        A rejected event raises the engine's ``LogError`` and nothing is
        stored. In an empty store the first ``new_game`` starts match 1; a
        match with new players is ``start_match``. A full card is ``StorageFull``
        and nothing is stored.
        """
        self._writable()
        number = len(self._lines)
        was_over = self._game.phase == "over"
        pegged = self._game.apply(event, number=number)
        line, _ = _canonical(event)
        try:
            event_id = self._write(self._match, line, first=number == 0,
                                   ended=not was_over and self._game.phase == "over")
        except BaseException:
            self._game = Game.replay(self._lines)
            raise
        self._lines.append(line)
        self._ids.append(event_id)
        return Appended(event_id, self._match or 0, number, pegged)

    def start_match(self, event: str | Mapping[str, Any] | Event) -> Appended:
        """Starts a new match (new players, or giving up the game in progress) with its
        ``new_game`` event, in the same store under a new match id."""
        self._writable()
        line, parsed = _canonical(event)
        if not isinstance(parsed, NewGame):
            raise LogError(0, "no_game", f"a match starts with a new_game event, not {line}")
        game = Game()
        pegged = game.apply(parsed, number=0)
        # An empty current match (its new_game undone) is reused rather than left empty.
        match = self._match if not self._lines else None
        old = (self._game, self._match)
        self._game = game
        try:
            event_id = self._write(match, line, first=True, ended=False)
        except BaseException:
            self._game, self._match = old
            raise
        self._lines, self._ids = [line], [event_id]
        return Appended(event_id, self._match or 0, 0, pegged)

    def undo(self) -> StoredEvent:
        """Takes back the current match's last event (durably) and returns it.

        The undo is a row of its own; the event stays in the store, so the history shows
        what happened, and replay skips it.
        """
        self._writable()
        if not self._ids:
            raise StoreError("nothing to undo: the current match has no events")
        event_id, line = self._ids[-1], self._lines[-1]
        match = self._match or 0
        now = self._clock()
        undo_id = len(self._undos) + 1
        undo = Undo(undo_id, event_id, now, undo_crc(undo_id, event_id, now))
        rows = self._rows[match]
        live = [(r.id, r.line) for r in rows if r.undone_at is None and r.id != event_id]
        history = derive(match, rows[0].at, live)
        pending: Future[int] | None = None
        try:
            with self._transaction() as conn:
                found = conn.execute("SELECT at FROM events WHERE id = ?",
                                     (event_id,)).fetchone()
                if found is None:
                    raise StoreError(f"event id {event_id} is not in the store any more")
                conn.execute("INSERT INTO undos (id, event, at, crc) VALUES (?, ?, ?, ?)",
                             (undo.id, undo.event, undo.at, undo.crc))
                conn.execute("UPDATE events SET undone_at = ? WHERE id = ?", (now, event_id))
                if history != self._histories.get(match):
                    write_history(conn, history)
                link = self._link(conn, undo, history)
                pending = self._begin_copy(line_of(undo, link))
        except BaseException:
            self._cancel_copy(pending)
            raise
        self._finish_copy(pending)
        self._undos.append(undo)
        self._links.append(link)
        self._histories[match] = history
        rows[:] = [replace(r, undone_at=now) if r.id == event_id else r for r in rows]
        ack = self._acknowledged
        self._acknowledge(Mark(ack.last_id, ack.crc, ack.match, len(self._undos),
                               undo_chain(self._undos)), durable=True)
        self._lines.pop()
        self._ids.pop()
        self._game = Game.replay(self._lines)
        return StoredEvent(event_id, match, line, found[0], now)

    def writable_again(self) -> bool:
        """Switches a store served read-only (``unwritable``) back to writing once its fault
        is put right, as a restart would open it (verified, its second copy rewritten where it
        differs), and says True; False while the fault stands (a look as cheap as at open).

        Only where that is safe: this process holds the store's lock (``lock.holds``: no
        second board writes it) and the store on the card is still the one served (the same
        file, undamaged, no row added or undone since). Else ``unwritable`` says so and to
        restart, and it is not tried again. Changes call it; the loop every few seconds.
        """
        if self.unwritable is None or not self._may_reopen or _unwritable(self.path):
            return False
        if not holds(self.path):
            return self._restart_needed("this board holds no lock on it (none could be made "
                                        "when it started), so another may be serving it")
        if _identity(self.path) != self._identity:
            return self._restart_needed("it was replaced on the card meanwhile")
        try:
            # Checked before opening to write, which would repair a damaged store here.
            _check_copy(self.path, verified_rows(self.path, read_mark(mark_path(self.path))))
            fresh = EventStore.open(self.path, clock=self._clock)
        except Damage as damage:
            return self._restart_needed(f"it is damaged ({damage.reason}), which a restart "
                                        "repairs")
        except StorageFull:
            return False  # a passing fault: tried again with the next look
        except StoreError as exc:
            return self._restart_needed(str(exc))
        if (fresh._last_id, len(fresh._undos), fresh._lines) \
                != (self._last_id, len(self._undos), self._lines):
            fresh.close()
            return self._restart_needed("it changed on the card while the board served it "
                                        "read-only (a row added or undone)")
        served = self._conn
        vars(self).update(vars(fresh))  # the store as a restart opens it, in this object
        served.close()
        return True

    def _restart_needed(self, why: str) -> bool:
        self._may_reopen = False
        self.unwritable = (f"the event store {str(self.path)!r} can be written again, but "
                           f"{why}: nothing new can be kept; restart the board")
        return False

    # -- history ---------------------------------------------------------------

    def lost(self) -> tuple[LostEvent, ...]:
        """Every event a repair of this store could not keep, oldest first (see ``Recovery``)."""
        out = []
        try:
            found = self._conn.execute("SELECT id, place, why FROM lost ORDER BY id").fetchall()
        except sqlite3.OperationalError:  # read-only, a store whose lost table went missing
            return ()
        for event_id, place, why in found:
            where = tuple((int(m), int(g)) for m, g in json.loads(place))
            out.append(LostEvent(event_id, where, why))
        return tuple(out)

    def events(self, match: int | None = None, *, include_undone: bool = False
               ) -> Iterator[StoredEvent]:
        """The rows of one match (default: the current one), oldest first."""
        match = self._match if match is None else match
        for row in list(self._rows.get(match or 0, ())):
            if include_undone or row.undone_at is None:
                yield row

    def matches(self) -> tuple[MatchSummary, ...]:
        """Every match in the store, oldest first, from its history (no replay)."""
        out = []
        for match_id in sorted(self._rows):
            history = self._histories[match_id]
            played = tuple(GameSummary(g.winner, g.result, g.value, g.scores)
                           for g in history.games)
            points = {name: 0 for name in history.sides}
            for g in played:
                points[g.winner] = points.get(g.winner, 0) + g.value
            live = sum(r.undone_at is None for r in self._rows[match_id])
            out.append(MatchSummary(match_id, history.players, history.started_at, live,
                                    played, points))
        return tuple(out)

    # -- internals -------------------------------------------------------------

    def _writable(self) -> None:
        if self.unwritable is not None and not self.writable_again():
            raise StoreUnwritable(self.unwritable)
        if self.readonly:
            raise StoreError(f"event store {str(self.path)!r} is open read-only")

    @contextmanager
    def _transaction(self, *, check_last: bool = True) -> Iterator[sqlite3.Connection]:
        conn = self._conn
        if _identity(self.path) != self._identity:
            raise StoreUnwritable(_removed_words(self.path))
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise _store_error(self.path, "write to", exc) from exc
        try:
            last = conn.execute("SELECT max(coalesce((SELECT max(id) FROM events), 0), "
                                "coalesce((SELECT max(id) FROM lost), 0))").fetchone()[0]
            if check_last and last != self._last_id:
                raise StoreError(
                    f"event store {str(self.path)!r} was written by another process "
                    f"(last event id {last}, expected {self._last_id}); restart to resume")
            yield conn
            conn.execute("COMMIT")
        except BaseException as exc:
            if conn.in_transaction:
                try:
                    conn.execute("ROLLBACK")
                except sqlite3.Error:
                    pass  # SQLite rolled back itself (a full card): nothing of it is stored
            if isinstance(exc, sqlite3.Error):
                raise _store_error(self.path, "write to", exc) from exc
            raise

    def _write(self, match: int | None, line: str, *, first: bool, ended: bool) -> int:
        """Commits one row; ``first`` (re)writes the match's players, ``ended`` its game."""
        now = self._clock()
        event_id = self._last_id + 1
        pending: Future[int] | None = None
        try:
            with self._transaction() as conn:
                match, history, row, link = self._insert(conn, match, line, now, first=first,
                                                         ended=ended)
                # The second copy is flushed while SQLite commits (``CopyFile``).
                pending = self._begin_copy(line_of(row, link))
        except BaseException:
            self._cancel_copy(pending)
            raise
        self._finish_copy(pending)
        self._histories[match] = history
        self._links.append(link)
        self._rows.setdefault(match, []).append(StoredEvent(event_id, match, line, now))
        self._last_id = event_id
        self._match = match
        # A new row leaves the undos as acknowledged: their count and chain carry over.
        self._acknowledge(replace(self._acknowledged, last_id=event_id, crc=row.crc,
                                  match=match), durable=ended)
        return event_id

    def _insert(self, conn: sqlite3.Connection, match: int | None, line: str, now: float, *,
                first: bool, ended: bool) -> tuple[int, MatchHistory, Row, Link]:
        """The rows of one event inside ``_write``'s transaction: the event, its match's
        history when it changes, its link; returns the match, its history, row and link."""
        event_id = self._last_id + 1
        if match is None:
            match = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM matches "
                                 ).fetchone()[0]
            match = max(match, max(self._rows, default=0) + 1)
        assert match is not None
        crc = row_crc(event_id, match, now, line)
        conn.execute("INSERT INTO events (id, match, line, crc, at) VALUES (?, ?, ?, ?, ?)",
                     (event_id, match, line, crc, now))
        history = self._histories.get(match) or MatchHistory(match, (), (), now, ())
        if first:
            history = replace(history, players=tuple(self._game.players),
                              sides=tuple(side.name for side in self._game.sides))
        if ended:
            done = self._game.match[-1]
            history = replace(history, games=(*history.games, GameRow(
                event_id, done.winner, done.result, done.value, tuple(done.scores))))
        if first or ended or match not in self._histories:
            write_history(conn, history)
        row = Row(event_id, match, line, crc, now, None)
        link = self._link(conn, row, history)
        return match, history, row, link

    def _begin_copy(self, line: bytes) -> Future[int] | None:
        """Starts the row's second copy beside SQLite's commit (``CopyFile``). A copy that
        cannot be written is left behind, never the store: the next open rewrites it."""
        if self._copy is None:
            return None
        try:
            return self._copy.begin(line)
        except (OSError, RuntimeError) as exc:  # RuntimeError: its writer thread is gone
            self._copy_not_written(exc)
            return None

    def _finish_copy(self, pending: Future[int] | None) -> None:
        """Waits for the row's second copy to be on the card, before it is acknowledged (one
        that cannot be written is said, not refused: ``_copy_not_written``)."""
        if self._copy is not None and pending is not None:
            try:
                self._copy.finish(pending)
            except OSError as exc:
                self._copy_not_written(exc)

    def _copy_not_written(self, exc: Exception) -> None:
        """Says in the journal that a row has no second copy, at once, so a failing card shows
        before a second fault can cost a row; ``copy_trouble`` keeps the first such words
        for the board to say once (``firmware.device.loop``)."""
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        words = copy_trouble_words(copy_path(self.path), why)
        _log.warning("%s", words)
        if not self._copy_write_said:
            self._copy_write_said = True
            self.copy_trouble = words

    def _cancel_copy(self, pending: Future[int] | None) -> None:
        """The commit failed: the copy's line for it is cut off again."""
        if self._copy is not None and pending is not None:
            try:
                self._copy.cancel(pending)
            except OSError:
                pass

    def _acknowledge(self, mark: Mark, *, durable: bool) -> None:
        """Records a commit in the mark: flushed at game ends, undos and every
        ``_SYNC_EVERY`` commits, otherwise left to the page cache (a power cut then
        leaves the mark a little behind, never ahead)."""
        self._acknowledged = mark
        self._unsynced += 1
        durable = durable or self._unsynced >= _SYNC_EVERY
        if self._mark is not None:
            try:
                self._mark.write(mark, durable=durable)
            except OSError:  # the row is committed; a mark behind it is safe, never ahead
                durable = False
        if durable:
            self._unsynced = 0


_SYNC_EVERY = 16

# Kernel file systems, where no file can hold a store and SQLite's errors would only say
# "disk I/O error" or "unable to open".
_NO_STORE = ("/proc", "/sys")


def _check_place(path: Path) -> None:
    """Refuses, naming the path, a store path that is a device, a folder, inside a file or
    under a kernel file system, before SQLite tries it."""
    text = str(path)
    if "\0" in text:
        raise StoreError(f"event store path {text!r} holds a NUL character")
    resolved = Path(os.path.abspath(text))
    for root in _NO_STORE:
        if resolved == Path(root) or Path(root) in resolved.parents:
            raise StoreError(f"event store path {text!r} is under {root}, where no file "
                             "can hold a store: choose a path on the card, e.g. "
                             "/var/lib/cribbage-board/events.sqlite3")
    try:
        mode = path.stat().st_mode
    except (FileNotFoundError, NotADirectoryError):
        folder = next((p for p in resolved.parents if p.exists()), None)
        if folder is not None and not folder.is_dir():
            raise StoreError(f"event store path {text!r} cannot be made: {str(folder)!r} "
                             "is a file, not a folder") from None
        return
    except OSError as exc:
        raise StoreError(f"event store path {text!r} cannot be used: "
                         f"{exc.strerror or exc}") from None
    if stat.S_ISDIR(mode):
        raise StoreError(f"event store path {text!r} is a folder, not a file")
    if not stat.S_ISREG(mode):
        raise StoreError(f"event store path {text!r} is not a regular file (a device, "
                         "a pipe or a socket)")


def _check_copy(path: Path, loaded: Loaded) -> None:
    """Rows or undos the second copy holds that the store does not: the store lost them
    (its -wal cut or damaged past the mark's knowing), so it is repaired, from the copy."""
    found = read_copy(copy_path(path))
    if not _copy_may_add(found, loaded):
        return  # unreadable, or not this store's: opening keeps it aside (``_open_copy``)
    held = {r.id for r in loaded.rows} | loaded.lost
    missing = sorted(set(found.rows) - held)
    if missing:
        raise Damage(missing[0], f"event id {missing[0]} is in the store's second copy but "
                                 "not in the store")
    if len(found.undos) > len(loaded.undos) and loaded.version >= 3:
        raise Damage(None, "an undo is in the store's second copy but not in the store")


def _copy_may_add(copy: Copy, loaded: Loaded) -> bool:
    """Whether rows only ``copy`` holds may be the store's lost rows: it could be read, and
    it agrees with every row both hold and shares some (``Judged.takes_rows_from``)."""
    if copy.unreadable is not None:
        return False
    held = _as_copied(loaded.rows, loaded.undos, loaded.losts)
    return judge(copy, held).takes_rows_from(len(held))


def _as_copied(rows: Iterable[Row], undos: Iterable[Undo],
               losts: Iterable[LostRow]) -> dict[tuple[str, int], Record]:
    """The store's rows as its second copy keeps them (an event without its ``undone_at``),
    by kind and id."""
    records: list[Record] = [*(replace(r, undone_at=None) for r in rows), *undos, *losts]
    return {record_key(r): r for r in records}


def _covers(copy: Copy, linked: frozenset[tuple[str, int]]) -> bool:
    """Whether ``copy`` may stand for a store whose chain broke: its own chain holds whole and
    it holds every event and undo the store's chain names. Why the second: a copy left behind
    (a write to it failed) is intact but short, and its rows alone would lose the rest."""
    held = {record_key(record) for record, _, _ in copy.order}
    return bool(copy.order) and intact(copy) and all(
        (kind, ref) in held for kind, ref in linked if kind != "l")


def _nothing() -> None:
    """No one to tell that a repair is still going."""


def _unwritable(path: Path) -> str | None:
    """Why this user cannot write the store (its file, -wal, -shm or mark, the folder they are
    made in, or a file system mounted read-only), in words with the fix; None when it can.
    Why ask: SQLite opens such a file read-only without a word, and the board's first change
    would fail instead of its start."""
    folder = path.parent if path.parent.exists() else None
    if folder is not None and _mounted_read_only(folder):
        return (f"the event store {str(path)!r} is on a file system mounted read-only (the "
                "kernel does this after errors on the card): nothing new can be kept; check "
                "the card (sudo dmesg), then restart the board")
    for place in [*(p for p in family(path) if p.exists()), *([folder] if folder else [])]:
        if not os.access(place, os.W_OK):
            return read_only_words(path, place)
    return None


def read_only_words(path: Path, place: Path, *, uid: int | None = None) -> str:
    """What the board says of a store this user (``uid``: that user instead) cannot write,
    ``place`` being the file or folder in the way, with the two commands that fix it
    (``doctor`` says the same)."""
    user = _user(os.geteuid() if uid is None else uid)
    where = "" if place == path else (
        f" (its {'folder' if place.is_dir() else 'file'} {str(place)!r} cannot be written)")
    quoted = shlex.quote(str(place))
    return (f"the event store {str(path)!r} is read-only for user {user}{where}: nothing new "
            f"can be kept; fix with sudo chown {user} {quoted} or sudo chmod u+w {quoted}: "
            "the board keeps changes again once it can write")


def _removed_words(path: Path) -> str:
    return (f"the event store {str(path)!r} was removed or replaced while the board ran: "
            "nothing new can be kept (the board shows the game as it was stored); put the "
            "file back or restart the board, which opens whatever store is there then")


def _user(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:  # a uid with no name (a container's)
        return str(uid)


def _mounted_read_only(folder: Path) -> bool:
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _identity(path: Path) -> tuple[int, int] | None:
    """The file at ``path`` (device and inode), None when there is none."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino


def _store_error(path: Path, doing: str, exc: sqlite3.Error) -> StoreError:
    """A failed SQLite call as the store's error, naming the store; ``StorageFull`` when
    the card is full."""
    if full_disk(exc):
        return StorageFull(f"storage full: the card holding the event store {str(path)!r} "
                           "has no room; nothing was stored (free some space: the board "
                           "takes events again at once)")
    if doing != "write to":
        return StoreError(f"cannot {doing} event store {str(path)!r}: {exc}")
    if _identity(path) is None:
        return StoreUnwritable(_removed_words(path))
    problem = _unwritable(path)
    if problem is not None:
        return StoreUnwritable(problem)
    return StoreUnwritable(f"the event store {str(path)!r} could not be written ({exc}): "
                           "nothing of this change was kept; the board tries again with the "
                           "next one (if it goes on, the card may be failing: sudo dmesg)")


def _read_undos(conn: sqlite3.Connection) -> list[Undo]:
    return [Undo(*row) for row in conn.execute("SELECT id, event, at, crc FROM undos "
                                               "ORDER BY id")]


def _ids(ids: frozenset[int]) -> str:
    listed = sorted(ids)
    return ", ".join(map(str, listed[:10])) + (" and more" if len(listed) > 10 else "")
