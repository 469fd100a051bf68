"""A card that fills up during play: does the store refuse cleanly, lose nothing it
acknowledged, and take events again once space frees, without a restart?

    python benchmarks/store/full_disk.py [--dir DIR] [--games N] [--seed S] [--json]

``--dir`` should be a small file system of its own, larger than the store's -wal grows
before its checkpoint (4 MB; as root: ``mount -t tmpfs -o size=8m tmpfs DIR``); the run
fills it with a filler file until appends fail, frees the filler, goes on, and does that
again, through whole games. Without ``--dir`` it runs in a temporary folder with SQLite's
``max_page_count`` standing in for a full card. Counts: events acknowledged, refusals
(StorageFull), other exceptions (tracebacks: target 0), acknowledged events missing after
a reopen (target 0), and refused events taken once space freed. Exit 1 on a failure.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.simulate import simulate_game  # noqa: E402
from firmware.store.eventstore import EventStore, StorageFull  # noqa: E402


def fill(folder: Path) -> Path:
    """Fills the file system of ``folder`` (a filler file, 4 KiB at a time)."""
    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        while True:
            try:
                os.write(fd, b"\0" * 4096)
            except OSError as exc:
                if exc.errno != errno.ENOSPC:
                    raise
                break
    finally:
        os.close(fd)
    return filler


def run(folder: Path, games: int, seed: int, *, tmpfs: bool) -> dict[str, Any]:
    rng = random.Random(seed)
    tally = {"games": games, "acknowledged": 0, "refusals": 0, "tracebacks": 0,
             "lost_after_reopen": 0, "retaken": 0, "fills": 0}
    store = EventStore.open(folder / "events.sqlite3")
    acknowledged: list[str] = []
    filler: Path | None = None
    for number in range(games):
        events = simulate_game(rng, ["Ann", "Bob"])
        for i, event in enumerate(events):
            if i == len(events) // 3 or i == 2 * len(events) // 3:  # the card fills up
                tally["fills"] += 1
                if tmpfs:
                    filler = fill(folder)
                else:
                    pages = store._conn.execute("PRAGMA page_count").fetchone()[0]  # noqa: SLF001
                    store._conn.execute(f"PRAGMA max_page_count = {pages}")  # noqa: SLF001
            freed = False
            while True:
                try:
                    appended = (store.start_match if i == 0 and number else store.append)(event)
                except StorageFull:
                    tally["refusals"] += 1
                    if tmpfs and filler is not None:  # someone frees space
                        filler.unlink()
                        filler = None
                    elif not tmpfs and not freed:
                        store._conn.execute("PRAGMA max_page_count = 1073741823")  # noqa: SLF001
                    else:  # full with nothing left to free: the store itself filled it
                        raise SystemExit(f"{folder} is too small for the store: use a "
                                         "larger file system") from None
                    freed = True
                    tally["retaken"] += 1
                    continue
                except Exception:  # noqa: BLE001 - what the issue calls a traceback
                    tally["tracebacks"] += 1
                    raise
                acknowledged.append(f"{appended.id}")
                tally["acknowledged"] += 1
                break
        if filler is not None:
            filler.unlink()
            filler = None
    ids = {e.id for m in store.matches() for e in store.events(m.id, include_undone=True)}
    store.close()
    with EventStore.open(folder / "events.sqlite3") as again:
        kept = {e.id for m in again.matches() for e in again.events(m.id, include_undone=True)}
        tally["lost_after_reopen"] = sum(int(i) not in kept for i in acknowledged)
        tally["repaired_on_reopen"] = again.recovery is not None
    tally["lost_before_reopen"] = sum(int(i) not in ids for i in acknowledged)
    return tally


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=None)
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.dir is not None:
        tally = run(args.dir, args.games, args.seed, tmpfs=True)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            tally = run(Path(tmp), args.games, args.seed, tmpfs=False)
    if args.json:
        print(json.dumps(tally))
    else:
        for key, value in tally.items():
            print(f"{key:>20}: {value}")
    bad = tally["tracebacks"] or tally["lost_after_reopen"] or tally["repaired_on_reopen"] \
        or tally["refusals"] == 0
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
