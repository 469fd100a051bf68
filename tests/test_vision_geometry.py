"""Which points lie inside a card's outline."""

from __future__ import annotations

import numpy as np
import pytest

from vision.recognise.geometry import points_in_quad

# A card turned 30 degrees, its corners clockwise on screen (y down).
TURN = np.deg2rad(30)
AXES = np.array([[np.cos(TURN), np.sin(TURN)], [-np.sin(TURN), np.cos(TURN)]])
QUAD = np.array([[0.0, 0.0], [63.0, 0.0], [63.0, 88.0], [0.0, 88.0]]) @ AXES + (200.0, 100.0)


@pytest.mark.parametrize("winding", [1, -1])
def test_points_inside_on_and_outside_an_outline_either_way_round(winding: int) -> None:
    quad = QUAD[::winding]
    centre = QUAD.mean(axis=0)
    edge_middle = (QUAD[0] + QUAD[1]) / 2
    outside = centre + 3 * (edge_middle - centre)
    points = np.array([centre, edge_middle, QUAD[2], outside])
    assert points_in_quad(points, quad).tolist() == [True, True, True, False]


def test_one_point_or_none() -> None:
    assert points_in_quad(QUAD.mean(axis=0), QUAD).tolist() == [True]
    assert points_in_quad(np.zeros((0, 2)), QUAD).shape == (0,)
