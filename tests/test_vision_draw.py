"""Drawing detections for people to look at."""

from __future__ import annotations

import numpy as np

from engine.cards import Card
from vision.recognise.detection import Detection
from vision.recognise.draw import KNOWN, UNKNOWN, draw_detections


def test_draws_outline_and_leaves_input_alone() -> None:
    img = np.full((200, 300, 3), 90, np.uint8)
    dets = [
        Detection(
            Card.parse("5H"), ((20.0, 20.0), (80.0, 20.0), (80.0, 110.0), (20.0, 110.0)), 0.97
        ),
        Detection(None, ((150.0, 30.0), (210.0, 30.0), (210.0, 120.0), (150.0, 120.0)), 0.4),
    ]
    out = draw_detections(img, dets)
    assert (img == 90).all()
    assert out.shape == img.shape
    edge = out[18:23, 40:60].reshape(-1, 3).astype(int)
    assert (np.abs(edge - KNOWN).sum(axis=1) < 60).any()
    edge = out[28:33, 170:190].reshape(-1, 3).astype(int)
    assert (np.abs(edge - UNKNOWN).sum(axis=1) < 60).any()


def test_nothing_to_draw_is_a_copy() -> None:
    img = np.zeros((10, 10, 3), np.uint8)
    out = draw_detections(img, [])
    assert (out == img).all() and out is not img
