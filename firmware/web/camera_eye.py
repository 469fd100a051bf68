"""The camera's eye: a still of the table as the camera last read it, made off the loop's thread.

The players cannot see what the board saw, so when it misses or misreads a card they have
to guess why (glare, a hand over it, a camera mounted too high). The phone page shows them
the camera's last frame with every card the board has read outlined and named, the zones
drawn, the cards it could not read outlined in another colour and the places where the
game expects a card it has not seen marked (``firmware.web.eye_picture`` draws it).

It must cost the device loop nothing. So the loop only ``offer``-s an ``EyeView``: a few
references (the frame as the camera gave it, the tracker's cards as an immutable tuple,
the game's expected places gathered once per revision), stored under a lock and nothing
else. ``CameraEye``'s own thread ``look``-s once every ``interval_s``: it makes a picture
only when what it sees has settled (the same cards in the same places as at its last look)
and differs from the picture it last made. So there is at most one picture a second, and
while the table is still nothing is drawn or encoded at all: not a video stream.

The picture (a JPEG scaled for a phone) and its outlines (JSON, in the picture's pixels,
for the page to make tappable) are kept as one immutable ``EyePicture``; the web thread
reads ``latest`` and never sees the loop's objects.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engine.cards import Card
from vision.live.zones import TableZones, centroid

__all__ = ["CameraEye", "EyeView", "EyePicture", "EyeTable", "ReadCard", "UnreadCard", "Place",
           "Expected", "Marks", "Outline", "marks", "named_by_hand", "settled_key", "EYE_PATH", "eye_links",
           "point_inside"]

log = logging.getLogger("firmware.web.camera_eye")

Point = tuple[float, float]
Outline = tuple[Point, ...]

#: The phone page's address that opens straight on the camera's view.
EYE_PATH = "/eye"


def eye_links(host: str, port: int) -> list[str]:
    """Where a phone finds the camera's view of a board serving on ``host``:``port`` (as
    ``WebServer.urls`` says for the page): the LAN address and the ``.local`` name for a
    wildcard bind, else the address itself."""
    import socket

    from firmware.web.address import lan_address

    if host not in ("0.0.0.0", "::"):
        shown = f"[{host}]" if ":" in host else host
        return [f"http://{shown}:{port}{EYE_PATH}"]
    found = [f"http://{ip}:{port}{EYE_PATH}" for ip in [lan_address()] if ip]
    found.append(f"http://{socket.gethostname()}.local:{port}{EYE_PATH}")
    return found


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
    outline); ``unread`` the outlines of this frame's detections that name no card.
    """

    image: Any
    at: float
    cards: tuple[tuple[Card, str | None, Outline], ...]
    unread: tuple[Outline, ...]
    zones: TableZones | None = None
    table: EyeTable = EyeTable()

    @property
    def size(self) -> tuple[int, int]:
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
    there is an unread outline there, else a read card the game does not hold there (corrected). Both show the game's card
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


@dataclass(frozen=True, slots=True)
class EyePicture:
    """One picture of the table: ``jpeg`` bytes and ``text``, the page's JSON of its outlines
    (``version`` counts pictures, from 1)."""

    version: int
    jpeg: bytes
    text: str

    def data(self) -> dict[str, Any]:
        found: dict[str, Any] = json.loads(self.text)
        return found


def point_inside(point: Point, polygon: Sequence[Point]) -> bool:
    """Whether ``point`` lies inside ``polygon`` (even-odd rule: any simple outline)."""
    x, y = point
    inside = False
    for (x0, y0), (x1, y1) in zip(polygon, (*polygon[1:], polygon[0]), strict=True):
        if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
            inside = not inside
    return inside


def settled_key(view: EyeView) -> tuple[Any, ...]:
    """What must stay the same between two looks for the table to count as settled: the
    cards and unread outlines, each by where its centre lies on a grid of 1/40 of the frame's
    width (a card's outline jitters by a pixel or two from frame to frame; a card moved to
    another place changes the key), the zones, and the game's side (its revision)."""
    width = max(1, view.size[0])
    cell = width / 40

    def where(outline: Outline) -> tuple[int, int]:
        xs = sum(x for x, _ in outline) / len(outline)
        ys = sum(y for _, y in outline) / len(outline)
        return round(xs / cell), round(ys / cell)

    cards = tuple(sorted((str(card), zone or "", *where(outline))
                         for card, zone, outline in view.cards))
    unread = tuple(sorted(where(outline) for outline in view.unread))
    return (cards, unread, view.zones, view.table, view.size)


Draw = Callable[[EyeView], tuple[bytes, dict[str, Any]]]


class CameraEye:
    """The snapshot maker: ``offer`` from the loop, ``latest`` from the web thread, and its own
    thread (``start``) that looks every ``interval_s`` seconds (``look``; the tests call it
    themselves).

    ``draw`` turns a view into the JPEG and the page's JSON (default:
    ``firmware.web.eye_picture.draw_eye``, imported on first use so a board without a camera
    never loads it).
    """

    def __init__(self, *, interval_s: float = 1.0, draw: Draw | None = None) -> None:
        if not interval_s > 0:
            raise ValueError(f"interval_s must be positive, not {interval_s!r}")
        self.interval_s = interval_s
        self._draw = draw
        self._lock = threading.Lock()
        self._offered: EyeView | None = None
        self._picture: EyePicture | None = None
        self._last_key: tuple[Any, ...] | None = None
        self._shown_key: tuple[Any, ...] | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.problem: str | None = None
        self._said: str | None = None

    # -- the loop's side -----------------------------------------------------------------------

    def offer(self, view: EyeView) -> None:
        """Keeps ``view`` as the newest (the loop's whole cost: one assignment under a lock)."""
        with self._lock:
            self._offered = view

    # -- the web thread's side -----------------------------------------------------------------

    @property
    def latest(self) -> EyePicture | None:
        """The newest picture, or None before the first one."""
        with self._lock:
            return self._picture

    # -- the eye's own thread ------------------------------------------------------------------

    def look(self) -> bool:
        """One look at the newest view: makes a picture when the view has settled since the
        last look and differs from the last picture. True when it made one."""
        with self._lock:
            view = self._offered
        if view is None:
            return False
        key = settled_key(view)
        settled, self._last_key = key == self._last_key, key
        if not settled or key == self._shown_key:
            return False
        draw = self._draw
        if draw is None:
            from firmware.web.eye_picture import draw_eye

            draw = self._draw = draw_eye
        try:
            jpeg, data = draw(view)
        except Exception as exc:  # a drawing bug must not stop the eye, nor the device
            self.problem = f"cannot draw the camera's view: {exc}"
            if self.problem != self._said:
                log.warning(self.problem)
                self._said = self.problem
            self._shown_key = key  # not again for the same view
            return False
        self.problem = None
        self._shown_key = key
        with self._lock:
            version = (self._picture.version if self._picture is not None else 0) + 1
            text = json.dumps({**data, "version": version}, ensure_ascii=False,
                              separators=(",", ":"))
            self._picture = EyePicture(version, jpeg, text)
        return True

    def start(self) -> None:
        """Looks every ``interval_s`` on a daemon thread until ``close``."""
        if self._thread is not None:
            return

        def run() -> None:
            while not self._stop.wait(self.interval_s):
                self.look()

        self._thread = threading.Thread(target=run, name="cribbage-eye", daemon=True)
        self._thread.start()

    def close(self, *, timeout_s: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout_s)
            self._thread = None
