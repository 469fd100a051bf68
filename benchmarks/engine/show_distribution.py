"""Scores the show of every (four-card hand, starter) pair, as a hand and as a crib.

All 270,725 hands x 48 starters = 12,994,800 shows are scored one by one in
numpy arrays, from the engine's own rules: the fifteens, pairs and runs come
from ``engine.show.rank_points_table()`` (filled by the engine's scorer), the
flush from ``engine.show.flush_points``, and his nobs is a hand jack of the
starter's suit. No show is inferred from another by suit symmetry.

    python benchmarks/engine/show_distribution.py [--json]

prints ``{"hand": {"0": n, ..., "29": n}, "crib": {...}, "seconds": s}`` with
``seconds`` the wall time of building the tables and scoring every show.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from collections.abc import Sequence
from math import comb

import numpy as np

from engine.cards import DECK, Rank, Suit
from engine.show import flush_points, rank_points_table, rank_table_index

SHOWS = comb(52, 4) * 48
MAX_SCORE = 29
NOT_A_SHOW = -1  # where the "starter" is one of the hand's own cards

# Card index i (engine's Card.index, 0..51) -> rank 1..13 and suit 0..3.
CARD_RANK = np.array([int(card.rank) for card in DECK], dtype=np.intp)
CARD_SUIT = np.array([list(Suit).index(card.suit) for card in DECK], dtype=np.intp)


def all_hands() -> np.ndarray:
    """Every four-card hand as four ascending card indices, shape (270725, 4)."""
    flat = itertools.chain.from_iterable(itertools.combinations(range(52), 4))
    return np.fromiter(flat, dtype=np.intp, count=comb(52, 4) * 4).reshape(-1, 4)


def _rank_part_by_hand_ranks() -> np.ndarray:
    """(13**4, 13) array: fifteens+pairs+runs for sorted hand ranks (base 13) and a
    starter rank, read from the engine's table of five ranks."""
    table = rank_points_table()
    by_hand = np.zeros((13**4, 13), dtype=np.int8)
    for hand_ranks in itertools.combinations_with_replacement(range(1, 14), 4):
        row = by_hand[rank_table_index(hand_ranks)]
        for starter in range(1, 14):
            if hand_ranks.count(starter) < 4:
                row[starter - 1] = table[rank_table_index(sorted((*hand_ranks, starter)))]
    return by_hand


def _flush_table(*, crib: bool) -> np.ndarray:
    """(2, 2) array: flush points by [four hand cards one suit, starter matches]."""
    hearts, spades = Suit.HEARTS, Suit.SPADES
    table = np.zeros((2, 2), dtype=np.int8)
    for four, matches in itertools.product((0, 1), repeat=2):
        suits = [hearts] * 4 if four else [hearts, hearts, hearts, spades]
        table[four, matches] = flush_points(suits, hearts if matches else spades, crib=crib)
    return table


def score_every_show(hands: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Scores each hand with each of the 52 cards as starter: (hand, crib) arrays of
    shape (len(hands), 52), holding NOT_A_SHOW where the starter is in the hand."""
    ranks = CARD_RANK[hands]
    suits = CARD_SUIT[hands]
    sorted_ranks = np.sort(ranks, axis=1)
    hand_code = ((sorted_ranks[:, 0] * 13 + sorted_ranks[:, 1]) * 13 + sorted_ranks[:, 2]) * 13
    hand_code += sorted_ranks[:, 3] - (((1 * 13 + 1) * 13 + 1) * 13 + 1)
    # Fifteens, pairs and runs of every (hand, starter card).
    rank_part = _rank_part_by_hand_ranks()[hand_code][:, CARD_RANK - 1]

    four = (suits == suits[:, :1]).all(axis=1)
    matches = CARD_SUIT[np.newaxis, :] == suits[:, :1]

    # His nobs: a hand jack whose suit is the starter's.
    jack_suits = np.zeros((len(hands), 4), dtype=np.int8)
    rows = np.arange(len(hands))
    for position in range(4):
        is_jack = ranks[:, position] == Rank.JACK
        jack_suits[rows[is_jack], suits[is_jack, position]] = 1
    base = rank_part + jack_suits[:, CARD_SUIT]

    in_hand = np.zeros(base.shape, dtype=bool)
    np.put_along_axis(in_hand, hands, True, axis=1)
    results = []
    for crib in (False, True):
        flush = _flush_table(crib=crib)
        scores = base.copy()
        for four_of_a_suit in (0, 1):
            picked = four == four_of_a_suit
            scores[picked] += flush[four_of_a_suit][matches[picked].astype(np.intp)]
        scores[in_hand] = NOT_A_SHOW
        results.append(scores)
    return results[0], results[1]


def distribution(scores: np.ndarray) -> dict[str, int]:
    """Counts shows by score, every score 0..29 present."""
    counts = np.bincount((scores.ravel() + 1).view(np.uint8), minlength=MAX_SCORE + 2)
    if len(counts) > MAX_SCORE + 2:
        raise AssertionError(f"a show scored over {MAX_SCORE}")
    return {str(score): int(counts[score + 1]) for score in range(MAX_SCORE + 1)}


def run() -> dict[str, object]:
    started = time.perf_counter()
    hand_scores, crib_scores = score_every_show(all_hands())
    result: dict[str, object] = {
        "hand": distribution(hand_scores),
        "crib": distribution(crib_scores),
    }
    result["seconds"] = round(time.perf_counter() - started, 3)
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    result = run()
    for table in ("hand", "crib"):
        counts = result[table]
        assert isinstance(counts, dict)
        if sum(counts.values()) != SHOWS:
            raise AssertionError(f"{table}: scored {sum(counts.values())} shows, not {SHOWS}")
    if args.json:
        sys.stdout.write(json.dumps(result) + "\n")
        return 0
    hand, crib = result["hand"], result["crib"]
    assert isinstance(hand, dict) and isinstance(crib, dict)
    print(f"{'score':>5} {'hand':>10} {'crib':>10}")
    for score in hand:
        print(f"{score:>5} {hand[score]:>10,} {crib[score]:>10,}")
    print(f"{SHOWS:,} shows each, scored in {result['seconds']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
