"""Turns a stream of per-frame card detections into a calm stream of table facts.

At the table the camera sees hands reaching over the cards, glare, a card
being straightened, the recogniser flickering between two readings of a
blurred index. The device program wants facts: "QH was laid in Bob's area",
"Ann's show is 5S 5H 10D JC". So the tracker follows each physical card as a
*track* (a place on the table), lets the track's readings vote over time, and
reports a card only once its track has been steady for ``appear_frames``
frames (and ``appear_seconds``), and gone only after ``vanish_seconds``
without it, which is longer than a hand takes to pass over.

Everything is pure and clocked by the frames' own timestamps: no threads,
no sleeping, the same frames always give the same events.
"""

from __future__ import annotations

import math
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from engine.cards import Card
from vision.live.zones import TableZones, centroid

__all__ = [
    "Seen", "TrackerSettings", "CardTracker",
    "CardAppeared", "CardRemoved", "ZoneComplete", "CardInTwoPlaces", "CameraLost",
    "CameraBack", "TableEvent", "long_side",
]

Point = tuple[float, float]


class Seen(Protocol):
    """What the tracker needs of a detection (``vision.recognise.detection.Detection`` fits)."""

    @property
    def card(self) -> Card | None: ...

    @property
    def corners(self) -> tuple[Point, Point, Point, Point]: ...

    @property
    def confidence(self) -> float: ...


Ranked = tuple[tuple[Card, float], ...]


@dataclass(frozen=True, slots=True)
class CardAppeared:
    """A card read steadily in a place. ``confidence`` and ``alternatives`` are those of its
    latest reading as that card (``vision.recognise.detection.Detection``): the recogniser's
    runners-up, which the table's flow may take instead of a card the game rules out
    (``firmware.table.alternatives``); never a card the recogniser did not rank."""

    card: Card
    zone: str | None
    corners: tuple[Point, ...]
    at: float
    confidence: float = 1.0
    alternatives: Ranked = ()


@dataclass(frozen=True, slots=True)
class CardRemoved:
    """A card no longer seen: picked up, or turned face down (after a 31, say)."""

    card: Card
    zone: str | None
    at: float


@dataclass(frozen=True, slots=True)
class ZoneComplete:
    """A zone holds exactly ``size`` steady cards: a show or the crib is spread out."""

    zone: str
    cards: tuple[Card, ...]
    at: float


@dataclass(frozen=True, slots=True)
class CardInTwoPlaces:
    """The same card steady in two places: a misread, or two decks. The device must ask."""

    card: Card
    zones: tuple[str | None, str | None]
    at: float


@dataclass(frozen=True, slots=True)
class CameraLost:
    at: float


@dataclass(frozen=True, slots=True)
class CameraBack:
    at: float


TableEvent = CardAppeared | CardRemoved | ZoneComplete | CardInTwoPlaces | CameraLost | CameraBack


@dataclass(frozen=True, slots=True)
class TrackerSettings:
    """How steady is steady. Distances are fractions of the frame's diagonal."""

    appear_frames: int = 3
    appear_seconds: float = 0.0
    vanish_seconds: float = 1.5
    votes: int = 7  # how many recent readings decide a track's card
    majority: float = 0.7  # share of those readings a card needs
    match_distance: float = 0.04  # how far a card's centre may move between frames
    complete_size: int = 4
    camera_lost_seconds: float = 1.0

    def __post_init__(self) -> None:
        if self.appear_frames < 1 or self.votes < 1:
            raise ValueError(f"appear_frames and votes must be at least 1: {self!r}")
        if not 0.5 < self.majority <= 1:
            raise ValueError(f"majority must be above one half and at most 1, not "
                             f"{self.majority!r}")


@dataclass(slots=True, eq=False)  # a track is one physical card: compared by identity
class _Track:
    centre: Point
    corners: tuple[Point, ...]
    first_seen: float
    last_seen: float
    frames: int = 0
    readings: deque[Card | None] = field(default_factory=deque)
    reported: Card | None = None  # the card announced for this track, if any
    zone: str | None = None
    # Each card's latest reading here (its confidence and runners-up are read off it only
    # when the card is reported: the device's reader repeats a reading every frame).
    heard: dict[Card, Seen] = field(default_factory=dict)


class CardTracker:
    """Feeds on ``(time, detections)`` per frame, or ``(time, None)`` for a frame that failed.

    >>> tracker = CardTracker(frame_size=(1280, 720))
    """

    def __init__(self, *, frame_size: tuple[int, int], zones: TableZones | None = None,
                 settings: TrackerSettings | None = None) -> None:
        self.settings = settings or TrackerSettings()
        self.zones = zones
        self._reach = self.settings.match_distance * math.hypot(*frame_size)
        self._tracks: list[_Track] = []
        self._last_frame: float | None = None
        self._camera_down = False
        self._conflicts: set[Card] = set()
        self._complete: dict[str, tuple[Card, ...]] = {}

    @property
    def cards(self) -> dict[Card, str | None]:
        """The cards reported present now, with their zones."""
        return {t.reported: t.zone for t in self._tracks if t.reported is not None}

    @property
    def placed(self) -> tuple[tuple[Card, str | None, tuple[Point, ...]], ...]:
        """The cards reported present now, each with its zone and its outline as last seen
        (what the phone page's camera view outlines and names)."""
        return tuple((t.reported, t.zone, t.corners) for t in self._tracks
                     if t.reported is not None)

    def update(self, at: float, detections: Sequence[Seen] | None) -> list[TableEvent]:
        """One frame at time ``at`` (seconds). ``None`` means the camera gave no frame."""
        events: list[TableEvent] = []
        if detections is None:
            if (not self._camera_down and self._last_frame is not None
                    and at - self._last_frame >= self.settings.camera_lost_seconds):
                self._camera_down = True
                events.append(CameraLost(at))
            return events
        if self._camera_down:
            self._camera_down = False
            events.append(CameraBack(at))
            # Time without frames is not evidence that a card left: restart the clocks.
            for track in self._tracks:
                track.last_seen = at
        previous, self._last_frame = self._last_frame, at
        self._match(at, previous, detections)
        events += self._settle(at)
        events += self._check_conflicts(at)
        events += self._check_complete(at)
        return events

    # -- internals -------------------------------------------------------------

    def _match(self, at: float, previous: float | None, detections: Sequence[Seen]) -> None:
        """Pairs detections with tracks: first by card and place, then by place alone.

        The first pass keeps fanned cards apart (the lower card's corner still
        reads as itself, so the new card on top cannot take over its track);
        the second lets a misread land on its track, where the vote outweighs it.
        A track missing from the last frame may be a card that has gone (the
        pegging pile picked up, a card covered by the next): a different card
        read in its place starts a track of its own rather than having to
        outvote the old card's readings.
        """
        free = list(self._tracks)
        pending = sorted(detections, key=lambda d: -d.confidence)
        for by_card in (True, False):
            unmatched = []
            for seen in pending:
                centre = centroid(seen.corners)
                near = [t for t in free if math.dist(t.centre, centre) <= self._reach
                        and ((seen.card is not None and t.reported == seen.card) if by_card
                             else not _replaced(t, seen.card, previous))]
                if by_card and not near and seen.card is not None and previous is not None:
                    near = self._jittered(free, seen, previous)
                if not near:
                    unmatched.append(seen)
                    continue
                track = min(near, key=lambda t: math.dist(t.centre, centre))
                free.remove(track)
                self._observe(track, seen, at)
            pending = unmatched
        for seen in pending:
            track = _Track(centroid(seen.corners), tuple(seen.corners), at, at)
            self._tracks.append(track)
            self._observe(track, seen, at)

    def _jittered(self, tracks: list[_Track], seen: Seen, previous: float) -> list[_Track]:
        """Tracks that read as ``seen``'s card in the previous frame, within a card's length
        of it and in the same zone.

        An outline guessed from one corner index or the other can land that far from the
        outline of the card read whole, from one frame to the next; the card has not moved.
        A card carried into another zone, or missing for a while (turned down after the
        pegging and shown again), is laid anew, however short the way.
        """
        centre = centroid(seen.corners)
        zone = self.zones.assign(seen.corners) if self.zones is not None else None
        return [t for t in tracks if t.reported == seen.card and t.zone == zone
                and t.last_seen >= previous and t.readings[-1] == seen.card
                and math.dist(t.centre, centre) <= long_side(seen.corners)]

    def _observe(self, track: _Track, seen: Seen, at: float) -> None:
        corners = tuple(seen.corners)
        # The device's reader repeats a region's reading every frame until it reads it again:
        # the same outline is in the same zone, so only a new outline is placed anew.
        moved = corners != track.corners or track.frames == 0
        track.centre, track.corners, track.last_seen = centroid(corners), corners, at
        track.frames += 1
        track.readings.append(seen.card)
        if seen.card is not None:
            track.heard[seen.card] = seen
        while len(track.readings) > self.settings.votes:
            track.readings.popleft()
        if self.zones is not None and moved:
            track.zone = self.zones.assign(corners)

    def _settle(self, at: float) -> list[TableEvent]:
        settings = self.settings
        events: list[TableEvent] = []
        for track in list(self._tracks):
            if track not in self._tracks:
                continue  # retired below, as the old place of a card seen moved
            if at - track.last_seen > settings.vanish_seconds:
                self._tracks.remove(track)
                if track.reported is not None:
                    events.append(CardRemoved(track.reported, track.zone, at))
                continue
            card = self._vote(track)
            steady = (track.frames >= settings.appear_frames
                      and at - track.first_seen >= settings.appear_seconds)
            if card is not None and card != track.reported and steady:
                if track.reported is not None:
                    events.append(CardRemoved(track.reported, track.zone, at))
                events += self._claim(track, card, at)
                track.reported = card
                events.append(CardAppeared(card, track.zone, track.corners, at,
                                           *_ranking(track.heard.get(card))))
        return events

    def _claim(self, track: _Track, card: Card, at: float) -> list[TableEvent]:
        """Another track already holds ``card``: read as it in this frame too, that is two
        places at once (the device must ask); not read there now, the card was moved, so
        its old place is given up at once rather than after ``vanish_seconds``."""
        events: list[TableEvent] = []
        for other in [t for t in self._tracks if t is not track and t.reported == card]:
            if other.last_seen < at or other.readings[-1] != card:
                self._tracks.remove(other)
                events.append(CardRemoved(card, other.zone, at))
            else:
                self._conflicts.add(card)
        return events

    def _vote(self, track: _Track) -> Card | None:
        """The track's card when enough recent readings agree; unknown readings count against."""
        readings = list(track.readings)[-self.settings.votes:]
        counts = Counter(r for r in readings if r is not None)
        if not counts:
            return None
        card, votes = counts.most_common(1)[0]
        needed = min(len(readings), self.settings.appear_frames) if track.reported is None \
            else len(readings)
        return card if votes >= math.ceil(self.settings.majority * needed) else None

    def _check_conflicts(self, at: float) -> list[TableEvent]:
        events: list[TableEvent] = []
        for card in sorted(self._conflicts):
            places = [t.zone for t in self._tracks if t.reported == card]
            if len(places) >= 2:
                events.append(CardInTwoPlaces(card, (places[0], places[1]), at))
        self._conflicts.clear()
        return events

    def _check_complete(self, at: float) -> list[TableEvent]:
        if self.zones is None:
            return []
        events: list[TableEvent] = []
        for zone in self.zones.names:
            cards = tuple(sorted(t.reported for t in self._tracks
                                 if t.reported is not None and t.zone == zone))
            complete = len(cards) == self.settings.complete_size
            if complete and self._complete.get(zone) != cards:
                events.append(ZoneComplete(zone, cards, at))
            if complete:
                self._complete[zone] = cards
            else:
                self._complete.pop(zone, None)
        return events


def long_side(corners: Sequence[Point]) -> float:
    return max(math.dist(corners[k], corners[(k + 1) % len(corners)])
               for k in range(len(corners)))


def _replaced(track: _Track, card: Card | None, previous: float | None) -> bool:
    """Whether ``card``, read where ``track`` was, is a different card laid in a place
    the track's card has left (it was missing from the previous frame)."""
    return (card is not None and track.reported is not None and card != track.reported
            and previous is not None and track.last_seen < previous)


def _ranking(seen: Seen | None) -> tuple[float, Ranked]:
    """A reported card's confidence and runners-up, from its latest reading (1.0 and none
    where there is none); a detection without runners-up (another recogniser, a test's) has
    none to offer."""
    if seen is None:
        return 1.0, ()
    return seen.confidence, tuple(getattr(seen, "alternatives", ()))
