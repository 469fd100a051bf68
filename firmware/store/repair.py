"""Opening a store that may be damaged: every row verified, and a damaged store's trusted
rows copied into a fresh one.

``verified_rows`` checks an intact store (SQLite's quick_check, every row's checksum, the
history tables, the mark of the last acknowledged event, a replay of the current match) and
raises ``Damage`` at the first problem. ``repair_store`` then renames the damaged files
aside, untouched, and copies every row whose checksum holds and whose match still folds
through the engine into a fresh store; each event it could not keep is reported
(``Recovery.lost``: id, match, game, why) and listed in the ``lost`` table, whose ids are
never reused.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.game import Game
from engine.records import LogError
from firmware.store.files import fsync_dir
from firmware.store.mark import Mark
from firmware.store.schema import (
    SCHEMA_VERSION,
    SUFFIXES,
    Row,
    StoreError,
    connect,
    create_schema,
    family,
    players_and_sides,
    record_game,
    row_crc,
)

__all__ = ["LostEvent", "Recovery", "Damage", "verified_rows", "repair_store", "damaged_copies"]

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


class Damage(Exception):
    """What ``verified_rows`` found: damage at ``row_id`` (None: the file itself), and why."""

    def __init__(self, row_id: int | None, reason: str) -> None:
        super().__init__(reason)
        self.row_id, self.reason = row_id, reason


def repair_store(path: Path, damage: Damage, mark: Mark | None,
                 clock: Callable[[], float]) -> Recovery:
    """Moves a damaged store aside, untouched, and puts a fresh one in its place holding
    every row worth keeping (``salvage``); returns what it did."""
    good, lost, earlier = _salvage(path, mark)
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(clock()))
    moved = path.with_name(f"{path.name}.damaged-{stamp}")
    n = 1
    while moved.exists():
        n += 1
        moved = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
    fresh = path.with_name(f"{path.name}.recovering")
    for leftover in family(fresh):
        leftover.unlink(missing_ok=True)
    with closing(connect(fresh, readonly=False)) as conn:
        create_schema(conn)
        _copy_rows(conn, good, [*earlier, *lost], clock())
    # The original keeps its -wal (and mark) beside it under the new name, so it stays
    # readable; the fresh store's mark is written when it opens.
    for source, suffix in zip(family(path), SUFFIXES, strict=True):
        if source.exists():
            source.rename(moved.with_name(moved.name + suffix))
    for leftover in family(fresh)[1:]:
        leftover.unlink(missing_ok=True)
    fresh.rename(path)
    fsync_dir(path.parent)
    first_lost = lost[0].id if lost else None
    damaged_at = damage.row_id if damage.row_id is not None else first_lost
    return Recovery(path, moved, len(good), damaged_at, damage.reason, tuple(lost))


def damaged_copies(path: Path) -> list[Path]:
    """The damaged originals a repair kept beside the store at ``path`` (named as
    ``repair_store`` names them: ``NAME.damaged-STAMP``, ``-N`` for a second repair
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
    conn = connect(path, readonly=True)
    conn.text_factory = bytes
    return conn


def _read_row(values: tuple[Any, ...]) -> tuple[Row, str | None]:
    """A row as read, and why it cannot be trusted (None when its checksum holds)."""
    event_id, match, raw, crc, at, undone_at, is_text = values
    line = raw.decode(errors="replace") if isinstance(raw, bytes) else str(raw)
    row = Row(event_id, match, line, crc, at, undone_at)
    if not (is_text and isinstance(raw, bytes) and isinstance(event_id, int)
            and isinstance(match, int) and isinstance(crc, int) and isinstance(at, float)
            and (undone_at is None or isinstance(undone_at, float))):
        return row, "a row of the wrong type"
    try:
        raw.decode()
    except UnicodeDecodeError:
        return row, "its text is not UTF-8"
    if row_crc(event_id, match, at, line) != crc:
        return row, "checksum mismatch"
    return row, None


def verified_rows(path: Path, mark: Mark | None) -> tuple[list[Row], frozenset[int]]:
    """Every row of an intact store, checked, and the ids a repair recorded as lost;
    raises ``Damage`` at the first problem."""
    rows: list[Row] = []
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
                raise Damage(None, f"SQLite quick_check: {first}")
            if version == 0:
                tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
                if tables:
                    raise Damage(None, "not an event store (it has other tables)")
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
                        raise Damage(expected, f"event id {expected} is missing "
                                                f"(found {row.id!r} next)")
                    if problem:
                        raise Damage(expected, problem)
                    rows.append(row)
                _check_history(conn)
    except sqlite3.DatabaseError as exc:
        if not _is_damage(exc):
            raise StoreError(f"cannot read event store {str(path)!r}: {exc}") from exc
        raise Damage(None, f"SQLite: {exc}") from None
    _check_mark(rows, lost, mark)
    _check_replay(rows)
    return rows, lost


def _lost_ids(conn: sqlite3.Connection, version: int) -> frozenset[int]:
    if version < 2:
        return frozenset()
    ids = [event_id for (event_id,) in conn.execute("SELECT id FROM lost")]
    if not all(isinstance(i, int) for i in ids):
        raise Damage(None, "the list of lost events is damaged")
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
            raise Damage(None, f"the history of match {match!r} is damaged")
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
            raise Damage(None, f"the result of the game ended by event id {event!r} is damaged")


def _json_list(raw: object) -> list[Any] | None:
    if not isinstance(raw, bytes):
        return None
    try:
        value = json.loads(raw.decode())
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return value if isinstance(value, list) else None


def _check_mark(rows: list[Row], lost: frozenset[int], mark: Mark | None) -> None:
    """Compares the store with what it last acknowledged: commits lost from the WAL
    (damaged, cut or gone) leave the store behind its mark."""
    if mark is None:
        return
    last = max([0, *lost, *(row.id for row in rows)])
    if mark.last_id > last:
        ids = str(last + 1) if mark.last_id == last + 1 else f"{last + 1}-{mark.last_id}"
        raise Damage(last + 1, f"event id {ids} acknowledged but not in the store")
    marked = next((row for row in rows if row.id == mark.last_id), None)
    if mark.last_id and (marked is None or marked.crc != mark.crc) and mark.last_id not in lost:
        raise Damage(mark.last_id, f"event id {mark.last_id} is not the event acknowledged")
    undone = sum(row.undone_at is not None for row in rows)
    if undone < mark.undone:
        raise Damage(None, f"{mark.undone - undone} acknowledged undo(s) not in the store")


def _is_damage(exc: sqlite3.DatabaseError) -> bool:
    """Corrupt or not a database, as opposed to locked, unreadable or out of space: only the
    first kind may move the file aside."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:
        return not isinstance(exc, sqlite3.OperationalError)
    return code & 0xFF in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


def _check_replay(rows: list[Row]) -> None:
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
            raise Damage(row.id, f"the engine refuses it: {exc}") from None


# Past the last id anything vouches for (the mark, a readable row), ids a damaged store
# is still searched for: more than a season of games after a cut leaf.
_SEARCH_PAST = 1000


def _scan(path: Path, mark: Mark | None
          ) -> tuple[dict[int, Row], dict[int, str], int, list[LostEvent]]:
    """Every row of a damaged store that can still be read: trusted rows by id, why the
    others cannot be trusted by id, the highest id known to have been stored, and the
    events an earlier repair lost.

    A read that fails skips one id and goes on, so one bad page costs only its rows.
    """
    good: dict[int, Row] = {}
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
             ) -> tuple[list[Row], list[LostEvent], list[LostEvent]]:
    """The rows of a damaged store worth keeping, and the events lost.

    Kept: every row whose checksum holds and whose match still folds through the
    engine with it (undone rows are kept as they are). Lost: every id up to the
    last one known (from the mark or a row) that is not kept, with why; an earlier
    repair's losses come third and are not reported again.
    """
    good, bad, known, earlier = _scan(path, mark)
    gone = {event.id for event in earlier}
    kept: list[Row] = []
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


def _copy_rows(conn: sqlite3.Connection, rows: list[Row], lost: list[LostEvent],
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
            players, sides = players_and_sides(game)
            conn.execute("UPDATE matches SET players = ?, sides = ? WHERE id = ?",
                         (players, sides, row.match))
        if not was_over and game.phase == "over":
            record_game(conn, row.id, row.match, game)
    _record_lost(conn, lost, now)
    conn.execute("COMMIT")
