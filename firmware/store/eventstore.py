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
of the last event it acknowledged. Opening a store runs SQLite's quick_check,
verifies every row, checks the match and game rows history reads, compares the
store with its mark and replays the current match; if anything is wrong the
damaged files are renamed aside, untouched, and every row whose checksum holds
and whose match still folds through the engine is copied into a fresh store.
Each event that could not be kept is reported (``Recovery.lost``: id, match,
game, why) and listed in the ``lost`` table, whose ids are never reused.

The ``line`` column is exactly one line of CONTRACT.md's JSON Lines log, so a
match can be exported with ``SELECT line`` and replayed by ``cribbage-board
replay``. Undo marks a row undone instead of deleting it, so the history
stays honest while replay skips it. Finished games get a ``games`` row derived
from the engine (winner, result, match points) in the same transaction as the
event that ended them, so history queries need no replay.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
import zlib
from collections.abc import Callable, Iterator, Mapping
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.events import Event, NewGame, dumps_event, parse_event, parse_line
from engine.game import Game
from engine.records import LogError, Pegged
from firmware.store.files import fsync_dir
from firmware.store.mark import Mark, MarkFile, mark_path, read_mark

__all__ = [
    "EventStore", "Appended", "Recovery", "LostEvent", "StoredEvent", "MatchSummary",
    "GameSummary", "StoreError", "StoreDamagedError", "SCHEMA_VERSION",
]

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


class StoreDamagedError(StoreError):
    """A damaged store opened read-only, where it cannot be repaired (see ``EventStore.open``)."""


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
class LostEvent:
    """An event the store held, or acknowledged, that a repair could not keep.

    ``where`` is the (match, game) it belonged to, games counted from 1 within
    their match; an event that could not be read gets the places of the events
    around it, so it may name two (game 0: the match is known, the game not).
    """

    id: int
    where: tuple[tuple[int, int], ...]
    why: str

    def place(self) -> str:
        return " or ".join(f"match {m}" + (f" game {g}" if g else "") for m, g in self.where) \
            or "an unknown match"


@dataclass(frozen=True, slots=True)
class Recovery:
    """What opening a damaged store did, for the device to show and log.

    ``kept`` rows (events, undone ones included) were copied into the fresh
    store and ``lost`` lists every event that was not, with why; ``damaged_at``
    is the id of the first row that could not be trusted (None when the damage
    was not in a row); the original files were renamed to ``moved_to`` and
    nothing was written to them.
    """

    path: Path
    moved_to: Path
    kept: int
    damaged_at: int | None
    reason: str
    lost: tuple[LostEvent, ...] = ()

    def words(self) -> str:
        """What the table is told when the device starts on a repaired store: what the
        players must put right, not how the file broke."""
        if not self.lost:
            return ("The event store was damaged, most likely by a power cut, and repaired: "
                    "every event was kept.")
        places = ", ".join(dict.fromkeys(event.place() for event in self.lost))
        count = f"{len(self.lost)} event" + ("s" if len(self.lost) != 1 else "")
        return (f"The event store was damaged, most likely by a power cut: {count} of "
                f"{places} could not be kept. The board shows the game as it was kept: "
                "check the score, and lay or type again what is missing.")

    def __str__(self) -> str:
        where = "" if self.damaged_at is None else f" at event id {self.damaged_at}"
        if self.lost:
            kept = (f"kept {self.kept} of {self.kept + len(self.lost)} events and lost "
                    f"{_lost_words(self.lost)}")
        else:
            kept = f"kept all {self.kept} events"
        return (f"event store {str(self.path)!r} was damaged{where} ({self.reason}); "
                f"{kept}; the damaged file is now {str(self.moved_to)!r}")


def _lost_words(lost: tuple[LostEvent, ...]) -> str:
    """'event 5 (match 1 game 1: checksum mismatch), events 9-12 (...)': runs of neighbours
    lost in the same place for the same reason read as one range."""
    runs: list[list[LostEvent]] = []
    for event in lost:
        last = runs[-1][-1] if runs else None
        if last and last.id + 1 == event.id and (last.where, last.why) == (event.where, event.why):
            runs[-1].append(event)
        else:
            runs.append([event])
    parts = []
    for run in runs:
        ids = f"event {run[0].id}" if len(run) == 1 else f"events {run[0].id}-{run[-1].id}"
        parts.append(f"{ids} ({run[0].place()}: {run[0].why})")
    return ", ".join(parts)


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


@dataclass(frozen=True, slots=True)
class _Row:
    id: int
    match: int
    line: str
    crc: int
    at: float
    undone_at: float | None


def _crc(event_id: int, match: int, at: float, line: str) -> int:
    return zlib.crc32(f"{event_id}:{match}:{at!r}:{line}".encode())


def _canonical(event: str | Mapping[str, Any] | Event) -> tuple[str, Event]:
    """The CONTRACT.md line for an event the game has already accepted."""
    if isinstance(event, str):
        parsed = parse_line(event)
    elif isinstance(event, Mapping):
        parsed = parse_event(event)
    else:
        parsed = event
    return dumps_event(parsed), parsed


def _connect(path: Path, *, readonly: bool) -> sqlite3.Connection:
    uri = f"file:{path.resolve().as_posix()}?mode={'ro' if readonly else 'rwc'}"
    conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
    if not readonly:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
    return conn


class _Damage(Exception):
    """Internal: verification found damage at ``row_id`` (None: the file itself)."""

    def __init__(self, row_id: int | None, reason: str) -> None:
        super().__init__(reason)
        self.row_id, self.reason = row_id, reason


class EventStore:
    """The event log of every match played on this board, and the live game.

    ``append`` checks an event against the engine before storing it and
    commits before returning, so the caller shows its effect only once it is
    safe. One process writes; others may read (``history``) at the same time.
    """

    def __init__(self, path: Path, conn: sqlite3.Connection, *,
                 clock: Callable[[], float], recovery: Recovery | None,
                 rows: list[_Row], lost: frozenset[int], readonly: bool) -> None:
        self.path = path
        self.recovery = recovery
        self.readonly = readonly
        self._conn = conn
        self._clock = clock
        # Lost ids stay taken: a new event never reuses the id of one a repair reported.
        self._last_id = max([0, *lost, *(r.id for r in rows)])
        last = rows[-1] if rows else None
        self._acknowledged = Mark(self._last_id, last.crc if last else 0,
                                  last.match if last else 0,
                                  sum(r.undone_at is not None for r in rows))
        self._mark: MarkFile | None = None
        self._unsynced = 0
        if not readonly:
            self._mark = MarkFile.open(mark_path(path))
            self._mark.write(self._acknowledged, durable=True)
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
             readonly: bool = False) -> EventStore:
        """Opens (or creates) the store at ``path`` and resumes its current match.

        A damaged store is repaired as the module docstring says and
        ``recovery`` describes it; read-only, damage is a ``StoreDamagedError``
        instead, because repairing means moving files.
        """
        path = Path(path)
        if readonly and not (path.exists() and path.stat().st_size > 0):
            raise StoreError(f"no event store at {str(path)!r}"
                             + (" (the file is empty)" if path.exists() else ""))
        if path.exists() and path.stat().st_size > 0:
            # The mark first: read after the rows, it could name a commit made meanwhile.
            mark = read_mark(mark_path(path))
            try:
                rows, lost = _verified_rows(path, mark)
            except _Damage as damage:
                if readonly:
                    where = "" if damage.row_id is None else f" at event id {damage.row_id}"
                    raise StoreDamagedError(
                        f"event store {str(path)!r} is damaged{where}: {damage.reason} "
                        "(the device repairs it when it next starts)") from None
                return cls._repair(path, damage, mark, clock)
            conn = _connect(path, readonly=readonly)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            conn = _connect(path, readonly=False)
            rows, lost = [], frozenset()
        if not readonly:
            _create_schema(conn)
        return cls(path, conn, clock=clock, recovery=None, rows=rows, lost=lost,
                   readonly=readonly)

    @classmethod
    def _repair(cls, path: Path, damage: _Damage, mark: Mark | None,
                clock: Callable[[], float]) -> EventStore:
        good, lost, earlier = _salvage(path, mark)
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(clock()))
        moved = path.with_name(f"{path.name}.damaged-{stamp}")
        n = 1
        while moved.exists():
            n += 1
            moved = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
        fresh = path.with_name(f"{path.name}.recovering")
        for leftover in _family(fresh):
            leftover.unlink(missing_ok=True)
        with closing(_connect(fresh, readonly=False)) as conn:
            _create_schema(conn)
            _copy_rows(conn, good, [*earlier, *lost], clock())
        # The original keeps its -wal (and mark) beside it under the new name, so it stays
        # readable; the fresh store's mark is written when it opens.
        for source, suffix in zip(_family(path), _SUFFIXES, strict=True):
            if source.exists():
                source.rename(moved.with_name(moved.name + suffix))
        for leftover in _family(fresh)[1:]:
            leftover.unlink(missing_ok=True)
        fresh.rename(path)
        fsync_dir(path.parent)
        first_lost = lost[0].id if lost else None
        damaged_at = damage.row_id if damage.row_id is not None else first_lost
        recovery = Recovery(path, moved, len(good), damaged_at, damage.reason, tuple(lost))
        try:
            rows, kept_lost = _verified_rows(path, None)
        except _Damage as damage:  # never expected: the fresh store is what salvage made
            raise StoreError(f"event store {str(path)!r} is still damaged after its repair "
                             f"({damage.reason}); the original is {str(moved)!r}") from None
        conn = _connect(path, readonly=False)
        _create_schema(conn)
        return cls(path, conn, clock=clock, recovery=recovery, rows=rows, lost=kept_lost,
                   readonly=False)

    def close(self) -> None:
        if self._mark is not None:
            self._mark.write(self._acknowledged, durable=True)
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
    def last_id(self) -> int:
        """The id of the last row written (0 in an empty store)."""
        return self._last_id

    def append(self, event: str | Mapping[str, Any] | Event) -> Appended:
        """Checks ``event`` against the game, commits it durably, returns what it pegged.

        A rejected event raises the engine's ``LogError`` and nothing is
        stored. In an empty store the first ``new_game`` starts match 1; a
        match with new players is ``start_match``.
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

        The row stays in the store marked undone, so the history shows what
        happened; replay skips it.
        """
        self._writable()
        if not self._ids:
            raise StoreError("nothing to undo: the current match has no events")
        event_id, line = self._ids[-1], self._lines[-1]
        now = self._clock()
        with self._transaction() as conn:
            found = conn.execute("SELECT at FROM events WHERE id = ? AND undone_at IS NULL",
                                 (event_id,)).fetchone()
            if found is None:
                raise StoreError(f"event id {event_id} is not in the store any more")
            conn.execute("UPDATE events SET undone_at = ? WHERE id = ?", (now, event_id))
        ack = self._acknowledged
        self._acknowledge(Mark(ack.last_id, ack.crc, ack.match, ack.undone + 1), durable=True)
        self._lines.pop()
        self._ids.pop()
        self._game = Game.replay(self._lines)
        return StoredEvent(event_id, self._match or 0, line, found[0], now)

    # -- history ---------------------------------------------------------------

    def lost(self) -> tuple[LostEvent, ...]:
        """Every event a repair of this store could not keep, oldest first (see ``Recovery``)."""
        out = []
        for event_id, place, why in self._conn.execute(
                "SELECT id, place, why FROM lost ORDER BY id"):
            where = tuple((int(m), int(g)) for m, g in json.loads(place))
            out.append(LostEvent(event_id, where, why))
        return tuple(out)

    def events(self, match: int | None = None, *, include_undone: bool = False
               ) -> Iterator[StoredEvent]:
        """The rows of one match (default: the current one), oldest first."""
        match = self._match if match is None else match
        sql = "SELECT id, match, line, at, undone_at FROM events WHERE match = ?"
        if not include_undone:
            sql += " AND undone_at IS NULL"
        for row in self._conn.execute(sql + " ORDER BY id", (match,)):
            yield StoredEvent(*row)

    def matches(self) -> tuple[MatchSummary, ...]:
        """Every match in the store, oldest first, from the ``games`` table (no replay)."""
        conn = self._conn
        games: dict[int, list[GameSummary]] = {}
        for match, winner, result, value, scores in conn.execute(
                "SELECT match, winner, result, value, scores FROM finished_games ORDER BY event"):
            games.setdefault(match, []).append(
                GameSummary(winner, result, value, tuple(json.loads(scores))))
        counts = dict(conn.execute(
            "SELECT match, count(*) FROM events WHERE undone_at IS NULL GROUP BY match"))
        out = []
        for match_id, players, sides, started in conn.execute(
                "SELECT id, players, sides, started_at FROM matches ORDER BY id"):
            played = tuple(games.get(match_id, ()))
            points = {name: 0 for name in json.loads(sides)}
            for g in played:
                points[g.winner] = points.get(g.winner, 0) + g.value
            out.append(MatchSummary(match_id, tuple(json.loads(players)), started,
                                    counts.get(match_id, 0), played, points))
        return tuple(out)

    # -- internals -------------------------------------------------------------

    def _writable(self) -> None:
        if self.readonly:
            raise StoreError(f"event store {str(self.path)!r} is open read-only")

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        conn = self._conn
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise StoreError(f"cannot write to event store {str(self.path)!r}: {exc}") from exc
        try:
            last = conn.execute("SELECT max(coalesce((SELECT max(id) FROM events), 0), "
                                "coalesce((SELECT max(id) FROM lost), 0))").fetchone()[0]
            if last != self._last_id:
                raise StoreError(
                    f"event store {str(self.path)!r} was written by another process "
                    f"(last event id {last}, expected {self._last_id}); restart to resume")
            yield conn
            conn.execute("COMMIT")
        except BaseException as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise StoreError(f"cannot write to event store {str(self.path)!r}: {exc}") \
                    from exc
            raise

    def _write(self, match: int | None, line: str, *, first: bool, ended: bool) -> int:
        """Commits one row; ``first`` (re)writes the match's players, ``ended`` its game."""
        now = self._clock()
        with self._transaction() as conn:
            if match is None:
                match = conn.execute("INSERT INTO matches (players, sides, started_at) "
                                     "VALUES ('[]', '[]', ?)", (now,)).lastrowid
                assert match is not None
            if first:
                players, sides = _players_and_sides(self._game)
                conn.execute("UPDATE matches SET players = ?, sides = ? WHERE id = ?",
                             (players, sides, match))
            event_id = self._last_id + 1
            crc = _crc(event_id, match, now, line)
            conn.execute("INSERT INTO events (id, match, line, crc, at) VALUES (?, ?, ?, ?, ?)",
                         (event_id, match, line, crc, now))
            if ended:
                _record_game(conn, event_id, match, self._game)
        self._last_id = event_id
        self._match = match
        self._acknowledge(Mark(event_id, crc, match, self._acknowledged.undone), durable=ended)
        return event_id

    def _acknowledge(self, mark: Mark, *, durable: bool) -> None:
        """Records a commit in the mark: flushed at game ends, undos and every
        ``_SYNC_EVERY`` commits, otherwise left to the page cache (a power cut then
        leaves the mark a little behind, never ahead)."""
        self._acknowledged = mark
        self._unsynced += 1
        durable = durable or self._unsynced >= _SYNC_EVERY
        if self._mark is not None:
            self._mark.write(mark, durable=durable)
        if durable:
            self._unsynced = 0


_SYNC_EVERY = 16


def _players_and_sides(game: Game) -> tuple[str, str]:
    return (json.dumps(list(game.players), ensure_ascii=False),
            json.dumps([side.name for side in game.sides], ensure_ascii=False))


def _record_game(conn: sqlite3.Connection, event_id: int, match: int, game: Game) -> None:
    finished = game.match[-1]
    conn.execute("INSERT INTO games (event, match, winner, result, value, scores) "
                 "VALUES (?, ?, ?, ?, ?, ?)",
                 (event_id, match, finished.winner, finished.result, finished.value,
                  json.dumps(list(finished.scores))))


def _create_schema(conn: sqlite3.Connection) -> None:
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


_SUFFIXES = ("", "-wal", "-shm", "-journal", "-mark")


def _family(path: Path) -> list[Path]:
    return [path.with_name(path.name + suffix) for suffix in _SUFFIXES]


def damaged_copies(path: Path) -> list[Path]:
    """The damaged originals a repair kept beside the store at ``path`` (named as
    ``EventStore._repair`` names them: ``NAME.damaged-STAMP``, ``-N`` for a second repair
    in the same second), newest first; none where the folder cannot be listed."""
    pattern = re.compile(re.escape(path.name) + r"\.damaged-\d{8}T\d{6}(-\d+)?")
    try:
        return sorted((p for p in path.parent.iterdir() if pattern.fullmatch(p.name)),
                      key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:  # a copy removed while looking
        return []


_SELECT = "SELECT id, match, line, crc, at, undone_at, typeof(line) = 'text' FROM events"


def _reader(path: Path) -> sqlite3.Connection:
    """A read-only connection that hands text back as bytes: one bad byte in a row is
    that row's damage, not an error that stops the store from opening."""
    conn = _connect(path, readonly=True)
    conn.text_factory = bytes
    return conn


def _read_row(values: tuple[Any, ...]) -> tuple[_Row, str | None]:
    """A row as read, and why it cannot be trusted (None when its checksum holds)."""
    event_id, match, raw, crc, at, undone_at, is_text = values
    line = raw.decode(errors="replace") if isinstance(raw, bytes) else str(raw)
    row = _Row(event_id, match, line, crc, at, undone_at)
    if not (is_text and isinstance(raw, bytes) and isinstance(event_id, int)
            and isinstance(match, int) and isinstance(crc, int) and isinstance(at, float)
            and (undone_at is None or isinstance(undone_at, float))):
        return row, "a row of the wrong type"
    try:
        raw.decode()
    except UnicodeDecodeError:
        return row, "its text is not UTF-8"
    if _crc(event_id, match, at, line) != crc:
        return row, "checksum mismatch"
    return row, None


def _verified_rows(path: Path, mark: Mark | None) -> tuple[list[_Row], frozenset[int]]:
    """Every row of an intact store, checked, and the ids a repair recorded as lost;
    raises ``_Damage`` at the first problem."""
    rows: list[_Row] = []
    lost: frozenset[int] = frozenset()
    try:
        with closing(_reader(path)) as conn:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(f"event store {str(path)!r} was written by a newer version "
                                 f"(schema {version}, this program knows {SCHEMA_VERSION})")
            check = conn.execute("PRAGMA quick_check").fetchall()
            if check != [(b"ok",)]:
                text = check[0][0]
                text = text.decode(errors="replace") if isinstance(text, bytes) else str(text)
                first = " ".join(text.splitlines()[:2])
                raise _Damage(None, f"SQLite quick_check: {first}")
            if version == 0:
                tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
                if tables:
                    raise _Damage(None, "not an event store (it has other tables)")
                rows = []
            else:
                lost = _lost_ids(conn, version)
                expected = 0
                for values in conn.execute(_SELECT + " ORDER BY id"):
                    expected += 1
                    while expected in lost:
                        expected += 1
                    row, problem = _read_row(values)
                    if row.id != expected:
                        raise _Damage(expected, f"event id {expected} is missing "
                                                f"(found {row.id!r} next)")
                    if problem:
                        raise _Damage(expected, problem)
                    rows.append(row)
                _check_history(conn)
    except sqlite3.DatabaseError as exc:
        if not _is_damage(exc):
            raise StoreError(f"cannot read event store {str(path)!r}: {exc}") from exc
        raise _Damage(None, f"SQLite: {exc}") from None
    _check_mark(rows, lost, mark)
    _check_replay(rows)
    return rows, lost


def _lost_ids(conn: sqlite3.Connection, version: int) -> frozenset[int]:
    if version < 2:
        return frozenset()
    ids = [event_id for (event_id,) in conn.execute("SELECT id FROM lost")]
    if not all(isinstance(i, int) for i in ids):
        raise _Damage(None, "the list of lost events is damaged")
    return frozenset(ids)


def _check_history(conn: sqlite3.Connection) -> None:
    """Checks the rows history reads without replay (matches, games) for the shapes the
    store writes, so a damaged one is rebuilt from the events rather than shown."""
    sides: dict[int, list[str]] = {}
    for match, players_raw, sides_raw in conn.execute(
            "SELECT id, players, sides FROM matches"):
        players, names = _json_list(players_raw), _json_list(sides_raw)
        if not (isinstance(match, int) and players is not None and names is not None
                and all(isinstance(n, str) for n in players + names)):
            raise _Damage(None, f"the history of match {match!r} is damaged")
        sides[match] = names
    for event, match, winner, result, value, scores_raw in conn.execute(
            "SELECT event, match, winner, result, value, scores FROM games"):
        scores = _json_list(scores_raw)
        names = sides.get(match)
        if not (isinstance(event, int) and names is not None and isinstance(winner, bytes)
                and winner.decode(errors="replace") in names
                and result in (b"win", b"skunk", b"double_skunk")
                and isinstance(value, int) and scores is not None and len(scores) == len(names)
                and all(type(s) is int for s in scores)):
            raise _Damage(None, f"the result of the game ended by event id {event!r} is damaged")


def _json_list(raw: object) -> list[Any] | None:
    if not isinstance(raw, bytes):
        return None
    try:
        value = json.loads(raw.decode())
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return value if isinstance(value, list) else None


def _check_mark(rows: list[_Row], lost: frozenset[int], mark: Mark | None) -> None:
    """Compares the store with what it last acknowledged: commits lost from the WAL
    (damaged, cut or gone) leave the store behind its mark."""
    if mark is None:
        return
    last = max([0, *lost, *(row.id for row in rows)])
    if mark.last_id > last:
        ids = str(last + 1) if mark.last_id == last + 1 else f"{last + 1}-{mark.last_id}"
        raise _Damage(last + 1, f"event id {ids} acknowledged but not in the store")
    marked = next((row for row in rows if row.id == mark.last_id), None)
    if mark.last_id and (marked is None or marked.crc != mark.crc) and mark.last_id not in lost:
        raise _Damage(mark.last_id, f"event id {mark.last_id} is not the event acknowledged")
    undone = sum(row.undone_at is not None for row in rows)
    if undone < mark.undone:
        raise _Damage(None, f"{mark.undone - undone} acknowledged undo(s) not in the store")


def _is_damage(exc: sqlite3.DatabaseError) -> bool:
    """Corrupt or not a database, as opposed to locked, unreadable or out of space: only the
    first kind may move the file aside."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:
        return not isinstance(exc, sqlite3.OperationalError)
    return code & 0xFF in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


def _check_replay(rows: list[_Row]) -> None:
    """Replays the current match, so a log the engine refuses counts as damage too.

    Older matches are only checksummed: replaying years of games at every boot
    would cost seconds on a Pi, and their results are already in ``games``.
    """
    if not rows:
        return
    current = max(row.match for row in rows)
    game = Game()
    for row in rows:
        if row.match != current or row.undone_at is not None:
            continue
        try:
            game.apply(row.line)
        except LogError as exc:
            raise _Damage(row.id, f"the engine refuses it: {exc}") from None


# Past the last id anything vouches for (the mark, a readable row), ids a damaged store
# is still searched for: more than a season of games after a cut leaf.
_SEARCH_PAST = 1000


def _scan(path: Path, mark: Mark | None
          ) -> tuple[dict[int, _Row], dict[int, str], int, list[LostEvent]]:
    """Every row of a damaged store that can still be read: trusted rows by id, why the
    others cannot be trusted by id, the highest id known to have been stored, and the
    events an earlier repair lost.

    A read that fails skips one id and goes on, so one bad page costs only its rows.
    """
    good: dict[int, _Row] = {}
    bad: dict[int, str] = {}
    known = mark.last_id if mark else 0
    try:
        conn = _reader(path)
        # A truncated file is shorter than its header says; SQLite refuses it unless the
        # schema is "writable". On a read-only connection that changes nothing on disk.
        conn.execute("PRAGMA writable_schema = ON")
        tables = conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'events'").fetchall()
    except sqlite3.DatabaseError:
        return good, bad, known, []
    with closing(conn):
        if not tables:  # no events were ever checkpointed into this file
            return good, bad, known, []
        earlier = _earlier_losses(conn)
        known = max([known, *(event.id for event in earlier)])
        after = 0
        while after <= known + _SEARCH_PAST:
            try:
                for values in conn.execute(_SELECT + " WHERE id > ? ORDER BY id", (after,)):
                    row, problem = _read_row(values)
                    if not isinstance(row.id, int) or row.id <= after:
                        continue
                    if problem is None:
                        good[row.id] = row
                        known = max(known, row.id)
                    elif row.id <= known + _SEARCH_PAST:
                        bad.setdefault(row.id, problem)
                    after = row.id
                break
            except sqlite3.DatabaseError:
                after += 1
                bad.setdefault(after, "unreadable")
    known = max([known, *(i for i in bad if i <= known + _SEARCH_PAST and bad[i] != "unreadable")])
    gone = {event.id for event in earlier}
    bad = {i: why for i, why in bad.items() if i <= known and i not in good and i not in gone}
    return good, bad, known, earlier


def _earlier_losses(conn: sqlite3.Connection) -> list[LostEvent]:
    """What an earlier repair recorded as lost, as far as it can still be read."""
    out = []
    try:
        for event_id, place, why in conn.execute("SELECT id, place, why FROM lost"):
            where = _json_list(place)
            if isinstance(event_id, int) and where is not None and isinstance(why, bytes):
                pairs = tuple((m, g) for m, g in where if type(m) is int and type(g) is int)
                out.append(LostEvent(event_id, pairs, why.decode(errors="replace")))
    except (sqlite3.DatabaseError, ValueError, TypeError):
        pass  # a store from before the lost table, or its pages are gone too
    return out


def _salvage(path: Path, mark: Mark | None
             ) -> tuple[list[_Row], list[LostEvent], list[LostEvent]]:
    """The rows of a damaged store worth keeping, and the events lost.

    Kept: every row whose checksum holds and whose match still folds through the
    engine with it (undone rows are kept as they are). Lost: every id up to the
    last one known (from the mark or a row) that is not kept, with why; an earlier
    repair's losses come third and are not reported again.
    """
    good, bad, known, earlier = _scan(path, mark)
    gone = {event.id for event in earlier}
    kept: list[_Row] = []
    refused: dict[int, str] = {}
    games: dict[int, Game] = {}
    place: dict[int, tuple[int, int]] = {}
    for event_id in sorted(good):
        row = good[event_id]
        game = games.setdefault(row.match, Game())
        number = _games_started(game)
        if row.undone_at is None:
            try:
                game.apply(row.line)
            except LogError:
                starts = row.line.startswith('{"type": "new_game"')
                place[event_id] = (row.match, number + starts)
                refused[event_id] = "the engine refuses it once the events before are lost"
                continue
        place[event_id] = (row.match, _games_started(game))
        kept.append(row)
    lost: list[LostEvent] = []
    for event_id in range(1, known + 1):
        if (event_id in place and event_id not in refused) or event_id in gone:
            continue
        if event_id in refused:
            lost.append(LostEvent(event_id, (place[event_id],), refused[event_id]))
            continue
        before = next(([place[i]] for i in range(event_id - 1, 0, -1) if i in place), [])
        after = next(([place[i]] for i in range(event_id + 1, known + 1) if i in place), [])
        if not after and mark is not None and mark.last_id >= event_id and mark.match:
            after = [(mark.match, 0)] if not before or before[0][0] != mark.match else []
        where = tuple(dict.fromkeys(before + after))
        why = bad.get(event_id, "missing")
        if mark is not None and event_id > max(good, default=0) and event_id not in bad:
            why = "acknowledged but not in the store (its -wal was damaged, cut or lost)"
        lost.append(LostEvent(event_id, where, why))
    return kept, lost, earlier


def _games_started(game: Game) -> int:
    """How many games of its match ``game`` has begun (the game a row belongs to)."""
    if game.phase == "new_game":
        return 0
    return len(game.match) + (game.phase != "over")


def _record_lost(conn: sqlite3.Connection, lost: list[LostEvent], now: float) -> None:
    conn.executemany("INSERT OR REPLACE INTO lost (id, place, why, at) VALUES (?, ?, ?, ?)",
                     [(e.id, json.dumps([list(p) for p in e.where]), e.why, now) for e in lost])


def _copy_rows(conn: sqlite3.Connection, rows: list[_Row], lost: list[LostEvent],
               now: float) -> None:
    """Writes salvaged rows and the list of lost ones into a fresh store in one
    transaction, re-deriving matches and games by replay."""
    games: dict[int, Game] = {}
    conn.execute("BEGIN IMMEDIATE")
    for row in rows:
        if row.match not in games:
            games[row.match] = Game()
            conn.execute("INSERT INTO matches (id, players, sides, started_at) "
                         "VALUES (?, '[]', '[]', ?)", (row.match, row.at))
        conn.execute("INSERT INTO events (id, match, line, crc, at, undone_at) "
                     "VALUES (?, ?, ?, ?, ?, ?)",
                     (row.id, row.match, row.line, row.crc, row.at, row.undone_at))
        if row.undone_at is not None:
            continue
        game = games[row.match]
        was_over, fresh = game.phase == "over", game.phase == "new_game"
        game.apply(row.line)
        if fresh:
            players, sides = _players_and_sides(game)
            conn.execute("UPDATE matches SET players = ?, sides = ? WHERE id = ?",
                         (players, sides, row.match))
        if not was_over and game.phase == "over":
            _record_game(conn, row.id, row.match, game)
    _record_lost(conn, lost, now)
    conn.execute("COMMIT")
