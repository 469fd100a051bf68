"""The focus meter counts frames, not recogniser calls, and measures blur at a fixed scale
(issue 53, item 8).

The device's reader calls the recogniser on crops of what changed, and only when something
changed: a meter counting those calls measured a crop now and then at the crop's own scale,
and never noticed a lens knocked out of focus over a table where nothing moved. The reader
now hands the meter every whole frame, measured with the cards brought to a reference height
(``vision.recognise.focus.measuring_scale``), so a crop and its frame measure the same.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from test_vision_focus import blurred, scene
from test_vision_focus_watch import FilmedCamera
from test_vision_motion import SIZE, MarkReader, frame, marked_cards, table

from engine.cards import Card
from firmware.demo.scripted_table import ScriptedTracker, SteppedClock
from firmware.device.loop import DeviceLoop
from firmware.store.eventstore import EventStore
from firmware.table.flow import Feedback, TableFlow
from hardware.layout import per_side_tracks
from hardware.render import Renderer
from hardware.strips.simulator import SimulatorStrip
from vision.live.motion import StreamReader
from vision.live.sources import Frame
from vision.recognise.detection import CameraRecogniser
from vision.recognise.focus import REFERENCE_CARD_PX, FocusMeter, blur_sigma, measuring_scale

FULL = (2304, 1296)
CARD_PX = 162.0  # an eighth of 1296, as an uncalibrated device expects


@pytest.fixture(scope="module")
def big() -> np.ndarray:
    """The drawn focused table, enlarged to a 2304x1296 camera's frame and blurred by 2 px."""
    image = cv2.resize(scene(), FULL, interpolation=cv2.INTER_CUBIC)
    return blurred(image, 2.0)


def test_a_crop_and_its_whole_frame_measure_the_same_at_the_cards_scale(
        big: np.ndarray) -> None:
    crop = big[300:900, 700:1500]
    whole, part = blur_sigma(big, card_px=CARD_PX), blur_sigma(crop, card_px=CARD_PX)
    assert whole > 0 and part == pytest.approx(whole, rel=0.1)
    small = big[500:760, 900:1300]  # a crop of one card's size measures the same too
    assert blur_sigma(small, card_px=CARD_PX) == pytest.approx(whole, rel=0.15)


def test_the_measuring_scale_brings_cards_to_the_reference_height_and_never_enlarges() -> None:
    assert measuring_scale((2592, 4608, 3), card_px=2 * REFERENCE_CARD_PX) == 0.5
    assert measuring_scale((720, 1280, 3), card_px=86.0) == 1.0
    assert measuring_scale((300, 200, 3), card_px=REFERENCE_CARD_PX * 1.25) == 0.8
    with pytest.raises(ValueError, match="card_px"):
        measuring_scale((720, 1280, 3), card_px=0.0)


def test_the_meter_counts_frames_and_answers_crops_with_the_frames_measure(
        big: np.ndarray) -> None:
    meter = FocusMeter(every=3)
    sigmas = [meter.frame(big, card_px=CARD_PX) for _ in range(7)]
    assert meter.frames == 7 and meter.measurements == 3  # frames 0, 3 and 6
    assert len(set(sigmas)) == 1
    # A crop read in between is answered with the frame's measure, and measured never.
    flat = np.full((200, 300, 3), 128, np.uint8)
    assert meter(flat) == sigmas[-1] and meter.measurements == 3


def test_the_meter_says_which_frames_it_will_measure(big: np.ndarray) -> None:
    meter = FocusMeter(every=3)
    due = []
    for _ in range(7):
        due.append(meter.due)
        meter.frame(big, card_px=CARD_PX)
    assert due == [True, False, False, True, False, False, True]


class ShownMeter(FocusMeter):
    """A focus meter that keeps every image the reader handed it."""

    def __init__(self, every: int) -> None:
        super().__init__(every)
        self.shown: list[np.ndarray] = []

    def frame(self, image: np.ndarray, *, card_px: float | None = None) -> float:
        self.shown.append(image)
        return super().frame(image, card_px=card_px)


def test_the_reader_measures_round_one_card_after_another_on_the_frames_measured() -> None:
    recognise = MarkReader()
    meter = ShownMeter(every=2)
    recognise.focus = meter  # type: ignore[attr-defined]
    reader = StreamReader(recognise, frame_size=SIZE, learn_art=False)
    image = table({(300, 200): Card.parse("AS"), (700, 400): Card.parse("KD")})
    for i in range(14):
        reader(frame(image, i))
    measured = [sorted(str(Card.from_index(round(mark / 4))) for _, mark in marked_cards(view))
                for view in meter.shown[::2]]
    crops = [names for names, view in zip(measured, meter.shown[::2], strict=True)
             if view.shape[:2] != image.shape[:2]]
    # Until the table has settled the whole frame is measured; then one card's surround at a
    # time, each card in turn.
    assert measured[0] == ["AS", "KD"] and len(crops) >= 4
    assert all(len(names) == 1 for names in crops)
    assert all(a != b for a, b in zip(crops, crops[1:], strict=False))


def test_the_reader_hands_the_meter_every_frame_whatever_it_reads(big: np.ndarray) -> None:
    recognise = CameraRecogniser(every=5)
    reader = StreamReader(recognise, frame_size=FULL)
    for k in range(12):
        reader(Frame(big, k / 10, k))
    assert reader.reads == 1  # a still table: read once, when it settled
    assert recognise.focus.frames == 12 and recognise.focus.measurements == 3


def test_a_lens_knocked_out_of_focus_over_a_still_table_is_told(tmp_path: Path) -> None:
    sharp = scene()
    shown = [sharp] * 6 + [blurred(sharp, 3.0)] * 6
    clock = SteppedClock()
    store = EventStore.open(tmp_path / "events.sqlite3", clock=clock)
    layout = per_side_tracks(2)
    said: list[Feedback] = []
    recognise = CameraRecogniser(every=1)
    reader = StreamReader(recognise, frame_size=(sharp.shape[1], sharp.shape[0]))
    loop = DeviceLoop(store=store, flow=TableFlow(("Ann", "Bob")), strip=SimulatorStrip(layout),
                      renderer=Renderer(layout), clock=clock, source=FilmedCamera(clock, shown),
                      recognise=recognise, tracker=ScriptedTracker(), reader=reader,
                      on_feedback=said.append)
    loop.start()
    for _ in shown:
        loop.step()
    store.close()
    # Blurring changes no cell's mean: nothing is read again, yet the lens is watched.
    assert reader.reads == 1
    told = [f.text for f in said if f.kind == "notice" and f.text.startswith("camera")]
    assert len(told) == 1 and told[0].startswith("camera out of focus")
