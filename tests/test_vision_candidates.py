"""Candidate corner indices: segmentation, pairing and upright patches."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.candidates import (
    PATCH_SIZE,
    channel_extremes,
    extract_patches,
    find_candidates,
    find_glyphs,
    pair_glyphs,
)
from vision.training.synth import place, render_card

TABLE = (60, 110, 150)


def scene(
    angle: float = 0.0, *, size: tuple[int, int] = (720, 1280), scale: float = 0.5
) -> np.ndarray:
    img = np.full((*size, 3), TABLE, np.uint8)
    place(img, render_card(5, 2), (size[1] / 2, size[0] / 2), angle, scale)
    return img


def test_blank_table_has_no_candidates() -> None:
    c = find_candidates(np.full((720, 1280, 3), TABLE, np.uint8))
    assert len(c) == 0
    assert c.patches.shape == (0, PATCH_SIZE, PATCH_SIZE, 3)


@pytest.mark.parametrize("angle", [0, 90, 180, 233])
def test_index_pair_points_down_the_card(angle: float) -> None:
    c = find_candidates(scene(angle))
    # The card's "down" in the frame, for a card turned counter-clockwise by `angle`.
    t = np.deg2rad(angle)
    down = np.array([np.sin(t), np.cos(t)])
    # One corner index reads with the card, the other against it (turned 180 degrees).
    dots = c.down @ down
    assert (np.abs(dots) > 0.95).any()


def test_sizes_are_relative_to_the_frame() -> None:
    small = find_candidates(scene(size=(360, 640), scale=0.25))
    big = find_candidates(scene(size=(720, 1280), scale=0.5))
    assert len(small) > 0
    assert abs(float(np.median(small.span)) * 2 - float(np.median(big.span))) < 3


def test_patch_puts_rank_on_top() -> None:
    img = np.full((200, 200, 3), 255, np.uint8)
    cv2.circle(img, (50, 26), 6, (0, 0, 0), 2)  # "rank" glyph
    cv2.fillPoly(img, [np.array([[46, 40], [54, 40], [50, 47]], np.int32)], (0, 0, 0))  # "suit"
    for k, turned in enumerate((img, np.rot90(img).copy())):
        g = find_glyphs(turned.min(axis=2), bright=False)
        r, s = pair_glyphs(g)
        assert len(r) >= 1
        big = int(np.argmax(g.areas))
        i = int(np.nonzero(r == big)[0][0])
        patches, down, span = extract_patches(
            turned, g.centroids[r[i : i + 1]], g.centroids[s[i : i + 1]]
        )
        p = patches[0].min(axis=2)
        top, bottom = p[: PATCH_SIZE // 2], p[PATCH_SIZE // 2 :]
        assert (top < 128).sum() > (bottom < 128).sum(), f"turn {k}"
        assert span[0] == pytest.approx(16.5, abs=1.5)


def test_rejects_grey_images() -> None:
    with pytest.raises(ValueError, match="BGR"):
        find_candidates(np.zeros((10, 10), np.uint8))


@pytest.mark.parametrize("shape", [(720, 1280), (5, 7), (1, 1)])
def test_channel_extremes_are_each_pixels_darkest_and_brightest_channel(
        shape: tuple[int, int]) -> None:
    image = np.random.default_rng(1).integers(0, 256, (*shape, 3), np.uint8)
    for view in (image, image[:, ::-1]):  # a frame as cut from a bigger one: not contiguous
        lo, hi = channel_extremes(view)
        np.testing.assert_array_equal(lo, view.min(axis=2))
        np.testing.assert_array_equal(hi, view.max(axis=2))
