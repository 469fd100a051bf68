"""A simulated game at a drawn table, filmed by a camera model, into the real device loop:
from the frame that makes a card steady to the LED frame pushed for it.

``firmware.demo.camera_table`` films the game (default: a Camera Module 3 1.0 m up at
2304x1296, the example config's camera) into the real ``DeviceLoop``, read as ``run`` reads
(``vision.live.reading``: a ``StreamReader`` reading only what changed); for every frame in
which the tracker reports a card, this times the wall clock from that frame reaching the
loop to the LED frame the loop pushes for it in the same turn: the changed region's read,
tracker, table flow, durable store append, board render and push. Drawing the frame is the
camera's time and is not counted. Issue #6's target is 100 ms. Also the whole game's frames
per second and CPU seconds (drawing included) and how many cards the camera read or the
players typed in.
"""

from __future__ import annotations

import random
import resource
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from benchmarks.common import p95
from engine.simulate import simulate_game
from firmware.commands.demo import PLAYERS
from firmware.demo.camera_table import DEMO_RESOLUTION, VisionTable, demo_scene
from firmware.demo.scripted_table import SteppedClock
from firmware.device.loop import DeviceLoop
from firmware.store.eventstore import EventStore
from firmware.table.flow import TableFlow
from hardware.layout import per_side_tracks
from hardware.render import Renderer
from hardware.strips.simulator import SimulatorStrip
from vision.live.tracker import CardAppeared

__all__ = ["drawn_game"]


def drawn_game(players: int, seed: int, target: int, *, camera: str = "camera-module-3",
               size: tuple[int, int] = DEMO_RESOLUTION) -> dict[str, Any]:
    """One game played at the drawn table (the module's docstring)."""
    cv2.setNumThreads(1)
    began = resource.getrusage(resource.RUSAGE_SELF)
    names = PLAYERS[:players]
    rules: dict[str, Any] = {"target": target, **({"partnership": True} if players == 4 else {})}
    rng = random.Random(seed)
    truth = simulate_game(rng, names, rules)
    clock = SteppedClock()
    table = VisionTable(truth, clock=clock, rng=rng, scene_rng=np.random.default_rng(seed),
                        settings=demo_scene(camera, size=size))
    arrived: list[float] = []  # when this turn's frame reached the loop
    steady: list[bool] = []  # whether the tracker reported a card in it
    latencies: list[float] = []
    read, update = table.camera.read, table.tracker.update

    def timed_read(timeout: float = 0.5) -> Any:
        frame = read(timeout)
        arrived.append(time.perf_counter())
        steady.append(False)
        return frame

    def watched_update(at: float, detections: Any) -> Any:
        events = update(at, detections)
        if any(isinstance(e, CardAppeared) for e in events):
            steady[-1] = True
        return events

    table.camera.read = timed_read  # type: ignore[method-assign]
    table.tracker.update = watched_update  # type: ignore[method-assign]
    layout = per_side_tracks(2 if players == 4 else players)
    strip = SimulatorStrip(layout)
    show = strip.show

    def timed_show(frame: Any) -> None:
        show(frame)
        if steady and steady[-1]:
            latencies.append(1000 * (time.perf_counter() - arrived[-1]))
            steady[-1] = False  # the first push answers the card

    strip.show = timed_show  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory() as folder:
        store = EventStore.open(Path(folder) / "events.sqlite3", clock=clock)
        loop = DeviceLoop(store=store, flow=TableFlow(names, rules), strip=strip,
                          renderer=Renderer(layout), clock=clock, source=table.camera,
                          recognise=table.recognise, tracker=table.tracker,
                          reader=table.reader)
        loop.start()
        for _ in table.play(loop):
            pass
        finished = store.game.phase == "over"
        store.close()
    latencies.sort()
    ended = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (ended.ru_utime - began.ru_utime) + (ended.ru_stime - began.ru_stime)
    return {
        "players": players, "seed": seed, "target": target, "finished": finished,
        **table.tally.to_json(),
        "card_to_leds_ms_median": round(statistics.median(latencies), 1) if latencies else None,
        "card_to_leds_ms_p95": round(p95(latencies), 1) if latencies else None,
        "card_to_leds_ms_max": round(latencies[-1], 1) if latencies else None,
        "cards_timed": len(latencies),
        "cpu_s": round(cpu, 1), "regions_read": table.reader.reads,
        "frames_drawn": table.camera.frames - table.camera.repeated,
        "size": f"{size[0]}x{size[1]}",
    }
