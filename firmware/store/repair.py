"""Opening a store that may be damaged: every row verified, and a damaged store's trusted
rows copied into a fresh one.

``verified_rows`` checks an intact store (SQLite's quick_check, the schema's text, every
event's and undo's checksum, the mark of the last acknowledged event and undo, a replay of
the current match) and raises ``Damage`` at the first problem; anything SQLite reports other
than a busy, locked, unreadable, unwritable or full file counts as damage, so a flipped bit
in the schema page repairs rather than stops the board. ``repair_store`` then renames the
damaged files aside, untouched, and copies every row whose checksum holds and whose match
still folds through the engine into a fresh store. Rows are gathered twice: through SQLite,
one id at a time past any unreadable page, and straight from the file's pages and its
-wal's committed frames (``firmware.store.pages``), so a damaged schema or b-tree costs
only the rows actually damaged. Each event it could not keep is reported
(``Recovery.lost``: id, match, game, why) and listed in the ``lost`` table, whose ids are
never reused; only ids something trustworthy vouches for (a row whose checksum holds, the
mark, an earlier repair, a damaged row right after the last of those) are reported.
"""

from __future__ import annotations

import json
import re
import sqlite3
import zlib
from collections.abc import Callable, Iterable
from contextlib import closing
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from engine.game import Game
from engine.records import LogError
from firmware.store.chain import (
    Break,
    Link,
    Record,
    build,
    expected_histories,
    natural_order,
    verify,
)
from firmware.store.copy import Copy, copy_path, judge, read_copy
from firmware.store.derived import derive, digest, write_history
from firmware.store.files import aside, fsync_dir
from firmware.store.mark import Mark
from firmware.store.pages import cells
from firmware.store.schema import (
    SCHEMA_VERSION,
    SUFFIXES,
    LostRow,
    Row,
    StoreError,
    Undo,
    connect,
    create_schema,
    expected_schema,
    family,
    row_crc,
    schema_version,
    undo_crc,
)

__all__ = ["LostEvent", "Recovery", "Damage", "Loaded", "verified_rows", "repair_store",
           "restore_from_copy", "write_chain",
           "damaged_copies", "undo_chain", "environment_error"]


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
    undos: str | None = None  # what became of undos the store could not keep, if any
    # Intact rows the engine refuses once an event before them is lost: kept in the store,
    # taken out of the game by an undo row the repair appends (history still shows them).
    set_aside: tuple[LostEvent, ...] = ()
    # The store broke its chain (``firmware.store.chain``): what was done to which row; the
    # second copy, whose chain held, was restored in its place.
    changed: str | None = None

    def words(self) -> str:
        """What the table is told when the device starts on a repaired store: what the
        players must put right, not how the file broke."""
        if self.changed:
            return (f"The event store did not agree with its chain ({self.changed}): the "
                    "board went back to its second copy, whose chain holds, and kept every "
                    "event it had acknowledged. If no one here changed the store, tell the "
                    "club: its copy of the rows is the tournament's record.")
        undos = f" {self.undos[0].upper()}{self.undos[1:]}: check the score." \
            if self.undos else ""
        if self.set_aside:
            places = ", ".join(dict.fromkeys(event.place() for event in self.set_aside))
            undos += (f" {len(self.set_aside)} later event(s) of {places} no longer fit and "
                      "were set aside (kept, but out of the game).")
        if not self.lost:
            return ("The event store was damaged, most likely by a power cut, and repaired: "
                    "every event was kept." + undos)
        places = ", ".join(dict.fromkeys(event.place() for event in self.lost))
        count = f"{len(self.lost)} event" + ("s" if len(self.lost) != 1 else "")
        return (f"The event store was damaged, most likely by a power cut: {count} of "
                f"{places} could not be kept. The board shows the game as it was kept: "
                "check the score, and lay or type again what is missing." + undos)

    def __str__(self) -> str:
        where = "" if self.damaged_at is None else f" at event id {self.damaged_at}"
        if self.lost:
            kept = (f"kept {self.kept} of {self.kept + len(self.lost)} events and lost "
                    f"{_lost_words(self.lost)}")
        else:
            kept = f"kept all {self.kept} events"
        undos = f"; {self.undos}" if self.undos else ""
        if self.set_aside:
            undos += f"; set aside {_lost_words(self.set_aside)}"
        return (f"event store {str(self.path)!r} was damaged{where} ({self.reason}); "
                f"{kept}{undos}; the damaged file is now {str(self.moved_to)!r}")


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

    def __init__(self, row_id: int | None, reason: str, broken: Break | None = None,
                 linked: frozenset[tuple[str, int]] = frozenset()) -> None:
        super().__init__(reason)
        self.row_id, self.reason, self.broken = row_id, reason, broken
        self.linked = linked  # with ``broken``: every row the store's chain names


@dataclass(frozen=True, slots=True)
class Loaded:
    """An intact store as ``verified_rows`` read it: every event row (``undone_at`` as its
    undo rows say), the undo rows, the ids a repair recorded as lost, the schema version,
    and the ids whose ``events.undone_at`` column disagrees with the undo rows."""

    rows: list[Row]
    undos: list[Undo]
    lost: frozenset[int]
    version: int
    stale: frozenset[int]
    # The chain's links (None: a store from before the chain), the lost rows as stored,
    # and each match's history digest as the chain says.
    links: list[Link] | None = None
    losts: tuple[LostRow, ...] = ()
    histories: dict[int, int] | None = None


def undo_chain(undos: list[Undo]) -> int:
    """The chain of undo checksums the mark keeps (``firmware.store.mark``)."""
    chain = 0
    for undo in undos:
        chain = zlib.crc32(undo.crc.to_bytes(4, "little"), chain)
    return chain


def repair_store(path: Path, damage: Damage, mark: Mark | None,
                 clock: Callable[[], float],
                 repairing: Callable[[], None] = lambda: None) -> Recovery:
    """Moves a damaged store aside, untouched, and puts a fresh one in its place holding
    every row worth keeping (``salvage``); returns what it did. ``repairing`` is called at
    its start and now and then as it goes (a long repair must not look like a hung start)."""
    repairing()
    salvaged = _salvage(path, mark, clock(), repairing)
    moved = _replace_store(path, salvaged, clock)
    lost = salvaged.lost
    first_lost = lost[0].id if lost else None
    damaged_at = damage.row_id if damage.row_id is not None else first_lost
    return Recovery(path, moved, len(salvaged.kept), damaged_at, damage.reason, tuple(lost),
                    salvaged.undo_problem, tuple(salvaged.set_aside))


def restore_from_copy(path: Path, damage: Damage, copy: Copy,
                      clock: Callable[[], float]) -> Recovery:
    """Moves a store whose chain broke aside, untouched, and puts in its place a fresh one
    holding exactly what its second copy holds (whose chain was checked whole, ``intact``):
    the copy agrees with the chain and the store does not, so the copy wins."""
    undone = {u.event: u.at for u in copy.undos.values()}
    kept = [Row(r.id, r.match, r.line, r.crc, r.at, undone.get(r.id))
            for r in sorted(copy.rows.values(), key=lambda r: r.id)]
    earlier = [LostEvent(lost.id, _places(lost.place), lost.why)
               for lost in sorted(copy.losts.values(), key=lambda r: r.id)]
    undos = sorted(copy.undos.values(), key=lambda u: u.id)
    salvaged = _Salvaged(kept, undos, [], earlier, None, [])
    moved = _replace_store(path, salvaged, clock)
    changed = damage.broken.words() if damage.broken else damage.reason
    if damage.broken is not None and damage.broken.kind == "e":
        was, now = copy.rows.get(damage.broken.ref), _store_match(moved, damage.broken.ref)
        if was is not None and now is not None and now != was.match:
            changed = (f"event id {was.id} was moved from match {was.match} to match {now} "
                       "outside the board")
    return Recovery(path, moved, len(kept), damage.row_id, damage.reason, (), None, (),
                    changed)


def _places(text: str) -> tuple[tuple[int, int], ...]:
    value = _json_list(text.encode())
    return tuple((m, g) for m, g in (value or []) if type(m) is int and type(g) is int)


def _store_match(path: Path, event_id: int) -> int | None:
    """The match a (moved aside) store files an event under, if it can say."""
    try:
        with closing(_reader(path)) as conn:
            found = conn.execute("SELECT match FROM events WHERE id = ?", (event_id,)).fetchone()
    except sqlite3.DatabaseError:
        return None
    return found[0] if found and isinstance(found[0], int) else None


def _replace_store(path: Path, salvaged: _Salvaged, clock: Callable[[], float]) -> Path:
    """Renames the store's files aside and puts a fresh store of ``salvaged`` in its place;
    returns where the original went."""
    moved = aside(path, clock())
    fresh = path.with_name(f"{path.name}.recovering")
    for leftover in family(fresh):
        leftover.unlink(missing_ok=True)
    with closing(connect(fresh, readonly=False)) as conn:
        create_schema(conn)
        _copy_rows(conn, salvaged, clock())
    # The original keeps its -wal (and mark) beside it under the new name, so it stays
    # readable; the fresh store's mark is written when it opens.
    for source, suffix in zip(family(path), SUFFIXES, strict=True):
        if source.exists():
            source.rename(moved.with_name(moved.name + suffix))
    for leftover in family(fresh)[1:]:
        leftover.unlink(missing_ok=True)
    fresh.rename(path)
    fsync_dir(path.parent)
    return moved


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
_UNDOS = "SELECT id, event, at, crc FROM undos"
# What SQLite says of a file it cannot use now rather than of damage in it: busy or locked
# (another writer), out of memory, read-only, an I/O error, full, cannot open, no permission.
_ENVIRONMENT = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_NOMEM,
                          sqlite3.SQLITE_READONLY, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL,
                          sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM})


def environment_error(exc: sqlite3.DatabaseError) -> bool:
    """Whether SQLite refused for a reason outside the file's contents (see ``_ENVIRONMENT``):
    only damage may move the file aside."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:
        return isinstance(exc, sqlite3.OperationalError) and "unable to open" in str(exc)
    return code & 0xFF in _ENVIRONMENT


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


def _read_undo(values: tuple[Any, ...]) -> Undo | None:
    """An undo row whose checksum holds, else None."""
    undo_id, event, at, crc = values
    if not (isinstance(undo_id, int) and isinstance(event, int) and isinstance(at, float)
            and isinstance(crc, int)):
        return None
    return Undo(undo_id, event, at, crc) if undo_crc(undo_id, event, at) == crc else None


def _check_schema(conn: sqlite3.Connection, version: int) -> set[str]:
    """The store's tables, after checking each one the store knows is as it was created (a
    flipped bit in a name or a column is damage, not "no such column"); returns their names."""
    found = _schema_text(conn)
    for name, sql in expected_schema(version).items():
        if name in found and found[name] != sql:
            raise Damage(None, f"the schema of {name!r} is damaged")
    needed = ("events", "undos") if version >= 3 else ("events",)
    for name in needed:
        if name not in found:
            raise Damage(None, f"the {name!r} table is missing")
    return set(found)


def _schema_text(conn: sqlite3.Connection) -> dict[str, str]:
    """The ``sqlite_master`` text of each table, index and view, by name (a reader's
    bytes decoded: a name that is not UTF-8 raises, and is the schema's damage)."""
    found: dict[str, str] = {}
    for name, sql in conn.execute("SELECT name, sql FROM sqlite_master"):
        if isinstance(name, bytes) and isinstance(sql, bytes):
            found[name.decode()] = sql.decode()
    return found


def _version(conn: sqlite3.Connection) -> int:
    """The store's schema version as its tables say (``schema_version``), its
    ``user_version`` where they match no known version."""
    number = conn.execute("PRAGMA user_version").fetchone()[0]
    found = _schema_text(conn)
    return schema_version(found, number) if found else number


def verified_rows(path: Path, mark: Mark | None) -> Loaded:
    """Every row of an intact store, checked; raises ``Damage`` at the first problem."""
    rows: list[Row] = []
    undos: list[Undo] = []
    lost: frozenset[int] = frozenset()
    stale: frozenset[int] = frozenset()
    losts: list[LostRow] = []
    links: list[Link] | None = None
    try:
        with closing(_reader(path)) as conn:
            # One snapshot: a reader beside the board's writer (``history``) must not see a
            # link whose row came after its read of the rows.
            conn.execute("BEGIN")
            version = _version(conn)
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
            else:
                names = _check_schema(conn, version)
                lost = _lost_ids(conn) if "lost" in names else frozenset()
                rows = _event_rows(conn, lost)
                if version >= 3:
                    undos = _undo_rows(conn, {row.id for row in rows}, lost)
                    rows, stale = _undone_by(rows, undos)
                else:
                    undos = [Undo(0, row.id, row.undone_at, 0) for row in rows
                             if row.undone_at is not None]
                losts = _lost_rows(conn) if "lost" in names else []
                links = _links(conn) if "chain" in names else None
    except sqlite3.DatabaseError as exc:
        if environment_error(exc):
            raise StoreError(f"cannot read event store {str(path)!r}: {exc}") from exc
        raise Damage(None, f"SQLite: {exc}") from None
    except (UnicodeDecodeError, ValueError) as exc:  # a name in the schema is not UTF-8
        raise Damage(None, f"the schema is damaged ({exc})") from None
    histories = None
    if links is not None:
        records: list[Record] = [*rows, *undos, *losts]
        broken = verify(links, records)
        if broken is not None:
            raise Damage(broken.ref if broken.kind == "e" else None,
                         f"the chain does not hold: {broken.words()}", broken,
                         frozenset((link.kind, link.ref) for link in links))
        histories = expected_histories(links, records)
    _check_lost(rows, lost, mark)
    _check_mark(rows, lost, mark, undos if version >= 3 else None, len(undos))
    _check_replay(rows)
    return Loaded(rows, undos, lost, version, stale, links, tuple(losts), histories)


def _lost_rows(conn: sqlite3.Connection) -> list[LostRow]:
    out = []
    for event_id, place, why, at in conn.execute("SELECT id, place, why, at FROM lost "
                                                 "ORDER BY id"):
        if not (isinstance(event_id, int) and isinstance(place, bytes)
                and isinstance(why, bytes) and isinstance(at, float)):
            raise Damage(None, "the list of lost events is damaged")
        out.append(LostRow(event_id, place.decode(), why.decode(), at))
    return out


def _links(conn: sqlite3.Connection) -> list[Link]:
    out = []
    for values in conn.execute("SELECT seq, kind, ref, history, link FROM chain ORDER BY seq"):
        seq, kind, ref, history, link = values
        if not (isinstance(seq, int) and kind in (b"e", b"u", b"l") and isinstance(ref, int)
                and isinstance(history, int) and isinstance(link, int)):
            raise Damage(None, f"chain row {seq!r} is damaged")
        out.append(Link(seq, kind.decode(), ref, history, link))
    return out


def write_chain(conn: sqlite3.Connection, links: Iterable[Link]) -> None:
    """Puts ``links`` in the chain table, replacing what it held (caller's transaction)."""
    conn.execute("DELETE FROM chain")
    conn.executemany("INSERT INTO chain (seq, kind, ref, history, link) VALUES (?, ?, ?, ?, ?)",
                     [(k.seq, k.kind, k.ref, k.history, k.link) for k in links])


def _event_rows(conn: sqlite3.Connection, lost: frozenset[int]) -> list[Row]:
    rows = []
    expected = 0
    for values in conn.execute(_SELECT + " ORDER BY id"):
        expected += 1
        while expected in lost:
            expected += 1
        row, problem = _read_row(values)
        if row.id != expected:
            raise Damage(expected, f"event id {expected} is missing (found {row.id!r} next)")
        if problem:
            raise Damage(expected, problem)
        rows.append(row)
    return rows


def _undo_rows(conn: sqlite3.Connection, ids: set[int], lost: frozenset[int]) -> list[Undo]:
    """The undo rows, each checked: its checksum, its place in the sequence, an event that
    is in the store (or lost) and not taken back twice."""
    undos: list[Undo] = []
    undone: set[int] = set()
    for values in conn.execute(_UNDOS + " ORDER BY id"):
        undo = _read_undo(values)
        if undo is None:
            raise Damage(None, f"undo row {values[0]!r} is damaged (checksum mismatch)")
        if undo.id != len(undos) + 1 or undo.event in undone or \
                (undo.event not in ids and undo.event not in lost):
            raise Damage(None, f"undo row {undo.id} does not fit the events it undoes")
        undone.add(undo.event)
        undos.append(undo)
    return undos


def _undone_by(rows: list[Row], undos: list[Undo]) -> tuple[list[Row], frozenset[int]]:
    """The rows with ``undone_at`` as the undo rows say, and the ids whose column differed."""
    at = {undo.event: undo.at for undo in undos}
    out, stale = [], set()
    for row in rows:
        truth = at.get(row.id)
        if row.undone_at != truth:
            stale.add(row.id)
            row = Row(row.id, row.match, row.line, row.crc, row.at, truth)
        out.append(row)
    return out, frozenset(stale)


def _lost_ids(conn: sqlite3.Connection) -> frozenset[int]:
    ids = [event_id for (event_id,) in conn.execute("SELECT id FROM lost")]
    if not all(isinstance(i, int) for i in ids):
        raise Damage(None, "the list of lost events is damaged")
    return frozenset(ids)


def lost_bound(ids: Iterable[int], mark: Mark | None) -> int:
    """The highest id a ``lost`` row may name: the last the mark acknowledged (a repair's
    losses are all at or before it), or without a mark ``_SEARCH_PAST`` past the last row.

    Why: the ``lost`` table has no checksum of its own, and one flipped bit there made an
    id of 2**63-1 (every later append overflowed) or one far past the last event (the next
    repair reported a hundred thousand losses that never were, minutes long).
    """
    if mark is not None:
        return mark.last_id
    return max(ids, default=0) + _SEARCH_PAST


def _trusted_losses(earlier: list[LostEvent], bound: int) -> list[LostEvent]:
    return [event for event in earlier if 0 < event.id <= bound]


def _check_lost(rows: list[Row], lost: frozenset[int], mark: Mark | None) -> None:
    """A ``lost`` row naming an id past ``lost_bound`` is damage (repair drops it)."""
    bound = lost_bound((row.id for row in rows), mark)
    wild = sorted(i for i in lost if not 0 < i <= bound)
    if wild:
        raise Damage(None, f"the list of lost events names event id {wild[0]}, past the "
                           f"last one the store vouches for ({bound})")


def _check_mark(rows: list[Row], lost: frozenset[int], mark: Mark | None,
                undos: list[Undo] | None, undone: int) -> None:
    """Compares the store with what it last acknowledged: commits lost from the WAL
    (damaged, cut or gone) leave the store behind its mark; an undo row added, removed or
    changed differs from its count and chain (one more is an undo whose mark a crash cut)."""
    if mark is None:
        return
    last = max([0, *lost, *(row.id for row in rows)])
    if mark.last_id > last:
        ids = str(last + 1) if mark.last_id == last + 1 else f"{last + 1}-{mark.last_id}"
        raise Damage(last + 1, f"event id {ids} acknowledged but not in the store")
    marked = next((row for row in rows if row.id == mark.last_id), None)
    if mark.last_id and (marked is None or marked.crc != mark.crc) and mark.last_id not in lost:
        raise Damage(mark.last_id, f"event id {mark.last_id} is not the event acknowledged")
    if undone < mark.undone:
        raise Damage(None, f"{mark.undone - undone} acknowledged undo(s) not in the store")
    if undos is not None and mark.undo_chain is not None:
        if undone > mark.undone + 1:
            raise Damage(None, f"{undone - mark.undone} undo(s) the store never acknowledged")
        if undo_chain(undos[:mark.undone]) != mark.undo_chain:
            raise Damage(None, "the undos are not those acknowledged")


def _check_replay(rows: list[Row]) -> None:
    """Replays the current match, so a log the engine refuses counts as damage too.

    Older matches are only checksummed (their history is checked against its digest,
    ``firmware.store.derived``): replaying years of games at every boot would cost
    seconds on a Pi.
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


@dataclass
class _Scan:
    """What a damaged store still holds: trusted rows by id, why others cannot be trusted
    by id, the highest id something trustworthy vouches for, an earlier repair's losses,
    the undo rows whose checksum holds, and the schema version when it can be read."""

    good: dict[int, Row]
    bad: dict[int, str]
    known: int
    earlier: list[LostEvent]
    undos: dict[int, Undo]
    version: int | None


def _scan(path: Path, mark: Mark | None, repairing: Callable[[], None]) -> _Scan:
    """Every row of a damaged store that can still be read, through SQLite and then
    straight from the pages (``firmware.store.pages``); SQLite's reading wins for a row
    both find (it knows which copy is current)."""
    scan = _Scan({}, {}, mark.last_id if mark else 0, [], {}, None)
    _scan_sqlite(path, scan)
    repairing()
    wal = path.with_name(path.name + "-wal")
    raw: dict[int, Row] = {}
    unmatched: list[tuple[Any, ...]] = []
    for rowid, values in cells(path, wal if wal.exists() else None):
        # SQLite stores a REAL with no fraction as an integer on the page.
        if len(values) == 6 and values[0] is None:
            _, match, line, crc, at, undone_at = values
            fields = (match, line, crc, _real(at), _real(undone_at), isinstance(line, bytes))
            row, problem = _read_row((rowid, *fields))
            if problem is None:
                raw[rowid] = row
            elif problem == "checksum mismatch":
                unmatched.append(fields)
        elif len(values) == 4 and values[0] is None:
            undo = _read_undo((rowid, values[1], _real(values[2]), values[3]))
            if undo is not None:
                scan.undos.setdefault(undo.id, undo)
    repairing()
    for event_id, row in raw.items():
        scan.good.setdefault(event_id, row)
    copy = read_copy(copy_path(path))  # the second copy: every row the store lost
    held: dict[tuple[str, int], Any] = {("e", i): replace(r, undone_at=None)
                                        for i, r in scan.good.items()}
    held.update({("u", i): undo for i, undo in scan.undos.items()})
    if judge(copy, held).takes_rows_from(len(held)):  # not another store's copy
        for event_id, row in copy.rows.items():
            scan.good.setdefault(event_id, row)
        for undo in copy.undos.values():
            scan.undos.setdefault(undo.id, undo)
    scan.earlier = _trusted_losses(scan.earlier, lost_bound(scan.good, mark))
    scan.known = max([scan.known, *scan.good, *(event.id for event in scan.earlier)])
    _rowids_put_right(scan, unmatched)
    # A damaged row's id is believed only right after the last id vouched for (a last row
    # torn): an id read from a damaged page may be anything.
    while scan.known + 1 in scan.bad:
        scan.known += 1
    gone = {event.id for event in scan.earlier}
    scan.bad = {i: why for i, why in scan.bad.items()
                if i <= scan.known and i not in scan.good and i not in gone}
    return scan


# How many rows a repair goes through between telling its caller it is still going.
_TELL_EVERY = 500

# A row whose checksum fails may have only its rowid damaged (the id is in the checksum):
# it is tried under each id still missing, this many (id, row) pairs at most.
_RETRIES = 200_000


def _rowids_put_right(scan: _Scan, unmatched: list[tuple[Any, ...]]) -> None:
    """Gives a row whose checksum fails the id still missing under which it holds (a CRC32
    match by chance is one in four billion): a flipped rowid costs nothing."""
    gone = {event.id for event in scan.earlier}
    missing = [i for i in range(1, scan.known + 9) if i not in scan.good and i not in gone]
    if not missing or not unmatched or len(missing) * len(unmatched) > _RETRIES:
        return
    for fields in unmatched:
        for event_id in missing:
            row, problem = _read_row((event_id, *fields))
            if problem is None and event_id not in scan.good:
                scan.good[event_id] = row
                scan.known = max(scan.known, event_id)
                break


def _real(value: object) -> object:
    return float(value) if type(value) is int else value


def _scan_sqlite(path: Path, scan: _Scan) -> None:
    """The rows SQLite can still read: a read that fails skips one id and goes on, so one
    bad page costs only its rows."""
    try:
        conn = _reader(path)
    except sqlite3.DatabaseError:
        return
    with closing(conn):
        try:
            # A truncated file is shorter than its header says; SQLite refuses it unless the
            # schema is "writable". On a read-only connection that changes nothing on disk.
            conn.execute("PRAGMA writable_schema = ON")
            scan.version = conn.execute("PRAGMA user_version").fetchone()[0]
            try:
                scan.version = _version(conn)
            except (sqlite3.DatabaseError, UnicodeDecodeError, ValueError):
                pass  # a damaged schema: the number is all there is
            tables = conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'events'").fetchall()
        except (sqlite3.DatabaseError, UnicodeDecodeError, ValueError):
            return
        if not tables:  # no events were ever checkpointed into this file, or the name is hit
            return
        scan.earlier = _earlier_losses(conn)
        # An earlier loss counts only as far as the mark vouches (``_trusted_losses``).
        limit = max([scan.known, *(e.id for e in scan.earlier if e.id <= scan.known)]) \
            + _SEARCH_PAST
        after = 0
        while after <= limit:
            try:
                for values in conn.execute(_SELECT + " WHERE id > ? ORDER BY id", (after,)):
                    row, problem = _read_row(values)
                    if not isinstance(row.id, int) or row.id <= after:
                        continue
                    if problem is None:
                        scan.good[row.id] = row
                        limit = max(limit, row.id + _SEARCH_PAST)
                    else:
                        scan.bad.setdefault(row.id, problem)
                    after = row.id
                break
            except (sqlite3.DatabaseError, UnicodeDecodeError, ValueError):
                after += 1
        try:
            for values in conn.execute(_UNDOS):
                undo = _read_undo(values)
                if undo is not None:
                    scan.undos[undo.id] = undo
        except (sqlite3.DatabaseError, UnicodeDecodeError, ValueError):
            pass  # a store from before undo rows, or its pages are gone: the raw scan looks


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


def _json_list(raw: object) -> list[Any] | None:
    if not isinstance(raw, bytes):
        return None
    try:
        value = json.loads(raw.decode())
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return value if isinstance(value, list) else None


@dataclass(frozen=True, slots=True)
class _Salvaged:
    kept: list[Row]
    undos: list[Undo]
    lost: list[LostEvent]
    earlier: list[LostEvent]
    undo_problem: str | None
    set_aside: list[LostEvent]


def _salvage_undos(scan: _Scan, mark: Mark | None) -> tuple[dict[int, float], str | None]:
    """Which events stay undone, and what could not be kept of the undos.

    Undo rows whose checksum holds are kept in their order (dict order), one per event,
    each for an event still known; a store from before undo rows (or one whose undo rows
    are all gone while its rows still say undone) keeps what its rows say. Undos the mark
    acknowledged but no row holds, or rows past what it acknowledged, are said, not
    guessed; past the acknowledged count none is kept, as any of them may be forged.
    """
    undone: dict[int, float] = {}
    for undo in sorted(scan.undos.values(), key=lambda u: u.id):
        if undo.event not in undone and undo.event <= scan.known:
            undone[undo.event] = undo.at
    if scan.version is not None and scan.version < 3 or not scan.undos:
        for row in sorted(scan.good.values(), key=lambda r: (r.undone_at or 0.0, r.id)):
            if row.undone_at is not None:
                undone.setdefault(row.id, row.undone_at)
    problem = None
    if mark is not None and len(undone) < mark.undone:
        # The events.undone_at column repeats each undo: where undo rows are gone, the rows
        # it still marks undone (and only as many as are missing) are taken back again.
        hints = sorted((row.undone_at, row.id) for row in scan.good.values()
                       if row.undone_at is not None and row.id not in undone)
        if len(hints) <= mark.undone - len(undone):
            for at, event_id in hints:
                undone[event_id] = at
    if mark is not None and len(undone) < mark.undone:
        problem = (f"{mark.undone - len(undone)} acknowledged undo(s) could not be kept, so "
                   "what they took back may show again")
    elif mark is not None and mark.undo_chain is not None and len(undone) > mark.undone + 1:
        # Past what the mark vouches for, none is trusted (it may be one of the forged).
        extra = list(undone)[mark.undone:]
        for event_id in extra:
            del undone[event_id]
        problem = (f"{len(extra)} undo(s) the store never acknowledged were dropped "
                   f"(of event id {', '.join(map(str, sorted(extra)))})")
    return undone, problem


def _salvage(path: Path, mark: Mark | None, now: float,
             repairing: Callable[[], None]) -> _Salvaged:
    """The rows of a damaged store worth keeping, and the events lost.

    Kept: every row whose checksum holds (undone rows as they are); one the engine no
    longer folds with the events before it (an event before it is lost) is set aside:
    kept, with an undo row made ``now``. Lost: every id up to the last one known (from
    the mark or a row) that is not kept, with why; an earlier repair's losses come third
    and are not reported again.
    """
    scan = _scan(path, mark, repairing)
    repairing()
    good, bad, known, earlier = scan.good, scan.bad, scan.known, scan.earlier
    undone, undo_problem = _salvage_undos(scan, mark)
    gone = {event.id for event in earlier}
    kept: list[Row] = []
    refused: dict[int, str] = {}
    games: dict[int, Game] = {}
    place: dict[int, tuple[int, int]] = {}
    for event_id in sorted(good):
        if event_id % _TELL_EVERY == 0:
            repairing()
        row = good[event_id]
        row = Row(row.id, row.match, row.line, row.crc, row.at, undone.get(event_id))
        game = games.setdefault(row.match, Game())
        number = _games_started(game)
        if row.undone_at is None:
            try:
                game.apply(row.line)
            except LogError:
                starts = row.line.startswith('{"type": "new_game"')
                place[event_id] = (row.match, number + starts)
                refused[event_id] = "the engine refuses it once the events before are lost"
                row = Row(row.id, row.match, row.line, row.crc, row.at, now)
                undone[event_id] = now
                kept.append(row)
                continue
        place[event_id] = (row.match, _games_started(game))
        kept.append(row)
    lost: list[LostEvent] = []
    set_aside = [LostEvent(i, (place[i],), why) for i, why in sorted(refused.items())]
    for event_id in range(1, known + 1):
        if event_id in place or event_id in gone:
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
    kept_ids = {row.id for row in kept}
    order = [(event_id, at) for event_id, at in undone.items() if event_id in kept_ids]
    undos = [Undo(n, event_id, at, undo_crc(n, event_id, at))
             for n, (event_id, at) in enumerate(order, start=1)]
    return _Salvaged(kept, undos, lost, earlier, undo_problem, set_aside)


def _games_started(game: Game) -> int:
    """How many games of its match ``game`` has begun (the game a row belongs to)."""
    if game.phase == "new_game":
        return 0
    return len(game.match) + (game.phase != "over")


def _record_lost(conn: sqlite3.Connection, lost: list[LostEvent], now: float
                 ) -> list[LostRow]:
    rows = {e.id: LostRow(e.id, json.dumps([list(p) for p in e.where]), e.why, now)
            for e in lost}
    conn.executemany("INSERT OR REPLACE INTO lost (id, place, why, at) VALUES (?, ?, ?, ?)",
                     [(r.id, r.place, r.why, r.at) for r in rows.values()])
    return list(rows.values())


def _copy_rows(conn: sqlite3.Connection, salvaged: _Salvaged, now: float) -> None:
    """Writes salvaged rows, their undos and the list of lost ones into a fresh store in one
    transaction, re-deriving matches and games by replay."""
    by_match: dict[int, list[Row]] = {}
    conn.execute("BEGIN IMMEDIATE")
    for row in salvaged.kept:
        by_match.setdefault(row.match, []).append(row)
        conn.execute("INSERT INTO events (id, match, line, crc, at, undone_at) "
                     "VALUES (?, ?, ?, ?, ?, ?)",
                     (row.id, row.match, row.line, row.crc, row.at, row.undone_at))
    conn.executemany("INSERT INTO undos (id, event, at, crc) VALUES (?, ?, ?, ?)",
                     [(u.id, u.event, u.at, u.crc) for u in salvaged.undos])
    histories = {}
    for match, rows in by_match.items():
        live = [(row.id, row.line) for row in rows if row.undone_at is None]
        history = derive(match, rows[0].at, live)
        write_history(conn, history)
        histories[match] = digest(history)
    losts = _record_lost(conn, [*salvaged.earlier, *salvaged.lost], now)
    plain = [Row(r.id, r.match, r.line, r.crc, r.at, None) for r in salvaged.kept]
    write_chain(conn, build(natural_order([*plain, *salvaged.undos, *losts]), histories))
    conn.execute("COMMIT")
