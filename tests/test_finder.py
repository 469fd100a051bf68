"""The learned index finder (vision.recognise.finder): it finds a drawn card's indices at any
angle, its pairs are cut, screened and named as the classic ones are, a table with no card
yields none, and bad input is refused by name."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from engine.cards import Card
from vision.drawn.cardart import CardStyle, index_boxes, render_card
from vision.recognise.candidates import find_candidates
from vision.recognise.classifier import PatchScores, classify
from vision.recognise.detection import CameraRecogniser
from vision.recognise.finder import (
    BAND_ROWS,
    FINDER_PATH,
    FinderError,
    FoundIndices,
    load_finder,
    new_pairs,
)

CARD_PX = 90


def table(size: tuple[int, int] = (480, 640)) -> np.ndarray:
    """A green cloth, lightly grained."""
    rng = np.random.default_rng(5)
    img = np.full((*size, 3), (60, 110, 40), np.uint8)
    noise = rng.normal(0, 4, size).astype(np.float32)
    return np.asarray(np.clip(img + noise[..., None], 0, 255), np.uint8)


def laid_card(card: Card, angle: float, *, height: int = CARD_PX,
              centre: tuple[float, float] = (320, 240)) -> tuple[np.ndarray, np.ndarray]:
    """A table with ``card`` laid at ``centre`` turned ``angle`` degrees, and its two index
    middles (2, 2) in the frame's pixels."""
    face = render_card(card, height=height * 2, style=CardStyle())
    face = cv2.resize(face, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    h, w = face.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    m[:, 2] += np.array(centre) - np.array([w / 2, h / 2])
    frame = table()
    size = (frame.shape[1], frame.shape[0])
    bgr = cv2.warpAffine(face[..., :3], m, size, flags=cv2.INTER_LINEAR)
    alpha = cv2.warpAffine(face[..., 3], m, size, flags=cv2.INTER_LINEAR)[..., None] / 255.0
    out = (bgr * alpha + frame * (1 - alpha)).astype(np.uint8)
    mids = np.array([[(x0 + x1) / 4, (y0 + y1) / 4] for x0, y0, x1, y1
                     in index_boxes(height * 2, CardStyle())])
    return out, mids @ m[:, :2].T + m[:, 2]


def nearest(found: FoundIndices, point: np.ndarray) -> float:
    """The distance from ``point`` to the middle of the nearest found pair."""
    if len(found) == 0:
        return math.inf
    mid = 0.5 * (found.rank_xy + found.suit_xy)
    return float(np.min(np.hypot(*(mid - point).T)))


def test_the_committed_finder_is_there_and_small() -> None:
    assert FINDER_PATH.is_file()
    assert FINDER_PATH.stat().st_size < 200_000


@pytest.mark.parametrize("angle", [0.0, 37.0, 90.0, 150.0, 215.0, 300.0])
def test_finds_both_indices_of_a_drawn_card_at_any_angle(angle: float) -> None:
    image, mids = laid_card(Card.parse("7H"), angle)
    found = load_finder().find(image, CARD_PX)
    span = CARD_PX / 9.2
    for mid in mids:
        assert nearest(found, mid) < 0.6 * span, (angle, mid)
    # Nothing else on the card or the table is taken for an index.
    assert len(found) <= 2 * 4


def test_points_scale_back_to_the_image_given() -> None:
    image, mids = laid_card(Card.parse("KS"), 20.0)
    big = cv2.resize(image, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC)
    found = load_finder().find(big, 2 * CARD_PX)
    assert min(nearest(found, 2 * m) for m in mids) < 0.6 * 2 * CARD_PX / 9.2


def test_a_tall_region_run_in_bands_gives_the_whole_region_maps() -> None:
    """Bands keep peak memory down; each must see enough rows beyond its own cells that the
    maps are the ones the whole region gives, at every band seam."""
    finder = load_finder()
    rng = np.random.default_rng(3)
    rows = 3 * BAND_ROWS + 36  # whole cells, a short last band
    region = np.repeat(np.repeat(rng.integers(0, 256, (rows // 4, 90, 3), np.uint8), 4, 0), 4, 1)
    cv2.GaussianBlur(region, (5, 5), 1.2, dst=region)
    assert np.array_equal(finder.maps(region), finder._maps_of(region))


def test_a_table_with_no_card_yields_no_pairs() -> None:
    assert len(load_finder().find(table(), CARD_PX)) == 0


def test_searched_within_outlines_it_finds_only_what_lies_in_them() -> None:
    image, mids = laid_card(Card.parse("4C"), 30.0)
    h, w = 90.0, 64.0
    card = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    turn = np.radians(-30.0)
    rot = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
    outline = card @ rot.T + (320, 240)
    found = load_finder().find_within(image, CARD_PX, [outline])
    assert max(nearest(found, m) for m in mids) < 0.6 * CARD_PX / 9.2
    assert len(load_finder().find_within(image, CARD_PX, [outline + (250, 0)])) == 0
    assert len(load_finder().find_within(image, CARD_PX, [])) == 0


class _Oracle:
    """A finder that proposes the pair it is given, as the network would."""

    outlines_only = False

    def __init__(self, rank: np.ndarray, suit: np.ndarray) -> None:
        self.rank, self.suit = rank, suit

    def find(self, image: np.ndarray, card_px: float) -> FoundIndices:
        return FoundIndices(self.rank[None].astype(np.float32),
                            self.suit[None].astype(np.float32), np.ones(1, np.float32))


def test_found_pairs_are_cut_screened_and_named_like_classic_ones() -> None:
    # A faded card: at 0.15 of its contrast no classic pair holds the index.
    image, mids = laid_card(Card.parse("9S"), 0.0, height=120)
    card = image[150:330, 220:420].astype(np.float32)
    paper = 240.0
    image[150:330, 220:420] = np.clip(paper - (paper - card) * 0.15, 0, 255).astype(np.uint8)
    span = 120 / 9.2
    rank, suit = mids[0] + (0, -span / 2), mids[0] + (0, span / 2)
    plain = find_candidates(image, card_px=120)
    with_finder = find_candidates(image, card_px=120, finder=_Oracle(rank, suit))  # type: ignore[arg-type]
    assert len(with_finder) == len(plain) + 1
    got = int(np.argmin(np.hypot(*(with_finder.rank_xy - rank).T)))
    assert np.allclose(with_finder.rank_xy[got], rank, atol=0.01)
    cards, conf, _ = PatchScores(*_scores(with_finder.patches[got:got + 1])).best()
    assert cards[0] == Card.parse("9S"), (cards, conf)


def _scores(patches: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = classify(patches)
    return s.rank, s.suit


def test_a_found_pair_the_classic_stage_cut_already_is_dropped() -> None:
    found = FoundIndices(np.array([[10.0, 10.0], [50.0, 50.0]], np.float32),
                         np.array([[10.0, 20.0], [50.0, 60.0]], np.float32),
                         np.ones(2, np.float32))
    rank, _ = new_pairs(found, np.array([[10.5, 15.5]], np.float32))
    assert rank.tolist() == [[50.0, 50.0]]


def test_the_camera_recogniser_reads_a_card_with_the_finder_on() -> None:
    image, _ = laid_card(Card.parse("7H"), 65.0)
    read = CameraRecogniser(finder=True)(image, card_px=CARD_PX)
    assert [d.card for d in read if d.card is not None] == [Card.parse("7H")]


@pytest.mark.parametrize("card_px", [0, -5.0, math.nan, math.inf, True, "90"])
def test_a_card_height_that_sets_no_scale_is_refused(card_px: object) -> None:
    with pytest.raises(FinderError, match="card_px"):
        load_finder().find(table(), card_px)  # type: ignore[arg-type]


def test_what_is_no_image_is_refused() -> None:
    with pytest.raises((TypeError, ValueError), match="IndexFinder"):
        load_finder().find(np.zeros((10, 10), np.float32), CARD_PX)


def test_missing_weights_are_named(tmp_path: object) -> None:
    with pytest.raises(OSError, match="index finder weights not found"):
        load_finder(str(tmp_path) + "/nothing.onnx")
