"""The demo's scripted table: tracker facts handed to the real loop from a game's log.

``table_script`` turns a simulated log into what a real table's tracker would report (a cut
for each first deal, every card laid, GO and claim presses), ``ScriptedTracker`` hands those
facts to the loop one frame at a time and ``ScriptedTable`` is ``cribbage-board demo
--camera scripted``. ``SteppedClock`` and ``BlankCamera`` let the demo and the tests run the
loop without waiting for real time or a real camera.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from engine.cards import Card

__all__ = ["Step", "SteppedClock", "BlankCamera", "ScriptedTracker", "table_script",
           "ScriptedTable"]


@dataclass(frozen=True, slots=True)
class Step:
    """One moment at the table: tracker facts seen in one frame, or a button pressed."""

    seen: tuple[Any, ...] = ()
    press: str | None = None
    value: int = 0


class SteppedClock:
    """A clock that moves only when told: the demo and the tests never wait for real time."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class BlankCamera:
    """A camera that delivers a small blank frame per read and moves the clock a frame on."""

    name = "synthetic"

    def __init__(self, clock: SteppedClock, *, fps: float = 30.0, size: tuple[int, int] = (64, 48)
                 ) -> None:
        from vision.live.sources import Frame

        self._frame_type = Frame
        self.clock, self.fps = clock, fps
        self.image = np.zeros((size[1], size[0], 3), dtype=np.uint8)
        self.unplugged = False
        self.index = 0

    def read(self, timeout: float = 0.5) -> Any:
        if self.unplugged:
            self.clock.advance(timeout)
            return None
        self.clock.advance(1.0 / self.fps)
        self.index += 1
        return self._frame_type(self.image, self.clock(), self.index)

    def close(self) -> None:
        pass


@dataclass
class ScriptedTracker:
    """Stands in for ``CardTracker``: each camera frame delivers the next scripted facts."""

    zones: Any = None
    queue: deque[tuple[Any, ...]] = field(default_factory=deque)

    def push(self, seen: Iterable[Any]) -> None:
        self.queue.append(tuple(seen))

    def update(self, at: float, detections: Sequence[Any] | None) -> list[Any]:
        from vision.live.tracker import CameraBack, CameraLost

        if detections is None or not self.queue:
            return []
        return [item if isinstance(item, CameraLost | CameraBack) else replace(item, at=at)
                for item in self.queue.popleft()]


def table_script(events: Sequence[Mapping[str, Any]], *, rng: random.Random) -> list[Step]:
    """What a table shows while ``events`` (a simulated log) are played on it.

    The first deal of a match is preceded by a cut in which its dealer cuts
    lowest; ``go`` events become GO presses; every other event is the card (or
    the spread) that makes the device store it. New games of a match need no
    step: the next starter starts them.
    """
    from firmware.demo.camera_table import cut_cards
    from vision.live.tracker import CardAppeared, CardRemoved, ZoneComplete

    players: list[str] = []
    steps: list[Step] = []
    lying: list[tuple[Card, str]] = []

    def appear(card: Card, zone: str) -> Step:
        lying.append((card, zone))
        return Step((CardAppeared(card, zone, (), 0.0),))

    for event in events:
        kind = event["type"]
        if kind == "new_game":
            players = list(event["players"])
        elif kind == "deal" and "dealer" in event:
            dealer = str(event["dealer"])
            cut = cut_cards(players, dealer, rng)
            steps += [Step((CardAppeared(cut[p], p, (), 0.0),)) for p in players]
            steps.append(Step(tuple(CardRemoved(cut[p], p, 0.0) for p in players)))
        elif kind == "starter":
            steps.append(appear(Card.parse(event["card"]), "starter"))
        elif kind == "play":
            steps.append(appear(Card.parse(event["card"]), str(event["player"])))
        elif kind == "go":
            steps.append(Step(press="go"))
        elif kind == "claim":
            steps.append(Step(press="claim", value=int(event["points"])))
        elif kind == "muggins":
            steps.append(Step(press="muggins"))
        elif kind in ("show", "crib"):
            zone = str(event["player"]) if kind == "show" else "crib"
            cards = tuple(sorted(Card.parse(c) for c in event["cards"]))
            steps.append(Step((ZoneComplete(zone, cards, 0.0),)))
            if kind == "crib":
                steps.append(Step(tuple(CardRemoved(c, z, 0.0) for c, z in lying)))
                lying.clear()
    return steps


class ScriptedTable:
    """``--camera scripted``: the tracker's facts handed over from the log, no frames drawn.

    Quick, and exact, so it tries the flow rather than the camera.
    """

    kind = "scripted"
    vision = "scripted tracker events (no frames: --camera vision films the table)"

    def __init__(self, truth: Sequence[Mapping[str, Any]], *, clock: SteppedClock,
                 rng: random.Random) -> None:
        self.steps = table_script(truth, rng=rng)
        self.clock = clock
        self.camera = BlankCamera(clock)
        self.tracker = ScriptedTracker()

    @staticmethod
    def recognise(image: Any) -> list[Any]:
        return []

    def play(self, loop: Any) -> Iterator[Step]:
        from firmware.table.flow import ButtonAction

        for step in self.steps:
            if step.press is not None:
                loop.feed([ButtonAction(step.press, step.value, self.clock())])
            else:
                self.tracker.push(step.seen)
            loop.step()
            yield step

    def report(self) -> dict[str, Any]:
        return {}
