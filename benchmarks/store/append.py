"""Times EventStore.append (engine check + durable commit) and reopening (verify + replay).

    python benchmarks/store/append.py [--json] [--games N] [--dir DIR]

Appends a simulated two-player match event by event into a fresh store in DIR
(default: a temporary folder; pass a folder on the SD card to measure the card)
and reports the per-event latency (median, p95, max, in milliseconds) with
WAL + synchronous=FULL, the same commits with synchronous=OFF (what the fsync
costs), and the time to open the store again.
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.simulate import simulate_match  # noqa: E402
from firmware.store.eventstore import EventStore  # noqa: E402


def _append_all(path: Path, events: list[dict], *, fsync: bool) -> list[float]:
    store = EventStore.open(path)
    if not fsync:
        store._conn.execute("PRAGMA synchronous=OFF")  # noqa: SLF001 - measuring the fsync
    times = []
    for event in events:
        start = time.perf_counter()
        store.append(event)
        times.append((time.perf_counter() - start) * 1000)
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
        durable = _append_all(Path(folder) / "full.db", events, fsync=True)
        unsynced = _append_all(Path(folder) / "off.db", events, fsync=False)
        start = time.perf_counter()
        EventStore.open(Path(folder) / "full.db").close()
        reopen_ms = (time.perf_counter() - start) * 1000
        size = (Path(folder) / "full.db").stat().st_size
    report = {"events": len(events), "sqlite": sqlite3.sqlite_version,
              "append_full": _summary(durable), "append_sync_off": _summary(unsynced),
              "reopen_ms": round(reopen_ms, 1), "store_bytes": size}
    if args.json:
        print(json.dumps(report))
    else:
        for key, value in report.items():
            print(f"{key:>16}: {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
