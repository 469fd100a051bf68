"""Measures microseconds per show for ``engine.show.score_show`` and ``show_total``.

    python benchmarks/engine/show_speed.py [--json] [--shows N]

Scores the same N random (hand, starter) pairs (seed 0) with each function and
reports the best of five passes, per show. "cold" is the first pass after
emptying the engine's table of rank patterns, so every new pattern is scored
from scratch; "warm" is the steady state on the device once patterns repeat.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import timeit
from collections.abc import Callable, Sequence

import engine.show
from engine.cards import DECK, Card
from engine.show import parse_show, score_show, show_total

Show = tuple[Sequence[Card], Card]


def random_shows(count: int, seed: int = 0) -> list[Show]:
    rng = random.Random(seed)
    shows: list[Show] = []
    for _ in range(count):
        cards = rng.sample(DECK, 5)
        shows.append((cards[:4], cards[4]))
    return shows


def per_show_us(scorer: Callable[..., object], shows: list[Show], repeat: int = 5) -> float:
    def one_pass() -> None:
        for hand, starter in shows:
            scorer(hand, starter)

    return min(timeit.repeat(one_pass, number=1, repeat=repeat)) / len(shows) * 1e6


def cold_per_show_us(scorer: Callable[..., object], shows: list[Show]) -> float:
    # Reaches into the engine's private cache on purpose: the worst case is a pattern
    # the device has never seen.
    engine.show._RANK_PARTS.clear()
    started = time.perf_counter()
    for hand, starter in shows:
        scorer(hand, starter)
    return (time.perf_counter() - started) / len(shows) * 1e6


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--shows", type=int, default=20_000, help="random shows per pass")
    args = parser.parse_args(argv)
    shows = random_shows(args.shows)
    best: list[Show] = [parse_show("5H 5C 5S JD | 5D")] * 1000
    result = {
        "shows": args.shows,
        "score_show_cold_us": round(cold_per_show_us(score_show, shows), 2),
        "show_total_cold_us": round(cold_per_show_us(show_total, shows), 2),
        "score_show_us": round(per_show_us(score_show, shows), 2),
        "show_total_us": round(per_show_us(show_total, shows), 2),
        "score_show_29_us": round(per_show_us(score_show, best), 2),  # the most items
        "show_total_29_us": round(per_show_us(show_total, best), 2),
        "python": sys.version.split()[0],
    }
    if args.json:
        sys.stdout.write(json.dumps(result) + "\n")
    else:
        for key, value in result.items():
            print(f"{key:>20}: {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
