"""The club server's database: every board's rows, refolded through the engine.

A board's score is never taken from its messages: the server keeps each store's
rows (keyed by store id and row id, so two boards' ids never collide and a row
sent twice changes nothing), folds each match's live rows with ``engine.game.Game``
and counts the games the engine says were finished. A row that does not fold, a
row out of order, or a row for a match older than one already seen is refused,
with its reason logged and kept in ``refusals``, and changes nothing.

Rows must arrive without gaps (ids are consecutive in a board's store); a row
past a gap is not kept and ``ingest`` answers with the id to resend from. A row
that contradicts what is held is refused the same way, since no board sends one:
a checksum that is not the row's (``firmware.store.schema.row_crc``), a row that
differs from the one held under its id (a store's ids are never reused, not even
those a repair lost), an undone row sent live again, and an undo out of order (a
board undoes only the newest live row of its newest match). With ``known_boards``
a store belongs to the board that first published it: another known board's
rows for it are refused (a board the club no longer knows may have been renamed).

The club's copy is the tournament's record (issue 60), so a member's login cannot rewrite
it: a row the club already holds in another store (the same event at the same moment: a
store re-published under a new store id) is refused, so no game counts twice; once a game
is counted, a board saying one of its rows was lost does not take it back. Each of these,
and every row that contradicts one held, also flags the board (``flags``, on the standings
page) for the organisers to look at. ``refusals`` keeps the newest ``max_refusals`` only,
so a flood cannot fill the disk.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.game import Game
from engine.records import LogError
from firmware.club.messages import EventMessage
from firmware.club.standings import CountedGame, Roster, Scoring, standings
from firmware.store.files import require_folder
from firmware.store.schema import row_crc
from firmware.web.snapshot import side_json

__all__ = ["ClubDB", "Ingested", "ClubDBError", "Round"]

log = logging.getLogger(__name__)

SCHEMA_VERSION = 2  # 2: flags, rows by time (issue 60)
#: Refusals kept (the newest); flags likewise. A flood beyond this only moves the window.
MAX_REFUSALS = 10_000
_SCHEMA = """
CREATE TABLE IF NOT EXISTS boards (
    store    TEXT PRIMARY KEY,          -- the board's store id (firmware.club.outbox.store_id)
    board    TEXT NOT NULL,             -- the name it last published under
    last_id  INTEGER NOT NULL,          -- rows 1..last_id are kept, without gaps
    seen_at  REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS rows (
    store  TEXT NOT NULL,
    id     INTEGER NOT NULL,
    match  INTEGER NOT NULL,
    crc    INTEGER NOT NULL,
    at     REAL NOT NULL,
    line   TEXT NOT NULL,
    undone INTEGER NOT NULL,            -- 1: undone; 2: lost by a repair of the board's store
    PRIMARY KEY (store, id)
);
CREATE INDEX IF NOT EXISTS rows_by_match ON rows(store, match, id);
CREATE INDEX IF NOT EXISTS rows_by_time ON rows(at);
CREATE TABLE IF NOT EXISTS flags (
    id      INTEGER PRIMARY KEY,
    store   TEXT NOT NULL UNIQUE,       -- the store that contradicts what the club holds
    board   TEXT NOT NULL,
    at      REAL NOT NULL,              -- the first contradiction
    last_at REAL NOT NULL,
    count   INTEGER NOT NULL,
    reason  TEXT NOT NULL               -- the first contradiction, in words
);
CREATE TABLE IF NOT EXISTS rounds (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    started_at REAL NOT NULL,
    closed_at  REAL
);
CREATE TABLE IF NOT EXISTS games (
    store      TEXT NOT NULL,
    match      INTEGER NOT NULL,
    number     INTEGER NOT NULL,        -- 1-based within the match
    board      TEXT NOT NULL,
    sides      TEXT NOT NULL,           -- JSON [[side name, [players]], ...]
    winner     TEXT NOT NULL,
    result     TEXT NOT NULL,
    value      INTEGER NOT NULL,
    scores     TEXT NOT NULL,           -- JSON, one per side
    results    TEXT NOT NULL,           -- JSON, each side's own result (null: the winner)
    round      INTEGER REFERENCES rounds(id),
    counted_at REAL NOT NULL,
    PRIMARY KEY (store, match, number)
);
CREATE TABLE IF NOT EXISTS refusals (
    id     INTEGER PRIMARY KEY,
    at     REAL NOT NULL,
    board  TEXT NOT NULL,
    reason TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


class ClubDBError(OSError):
    """The club database cannot do what was asked (unreadable, newer, no round open)."""


@dataclass(frozen=True, slots=True)
class Ingested:
    """What one row did: ``status`` is ``kept``, ``repeat``, ``gap`` or ``refused``."""

    status: str
    reason: str = ""
    resend_from: int | None = None


@dataclass(frozen=True, slots=True)
class Round:
    id: int
    name: str
    started_at: float
    closed_at: float | None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "started_at": self.started_at,
                "closed_at": self.closed_at, "open": self.closed_at is None}


class _Refused(Exception):
    """A row not kept; ``flag``: it contradicts what the club holds, so its board is
    flagged."""

    def __init__(self, reason: str, *, flag: bool = False) -> None:
        super().__init__(reason)
        self.flag = flag


@dataclass
class _Folded:
    lines: int
    game: Game
    finished: int = 0  # games of the match already written to ``games``


class ClubDB:
    """One writer (the server's worker thread); readers may open it ``readonly``."""

    def __init__(self, path: Path | str, *, clock: Callable[[], float] = time.time,
                 readonly: bool = False, known_boards: frozenset[str] | None = None,
                 max_refusals: int = MAX_REFUSALS) -> None:
        self.path = Path(path)
        self.clock = clock
        self.known_boards = known_boards
        self.max_refusals = max(1, max_refusals)
        if readonly and not self.path.exists():
            raise ClubDBError(f"no club database at {str(self.path)!r}")
        if not readonly:
            try:  # named, as every file a command writes is, not SQLite's "unable to open"
                require_folder(self.path)
            except OSError as exc:
                raise ClubDBError(str(exc)) from None
        mode = "ro" if readonly else "rwc"
        try:
            self._conn = sqlite3.connect(f"file:{self.path.resolve().as_posix()}?mode={mode}",
                                         uri=True, isolation_level=None,
                                         check_same_thread=False, timeout=10.0)
            version = self._conn.execute("PRAGMA user_version").fetchone()[0]
        except sqlite3.DatabaseError as exc:
            raise ClubDBError(f"cannot open club database {str(self.path)!r}: {exc}") from None
        if version > SCHEMA_VERSION:
            raise ClubDBError(f"club database {str(self.path)!r} was written by a newer "
                              f"version (schema {version})")
        if not readonly:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=FULL")
            if version < SCHEMA_VERSION:
                self._conn.executescript(_SCHEMA + f"PRAGMA user_version = {SCHEMA_VERSION};")
        elif version < 1:
            raise ClubDBError(f"{str(self.path)!r} is not a club database")
        self._folded: dict[tuple[str, int], _Folded] = {}
        # Per store: (last row id kept, newest match), so a new row needs no lookups, and
        # the boards rows to write when the batch commits.
        self._heads: dict[str, tuple[int, int | None]] = {}
        self._seen: dict[str, tuple[str, float]] = {}

    def close(self) -> None:
        self._conn.close()

    # -- writing -------------------------------------------------------------------------------

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Commits every ``ingest`` inside it at once (one fsync for a burst of rows)."""
        conn = self._conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield
            self._write_boards()
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            self._folded.clear()
            self._heads.clear()
            self._seen.clear()
            raise

    def _write_boards(self) -> None:
        self._conn.executemany(
            "INSERT INTO boards (store, board, last_id, seen_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (store) DO UPDATE SET board = excluded.board, "
            "last_id = excluded.last_id, seen_at = excluded.seen_at",
            [(store, board, self._head(store)[0], at)
             for store, (board, at) in self._seen.items()])
        self._seen.clear()

    def _head(self, store: str) -> tuple[int, int | None]:
        head = self._heads.get(store)
        if head is None:
            # From the rows themselves (ids 1..last_id, lost ones too), not ``boards``: that
            # is written when the batch commits, so inside one it may be behind.
            last, newest = self._conn.execute("SELECT max(id), max(match) FROM rows WHERE "
                                              "store = ?", (store,)).fetchone()
            head = (0 if last is None else int(last), newest)
            self._heads[store] = head
        return head

    def ingest(self, row: EventMessage) -> Ingested:
        """Keeps one board row (inside ``batch``): see the module docstring."""
        conn = self._conn
        conn.execute("SAVEPOINT row")
        touched: set[tuple[str, int]] = set()
        try:
            outcome = self._ingest(row, touched)
            conn.execute("RELEASE row")
        except _Refused as why:
            conn.execute("ROLLBACK TO row")
            conn.execute("RELEASE row")
            for key in touched:
                self._folded.pop(key, None)
            self._heads.pop(row.store, None)
            reason = str(why)
            log.warning("club: refused row %s of board %r (store %s): %s", row.id, row.board,
                        row.store, reason)
            self._keep_refusal(row.board, f"row {row.id}: {reason}")
            if why.flag:
                self._flag(row.store, row.board, f"row {row.id}: {reason}")
            return Ingested("refused", reason)
        except BaseException:
            conn.execute("ROLLBACK TO row")
            conn.execute("RELEASE row")
            self._folded.clear()
            self._heads.clear()
            raise
        return outcome

    def refuse(self, board: str, reason: str) -> None:
        """Logs a message refused before it named a row (bad JSON, a forged topic)."""
        log.warning("club: refused a message from %r: %s", board, reason)
        self._keep_refusal(board, reason)

    def _keep_refusal(self, board: str, reason: str) -> None:
        """One refusal, the oldest dropped past ``max_refusals`` (ids only grow, so the
        newest id is also how many were ever refused)."""
        newest = self._conn.execute("INSERT INTO refusals (at, board, reason) VALUES (?, ?, ?)",
                                    (self.clock(), board, reason[:500])).lastrowid
        if newest is not None and newest > self.max_refusals:
            self._conn.execute("DELETE FROM refusals WHERE id <= ?",
                               (newest - self.max_refusals,))

    def _flag(self, store: str, board: str, reason: str) -> None:
        """Marks ``store`` (published by ``board``) as contradicting what the club holds."""
        now = self.clock()
        newest = self._conn.execute(
            "INSERT INTO flags (store, board, at, last_at, count, reason) "
            "VALUES (?, ?, ?, ?, 1, ?) ON CONFLICT (store) DO UPDATE SET "
            "last_at = excluded.last_at, count = count + 1",
            (store, board, now, now, reason[:500])).lastrowid
        if newest is not None and newest > self.max_refusals:
            self._conn.execute("DELETE FROM flags WHERE id <= ?", (newest - self.max_refusals,))

    def owner(self, store: str) -> str | None:
        """The board a store was last kept under (None: a store not seen yet)."""
        seen = self._seen.get(store)
        if seen is not None:
            return seen[0]
        found = self._conn.execute("SELECT board FROM boards WHERE store = ?",
                                   (store,)).fetchone()
        return None if found is None else str(found[0])

    def foreign(self, store: str, board: str) -> str | None:
        """Why ``board`` may not speak for ``store`` (None: it may): the store is another
        board's, and that board is still one of the club's."""
        owner = self.owner(store)
        if owner is None or owner == board or self.known_boards is None or \
                owner not in self.known_boards:
            return None
        return f"store {store} belongs to board {owner!r}: board {board!r} cannot write to it"

    def _ingest(self, row: EventMessage, touched: set[tuple[str, int]]) -> Ingested:
        refused = self.foreign(row.store, row.board)
        if refused is not None:
            raise _Refused(refused)
        last_id, newest = self._head(row.store)
        outcome = self._place(row, last_id, newest, touched)
        if outcome.status in ("kept", "repeat"):
            self._seen[row.store] = (row.board, self.clock())
        return outcome

    def _place(self, row: EventMessage, last_id: int, newest: int | None,
               touched: set[tuple[str, int]]) -> Ingested:
        conn = self._conn
        if row.lost:
            return self._lose(row, last_id, touched)
        crc = row_crc(row.id, row.match, row.at, row.line)
        if crc != row.crc:
            raise _Refused(f"checksum mismatch: {row.crc} is sent, the row's is {crc}")
        if row.id > last_id:
            if row.id > last_id + 1:
                return Ingested("gap", f"expected row {last_id + 1}, got {row.id}",
                                last_id + 1)
            self._check_order(row, newest)
            self._check_copy(row)
            self._insert(row)
            self._heads[row.store] = (row.id, max(row.match, newest or 0))
            touched.add((row.store, row.match))
            self._fold_next(row, touched)
            return Ingested("kept")
        kept = conn.execute("SELECT match, crc, line, undone FROM rows WHERE store = ? AND "
                            "id = ?", (row.store, row.id)).fetchone()
        if kept is None or kept[3] == 2:
            raise _Refused("a repair of the board's store lost this id, and a lost id is "
                           "never used again", flag=kept is not None)
        if (kept[0], kept[1], kept[2]) != (row.match, row.crc, row.line):
            raise _Refused("it differs from the row held under its id (a store never "
                           "rewrites a row)", flag=True)
        if bool(kept[3]) == row.undone:
            return Ingested("repeat")
        if not row.undone:
            raise _Refused("it was undone, and an undo is never taken back", flag=True)
        self._check_undo(row, newest)
        conn.execute("UPDATE rows SET undone = 1 WHERE store = ? AND id = ?",
                     (row.store, row.id))
        touched.add((row.store, row.match))
        self._refold(row.store, row.match, row.board, touched)
        return Ingested("kept")

    def _check_undo(self, row: EventMessage, newest: int | None) -> None:
        """A board undoes only the newest live row of its newest match (``EventStore.undo``),
        and sends undos newest first."""
        if newest is not None and row.match != newest:
            raise _Refused(f"undone out of order: its match {row.match} ended when match "
                           f"{newest} began")
        later = self._conn.execute(
            "SELECT min(id) FROM rows WHERE store = ? AND match = ? AND id > ? AND undone = 0",
            (row.store, row.match, row.id)).fetchone()[0]
        if later is not None:
            raise _Refused(f"undone out of order: row {later} after it is live (a board "
                           "undoes its newest row first)")

    def _lose(self, row: EventMessage, last_id: int, touched: set[tuple[str, int]]
              ) -> Ingested:
        """An id the board's store repair could not keep: what is held under it stops
        counting (its match is folded again without it), and the id is no gap."""
        conn = self._conn
        if row.id > last_id + 1:
            return Ingested("gap", f"expected row {last_id + 1}, got {row.id}", last_id + 1)
        if row.id == last_id + 1:
            conn.execute("INSERT INTO rows (store, id, match, crc, at, line, undone) "
                         "VALUES (?, ?, ?, 0, ?, '', 2)", (row.store, row.id, row.match, row.at))
            newest = self._head(row.store)[1]
            # As a restart would read it (max(match) over every row, lost ones too).
            self._heads[row.store] = (row.id, max(row.match, newest or 0))
            return Ingested("kept")
        kept = conn.execute("SELECT match, undone FROM rows WHERE store = ? AND id = ?",
                            (row.store, row.id)).fetchone()
        if kept is None or kept[1] == 2:
            return Ingested("repeat")
        if kept[1] == 0:
            self._check_counted(row, kept[0])
        conn.execute("UPDATE rows SET undone = 2 WHERE store = ? AND id = ?",
                     (row.store, row.id))
        touched.add((row.store, kept[0]))
        self._refold(row.store, kept[0], row.board, touched)
        log.info("club: board %r's store lost row %s in a repair", row.board, row.id)
        return Ingested("kept")

    def _check_copy(self, row: EventMessage) -> None:
        """Refuses a row the club holds in another store, in a match begun by the same
        row: the same events at the same moments (to the microsecond and beyond, on a
        board's clock) are a copy, never a second game. Two matches must share their
        first row too, so a short row that many games have ("go") is never taken for one
        even on a clock that steps (the demo's)."""
        conn = self._conn
        held = conn.execute("SELECT store, id, match FROM rows WHERE at = ? AND line = ? "
                            "AND store != ? AND undone != 2 LIMIT 16",
                            (row.at, row.line, row.store)).fetchall()
        if not held:
            return
        first = "SELECT at, line FROM rows WHERE store = ? AND match = ? ORDER BY id LIMIT 1"
        begun = conn.execute(first, (row.store, row.match)).fetchone() or (row.at, row.line)
        for store, row_id, match in held:
            if conn.execute(first, (store, match)).fetchone() == tuple(begun):
                raise _Refused(f"the club already holds it from board {self.owner(store)!r} "
                               f"(store {store}, row {row_id}): a game counts once",
                               flag=True)

    def _check_counted(self, row: EventMessage, match: int) -> None:
        """Refuses the loss of a live row of a game the club has counted: its finished
        games are the tournament's record, whatever the board's store says later."""
        counted = self._conn.execute("SELECT count(*) FROM games WHERE store = ? AND "
                                     "match = ?", (row.store, match)).fetchone()[0]
        if not counted:
            return
        before = [line for (line,) in self._conn.execute(
            "SELECT line FROM rows WHERE store = ? AND match = ? AND id < ? AND undone = 0 "
            "ORDER BY id", (row.store, match, row.id))]
        try:
            finished_before = len(Game.replay(before).match)
        except LogError:
            finished_before = 0
        if finished_before < counted:
            raise _Refused(f"the board says it was lost, but it is part of finished game "
                           f"{finished_before + 1} of match {match}, which the club has "
                           "counted: the club keeps it", flag=True)

    @staticmethod
    def _check_order(row: EventMessage, newest: int | None) -> None:
        if newest is not None and row.match < newest:
            raise _Refused(f"a row for match {row.match} after match {newest} began")

    def _insert(self, row: EventMessage) -> None:
        self._conn.execute("INSERT INTO rows (store, id, match, crc, at, line, undone) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?)",
                           (row.store, row.id, row.match, row.crc, row.at, row.line,
                            int(row.undone)))

    def _fold_next(self, row: EventMessage, touched: set[tuple[str, int]]) -> None:
        """Folds a new row onto its match: one ``apply`` when the fold is cached."""
        folded = self._folded.get((row.store, row.match))
        if folded is None:
            self._refold(row.store, row.match, row.board, touched)
            return
        if row.undone:
            return
        try:
            folded.game.apply(row.line, number=folded.lines)
        except LogError as exc:
            raise _Refused(f"the engine refuses it: {exc}") from None
        folded.lines += 1
        if len(folded.game.match) != folded.finished:
            self._sync_games(row.store, row.match, row.board, folded.game)
            folded.finished = len(folded.game.match)

    def _refold(self, store: str, match: int, board: str, touched: set[tuple[str, int]]) -> None:
        try:
            game = self._fold(store, match).game
        except LogError as exc:
            raise _Refused(f"the engine refuses it: {exc}") from None
        self._sync_games(store, match, board, game)

    def _sync_games(self, store: str, match: int, board: str, game: Game) -> None:
        """Makes the ``games`` rows of a match what the engine says were finished."""
        conn = self._conn
        finished = game.match
        kept = {number: (winner, result, json.loads(scores))
                for number, winner, result, scores in conn.execute(
                    "SELECT number, winner, result, scores FROM games WHERE store = ? "
                    "AND match = ?", (store, match))}
        changed = [(number, result) for number, result in enumerate(finished, start=1)
                   if kept.get(number) != (result.winner, result.result, list(result.scores))]
        if not changed and len(kept) == len(finished):
            return
        conn.execute("DELETE FROM games WHERE store = ? AND match = ? AND number > ?",
                     (store, match, len(finished)))
        sides = [[s.name, list(s.players)] for s in game.sides]
        current = self.open_round()
        for number, result in changed:
            results = list(result.results)  # the engine's own judgement of each losing side
            conn.execute(
                "INSERT INTO games (store, match, number, board, sides, winner, result, value, "
                "scores, results, round, counted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (store, match, number) DO UPDATE SET winner = excluded.winner, "
                "result = excluded.result, value = excluded.value, scores = excluded.scores, "
                "results = excluded.results, board = excluded.board",
                (store, match, number, board, json.dumps(sides), result.winner, result.result,
                 result.value, json.dumps(list(result.scores)), json.dumps(results),
                 None if current is None else current.id, self.clock()))

    # -- rounds ----------------------------------------------------------------------------------

    def open_round(self) -> Round | None:
        found = self._conn.execute("SELECT id, name, started_at, closed_at FROM rounds "
                                   "WHERE closed_at IS NULL ORDER BY id DESC LIMIT 1").fetchone()
        return None if found is None else Round(*found)

    def start_round(self, name: str | None = None) -> Round:
        """Opens a round (closing the open one): games finished from now on belong to it."""
        with self.batch():
            now = self.clock()
            self._conn.execute("UPDATE rounds SET closed_at = ? WHERE closed_at IS NULL", (now,))
            number = self._conn.execute("SELECT count(*) FROM rounds").fetchone()[0] + 1
            label = name.strip() if name and name.strip() else f"round {number}"
            round_id = self._conn.execute("INSERT INTO rounds (name, started_at) VALUES (?, ?)",
                                          (label, now)).lastrowid
        assert round_id is not None
        return Round(round_id, label, now, None)

    def close_round(self) -> Round:
        with self.batch():
            found = self.open_round()
            if found is None:
                raise ClubDBError("no round is open: start one with `club round start`")
            now = self.clock()
            self._conn.execute("UPDATE rounds SET closed_at = ? WHERE id = ?", (now, found.id))
        return Round(found.id, found.name, found.started_at, now)

    def rounds(self) -> list[Round]:
        return [Round(*r) for r in self._conn.execute(
            "SELECT id, name, started_at, closed_at FROM rounds ORDER BY id")]

    # -- reading --------------------------------------------------------------------------------

    def last_id(self, store: str) -> int:
        return self._head(store)[0]

    def games(self) -> list[CountedGame]:
        out = []
        for (store, match, number, board, sides, winner, result, value, scores, results,
             round_id, counted_at) in self._conn.execute(
                "SELECT store, match, number, board, sides, winner, result, value, scores, "
                "results, round, counted_at FROM games ORDER BY counted_at, store, match, "
                "number"):
            out.append(CountedGame(board, store, match, number,
                                   tuple((n, tuple(p)) for n, p in json.loads(sides)),
                                   winner, result, value, tuple(json.loads(scores)),
                                   tuple(json.loads(results)), round_id, counted_at))
        return out

    def boards(self) -> list[dict[str, Any]]:
        """Each board's live game, as the server folds it (never as the board says)."""
        out = []
        flagged = {f["store"]: f["reason"] for f in self.flags()}
        for store, board, last_id, seen_at in self._conn.execute(
                "SELECT store, board, last_id, seen_at FROM boards ORDER BY board, store"):
            match = self._head(store)[1]
            entry: dict[str, Any] = {"board": board, "store": store, "rows": last_id,
                                     "seen_at": seen_at, "match": match,
                                     "flagged": flagged.get(store)}
            if match is not None:
                game = self._live_game(store, match)
                if game is not None:
                    entry.update(phase=game.phase, next=game.next,
                                 sides=[side_json(s) for s in game.sides])
            out.append(entry)
        return out

    def _live_game(self, store: str, match: int) -> Game | None:
        """The match's fold, replayed once and kept (the standings ask on every publish)."""
        folded = self._folded.get((store, match))
        if folded is None:
            try:
                folded = self._fold(store, match)
            except LogError:
                return None
        return folded.game

    def _fold(self, store: str, match: int) -> _Folded:
        """Replays a match's live rows and keeps the fold; ``LogError`` where they do not."""
        lines = self.match_lines(store, match)
        game = Game.replay(lines)
        folded = self._folded[(store, match)] = _Folded(len(lines), game, len(game.match))
        return folded

    def match_lines(self, store: str, match: int) -> list[str]:
        """A match's live rows as CONTRACT.md lines (what ``replay`` would fold)."""
        return [line for (line,) in self._conn.execute(
            "SELECT line FROM rows WHERE store = ? AND match = ? AND undone = 0 ORDER BY id",
            (store, match))]

    def flags(self) -> list[dict[str, Any]]:
        """Stores that contradicted what the club holds, oldest first (empty for a
        database from before flags)."""
        try:
            found = self._conn.execute("SELECT store, board, at, last_at, count, reason "
                                       "FROM flags ORDER BY id").fetchall()
        except sqlite3.OperationalError:
            return []
        return [{"store": store, "board": board, "at": at, "last_at": last_at,
                 "count": count, "reason": reason}
                for store, board, at, last_at, count, reason in found]

    def refused_total(self) -> int:
        """How many refusals there ever were (more than ``refusals`` keeps after a flood)."""
        return int(self._conn.execute("SELECT coalesce(max(id), 0) FROM refusals")
                   .fetchone()[0])

    def refusals(self, *, last: int = 20) -> list[dict[str, Any]]:
        return [{"at": at, "board": board, "reason": reason} for at, board, reason in
                reversed(self._conn.execute("SELECT at, board, reason FROM refusals "
                                            "ORDER BY id DESC LIMIT ?", (last,)).fetchall())]

    def set_meta(self, key: str, value: Any) -> None:
        self._conn.execute("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) "
                           "DO UPDATE SET value = excluded.value", (key, json.dumps(value)))

    def meta(self, key: str) -> Any:
        found = self._conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if found is None else json.loads(found[0])

    def scoring(self) -> Scoring:
        saved = self.meta("scoring")
        return Scoring(**saved) if isinstance(saved, dict) else Scoring()

    def report(self, *, roster: Roster | None = None, scoring: Scoring | None = None,
               rounds: list[int] | None = None) -> dict[str, Any]:
        """The standings as ``GET /api/standings`` and ``club standings --json`` give them."""
        scoring = self.scoring() if scoring is None else scoring
        games = self.games()
        table = standings(games, scoring=scoring, roster=roster or Roster(), rounds=rounds)
        shown = [g for g in games if rounds is None or g.round in rounds]
        return {"scoring": scoring.to_json(),
                "rounds": [r.to_json() for r in self.rounds()],
                "round_filter": rounds,
                "standings": [dict(row.to_json(), place=place)
                              for place, row in enumerate(table, start=1)],
                "games": [g.to_json() for g in shown],
                "boards": self.boards(),
                "flags": self.flags(),
                "refused": self.refusals(),
                "refused_total": self.refused_total()}
