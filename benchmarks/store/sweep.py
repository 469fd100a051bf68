"""Every kind of single damage to a store at rest, opened as ``run`` opens it: what starts,
what is kept, what is reported, and what changed without a word (issue 51's targets).

Imported by ``damage.py --sweep`` (which puts tests/ on the path, for tests/storekit.py); see
that file's docstring for the command line.
"""

from __future__ import annotations

import random
import shutil
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from storekit import Clock, play_with_undos, power_cut

from engine.game import Game
from firmware.store.eventstore import EventStore
from firmware.store.pages import located
from firmware.store.schema import row_crc, undo_crc

NAMES = (["Ann", "Bob"], ["Cat", "Dan", "Eve"], ["Ann", "Bob", "Cat", "Dan"])

Row = tuple[int, str, bool]  # match, line, undone


@dataclass
class SweepTally:
    trials: int = 0
    started: int = 0
    repaired: int = 0
    noted: int = 0  # opened with history put right in place (notes)
    intact_rows: int = 0  # rows of which at least one copy the damage did not touch
    intact_kept: int = 0
    intact_set_aside: int = 0  # kept but set aside (reported): an earlier row of their game
    intact_lost: int = 0  # intact, yet reported lost (e.g. a cut commit frame header)
    damaged_rows: int = 0
    lost_reported: int = 0
    phantom: int = 0  # reported lost, but never existed
    silent_losses: int = 0  # neither kept nor reported
    silent_changes: int = 0  # trials whose game or history changed without a word
    by_file: dict[str, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        out = {k: v for k, v in vars(self).items() if k != "failures"}
        out["started_pct"] = round(100 * self.started / max(self.trials, 1), 2)
        out["intact_kept_pct"] = round(100 * self.intact_kept / max(self.intact_rows, 1), 3)
        out["failures"] = self.failures[:20]
        return out


def build(folder: Path, seed: int) -> dict[int, Row]:
    """Three whole matches (2, 3 and 4 players, an undo in each) left as a power cut leaves
    them: some pages checkpointed into the db, the latest commits in the -wal."""
    folder.mkdir(parents=True)
    rng = random.Random(seed)
    store = EventStore.open(folder / "s.db", clock=Clock())
    store._conn.execute("PRAGMA wal_autocheckpoint = 100")  # noqa: SLF001
    play_with_undos(store, rng, NAMES)
    truth = {e.id: (e.match, e.line, e.undone_at is not None)
             for m in (1, 2, 3) for e in store.events(m, include_undone=True)}
    power_cut(store, folder)  # nothing more checkpointed
    return truth


def copies(folder: Path, truth: dict[int, Row]) -> dict[int, list[tuple[str, int, int]]]:
    """Where each row lies (file name, first byte, last byte + 1): every committed copy."""
    out: dict[int, list[tuple[str, int, int]]] = {}
    for path, start, end, (rowid, values) in located(folder / "s.db", folder / "s.db-wal"):
        if len(values) == 6 and rowid in truth and values[0] is None:
            line = values[2].decode(errors="replace") if isinstance(values[2], bytes) else ""
            at = float(values[4]) if isinstance(values[4], int | float) else 0.0
            if row_crc(rowid, truth[rowid][0], at, line) == values[3]:
                out.setdefault(rowid, []).append((path.name, start, end))
    return out


def history(store: EventStore) -> list[tuple[int, tuple[Any, ...]]]:
    return [(m.id, m.games) for m in store.matches()]


def judge(store: EventStore, truth: dict[int, Row], intact: set[int],
          truth_history: list[tuple[int, tuple[Any, ...]]], tally: SweepTally,
          what: str) -> None:
    """Counts one opened store against the truth."""
    kept = {e.id: (e.match, e.line, e.undone_at is not None)
            for m in range(1, 4) for e in store.events(m, include_undone=True)}
    report = store.recovery
    lost = {e.id: e.why for e in report.lost} if report else {}
    aside = {e.id for e in report.set_aside} if report else set()
    tally.repaired += report is not None
    tally.noted += bool(store.notes)
    problems = []
    tally.intact_rows += len(intact)
    tally.damaged_rows += len(truth) - len(intact)
    tally.lost_reported += len(lost)
    for event_id in lost:
        if event_id not in truth:
            tally.phantom += 1
            problems.append(f"phantom loss {event_id}")
    changed = False
    for event_id, row in truth.items():
        if event_id in kept:
            tally.intact_kept += event_id in intact
            if kept[event_id][:2] != row[:2]:
                changed = True
                problems.append(f"event {event_id} changed")
            elif event_id in aside:
                tally.intact_set_aside += event_id in intact
            elif kept[event_id][2] != row[2] and not (report and report.undos):
                changed = True
                problems.append(f"undo of event {event_id} changed")
        elif event_id in lost:
            tally.intact_lost += event_id in intact
        else:
            tally.silent_losses += 1
            problems.append(f"event {event_id} lost silently")
    matches_hit = {truth[i][0] for i in (*lost, *aside) if i in truth}
    for (match, games), (_, true_games) in zip(history(store), truth_history, strict=False):
        if match in matches_hit or report and report.undos:
            lines = [e.line for e in store.events(match)]
            if games != tuple(_summaries(lines)):
                changed = True
                problems.append(f"match {match}'s history is not its events'")
        elif games != true_games:
            changed = True
            problems.append(f"match {match}'s history changed")
    tally.silent_changes += changed
    if problems:
        tally.failures.append(f"{what}: {', '.join(problems[:3])}")


def _summaries(lines: list[str]) -> list[Any]:
    from firmware.store.eventstore import GameSummary

    game = Game.replay(lines)
    return [GameSummary(g.winner, g.result, g.value, tuple(g.scores)) for g in game.match]


def trial(pristine: Path, work: Path, truth: dict[int, Row],
          where: dict[int, list[tuple[str, int, int]]], damage: Callable[[Path], str | None],
          truth_history: list[tuple[int, tuple[Any, ...]]], tally: SweepTally) -> None:
    shutil.copytree(pristine, work)
    try:
        hit = damage(work)
        what = hit or "edit"
        tally.trials += 1
        intact = set(truth)
        if hit is not None:
            name, _, at = hit.partition(":")
            offset = int(at)
            tally.by_file[name] = tally.by_file.get(name, 0) + 1
            intact = {i for i in truth
                      if any(not (f == name and s <= offset < e) for f, s, e in where.get(i, []))}
        try:
            store = EventStore.open(work / "s.db", clock=Clock())
        except Exception as exc:  # noqa: BLE001 - every way the device fails to start
            tally.failures.append(f"{what}: did not start: {type(exc).__name__}: {exc}")
            return
        with store:
            tally.started += 1
            judge(store, truth, intact, truth_history, tally, what)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def bit_flip(name: str, offset: int, bit: int) -> Callable[[Path], str]:
    def damage(folder: Path) -> str:
        path = folder / name
        data = bytearray(path.read_bytes())
        data[offset] ^= 1 << bit
        path.write_bytes(bytes(data))
        return f"{name}:{offset}"
    return damage


def sql_edit(*statements: str) -> Callable[[Path], None]:
    def damage(folder: Path) -> None:
        conn = sqlite3.connect(folder / "s.db")
        for statement in statements:
            conn.execute(statement)
        conn.commit()
        conn.close()
    return damage


def forged_undos(folder: Path) -> None:
    conn = sqlite3.connect(folder / "s.db")
    last = conn.execute("SELECT max(id) FROM undos").fetchone()[0]
    ends = [e for (e,) in conn.execute("SELECT event FROM games ORDER BY event")]
    for n, event in enumerate(ends[:2], start=last + 1):
        conn.execute("INSERT INTO undos VALUES (?, ?, 5.0, ?)", (n, event, undo_crc(n, event, 5.0)))
    conn.commit()
    conn.close()


def edits(truth: dict[int, Row]) -> list[tuple[str, Callable[[Path], None]]]:
    last = max(truth)
    earlier = max(i for i, row in truth.items() if row[0] == 1)
    return [
        ("undone_at set on the last row", sql_edit(
            f"UPDATE events SET undone_at = 1.0 WHERE id = {last}")),
        ("undone_at set on an earlier game's last row", sql_edit(
            f"UPDATE events SET undone_at = 1.0 WHERE id = {earlier}")),
        ("undone_at cleared", sql_edit("UPDATE events SET undone_at = NULL")),
        ("games winner and scores", sql_edit(
            "UPDATE games SET winner = 'Bob', scores = '[121, 0]' WHERE match = 1")),
        ("DELETE FROM games WHERE match = 2", sql_edit("DELETE FROM games WHERE match = 2")),
        ("matches players", sql_edit("UPDATE matches SET players = '[\"Zed\", \"Bob\"]'")),
        ("DROP TABLE lost", sql_edit("DROP VIEW finished_games", "DROP TABLE lost")),
        ("DELETE FROM derived", sql_edit("DELETE FROM derived")),
        ("last undo deleted", sql_edit("DELETE FROM undos WHERE id = (SELECT max(id) FROM undos)")),
        ("two forged undos", forged_undos),
    ]


def sweep(folder: Path, *, per_page: int, wal: int, mark: int, seed: int, page1: int = 0,
          log: Callable[[str], None] = lambda line: None) -> tuple[SweepTally, SweepTally]:
    """Single bit flips (``per_page`` in every db page and ``page1`` more in the schema
    page, ``wal`` across the -wal, ``mark`` across the mark's slots), then the targeted
    edits; returns (flips, edits)."""
    rng = random.Random(seed)
    pristine = folder / "pristine"
    truth = build(pristine, seed)
    where = copies(pristine, truth)
    with EventStore.open(pristine / "s.db", readonly=True) as store:
        truth_history = history(store)
    flips: list[Callable[[Path], str]] = []
    size = (pristine / "s.db").stat().st_size
    for page in range(size // 4096):
        for _ in range(per_page):
            flips.append(bit_flip("s.db", page * 4096 + rng.randrange(4096), rng.randrange(8)))
    for _ in range(page1):  # the schema page, where one flip used to keep the board down
        flips.append(bit_flip("s.db", rng.randrange(4096), rng.randrange(8)))
    wal_size = (pristine / "s.db-wal").stat().st_size if (pristine / "s.db-wal").exists() else 0
    for _ in range(wal if wal_size else 0):
        flips.append(bit_flip("s.db-wal", rng.randrange(wal_size), rng.randrange(8)))
    mark_size = (pristine / "s.db-mark").stat().st_size
    for _ in range(mark):  # the slots' 60 bytes (the rest of the first block is padding)
        offset = rng.choice((0, 4096)) + rng.randrange(60)
        flips.append(bit_flip("s.db-mark", min(offset, mark_size - 1), rng.randrange(8)))
    flipped, edited = SweepTally(), SweepTally()
    began = time.monotonic()
    for n, damage in enumerate(flips):
        trial(pristine, folder / f"t{n}", truth, where, damage, truth_history, flipped)
        if n % 50 == 49:
            log(f"{n + 1} of {len(flips)} flips, {time.monotonic() - began:.0f} s")
    for n, (what, edit) in enumerate(edits(truth)):
        before = len(edited.failures)
        trial(pristine, folder / f"e{n}", truth, where, edit, truth_history, edited)
        edited.failures[before:] = [f"{what}: {line}" for line in edited.failures[before:]]
    return flipped, edited
