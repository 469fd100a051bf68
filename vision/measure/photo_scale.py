"""How large a labelled photo's cards are, and the photo in the pixels its camera took.

Scale comes from the labels, never from the recogniser: a Roboflow photo's cards are
``CARD_PER_INDEX_BOX`` times the median long side of its labelled corner boxes, and the EPFL
set (no boxes) has one measured card height. Roboflow's webcam photos (``WIN_``) were
stretched to 640x640 from 16:9 and are widened back before they are scaled to a camera's
geometry; its phone photos (``IMG_``) are used as stored, their shape unknown. The benchmarks
(``benchmarks/vision/photos.py``) and the training at device geometry
(``vision.training.device_patches``) scale photos by these alike.
"""

from __future__ import annotations

import statistics

import cv2
import numpy as np

from vision.measure.datasets import LabelledImage

__all__ = ["CARD_PER_INDEX_BOX", "EPFL_3000_CARD_HEIGHT", "STREAM", "DEVICE_CARD_ROWS",
           "WEBCAM_ASPECT", "card_height", "widened", "widening"]

# A card's height over its labelled corner box's longer side: 3.8-4.5 measured by eye on
# Roboflow webcam photos (a 10C 165 px tall with a 43 px box, a JD 210 px with 47 px).
CARD_PER_INDEX_BOX = 4.0
# EPFL at 3000 px wide: cards measure 281 px tall (median of the 20 outlines of card
# proportions that ``find_card_quads`` finds in the first six photos, 271-361).
EPFL_3000_CARD_HEIGHT = 281.0
STREAM = (1280, 720)
# Cards 60-90 px tall per 720 rows: a 1 m table under the stream's 66 x 41 degree lens.
DEVICE_CARD_ROWS = (60.0, 90.0)
WEBCAM_ASPECT = 16 / 9


def card_height(item: LabelledImage, shape: tuple[int, ...], dataset: str) -> float:
    """The photo's card height in its own pixels, from its labels (never from the recogniser)."""
    if dataset.startswith("epfl"):
        return EPFL_3000_CARD_HEIGHT * shape[1] / 3000.0
    sides = [max(b[2] - b[0], b[3] - b[1]) for _, b in item.corner_boxes]
    if not sides:
        raise ValueError(f"{item.path.name}: no corner boxes to size its cards by")
    return CARD_PER_INDEX_BOX * statistics.median(sides)


def widening(image: np.ndarray, name: str) -> float:
    """How much wider than stored a photo's square pixels are: 16:9 over 1 for a webcam
    photo stretched to a square (``WIN_``), else 1."""
    h, w = image.shape[:2]
    if name.startswith("WIN_") and abs(w - h) < 2:
        return float(int(round(h * WEBCAM_ASPECT)) / w)
    return 1.0


def widened(image: np.ndarray, name: str) -> np.ndarray:
    """A webcam photo stretched to a square, widened back to 16:9 (square pixels)."""
    factor = widening(image, name)
    if factor == 1.0:
        return image
    h, w = image.shape[:2]
    return cv2.resize(image, (int(round(w * factor)), h), interpolation=cv2.INTER_CUBIC)
