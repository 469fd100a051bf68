"""The card-to-LED stopwatch the device benchmarks share (``loop_latency.py``, ``eye_cost.py``),
so both measure the same span: from the tracker reporting a player's ``CardAppeared`` to the
next LED frame the strip is shown.

Not a script: whoever imports it already has the repository root on ``sys.path``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from firmware.demo.scripted_table import ScriptedTracker
from hardware.layout import Layout
from hardware.strips.simulator import SimulatorStrip
from vision.live.tracker import CardAppeared

__all__ = ["CardToLed", "TimedStrip", "TimedTracker"]


class CardToLed:
    """``samples``: seconds from each card a player (``players`` are the zones) put down being
    reported to the next frame shown."""

    def __init__(self, players: Sequence[str]) -> None:
        self.players = tuple(players)
        self.samples: list[float] = []
        self._seen_at: list[float] = []

    def reported(self, facts: Sequence[Any]) -> None:
        if any(isinstance(e, CardAppeared) and e.zone in self.players for e in facts):
            self._seen_at.append(time.perf_counter())

    def shown(self) -> None:
        if self._seen_at:
            self.samples.append(time.perf_counter() - self._seen_at.pop())


class TimedTracker(ScriptedTracker):
    """The scripted tracker, telling ``watch`` what it reports."""

    def __init__(self, watch: CardToLed) -> None:
        super().__init__()
        self.watch = watch

    def update(self, at: float, detections: Sequence[Any] | None) -> list[Any]:
        out = super().update(at, detections)
        self.watch.reported(out)
        return out


class TimedStrip(SimulatorStrip):
    """The simulator strip, telling ``watch`` when a frame is shown."""

    def __init__(self, layout: Layout, watch: CardToLed) -> None:
        super().__init__(layout)
        self.watch = watch

    def show(self, frame: Any) -> None:
        super().show(frame)
        self.watch.shown()
