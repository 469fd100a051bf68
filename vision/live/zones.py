"""Table zones: where each seat's area, the starter and the crib lie in the camera frame.

Zones are convex polygons in frame pixels. A card belongs to the zone that
holds most of its outline, so a card laid across a boundary still lands in
exactly one zone (or none, when too little of it is inside any), and the
answer never depends on which corner happened to be read.

Calibration needs one frame: the players lay one card in each area, and the
frame is split into the cells nearest each of those cards (a Voronoi split),
which is what people mean by "the cards in front of Ann".
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.cards import Card

__all__ = [
    "Zone", "TableZones", "ZoneError", "polygon_area", "clip_polygon", "centroid",
    "default_markers", "STARTER", "CRIB", "AreaView", "areas_in_view", "share_in_frame",
]

Point = tuple[float, float]
Polygon = tuple[Point, ...]

STARTER = "starter"
CRIB = "crib"
_MARKER_SUITS = "CDHS"

# A card counts as inside a zone only when at least this share of it is.
MIN_SHARE = 0.25


class ZoneError(ValueError):
    """A zone definition that cannot work: too few points, not convex, overlapping."""


def polygon_area(polygon: Sequence[Point]) -> float:
    """Signed area (shoelace): positive when the points run anticlockwise in y-up terms."""
    total = 0.0
    for (x0, y0), (x1, y1) in zip(polygon, [*polygon[1:], polygon[0]], strict=True):
        total += x0 * y1 - x1 * y0
    return total / 2


def centroid(polygon: Sequence[Point]) -> Point:
    area = polygon_area(polygon)
    if abs(area) < 1e-9:
        xs, ys = zip(*polygon, strict=True)
        return (sum(xs) / len(xs), sum(ys) / len(ys))
    cx = cy = 0.0
    for (x0, y0), (x1, y1) in zip(polygon, [*polygon[1:], polygon[0]], strict=True):
        cross = x0 * y1 - x1 * y0
        cx += (x0 + x1) * cross
        cy += (y0 + y1) * cross
    return (cx / (6 * area), cy / (6 * area))


def _is_convex(polygon: Sequence[Point]) -> bool:
    sign = 0
    n = len(polygon)
    for i in range(n):
        (x0, y0), (x1, y1), (x2, y2) = polygon[i], polygon[(i + 1) % n], polygon[(i + 2) % n]
        cross = (x1 - x0) * (y2 - y1) - (y1 - y0) * (x2 - x1)
        if abs(cross) < 1e-9:
            continue
        if sign == 0:
            sign = 1 if cross > 0 else -1
        elif (cross > 0) != (sign > 0):
            return False
    return sign != 0


def clip_polygon(subject: Sequence[Point], clip: Sequence[Point]) -> list[Point]:
    """The part of ``subject`` inside the convex polygon ``clip`` (Sutherland-Hodgman)."""
    orientation = 1.0 if polygon_area(clip) > 0 else -1.0
    output = list(subject)
    for (ax, ay), (bx, by) in zip(clip, [*clip[1:], clip[0]], strict=True):
        if not output:
            break
        points, output = output, []

        def inside(p: Point, ax: float = ax, ay: float = ay, bx: float = bx,
                   by: float = by) -> bool:
            return orientation * ((bx - ax) * (p[1] - ay) - (by - ay) * (p[0] - ax)) >= 0

        def crossing(p: Point, q: Point, ax: float = ax, ay: float = ay, bx: float = bx,
                     by: float = by) -> Point:
            dx, dy = q[0] - p[0], q[1] - p[1]
            ex, ey = bx - ax, by - ay
            denominator = ex * dy - ey * dx
            t = (ey * (p[0] - ax) - ex * (p[1] - ay)) / denominator
            return (p[0] + t * dx, p[1] + t * dy)

        for i, current in enumerate(points):
            previous = points[i - 1]
            if inside(current):
                if not inside(previous):
                    output.append(crossing(previous, current))
                output.append(current)
            elif inside(previous):
                output.append(crossing(previous, current))
    return output


@dataclass(frozen=True, slots=True)
class Zone:
    """One area of the table. ``name`` is a player's name, ``"starter"`` or ``"crib"``."""

    name: str
    polygon: Polygon

    def __post_init__(self) -> None:
        if len(self.polygon) < 3:
            raise ZoneError(f"zone {self.name!r} needs at least 3 points, got {self.polygon!r}")
        if not _is_convex(self.polygon):
            raise ZoneError(f"zone {self.name!r} must be a convex polygon: {self.polygon!r}")

    @property
    def area(self) -> float:
        return abs(polygon_area(self.polygon))

    def share_of(self, outline: Sequence[Point]) -> float:
        """How much of ``outline`` (a card's corners) lies inside this zone, 0..1."""
        card = abs(polygon_area(outline))
        if card <= 0:
            return 1.0 if self.contains(centroid(outline)) else 0.0
        inside = clip_polygon(outline, self.polygon)
        return abs(polygon_area(inside)) / card if len(inside) >= 3 else 0.0

    def contains(self, point: Point) -> bool:
        orientation = 1.0 if polygon_area(self.polygon) > 0 else -1.0
        return all(
            orientation * ((bx - ax) * (point[1] - ay) - (by - ay) * (point[0] - ax)) >= 0
            for (ax, ay), (bx, by) in zip(self.polygon, [*self.polygon[1:], self.polygon[0]],
                                          strict=True)
        )


@dataclass(frozen=True, slots=True)
class TableZones:
    """All zones of one table, checked not to overlap."""

    zones: tuple[Zone, ...]

    def __post_init__(self) -> None:
        names = [z.name for z in self.zones]
        if len(set(names)) != len(names):
            raise ZoneError(f"zone names must be distinct: {names!r}")
        for i, a in enumerate(self.zones):
            for b in self.zones[i + 1:]:
                shared = clip_polygon(a.polygon, b.polygon)
                if len(shared) >= 3 and abs(polygon_area(shared)) > 0.01 * min(a.area, b.area):
                    raise ZoneError(f"zones {a.name!r} and {b.name!r} overlap")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(z.name for z in self.zones)

    def assign(self, outline: Sequence[Point]) -> str | None:
        """The zone holding most of the card, or None when no zone holds a quarter of it.

        A card exactly on a boundary goes to the zone whose centre is nearer the card's.
        """
        shares = [(zone.share_of(outline), zone) for zone in self.zones]
        best = max((share for share, _ in shares), default=0.0)
        if best < MIN_SHARE:
            return None
        tied = [zone for share, zone in shares if share >= best - 1e-6]
        middle = centroid(outline)
        return min(tied, key=lambda z: math.dist(centroid(z.polygon), middle)).name

    @classmethod
    def from_markers(cls, size: tuple[int, int], markers: Mapping[str, Sequence[Point]]
                     ) -> TableZones:
        """Splits a ``(width, height)`` frame into the cells nearest each marker card.

        ``markers`` maps a zone name to the outline of the card laid there at calibration.
        """
        if len(markers) < 2:
            raise ZoneError(f"calibration needs a card in at least 2 areas, got {len(markers)}")
        width, height = size
        frame: list[Point] = [(0, 0), (width, 0), (width, height), (0, height)]
        centres = {name: centroid(outline) for name, outline in markers.items()}
        zones = []
        for name, centre in centres.items():
            cell = frame
            for other, far in centres.items():
                if other == name:
                    continue
                if math.dist(centre, far) < 1e-6:
                    raise ZoneError(f"the cards for {name!r} and {other!r} lie on the same spot")
                cell = _half_plane(cell, centre, far)
            zones.append(Zone(name, tuple((round(x, 1), round(y, 1)) for x, y in cell)))
        return cls(tuple(zones))

    @classmethod
    def from_config(cls, table: Mapping[str, Any]) -> TableZones:
        """Reads ``[zones]``: ``name = [[x, y], ...]`` for each zone."""
        zones = []
        for name, points in table.items():
            if not isinstance(points, list) or not all(
                isinstance(p, list) and len(p) == 2 and all(isinstance(v, int | float) for v in p)
                for p in points
            ):
                raise ZoneError(f"[zones] {name} must be a list of [x, y] points, not {points!r}")
            zones.append(Zone(name, tuple((float(x), float(y)) for x, y in points)))
        return cls(tuple(zones))

    def to_config(self) -> dict[str, list[list[float]]]:
        return {z.name: [[x, y] for x, y in z.polygon] for z in self.zones}


def _half_plane(cell: Iterable[Point], keep: Point, away: Point) -> list[Point]:
    """The part of ``cell`` nearer ``keep`` than ``away``: clip by their bisector."""
    mx, my = (keep[0] + away[0]) / 2, (keep[1] + away[1]) / 2
    dx, dy = away[0] - keep[0], away[1] - keep[1]
    big = 1e7
    # A huge convex polygon on keep's side of the bisector, then a convex clip.
    nx, ny = -dy, dx
    side = [(mx + nx * big, my + ny * big), (mx - nx * big, my - ny * big),
            (mx - nx * big - dx * big, my - ny * big - dy * big),
            (mx + nx * big - dx * big, my + ny * big - dy * big)]
    return clip_polygon(list(cell), side)


def default_markers(players: Sequence[str]) -> dict[str, Card]:
    """The cards the device asks for at calibration: seat i lays the ace of clubs, diamonds,
    hearts, spades in turn; the king of hearts marks the starter, the king of spades the crib."""
    if not 2 <= len(players) <= 4:
        raise ZoneError(f"a table seats 2 to 4 players, not {len(players)}: {list(players)!r}")
    markers = {name: Card.parse("A" + suit) for name, suit in zip(players, _MARKER_SUITS,
                                                                  strict=False)}
    markers[STARTER] = Card.parse("KH")
    markers[CRIB] = Card.parse("KS")
    return markers


# -- is every area in view (``calibrate --check``) ---------------------------------------------

# A zone with less of it in the frame than this is out of view in part (rounding aside).
IN_FRAME = 0.98
# A marker card this close to the frame's edge (pixels) is cut by it.
EDGE_PX = 2.0


@dataclass(frozen=True, slots=True)
class AreaView:
    """Whether one area (a player's, the starter's, the crib's) is in the camera's view:
    True, False, or None where nothing says (no zones, no marker cards); ``why`` in words."""

    area: str
    in_view: bool | None
    why: str

    def to_json(self) -> dict[str, object]:
        return {"area": self.area, "in_view": self.in_view, "why": self.why}


def share_in_frame(polygon: Sequence[Point], size: tuple[int, int]) -> float:
    """How much of ``polygon`` lies inside a ``(width, height)`` frame, 0..1."""
    width, height = size
    whole = abs(polygon_area(polygon))
    if whole <= 0:
        return 0.0
    inside = clip_polygon(polygon, [(0, 0), (width, 0), (width, height), (0, height)])
    return abs(polygon_area(inside)) / whole if len(inside) >= 3 else 0.0


def _cut_by_edge(outline: Sequence[Point], size: tuple[int, int]) -> bool:
    width, height = size
    return any(not (EDGE_PX <= x <= width - EDGE_PX and EDGE_PX <= y <= height - EDGE_PX)
               for x, y in outline)


def areas_in_view(size: tuple[int, int], markers: Mapping[str, Card],
                  found: Mapping[Card, Sequence[Point]], *, unread: int = 0,
                  zones: Mapping[str, Sequence[Point]] | None = None) -> tuple[AreaView, ...]:
    """Each area of ``markers`` (``default_markers``) judged in a ``(width, height)`` frame:
    its zone (``[zones]``, where calibrated) must lie in the frame, and where the players
    have laid the marker cards (two or more of them are among the cards ``found``, each
    card's outline), its marker must be seen, whole. An area out of view is named.

    ``unread``: cards in view that were not read as any card; while there are some, a marker
    not read may be one of them (the recogniser misreads a card now and then), so its area
    is not judged rather than called out of view."""
    laid = sum(card in found for card in markers.values()) >= 2
    views = []
    for area, card in markers.items():
        problems: list[str] = []
        judged = False
        zone = (zones or {}).get(area)
        if zone is not None:
            judged = True
            share = share_in_frame(zone, size)
            if share < IN_FRAME:
                problems.append("its zone ([zones]) lies outside the frame" if share < 0.01
                                else f"only {share:.0%} of its zone ([zones]) is in the frame")
        if laid:
            judged = True
            if card not in found and unread > 0:
                views.append(AreaView(area, None, f"its marker card {card} was not read; a "
                                                  f"card in view that was not read may be it"))
                continue
            if card not in found:
                problems.append(f"its marker card {card} is not in view")
            elif _cut_by_edge(found[card], size):
                problems.append(f"its marker card {card} is cut by the frame's edge")
        if problems:
            views.append(AreaView(area, False, "; ".join(problems)))
        elif judged:
            views.append(AreaView(area, True, "in view"))
        else:
            views.append(AreaView(area, None, f"not judged: lay {card} there, or calibrate "
                                              f"[zones]"))
    return tuple(views)
