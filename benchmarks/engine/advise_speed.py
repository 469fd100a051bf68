"""Times ``engine.advise.rank_discards`` per dealt hand, one core.

    python benchmarks/engine/advise_speed.py [--hands N] [--json]

"cold" is the first hand after emptying the engine's table of rank patterns
(the device's first advice after boot); "median" and "worst" are over N random
hands (seed 0) once the table has filled, per players count. The target is at
most 100 ms for a six-card two-player hand here; a Pi 4 core is about 3.5x slower.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

import engine.show
from engine.advise import dealt_size, rank_discards
from engine.cards import DECK


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rng = random.Random(0)
    report: dict[str, dict[str, float]] = {}
    for players in (2, 3, 4):
        engine.show._RANK_PARTS.clear()
        hands = [rng.sample(DECK, dealt_size(players)) for _ in range(args.hands)]
        times = []
        for i, hand in enumerate(hands):
            start = time.perf_counter()
            rank_discards(hand, dealer=bool(i % 2), players=players)
            times.append((time.perf_counter() - start) * 1000)
        report[f"{players}_players"] = {
            "ms_cold": round(times[0], 1),
            "ms_median": round(statistics.median(times[1:]), 1),
            "ms_worst": round(max(times[1:]), 1),
        }
    if args.json:
        print(json.dumps(report))
        return
    for name, row in report.items():
        print(f"{name:>10}: cold {row['ms_cold']:6.1f} ms, median {row['ms_median']:5.1f} ms, "
              f"worst {row['ms_worst']:5.1f} ms")


if __name__ == "__main__":
    main()
