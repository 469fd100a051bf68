"""Whole-card path: card-shaped quadrilaterals, canonical corners, agreeing corner readings."""

from __future__ import annotations

import numpy as np
import pytest

from engine.cards import Card
from vision.classifier import classify
from vision.detection import recognise
from vision.training.synth import place, render_card
from vision.whole_cards import corner_patches, find_card_quads, read_card

TABLE = (60, 110, 150)


def scene(angle: float, *, cast: tuple[float, float, float] = (1.0, 1.0, 1.0)) -> np.ndarray:
    img = np.full((720, 1280, 3), TABLE, np.uint8)
    place(img, render_card(5, 2), (640, 360), angle, 0.8)  # six of hearts
    return np.clip(img * np.array(cast), 0, 255).astype(np.uint8)


@pytest.mark.parametrize("angle", [0, 37, 90, 180, 250])
def test_one_quad_per_free_card_short_side_first(angle: float) -> None:
    quads = find_card_quads(scene(angle))
    assert len(quads) == 1
    q = quads[0].corners
    assert np.allclose(q.mean(axis=0), (640, 360), atol=12)
    short, long_ = np.hypot(*(q[1] - q[0])), np.hypot(*(q[2] - q[1]))
    assert 1.25 < long_ / short < 1.6


@pytest.mark.parametrize("gap", [2, 8])
def test_two_cards_a_hair_apart_are_two_quads_not_their_union(gap: int) -> None:
    # Side by side, two cards make a 126 x 88 mm blob: a card's proportions. Some masks
    # merge them across a narrow gap; that union must not count as a third card.
    img = np.full((720, 1280, 3), TABLE, np.uint8)
    ace = render_card(0, 2)
    half = ace.shape[1] * 0.8 / 2 + gap / 2
    place(img, ace, (640 - half, 360), 0, 0.8)
    place(img, render_card(1, 2), (640 + half, 360), 0, 0.8)
    quads = find_card_quads(img)
    centres = sorted(float(q.corners.mean(axis=0)[0]) for q in quads)
    assert len(quads) == 2
    assert np.allclose(centres, (640 - half, 640 + half), atol=12)
    assert {d.card for d in recognise(img)} == {Card.parse("AH"), Card.parse("2H")}


@pytest.mark.parametrize("angle", [0, 37, 180, 250])
def test_corners_read_the_card(angle: float) -> None:
    img = scene(angle)
    (quad,) = find_card_quads(img)
    patches, ids, orients = corner_patches(img, quad)
    assert len(patches) and len(orients) == 2
    s = classify(patches)
    card, conf, has_index, k = read_card(s.rank, s.suit, ids)
    assert has_index and card == Card.parse("6H") and conf >= 0.7


def test_warm_room_light_is_balanced_away() -> None:
    dets = recognise(scene(20, cast=(0.55, 0.85, 1.1)))
    assert {d.card for d in dets if d.card is not None} == {Card.parse("6H")}


def test_disagreeing_corners_name_nothing() -> None:
    rank = np.zeros((2, 14), np.float32)
    suit = np.zeros((2, 5), np.float32)
    rank[0, 5], suit[0, 2] = 0.99, 0.99  # 6H at one corner
    rank[1, 8], suit[1, 2] = 0.99, 0.99  # 9H at the other
    card, _, has_index, _ = read_card(rank, suit, np.array([0, 1]))
    assert card is None and has_index


def test_blank_card_shape_is_not_a_card() -> None:
    img = np.full((720, 1280, 3), TABLE, np.uint8)
    place(img, np.full((350, 250, 3), 245, np.uint8), (640, 360), 15, 0.8)
    assert find_card_quads(img)  # it is card-shaped ...
    assert recognise(img) == []  # ... but shows no index
