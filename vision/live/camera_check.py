"""Whether a mounted camera sees the cards big enough to read: ``check_camera(frame)``.

The person mounting the board cannot judge pixels by eye, and the recogniser's recall falls
off a cliff below a certain card size (real photos scaled down, read as the device reads its
frames: ``benchmarks/vision/accuracy.py --geometry device:1280x720 --heights``). So the
check measures the cards the recogniser finds in one frame (each card's outline, read or
not), turns their median height into the corner index's height, and says in words whether
that is enough and, if not, what resolution or mounting height would make it so. The
thresholds are that benchmark's measured curve, not guesses.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from vision.recognise.detection import Detection, recognise
from vision.recognise.geometry import points_in_quad
from vision.recognise.whole_cards import find_card_quads

__all__ = ["CameraCheck", "check_camera", "card_outlines", "card_heights", "card_size",
           "GOOD_CARD_PX", "MIN_CARD_PX", "INDEX_PER_CARD", "RESOLUTIONS"]

Outline = Sequence[tuple[float, float]]

# Measured on the val fold of both sets (benchmarks/vision/accuracy.py --geometry
# device:1280x720 --split val --heights 45,60,75,90, 1280x720 frames, 2026-11-26): recall
# at card heights 45 / 60 / 75 / 90 px was EPFL 0.28 / 0.89 / 0.96 / 0.98 and Roboflow
# 0.50 / 0.88 / 0.93 / 0.95. From this card height up recall is 0.95 or more ...
GOOD_CARD_PX = 90.0
# ... and below this it falls off a cliff (a half or more of the cards lost at 45 px).
MIN_CARD_PX = 60.0
# A corner index (the rank's glyph) is this share of the card's height: 8 px on a 90 px card.
INDEX_PER_CARD = 8.0 / 90.0
# Stream sizes the supported cameras give over their full field of view, smallest first
# (docs/building.md): a USB webcam's 1280x720 and 1920x1080, a Camera Module 3's 2304x1296
# and its stills' 4608x2592.
RESOLUTIONS: tuple[tuple[int, int], ...] = ((1280, 720), (1920, 1080), (2304, 1296), (4608, 2592))

Verdict = Literal["good", "marginal", "too small", "no cards"]


@dataclass(frozen=True, slots=True)
class CameraCheck:
    """One frame's verdict: the cards measured, their median card and index heights (px), and
    what to change, in words."""

    frame: tuple[int, int]
    cards: int
    card_px: float | None
    index_px: float | None
    verdict: Verdict
    advice: str

    def to_json(self) -> dict[str, object]:
        """The ``calibrate --check --json`` object."""
        return {"frame": list(self.frame), "cards": self.cards, "card_px": self.card_px,
                "index_px": self.index_px, "verdict": self.verdict, "advice": self.advice,
                "good_card_px": GOOD_CARD_PX, "min_card_px": MIN_CARD_PX}


def card_outlines(image: np.ndarray, detections: Sequence[Detection] | None = None
                  ) -> list[Outline]:
    """Every card in a BGR frame: those the recogniser finds (read or not), and the free-lying
    ones whose outline alone is found: a card too small to read is still a card to measure.
    ``detections`` is the recogniser's reading of ``image`` where the caller has it already
    (``calibrate --check`` also counts the cards read)."""
    found = recognise(image) if detections is None else detections
    outlines: list[Outline] = [d.corners for d in found]
    for quad in find_card_quads(image):
        centre = np.asarray(quad.corners, np.float64).mean(axis=0)
        if not any(points_in_quad(centre, np.asarray(o))[0] for o in outlines):
            outlines.append([(float(x), float(y)) for x, y in quad.corners])
    return outlines


def card_size(outline: Outline) -> tuple[float, float]:
    """A card's size in pixels along its outline's first side and the next (across and down
    for a card outlined from its top-left corner): each the mean of a pair of opposite sides,
    so a card seen a little askew measures as it lies."""
    c = np.asarray(outline, np.float64)
    sides = [float(np.hypot(*(c[(i + 1) % 4] - c[i]))) for i in range(4)]
    return 0.5 * (sides[0] + sides[2]), 0.5 * (sides[1] + sides[3])


def card_heights(outlines: Sequence[Outline]) -> list[float]:
    """Each card's height in pixels: the longer of its ``card_size``, whichever way it lies."""
    return [max(card_size(outline)) for outline in outlines]


def check_camera(frame_size: tuple[int, int], outlines: Sequence[Outline], *,
                 mount_cm: float | None = None) -> CameraCheck:
    """Judges a frame of ``frame_size`` (width, height) from its cards' outlines
    (``card_outlines``).

    ``mount_cm`` is the camera's height over the table, where the person knows it: the advice
    then names the height that would do as well as the resolution.
    """
    if mount_cm is not None and not (mount_cm > 0 and math.isfinite(mount_cm)):
        raise ValueError(f"mounting height {mount_cm!r} cm: expected a positive number")
    heights = card_heights(outlines)
    width, height = frame_size
    if not heights:
        return CameraCheck(frame_size, 0, None, None, "no cards",
                           "no cards seen: lay three or four cards face up where they are "
                           "played and check again")
    card_px = round(statistics.median(heights), 1)
    index_px = round(card_px * INDEX_PER_CARD, 1)
    verdict: Verdict = ("good" if card_px >= GOOD_CARD_PX
                        else "marginal" if card_px >= MIN_CARD_PX else "too small")
    measured = (f"cards {card_px:g} px tall, corner indices {index_px:g} px "
                f"({len(heights)} card{'s' if len(heights) != 1 else ''} at {width}x{height})")
    if verdict == "good":
        return CameraCheck(frame_size, len(heights), card_px, index_px, verdict,
                           f"{measured}: good")
    need = GOOD_CARD_PX / card_px
    fixes = []
    bigger = [r for r in RESOLUTIONS if r[0] >= width * need - 0.5]
    if bigger:
        fixes.append(f"raise the resolution to {bigger[0][0]}x{bigger[0][1]}")
    if mount_cm is not None:
        fixes.append(f"lower the camera to {math.floor(mount_cm / need):g} cm")
    else:
        fixes.append(f"lower the camera to {math.floor(100 / need):g}% of its height")
    word = "too small" if verdict == "too small" else "small: some cards will be missed"
    return CameraCheck(frame_size, len(heights), card_px, index_px, verdict,
                       f"{measured}: {word}; {' or '.join(fixes)}")
