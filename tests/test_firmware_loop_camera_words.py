"""What the device loop says when its camera stops: a replayed table that has run out of
frames says so in a player's words and what to do on the phone, never "camera unplugged"."""

from __future__ import annotations

from pathlib import Path

from firmware.demo.scripted_table import BlankCamera, SteppedClock
from firmware.device.loop import DeviceLoop
from firmware.store.eventstore import EventStore
from firmware.table.flow import Feedback, TableFlow
from hardware.layout import per_side_tracks
from hardware.render import Renderer
from hardware.strips.simulator import SimulatorStrip
from vision.live.tracker import CardTracker


class EndedReplay(BlankCamera):
    """A replayed camera that has run out of frames (``ReplaySource.exhausted``)."""

    exhausted = True

    def read(self, timeout: float = 0.5) -> None:  # type: ignore[override]
        return None


def test_a_replay_that_runs_out_says_so_and_what_to_do_on_the_phone(tmp_path: Path) -> None:
    clock = SteppedClock()
    store = EventStore.open(tmp_path / "events.sqlite3", clock=clock)
    layout = per_side_tracks(3)
    said: list[Feedback] = []
    loop = DeviceLoop(store=store, flow=TableFlow(("Ann", "Bob")), strip=SimulatorStrip(layout),
                      renderer=Renderer(layout), clock=clock, source=EndedReplay(clock),
                      recognise=lambda image: [], tracker=CardTracker(frame_size=(64, 48)),
                      on_feedback=said.append)
    loop.start()
    for _ in range(3):
        loop.step()
    texts = [f.text for f in said]
    assert "the recorded table has no more pictures" in texts
    assert any(t.startswith("no pictures from the camera: name each card on the phone page")
               for t in texts)
    assert not any("unplugged" in t or "manual entry" in t for t in texts)
    assert loop.flow.manual
    store.close()
