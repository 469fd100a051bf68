"""The demo reads its drawn table exactly as ``cribbage-board run`` reads a camera (issue 53,
item 6): a ``StreamReader`` over the device's recogniser, called on the regions that changed
(never on whole frames once the table has settled), and by default it films the camera the
README recommends, the example config's ``[camera] size``."""

from __future__ import annotations

import random
import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine.simulate import simulate_game
from firmware.commands.cli import build_parser
from firmware.demo.camera_table import DEMO_RESOLUTION, IDEAL_SCENE, VisionTable, demo_scene
from firmware.demo.scripted_table import SteppedClock
from firmware.device.loop import DeviceLoop
from firmware.store.eventstore import EventStore
from firmware.table.flow import TableFlow
from hardware.layout import per_side_tracks
from hardware.render import Renderer
from hardware.strips.simulator import SimulatorStrip
from vision.live.motion import StreamReader
from vision.live.reading import DEVICE_TRACKER

ROOT = Path(__file__).resolve().parents[1]


def test_the_demo_films_the_example_configs_camera_by_default() -> None:
    config = tomllib.loads((ROOT / "firmware" / "config.example.toml").read_text())
    assert DEMO_RESOLUTION == tuple(config["camera"]["size"]) == (2304, 1296)
    args = build_parser().parse_args(["demo"])
    assert args.resolution == "2304x1296"
    assert demo_scene().size == DEMO_RESOLUTION
    assert demo_scene(size=(1280, 720)).size == (1280, 720)


class Calls:
    """The device's recogniser, noting the size of every image it is handed."""

    def __init__(self) -> None:
        from vision.recognise.detection import CameraRecogniser

        self.recognise = CameraRecogniser()
        self.focus = self.recognise.focus
        self.sizes: list[tuple[int, int]] = []

    def __call__(self, image: np.ndarray, *, card_px: float | None = None) -> Any:
        self.sizes.append((image.shape[1], image.shape[0]))
        return self.recognise(image, card_px=card_px)


@pytest.mark.slow
def test_the_demo_reads_only_the_regions_that_changed_as_run_does(tmp_path: Path) -> None:
    truth = simulate_game(random.Random(3), ("Ann", "Bob"), {"target": 61})
    clock = SteppedClock()
    size = (960, 540)
    table = VisionTable(truth, clock=clock, rng=random.Random(3),
                        scene_rng=np.random.default_rng(3),
                        settings=replace(IDEAL_SCENE, size=size))
    calls = Calls()
    table.read_with(calls)
    assert isinstance(table.reader, StreamReader) and table.reader.recognise is calls
    assert table.tracker.tracker.settings == DEVICE_TRACKER
    assert table.reader.card_px == pytest.approx(table.camera_model()["card_px"][1], abs=1)
    layout = per_side_tracks(2)
    store = EventStore.open(tmp_path / "events.sqlite3", clock=clock)
    loop = DeviceLoop(store=store, flow=TableFlow(("Ann", "Bob"), truth[0]["rules"]),
                      strip=SimulatorStrip(layout), renderer=Renderer(layout), clock=clock,
                      source=table.camera, recognise=table.recognise, tracker=table.tracker,
                      reader=table.reader)
    loop.start()
    moments = 0
    for moment in table.play(loop):
        moments += moment.due
        if moments == 6:  # the cut and the first cards of the first deal
            break
    store.close()
    # The bare table is read whole once; every later read is a crop of what changed.
    assert calls.sizes[0] == size and len(calls.sizes) > 4
    assert all(w * h < size[0] * size[1] / 2 for w, h in calls.sizes[1:])
    assert len(calls.sizes) < table.camera.frames / 3
    assert table.tally.cards_read >= 4 and table.tally.misreads == 0
    # The focus meter is fed every frame, not every read.
    assert calls.focus.frames == table.camera.frames
