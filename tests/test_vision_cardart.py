"""vision.drawn.cardart: drawn card faces and backs look like a real deck and are reproducible."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from engine.cards import Card, Rank, Suit
from vision.drawn.cardart import (
    CARD_ASPECT,
    CardArtError,
    CardStyle,
    index_boxes,
    render_back,
    render_card,
    suit_polygons,
)

STYLE = CardStyle()


def ink_mask(face: np.ndarray) -> np.ndarray:
    """Printed pixels: clearly darker or more coloured than the paper."""
    bgr = face[..., :3].astype(np.int16)
    lo, hi = bgr.min(axis=2), bgr.max(axis=2)
    return ((lo < 150) | (hi - lo > 60)) & (face[..., 3] == 255)


def test_face_is_a_bgra_card_with_rounded_transparent_corners() -> None:
    face = render_card(Card.parse("7H"), height=176, style=STYLE)
    assert face.dtype == np.uint8
    assert face.shape == (176, round(176 * CARD_ASPECT), 4)
    assert face[0, 0, 3] == 0 and face[-1, -1, 3] == 0  # rounded corners
    assert face[88, 63, 3] == 255 and face[2, 63, 3] == 255


@pytest.mark.parametrize("text", ["AS", "10D", "QH", "5C", "KS"])
def test_both_corner_indices_carry_the_same_ink(text: str) -> None:
    height = 300
    face = render_card(Card.parse(text), height=height, style=STYLE)
    ink = ink_mask(face)
    shares = []
    for x0, y0, x1, y1 in index_boxes(height, STYLE):
        box = ink[round(y0):round(y1), round(x0):round(x1)]
        shares.append(box.mean())
    assert min(shares) > 0.05, shares
    # The bottom-right index is the top-left one turned 180 degrees.
    assert shares[0] == pytest.approx(shares[1], rel=0.15)


def test_a_back_shows_no_index_and_no_card() -> None:
    from vision.recognise.detection import recognise

    back = render_back(height=150, style=STYLE)
    table = np.full((720, 1280, 3), (40, 90, 50), np.uint8)
    for k in range(4):
        x = 200 + 220 * k
        alpha = back[..., 3:].astype(np.float32) / 255
        region = table[280:430, x:x + back.shape[1]]
        region[:] = (back[..., :3] * alpha + region * (1 - alpha)).astype(np.uint8)
    assert [d.card for d in recognise(table) if d.card is not None] == []
    # The paper-with-ink look of an index is absent: the corner boxes are pattern.
    paper = np.all(np.abs(back[..., :3].astype(int) - STYLE.paper) < 20, axis=2)
    x0, y0, x1, y1 = index_boxes(150, STYLE)[0]
    assert paper[round(y0) + 8:round(y1), round(x0) + 8:round(x1)].mean() < 0.2


@pytest.mark.parametrize("rank", range(2, 11))
def test_pip_cards_show_as_many_pips_as_their_rank(rank: int) -> None:
    height = 400
    face = render_card(Card(Rank(rank), Suit.DIAMONDS), height=height, style=STYLE)
    ink = ink_mask(face).astype(np.uint8)
    width = face.shape[1]
    middle = ink[round(0.1 * height):round(0.9 * height), round(0.2 * width):round(0.8 * width)]
    count, _, stats, _ = cv2.connectedComponentsWithStats(middle)
    pips = [s for s in stats[1:] if s[cv2.CC_STAT_AREA] > 0.003 * height * height]
    assert len(pips) == rank


def test_red_suits_print_red_and_black_suits_black_unless_four_colour() -> None:
    def ink_colour(text: str, style: CardStyle) -> np.ndarray:
        face = render_card(Card.parse(text), height=200, style=style)
        return face[..., :3][ink_mask(face)].mean(axis=0)

    b, g, r = ink_colour("9H", STYLE)
    assert r > 150 > g and r > b + 80
    assert max(ink_colour("9S", STYLE)) < 90
    four = CardStyle(four_colour=True)
    b, g, r = ink_colour("9C", four)
    assert g > r + 40 and g > b + 40
    b, g, r = ink_colour("9D", four)
    assert b > r + 60


def test_suit_symbols_are_one_unit_tall_and_distinct() -> None:
    masks = []
    for suit in Suit:
        polys = suit_polygons(suit)
        ys = np.concatenate(polys)[:, 1]
        assert ys.max() - ys.min() == pytest.approx(1.0)
        canvas = np.zeros((100, 100), np.uint8)
        for p in polys:
            cv2.fillPoly(canvas, [np.round(50 + 80 * p).astype(np.int32)], 255)
        masks.append(canvas > 0)
    for i in range(4):
        for j in range(i + 1, 4):
            assert (masks[i] ^ masks[j]).mean() > 0.05


def test_random_styles_are_reproducible_and_differ() -> None:
    one = CardStyle.random(np.random.default_rng(11))
    assert one == CardStyle.random(np.random.default_rng(11))
    others = {CardStyle.random(np.random.default_rng(seed)) for seed in range(8)}
    assert len(others) == 8
    card = Card.parse("JD")
    a = render_card(card, height=160, style=one)
    assert np.array_equal(a, render_card(card, height=160, style=one))
    b = render_card(card, height=160, style=CardStyle.random(np.random.default_rng(12)))
    assert a.shape == b.shape and not np.array_equal(a, b)


def test_french_courts_print_their_own_letters_in_both_indices() -> None:
    french = CardStyle(court_letters=("V", "D", "R"))
    assert [french.rank_text(r) for r in (Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING)] == [
        "10", "V", "D", "R"]
    seven, king = Card.parse("7H"), Card.parse("KH")
    assert np.array_equal(render_card(seven, height=200, style=french),
                          render_card(seven, height=200, style=STYLE))
    french_king = render_card(king, height=200, style=french)
    plain_king = render_card(king, height=200, style=STYLE)
    for x0, y0, x1, y1 in index_boxes(200, STYLE):
        box = (slice(round(y0), round(y1)), slice(round(x0), round(x1)))
        assert not np.array_equal(ink_mask(french_king)[box], ink_mask(plain_king)[box])


def test_bad_styles_and_sizes_are_named() -> None:
    with pytest.raises(CardArtError, match="index_scale must be 0.7 to 1.4, not 3"):
        CardStyle(index_scale=3)
    with pytest.raises(CardArtError, match="font must be one of the Hershey fonts"):
        CardStyle(font=99)
    with pytest.raises(CardArtError, match="back_pattern .* not 'plaid'"):
        CardStyle(back_pattern="plaid")
    with pytest.raises(CardArtError, match=r"court_letters must be .* not \('V', 'D'\)"):
        CardStyle(court_letters=("V", "D"))  # type: ignore[arg-type]
    with pytest.raises(CardArtError, match="height must be 24 to 4000 pixels, not 10"):
        render_card(Card.parse("AS"), height=10, style=STYLE)
