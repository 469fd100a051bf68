"""Draws detections on a frame for people to look at (``cribbage-board vision show``)."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.recognise.detection import Detection

__all__ = ["draw_detections"]

KNOWN = (40, 200, 40)
UNKNOWN = (0, 140, 255)


def draw_detections(image: np.ndarray, detections: Sequence[Detection]) -> np.ndarray:
    """Returns a copy of ``image`` with each card's outline and name (or "?") drawn on it."""
    out = image.copy()
    short = min(out.shape[:2])
    thick = max(1, round(short / 300))
    scale = max(0.4, short / 900)
    for det in detections:
        colour = KNOWN if det.card is not None else UNKNOWN
        pts = np.array(det.corners, np.float32).round().astype(np.int32)
        cv2.polylines(out, [pts], True, colour, thick, cv2.LINE_AA)
        label = f"{det.card} {det.confidence:.2f}" if det.card is not None else "?"
        x, y = pts.mean(axis=0).astype(int)
        (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
        org = (int(x - tw / 2), int(y + th / 2))
        cv2.rectangle(out, (org[0] - 3, org[1] - th - 3), (org[0] + tw + 3, org[1] + 5),
                      (255, 255, 255), -1)
        cv2.putText(out, label, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thick, cv2.LINE_AA)
    return out
