"""Pairs the recogniser would throw away are never cut (issue 62, item 4: the Pi 4's budget).

With the card height told, ``recognise`` drops a pair whose span is outside ``span_check``'s
band and a pair whose rank lies on a card already read whole. ``find_candidates`` is told both
(``index_span``, ``read_whole``) and drops them before any patch is cut or screened, with the
same candidates left over as dropping them afterwards."""

from __future__ import annotations

import numpy as np
import pytest

import vision.recognise.candidates as candidates_module
from vision.recognise.candidates import IndexCandidates, find_candidates
from vision.recognise.detection import CARD_HEIGHT
from vision.recognise.geometry import points_in_quad
from vision.recognise.span_check import SPAN_HIGH, SPAN_LOW, span_fits
from vision.training.synth import place, render_card

CARD_PX = 175.0  # render_card's 350 px at half size
SPAN = CARD_PX / CARD_HEIGHT
# The card read whole (its outline, frame pixels): the small card at (500, 400), upright.
HALF_W, HALF_H = 0.5 * CARD_PX * 63 / 88, 0.5 * CARD_PX
READ = np.array([[500 - HALF_W, 400 - HALF_H], [500 + HALF_W, 400 - HALF_H],
                 [500 + HALF_W, 400 + HALF_H], [500 - HALF_W, 400 + HALF_H]])


def table() -> np.ndarray:
    """Two cards of the told height (one turned) and one twice as tall: its index spans
    about four times the told card's, outside the band."""
    img = np.full((1296, 2304, 3), (60, 110, 150), np.uint8)
    place(img, render_card(5, 2), (500, 400), 0.0, 0.5)
    place(img, render_card(9, 3, seed=1), (900, 800), 30.0, 0.5)
    place(img, render_card(11, 0, seed=2), (1700, 600), 0.0, 1.0)
    return img


def cuts(monkeypatch: pytest.MonkeyPatch, **told: object) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (rank, suit) points, in frame pixels, of every pair ``find_candidates`` cuts."""
    got: list[tuple[np.ndarray, np.ndarray]] = []
    cut = candidates_module.extract_patches
    scale = candidates_module.reading((1296, 2304), card_px=CARD_PX).scale

    def spy(image: np.ndarray, rank_xy: np.ndarray, suit_xy: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        got.append((rank_xy / scale, suit_xy / scale))
        return cut(image, rank_xy, suit_xy)

    monkeypatch.setattr(candidates_module, "extract_patches", spy)
    find_candidates(table(), card_px=CARD_PX, **told)
    return got


def spans(pairs: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    return np.concatenate([np.hypot(*(s - r).T) for r, s in pairs])


def test_a_pair_outside_the_span_band_is_never_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    every = spans(cuts(monkeypatch))
    assert (every > 1.01 * SPAN_HIGH * SPAN).any()  # the big card's indices, and others
    told = spans(cuts(monkeypatch, index_span=SPAN))
    assert len(told) > 0
    assert ((told >= 0.99 * SPAN_LOW * SPAN) & (told <= 1.01 * SPAN_HIGH * SPAN)).all()


def test_a_pair_on_a_card_read_whole_is_never_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    def on_read(pairs: list[tuple[np.ndarray, np.ndarray]]) -> int:
        return int(sum(points_in_quad(r, READ).sum() for r, _ in pairs))

    assert on_read(cuts(monkeypatch)) > 0
    told = cuts(monkeypatch, read_whole=(READ,))
    assert on_read(told) == 0 and sum(len(r) for r, _ in told) > 0


def test_dropping_before_the_cut_leaves_what_dropping_after_it_left() -> None:
    image = table()
    after = find_candidates(image, card_px=CARD_PX)
    keep = span_fits(after.span, SPAN) & ~points_in_quad(after.rank_xy, READ)
    before = find_candidates(image, card_px=CARD_PX, index_span=SPAN, read_whole=(READ,))
    assert 0 < len(before) < len(after)
    for name in IndexCandidates.__dataclass_fields__:
        assert np.array_equal(getattr(before, name), getattr(after, name)[keep]), name


def test_the_camera_reader_cuts_no_pair_outside_the_band(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """``recognise`` with the card height told passes the band on (and its cards read whole).
    No card is read whole here, so every card's pairs reach the candidate stage."""
    import vision.recognise.detection as detection_module
    from vision.recognise.detection import recognise

    monkeypatch.setattr(detection_module, "find_card_quads", lambda image, **_: [])

    got: list[np.ndarray] = []
    cut = candidates_module.extract_patches
    scale = candidates_module.reading((1296, 2304), card_px=CARD_PX).scale

    def spy(image: np.ndarray, rank_xy: np.ndarray, suit_xy: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        got.append(np.hypot(*(suit_xy - rank_xy).T) / scale)
        return cut(image, rank_xy, suit_xy)

    monkeypatch.setattr(candidates_module, "extract_patches", spy)
    recognise(table(), card_px=CARD_PX, blur=0.0)
    told = np.concatenate(got)
    assert len(told) > 0
    assert ((told >= 0.99 * SPAN_LOW * SPAN) & (told <= 1.01 * SPAN_HIGH * SPAN)).all()
