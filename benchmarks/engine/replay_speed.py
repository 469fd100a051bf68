"""Times folding event logs through the engine: target 50 ms or less for 1,000 events.

    python benchmarks/engine/replay_speed.py [--json] [--events N]

The log is a simulated match (real random deals, must-play pegging, shows and
cribs) cut to N events, parsed from JSONL text as the device and CLI read it.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

from engine.game import Game
from engine.simulate import simulate_match


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    events = simulate_match(random.Random(0), ["Ann", "Bob", "Cid"], games=8)
    lines = [json.dumps(e) for e in events[: args.events]]
    if len(lines) < args.events:
        raise SystemExit(f"the simulated match has only {len(lines)} events")
    times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        Game.replay(lines)
        times.append(time.perf_counter() - start)
    result = {"events": len(lines), "ms_median": round(statistics.median(times) * 1000, 2),
              "ms_best": round(min(times) * 1000, 2), "target_ms": 50}
    if args.json:
        print(json.dumps(result))
    else:
        print(f"replayed {result['events']} events: median {result['ms_median']} ms, "
              f"best {result['ms_best']} ms (target 50 ms)")


if __name__ == "__main__":
    main()
