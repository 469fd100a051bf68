"""A camera that films a drawn table (``vision.drawn.scene``): the demo's and the tests' camera.

``SceneCamera`` is a ``vision.live.sources.FrameSource``, so the device loop reads it
exactly as it reads the Pi's camera, and the real recogniser and tracker see
every frame; ``SceneSettings.camera`` (``vision.drawn.camera_model``) decides how
large, soft and noisy the cards come out. Unlike a camera it films only when
told: whoever plays the table asks it to ``film`` a step of the script (a card
laid, a hand spread), to ``hold`` on the table as it lies, or to film a step
with cards ``relaid`` the way a player straightens a card the board cannot
read. Between two steps
the players take a moment (``pause`` seconds of the clock and no frames), so
a card picked up is gone for longer than the tracker's ``vanish_seconds`` by
the time the next thing happens, as at a real table.

Time is the caller's ``clock`` (moved forward one frame per read), so a whole
game films in as long as drawing and reading its frames takes.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Collection
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from engine.cards import Card
from vision.drawn.scene import SceneFrame, SceneRenderer, SceneSettings, Script, Step
from vision.live.sources import Frame
from vision.live.zones import TableZones

__all__ = ["SceneCamera", "SteppingClock"]


class SteppingClock(Protocol):
    """A clock that moves only when told (``firmware.demo.scripted_table.SteppedClock`` fits)."""

    def __call__(self) -> float: ...

    def advance(self, seconds: float) -> None: ...


@dataclass(frozen=True, slots=True)
class _Shot:
    step: Step
    step_no: int
    within: int  # the frame's place in its step: a hand is in the first ``hand_frames``
    first: bool  # the first frame of something new: the players' pause comes before it


class SceneCamera:
    """Films ``script`` at one table for a whole game: one camera, one light, one deck.

    ``fps`` spaces the frames of a step on the clock; ``pause`` is the time
    people take between two steps. A read with nothing left to film returns
    one more frame of the table as it lies, as a camera keeps filming.
    """

    name = "scene"

    def __init__(self, script: Script, *, clock: SteppingClock, rng: np.random.Generator,
                 settings: SceneSettings | None = None, fps: float = 10.0,
                 pause: float = 2.0) -> None:
        if fps <= 0 or pause < 0:
            raise ValueError(f"need fps > 0 and pause >= 0, not {fps!r} and {pause!r}")
        self.script = script
        self.renderer = SceneRenderer(script, rng=rng, settings=settings)
        self.clock, self.fps, self.pause = clock, fps, pause
        self.frames = 0  # frames delivered
        self.last: SceneFrame | None = None
        self._queue: deque[_Shot] = deque()
        self._lying: _Shot | None = None  # the table as the last thing queued leaves it
        self._key = self.renderer.frame_count  # keys past the script's own frames

    @property
    def size(self) -> tuple[int, int]:
        return self.renderer.size

    @property
    def zones(self) -> TableZones:
        return self.renderer.zones

    @property
    def queued(self) -> int:
        return len(self._queue)

    @property
    def step(self) -> Step | None:
        """The table as the frames queued so far leave it."""
        return self._lying.step if self._lying is not None else None

    def film(self, step_no: int) -> int:
        """Queues the frames of script step ``step_no``; returns how many."""
        return self._queue_step(self.script.steps[step_no], step_no)

    def relay(self, cards: Collection[Card], rng: random.Random) -> int:
        """Queues frames of the current step with ``cards`` picked up and laid again straight."""
        if self._lying is None:
            return 0
        step = self.script.relaid(self._lying.step, cards, rng)
        return self._queue_step(step, self._lying.step_no)

    def hold(self, frames: int) -> int:
        """Queues ``frames`` frames of the table as it lies, with no hand in the way."""
        if self._lying is None:
            return 0
        self._queue.extend(self._lying for _ in range(frames))
        return frames

    def read(self, timeout: float = 0.5) -> Frame | None:
        if self._queue:
            shot = self._queue.popleft()
        elif self._lying is not None:
            shot = self._lying
        else:
            self.clock.advance(timeout)
            return None
        self.clock.advance(self.pause if shot.first else 1.0 / self.fps)
        self.last = self.renderer.render_step(shot.step, key=self._key, within=shot.within,
                                              step_no=shot.step_no)
        self._key += 1
        self.frames += 1
        return Frame(self.last.image, self.clock(), self.frames)

    def close(self) -> None:
        self._queue.clear()

    def _queue_step(self, step: Step, step_no: int) -> int:
        count = self.renderer.settings.frames_per_step
        for within in range(count):
            self._queue.append(_Shot(step, step_no, within, within == 0))
        self._lying = _Shot(step, step_no, count - 1, False)
        return count
