"""Plane geometry the detection stages share: which points lie inside a card's outline."""

from __future__ import annotations

import numpy as np

__all__ = ["points_in_quad"]


def points_in_quad(points: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """Which of ``points`` (n, 2) lie inside (or on) the convex quadrilateral ``quad`` (4, 2)."""
    points = np.asarray(points, np.float64).reshape(-1, 2)
    q = np.asarray(quad, np.float64)
    nxt = np.roll(q, -1, axis=0)
    sign = 1.0 if float(np.sum(q[:, 0] * nxt[:, 1] - nxt[:, 0] * q[:, 1])) >= 0 else -1.0
    inside = np.ones(len(points), bool)
    for a, b in zip(q, nxt, strict=True):
        cross = (b[0] - a[0]) * (points[:, 1] - a[1]) - (b[1] - a[1]) * (points[:, 0] - a[0])
        inside &= cross * sign >= 0
    return inside
