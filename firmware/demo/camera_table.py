"""The demo's table: a simulated game filmed by a drawn camera and read by the real vision.

``engine.simulate`` plays a legal game and writes its log: the truth.
``GameFilm`` turns that log into a ``vision.drawn.scene`` script for one table (the
cut for the deal, then each deal as the log played it: the same cards, the
same order) and notes, for each step of the script, which of the log's events
the device should have stored once it has seen that step. The film opens on the bare
table (the deck face down), as a device started before the game sees it. ``VisionTable`` is
the players: it films each step with a ``SceneCamera`` and lets the real
``DeviceLoop`` read the frames exactly as ``cribbage-board run`` does
(``vision.live.reading.device_reading``: a ``StreamReader`` that reads only the regions
that changed with the device's ``CameraRecogniser``, and the device's ``CardTracker``).
Nothing tells the device what was laid.

The recogniser misses some cards (and could misread one), so the players
react as people at a table do when the board does not follow: they wait a
moment, then straighten the card (re-lay it square, on top), and if the board
still has not read it they enter it on the phone page (``ManualCard``,
``ManualSpread``: the same table inputs the page makes). A card that was read
wrong and scored is taken back with UNDO, as players would once they hear
the wrong count. GO, claims and muggins are button presses, as at the table.
``Tally`` counts all of it for the demo's report.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

import numpy as np

from engine.cards import DECK, Card
from engine.simulate import DealScript
from firmware.device.loop import DeviceLoop
from firmware.table.flow import ButtonAction, ManualCard, ManualSpread
from vision.drawn.camera_model import CAMERA_MODULE_3, camera_named
from vision.drawn.cardart import CARD_ASPECT
from vision.drawn.scene import CRIB, STARTER, SceneSettings, Script, Step, TableLayout
from vision.drawn.scene_camera import SceneCamera, SteppingClock
from vision.live.motion import Recognise
from vision.live.reading import device_reading
from vision.live.sources import Frame
from vision.live.tracker import CardAppeared, CardTracker, Seen, TableEvent

__all__ = ["GameFilm", "Moment", "VisionTable", "Tally", "DemoError", "cut_cards",
           "DEMO_SCENE", "IDEAL_SCENE", "DEMO_RESOLUTION", "demo_scene"]

#: The camera the README recommends: the example config's ``[camera] size``
#: (``firmware/config.example.toml``), a Camera Module 3's full field of view.
DEMO_RESOLUTION = (2304, 1296)

#: Scene settings for the demo: filmed by a Camera Module 3 1.0 m over the table
#: (``vision.drawn.camera_model``: lens blur, sensor noise, JPEG, falloff, a warm cast;
#: ``demo_scene`` sets the frame size), four frames a step: the device reads a change once
#: it has been still for three (``vision.live.motion.WatchSettings``). No laying hand and no
#: glare: drawing a smeared hand at 2304x1296 costs more than the device spends reading the
#: card, and the reader never reads a frame with a hand in it (``tests/test_vision_motion.py``
#: has the hand that passes over).
DEMO_SCENE = SceneSettings(frames_per_step=4, hand_frames=0, glare=False,
                           camera=CAMERA_MODULE_3)
#: The crisp drawing of old (``--camera ideal``): large cards (a fifth of the frame's
#: height), mild blur and noise, no camera model. It reads nearly every card.
IDEAL_SCENE = SceneSettings(frames_per_step=4, hand_frames=1, glare=False, blur=0.6, noise=2.0)


def demo_scene(camera: str = "camera-module-3", *, size: tuple[int, int] = DEMO_RESOLUTION,
               height: float | None = None) -> SceneSettings:
    """The demo's scene filmed by the camera model called ``camera`` (``vision.drawn.camera_model``
    ``CAMERAS``) at frame ``size`` and ``height`` metres; "ideal" is ``IDEAL_SCENE``."""
    lens = camera_named(camera, height=height)
    if lens is None:
        return IDEAL_SCENE
    return replace(DEMO_SCENE, size=size, camera=lens)


class DemoError(RuntimeError):
    """The film and the log disagree, or the device did not follow the table even with every
    card typed in: a bug to report, not a bad input."""


def cut_cards(players: Sequence[str], dealer: str, rng: random.Random) -> dict[str, Card]:
    """Cards for a cut that ``dealer`` wins: strictly the lowest rank, so no cut is tied."""
    deck = list(DECK)
    rng.shuffle(deck)
    low = next(c for c in deck if c.rank < 13 - len(players))
    cut = {dealer: low}
    rest = iter(c for c in deck if c.rank > low.rank)
    for p in players:
        if p != dealer:
            cut[p] = next(rest)
    return cut


# -- the film: the log as a table shows it -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class Moment:
    """One script step and what the device should know once it has seen it.

    ``upto``: how many of the true log's events the store should hold by then;
    ``cards``: the (card, zone) pairs the camera should have read; ``spread``:
    whether a player who types them in enters the whole hand (a show or the
    crib) rather than single cards; ``presses``: buttons pressed after it.
    """

    step: int
    upto: int
    cards: tuple[tuple[Card, str], ...] = ()
    spread: bool = False
    presses: tuple[ButtonAction, ...] = ()

    @property
    def due(self) -> bool:
        """Whether the device has something to store for this step."""
        return bool(self.cards or self.presses)


@dataclass(slots=True)
class _Deal:
    dealer: int
    cut: bool  # the first deal of a match: the dealer comes from a cut
    starter: Card | None = None
    plays: list[tuple[int, Card]] = field(default_factory=list)
    shows: dict[int, tuple[Card, ...]] = field(default_factory=dict)
    crib: tuple[Card, ...] = ()
    moments: list[Moment] = field(default_factory=list)  # in table order, steps unset


@dataclass(frozen=True, slots=True)
class GameFilm:
    """A simulated game's log as one table films it: the script and its moments."""

    truth: tuple[Mapping[str, Any], ...]
    script: Script
    moments: tuple[Moment, ...]
    cut: Mapping[str, Card]

    @classmethod
    def from_log(cls, events: Sequence[Mapping[str, Any]], *, rng: random.Random,
                 layout: TableLayout | None = None) -> GameFilm:
        """Films one game's ``events`` (``engine.simulate.simulate_game``); ``rng`` draws
        the cut and where cards land."""
        if not events or events[0].get("type") != "new_game":
            raise ValueError("a game's log starts with new_game")
        players = tuple(str(p) for p in events[0]["players"])
        layout = layout or TableLayout.for_players(len(players))
        deals = _deals(events, players)
        parts: list[Script] = []
        moments: list[Moment] = []
        cut: dict[str, Card] = {}
        if deals and deals[0].cut:
            cut = cut_cards(players, players[deals[0].dealer], rng)
            parts.append(Script.cut_for_deal(cut, players, rng, layout=layout))
            laid = len(parts[0].steps) - 2  # the step in which the last player cuts
            moments += [Moment(k, 1) for k in range(laid)]
            moments.append(Moment(laid, 2, tuple((cut[p], p) for p in players)))
            moments.append(Moment(laid + 1, 2))
        upto = moments[-1].upto if moments else 1
        # The bare table first (the deck face down, no hand): what the device settles on.
        parts.insert(0, _opening(parts[0] if parts else None, deals, players, rng, layout))
        moments = [Moment(0, 1)] + [replace(m, step=m.step + 1) for m in moments]
        before: set[tuple[Card, str]] = set()
        for deal in deals:
            if deal.starter is None:
                break
            script = Script.from_deal(_deal_script(deal, len(players)), players, rng,
                                      layout=layout, plays=deal.plays)
            pending = list(deal.moments)
            offset = sum(len(p.steps) for p in parts)
            for k, step in enumerate(script.steps):
                now = {(c, p.zone) for c, p in step.face_up().items()}
                new = now - before
                before = now
                if not new:
                    moments.append(Moment(offset + k, upto))
                    continue
                if not pending:
                    break  # the game ended before this step: nothing more to film
                moment = replace(pending.pop(0), step=offset + k)
                if set(moment.cards) != new:
                    raise DemoError(f"the film shows {sorted(map(str, new))} where the "
                                         f"log has {moment}")
                moments.append(moment)
                upto = moment.upto
            parts.append(script)
            if pending:
                break
        return cls(tuple(events), Script.join(parts), tuple(moments), cut)


def _opening(first: Script | None, deals: Sequence[_Deal], players: tuple[str, ...],
             rng: random.Random, layout: TableLayout) -> Script:
    """One step of the table before the game: the face-down deck of the film's first step,
    no card face up, no hand (a cut's first step, else the first deal's)."""
    if first is None and deals and deals[0].starter is not None:
        first = Script.from_deal(_deal_script(deals[0], len(players)), players,
                                 random.Random(rng.random()), layout=layout)
    down = tuple(p for p in first.steps[0].cards if p.card is None) if first else ()
    return Script(players, layout, (Step("the table before the game", down),))


def _deals(events: Sequence[Mapping[str, Any]], players: tuple[str, ...]) -> list[_Deal]:
    """The log's deals, each with the moments its cards make, in the order laid."""
    deals: list[_Deal] = []
    for i, event in enumerate(events):
        kind = event["type"]
        if kind == "new_game":
            if i:
                raise ValueError("the vision demo films one game, not a match")
            continue
        if kind == "deal":
            if "dealer" in event:
                dealer = players.index(str(event["dealer"]))
            elif deals:
                dealer = (deals[-1].dealer + 1) % len(players)
            else:
                raise ValueError("the first deal names no dealer")
            deals.append(_Deal(dealer, "dealer" in event))
            continue
        if not deals:
            raise ValueError(f"event {i} ({kind}) comes before any deal")
        deal = deals[-1]
        if kind in ("go", "claim", "muggins"):
            if not deal.moments:
                raise ValueError(f"event {i} ({kind}) comes before any card")
            press = ButtonAction(kind, int(event.get("points", 0)))
            last = deal.moments[-1]
            deal.moments[-1] = replace(last, upto=i + 1, presses=last.presses + (press,))
            continue
        if kind == "starter":
            deal.starter = Card.parse(event["card"])
            deal.moments.append(Moment(-1, i + 1, ((deal.starter, STARTER),)))
        elif kind == "play":
            seat = players.index(str(event["player"]))
            card = Card.parse(event["card"])
            deal.plays.append((seat, card))
            deal.moments.append(Moment(-1, i + 1, ((card, players[seat]),)))
        elif kind == "show":
            seat = players.index(str(event["player"]))
            deal.shows[seat] = tuple(Card.parse(c) for c in event["cards"])
            deal.moments.append(Moment(-1, i + 1, tuple((c, players[seat])
                                                        for c in deal.shows[seat]), True))
        elif kind == "crib":
            deal.crib = tuple(Card.parse(c) for c in event["cards"])
            deal.moments.append(Moment(-1, i + 1, tuple((c, CRIB) for c in deal.crib), True))
        else:
            raise ValueError(f"the vision demo cannot film a {kind!r} event")
    return deals


def _deal_script(deal: _Deal, players: int) -> DealScript:
    """The deal's cards; a deal the game ended in is filled with cards nobody saw."""
    assert deal.starter is not None
    used = {deal.starter, *deal.crib, *(c for _, c in deal.plays),
            *(c for cards in deal.shows.values() for c in cards)}
    unseen = iter(c for c in DECK if c not in used)
    hands = []
    for seat in range(players):
        hand = list(deal.shows.get(seat, [c for s, c in deal.plays if s == seat]))
        hands.append(tuple(hand + [next(unseen) for _ in range(4 - len(hand))]))
    crib = deal.crib or tuple(next(unseen) for _ in range(4))
    return DealScript(deal.dealer, tuple(hands), crib, deal.starter)


def event_key(event: str | Mapping[str, Any]) -> tuple[Any, ...]:
    """What makes two log events the same event (a hand's cards in any order)."""
    e = json.loads(event) if isinstance(event, str) else event
    cards = tuple(sorted(Card.parse(c) for c in e.get("cards", ())))
    card = Card.parse(e["card"]) if "card" in e else None
    return (e["type"], e.get("player"), card, cards, e.get("dealer"), e.get("points"))


# -- the players ---------------------------------------------------------------------------------


@dataclass(slots=True)
class Tally:
    """What happened at the table, for the demo's report."""

    cards_read: int = 0  # laid cards the camera read and the device stored from that
    cards_by_hand: int = 0  # laid cards the camera did not read: typed on the phone page
    entries: int = 0  # phone-page entries (one card, or a whole hand)
    relaid: int = 0  # cards straightened because the board had not read them
    misreads: int = 0  # cards the tracker reported that were not there
    undone: int = 0  # stored events taken back with UNDO because they were wrong
    frames: int = 0
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"cards_read": self.cards_read, "cards_by_hand": self.cards_by_hand,
                "hand_entries": self.entries, "relaid": self.relaid,
                "misreads": self.misreads, "undone": self.undone, "frames": self.frames,
                "seconds": round(self.seconds, 2),
                "fps": round(self.frames / self.seconds, 1) if self.seconds else None}


class _WatchedTracker:
    """The real tracker, noting what it reports against the frame's truth (for the tally)
    and the last frame's detections (for pictures)."""

    def __init__(self, tracker: CardTracker, camera: SceneCamera, tally: Tally) -> None:
        self.tracker, self.camera, self.tally = tracker, camera, tally
        self.detections: Sequence[Seen] = ()
        self.misread: list[CardAppeared] = []

    @property
    def zones(self) -> Any:
        return self.tracker.zones

    @property
    def cards(self) -> dict[Card, str | None]:
        return self.tracker.cards

    @property
    def placed(self) -> tuple[tuple[Card, str | None, Any], ...]:
        """Where the tracker's cards lie (``CardTracker.placed``): the camera's eye draws
        them, as on a device (``firmware.device.eye_snapshot.PlacedCards``)."""
        return self.tracker.placed

    def update(self, at: float, detections: Sequence[Seen] | None) -> list[TableEvent]:
        events = self.tracker.update(at, detections)
        if detections is not None:
            self.detections = detections
        truth = self.camera.last.face_up() if self.camera.last is not None else {}
        for event in events:
            if isinstance(event, CardAppeared) and (
                    event.card not in truth or truth[event.card].zone != event.zone):
                self.misread.append(event)
                self.tally.misreads += 1
        return events


class StillCamera(SceneCamera):
    """A ``SceneCamera`` that draws a still table once per step: the frames after the first
    still one of a step (no hand, nothing moving) repeat it, on the clock, as new frames.

    Drawing a 2304x1296 frame through the camera model costs a quarter to half a second
    here, ten times what the device's reader spends on it, and the reader reads a change
    once, on one still frame (``vision.live.motion``): the frames before it only have to be
    still. So the demo spends its time on the frames that differ. Each still frame read is
    still drawn with its own noise, blur and light, as a camera gives it.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._still: Any = None  # the still shot last drawn (``SceneCamera``'s own)
        self.repeated = 0  # frames that repeated the still table rather than drawing it

    def read(self, timeout: float = 0.5) -> Frame | None:
        shot = self._queue[0] if self._queue else self._lying
        last, hands = self._still, self.renderer.settings.hand_frames
        if (shot is not None and last is not None and self.last is not None
                and shot.step is last.step and shot.step_no == last.step_no
                and shot.within >= hands and not shot.first):
            if self._queue:
                self._queue.popleft()
            self.clock.advance(1.0 / self.fps)
            self.frames += 1
            self.repeated += 1
            return Frame(self.last.image, self.clock(), self.frames)
        frame = super().read(timeout)
        self._still = shot if frame is not None and shot is not None \
            and shot.within >= hands else None
        return frame


class VisionTable:
    """Players at a drawn table playing ``truth`` (a simulated game's log) for the camera.

    Give the ``DeviceLoop`` this table's ``camera``, ``recognise``, ``reader`` and
    ``tracker`` (the device's reading path, ``vision.live.reading``; ``recognise`` reads
    the changed regions), ``start`` it, then iterate ``play(loop)``: it yields after each
    moment at the table. ``settle_frames`` is how many more frames the players
    watch the board before they straighten a card, and again before they type
    it in. ``frames_dir`` keeps pictures (detections outlined) of the frames in
    which the camera missed a card, and of each deal's crib.
    """

    def __init__(self, truth: Sequence[Mapping[str, Any]], *, clock: SteppingClock,
                 rng: random.Random, scene_rng: np.random.Generator,
                 settings: SceneSettings = DEMO_SCENE, recognise: Recognise | None = None,
                 fps: float = 10.0, pause: float = 2.0, settle_frames: int = 3,
                 frames_dir: Path | None = None, max_pictures: int = 30) -> None:
        players = len(truth[0]["players"]) if truth and "players" in truth[0] else 2
        self.film = GameFilm.from_log(
            truth, rng=rng, layout=TableLayout.for_camera(players, settings.camera))
        self.rng = rng
        self.clock = clock
        self.settings = settings
        self.tally = Tally()
        self.camera = StillCamera(self.film.script, clock=clock, rng=scene_rng,
                                  settings=settings, fps=fps, pause=pause)
        # The device's reading path, told the cards' height as a calibrated device is
        # (``[zones] card_px``): the demo's camera model knows it exactly.
        reading = device_reading(self.camera.size, card_px=self._card_px(),
                                 zones=self.camera.zones, recognise=recognise)
        self.recognise: Recognise = reading.recognise
        self.reader = reading.reader
        self.tracker = _WatchedTracker(reading.tracker, self.camera, self.tally)
        self.settle_frames = settle_frames
        self.frames_dir, self.max_pictures = frames_dir, max_pictures
        self.pictures: list[str] = []
        self._keys = [event_key(e) for e in truth]
        self._verified = 0  # leading stored lines already found equal to the truth

    kind = "vision"
    vision = ("drawn table frames (vision.drawn.scene) -> the device's reading path "
              "(StreamReader: changed regions read by CameraRecogniser) -> CardTracker; "
              "missed cards straightened, then typed in as on the phone page")

    def read_with(self, recognise: Recognise) -> None:
        """Reads the changed regions with ``recognise`` instead (tests: a recogniser that
        is blind to some cards, or misreads one)."""
        self.recognise = recognise
        self.reader.recognise = recognise

    def report(self) -> dict[str, Any]:
        """The demo's ``--json`` counts: what the camera read and what went in by hand."""
        return {**self.tally.to_json(), "frames_saved": self.pictures,
                "camera_model": self.camera_model(), "regions_read": self.reader.reads,
                "view_shifts": self.reader.watcher.shifts,
                "frames_drawn": self.camera.frames - self.camera.repeated}

    def _card_px(self) -> float:
        """How tall a card is in the frames, in pixels."""
        layout = self.film.script.layout
        return layout.card_height * self.camera.size[1] / layout.size[1]

    def camera_model(self) -> dict[str, Any]:
        """The camera the table was filmed with, and the card size in pixels it gives."""
        camera, size = self.settings.camera, self.camera.size
        card = self._card_px()
        out: dict[str, Any] = {"name": camera.name if camera else "ideal",
                               "resolution": list(size),
                               "card_px": [round(card * CARD_ASPECT), round(card)]}
        if camera is not None:
            out["height_m"] = camera.height
        return out

    def play(self, loop: DeviceLoop) -> Iterator[Moment]:
        """Films the game moment by moment into ``loop``; stops once the game is over."""
        began = time.perf_counter()
        try:
            for moment in self.film.moments:
                if loop.store.game.phase == "over":
                    break
                self._watch(loop, self.camera.film(moment.step))
                if moment.due:
                    self._settle(loop, moment)
                yield moment
        finally:
            self.tally.frames = self.camera.frames
            self.tally.seconds += time.perf_counter() - began

    # -- one moment ------------------------------------------------------------------------

    def _settle(self, loop: DeviceLoop, moment: Moment) -> None:
        """Makes sure the device stored what the moment shows, as the players would."""
        need = moment.upto - len(moment.presses)
        if not self._caught_up(loop, need):
            self._watch(loop, self.camera.hold(self.settle_frames))
        if not self._caught_up(loop, need):
            unread = self._unread(moment)
            self.tally.relaid += len(unread)
            self._watch(loop, self.camera.relay([c for c, _ in unread], self.rng))
            self._watch(loop, self.camera.hold(self.settle_frames))
        if self._caught_up(loop, need):
            self.tally.cards_read += len(moment.cards)
        else:
            self._picture(loop, f"missed-step{moment.step:04d}")
            unread = self._unread(moment)
            self.tally.cards_read += len(moment.cards) - len(unread)
            self.tally.cards_by_hand += len(unread)
            self._type(loop, moment, unread)
            if not self._caught_up(loop, need):
                raise DemoError(f"the device did not take {moment} even typed in: "
                                f"waiting for {loop.store.game.next}")
        for press in moment.presses:
            loop.feed([replace(press, at=self.clock())])
        if moment.spread and moment.cards[0][1] == CRIB:
            self._picture(loop, f"crib-step{moment.step:04d}")

    def _unread(self, moment: Moment) -> list[tuple[Card, str]]:
        seen = self.tracker.cards
        return [(c, z) for c, z in moment.cards if seen.get(c) != z]

    def _type(self, loop: DeviceLoop, moment: Moment, unread: Sequence[tuple[Card, str]]
              ) -> None:
        """Enters on the phone page what the camera did not read (a hand: all of it)."""
        at = self.clock()
        if moment.spread:
            zone = moment.cards[0][1]
            items: list[Any] = [ManualSpread(zone, tuple(c for c, _ in moment.cards), at)]
        else:
            typed = list(unread or moment.cards)
            items = [ManualCard(c, z, at) for c, z in typed]
        self.tally.entries += len(items)
        loop.feed(items)

    def _caught_up(self, loop: DeviceLoop, upto: int) -> bool:
        """Whether the store holds the true log's first ``upto`` events, after taking back
        (UNDO) any stored event the true log does not have."""
        store = loop.store
        while True:
            lines = store.lines
            # Stored lines only grow, or shrink from the end by UNDO: a checked prefix stays
            # checked, so each line is parsed once rather than at every moment.
            self._verified = min(self._verified, len(lines))
            while (self._verified < len(lines) and self._verified < len(self._keys)
                   and event_key(lines[self._verified]) == self._keys[self._verified]):
                self._verified += 1
            if self._verified == len(lines):
                break
            loop.feed([ButtonAction("undo", at=self.clock())])
            self.tally.undone += 1
            if len(store.lines) >= len(lines):
                raise DemoError(f"UNDO did not take back {lines[-1]}")
        return len(store.lines) >= min(upto, len(self._keys)) or store.game.phase == "over"

    def _watch(self, loop: DeviceLoop, frames: int) -> None:
        for _ in range(frames):
            loop.step()

    def _picture(self, loop: DeviceLoop, name: str) -> None:
        if self.frames_dir is None or self.camera.last is None \
                or len(self.pictures) >= self.max_pictures:
            return
        import cv2

        from vision.recognise.detection import Detection
        from vision.recognise.draw import draw_detections

        self.frames_dir.mkdir(parents=True, exist_ok=True)
        path = self.frames_dir / f"{name}.jpg"
        image = draw_detections(self.camera.last.image,
                                cast(Sequence[Detection], self.tracker.detections))
        if cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, 85]):
            self.pictures.append(str(path))
