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
garbage, so each row also carries a CRC32 of its id, match, time and text. Opening a
store verifies every row and replays the current match; if anything is wrong
(unreadable file, bad checksum, a log the engine refuses) the damaged file is
renamed aside, untouched, and the rows before the first bad one are copied into
a fresh store. ``EventStore.recovery`` then says what happened.

The ``line`` column is exactly one line of CONTRACT.md's JSON Lines log, so a
match can be exported with ``SELECT line`` and replayed by ``cribbage-board
replay``. Undo marks a row undone instead of deleting it, so the history
stays honest while replay skips it. Finished games get a ``games`` row derived
from the engine (winner, result, match points) in the same transaction as the
event that ended them, so history queries need no replay.
"""

from __future__ import annotations

import json
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
from firmware.files import fsync_dir

__all__ = [
    "EventStore", "Appended", "Recovery", "StoredEvent", "MatchSummary", "GameSummary",
    "StoreError", "StoreDamagedError", "SCHEMA_VERSION",
]

SCHEMA_VERSION = 1

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
class Recovery:
    """What opening a damaged store did, for the device to show and log.

    ``kept`` rows (events, undone ones included) were copied into the fresh
    store; ``damaged_at`` is the id of the first row that could not be trusted
    (None when the file could not be read at all); the original files were
    renamed to ``moved_to`` and nothing was written to them.
    """

    path: Path
    moved_to: Path
    kept: int
    damaged_at: int | None
    reason: str

    def __str__(self) -> str:
        where = "" if self.damaged_at is None else f" at event id {self.damaged_at}"
        return (f"event store {str(self.path)!r} was damaged{where} ({self.reason}); "
                f"kept the {self.kept} events before it, the damaged file is now "
                f"{str(self.moved_to)!r}")


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
                 rows: list[_Row], readonly: bool) -> None:
        self.path = path
        self.recovery = recovery
        self.readonly = readonly
        self._conn = conn
        self._clock = clock
        self._last_id = max((r.id for r in rows), default=0)
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
            try:
                rows = _verified_rows(path)
            except _Damage as damage:
                if readonly:
                    where = "" if damage.row_id is None else f" at event id {damage.row_id}"
                    raise StoreDamagedError(
                        f"event store {str(path)!r} is damaged{where}: {damage.reason} "
                        "(the device repairs it when it next starts)") from None
                return cls._repair(path, damage, clock)
            conn = _connect(path, readonly=readonly)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            conn = _connect(path, readonly=False)
            rows = []
        if not readonly:
            _create_schema(conn)
        return cls(path, conn, clock=clock, recovery=None, rows=rows, readonly=readonly)

    @classmethod
    def _repair(cls, path: Path, damage: _Damage, clock: Callable[[], float]) -> EventStore:
        good = _salvage(path, damage)
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
            _copy_rows(conn, good)
        # The original keeps its -wal beside it under the new name, so it stays readable.
        for source, suffix in zip(_family(path), ("", "-wal", "-shm", "-journal"), strict=True):
            if source.exists():
                source.rename(moved.with_name(moved.name + suffix))
        for leftover in _family(fresh)[1:]:
            leftover.unlink(missing_ok=True)
        fresh.rename(path)
        fsync_dir(path.parent)
        recovery = Recovery(path, moved, len(good), damage.row_id, damage.reason)
        store = cls.open(path, clock=clock)
        store.recovery = recovery
        return store

    def close(self) -> None:
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
        self._lines.pop()
        self._ids.pop()
        self._game = Game.replay(self._lines)
        return StoredEvent(event_id, self._match or 0, line, found[0], now)

    # -- history ---------------------------------------------------------------

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
            last = conn.execute("SELECT coalesce(max(id), 0) FROM events").fetchone()[0]
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
            conn.execute("INSERT INTO events (id, match, line, crc, at) VALUES (?, ?, ?, ?, ?)",
                         (event_id, match, line, _crc(event_id, match, now, line), now))
            if ended:
                _record_game(conn, event_id, match, self._game)
        self._last_id = event_id
        self._match = match
        return event_id


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


def _family(path: Path) -> list[Path]:
    return [path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm"),
            path.with_name(path.name + "-journal")]


def _row(values: tuple[Any, ...]) -> _Row:
    return _Row(*values)


def _check_row(row: _Row, expected_id: int) -> str | None:
    """Why ``row`` cannot be trusted, or None."""
    if row.id != expected_id:
        return f"event id {expected_id} is missing (found {row.id} next)"
    if not isinstance(row.line, str) or not isinstance(row.crc, int):
        return "a row of the wrong type"
    if not isinstance(row.at, float) or _crc(row.id, row.match, row.at, row.line) != row.crc:
        return "checksum mismatch"
    return None


_SELECT = "SELECT id, match, line, crc, at, undone_at FROM events"


def _verified_rows(path: Path) -> list[_Row]:
    """Every row of an intact store, checked; raises ``_Damage`` at the first problem."""
    try:
        with closing(_connect(path, readonly=True)) as conn:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(f"event store {str(path)!r} was written by a newer version "
                                 f"(schema {version}, this program knows {SCHEMA_VERSION})")
            check = conn.execute("PRAGMA quick_check").fetchall()
            if check != [("ok",)]:
                first = " ".join(line for line in str(check[0][0]).splitlines()[:2])
                raise _Damage(None, f"SQLite quick_check: {first}")
            if version == 0:
                tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
                if tables:
                    raise _Damage(None, "not an event store (it has other tables)")
                return []
            rows = [_row(r) for r in conn.execute(_SELECT + " ORDER BY id")]
    except sqlite3.DatabaseError as exc:
        if not _is_damage(exc):
            raise StoreError(f"cannot read event store {str(path)!r}: {exc}") from exc
        raise _Damage(None, f"SQLite: {exc}") from None
    for expected, row in enumerate(rows, start=1):
        problem = _check_row(row, expected)
        if problem:
            raise _Damage(expected, problem)
    _check_replay(rows)
    return rows


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


def _salvage(path: Path, damage: _Damage) -> list[_Row]:
    """Reads rows one by one from a damaged store, up to the first bad one."""
    good: list[_Row] = []
    try:
        conn = _connect(path, readonly=True)
        # A truncated file is shorter than its header says; SQLite refuses it unless the
        # schema is "writable". On a read-only connection that changes nothing on disk.
        conn.execute("PRAGMA writable_schema = ON")
    except sqlite3.DatabaseError:
        return good
    with closing(conn):
        next_id = 1
        while damage.row_id is None or next_id < damage.row_id:
            try:
                found = conn.execute(_SELECT + " WHERE id = ?", (next_id,)).fetchone()
            except sqlite3.DatabaseError:
                break
            if found is None:
                break
            row = _row(found)
            if _check_row(row, next_id):
                break
            good.append(row)
            next_id += 1
    # Keep only rows the engine accepts, in order: what replay would fold.
    kept: list[_Row] = []
    games: dict[int, Game] = {}
    for row in good:
        if row.undone_at is None:
            try:
                games.setdefault(row.match, Game()).apply(row.line)
            except LogError:
                break
        kept.append(row)
    if damage.row_id is None and (len(kept) < len(good) or _has_row_after(path, len(kept))):
        damage.row_id = len(kept) + 1
    return kept


def _has_row_after(path: Path, last_good: int) -> bool:
    """Whether a damaged store still shows a row after ``last_good`` (so one was lost)."""
    try:
        with closing(_connect(path, readonly=True)) as conn:
            conn.execute("PRAGMA writable_schema = ON")
            found = conn.execute("SELECT max(id) FROM events").fetchone()[0]
    except sqlite3.DatabaseError:
        return True  # the table's last page is unreadable: assume rows were there
    return isinstance(found, int) and found > last_good


def _copy_rows(conn: sqlite3.Connection, rows: list[_Row]) -> None:
    """Writes salvaged rows into a fresh store, re-deriving matches and games by replay."""
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
    conn.execute("COMMIT")
