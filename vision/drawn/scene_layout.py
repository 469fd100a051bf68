"""Where things lie on a drawn table: the seats, the starter's and the crib's areas, and a
card's outline in the table's plane (``vision.drawn.scene``'s layout).

``TableLayout`` is a top-down plan the size of the frame; ``vision.drawn.scene_placement``
lays cards on it step by step and ``vision.drawn.scene_render`` films it through a camera.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vision.drawn.camera_model import CameraModel
from vision.drawn.cardart import CARD_ASPECT
from vision.live.zones import CRIB, STARTER

__all__ = ["Corners", "Point", "SceneError", "Seat", "TableLayout"]

Point = tuple[float, float]
Corners = tuple[Point, Point, Point, Point]


class SceneError(ValueError):
    """A script or setting no scene can be drawn from."""


@dataclass(frozen=True, slots=True)
class Seat:
    """A player's place: the middle of their card area and the way they face the table.

    ``angle`` (degrees, clockwise on screen) turns a card so it reads upright to
    this player; ``edge`` is where their arm enters the picture.
    """

    anchor: Point
    angle: float
    edge: Point

    @property
    def along(self) -> Point:
        """Unit vector to the player's right as they face the table: the way a fan grows."""
        a = math.radians(self.angle)
        return (math.cos(a), math.sin(a))


@dataclass(frozen=True, slots=True)
class TableLayout:
    """Areas in table-plane pixels (a top-down view the size of the frame)."""

    size: tuple[int, int]
    card_height: float
    seats: tuple[Seat, ...]
    starter: Point
    crib: Point

    @classmethod
    def for_players(cls, players: int, *, size: tuple[int, int] = (1280, 720),
                    card_height: float = 0.2) -> TableLayout:
        """Seats clockwise from the bottom edge; ``card_height`` is a fraction of frame height.

        Four players sit at all four edges, so their cards are drawn a little smaller.
        """
        if not 2 <= players <= 4:
            raise SceneError(f"a table seats 2 to 4 players, not {players!r}")
        w, h = size
        ch = card_height * h * (0.85 if players == 4 else 1.0)
        bottom = Seat((0.5 * w, h - 0.78 * ch), 0.0, (0.5 * w + 0.08 * w, h))
        left = Seat((0.12 * w, 0.5 * h), 90.0, (0.0, 0.5 * h + 0.1 * h))
        top = Seat((0.5 * w, 0.78 * ch), 180.0, (0.5 * w - 0.08 * w, 0.0))
        right = Seat((0.88 * w, 0.5 * h), 270.0, (float(w), 0.5 * h - 0.1 * h))
        seats = {2: (bottom, top), 3: (bottom, left, top), 4: (bottom, left, top, right)}
        spread = 0.25 if players == 2 else 0.14
        return cls(size, ch, seats[players], ((0.5 - spread) * w, 0.5 * h),
                   ((0.5 + spread) * w, 0.5 * h))

    @classmethod
    def for_camera(cls, players: int, camera: CameraModel | None) -> TableLayout:
        """Seats for ``players`` with cards as large as ``camera`` sees them (a card's
        height over the field of view's height); None keeps the drawn table's large cards."""
        if camera is None:
            return cls.for_players(players)
        return cls.for_players(players, card_height=camera.card_fraction())

    @property
    def card_width(self) -> float:
        return self.card_height * CARD_ASPECT

    def anchor(self, zone: str, players: Sequence[str]) -> tuple[Point, float]:
        """Where a card laid in ``zone`` goes and its angle: a seat's middle, starter or crib."""
        if zone == STARTER:
            return self.starter, 0.0
        if zone == CRIB:
            return self.crib, 0.0
        seat = self.seats[list(players).index(zone)]
        return seat.anchor, seat.angle

    def outline(self, centre: Point, angle: float) -> np.ndarray:
        """A card's corners (4, 2) in the plane, clockwise from its top-left as it reads upright."""
        hw, hh = self.card_width / 2, self.card_height / 2
        a = math.radians(angle)
        r = np.array([math.cos(a), math.sin(a)])
        d = np.array([-math.sin(a), math.cos(a)])
        c = np.asarray(centre, np.float64)
        return np.array([c - hw * r - hh * d, c + hw * r - hh * d, c + hw * r + hh * d,
                         c - hw * r + hh * d])
