"""The device telling the players when its camera is out of focus (vision.live.focus_watch),
from the blur the device's recogniser measures on real (drawn) frames."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_vision_focus import blurred, scene

from firmware.demo.scripted_table import ScriptedTracker, SteppedClock
from firmware.device.loop import DeviceLoop
from firmware.store.eventstore import EventStore
from firmware.table.flow import Feedback, TableFlow
from firmware.web.hub import Hub
from hardware.layout import per_side_tracks
from hardware.render import Renderer
from hardware.strips.simulator import SimulatorStrip
from vision.live.focus_watch import FocusWatch, focus_state
from vision.live.lens import LensFocus
from vision.live.sources import Frame
from vision.recognise.detection import CameraRecogniser
from vision.recognise.focus import SHARPEN_BELOW, SHARPEN_FROM, FocusMeter


@pytest.fixture(scope="module")
def frames() -> dict[str, np.ndarray]:
    """A focused drawn table at the camera's 1280x720, the same a little soft, the same far
    out of focus, and a bare table."""
    sharp = scene()
    return {"sharp": sharp, "soft": blurred(sharp, 1.2), "out": blurred(sharp, 3.0),
            "bare": np.full_like(sharp, 120)}


def test_the_frames_measure_as_their_names_say(frames: dict[str, np.ndarray]) -> None:
    meter = FocusMeter(every=1)
    assert [focus_state(meter(frames[k])) for k in ("sharp", "soft", "out", "bare")] == \
        ["sharp", "soft", "out of focus", "unknown"]


def test_focus_states_follow_the_sharpening_band() -> None:
    assert focus_state(0.0) == "unknown"
    assert focus_state(SHARPEN_FROM - 0.01) == "sharp"
    assert focus_state(SHARPEN_FROM) == "soft"
    assert focus_state(SHARPEN_BELOW) == "out of focus"


def watch_over(watch: FocusWatch, meter: FocusMeter, shown: list[np.ndarray]) -> list[str | None]:
    said = []
    for image in shown:
        meter(image)
        said.append(watch.update(meter))
    return said


def test_out_of_focus_is_said_once_after_three_measures_in_a_row(
        frames: dict[str, np.ndarray]) -> None:
    watch, meter = FocusWatch(readings=3), FocusMeter(every=1)
    sharp, out = frames["sharp"], frames["out"]
    said = watch_over(watch, meter, [sharp, out, out, sharp, out, out, out, out, out])
    # A knock (two blurred frames) says nothing; three in a row do, once.
    assert [s is not None for s in said] == [False] * 6 + [True, False, False]
    assert said[6] is not None and said[6].startswith("camera out of focus (blur ")
    assert "by hand" in said[6]
    assert watch.state == "out of focus"
    back = watch_over(watch, meter, [sharp, sharp, frames["soft"]])
    assert back == [None, None, "camera in focus again"]
    assert watch.state == "soft"


def test_a_bare_table_neither_breaks_nor_makes_a_streak(frames: dict[str, np.ndarray]) -> None:
    watch, meter = FocusWatch(readings=2), FocusMeter(every=1)
    out, bare = frames["out"], frames["bare"]
    said = watch_over(watch, meter, [out, bare, bare, out])
    assert said[:3] == [None, None, None] and said[3] is not None
    assert watch_over(watch, meter, [bare] * 5) == [None] * 5
    assert watch.state == "out of focus"


def test_only_new_measures_count(frames: dict[str, np.ndarray]) -> None:
    # Measured once every 10 frames: 25 blurred frames are three measures, not 25.
    watch, meter = FocusWatch(readings=3), FocusMeter(every=10)
    said = watch_over(watch, meter, [frames["out"]] * 25)
    assert [k for k, s in enumerate(said) if s is not None] == [20]


def test_a_watch_that_never_decides_is_refused() -> None:
    with pytest.raises(ValueError, match="1 reading"):
        FocusWatch(readings=0)


class FilmedCamera:
    """A camera that delivers the given frames in turn and moves the clock a frame on."""

    name = "filmed"

    def __init__(self, clock: SteppedClock, images: list[np.ndarray]) -> None:
        self.clock, self.images, self.index = clock, images, 0

    def read(self, timeout: float = 0.5) -> Frame | None:
        if self.index >= len(self.images):
            self.clock.advance(timeout)
            return None
        self.clock.advance(1 / 30)
        self.index += 1
        return Frame(self.images[self.index - 1], self.clock(), self.index)

    def close(self) -> None:
        pass


def test_the_device_tells_the_players_and_the_page(
        tmp_path: Path, frames: dict[str, np.ndarray]) -> None:
    clock = SteppedClock()
    store = EventStore.open(tmp_path / "events.sqlite3", clock=clock)
    layout = per_side_tracks(3)
    hub, said = Hub(), list[Feedback]()
    shown = [frames["sharp"]] * 2 + [frames["out"]] * 3 + [frames["sharp"]] * 3
    # The device's own recogniser, measuring every frame so that the test stays short.
    loop = DeviceLoop(store=store, flow=TableFlow(("Ann", "Bob")), strip=SimulatorStrip(layout),
                      renderer=Renderer(layout), clock=clock, source=FilmedCamera(clock, shown),
                      recognise=CameraRecogniser(every=1), tracker=ScriptedTracker(),
                      on_feedback=said.append, hub=hub)
    loop.start()

    def page() -> dict[str, Any]:
        latest = hub.latest
        assert latest is not None
        return dict(json.loads(latest.text))

    states = []
    for _ in shown:
        loop.step()
        states.append(page()["camera_focus"])
    assert states == ["sharp"] * 4 + ["out of focus"] * 3 + ["sharp"]
    camera = [f.text for f in said if f.kind == "notice" and f.text.startswith("camera")]
    assert len(camera) == 2
    assert camera[0].startswith("camera out of focus") and camera[1] == "camera in focus again"
    assert page()["feedback"][0] == {"kind": "notice", "text": "camera in focus again"}
    store.close()


class MotorLens:
    """A Camera Module 3's lens as the watch sees it (``vision.live.lens.Lens``)."""

    def __init__(self) -> None:
        self.scans = 0
        self.focus = LensFocus("autofocus", 1.0)

    def refocus(self) -> str:
        self.scans += 1
        return "refocusing the camera: one autofocus scan, then held"


def test_a_motorised_lens_is_refocused_when_soft_not_turned(
        frames: dict[str, np.ndarray]) -> None:
    lens = MotorLens()
    watch, meter = FocusWatch(readings=3, lens=lens), FocusMeter(every=1)
    soft, sharp = frames["soft"], frames["sharp"]
    said = watch_over(watch, meter, [soft, soft, soft, soft, soft])
    assert lens.scans == 1  # once per soft spell, after three soft measures
    assert said[:2] == [None, None] and said[3:] == [None, None]
    assert said[2] is not None and said[2].startswith("camera soft (blur ")
    assert said[2].endswith("refocusing the camera: one autofocus scan, then held")
    watch_over(watch, meter, [sharp, soft, soft, soft])
    assert lens.scans == 2  # a new spell, a new scan


def test_out_of_focus_on_a_motorised_lens_says_what_the_board_did(
        frames: dict[str, np.ndarray]) -> None:
    lens = MotorLens()
    watch, meter = FocusWatch(readings=3, lens=lens), FocusMeter(every=1)
    out, sharp = frames["out"], frames["sharp"]
    said = [s for s in watch_over(watch, meter, [out] * 5) if s is not None]
    assert len(said) == 1 and lens.scans == 1
    assert said[0].startswith("camera out of focus (blur ")
    assert "refocusing the camera: one autofocus scan" in said[0]
    assert "turn the lens" not in said[0] and "by hand" in said[0]
    back = [s for s in watch_over(watch, meter, [sharp] * 3) if s is not None]
    assert back == ["camera in focus again (focus: autofocus found the table at 1.00 m "
                    "(LensPosition 1.00 dioptres), held there)"]


class FilmedCM3(FilmedCamera):
    """``FilmedCamera`` with a Camera Module 3's lens, as ``Picamera2Source.lens`` gives."""

    def __init__(self, clock: SteppedClock, images: list[np.ndarray]) -> None:
        super().__init__(clock, images)
        self.lens = MotorLens()


def test_the_device_refocuses_a_camera_module_3_instead_of_asking_for_a_turn(
        tmp_path: Path, frames: dict[str, np.ndarray]) -> None:
    clock = SteppedClock()
    store = EventStore.open(tmp_path / "events.sqlite3", clock=clock)
    layout = per_side_tracks(3)
    said = list[Feedback]()
    camera = FilmedCM3(clock, [frames["sharp"]] * 2 + [frames["out"]] * 3)
    loop = DeviceLoop(store=store, flow=TableFlow(("Ann", "Bob")), strip=SimulatorStrip(layout),
                      renderer=Renderer(layout), clock=clock, source=camera,
                      recognise=CameraRecogniser(every=1), tracker=ScriptedTracker(),
                      on_feedback=said.append)
    loop.start()
    for _ in range(5):
        loop.step()
    told = [f.text for f in said if f.text.startswith("camera out of focus")]
    assert len(told) == 1 and camera.lens.scans == 1
    assert "refocusing the camera" in told[0] and "turn the lens" not in told[0]
    store.close()
