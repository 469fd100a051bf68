"""The ink-colour check: red ink is never a club or a spade; grey ink rules nothing out."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.recognise.classifier import SUITS, PatchScores
from vision.recognise.ink_colour import colour_checked, red_ink

PAPER = (235, 235, 235)
RED = (40, 40, 190)      # BGR: a heart's ink
BLACK = (35, 35, 35)
DULL_RED = (70, 75, 125)  # a webcam's desaturated red (darkening ratio about 0.6)


def patch(ink: tuple[int, int, int], paper: tuple[int, int, int] = PAPER, *,
          blur: float = 0.0) -> np.ndarray:
    """A 32 px index patch as candidates.extract_patches cuts one: a rank above the middle,
    a suit below it, on card paper."""
    p = np.full((32, 32, 3), paper, np.uint8)
    cv2.putText(p, "7", (11, 14), cv2.FONT_HERSHEY_SIMPLEX, 0.45, ink, 2, cv2.LINE_AA)
    cv2.circle(p, (16, 22), 4, ink, -1, cv2.LINE_AA)
    if blur:
        p = cv2.GaussianBlur(p, (0, 0), blur)
    return p


def tinted(p: np.ndarray, gains: tuple[float, float, float]) -> np.ndarray:
    return np.clip(p.astype(np.float32) * np.array(gains, np.float32), 0, 255).astype(np.uint8)


def bleached(p: np.ndarray, gain: float) -> np.ndarray:
    """Overexposed: every level multiplied and clipped (red ink turns pink, paper white)."""
    return tinted(p, (gain, gain, gain))


WARM_TABLE = (60, 90, 140)  # BGR: a wooden table's mean colour


def veiled(p: np.ndarray, mean: tuple[int, int, int]) -> np.ndarray:
    """Contrast halved: every level pulled half way to a photo's ``mean`` colour (the
    robustness sweep's contrast:0.5), which adds a coloured veil over ink and paper alike."""
    out = 0.5 * p.astype(np.float32) + 0.5 * np.array(mean, np.float32)
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


@pytest.mark.parametrize(("p", "red"), [
    (patch(RED), True),
    (patch(DULL_RED), True),
    (patch(RED, blur=1.0), True),
    (tinted(patch(RED), (1.25, 1.0, 0.8)), True),   # a blue cast (cool light)
    (tinted(patch(RED), (0.7, 0.9, 1.1)), True),    # a warm lamp
    (bleached(patch(RED), 1.6), True),              # overexposed: pink on white
    (patch(BLACK), False),
    (tinted(patch(BLACK), (1.25, 1.0, 0.8)), False),
    (tinted(patch(BLACK), (0.7, 0.9, 1.1)), False),
    (cv2.cvtColor(cv2.cvtColor(patch(RED), cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR), False),
    (255 - patch((40, 180, 220), paper=(30, 30, 30)), False),  # gold on a black card, inverted
    (np.full((32, 32, 3), 200, np.uint8), False),   # no ink at all
    (patch((180, 180, 230)), False),                # pink too pale to trust (MIN_DARKENING)
    (veiled(patch(BLACK), WARM_TABLE), False),      # contrast halved towards a warm table
    (veiled(patch(RED), WARM_TABLE), True),
    (veiled(patch(DULL_RED), (140, 90, 60)), True),  # ... or towards a blue one
])
def test_red_ink_is_told_from_black_under_casts_and_glare(p: np.ndarray, red: bool) -> None:
    assert red_ink(p[None]).tolist() == [red]


def _scores(n: int, suit_letter: str, p: float = 0.9) -> PatchScores:
    rank = np.zeros((n, 14), np.float32)
    rank[:, 6] = 1.0  # a seven
    suit = np.full((n, 5), (1.0 - p) / 4, np.float32)
    suit[:, [s.letter for s in SUITS].index(suit_letter)] = p
    return PatchScores(rank, suit)


def test_a_red_index_read_as_a_spade_becomes_unsure() -> None:
    checked = colour_checked(np.stack([patch(RED)]), _scores(1, "S"))
    cards, conf, is_index = checked.best()
    assert str(cards[0]) != "7S" and float(conf[0]) < 0.1  # below every detector floor
    assert float(is_index[0]) == pytest.approx(float(_scores(1, "S").index_probability()[0]))


def test_black_ink_keeps_every_score_and_red_readings_keep_theirs() -> None:
    for ink, letter in ((BLACK, "S"), (BLACK, "H")):
        scores = _scores(1, letter)
        checked = colour_checked(np.stack([patch(ink)]), scores)
        assert np.array_equal(checked.suit, scores.suit), (ink, letter)
    scores = _scores(1, "H")
    cards, conf, _ = colour_checked(np.stack([patch(RED)]), scores).best()
    assert (str(cards[0]), float(conf[0])) == ("7H", pytest.approx(0.9))


def test_mismatched_patches_and_scores_refused() -> None:
    with pytest.raises(ValueError, match="2 patches for 1 scores"):
        colour_checked(np.stack([patch(RED), patch(BLACK)]), _scores(1, "S"))
    with pytest.raises(ValueError, match="ink_darkening"):
        red_ink(np.zeros((32, 32, 3), np.uint8))
