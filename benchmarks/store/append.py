"""Times EventStore.append (engine check + durable commit) and reopening (verify + replay).

    python benchmarks/store/append.py [--json] [--games N] [--dir DIR]

Appends a simulated two-player match event by event into a fresh store in DIR
(default: a temporary folder; pass a folder on the SD card to measure the card)
and reports the per-event latency (median, p95, max, in milliseconds) with
WAL + synchronous=FULL, the same commits with synchronous=OFF (what the fsync
costs), and the time to open the store again.

The second copy's cost (issue 60): the same events go, in lock-step (each event to every
store in turn, starting one further each time, so a card or host that slows down slows all
of them alike), into a store whose copy is flushed beside SQLite's commit (as the device
does: ``append_full``), one whose copy is flushed after the commit (``append_copy_after``:
how the copy was first written) and one with no second copy at all (``append_no_copy``).
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.simulate import simulate_match  # noqa: E402
from firmware.store.eventstore import EventStore  # noqa: E402


def _after_commit(store: EventStore) -> None:
    """Makes ``store`` flush its copy after SQLite's commit, not beside it."""
    copy = store._copy  # noqa: SLF001 - measuring the copy's flush
    assert copy is not None

    def begin(line: bytes) -> Future[int]:
        # Written and flushed here, in series with SQLite's commit (just before it: the same
        # two flushes one after the other), never through ``copy.begin``: that is this patched
        # one, and the RecursionError would pass for a failed copy (nothing written).
        done: Future[int] = Future()
        done.set_result(copy._write(line))  # noqa: SLF001
        return done

    copy.begin = begin  # type: ignore[method-assign]


def _no_copy(store: EventStore) -> None:
    copy = store._copy  # noqa: SLF001 - measuring without the second copy
    assert copy is not None
    copy.close()
    store._copy = None  # noqa: SLF001


def _off(store: EventStore) -> None:
    store._conn.execute("PRAGMA synchronous=OFF")  # noqa: SLF001 - measuring the fsync


def _append_all(folder: Path, events: list[dict[str, Any]]) -> dict[str, list[float]]:
    """Every event into each kind of store in turn; per kind, each append's milliseconds."""
    kinds: dict[str, Callable[[EventStore], None]] = {
        "full": lambda store: None, "copy_after": _after_commit, "no_copy": _no_copy,
        "sync_off": _off}
    stores = {}
    for name, setup in kinds.items():
        stores[name] = EventStore.open(folder / f"{name}.db")
        setup(stores[name])
    times: dict[str, list[float]] = {name: [] for name in kinds}
    order = list(stores.items())
    for n, event in enumerate(events):
        # Each event starts at the next kind: none always follows the same neighbour.
        for name, store in order[n % len(order):] + order[:n % len(order)]:
            start = time.perf_counter()
            store.append(event)
            times[name].append((time.perf_counter() - start) * 1000)
    for store in stores.values():
        store.close()
    return times


def _summary(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {"median_ms": round(statistics.median(ordered), 3),
            "p95_ms": round(ordered[int(len(ordered) * 0.95)], 3),
            "max_ms": round(ordered[-1], 3)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args()
    events = simulate_match(random.Random(0), ["Ann", "Bob"], games=args.games)
    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        times = _append_all(Path(folder), events)
        start = time.perf_counter()
        EventStore.open(Path(folder) / "full.db").close()
        reopen_ms = (time.perf_counter() - start) * 1000
        size = (Path(folder) / "full.db").stat().st_size
    report = {"events": len(events), "sqlite": sqlite3.sqlite_version,
              "append_full": _summary(times["full"]),
              "append_copy_after": _summary(times["copy_after"]),
              "append_no_copy": _summary(times["no_copy"]),
              "append_sync_off": _summary(times["sync_off"]),
              "reopen_ms": round(reopen_ms, 1), "store_bytes": size}
    if args.json:
        print(json.dumps(report))
    else:
        for key, value in report.items():
            print(f"{key:>16}: {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
