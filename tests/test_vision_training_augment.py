"""Training patches' jitter: squashing narrows glyphs across a line and keeps the index's scale."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.training.augment import SQUASH_RANGE, augment, squash_map


def test_squashing_across_the_index_narrows_it() -> None:
    # The line runs down the patch (axis 0 = squash along x): width shrinks, height stays.
    assert np.allclose(squash_map(0.0, 0.6), [[0.6, 0.0], [0.0, 1.0]])


def test_squashing_along_the_index_keeps_the_span_and_widens_the_glyphs() -> None:
    # Foreshortened along rank-to-suit: the candidate stage rescales the patch to that
    # shorter span, so the glyphs come out wider, not smaller.
    lin = squash_map(np.pi / 2, 0.5)
    assert np.allclose(lin @ [0.0, 1.0], [0.0, 1.0])
    assert np.allclose(lin @ [1.0, 0.0], [2.0, 0.0])


@pytest.mark.parametrize("axis", np.linspace(0, np.pi, 7))
def test_any_squash_keeps_the_down_direction_unit_long(axis: float) -> None:
    assert np.hypot(*(squash_map(float(axis), 0.55) @ [0.0, 1.0])) == pytest.approx(1.0)


def _disc_patches(n: int) -> np.ndarray:
    patch = np.full((32, 32, 3), 230, np.uint8)
    cv2.circle(patch, (16, 16), 8, (20, 20, 20), -1, cv2.LINE_AA)
    return np.repeat(patch[None], n, axis=0)


def _elongation(patch: np.ndarray) -> float:
    """Ratio of the ink's longer to shorter axis, from its second moments."""
    ink = (255 - patch.min(axis=2).astype(np.float64))
    ink = np.where(ink > 128, ink, 0.0)
    m = cv2.moments(ink.astype(np.float32))
    cov = np.array([[m["mu20"], m["mu11"]], [m["mu11"], m["mu02"]]]) / m["m00"]
    small, large = np.linalg.eigvalsh(cov)
    return float(np.sqrt(large / small))


def test_unsquashed_jitter_keeps_a_disc_round_and_squashing_makes_it_oval() -> None:
    discs = _disc_patches(200)
    plain = [_elongation(p) for p in augment(discs, np.random.default_rng(1), stretch=0.0)]
    squashed = [_elongation(p) for p in augment(discs, np.random.default_rng(1), stretch=1.0)]
    assert max(plain) < 1.15
    assert np.median(squashed) > 1.2
    assert max(squashed) < 1.15 / SQUASH_RANGE[0]


def test_a_share_of_the_batch_is_squashed() -> None:
    discs = _disc_patches(400)
    ovals = sum(_elongation(p) > 1.15 for p in augment(discs, np.random.default_rng(2), 0.5))
    assert 0.3 * 400 < ovals < 0.5 * 400  # half are squashed, some of those only slightly


def test_jitter_keeps_shape_and_type() -> None:
    out = augment(_disc_patches(5), np.random.default_rng(0), stretch=0.5)
    assert out.shape == (5, 32, 32, 3) and out.dtype == np.uint8
