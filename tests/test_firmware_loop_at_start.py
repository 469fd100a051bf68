"""Cards lying face up when the board starts (issue 61): the reader takes them for the table's
own art, as it must a card printed on a mat, so they are never counted where they lie. The
board says so, once, aloud and on the page, and the camera's eye outlines them and says how
to count them, instead of "0 cards read" over cards in plain view. Read through the device's
own reading path (``vision.live.reading.device_reading``) on a drawn table."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_firmware_web_eye import PLAYERS, DrawnCamera, Table

from firmware.demo.scripted_table import SteppedClock
from firmware.device.loop import DeviceLoop
from firmware.store.eventstore import EventStore
from firmware.table.flow import Feedback, TableFlow
from firmware.web.camera_eye import CameraEye
from hardware.layout import per_side_tracks
from hardware.render import Renderer
from hardware.strips.simulator import SimulatorStrip
from vision.live.reading import device_reading

WORDS = ("3 cards were on the table at start (7C, 9D, QH): lift them and lay them again, a "
         "little way off, to count them")


@pytest.fixture(scope="module")
def drawn() -> Table:
    return Table()


def run_loop(tmp_path: Path, image: object, frames: int = 8
             ) -> tuple[list[Feedback], CameraEye, DeviceLoop]:
    clock = SteppedClock()
    reading = device_reading((1280, 720), zones=None)
    said: list[Feedback] = []
    eye = CameraEye()
    layout = per_side_tracks(2)
    store = EventStore.open(tmp_path / "events.sqlite3", clock=clock)
    loop = DeviceLoop(store=store, flow=TableFlow(PLAYERS), strip=SimulatorStrip(layout),
                      renderer=Renderer(layout), clock=clock, source=DrawnCamera(image, clock),
                      recognise=reading.recognise, tracker=reading.tracker,
                      reader=reading.reader, eye=eye, on_feedback=said.append)
    try:
        loop.start()
        for _ in range(frames):
            loop.step()
    finally:
        store.close()
    return said, eye, loop


def test_cards_on_the_table_at_start_are_said_once_and_shown_on_the_eye(
        drawn: Table, tmp_path: Path) -> None:
    said, eye, loop = run_loop(tmp_path, drawn.image)
    assert loop.reader is not None
    assert sorted(str(s.card) for s in loop.reader.at_start or ()) == ["7C", "9D", "QH"]
    assert [f.text for f in said].count(WORDS) == 1  # once, however long they lie there
    assert any(text == WORDS for _, text in loop._recent)  # the page's feedback list
    eye.look()
    assert eye.look() is True
    data = eye.latest.data() if eye.latest is not None else {}
    assert data["cards"] == []  # never counted where they lie
    assert sorted(c["card"] for c in data["at_start"]) == ["7C", "9D", "QH"]
    assert all(len(c["outline"]) == 4 for c in data["at_start"])
    assert data["at_start_words"] == WORDS


def test_a_bare_table_at_start_says_nothing_of_it(drawn: Table, tmp_path: Path) -> None:
    import numpy as np

    bare = np.full_like(drawn.image, (40, 90, 30))
    said, eye, loop = run_loop(tmp_path, bare)
    assert loop.reader is not None and loop.reader.at_start == ()
    assert not any("at start" in f.text for f in said)
    eye.look()
    eye.look()
    data = eye.latest.data() if eye.latest is not None else {"at_start": [], "at_start_words": ""}
    assert data["at_start"] == [] and data["at_start_words"] == ""
