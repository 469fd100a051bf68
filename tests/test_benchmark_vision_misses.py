"""The miss benchmark's geometry: where a card's two corner indices are, and which show."""

from __future__ import annotations

import numpy as np
from benchscripts import load_benchmark

vision_misses = load_benchmark("vision/misses")
index_quads, shown_indices = vision_misses.index_quads, vision_misses.shown_indices


def test_a_cards_indices_lie_in_its_top_left_and_bottom_right_corners() -> None:
    upright = np.array([[0, 0], [100, 0], [100, 140], [0, 140]], np.float64)
    top_left, bottom_right = index_quads(upright)
    assert np.allclose(top_left.min(0), [0, 0]) and np.allclose(top_left.max(0), [25, 49])
    assert np.allclose(bottom_right.min(0), [75, 91])
    assert np.allclose(bottom_right.max(0), [100, 140])
    # Turned a half turn, the card reads upright from the other side: the corners swap.
    turned = index_quads(np.roll(upright, 2, axis=0))
    assert np.allclose(turned[0].min(0), [75, 91]) and np.allclose(turned[1].max(0), [25, 49])


def test_an_index_under_a_card_above_does_not_show() -> None:
    card = np.array([[10, 10], [110, 10], [110, 150], [10, 150]], np.float64)
    over_its_top = np.array([[0, 0], [60, 0], [60, 70], [0, 70]], np.float64)
    beside = np.array([[300, 0], [400, 0], [400, 140], [300, 140]], np.float64)
    quads = index_quads(card)
    assert len(shown_indices(quads, [beside], (640, 480))) == 2
    shown = shown_indices(quads, [over_its_top, beside], (640, 480))
    assert len(shown) == 1 and np.allclose(shown[0], quads[1])
