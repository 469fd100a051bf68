"""The device's reading path in one place: recogniser, stream reader and tracker, wired as
``cribbage-board run`` wires them.

The demo, the photo table and the live-path benchmarks say what the device reads only if
they read the way it does: a ``CameraRecogniser`` called by a ``StreamReader`` on the
regions that changed (never on whole frames once the table has settled), told the cards'
height, and a ``CardTracker`` that reports a card on its first reading (each change is read
once, or over up to three still frames when unsure: ``vision.live.frames``, and its reading
repeated until the next change, so waiting for repeats would add latency and no evidence).
``device_reading`` builds exactly that; ``tests/test_vision_reading.py`` holds
``firmware/commands/run.py``'s wiring to it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from engine.cards import Card
from vision.live.motion import Recognise, StreamReader, WatchSettings
from vision.live.tracker import CardTracker, TrackerSettings
from vision.live.zones import TableZones

__all__ = ["DEVICE_TRACKER", "DeviceReading", "device_reading"]

#: The tracker's settings behind a ``StreamReader`` (``firmware/commands/run.py``).
DEVICE_TRACKER = TrackerSettings(appear_frames=1)


@dataclass(frozen=True, slots=True)
class DeviceReading:
    """The three parts of the device's reading path: ``reader(frame) -> detections`` calls
    ``recognise`` on changed regions, and ``tracker`` turns the detections into events."""

    recognise: Recognise
    reader: StreamReader
    tracker: CardTracker


def device_reading(frame_size: tuple[int, int], *, watch_size: tuple[int, int] | None = None,
                   card_px: float | None = None, zones: TableZones | None = None,
                   recognise: Recognise | None = None, deck: Any = None,
                   on_table: Callable[[], Collection[Card]] | None = None,
                   watch: WatchSettings | None = None) -> DeviceReading:
    """The device's reading path for a camera of ``frame_size`` (``[camera] size``):
    ``recognise`` defaults to the device's ``CameraRecogniser`` (with the taught ``deck``
    where given); ``card_px`` is ``[zones] card_px`` (None: an eighth of the frame's
    height, as on a device not yet calibrated)."""
    if recognise is None:
        from vision.recognise.detection import CameraRecogniser

        recognise = CameraRecogniser(deck=deck)
    reader = StreamReader(recognise, frame_size=frame_size, watch_size=watch_size,
                          card_px=card_px, on_table=on_table, settings=watch)
    tracker = CardTracker(frame_size=frame_size, zones=zones, settings=DEVICE_TRACKER)
    return DeviceReading(recognise, reader, tracker)
