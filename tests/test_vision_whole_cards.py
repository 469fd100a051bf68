"""Whole-card path: card-shaped quadrilaterals, canonical corners, agreeing corner readings."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from engine.cards import Card, Suit
from vision.drawn.cardart import suit_polygons
from vision.drawn.deck_lab import LAB_DECKS, layout_photo
from vision.recognise.classifier import classify
from vision.recognise.deck import suit_cards
from vision.recognise.detection import recognise
from vision.recognise.whole_cards import (
    CANON_H,
    CANON_W,
    _warp,
    _white_balance,
    corner_patches,
    find_card_quads,
    read_card,
)
from vision.training.synth import place, render_card

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


@pytest.mark.parametrize("angle", [0, 37, 250])
def test_the_card_read_the_other_way_up_is_its_warp_turned_half_round(angle: float) -> None:
    # corner_patches warps a card once and turns the canvas for the other corner: that
    # holds only while the canvas is symmetric about its centre.
    img = scene(angle, cast=(0.7, 0.9, 1.05))
    (quad,) = find_card_quads(img)
    turned = cv2.rotate(_warp(img, quad.corners), cv2.ROTATE_180)
    warped = _warp(img, np.roll(quad.corners, -2, axis=0))
    assert np.abs(turned.astype(int) - warped).mean() < 0.5


def test_the_white_balance_scales_each_channel_to_the_paper() -> None:
    # The balance runs through a table of levels; it must give what scaling every pixel
    # of the warped card by its channel's gain gives, to the byte.
    card = cv2.resize(render_card(5, 2), (CANON_W, CANON_H), interpolation=cv2.INTER_AREA)
    raw = np.clip(card * np.array((0.55, 0.85, 1.1)), 0, 255).astype(np.uint8)
    coarse = cv2.resize(raw, (16, 22), interpolation=cv2.INTER_AREA).reshape(-1, 3)
    paper = np.sort(coarse, axis=0)[int(0.9 * len(coarse))].astype(np.float32)
    expected = np.clip(raw.astype(np.float32) * (235.0 / np.maximum(paper, 20.0)), 0, 255)
    assert np.array_equal(_white_balance(raw), expected.astype(np.uint8))


def test_a_rank_and_suit_blurred_into_one_blob_are_cut_as_an_index() -> None:
    # Drawn small, the 2H's and QH's rank and heart touch; read whole, each card of the
    # suit laid out must still show its index, and read as itself.
    img = layout_photo(suit_cards(Suit.HEARTS), LAB_DECKS["small-index"], seed=2)
    read = set()
    for quad in find_card_quads(img):
        patches, ids, _ = corner_patches(img, quad)
        assert len(patches), quad.corners.mean(axis=0)
        s = classify(patches)
        card, conf, _, _ = read_card(s.rank, s.suit, ids)
        read.add(card if conf >= 0.7 else None)
    assert read == set(suit_cards(Suit.HEARTS))


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


def test_court_picture_inside_a_thin_paper_frame_is_a_card() -> None:
    # A court card whose busy picture fills it to within a hair of its edge, on planks
    # whose seams cut the table into strips: the thin paper frame is all the white
    # there is, thinner than the specks the masks are opened against, and the edges
    # of picture and seams enclose no card-shaped region. The frame still runs all round.
    rng = np.random.default_rng(0)
    card = np.full((350, 250, 3), 245, np.uint8)
    blocks = rng.integers(0, 3, (15, 11))
    colours = np.array([[20, 20, 20], [30, 200, 230], [190, 70, 30]], np.uint8)
    card[3:347, 3:247] = colours[np.kron(blocks, np.ones((24, 24), np.int64))][:344, :244]
    img = np.full((720, 1280, 3), (60, 110, 150), np.uint8)
    for seam in range(3):
        img[seam::60] = (20, 50, 80)
    place(img, card, (640, 360), 15, 0.8)
    (quad,) = find_card_quads(img)
    q = quad.corners
    assert np.allclose(q.mean(axis=0), (640, 360), atol=8)
    assert np.hypot(*(q[1] - q[0])) == pytest.approx(250 * 0.8, rel=0.06)
    assert np.hypot(*(q[2] - q[1])) == pytest.approx(350 * 0.8, rel=0.06)


def jumbo_face(rank: str, suit: Suit, ink: tuple[int, int, int]) -> np.ndarray:
    """A jumbo-index card: rank a fifth of the card's height, the suit below it reaching
    nearly halfway down, and nothing else printed."""
    face = np.full((350, 250, 3), 245, np.uint8)
    for _ in range(2):
        cv2.putText(face, rank, (14, 86), cv2.FONT_HERSHEY_DUPLEX, 2.9, ink, 7, cv2.LINE_AA)
        for part in suit_polygons(suit):
            cv2.fillPoly(face, [np.round((40, 130) + 50 * part).astype(np.int32)], ink,
                         cv2.LINE_AA)
        face = np.ascontiguousarray(face[::-1, ::-1])
    return face


@pytest.mark.parametrize(("rank", "suit", "ink", "name"), [
    ("8", Suit.SPADES, (20, 20, 20), "8S"), ("5", Suit.HEARTS, (30, 30, 200), "5H"),
    ("K", Suit.CLUBS, (20, 20, 20), "KC")])
def test_a_jumbo_index_is_found_on_the_card_read_whole(
        rank: str, suit: Suit, ink: tuple[int, int, int], name: str) -> None:
    img = np.full((720, 1280, 3), TABLE, np.uint8)
    place(img, jumbo_face(rank, suit, ink), (640, 360), 10, 0.8)
    quad = max(find_card_quads(img), key=lambda q: abs(cv2.contourArea(q.corners)))
    patches, ids, _ = corner_patches(img, quad)
    assert set(ids.tolist()) == {0, 1}
    s = classify(patches)
    card, conf, _, _ = read_card(s.rank, s.suit, ids)
    # Well past the recogniser's floor (0.6): the CNN trained with squashed patches reads the
    # 8S at 0.94, the KC at 1.0 and this duplex 5 (each corner's rank at 0.7) at 0.86.
    assert card == Card.parse(name) and conf >= 0.8
