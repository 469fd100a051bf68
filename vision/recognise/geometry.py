"""Plane geometry the detection stages share: which points lie inside a card's outline."""

from __future__ import annotations

import numpy as np

__all__ = ["points_in_quad"]


def points_in_quad(points: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """Which of ``points`` (n, 2) lie inside (or on) the convex quadrilateral ``quad`` (4, 2).

    All four edges at once: a frame asks this a dozen times, mostly of one point, so the
    numpy calls are the cost, not the arithmetic.
    """
    points = np.asarray(points, np.float64).reshape(-1, 2)
    a = np.asarray(quad, np.float64)
    b = np.roll(a, -1, axis=0)
    sign = 1.0 if float(np.sum(a[:, 0] * b[:, 1] - b[:, 0] * a[:, 1])) >= 0 else -1.0
    # cross[k, i]: which side of edge k (a[k] -> b[k]) point i lies on.
    cross = ((b[:, 0:1] - a[:, 0:1]) * (points[None, :, 1] - a[:, 1:2])
             - (b[:, 1:2] - a[:, 1:2]) * (points[None, :, 0] - a[:, 0:1]))
    return np.asarray(np.all(cross * sign >= 0, axis=0))
