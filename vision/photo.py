"""Recognition for still photos whose pixels may not be square: ``recognise_photo``.

The device's camera gives square pixels, so its frames go to ``recognise`` as they
are. A photo from elsewhere often does not: tools and datasets resize 16:9 and 4:3
shots to a square (the Roboflow set's 640x640 copies), which narrows every glyph
to 0.56 or 0.75 of its width. The network is trained on squashed glyphs too, but
in a fan of narrowed indices each patch also takes in its neighbours (a patch is
as wide as the index is long), and the neighbour's rank wins: a K between a 10 and a
9 read 10S at 0.95. So a photo is also read widened back to each common camera
shape, and a widened reading replaces the photo's own only when it is surer of its
cards by a clear margin. Nothing about a photo but its pixels decides.

This reads a photo up to ``1 + len(aspects)`` times; it is for photos (``vision
eval``, ``vision show``), not for the camera's frames and their 25 ms budget.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import cv2
import numpy as np

from vision.classifier import MODEL_PATH, ScoreAdjuster
from vision.detection import DEFAULT_MIN_CONFIDENCE, Detection, recognise

__all__ = ["recognise_photo", "PHOTO_ASPECTS", "ASPECT_MARGIN"]

# How much wider a photo is read: back from a square to 4:3 and to 16:9, the shapes
# of phone and webcam shots. Narrowing (portrait shots squared) was measured on the
# validation fold and found nothing (vision/training/README.md, "Photos squashed to a square").
PHOTO_ASPECTS: tuple[float, ...] = (4 / 3, 16 / 9)
# A widened reading must be surer of its named cards, summed, by this much: two whole
# cards read at full confidence. Chosen on the validation fold with two networks that
# never saw it: a margin of 1 found 5 cards more than 2 for 2 wrong (the same soft 9D's
# corner read 9S), and a wrong card may cost as much as ten missing ones (the training
# README's price, since the device can ask again but cannot un-score a wrong fifteen).
ASPECT_MARGIN = 2.0


def _named_confidence(detections: list[Detection]) -> float:
    return sum(d.confidence for d in detections if d.card is not None)


def _narrowed(detection: Detection, scale: float) -> Detection:
    """The detection's corners in the photo's own pixels, from a copy ``scale`` times wider
    (``cv2.resize`` maps pixel centres: x' + 0.5 = (x + 0.5) * scale)."""
    (a, b, c, d) = ((float((x + 0.5) / scale - 0.5), y) for x, y in detection.corners)
    return replace(detection, corners=(a, b, c, d))


def recognise_photo(
    image: np.ndarray,
    *,
    min_confidence: float = DEFAULT_MIN_CONFIDENCE,
    model_path: str = str(MODEL_PATH),
    deck: ScoreAdjuster | None = None,
    aspects: Sequence[float] = PHOTO_ASPECTS,
) -> list[Detection]:
    """Reads a BGR photo as it is and widened by each of ``aspects``; returns the surest reading.

    Corners are always in ``image``'s own pixels. ``aspects`` of () reads the photo once,
    exactly as ``recognise`` does.
    """
    for aspect in aspects:
        if not 1.0 < aspect <= 4.0:
            raise ValueError(f"a photo is widened by 1-4 times its width, got aspect {aspect}")
    best = recognise(image, min_confidence=min_confidence, model_path=model_path, deck=deck)
    if not aspects:
        return best
    # recognise has checked the array; a widened copy keeps its height and channels.
    height, width = image.shape[:2]
    to_beat = _named_confidence(best) + ASPECT_MARGIN
    for aspect in aspects:
        wide = cv2.resize(image, (round(width * aspect), height), interpolation=cv2.INTER_LINEAR)
        found = recognise(wide, min_confidence=min_confidence, model_path=model_path, deck=deck)
        score = _named_confidence(found)
        if score > to_beat:
            best = [_narrowed(d, wide.shape[1] / width) for d in found]
            to_beat = score
    return best
