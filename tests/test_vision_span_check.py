"""An index whose size contradicts the card height the camera was told is not a card
(``vision.recognise.span_check``, issue 62 item 3): at device geometry a rank of one card
paired with a suit of another read a wrong 10D whose outline was twice a card's size."""

from __future__ import annotations

import numpy as np
import pytest

import vision.recognise.detection as detection
from engine.cards import Card
from vision.recognise.candidates import IndexCandidates
from vision.recognise.classifier import RANKS, SUITS, PatchScores
from vision.recognise.detection import CARD_HEIGHT, Detection, recognise
from vision.recognise.span_check import SPAN_HIGH, SPAN_LOW, span_fits

TEN_D = Card.parse("10D")
CARD_PX = 90.0  # the device's 0.125 of a 720-row frame
EXPECTED = CARD_PX / CARD_HEIGHT
# Spans as shares of EXPECTED: the wrong 10D of Roboflow's test split at 1280x720 spanned 3.6;
# correct readings of cards 100 px tall in 1280x720 (nearer than told) up to 2.98, of cards
# far from the camera with small indices down to 0.38.


def _one_sure_ten_of_diamonds(monkeypatch: pytest.MonkeyPatch, span: float,
                              card_px: float | None) -> list[Detection]:
    """recognise() on one index candidate whose rank and suit lie ``span`` apart and that the
    network reads, surely, as the ten of diamonds."""
    centre = np.array([[640.0, 360.0]], np.float32)
    cand = IndexCandidates(np.zeros((1, 32, 32, 3), np.uint8), centre - [0, span / 2],
                           centre + [0, span / 2], np.array([[0.0, 1.0]], np.float32),
                           np.array([span], np.float32))
    rank = np.zeros((1, len(RANKS) + 1), np.float32)
    rank[0, RANKS.index(TEN_D.rank)] = 1.0
    suit = np.zeros((1, len(SUITS) + 1), np.float32)
    suit[0, SUITS.index(TEN_D.suit)] = 1.0
    monkeypatch.setattr(detection, "find_candidates", lambda image, **_: cand)
    monkeypatch.setattr(detection, "find_card_quads", lambda image, **_: [])
    monkeypatch.setattr(detection, "classify", lambda patches, **kw: PatchScores(rank, suit))
    return recognise(np.zeros((720, 1280, 3), np.uint8), card_px=card_px, blur=0.0)


def test_an_index_far_too_big_for_the_told_card_is_no_card(
        monkeypatch: pytest.MonkeyPatch) -> None:
    read = _one_sure_ten_of_diamonds(monkeypatch, 3.6 * EXPECTED, CARD_PX)
    assert [d.card for d in read if d.card is not None] == []


def test_an_index_far_too_small_for_the_told_card_is_no_card(
        monkeypatch: pytest.MonkeyPatch) -> None:
    read = _one_sure_ten_of_diamonds(monkeypatch, 0.25 * EXPECTED, CARD_PX)
    assert [d.card for d in read if d.card is not None] == []


@pytest.mark.parametrize("share", [0.4, 1.0, 2.3, 2.95])
def test_an_index_the_size_of_the_told_card_or_near_it_is_read(
        monkeypatch: pytest.MonkeyPatch, share: float) -> None:
    read = _one_sure_ten_of_diamonds(monkeypatch, share * EXPECTED, CARD_PX)
    assert [d.card for d in read] == [TEN_D]


def test_a_photo_without_a_card_height_keeps_every_span(monkeypatch: pytest.MonkeyPatch) -> None:
    read = _one_sure_ten_of_diamonds(monkeypatch, 3.6 * EXPECTED, None)
    assert [d.card for d in read] == [TEN_D]


def test_span_fits_is_the_band_round_the_expected_span() -> None:
    spans = np.array([SPAN_LOW * 0.99, SPAN_LOW, 1.0, SPAN_HIGH, SPAN_HIGH * 1.01]) * 10.0
    assert span_fits(spans, 10.0).tolist() == [False, True, True, True, False]
    assert span_fits(np.zeros(0, np.float32), 10.0).shape == (0,)


@pytest.mark.parametrize("expected", [0.0, -1.0, float("nan"), float("inf"), True, "10"])
def test_span_fits_names_a_bad_expected_span(expected: object) -> None:
    with pytest.raises(ValueError, match="expected span"):
        span_fits(np.ones(1), expected)  # type: ignore[arg-type]
