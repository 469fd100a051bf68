"""Every one of the 12,994,800 (hand, starter) shows against the published distribution.

The scores come from ``benchmarks/engine/show_distribution.py``, which scores each show
in numpy from the engine's own rank table (``rank_points_table``, filled by the
engine's scorer) and ``flush_points``; the tests below also check that path
against ``score_show`` itself, show by show, on a sample and on every four-card
flush, so the arrays cannot drift from the engine.
"""

from __future__ import annotations

import itertools
import json
import random
from types import ModuleType

import numpy as np
import pytest
from benchscripts import load_benchmark

from engine.cards import DECK
from engine.show import score_show, show_total
from engine.stats import HAND_DISTRIBUTION

pytestmark = pytest.mark.slow

SHOWS = 12_994_800

# Steven S. Lumetta's published table, as the engine keeps it for the coach's histogram.
PUBLISHED_HAND = dict(HAND_DISTRIBUTION)
# Crib rules (only a five-card flush). Computed by the engine; its zero count,
# 1,022,208, is the one Wikipedia's "Cribbage statistics" gives for the crib, and
# test_crib_table_is_the_hand_table_less_the_four_flushes derives the whole table
# from the published hand table by scoring each four-card flush with score_show.
CRIB = {
    0: 1_022_208, 1: 99_792, 2: 2_839_800, 3: 508_908, 4: 2_868_960, 5: 703_496,
    6: 1_787_176, 7: 755_320, 8: 1_118_336, 9: 358_368, 10: 378_240, 11: 43_880,
    12: 310_956, 13: 16_548, 14: 88_132, 15: 9_072, 16: 57_288, 17: 11_196, 18: 2_264,
    19: 0, 20: 7_828, 21: 2_472, 22: 444, 23: 356, 24: 3_680, 25: 0, 26: 0, 27: 0,
    28: 76, 29: 4,
}


@pytest.fixture(scope="module")
def benchmark() -> ModuleType:
    return load_benchmark("engine/show_distribution")


@pytest.fixture(scope="module")
def scored(benchmark: ModuleType) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    hands = benchmark.all_hands()
    hand_scores, crib_scores = benchmark.score_every_show(hands)
    return hands, hand_scores, crib_scores


def counts(scores: np.ndarray) -> dict[int, int]:
    found = np.bincount(scores[scores >= 0].astype(np.intp), minlength=30)
    assert len(found) == 30
    return dict(enumerate(found.tolist()))


def test_the_tables_add_up() -> None:
    assert sum(PUBLISHED_HAND.values()) == SHOWS
    assert sum(CRIB.values()) == SHOWS
    assert [s for s, n in PUBLISHED_HAND.items() if n == 0] == [19, 25, 26, 27]


def test_every_pair_is_scored_once(scored: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    hands, hand_scores, crib_scores = scored
    assert hands.shape == (270_725, 4)
    assert len({tuple(row) for row in hands[::997].tolist()}) == len(hands[::997])
    for scores in (hand_scores, crib_scores):
        assert int((scores >= 0).sum()) == SHOWS
        assert int(scores.max()) == 29


def test_hand_distribution_is_the_published_one(
    scored: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> None:
    assert counts(scored[1]) == PUBLISHED_HAND


def test_crib_distribution(scored: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    assert counts(scored[2]) == CRIB


def test_crib_table_is_the_hand_table_less_the_four_flushes() -> None:
    # Hand and crib differ only where four hand cards share a suit the starter lacks:
    # 4 suits x C(13, 4) hands x 39 starters. Score each with the itemised engine.
    crib = dict(PUBLISHED_HAND)
    flushes = 0
    for suit in range(4):
        same_suit = DECK[suit * 13:(suit + 1) * 13]
        others = [card for card in DECK if card.suit is not same_suit[0].suit]
        for hand in itertools.combinations(same_suit, 4):
            for starter in others:
                score = score_show(hand, starter)
                assert score.flush == 4
                crib[score.total] -= 1
                crib[score.total - 4] += 1
                flushes += 1
    assert flushes == 4 * 715 * 39
    assert crib == CRIB


def test_arrays_agree_with_the_engine_show_by_show(
    scored: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> None:
    hands, hand_scores, crib_scores = scored
    rng = random.Random(12_994_800)
    for _ in range(20_000):
        row = rng.randrange(len(hands))
        hand = [DECK[i] for i in hands[row].tolist()]
        starter_index = rng.randrange(52)
        if starter_index in hands[row]:
            assert hand_scores[row, starter_index] == crib_scores[row, starter_index] == -1
            continue
        starter = DECK[starter_index]
        assert hand_scores[row, starter_index] == show_total(hand, starter), (hand, starter)
        assert crib_scores[row, starter_index] == score_show(hand, starter, crib=True).total


def test_benchmark_prints_the_contract_json(
    benchmark: ModuleType, capsys: pytest.CaptureFixture[str],
) -> None:
    assert benchmark.main(["--json"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    data = json.loads(out)
    assert list(data) == ["hand", "crib", "seconds"]
    assert data["hand"] == {str(score): n for score, n in PUBLISHED_HAND.items()}
    assert data["crib"] == {str(score): n for score, n in CRIB.items()}
    assert isinstance(data["seconds"], float) and data["seconds"] > 0
