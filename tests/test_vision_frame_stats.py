"""Frame measurements (vision.drawn.frame_stats) recover the blur, noise, chroma and ink
contrast put into synthetic images, so drawn and real frames can be compared by them."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.drawn.camera_model import chroma_420, jpeg
from vision.drawn.frame_stats import (
    EDGE_FLOOR,
    blockiness,
    box_quad,
    chroma_width,
    edge_width,
    frame_stats,
    index_contrast,
    noise,
    sigma_of_edge_width,
)

SUPER = 8  # supersampling: shapes are drawn 8x larger, blurred there, then area-reduced


def shapes(sigma: float, *, seed: int = 0, size: tuple[int, int] = (320, 240),
           colour: bool = False) -> np.ndarray:
    """Rectangles at random angles (bright paper on a dark table, and mid greys) blurred by
    a Gaussian of ``sigma`` output pixels before being sampled by area: a known blur.
    ``colour`` paints them red on white instead (float32 BGR)."""
    w, h = size
    rng = np.random.default_rng(seed)
    ground = (235, 235, 235) if colour else (60, 60, 60)
    big: np.ndarray = np.full((h * SUPER, w * SUPER, 3), ground, np.float32)
    for _ in range(12):
        cx, cy = rng.uniform(30, w - 30), rng.uniform(30, h - 30)
        box = cv2.boxPoints(((cx * SUPER, cy * SUPER), (rng.uniform(20, 50) * SUPER,
                             rng.uniform(20, 50) * SUPER), float(rng.uniform(0, 180))))
        ink = (40.0, 40.0, 200.0) if colour else (float(rng.choice([200, 230, 110])),) * 3
        cv2.fillConvexPoly(big, np.round(box).astype(np.int32), ink)
    if sigma > 0:
        big = cv2.GaussianBlur(big, (0, 0), sigma * SUPER)
    out: np.ndarray = cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA)
    return out


@pytest.mark.parametrize("sigma", [0.0, 0.5, 1.0, 1.5])
def test_edge_width_recovers_a_known_gaussian_blur(sigma: float) -> None:
    width, count = edge_width(shapes(sigma), min_bright=0)
    assert count > 200
    assert width == pytest.approx(math.hypot(2.5631 * sigma, EDGE_FLOOR), abs=0.12)
    assert sigma_of_edge_width(width) == pytest.approx(sigma, abs=0.06 if sigma else 0.12)


def test_edge_width_grows_with_blur_and_ignores_noise() -> None:
    widths = [edge_width(shapes(s), min_bright=0)[0] for s in (0.3, 0.7, 1.1)]
    assert widths == sorted(widths)
    noisy = shapes(0.7) + np.random.default_rng(1).normal(0, 3, (240, 320, 3))
    assert edge_width(noisy, min_bright=0)[0] == pytest.approx(widths[1], abs=0.1)


def test_edge_width_keeps_to_edges_with_a_bright_side() -> None:
    # Only mid greys on a dark ground: nothing reaches paper brightness.
    dim = np.clip(shapes(0.5) * 0.5, 0, 255)
    assert edge_width(dim, min_bright=0)[1] > 100
    width, count = edge_width(dim)
    assert count == 0 and math.isnan(width)


@pytest.mark.parametrize("sd", [1.0, 3.0, 6.0])
def test_noise_recovers_a_known_noise_under_shading_and_shapes(sd: float) -> None:
    h, w = 240, 320
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    shading = (0.75 + 0.25 * xx / w + 0.1 * np.sin(yy / 60))[..., None]  # a lamp's fall-off
    image = shapes(1.0) * shading + np.random.default_rng(2).normal(0, sd, (h, w, 3))
    # Grey from three channels of independent noise averages it down by the luma weights.
    expected = sd * math.sqrt(0.299 ** 2 + 0.587 ** 2 + 0.114 ** 2)
    assert noise(image) == pytest.approx(expected, rel=0.1)


def test_noise_skips_fills_and_reports_nothing_for_a_blank_frame() -> None:
    image = np.full((240, 320, 3), 120.0, np.float32)
    assert math.isnan(noise(image))
    image[:, 160:] += np.random.default_rng(3).normal(0, 2.0, (240, 160, 3))
    assert noise(image) == pytest.approx(2.0 * 0.67, rel=0.12)
    assert math.isnan(noise(image, brighter_than=200))


def test_chroma_width_widens_with_420_subsampling_and_the_luma_does_not() -> None:
    image = np.clip(shapes(0.4, colour=True), 0, 255).astype(np.uint8)
    full, count = chroma_width(image)
    half, _ = chroma_width(chroma_420(image))
    assert count > 100
    # A 2-pixel box on the chroma: its 10-90 % rise (1.6 px) adds in quadrature.
    assert half == pytest.approx(math.hypot(full, 1.6), abs=0.25)
    assert edge_width(chroma_420(image), min_bright=0)[0] == pytest.approx(
        edge_width(image, min_bright=0)[0], abs=0.15)


def test_blockiness_finds_a_jpeg_grid_and_none_without() -> None:
    image = np.clip(shapes(0.6) + np.random.default_rng(4).normal(0, 4, (240, 320, 3)),
                    0, 255).astype(np.uint8)
    assert blockiness(image) == pytest.approx(1.0, abs=0.05)
    assert blockiness(jpeg(image, quality=40)) > 1.15


def test_index_contrast_falls_as_a_thin_stroke_is_blurred() -> None:
    # A "1" and a "0" of 1.5 px strokes, dark ink on paper, drawn 8x larger and reduced by
    # area (no font: fonts differ between OpenCV versions).
    big = np.full((60 * SUPER, 60 * SUPER, 3), 230, np.uint8)
    stroke = round(1.5 * SUPER)
    big[12 * SUPER:40 * SUPER, 14 * SUPER:14 * SUPER + stroke] = 20
    for x0, y0, x1, y1 in ((24, 12, 40, 12), (24, 40, 40, 40), (24, 12, 24, 40), (40, 12, 40, 40)):
        big[y0 * SUPER:y1 * SUPER + stroke, x0 * SUPER:x1 * SUPER + stroke] = 20
    image = cv2.resize(big, (60, 60), interpolation=cv2.INTER_AREA)
    box = box_quad((4, 6, 56, 50))
    sharp = index_contrast(image, [box])
    soft = index_contrast(cv2.GaussianBlur(image, (0, 0), 1.2), [box])
    assert sharp == pytest.approx((230 - 20) / 230, abs=0.03)
    assert soft < sharp - 0.15
    assert math.isnan(index_contrast(image, []))
    stats = frame_stats(image, indices=[box])
    assert stats.index_contrast == pytest.approx(sharp)
