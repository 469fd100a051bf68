"""recognise(): synthetic scenes (turns, scale, light, blur), non-cards, real test photos."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

import vision.recognise.candidates
from engine.cards import Card
from vision.measure.datasets import datasets_root
from vision.recognise.candidates import IndexCandidates
from vision.recognise.classifier import PatchScores
from vision.recognise.detection import (
    CORROBORATED_FLOOR,
    DEFAULT_MIN_CONFIDENCE,
    Detection,
    card_outline,
    index_centres,
    recognise,
)
from vision.training.synth import place, render_card

TABLE = (60, 110, 150)
SIX_H, TEN_C, QUEEN_D = Card.parse("6H"), Card.parse("10C"), Card.parse("QD")


def table(size: tuple[int, int] = (720, 1280)) -> np.ndarray:
    rng = np.random.default_rng(0)
    img = np.full((*size, 3), TABLE, np.float32)
    img += rng.normal(0, 4, img.shape)  # a little grain
    return np.clip(img, 0, 255).astype(np.uint8)


def three_cards(
    angle: float = 0.0, scale: float = 0.5, size: tuple[int, int] = (720, 1280)
) -> np.ndarray:
    img = table(size)
    h, w = size
    for k, (rank, suit) in enumerate(((5, 2), (9, 0), (11, 1))):
        place(
            img, render_card(rank, suit), (w * (k + 1) / 4, h / 2), angle + 25 * k, scale * h / 720
        )
    return img


def found(img: np.ndarray) -> set[Card]:
    return {d.card for d in recognise(img) if d.card is not None}


def test_detection_is_typed_and_frozen() -> None:
    dets = recognise(three_cards())
    assert dets, "nothing found in a clean synthetic scene"
    d = dets[0]
    assert isinstance(d, Detection)
    assert len(d.corners) == 4 and all(len(p) == 2 for p in d.corners)
    assert all(isinstance(v, float) for p in d.corners for v in p)
    assert 0.0 <= d.confidence <= 1.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.confidence = 0.5  # type: ignore[misc]


def test_finds_three_cards_with_outlines_around_them() -> None:
    img = three_cards()
    dets = [d for d in recognise(img) if d.card is not None]
    assert {d.card for d in dets} == {SIX_H, TEN_C, QUEEN_D}
    for d in dets:
        centre = np.mean(d.corners, axis=0)
        assert 150 < centre[1] < 570  # the cards lie across the middle of the frame


@pytest.mark.parametrize("angle", [0, 60, 90, 135, 180, 270, 300])
def test_any_rotation_never_a_wrong_card(angle: float) -> None:
    got = found(three_cards(angle))
    assert got <= {SIX_H, TEN_C, QUEEN_D}
    assert len(got) >= 2


@pytest.mark.parametrize("scale", [0.35, 0.5, 0.8])
@pytest.mark.parametrize("size", [(480, 640), (720, 1280)])
def test_scale_relative_to_frame(scale: float, size: tuple[int, int]) -> None:
    got = found(three_cards(10, scale, size))
    assert got <= {SIX_H, TEN_C, QUEEN_D}
    assert len(got) >= 2


def close_up(scale: float = 3.0) -> np.ndarray:
    """A 6H so close to the camera that only its top-left corner shows: the index glyphs
    span about 15 % of the frame's shorter side, as in a phone shot a hand's width away."""
    img = table()
    card = render_card(5, 2)
    h, w = card.shape[:2]
    # The card's top-left corner at (450, 120); the rest runs off the frame.
    place(img, card, (450 + scale * w / 2, 120 + scale * h / 2), 0.0, scale)
    return img


def test_a_close_up_corner_is_read() -> None:
    assert found(close_up()) == {SIX_H}


def test_glyphs_past_the_size_limit_are_not_read(monkeypatch: pytest.MonkeyPatch) -> None:
    # The counterpart of the test above: below the close-up's glyph size the index is lost.
    monkeypatch.setattr(vision.recognise.candidates, "MAX_GLYPH", 0.13)
    assert found(close_up()) == set()


@pytest.mark.parametrize("gain,offset", [(0.45, 0), (0.7, -20), (1.3, 30)])
def test_brightness(gain: float, offset: float) -> None:
    img = np.clip(three_cards(15).astype(np.float32) * gain + offset, 0, 255).astype(np.uint8)
    got = found(img)
    assert got <= {SIX_H, TEN_C, QUEEN_D}
    assert len(got) >= 2


@pytest.mark.parametrize("sigma", [1.0, 1.8])
def test_blur(sigma: float) -> None:
    img = cv2.GaussianBlur(three_cards(15), (0, 0), sigma)
    got = found(img)
    assert got <= {SIX_H, TEN_C, QUEEN_D}
    assert len(got) >= 2


def test_blank_table_has_no_cards() -> None:
    assert recognise(table()) == []


def test_card_back_is_not_a_card() -> None:
    img = table()
    back = np.full((350, 250, 3), 245, np.uint8)
    yy, xx = np.mgrid[0:310, 0:210]
    hatch = ((xx + yy) // 7 % 2 == 0) | ((xx - yy) // 7 % 2 == 0)
    back[20:330, 20:230][hatch] = (40, 40, 190)
    place(img, back, (640, 360), 20, 0.6)
    assert found(img) == set()


def test_hand_is_not_a_card() -> None:
    img = table()
    skin = (120, 160, 215)
    cv2.ellipse(img, (640, 400), (130, 90), 20, 0, 360, skin, -1)
    for k in range(4):
        cv2.ellipse(img, (560 + 45 * k, 270 - 10 * k), (18, 70), 10, 0, 360, skin, -1)
    img = cv2.GaussianBlur(img, (0, 0), 1.5)
    assert found(img) == set()


def test_rejects_bad_images() -> None:
    with pytest.raises(ValueError, match="^recognise expects a BGR image .* got shape"):
        recognise(np.zeros((10, 10), np.uint8))
    with pytest.raises(ValueError, match="^recognise expects uint8 pixels, got float32"):
        recognise(np.zeros((10, 10, 3), np.float32))
    with pytest.raises(ValueError, match="^recognise expects a frame with pixels"):
        recognise(np.zeros((0, 10, 3), np.uint8))
    with pytest.raises(ValueError, match="got list"):
        recognise([[0, 0, 0]])  # type: ignore[arg-type]


UNSURE = (CORROBORATED_FLOOR + DEFAULT_MIN_CONFIDENCE) / 2


def _unsure_fives(monkeypatch: pytest.MonkeyPatch, corners: int) -> list[Detection]:
    """recognise() on ``corners`` far-apart indices that each read 5H between the floor a
    corroborated reading needs and the floor a lone one needs."""
    import vision.recognise.detection as detection

    centres = np.array([[200.0, 200.0], [900.0, 500.0]])[:corners]
    down = np.tile([0.0, 1.0], (corners, 1)).astype(np.float32)
    cand = IndexCandidates(np.zeros((corners, 32, 32, 3), np.uint8),
                           (centres - [0, 8]).astype(np.float32),
                           (centres + [0, 8]).astype(np.float32), down,
                           np.full(corners, 16.0, np.float32))
    rank = np.zeros((corners, 14), np.float32)
    rank[:, 4] = 1.0  # a five, surely
    suit = np.zeros((corners, 5), np.float32)
    suit[:, 2] = UNSURE  # hearts, or perhaps diamonds
    suit[:, 1] = 1.0 - UNSURE
    monkeypatch.setattr(detection, "find_candidates", lambda image, **_: cand)
    monkeypatch.setattr(detection, "find_card_quads", lambda image, **_: [])
    monkeypatch.setattr(detection, "classify", lambda patches, **kw: PatchScores(rank, suit))
    return recognise(np.zeros((720, 1280, 3), np.uint8))


def test_one_unsure_index_is_unknown_but_two_agreeing_corners_name_the_card(
        monkeypatch: pytest.MonkeyPatch) -> None:
    one = _unsure_fives(monkeypatch, 1)
    assert [d.card for d in one] == [None]
    two = _unsure_fives(monkeypatch, 2)
    assert [d.card for d in two] == [Card.parse("5H")]
    assert two[0].confidence == pytest.approx(1 - (1 - UNSURE) ** 2)


def test_outline_from_one_index_reads_clockwise() -> None:
    pts = card_outline(np.array([100.0, 100.0]), np.array([0.0, 1.0]), 10.0)
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = pts
    assert x1 > x0 and y2 > y1 and x3 < x2 and y3 > y0
    assert (x1 - x0) / (y3 - y0) == pytest.approx(63 / 88, rel=0.03)


# Measured on the test split (vision/training/README.md) with the committed weights and their
# second opinion, the glyphs measured against their paper, and the 0.6 floor: epfl P 0.971
# R 0.848 exact 0.43 (67 of 79 cards, 2 wrong, 3 of 7 photos); roboflow P 0.985 R 0.909
# exact 0.76 (270 of 297, 4 wrong, 59 of 78). These are the levels actually reached, still
# short of the targets (0.995 / 0.99 / 0.95); the floors leave a card or two (one
# image) of slack for floating-point differences between machines.
REAL_FLOORS = {
    "epfl-iapr2022-poker": {"card_precision": 0.95, "card_recall": 0.83, "images_exact": 0.28},
    "roboflow-cardcounterml": {"card_precision": 0.98, "card_recall": 0.90, "images_exact": 0.74},
}


@pytest.mark.dataset
@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(REAL_FLOORS))
def test_real_photos_test_split(name: str) -> None:
    root = datasets_root()
    if root is None or not (root / name).is_dir():
        pytest.skip("../shared/datasets not present")
    from vision.measure.evaluate import evaluate

    result = evaluate(root / name, split="test")
    for key, floor in REAL_FLOORS[name].items():
        assert result[key] >= floor, (key, result[key])


@pytest.mark.parametrize("angle", [0.0, 0.7, 3.1, -2.0])
def test_index_centres_inverts_card_outline(angle: float) -> None:
    centre, down = np.array([412.0, 233.0]), np.array([np.sin(angle), np.cos(angle)])
    outline = card_outline(centre, down, 14.0)
    corners = tuple((float(x), float(y)) for x, y in outline)
    centres, span = index_centres(corners)  # type: ignore[arg-type]
    assert span == pytest.approx(14.0)
    assert np.allclose(centres[0], centre)
    # The other corner's index, turned half way round the card's centre.
    assert np.allclose(centres[1], 2 * outline.mean(axis=0) - centre)


def outline_offsets(a: Detection, b: Detection) -> float:
    """The farthest any corner of ``a``'s outline lies from the nearest corner of ``b``'s
    (an outline read from the other end of the card lists the same corners rolled)."""
    return max(min(float(np.hypot(p[0] - q[0], p[1] - q[1])) for q in b.corners)
               for p in a.corners)


def test_a_card_read_in_a_tight_and_a_loose_crop_is_the_same_card_in_the_same_place() -> None:
    """The device reads changed regions as crops of any size; with the card's height known,
    the crop's size has no say: a tight crop (the card fills most of it) and a loose one
    read the same card, whole, in the same outline."""
    frame = table((1296, 2304))
    place(frame, render_card(11, 1), (1152, 648), 8, 0.6)  # a QD 210 px tall
    crops = {"tight": (1152 - 100, 648 - 125, 1152 + 100, 648 + 125),  # 200 x 250
             "loose": (1152 - 450, 648 - 400, 1152 + 450, 648 + 400)}
    read: dict[str, list[Detection]] = {}
    for name, (x0, y0, x1, y1) in crops.items():
        found = recognise(frame[y0:y1, x0:x1], card_px=162.0)
        read[name] = [dataclasses.replace(d, corners=tuple(
            (x + x0, y + y0) for x, y in d.corners)) for d in found]  # type: ignore[arg-type]
    assert [d.card for d in read["tight"]] == [d.card for d in read["loose"]] == [QUEEN_D]
    # Within a pixel of the quad search's grid (4.5 frame pixels); read at the crops' own
    # sizes the tight crop's outline came from its index, 8 px off.
    assert outline_offsets(read["tight"][0], read["loose"][0]) < 4.0
