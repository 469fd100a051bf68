"""Store-building helpers shared by the store tests, the CLI tests that read a store, and the
store benchmarks (``benchmarks/store/damage.py`` and ``sweep.py`` put tests/ on their path, as
the club benchmarks do for tests/mqttbroker.py), so that all of them build and inspect stores
one way.
"""

from __future__ import annotations

import random
import shutil
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.simulate import simulate_game, simulate_match
from firmware.store.eventstore import EventStore

__all__ = ["STORE_FILES", "THREE_MATCHES", "Clock", "Logs", "Truth", "copy_store",
           "events_pages", "kept", "play_two_matches", "play_with_undos", "power_cut",
           "three_matches", "two_match_logs"]

Logs = tuple[list[dict[str, Any]], list[dict[str, Any]]]

# A store called s.db and the files beside it that a power cut leaves.
STORE_FILES = ("s.db", "s.db-wal", "s.db-mark")


class Clock:
    """A fake clock: each reading is one second after the last, so every row's time differs
    and no run depends on the real one."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def two_match_logs() -> Logs:
    """A whole match of two games (Ann, Bob) and a three-player game (Cat, Dan, Eve)."""
    return (simulate_match(random.Random(3), ["Ann", "Bob"], games=2),
            simulate_game(random.Random(8), ["Cat", "Dan", "Eve"]))


def play_two_matches(store: EventStore, logs: Logs) -> None:
    """``logs``' first match whole, then the opening of its second as the match in progress
    (its first 20 events)."""
    first, second = logs
    for event in first:
        store.append(event)
    store.start_match(second[0])
    for event in second[1:20]:
        store.append(event)


def play_with_undos(store: EventStore, rng: random.Random,
                    tables: Sequence[list[str]], *, undo_at: int | None = None) -> None:
    """One simulated game for each table of players, each its own match (the first begun
    with ``append``, the rest with ``start_match``), its ``undo_at``-th event (default: its
    middle one) undone and played again."""
    for n, names in enumerate(tables):
        game = simulate_game(rng, names)
        (store.append if n == 0 else store.start_match)(game[0])
        at = len(game) // 2 if undo_at is None else undo_at
        for i, event in enumerate(game[1:], start=1):
            store.append(event)
            if i == at:
                store.undo()
                store.append(event)


def power_cut(store: EventStore, folder: Path) -> None:
    """Leaves ``folder``'s ``STORE_FILES`` as a power cut would: the store's connection
    closed with nothing more checkpointed, the files as they were before it closed."""
    saved = {name: (folder / name).read_bytes() for name in STORE_FILES
             if (folder / name).exists()}
    store._conn.close()  # noqa: SLF001 - no checkpoint, no clean close of the -wal
    for name in STORE_FILES:
        (folder / name).unlink(missing_ok=True)
    for name, data in saved.items():
        (folder / name).write_bytes(data)


def events_pages(path: Path) -> list[tuple[int, str, int]]:
    """(page number, page type, cells) of every page of the store's events table, in key
    order, from SQLite's ``dbstat``; the test skips where this SQLite has none."""
    import pytest

    with sqlite3.connect(path) as conn:
        try:
            pages = conn.execute("SELECT pageno, pagetype, ncell FROM dbstat "
                                 "WHERE name = 'events' ORDER BY path").fetchall()
        except sqlite3.OperationalError:
            pytest.skip("this SQLite has no dbstat table to locate rows by page")
    conn.close()
    return [(int(page), str(kind), int(cells)) for page, kind, cells in pages]


#: The players of ``three_matches``' three matches.
THREE_MATCHES = (["Ann", "Bob"], ["Cat", "Dan", "Eve"], ["Ann", "Bob"])
Truth = dict[int, tuple[int, str, bool]]  # event id -> (match, line, undone)


def kept(store: EventStore) -> Truth:
    """Every row of ``three_matches``' store as the store gives it back, undone ones too."""
    return {e.id: (e.match, e.line, e.undone_at is not None)
            for m in (1, 2, 3) for e in store.events(m, include_undone=True)}


def three_matches(folder: Path, *, seed: int, checkpoint: bool = True) -> Truth:
    """A store ``folder/s.db`` of three whole matches (one game each, an undo in each), all
    in the db file when ``checkpoint``, closed; returns every row. The damage, mishap and
    chain tests each break a copy of it (``copy_store``) and compare what is kept with these
    rows."""
    folder.mkdir(parents=True, exist_ok=True)
    store = EventStore.open(folder / "s.db", clock=Clock())
    play_with_undos(store, random.Random(seed), THREE_MATCHES, undo_at=10)
    truth = kept(store)
    if checkpoint:
        store._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    return truth


def copy_store(pristine: tuple[Path, ...], to: Path) -> Path:
    """A copy at ``to`` of the store folder a module's ``pristine`` fixture built (its first
    item, as ``three_matches`` left it); returns the copy's ``s.db``."""
    shutil.copytree(pristine[0], to)
    return to / "s.db"
