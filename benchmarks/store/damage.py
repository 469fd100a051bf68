"""Random damage to the event store at rest: does the device start, keep what is intact and
report every loss?

    python benchmarks/store/damage.py [--trials N] [--seed S] [--json]
    python benchmarks/store/damage.py --sweep [--per-page N] [--wal N] [--mark N] [--json]

Builds stores holding several whole games (2 to 4 players, two matches, an undo) as a
power cut would leave them: the db, its -wal (some with every commit still in the WAL,
some checkpointed as SQLite does by itself) and the store's mark. Each trial copies one,
damages it (bit flips, a zeroed range, a cut of the db or of the -wal, a lost -wal) and
opens it as the device does. Counts: starts (the store opened), rows kept, rows reported
lost, silent losses (a stored row neither kept unchanged nor reported) and changed rows
(kept with other content). Target: every trial starts, 0 silent, 0 changed.

``--sweep`` is issue 51's single-damage sweep (``sweep.py``): a store of three whole matches
(2, 3 and 4 players, an undo in each), some pages checkpointed and the rest in its -wal,
takes one bit flip per trial: ``--per-page`` in every page of the db and ``--page1`` more
in its schema page, ``--wal`` across the -wal, ``--mark`` across the mark's slots (sampled:
every bit would take hours on two shared cores), each opened with ``EventStore.open`` as
``run`` opens it; then the targeted SQL edits (undone_at, games winner and scores, DELETE
FROM games, DROP TABLE lost, an undo removed, two forged undos). Counts: % started; % of
intact rows kept (a row is intact when some committed copy of it in the db or -wal is
untouched; rows of a game after a lost row no longer fold and are kept "set aside", out of
the game, and reported); lost events reported by id; phantom losses (reported ids that
never existed: target 0); silent losses and silent changes (a row, an undo or a game
result changed with no recovery or note saying so: target 0). Exit 1 on any failure.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))

from storekit import Clock, play_with_undos, power_cut  # noqa: E402

from firmware.store.eventstore import EventStore  # noqa: E402


@dataclass
class Tally:
    trials: int = 0
    starts: int = 0
    rows: int = 0
    kept: int = 0
    reported: int = 0
    silent: int = 0
    changed: int = 0
    repaired: int = 0

    def to_json(self) -> dict[str, int]:
        return dict(vars(self))


def build(folder: Path, rng: random.Random, *, whole_wal: bool) -> dict[int, tuple[int, str]]:
    """A store in ``folder`` left as a power cut leaves it; returns id -> (match, line)."""
    folder.mkdir(parents=True)
    store = EventStore.open(folder / "s.db", clock=Clock())
    if whole_wal:
        store._conn.execute("PRAGMA wal_autocheckpoint = 0")  # noqa: SLF001
    players = [["Ann", "Bob"], ["Cat", "Dan", "Eve"], ["Ann", "Bob", "Cat", "Dan"]]
    play_with_undos(store, rng, rng.sample(players, 2))
    rows = {e.id: (e.match, e.line) for m in (1, 2) for e in store.events(m)}
    power_cut(store, folder)  # nothing checkpointed, the WAL left as is
    return rows


def damage(folder: Path, rng: random.Random) -> str:
    db, wal = folder / "s.db", folder / "s.db-wal"
    targets = [db] + ([wal] if wal.exists() and wal.stat().st_size > 32 else [])
    target = rng.choice(targets)
    data = bytearray(target.read_bytes())
    kind = rng.choice(["flips", "zeroes", "cut", "lost_wal"] if target is wal
                      else ["flips", "flips", "zeroes", "cut"])
    if kind == "flips":
        for _ in range(rng.choice([1, 1, 2, 8])):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    elif kind == "zeroes":
        start = rng.randrange(len(data))
        size = rng.choice([1, 16, 512, 4096])
        data[start:start + size] = bytes(len(data[start:start + size]))
    elif kind == "cut":
        data = data[:rng.randrange(len(data))]
    if kind == "lost_wal":
        target.unlink()
    else:
        target.write_bytes(bytes(data))
    return f"{kind} in {target.name}"


def trial(pristine: Path, rows: dict[int, tuple[int, str]], work: Path,
          rng: random.Random, tally: Tally) -> str | None:
    """One damaged copy opened; returns a line describing a failure, or None."""
    shutil.copytree(pristine, work)
    what = damage(work, rng)
    tally.trials += 1
    tally.rows += len(rows)
    try:
        store = EventStore.open(work / "s.db", clock=Clock())
    except Exception as exc:  # noqa: BLE001 - counting every way the device fails to start
        return f"{what}: did not start: {type(exc).__name__}: {exc}"
    with store:
        tally.starts += 1
        tally.repaired += store.recovery is not None
        kept = {e.id: (e.match, e.line) for m in range(1, 3)
                for e in store.events(m, include_undone=True)}
        lost = {e.id for e in store.recovery.lost} if store.recovery else set()
    problems = []
    for event_id, row in rows.items():
        if event_id in kept:
            tally.kept += 1
            if kept[event_id] != row:
                tally.changed += 1
                problems.append(f"event {event_id} changed")
        elif event_id in lost:
            tally.reported += 1
        else:
            tally.silent += 1
            problems.append(f"event {event_id} lost silently")
    return f"{what}: {', '.join(problems[:3])}" if problems else None


def run(trials: int, seed: int) -> tuple[Tally, list[str]]:
    rng = random.Random(seed)
    tally, failures = Tally(), []
    with tempfile.TemporaryDirectory() as tmp:
        stores = []
        for n in range(4):
            folder = Path(tmp) / f"pristine{n}"
            stores.append((folder, build(folder, rng, whole_wal=n % 2 == 0)))
        for n in range(trials):
            pristine, rows = stores[n % len(stores)]
            failure = trial(pristine, rows, Path(tmp) / f"t{n}", rng, tally)
            if failure:
                failures.append(failure)
            shutil.rmtree(Path(tmp) / f"t{n}")
    return tally, failures


def run_sweep(args: argparse.Namespace) -> int:
    from benchmarks.store.sweep import sweep

    began = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        flips, edits = sweep(Path(tmp), per_page=args.per_page, wal=args.wal, mark=args.mark,
                             seed=args.seed, page1=args.page1,
                             log=lambda line: print(line, file=sys.stderr, flush=True))
    seconds = round(time.monotonic() - began, 1)
    result = {"flips": flips.to_json(), "edits": edits.to_json(), "seconds": seconds}
    if args.json:
        print(json.dumps(result))
    else:
        for name, tally in result.items():
            if not isinstance(tally, dict):
                continue
            print(name)
            for key, value in tally.items():
                if key != "failures":
                    print(f"  {key:>17}: {value}")
            for line in tally["failures"]:
                print("  FAIL", line)
        print(f"{seconds} s")
    bad = [t for t in (flips, edits) if t.failures or t.started != t.trials]
    return 1 if bad else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--sweep", action="store_true",
                        help="the single-damage sweep and targeted edits (see above)")
    parser.add_argument("--per-page", type=int, default=6, help="flips in each db page")
    parser.add_argument("--wal", type=int, default=150, help="flips across the -wal")
    parser.add_argument("--mark", type=int, default=40, help="flips across the mark")
    parser.add_argument("--page1", type=int, default=100,
                        help="more flips in the db's first page (the schema)")
    args = parser.parse_args()
    if args.sweep:
        return run_sweep(args)
    tally, failures = run(args.trials, args.seed)
    if args.json:
        print(json.dumps({**tally.to_json(), "failures": failures}))
    else:
        for key, value in tally.to_json().items():
            print(f"{key:>9}: {value}")
        for line in failures[:20]:
            print("FAIL", line)
    return 0 if not failures and tally.starts == tally.trials else 1


if __name__ == "__main__":
    raise SystemExit(main())
