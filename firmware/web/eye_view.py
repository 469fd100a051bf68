"""What the camera's eye shows, as values: the loop's view of a frame (``EyeView``), the game's
side of it (``EyeTable``), and the view's cards, doubts and zones named as the page names them
(``marks``).

Apart from ``firmware.web.camera_eye`` (the snapshot maker) and ``firmware.web.eye_picture``
(the drawing) so that both read these values and neither imports the other's: the maker
loads the drawing, the drawing reads only this.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.cards import Card
from vision.live.zones import TableZones, centroid

__all__ = ["EyeView", "EyeTable", "ReadCard", "UnreadCard", "Place", "Expected", "Marks",
           "Outline", "Point", "marks", "named_by_hand", "point_inside"]

Point = tuple[float, float]
Outline = tuple[Point, ...]


@dataclass(frozen=True, slots=True)
class ReadCard:
    """A card the board holds: ``place`` is what the page's actions call where it lies (a
    player's name, ``"starter"`` or ``"crib"``), None outside every area. ``named`` when a
    player named or corrected it by hand (the camera saw an outline, the game holds this card)."""

    card: Card
    place: str | None
    outline: Outline
    named: bool = False


@dataclass(frozen=True, slots=True)
class UnreadCard:
    """A card the camera sees but cannot name (skewed, covered, glare)."""

    place: str | None
    outline: Outline


@dataclass(frozen=True, slots=True)
class Place:
    """One zone of the table: ``zone`` as the camera names it (a seat, starter, crib) and
    ``place`` as the page names it now (whoever sits in that seat; None for an empty seat)."""

    zone: str
    place: str | None
    polygon: Outline


@dataclass(frozen=True, slots=True)
class Expected:
    """A card (``cards`` 1) or a spread (``cards`` 4) the game waits for in ``place``;
    ``what`` says it in words ("next card", "starter", "hand", "crib", "cut")."""

    place: str
    what: str
    cards: int = 1


@dataclass(frozen=True, slots=True)
class EyeTable:
    """The game's side of the view, gathered by the loop once per store revision:
    ``seating`` maps each camera zone to the page's name for it now (seat zones follow the
    seating), ``laid`` each player's cards laid this deal (a show's hand, pre-picked),
    ``starter`` the deal's starter once the game has it."""

    rev: str = ""
    expected: tuple[Expected, ...] = ()
    laid: tuple[tuple[str, tuple[Card, ...]], ...] = ()
    seating: tuple[tuple[str, str | None], ...] = ()
    starter: Card | None = None

    def held(self) -> dict[str, tuple[Card, ...]]:
        """The cards the game holds in each place now: each player's laid cards, the starter."""
        found = dict(self.laid)
        if self.starter is not None:
            found["starter"] = (self.starter,)
        return found


@dataclass(frozen=True, slots=True)
class EyeView:
    """What the loop hands over each camera frame: references only, nothing copied or
    worked out there (zones are assigned on the eye's thread).

    ``image`` is the frame as the camera gave it (a BGR array nobody writes to: every source
    gives a new array per frame);
    ``cards`` the tracker's cards as ``CardTracker.placed`` gives them (card, camera zone,
    outline); ``unread`` the outlines of this frame's detections that name no card;
    ``at_start`` the cards that lay on the table when it first settled, taken for the table's
    own art and never counted (``vision.live.motion.StreamReader.at_start``), with their
    outlines.
    ``frame`` is the camera frame's size (width, height) where ``image`` is that frame already
    scaled down for the phone (``firmware.web.eye_picture.for_phone``), so the eye holds no
    full-size frame; every outline stays in the frame's pixels. None: ``image`` is the frame.
    """

    image: Any
    at: float
    cards: tuple[tuple[Card, str | None, Outline], ...]
    unread: tuple[Outline, ...]
    zones: TableZones | None = None
    table: EyeTable = EyeTable()
    at_start: tuple[tuple[Card, Outline], ...] = ()
    frame: tuple[int, int] | None = None

    @property
    def size(self) -> tuple[int, int]:
        """The camera frame's size, which the outlines are measured in."""
        if self.frame is not None:
            return self.frame
        height, width = self.image.shape[:2]
        return int(width), int(height)


@dataclass(frozen=True, slots=True)
class Marks:
    """A view's cards, unread cards and zones named as the page names them."""

    cards: tuple[ReadCard, ...]
    unread: tuple[UnreadCard, ...]
    places: tuple[Place, ...]


def marks(view: EyeView) -> Marks:
    """Names every place in ``view`` as the page does; drops unread outlines that are a read
    card's (the tracker keeps a card it read while one frame misses its index) or another
    unread one's (one blurred card found twice); and shows what the game holds where a player
    named or corrected a card by hand (``named_by_hand``)."""
    seating = dict(view.table.seating)

    def place(zone: str | None) -> str | None:
        return seating.get(zone, zone) if zone is not None else None

    cards = tuple(ReadCard(card, place(zone), tuple(outline))
                  for card, zone, outline in view.cards)
    unread: list[UnreadCard] = []
    for outline in view.unread:
        middle = centroid(outline)
        if any(point_inside(middle, c.outline) for c in cards) or any(
                point_inside(middle, u.outline) or point_inside(centroid(u.outline), outline)
                for u in unread):
            continue
        zone = view.zones.assign(outline) if view.zones is not None else None
        unread.append(UnreadCard(place(zone), tuple(outline)))
    places = tuple(Place(z.name, place(z.name), z.polygon)
                   for z in (view.zones.zones if view.zones is not None else ()))
    cards, left = named_by_hand(cards, tuple(unread), view.table.held())
    return Marks(cards, left, places)


def named_by_hand(cards: tuple[ReadCard, ...], unread: tuple[UnreadCard, ...],
                  held: dict[str, tuple[Card, ...]]
                  ) -> tuple[tuple[ReadCard, ...], tuple[UnreadCard, ...]]:
    """The camera's cards as the game now holds them. In each place, a card the game holds
    that the camera did not read there was named by hand: a read card the game does not hold
    there is an unread outline there, else a read card the game does not hold there
    (corrected). Both show the game's card
    (``named``), so neither the old reading nor the old doubt stays on the picture."""
    out = list(cards)
    left = list(unread)
    for where, holds in held.items():
        seen = {c.card for c in out if c.place == where}
        unseen = [card for card in holds if card not in seen]
        for doubt in [u for u in left if u.place == where][:len(unseen)]:
            out.append(ReadCard(unseen.pop(0), where, doubt.outline, named=True))
            left.remove(doubt)
        for k, read in enumerate(out):
            if unseen and read.place == where and not read.named and read.card not in holds:
                out[k] = ReadCard(unseen.pop(0), where, read.outline, named=True)
    return tuple(out), tuple(left)


def point_inside(point: Point, polygon: Sequence[Point]) -> bool:
    """Whether ``point`` lies inside ``polygon`` (even-odd rule: any simple outline)."""
    x, y = point
    inside = False
    for (x0, y0), (x1, y1) in zip(polygon, (*polygon[1:], polygon[0]), strict=True):
        if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
            inside = not inside
    return inside
