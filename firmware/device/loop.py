"""The device's one loop: the only place where the game's state changes.

Each turn reads at most one camera frame (never waiting long, so the buttons
are polled every ``frame_timeout`` seconds or so), runs the recogniser and the
tracker, polls the buttons (whose gpiozero callbacks only queued edges), feeds
everything to the ``TableFlow``, appends the events it proposes to the store,
and only once the store has committed them draws the board, speaks and pings
the systemd watchdog. Every part comes in through the constructor, so the
tests run the real store, flow and renderer with a scripted camera and
gpiozero's mock pins, on a fake clock.

A camera that disappears is not fatal: the tracker reports it lost, the flow
switches to manual entry, and the loop goes on with the buttons. Nor is a store that
cannot keep a change (read-only, removed or replaced, an I/O error): the change is refused
with the store's words, which name the fix (``not_stored``), the board shows the game as
stored, and the next change tries again.

The phone page (``firmware.web``) is served from another thread and reaches
the loop only through a ``Hub``: its requests wait there until ``step`` feeds
them to the flow like button presses, and after each change the loop
publishes a read-only snapshot for the page. Without a hub none of that runs.
"""

from __future__ import annotations

import logging
import random
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np

from engine.game import Game
from engine.records import LogError
from engine.words import card_words, scores_words
from firmware.device.eye_snapshot import EyeFeed, named_by_hand_in
from firmware.device.notify import Notifier, Watchdog
from firmware.device.voice import Voice
from firmware.store.eventstore import (
    NOT_STORED,
    Appended,
    EventStore,
    StoredEvent,
    StoreError,
    StoreUnwritable,
)
from firmware.store.schema import STORAGE_FULL, StorageFull
from firmware.table.flow import (
    ButtonAction,
    Feedback,
    ManualCard,
    NewMatch,
    Outcome,
    TableFlow,
    TableInput,
    Tick,
    UnknownCard,
)
from firmware.table.words import at_start_words, next_words
from firmware.web.camera_eye import CameraEye
from firmware.web.hub import Hub, Reply
from firmware.web.snapshot import BoardLimits, TableView, revision, table_snapshot
from hardware.animation import FPS, celebration, error_flash, peg_walk, skunk
from hardware.buttons import ButtonEvent, Controls
from hardware.palette import Palette
from hardware.render import Frame, Renderer
from hardware.state import BoardState, board_state_from_game
from hardware.strip import LedStrip
from vision.live.focus_watch import FocusWatch
from vision.live.sources import CameraUnavailableError, FrameSource
from vision.live.sources import Frame as CameraFrame
from vision.live.tracker import CameraLost, CardAppeared, Seen, TableEvent
from vision.live.zones import TableZones
from vision.recognise.focus import FocusMeter

log = logging.getLogger("firmware.device.loop")

__all__ = ["DeviceLoop", "EventLog", "apply_outcome", "Panel", "Tracker", "Recogniser", "Reader",
           "UnknownWatch"]

Recogniser = Callable[[Any], Sequence[Seen]]
# Reads a whole camera Frame (both its streams): ``vision.live.motion.StreamReader``.
Reader = Callable[[CameraFrame], Sequence[Seen]]

#: How often (seconds of the loop's clock) a store served read-only is asked whether it can be
#: written again: a few system calls while its fault stands (``EventStore.writable_again``).
STORE_RECHECK_S = 5.0
#: What the table hears, once, when it can.
WRITABLE_AGAIN = "The event store can be written again: changes are kept from now on."


class Panel(Protocol):
    """What the loop needs of the buttons (``hardware.buttons.ButtonPanel`` fits)."""

    def poll(self, now: float | None = None) -> list[ButtonEvent]: ...

    def close(self) -> None: ...


class Tracker(Protocol):
    """What the loop needs of the tracker (``vision.live.tracker.CardTracker`` fits)."""

    @property
    def zones(self) -> TableZones | None: ...

    def update(self, at: float, detections: Sequence[Seen] | None) -> list[TableEvent]: ...


@dataclass
class UnknownWatch:
    """Says "straighten the card" once an unreadable card has lain in a zone for ``frames``
    frames, then keeps quiet about that zone for ``quiet_s``.

    The tracker only reports cards it can name, so this is the one place the loop looks
    at raw detections.
    """

    frames: int = 15
    quiet_s: float = 10.0

    def __post_init__(self) -> None:
        self._seen: dict[str, int] = {}
        self._said: dict[str, float] = {}

    def update(self, at: float, detections: Sequence[Seen],
               zones: TableZones | None) -> list[UnknownCard]:
        if zones is None:
            return []
        here = {zones.assign(d.corners) for d in detections if d.card is None}
        here.discard(None)
        found: list[UnknownCard] = []
        for zone in list(self._seen):
            if zone not in here:
                del self._seen[zone]
        for zone in sorted(z for z in here if z is not None):
            self._seen[zone] = self._seen.get(zone, 0) + 1
            if self._seen[zone] >= self.frames and at - self._said.get(zone, -1e9) >= self.quiet_s:
                self._said[zone] = at
                found.append(UnknownCard(zone, at))
        return found


class EventLog(Protocol):
    """What ``apply_outcome`` needs of the store (``firmware.store.eventstore.EventStore`` fits)."""

    @property
    def game(self) -> Game: ...

    def append(self, event: dict[str, Any]) -> Appended: ...

    def start_match(self, event: dict[str, Any]) -> Appended: ...

    def undo(self) -> StoredEvent: ...


def apply_outcome(store: EventLog, flow: TableFlow, outcome: Outcome, now: float, *,
                  after_append: Callable[[], None] | None = None) -> list[Feedback]:
    """Stores what the flow proposed, in order, and returns everything the flow says about it.

    Each stored event goes back to the flow, whose follow-up events are stored in turn; the
    first event the engine rejects ends the chain. One function, so the property tests'
    random tables run exactly the device's code; ``after_append`` runs after each commit
    (where they count events, or kill the device mid-outcome).
    """
    said: list[Feedback] = list(outcome.feedback)
    if outcome.undo:
        try:
            undone = store.undo()
        except StorageFull as exc:  # the board stays up and takes the undo again later
            return [*said, *storage_full(exc)]
        except StoreUnwritable as exc:  # nothing stored: the board stays up and says why
            return [*said, *not_stored(exc)]
        except StoreError as exc:
            said.append(Feedback("notice", str(exc)))
        else:
            said += flow.undone(undone.line, store.game).feedback
    pending = deque(outcome.events)
    first = True
    while pending:
        event = pending.popleft()
        try:
            if first and outcome.fresh_match:
                appended = store.start_match(event)
            else:
                appended = store.append(event)
        except LogError as exc:
            said += flow.rejected(event, exc, store.game).feedback
            break
        except StorageFull as exc:  # nothing stored; the next event tries again
            said += storage_full(exc)
            break
        except StoreError as exc:  # read-only, removed, an I/O error: refused, with words
            said += not_stored(exc)
            break
        first = False
        if after_append is not None:
            after_append()
        follow = flow.stored(event, appended.pegged, store.game, now)
        said += follow.feedback
        pending.extend(follow.events)
    return said


def storage_full(exc: StorageFull) -> list[Feedback]:
    """What the table hears when the card is full: said aloud and shown (a flash, so the
    page's request is answered 507), with the store's own words for the journal."""
    return [Feedback("flash", f"{STORAGE_FULL}: nothing was stored. Free some space on the "
                              "card, then lay or press it again."),
            Feedback("notice", str(exc))]


def not_stored(exc: StoreError) -> list[Feedback]:
    """What the table hears when the store cannot keep a change (``StoreUnwritable``: its
    file read-only, removed, an I/O error): the store's words, which name the fix, said and
    shown as a flash (the page's request is answered 409); the game is as before."""
    return [Feedback("flash", f"{NOT_STORED}: {exc}")]


class DeviceLoop:
    """Owns the store, the flow and the board; call ``start`` once, then ``step`` forever.

    ``on_feedback`` receives every piece of feedback after it is acted on (the
    ``run`` command prints them). ``pace`` waits between turns when there is
    no camera to wait on (tests pass a function that moves their fake clock).
    ``hub`` connects the phone page (see the module docstring). ``reader`` reads each
    frame where the table changed (``vision.live.motion.StreamReader``, the device's way, which
    calls ``recognise`` on those regions); without it ``recognise`` reads every whole frame.

    ``eye`` (``firmware.web.camera_eye``) is handed each frame read, for the page's view of it.
    """

    def __init__(self, *, store: EventStore, flow: TableFlow, strip: LedStrip,
                 renderer: Renderer, clock: Callable[[], float] = time.monotonic,
                 source: FrameSource | None = None, recognise: Recogniser | None = None,
                 tracker: Tracker | None = None, panel: Panel | None = None,
                 controls: Controls | None = None, voice: Voice | None = None,
                 notifier: Notifier | None = None, watchdog: Watchdog | None = None,
                 rng: random.Random | None = None,
                 on_feedback: Callable[[Feedback], None] | None = None,
                 pace: Callable[[float], None] = time.sleep, frame_timeout: float = 0.02,
                 unknown: UnknownWatch | None = None, focus: FocusWatch | None = None,
                 hub: Hub | None = None, reader: Reader | None = None,
                 eye: CameraEye | None = None, camera_off: str | None = None) -> None:
        if source is not None and (recognise is None or tracker is None):
            raise ValueError("a camera source needs a recognise function and a tracker")
        self.store, self.flow, self.strip, self.renderer = store, flow, strip, renderer
        # Why a configured camera is off (firmware.device.recogniser_probe): said at start.
        self.camera_off = camera_off
        self.clock = clock
        self.source, self.recognise, self.tracker = source, recognise, tracker
        self.reader = reader
        self.panel = panel
        self.controls = controls or Controls()
        self.voice = voice or Voice.off()
        self.notifier = notifier or Notifier({})
        self.watchdog = watchdog or Watchdog(None, clock)
        self.rng = rng or random.Random(0)
        self.on_feedback = on_feedback
        self.pace = pace
        self.frame_timeout = frame_timeout
        self.unknown = unknown or UnknownWatch()
        # A motorised lens (the Camera Module 3's) is refocused, not turned by hand.
        self.focus = focus or FocusWatch(lens=getattr(source, "lens", None))
        self.frames_pushed = 0
        # What went wrong with the strip, while frames cannot be pushed; None while they can.
        self.strip_problem: str | None = None
        self.turns = 0
        self._shown: BoardState | None = None
        self._frames: deque[Frame] = deque()
        self._next_frame_at = 0.0
        self._effects: list[Feedback] = []
        # The phone page: what it was last shown, and the feedback it may list.
        self.hub = hub
        # The camera's eye on the phone page: handed each frame read, drawn on its own thread.
        self.eye = EyeFeed(eye) if eye is not None else None
        self._recent: deque[tuple[str, str]] = deque(maxlen=10)
        self._told = 0
        self._heard: list[Feedback] | None = None  # feedback to a request being served
        self._published: tuple[Any, ...] | None = None
        self._history: tuple[Any, ...] = ()
        self._history_key: tuple[Any, ...] | None = None
        # The cards the reader took for the table's art as it first settled (said once).
        self._at_start: tuple[Seen, ...] | None = None
        self._store_looked = float("-inf")

    # -- start -----------------------------------------------------------------------------

    def start(self) -> None:
        """Shows the resumed game (the store replayed it on opening), and what a repair of the
        store lost, then says READY=1."""
        now = self.clock()
        self._shown = None
        if self.store.recovery is not None:  # said aloud and on the page (run logs it too)
            self._tell(Feedback("say", self.store.recovery.words()))
        unwritable, copy = self._store_faults()
        if unwritable is not None:  # served read-only: aloud, on the page and in the journal
            self._tell(Feedback("say", unwritable), level=logging.ERROR)
        if copy is not None:  # a second copy that could not be opened: the same three ways
            self._tell(Feedback("say", copy), level=logging.WARNING)
        if self.camera_off is not None:  # aloud and on the page: the table must not wait on it
            self._tell(Feedback("say", f"Camera off: {self.camera_off}. Enter the cards by hand."),
                       level=logging.WARNING)
        # Served read-only, what the flow proposes at start is refused: said once, above.
        self._apply(self.flow.start(self.store.game), now, hush=unwritable is not None)
        self._redraw(now, animate=False)
        self._publish()
        self.notifier.ready(self.status())

    # -- one turn ------------------------------------------------------------------------------

    def step(self) -> None:
        """One turn of the loop: camera, buttons, clock, board, voice, watchdog."""
        now = self.clock()
        self._look_at_store(now)
        items = self._camera(now)
        # The cards of one change, judged together before any is taken (TableFlow.together).
        laid = [item for item in items if isinstance(item, CardAppeared)]
        whole = self.flow.together(laid, self.store.game) if len(laid) > 1 else None
        for item in items:
            if whole is not None and isinstance(item, CardAppeared):
                if item is laid[0]:
                    self._apply(whole, now)
                continue
            self._apply(self.flow.handle(item, self.store.game), now)
        self.feed(self._buttons(now), now)
        self._serve(now)
        self._apply(self.flow.handle(Tick(now), self.store.game), now)
        self._redraw(now)
        self._publish()
        self.voice.pump()
        self.watchdog.ping(self.notifier)
        self.turns += 1
        if self.source is None:
            self.pace(self.frame_timeout)

    def feed(self, items: Sequence[TableInput], now: float | None = None) -> None:
        """Hands table inputs to the flow as if they had just happened (tests, the phone page)."""
        at = self.clock() if now is None else now
        for item in items:
            self._apply(self.flow.handle(item, self.store.game), at)

    def run(self, *, should_stop: Callable[[], bool], max_seconds: float | None = None) -> None:
        """Steps until ``should_stop()`` or ``max_seconds`` have passed on the loop's clock."""
        began = self.clock()
        while not should_stop():
            if max_seconds is not None and self.clock() - began >= max_seconds:
                break
            self.step()

    def drain(self, *, limit: int = 10_000) -> None:
        """Pushes every queued animation frame now (tests and the demo: no waiting)."""
        while self._frames and limit:
            self._push(self._frames.popleft())
            limit -= 1

    def settle(self) -> None:
        """Brings the board to the store's game at once and shows every frame due, so a
        picture taken now has the pegs its legend (the store's scores) says (the demo)."""
        self._redraw(self.clock(), animate=False)
        self.drain()

    def close(self) -> None:
        self.voice.close()
        if self.panel is not None:
            self.panel.close()
        if self.source is not None:
            self.source.close()
        self.strip.close()

    # -- inputs ----------------------------------------------------------------------------------

    def _camera(self, now: float) -> list[TableInput]:
        if self.tracker is None:
            return []
        if self.source is None:
            return list(self.tracker.update(now, None))
        try:
            frame = self.source.read(self.frame_timeout)
        except CameraUnavailableError as exc:
            self.source.close()
            self.source = None
            self._tell(Feedback("notice", f"camera gone: {exc}"), level=logging.WARNING)
            return [CameraLost(now)]
        if frame is None:
            if getattr(self.source, "exhausted", False) is True:  # a replay that has ended
                self.source.close()
                self.source = None
                self._tell(Feedback("notice", "the recorded table has no more pictures"))
                return [CameraLost(now)]
            return list(self.tracker.update(now, None))
        assert self.recognise is not None
        try:
            detections = list(self.reader(frame) if self.reader is not None
                              else self.recognise(frame.image))
        except Exception as exc:  # a recogniser bug must not stop the scoring
            self._tell(Feedback("notice", f"recogniser failed on frame {frame.index}: {exc}"),
                       level=logging.WARNING)
            return list(self.tracker.update(now, None))
        self._watch_focus()
        self._lying_at_start()
        items: list[TableInput] = list(self.tracker.update(now, detections))
        items += [u for u in self.unknown.update(now, detections, self.tracker.zones)
                  if not named_by_hand_in(u.zone, self.flow.place_of(u.zone), self.store.game,
                                          self.tracker, detections)]  # named on the phone
        if self.eye is not None:
            self.eye.offer(frame.image, now, detections, self.tracker, self.tracker.zones,
                           self.store.game, revision(self.store),
                           seats=self.flow.seats, players=self.flow.players,
                           at_start=self._at_start or ())
        return items

    def _lying_at_start(self) -> None:
        """Tells the table, once, of the cards that lay face up as the table first settled:
        the reader (``vision.live.motion.StreamReader.at_start``) took them for the table's
        own art, which is never counted, so without a word the camera's eye would show
        "0 cards read" over cards in plain view."""
        if self._at_start is not None:
            return
        lying = getattr(self.reader, "at_start", None)
        if not isinstance(lying, tuple):
            return  # not settled yet, or a reader that learns no art
        self._at_start = tuple(lying)
        if self._at_start:
            self._tell(Feedback("notice", at_start_words(
                [s.card for s in self._at_start if s.card is not None])))

    def _watch_focus(self) -> None:
        """Tells the players when the lens needs turning: the device's recogniser
        (``vision.recognise.detection.CameraRecogniser``) has a focus meter, which the reader
        hands every frame (``vision.live.motion.StreamReader``; without a reader, each read)."""
        meter = getattr(self.recognise, "focus", None)
        if isinstance(meter, FocusMeter):
            said = self.focus.update(meter)
            if said is not None:
                trouble = self.focus.state == "out of focus"
                self._tell(Feedback("notice", said),
                           level=logging.WARNING if trouble else logging.INFO)

    def _buttons(self, now: float) -> list[TableInput]:
        actions: list[TableInput] = []
        if self.panel is not None:
            for event in self.panel.poll(now):
                action = self.controls.handle(event)
                actions.append(ButtonAction(action.name, action.value, event.at, action.subject))
        expired = self.controls.expire(now)
        if expired is not None:
            actions.append(ButtonAction(expired.name, expired.value, now, expired.subject))
        return actions

    # -- the store ---------------------------------------------------------------------------------

    def _apply(self, outcome: Outcome, now: float, *, hush: bool = False) -> None:
        """Stores what the flow proposed (durably), then lets the flow speak about it;
        ``hush``: a refusal by the store is already said, and the rest would tell of a
        change that did not happen, so nothing of it is told."""
        was = self._store_faults()
        said = apply_outcome(self.store, self.flow, outcome, now)
        self._say_store_change(was)
        if hush and any(f.kind == "flash" and f.text.startswith(NOT_STORED) for f in said):
            return
        for item in said:
            self._tell(item)

    def _look_at_store(self, now: float) -> None:
        """Asks a store served read-only every ``STORE_RECHECK_S`` whether it can be written
        again, so the table hears it before its next change (which asks too)."""
        was = self._store_faults()
        if was[0] is None or now - self._store_looked < STORE_RECHECK_S:
            return
        self._store_looked = now
        self.store.writable_again()
        self._say_store_change(was)

    def _store_faults(self) -> tuple[str | None, str | None]:
        """The store's words for what it cannot do now: keep a change (``unwritable``), keep
        each event's second copy (``copy_trouble``); None for what it can."""
        return (getattr(self.store, "unwritable", None),
                getattr(self.store, "copy_trouble", None))

    def _say_store_change(self, was: tuple[str | None, str | None]) -> None:
        """Says once what changed since ``was`` (``_store_faults``): a store served read-only
        takes changes again (or only a restart will do), or its second copy fell behind."""
        unwritable, copy = self._store_faults()
        if was[0] is not None and unwritable != was[0]:
            self._tell(Feedback("say", WRITABLE_AGAIN if unwritable is None else unwritable),
                       level=logging.INFO if unwritable is None else logging.ERROR)
        if copy is not None and copy != was[1]:
            self._tell(Feedback("say", copy), level=logging.WARNING)

    def _tell(self, item: Feedback, *, level: int = logging.INFO) -> None:
        """Acts on one piece of feedback and logs it; the device's own trouble (camera,
        strip, focus) at warning, so the journal's ``-p warning`` shows it
        (firmware.device.logs)."""
        log.log(level, item.text if item.kind == "say" else f"[{item.kind}] {item.text}")
        self._recent.append((item.kind, item.text))
        self._told += 1
        if self._heard is not None:
            self._heard.append(item)
        if item.kind in ("say", "flash", "ask", "celebrate"):
            self.voice.say(item.text)
        if item.kind in ("notice", "ask", "flash"):
            self.notifier.status(item.text)
        if item.kind in ("flash", "celebrate"):
            self._effects.append(item)
        if self.on_feedback is not None:
            self.on_feedback(item)

    # -- the phone page ----------------------------------------------------------------------

    def _serve(self, now: float) -> None:
        """Feeds the page's queued requests to the flow, as the buttons' actions are fed.

        A request made against another revision of the store than the
        current one is answered ``stale`` and changes nothing: the players
        were looking at a table that has moved on (or the request is a
        replay). The loop stamps the time, since the flow's windows run on
        the loop's clock.
        """
        if self.hub is None:
            return
        for request in self.hub.take():
            if not request.begin():
                continue  # the page gave up waiting: never apply it behind its back
            try:
                before = revision(self.store)
                if request.rev != before:
                    request.answer(Reply("stale", before))
                    continue
                held = self._held_cut(request.items)
                if held is not None:
                    request.answer(Reply("stale", before, feedback=(("flash", held),)))
                    continue
                self._heard = []
                self.feed([replace(item, at=now) for item in request.items], now)
                heard, self._heard = self._heard, None
                after = revision(self.store)
                if after != before:
                    self._recolour(request.items)
                request.answer(Reply("done", after, after != before,
                                     tuple((f.kind, f.text) for f in heard)))
            except BaseException as exc:
                self._heard = None
                request.fail(exc)
                raise

    def _held_cut(self, items: Sequence[TableInput]) -> str | None:
        """Why a typed card may not replace a player's cut card: the cut changes no
        revision, so the request may come from a phone that never saw the first card."""
        for item in items:
            if isinstance(item, ManualCard):
                held = self.flow.cut_card(item.zone)
                if held is not None and held != item.card:
                    return (f"{item.zone} has already cut {card_words(held)}: nothing was done "
                            "(UNDO takes the cut back)")
        return None

    def _recolour(self, items: Sequence[TableInput]) -> None:
        """New peg colours chosen with a new match (``NewMatch.colours``)."""
        for item in items:
            if isinstance(item, NewMatch):
                sides = item.colours or self.renderer.palette.sides
                needed = len(self.store.game.sides)
                sides = tuple(sides) + Palette().sides[len(sides):needed]
                if sides != self.renderer.palette.sides:
                    self.renderer = replace(self.renderer,
                                            palette=replace(self.renderer.palette, sides=sides))
                    self._shown = None  # redraw at once in the new colours

    def _publish(self) -> None:
        """Hands the page a fresh snapshot, only when something it shows has changed."""
        if self.hub is None:
            return
        store, game = self.store, self.store.game
        rev = revision(store)
        palette = self.renderer.palette
        focus = self.focus.state if self.source is not None else "unknown"
        key = (rev, self._told, self.flow.manual, self.source is not None, focus, palette.sides)
        if key == self._published:
            return
        # The match history is a query over every stored game: only when a game ends or
        # a match starts (or such an event is undone).
        history_key = (store.match, len(game.match))
        if history_key != self._history_key:
            self._history, self._history_key = store.matches(), history_key
        layout = self.renderer.layout
        self.hub.publish(table_snapshot(TableView(
            game=game, lines=store.lines, rev=rev, players=self.flow.players,
            rules=self.flow.rules, colours=palette.sides, feedback=tuple(self._recent),
            matches=self._history, camera=self.source is not None, manual=self.flow.manual,
            camera_focus=focus,
            limits=BoardLimits(layout.tracks, layout.shared, layout.game_hole),
            status=getattr(store, "unwritable", None) or (
                self._recent[-1][1] if self._recent else ""))))
        self._published = key

    # -- the board -------------------------------------------------------------------------------

    def status(self) -> str:
        game = self.store.game
        scores = scores_words(game.sides)
        waiting = next_words(game)  # the table's words: CONFIRM once a game is over
        return f"{scores}; waiting for {waiting}" if scores else waiting

    def _redraw(self, now: float, *, animate: bool = True) -> None:
        game = self.store.game
        effects, self._effects = self._effects, []
        if not game.sides:
            if self._shown is not None or self.frames_pushed == 0:
                self._shown = None
                self._frames.clear()
                self._push(self.renderer.blank())
            return
        state = board_state_from_game(game)
        if state != self._shown or effects:
            self._frames.clear()
            self._frames.extend(self._animation(self._shown, state, effects, animate))
            self._shown = state
            self._next_frame_at = now  # the first frame goes out in this very turn
        if self._frames and now >= self._next_frame_at:
            self._push(self._frames.popleft())
            self._next_frame_at = now + 1.0 / FPS

    def _animation(self, before: BoardState | None, after: BoardState,
                   effects: list[Feedback], animate: bool) -> Iterator[Frame]:
        renderer = self.renderer
        if animate and before is not None and len(before.sides) == len(after.sides) and all(
                a.name == b.name for a, b in zip(before.sides, after.sides, strict=True)):
            walking = before
            for i, (old, new) in enumerate(zip(before.sides, after.sides, strict=True)):
                points = new.front - old.front
                if points > 0 and new.back == old.front:
                    walk = replace_turn(walking, after)
                    yield from peg_walk(renderer, walk, i, points)
                    walking = walk.pegged(i, points)
        if any(e.kind == "flash" for e in effects):
            yield from error_flash(renderer, after)
        if any(e.kind == "celebrate" for e in effects) and after.winner is not None:
            yield from celebration(renderer, after, rng=self.rng, frames=FPS)
            for loser, side in enumerate(after.sides):
                if loser != after.winner and after.skunk is not None \
                        and side.front < after.skunk:
                    yield from skunk(renderer, after, loser, flashes=2)
        yield renderer(after)

    def _push(self, frame: Frame) -> None:
        try:
            self.strip.show(np.asarray(frame))
        except OSError as exc:  # a strip gone mid-game: keep scoring, the page shows the board
            if self.strip_problem is None:
                self.strip_problem = str(exc)
                self._tell(Feedback("notice", f"LED strip unavailable: {exc}"),
                           level=logging.WARNING)
            self._frames.clear()
            self._shown = None  # the next turn draws the board again, and so retries
            return
        if self.strip_problem is not None:
            self.strip_problem = None
            self._tell(Feedback("notice", "LED strip back"))
        self.frames_pushed += 1


def replace_turn(state: BoardState, like: BoardState) -> BoardState:
    """``state`` with ``like``'s turn and winner, so a walk shows the new turn already."""
    return replace(state, turn=like.turn, winner=like.winner)
