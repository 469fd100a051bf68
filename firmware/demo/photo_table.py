"""Real photos through the device's live path: camera frames -> reader -> tracker -> flow.

The drawn table (``firmware.demo.camera_table``) says how the loop follows a game;
only real pixels say how it follows a real table. ``PhotoCamera`` plays
labelled photos as a camera mounted over them would deliver them: first the cleared
table (the first photo's border colour) that the device settles on when it starts, then
each photo scaled to the camera's frame size (cards as small as that camera sees them),
held for a number of frames as a table that nobody touches, then the cleared table
long enough for the tracker to let its cards go, then the next.
``play_photos`` drives the real ``DeviceLoop`` over them, reading exactly as
``cribbage-board run`` reads (``vision.live.reading.device_reading``: a ``StreamReader``
that reads only what changed, the device's recogniser and tracker), and checks, at the
end of each photo, the cards the tracker reported against the photo's labels: right,
missed, wrong.

Labels are read only to check: the loop and the recogniser see frames, never
a file name.
"""

from __future__ import annotations

import random
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from engine.cards import Card
from vision.live.motion import Recognise
from vision.live.reading import DEVICE_TRACKER, DeviceReading, device_reading
from vision.live.sources import Frame
from vision.live.tracker import CardAppeared, CardTracker, Seen, TableEvent

__all__ = ["PhotoCamera", "PhotoResult", "fit_frame", "centred_on_border", "play_photos"]


def fit_frame(photo: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """``photo`` scaled to fit a ``size`` (w, h) frame whole, the rest filled with the
    colour of the photo's own border (a 3:2 photo in a 16:9 frame: bands at the sides)."""
    w, h = size
    ph, pw = photo.shape[:2]
    scale = min(w / pw, h / ph)
    nw, nh = max(1, round(pw * scale)), max(1, round(ph * scale))
    return centred_on_border(cv2.resize(photo, (nw, nh), interpolation=cv2.INTER_AREA), size)


def centred_on_border(photo: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """``photo`` in the middle of a ``size`` (w, h) frame, grown to hold it where it is
    larger, the rest filled with the median colour of the photo's own border: a table goes
    on past the photo's edge rather than ending in a black band the reader could take for
    an edge."""
    ph, pw = photo.shape[:2]
    w, h = max(size[0], pw), max(size[1], ph)
    border = np.concatenate([photo[0], photo[-1], photo[:, 0], photo[:, -1]])
    out = np.empty((h, w, 3), np.uint8)
    out[:] = np.median(border, axis=0).astype(np.uint8)
    x, y = (w - pw) // 2, (h - ph) // 2
    out[y:y + ph, x:x + pw] = photo
    return out


class PhotoCamera:
    """A ``FrameSource`` that shows the cleared table for ``lead_frames`` (the table the
    device starts on), then each of ``photos`` (frames ready at the camera's size)
    for ``frames_each`` frames at ``fps`` on the caller's clock, then the cleared table for
    ``clear_frames``; after the last it returns None (nothing more to show)."""

    name = "photos"

    def __init__(self, photos: Sequence[np.ndarray], *, frames_each: int, clear_frames: int,
                 fps: float, clock: Callable[[], float], advance: Callable[[float], None],
                 lead_frames: int = 0) -> None:
        if frames_each < 1 or clear_frames < 0 or fps <= 0 or lead_frames < 0:
            raise ValueError(f"need frames_each >= 1, clear_frames >= 0, lead_frames >= 0 "
                             f"and fps > 0, not {frames_each!r}, {clear_frames!r}, "
                             f"{lead_frames!r}, {fps!r}")
        self.photos = list(photos)
        self.frames_each, self.clear_frames, self.fps = frames_each, clear_frames, fps
        self.lead_frames = lead_frames
        self.clock, self.advance = clock, advance
        self.frames = 0
        self.showing: int | None = None  # the photo in the last frame read; None: cleared

    def read(self, timeout: float = 0.5) -> Frame | None:
        period = self.frames_each + self.clear_frames
        photo, within = divmod(self.frames - self.lead_frames, period)
        if photo >= len(self.photos):
            self.advance(timeout)
            return None
        self.advance(1.0 / self.fps)
        image = self.photos[max(0, photo)]
        self.showing = photo if photo >= 0 and within < self.frames_each else None
        if self.showing is None:
            image = np.full_like(image, image[0, 0])  # fit_frame's border colour
        self.frames += 1
        return Frame(image, self.clock(), self.frames)

    def close(self) -> None:
        pass


@dataclass(frozen=True, slots=True)
class PhotoResult:
    """One photo as the loop reported it: the tracker's cards at the photo's last frame."""

    cards: frozenset[Card]  # the labels (checking only)
    reported: frozenset[Card]
    wrong_events: int  # CardAppeared reports of a card not in the photo, while it showed

    @property
    def right(self) -> int:
        return len(self.reported & self.cards)

    @property
    def missed(self) -> int:
        return len(self.cards - self.reported)

    @property
    def wrong(self) -> int:
        return len(self.reported - self.cards)


class _Watch(CardTracker):
    """The real tracker, noting each card it reports with the photo on show."""

    def __init__(self, camera: PhotoCamera, *, frame_size: tuple[int, int]) -> None:
        super().__init__(frame_size=frame_size, settings=DEVICE_TRACKER)
        self.camera = camera
        self.appeared: list[tuple[int | None, CardAppeared]] = []

    def update(self, at: float, detections: Sequence[Seen] | None) -> list[TableEvent]:
        events = super().update(at, detections)
        self.appeared += [(self.camera.showing, e) for e in events
                          if isinstance(e, CardAppeared)]
        return events


def play_photos(photos: Sequence[tuple[np.ndarray, frozenset[Card]]], *,
                size: tuple[int, int], recognise: Recognise | None = None,
                frames_each: int = 8, clear_frames: int = 20, fps: float = 10.0,
                lead_frames: int = 5, reading: DeviceReading | None = None
                ) -> list[PhotoResult]:
    """Plays ``photos`` (image, labels) at a camera of frame ``size`` through the device
    loop and its reading path (``recognise`` reads the changed regions: by default the
    device's ``CameraRecogniser``); returns what the tracker reported for each photo at its
    last frame. The cleared table between photos (``clear_frames``) should outlast the
    tracker's vanish_seconds; ``frames_each`` must leave the reader its three still frames.
    ``reading`` is the reading path to use (``device_reading(size)``, built here when not
    given): the caller keeps it to count its work (``reading.reader.reads``)."""
    from firmware.demo.scripted_table import SteppedClock
    from firmware.device.loop import DeviceLoop
    from firmware.store.eventstore import EventStore
    from firmware.table.flow import TableFlow
    from hardware.layout import per_side_tracks
    from hardware.render import Renderer
    from hardware.strips.simulator import SimulatorStrip

    clock = SteppedClock()
    frames = [fit_frame(image, size) for image, _ in photos]
    camera = PhotoCamera(frames, frames_each=frames_each, clear_frames=clear_frames, fps=fps,
                         clock=clock, advance=clock.advance, lead_frames=lead_frames)
    path = reading or device_reading(size, recognise=recognise)
    watch = _Watch(camera, frame_size=size)
    layout = per_side_tracks(2)
    results: list[PhotoResult] = []
    with tempfile.TemporaryDirectory(prefix="cribbage-photos-") as scratch:
        store = EventStore.open(Path(scratch) / "events.sqlite3", clock=clock)
        loop = DeviceLoop(store=store, flow=TableFlow(("Ann", "Bob"), {"target": 121}),
                          strip=SimulatorStrip(layout), renderer=Renderer(layout), clock=clock,
                          source=camera, recognise=path.recognise, tracker=watch,
                          reader=path.reader, rng=random.Random(0))
        loop.start()
        for _ in range(lead_frames):
            loop.step()
        for k, (_, labels) in enumerate(photos):
            for _ in range(frames_each):
                loop.step()
            wrong = sum(1 for shown, e in watch.appeared if shown == k and e.card not in labels)
            results.append(PhotoResult(labels, frozenset(watch.cards), wrong))
            for _ in range(clear_frames):
                loop.step()
        store.close()
    return results
