"""Training patches filmed through the calibrated camera at device card sizes (filmed.py)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.training.augment import augment
from vision.training.filmed import FilmError, Filming, film, film_patches

PAPER = 235


def _red_index(n: int = 1) -> np.ndarray:
    """A red rank-like bar and a disc on white paper, as a 32 px patch."""
    patch = np.full((32, 32, 3), PAPER, np.uint8)
    cv2.rectangle(patch, (13, 4), (18, 15), (40, 40, 200), -1)
    cv2.circle(patch, (16, 23), 5, (40, 40, 200), -1, cv2.LINE_AA)
    return np.repeat(patch[None], n, axis=0)


def _ink_depth(patch: np.ndarray, channel: int) -> float:
    """How far the glyph's middle lies under its paper in one channel."""
    return float(patch[2:6, 2:6, channel].mean()) - float(patch[8:12, 15:17, channel].mean())


def test_a_filmed_patch_keeps_its_size_and_type() -> None:
    out = film(_red_index()[0], np.random.default_rng(0), frame_px=18)
    assert out.shape == (32, 32, 3) and out.dtype == np.uint8


def test_a_small_frame_softens_the_glyph_edges() -> None:
    patch = _red_index()[0]
    small = film(patch, np.random.default_rng(0), frame_px=14)
    sharp = np.abs(np.diff(patch[10, :, 1].astype(int))).max()
    soft = np.abs(np.diff(small[10, :, 1].astype(int))).max()
    assert soft < 0.6 * sharp


def test_overexposure_bleaches_red_ink_in_the_red_channel() -> None:
    patch = _red_index()[0]
    normal = film(patch, np.random.default_rng(1), frame_px=24, exposure=1.0, warmth=0.0)
    bright = film(patch, np.random.default_rng(1), frame_px=24, exposure=2.8, warmth=0.0)
    # Red ink under 2.8x the light clips with its paper in the red channel: nearly gone.
    assert _ink_depth(bright, 2) < 0.3 * _ink_depth(normal, 2)
    assert _ink_depth(bright, 1) > 20  # still visible in green, as the camera shows it


def test_a_cool_white_balance_casts_the_paper_blue() -> None:
    cool = film(_red_index()[0], np.random.default_rng(2), frame_px=24, warmth=-0.25)
    paper = cool[2:6, 2:6].reshape(-1, 3).mean(axis=0)
    assert paper[0] > paper[2] + 30  # BGR: blue well over red


@pytest.mark.parametrize("kwargs", [{"frame_px": 2}, {"frame_px": 200}, {"frame_px": 18,
                                                                         "exposure": 9.0}])
def test_film_names_a_bad_setting(kwargs: dict[str, float]) -> None:
    with pytest.raises(FilmError, match=next(iter(kwargs)) if "exposure" not in kwargs
                       else "exposure"):
        film(_red_index()[0], np.random.default_rng(0), **kwargs)  # type: ignore[arg-type]


def test_film_refuses_a_patch_that_is_not_square_bgr() -> None:
    with pytest.raises(FilmError, match="square BGR"):
        film(np.zeros((32, 16, 3), np.uint8), np.random.default_rng(0), frame_px=10)


@pytest.mark.parametrize("name", ["share", "bleach", "cool"])
def test_filming_shares_are_shares(name: str) -> None:
    with pytest.raises(FilmError, match=name):
        Filming(**{name: 1.5})


def test_film_patches_films_its_share_only() -> None:
    x = _red_index(40)
    none, mask0 = film_patches(x, np.random.default_rng(3), Filming(share=0.0))
    assert not mask0.any() and np.array_equal(none, x)
    every, mask1 = film_patches(x, np.random.default_rng(3), Filming(share=1.0))
    assert mask1.all()
    assert all(not np.array_equal(every[i], x[i]) for i in range(len(x)))


def test_augment_without_filming_repeats_the_recipe_before_it() -> None:
    x = _red_index(16)
    plain = augment(x, np.random.default_rng(4), 0.5)
    again = augment(x, np.random.default_rng(4), 0.5, None)
    assert np.array_equal(plain, again)
    filmed = augment(x, np.random.default_rng(4), 0.5, Filming(share=1.0))
    assert not np.array_equal(plain, filmed)
