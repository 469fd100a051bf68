"""The loop's side of the camera's eye (``firmware.web.camera_eye``): what it hands over.

The loop hands the eye a frame when the eye wants one (``CameraEye.wants``: the first
frame after each look, about one a second) or when what the board holds changed since the
frame it handed last (which cards the tracker places in which zone, how many unread ones,
the game's revision or seating): so the frame the eye looks at is the one the tracker's
cards were read from, not the first one of a hand reaching in. It hands over the frame
scaled down to the phone picture's width (``eye_picture.for_phone``: the eye must not keep
a full-size camera frame alive beside the one the loop reads) and references for the rest:
the tracker's cards (``CardTracker.placed``, a tuple it builds anyway), the outlines of the
detections that name no card, the zones, and the game's side of the view. On the other
frames the loop's cost is a comparison of those few names. The game's side (where the game
waits for a card, each player's laid cards, who sits in each seat zone) is read from the
live ``Game`` here, on the loop's thread, and only when the store's revision or the seating
changed; the eye's thread never touches the game.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from engine.cards import Card
from engine.game import Game
from firmware.web.camera_eye import CameraEye, Expected, EyeTable, EyeView, point_inside
from vision.live.zones import CRIB, STARTER, TableZones, centroid

__all__ = ["EyeFeed", "eye_table", "PlacedCards", "named_by_hand_in"]

Outline = tuple[tuple[float, float], ...]


@runtime_checkable
class PlacedCards(Protocol):
    """A tracker that says where its cards lie (``vision.live.tracker.CardTracker`` does)."""

    @property
    def placed(self) -> tuple[tuple[Card, str | None, Outline], ...]: ...


def eye_table(game: Game, rev: str, *, seats: Sequence[str], players: Sequence[str]
              ) -> EyeTable:
    """The game's side of the view at revision ``rev``: where it waits for a card it has not
    seen (the cut in each seat, the starter, the next card of the player whose turn it is, the
    hand or the crib being counted), and who sits in each seat zone now."""
    phase, turn = game.phase, game.turn
    expected: tuple[Expected, ...] = ()
    if phase == "deal" and turn is None:
        expected = tuple(Expected(p, "cut") for p in players)
    elif phase in ("deal", "starter"):
        expected = (Expected(STARTER, "starter"),)
    elif phase == "play" and turn is not None:
        expected = (Expected(turn, "next card"),)
    elif phase == "show" and turn is not None:
        expected = (Expected(turn, "hand", 4),)
    elif phase == "crib":
        expected = (Expected(CRIB, "crib", 4),)
    laid = tuple((p, tuple(game.laid(p))) for p in game.players)
    seating = tuple((seat, players[i] if i < len(players) else None)
                    for i, seat in enumerate(seats))
    return EyeTable(rev, expected, laid, seating, game.starter)


def named_by_hand_in(zone: str | None, place: str | None, game: Game, tracker: Any,
                     detections: Sequence[Any]) -> bool:
    """Whether the cards the camera sees but cannot read in ``zone`` (``place`` on the page)
    are all ones the game already holds there because a player named them by hand: the game
    holds at least that many cards there that the tracker has not read. Then "straighten the
    card" is not said again for them."""
    zones = getattr(tracker, "zones", None)
    if place is None or zones is None:
        return False
    doubts = [d for d in detections if d.card is None and zones.assign(d.corners) == zone]
    placed = tracker.placed if isinstance(tracker, PlacedCards) else ()
    holds = set(game.laid(place)) if place in game.players else set()
    if place == STARTER and game.starter is not None:
        holds = {game.starter}
    seen = {card for card, where, _ in placed if where == zone}
    # An unread outline whose middle lies on a card the tracker read there is that card seen
    # badly in one frame (a fanned card's corner): the eye shows it read (``marks``), so the
    # words must not ask to straighten it (the walk-through heard it after the game ended).
    read_outlines = [outline for _, where, outline in placed if where == zone]
    if doubts and all(any(point_inside(centroid(d.corners), o) for o in read_outlines)
                      for d in doubts):
        return True
    return 0 < len(doubts) <= len(holds - seen)


class EyeFeed:
    """Hands the loop's frame to ``eye``, scaled for the phone, when it wants one or what the
    board holds changed; the game's side is gathered once per revision."""

    def __init__(self, eye: CameraEye) -> None:
        from firmware.web.eye_picture import for_phone  # OpenCV: only a board with a camera

        self.eye = eye
        self._for_phone = for_phone
        self._table = EyeTable()
        self._key: tuple[Any, ...] | None = None
        self._tracker: tuple[Any, bool] = (None, False)  # the tracker, and whether it places
        self._handed: tuple[Any, ...] | None = None  # what the board held at the last hand-over

    def offer(self, image: Any, at: float, detections: Sequence[Any], tracker: Any,
              zones: TableZones | None, game: Game, rev: str, *, seats: Sequence[str],
              players: Sequence[str], at_start: Sequence[Any] = ()) -> None:
        """``at_start``: the readings the reader took for the table's art as it first
        settled (``StreamReader.at_start``), each card with its outline."""
        if self._tracker[0] is not tracker:
            self._tracker = (tracker, isinstance(tracker, PlacedCards))
        cards = tracker.placed if self._tracker[1] else ()
        unread = tuple(tuple(d.corners) for d in detections if d.card is None)
        held = (rev, tuple(seats), tuple(players), len(unread), len(at_start),
                tuple((card, zone) for card, zone, _ in cards))
        if held == self._handed and not self.eye.wants:
            return
        self._handed = held
        key = held[:3]
        if key != self._key:
            self._table = eye_table(game, rev, seats=seats, players=players)
            self._key = key
        lying = tuple((d.card, tuple(d.corners)) for d in at_start if d.card is not None)
        small, frame = self._for_phone(image)
        self.eye.offer(EyeView(small, at, cards, unread, zones, self._table, lying, frame))
