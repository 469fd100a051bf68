"""Recognition for still photos whose pixels may not be square: ``recognise_photo``.

The device's camera gives square pixels, so its frames go to ``recognise`` as they
are. A photo from elsewhere often does not: tools and datasets resize 16:9 and 4:3
shots to a square (the Roboflow set's 640x640 copies), which narrows every glyph
to 0.56 or 0.75 of its width. The network is trained on squashed glyphs too, but
in a fan of narrowed indices each patch also takes in its neighbours (a patch is
as wide as the index is long), and the neighbour's rank wins: a K between a 10 and a
9 read 10S at 0.95. So a photo is also read widened back to each common camera
shape, and a widened reading replaces the photo's own only when it is surer of its
cards by a clear margin. A card the chosen reading leaves out is still added when
every other reading names it surely and the chosen one names nothing where it lies:
each shape loses different cards to its neighbours. Nothing about a photo but its
pixels decides.

This reads a photo ``1 + len(aspects)`` times; it is for photos (``vision
eval``, ``vision show``), not for the camera's frames and their 25 ms budget.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import cv2
import numpy as np

from vision.recognise.classifier import MODEL_PATH, ScoreAdjuster
from vision.recognise.detection import DEFAULT_MIN_CONFIDENCE, Detection, index_centres, recognise
from vision.recognise.focus import blur_sigma
from vision.recognise.frames import check_frame

__all__ = ["recognise_photo", "PHOTO_ASPECTS", "ASPECT_MARGIN", "AGREED_CONFIDENCE"]

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
# A card the chosen reading leaves out is added when every other reading names it at
# least this surely and no card the chosen reading names sits on its index. Chosen on the
# validation fold with the same two networks: 0.8 (as 0.7) found 4 and 3 more of Roboflow's
# 224 val cards, 0.9 one fewer each, 0.95 two fewer; none of them added a wrong card.
AGREED_CONFIDENCE = 0.8
# Two index centres closer than this (x the index's rank-to-suit span) are one index. Wide
# on purpose: a neighbour this close in a tight fan keeps a card out, the cheaper mistake.
SAME_INDEX = 1.0


def _named_confidence(detections: list[Detection]) -> float:
    return sum(d.confidence for d in detections if d.card is not None)


def _narrowed(detection: Detection, scale: float) -> Detection:
    """The detection's corners in the photo's own pixels, from a copy ``scale`` times wider
    (``cv2.resize`` maps pixel centres: x' + 0.5 = (x + 0.5) * scale)."""
    (a, b, c, d) = ((float((x + 0.5) / scale - 0.5), y) for x, y in detection.corners)
    return replace(detection, corners=(a, b, c, d))


def _same_place(a: Detection, b: Detection) -> bool:
    """Whether any corner index of ``a`` lies on one of ``b``'s."""
    (ia, span_a), (ib, span_b) = index_centres(a.corners), index_centres(b.corners)
    gap = np.hypot(*(ia[:, None, :] - ib[None, :, :]).transpose(2, 0, 1))
    return bool(np.any(gap < SAME_INDEX * min(span_a, span_b)))


def _agreed(chosen: list[Detection], others: list[list[Detection]]) -> list[Detection]:
    """The chosen reading, plus each card every other reading names ``AGREED_CONFIDENCE`` surely.

    One reading of a squashed photo can lose a card to its neighbour's rank that the
    other shapes all read. A deck holds each card once, so readings that name the same
    card have seen the same card; it is added where the chosen reading names no other
    card on its index (that would be one of the two readings wrong, and a wrong card
    costs more than a missing one), and an unknown reported there is dropped. The added
    card carries its least sure reading's confidence.
    """
    if not others:
        return chosen
    sure = [{d.card: d for d in found if d.card is not None and d.confidence >= AGREED_CONFIDENCE}
            for found in others]
    named = {d.card for d in chosen if d.card is not None}
    out = list(chosen)
    for card, first in sure[0].items():
        if card in named:
            continue
        seen = [s[card] for s in sure[1:] if card in s]
        if len(seen) < len(sure) - 1:
            continue
        if any(d.card is not None and _same_place(first, d) for d in out):
            continue
        least_sure = min([first, *seen], key=lambda d: d.confidence)
        out = [d for d in out if d.card is not None or not _same_place(first, d)]
        out.append(least_sure)
    out.sort(key=lambda d: -d.confidence)
    return out


def recognise_photo(
    image: np.ndarray,
    *,
    min_confidence: float = DEFAULT_MIN_CONFIDENCE,
    model_path: str = str(MODEL_PATH),
    deck: ScoreAdjuster | None = None,
    aspects: Sequence[float] = PHOTO_ASPECTS,
) -> list[Detection]:
    """Reads a BGR photo as it is and widened by each of ``aspects``; returns the surest
    reading, with the cards every other reading agrees on.

    Corners are always in ``image``'s own pixels. ``aspects`` of () reads the photo once,
    exactly as ``recognise`` does.
    """
    for aspect in aspects:
        if not 1.0 < aspect <= 4.0:
            raise ValueError(f"a photo is widened by 1-4 times its width, got aspect {aspect}")
    check_frame(image, "recognise_photo")
    # Every reading is sharpened as the photo is (vision.recognise.focus): widening softens edges
    # across, which is no lens's blur.
    blur = blur_sigma(image)
    readings = [recognise(image, min_confidence=min_confidence, model_path=model_path, deck=deck,
                          blur=blur)]
    height, width = image.shape[:2]
    for aspect in aspects:
        wide = cv2.resize(image, (round(width * aspect), height), interpolation=cv2.INTER_LINEAR)
        found = recognise(wide, min_confidence=min_confidence, model_path=model_path, deck=deck,
                          blur=blur)
        readings.append([_narrowed(d, wide.shape[1] / width) for d in found])
    best, to_beat = 0, _named_confidence(readings[0]) + ASPECT_MARGIN
    for k in range(1, len(readings)):
        score = _named_confidence(readings[k])
        if score > to_beat:
            best, to_beat = k, score
    # Every reading names only cards at min_confidence or more, so a higher floor holds.
    return _agreed(readings[best], readings[:best] + readings[best + 1:])
