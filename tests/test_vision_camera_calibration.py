"""The drawn camera calibrated against real frames (issue 53, item 7): its frames' blur and
noise land near real frames of the same card height, and so does the recall they allow.

The measurements are ``vision.drawn.frame_stats``'s; the frames are
``benchmarks/vision/camera_calibration.py``'s (which prints the whole table)."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest
from benchscripts import load_benchmark

from vision.drawn.camera_model import CAMERA_MODULE_3, USB_WEBCAM
from vision.drawn.frame_stats import edge_width, sigma_of_edge_width
from vision.measure.datasets import datasets_root

# Tolerances of the drawn frame against the real ones at 1280x720, cards 86 px.
# Edge width, 10-90 % rise, px. The real frames are photos scaled down, sharper than any
# camera: the drawn one may be a little softer (1.8-1.9 against 1.6), not a pixel (2.7).
EDGE_PX = 0.4
NOISE_RATIO = (0.7, 1.5)  # paper noise, drawn / real
RECALL_POINTS = 0.08  # recall of the device's recogniser


def synthetic_table(size: tuple[int, int]) -> np.ndarray:
    """Paper-white rectangles on a dark table, drawn pixel-sharp (float32 BGR radiance)."""
    w, h = size
    image = np.full((h, w, 3), 70.0, np.float32)
    rng = np.random.default_rng(0)
    for _ in range(40):
        cx, cy = rng.uniform(40, w - 40), rng.uniform(40, h - 40)
        box = cv2.boxPoints(((cx, cy), (61.0, 86.0), float(rng.uniform(0, 180))))
        cv2.fillConvexPoly(image, np.round(box * 16).astype(np.int32), (225.0, 225.0, 225.0),
                           cv2.LINE_AA, 4)
    return image


@pytest.mark.parametrize("size", [(1280, 720), (2304, 1296)])
def test_the_camera_module_3_blurs_as_little_as_a_real_small_camera(size: tuple[int, int]
                                                                    ) -> None:
    # Before calibration the model's frames had edges of sigma 0.9-1.4 px (10-90 % rises of
    # 2.7-3.8 px) where real frames of the same card height measure 1.5-1.7 px.
    frame = CAMERA_MODULE_3.capture(synthetic_table(size), gain=None,
                                    rng=np.random.default_rng(1))
    width, count = edge_width(frame)
    assert count > 300
    assert 0.2 < sigma_of_edge_width(width) < 0.6


def test_the_lens_blur_lives_on_the_sensor_not_in_the_frame() -> None:
    full = CAMERA_MODULE_3.lens_sigma((4608, 2592))
    assert full == CAMERA_MODULE_3.lens_blur
    assert CAMERA_MODULE_3.lens_sigma((1280, 720)) == pytest.approx(full * 1280 / 4608)
    assert USB_WEBCAM.lens_sigma((1920, 1080)) == USB_WEBCAM.lens_blur


def _real_root() -> Path:
    root = datasets_root()
    if root is None or not (root / "epfl-iapr2022-poker-3000").is_dir() \
            or not (root / "roboflow-cardcounterml").is_dir():
        pytest.skip("../shared/datasets not present")
    return root


@pytest.mark.slow
def test_the_calibrated_camera_costs_the_drawing_little_recall() -> None:
    # Still frames of two deals at 1280x720, cards 86 px (28 cards): with the parameters
    # before calibration the camera read 0.75 where the crisp drawing reads 1.0 (2026-11-27);
    # real photos at this card height read 0.98 whether scaled or not.
    cal = load_benchmark("vision/camera_calibration")
    crisp = cal.measure(cal.drawn_shots(None, (1280, 720), [1, 2]))
    filmed = cal.measure(cal.drawn_shots(CAMERA_MODULE_3, (1280, 720), [1, 2]))
    assert filmed["cards"] == crisp["cards"] > 20
    assert filmed["recall"] >= crisp["recall"] - RECALL_POINTS
    assert filmed["wrong"] == 0


@pytest.mark.dataset
@pytest.mark.slow
def test_drawn_frames_match_real_frames_of_the_same_card_height() -> None:
    root = _real_root()
    cal = load_benchmark("vision/camera_calibration")
    shots = cal.real_sources(root, 2)["real epfl-3000 device 1280x720"]
    real = cal.measure(shots, recall=False)
    drawn = cal.measure(cal.drawn_shots(CAMERA_MODULE_3, (1280, 720), [1, 2]), recall=False)
    before = cal.measure(cal.drawn_shots(cal.BEFORE, (1280, 720), [1]), recall=False)
    assert abs(drawn["edge_width"] - real["edge_width"]) <= EDGE_PX
    # The tolerance can fail: the model before calibration was a pixel too soft.
    assert before["edge_width"] - real["edge_width"] > 2.5 * EDGE_PX
    low, high = NOISE_RATIO
    assert not math.isnan(real["paper_noise"])
    assert low <= drawn["paper_noise"] / real["paper_noise"] <= high


@pytest.mark.dataset
@pytest.mark.slow
@pytest.mark.skipif(int(cv2.__version__.split(".")[0]) < 5,
                    reason="OpenCV 4's putText draws the drawn deck's index glyphs bolder, and "
                           "the crisp drawing itself reads 0.54 there: card art, not camera")
def test_drawn_recall_agrees_with_real_photos_of_the_same_card_height() -> None:
    root = _real_root()
    cal = load_benchmark("vision/camera_calibration")
    real = cal.measure(cal.real_sources(root, 2)["real epfl-3000 device 1280x720"])
    drawn = cal.measure(cal.drawn_shots(CAMERA_MODULE_3, (1280, 720), [1, 2]))
    assert real["wrong"] == drawn["wrong"] == 0
    assert abs(drawn["recall"] - real["recall"]) <= RECALL_POINTS
