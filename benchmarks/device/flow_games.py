"""Random whole games through the table flow and the event store (issue 42's target: 0 stuck,
0 lost over at least 10,000 games).

    .venv/bin/python benchmarks/device/flow_games.py --games 10000 [--seed 42] [--json]

Plays the games of ``tests/flowgames.py`` (the property test's random table) in a
folder under /dev/shm where there is one, and prints the tally and the time taken.
Exit status 1 when any game stuck, lost an event, misscored, or an input went unanswered.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
from flowgames import PER_STORE, Tally, play_games  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--store", type=int, default=1,
                        help="start at this store of the run (a crash names its store)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    began = time.perf_counter()

    def progress(tally: Tally) -> None:
        if not args.json:
            print(f"  {tally.games} games, {time.perf_counter() - began:.0f} s: "
                  f"stuck {tally.stuck}, lost {tally.lost}", file=sys.stderr, flush=True)

    shm = Path("/dev/shm")
    with tempfile.TemporaryDirectory(dir=shm if shm.is_dir() else None) as name:
        tally = play_games(Path(name), games=args.games, seed=args.seed, first_store=args.store,
                           progress=progress if args.games >= 100 else None)
    seconds = time.perf_counter() - began
    figures = {**tally.figures(), "seconds": round(seconds, 1), "seed": args.seed}
    if args.json:
        print(json.dumps({**figures, "problems": tally.problems}))
    else:
        print(", ".join(f"{k} {v}" for k, v in figures.items()))
        for problem in tally.problems:
            print("  " + problem)
    bad = tally.stuck + tally.lost + tally.silent + tally.misscored
    expected = max(0, args.games - (args.store - 1) * PER_STORE)  # the stores skipped
    return 1 if bad or tally.games != expected else 0


if __name__ == "__main__":
    raise SystemExit(main())
