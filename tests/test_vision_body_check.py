"""A card named from one index read the wrong way up is asked, not named, when the body its
index infers lies over bare table (``vision.recognise.body_check``, issue 62 item 3): at device
geometry a 10H read upside down became a 7H whose outline lay on light wood, and a 5S read as
a 3S lay over the grey the frame was filled with. The check is off by default
(``detection.USE_BODY_CHECK``: on test it caught neither); these tests switch it on. Real
pixels, drawn small; the candidate stage and the network are stood in for, so only the body's
pixels decide."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

import vision.recognise.detection as detection
from engine.cards import Card
from vision.recognise.body_check import BodyJudge
from vision.recognise.candidates import IndexCandidates
from vision.recognise.classifier import RANKS, SUITS, PatchScores
from vision.recognise.detection import (
    CARD_HEIGHT,
    CARD_WIDTH,
    INDEX_FROM_EDGE,
    INDEX_FROM_TOP,
    Detection,
    recognise,
)

SEVEN_H = Card.parse("7H")
CARD_PX = 90.0  # the device's 0.125 of a 720-row frame
SPAN = CARD_PX / CARD_HEIGHT
ORIGIN = np.array([330.0, 150.0])  # the card's top-left corner; bare table up and left of it
WOOD = (120, 165, 205)  # BGR: light birch
WHITE = (235, 236, 238)
BLACK = (28, 26, 24)
GREY_FILL = (134, 134, 134)


def wood(shape: tuple[int, int] = (360, 640)) -> np.ndarray:
    """A light wood table with grain along its rows."""
    rows = np.arange(shape[0], dtype=np.float64)[:, None, None]
    grain = 10.0 * np.sin(rows / 3.0) + 6.0 * np.sin(rows / 11.0)
    img = np.array(WOOD, np.float64)[None, None, :] + grain + np.zeros((1, shape[1], 1))
    return np.clip(img, 0, 255).astype(np.uint8)


def plain(colour: tuple[int, int, int], shape: tuple[int, int] = (360, 640)) -> np.ndarray:
    return np.full((*shape, 3), colour, np.uint8)


def lay_card(img: np.ndarray, paper: tuple[int, int, int], ink: tuple[int, int, int],
             origin: np.ndarray = ORIGIN, face: bool = False) -> np.ndarray:
    """Draws an upright card at ``origin`` with its top-left index (rank over suit) in ``ink``;
    ``face`` fills its middle with a court card's coloured picture."""
    w, h = CARD_WIDTH * SPAN, CARD_HEIGHT * SPAN
    x0, y0 = origin
    cv2.rectangle(img, (int(x0), int(y0)), (int(x0 + w), int(y0 + h)), paper, -1)
    centre = index_centre(origin)
    for dy in (-0.5, 0.5):
        cv2.circle(img, (int(centre[0]), int(centre[1] + dy * SPAN)), max(2, int(0.3 * SPAN)),
                   ink, -1)
    if face:
        rng = np.random.default_rng(3)
        fx0, fy0, fx1, fy1 = int(x0 + 0.2 * w), int(y0 + 0.12 * h), int(x0 + 0.85 * w), \
            int(y0 + 0.88 * h)
        for y in range(fy0, fy1, 4):
            for x in range(fx0, fx1, 4):
                img[y:y + 4, x:x + 4] = rng.integers(0, 256, 3)
    return img


def index_centre(origin: np.ndarray = ORIGIN) -> np.ndarray:
    return origin + SPAN * np.array([INDEX_FROM_EDGE, INDEX_FROM_TOP])


def read_index(monkeypatch: pytest.MonkeyPatch, img: np.ndarray, *, upside_down: bool,
               card_px: float | None = CARD_PX, origin: np.ndarray = ORIGIN
               ) -> list[Detection]:
    """recognise() on one index at the card's top-left corner that the network reads surely
    as the seven of hearts: the right way up, or the wrong way (its down pointing off the card,
    so the card it infers lies up and to the left of the real one)."""
    down = np.array([0.0, -1.0 if upside_down else 1.0])
    centre = index_centre(origin)
    rank_xy, suit_xy = centre - 0.5 * SPAN * down, centre + 0.5 * SPAN * down
    cand = IndexCandidates(np.zeros((1, 32, 32, 3), np.uint8),
                           rank_xy[None].astype(np.float32), suit_xy[None].astype(np.float32),
                           down[None].astype(np.float32), np.array([SPAN], np.float32))
    rank = np.zeros((1, len(RANKS) + 1), np.float32)
    rank[0, RANKS.index(SEVEN_H.rank)] = 1.0
    suit = np.zeros((1, len(SUITS) + 1), np.float32)
    suit[0, SUITS.index(SEVEN_H.suit)] = 1.0
    monkeypatch.setattr(detection, "USE_BODY_CHECK", True)
    monkeypatch.setattr(detection, "find_candidates", lambda image, **_: cand)
    monkeypatch.setattr(detection, "find_card_quads", lambda image, **_: [])
    monkeypatch.setattr(detection, "classify", lambda patches, **kw: PatchScores(rank, suit))
    return recognise(img, card_px=card_px, blur=0.0)


def test_an_index_read_upside_down_whose_card_lies_on_bare_wood_is_asked(
        monkeypatch: pytest.MonkeyPatch) -> None:
    read = read_index(monkeypatch, lay_card(wood(), WHITE, (40, 30, 200)), upside_down=True)
    assert [d.card for d in read] == [None]
    # The board asks with the outline the index inferred and the reading as its first choice.
    assert read[0].alternatives[0][0] == SEVEN_H
    assert read[0].confidence == pytest.approx(1.0)


def test_a_dark_card_read_upside_down_over_the_grey_fill_is_asked(
        monkeypatch: pytest.MonkeyPatch) -> None:
    read = read_index(monkeypatch, lay_card(plain(GREY_FILL), BLACK, (220, 220, 220)),
                      upside_down=True)
    assert [d.card for d in read] == [None]


def test_the_same_index_the_right_way_up_on_its_card_is_named(
        monkeypatch: pytest.MonkeyPatch) -> None:
    read = read_index(monkeypatch, lay_card(wood(), WHITE, (40, 30, 200)), upside_down=False)
    assert [d.card for d in read] == [SEVEN_H]


def test_without_a_card_height_the_body_is_not_judged(monkeypatch: pytest.MonkeyPatch) -> None:
    read = read_index(monkeypatch, lay_card(wood(), WHITE, (40, 30, 200)), upside_down=True,
                      card_px=None)
    assert [d.card for d in read] == [SEVEN_H]


@pytest.mark.parametrize("table, paper, ink, face", [
    (WHITE, (244, 246, 247), (40, 30, 200), False),  # a white card on a white table
    (GREY_FILL, BLACK, (220, 220, 220), False),  # a dark deck
    (WOOD, WHITE, (40, 30, 200), True),  # a court card's face
])
def test_real_cards_are_not_judged_bare(monkeypatch: pytest.MonkeyPatch,
                                        table: tuple[int, int, int],
                                        paper: tuple[int, int, int], ink: tuple[int, int, int],
                                        face: bool) -> None:
    img = lay_card(wood() if table == WOOD else plain(table), paper, ink, face=face)
    assert [d.card for d in read_index(monkeypatch, img, upside_down=False)] == [SEVEN_H]


def test_a_card_under_another_card_is_not_judged_bare(monkeypatch: pytest.MonkeyPatch) -> None:
    img = lay_card(wood(), WHITE, (40, 30, 200))
    lay_card(img, WHITE, (30, 30, 30), origin=ORIGIN + SPAN * np.array([2.5, 3.5]))
    assert [d.card for d in read_index(monkeypatch, img, upside_down=False)] == [SEVEN_H]


@pytest.mark.parametrize("image", [np.zeros((10, 10), np.uint8), np.zeros((10, 10, 3)),
                                   np.zeros((0, 10, 3), np.uint8)])
def test_the_judge_names_a_bad_frame(image: np.ndarray) -> None:
    with pytest.raises(ValueError, match="BodyJudge needs an 8-bit BGR frame"):
        BodyJudge(image, card_px=CARD_PX)


@pytest.mark.parametrize("card_px", [0.0, -90.0, float("nan"), float("inf")])
def test_the_judge_names_a_bad_card_height(card_px: float) -> None:
    with pytest.raises(ValueError, match="positive card height"):
        BodyJudge(wood(), card_px=card_px)


def test_a_body_outside_the_frame_is_not_judged() -> None:
    judge = BodyJudge(wood(), card_px=CARD_PX)
    far = detection.card_outline(np.array([-500.0, -500.0]), np.array([0.0, 1.0]), SPAN)
    assert judge.look(far, np.array([-500.0, -500.0]), np.array([0.0, 1.0]), SPAN).samples == 0
    assert not judge.bare(far, np.array([-500.0, -500.0]), np.array([0.0, 1.0]), SPAN)
