"""A drawn deal filmed by a camera model and followed by the tracker: speed, recall of the
cards laid, and frames from a card lying face up to its ``CardAppeared``.

The geometry ``camera:NAME[:WxH]`` (``benchmarks/vision/accuracy.py``) draws the seed's whole
two-player deal through ``vision.drawn.camera_model``'s camera NAME (``camera-module-3``, a
Camera Module 3 1.0 m over the table, cards about 61x86 px at 1280x720; ``usb-webcam``; or
``ideal``, the crisp drawing with cards a fifth of the frame tall) at WxH (default
1280x720), eight frames a step with the hand in the first two (PNG frames in a temporary
folder, JPEG for a camera that encodes JPEG and for ``ideal``), then replays it as the device
runs: ``ReplaySource`` -> ``CameraRecogniser`` -> ``CardTracker``, one core. Drawing is not
timed.

Issue #4's target counts from the frame where the card is *stable*: laid, and the laying
hand gone. ``after_stable`` is that latency; it should be at most 3 frames (the tracker
wants ``appear_frames`` = 3 readings, so 2 when every frame is read). Recall counts a card
gathered and spread again within the tracker's vanish time as missed: its track never
ended, so it is not announced twice.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from vision.drawn.camera_model import CAMERAS, camera_named
from vision.drawn.scene import SceneSettings, Script, TableLayout, read_truth, write_sequence
from vision.live.sources import ReplaySource
from vision.live.tracker import CardAppeared, CardTracker
from vision.recognise.classifier import MODEL_PATH
from vision.recognise.detection import CameraRecogniser, recognise
from vision.recognise.frames import frame_size
from vision.training.facedecks import FaceDeck

__all__ = ["CameraGeometry", "track_deal", "add_totals"]


@dataclass(frozen=True, slots=True)
class CameraGeometry:
    """``camera:NAME[:WxH]``: the deal filmed by camera model NAME at frame size WxH."""

    camera: str = "camera-module-3"
    size: tuple[int, int] = (1280, 720)

    @classmethod
    def parse(cls, text: str) -> CameraGeometry:
        """``camera:camera-module-3``, ``camera:ideal``, ``camera:usb-webcam:1920x1080``..."""
        kind, _, rest = text.partition(":")
        name, _, size = rest.partition(":")
        if kind != "camera" or name not in (*CAMERAS, "ideal"):
            raise ValueError(f"{text!r}: expected camera:NAME[:WxH], NAME one of "
                             f"{', '.join([*CAMERAS, 'ideal'])}")
        return cls(name, frame_size(size)) if size else cls(name)

    @property
    def name(self) -> str:
        return f"camera:{self.camera}:{self.size[0]}x{self.size[1]}"


def track_deal(seed: int, frames_per_step: int, geometry: CameraGeometry, *,
               deck: FaceDeck | None = None, model: str = str(MODEL_PATH)) -> dict[str, Any]:
    """One deal through the camera, the recogniser and the tracker (the module's docstring)."""
    cv2.setNumThreads(1)
    lens = camera_named(geometry.camera)
    script = Script.two_player_deal(seed, layout=TableLayout.for_camera(2, lens))
    settings = SceneSettings(frames_per_step=frames_per_step, hand_frames=2,
                             faces=deck.face if deck is not None else None, camera=lens,
                             size=geometry.size)
    # Stored frames add no JPEG a camera would not make.
    image_format = "jpg" if lens is None or lens.encoding == "jpeg" else "png"
    with tempfile.TemporaryDirectory() as folder:
        write_sequence(folder, script, rng=np.random.default_rng(seed), settings=settings,
                       image_format=image_format)
        truth = read_truth(folder)
        tracker = CardTracker(frame_size=tuple(truth["size"]), zones=truth["zones"])
        # Load the model outside the timing.
        recognise(np.zeros((720, 1280, 3), np.uint8), model_path=model)
        # Frames are read as the device reads them: the blur measured now and then.
        read = CameraRecogniser(model_path=model)
        events: list[tuple[int, CardAppeared]] = []
        start = time.perf_counter()
        count = 0
        for frame in ReplaySource(folder):
            for event in tracker.update(frame.at, read(frame.image)):
                if isinstance(event, CardAppeared):
                    events.append((frame.index, event))
            count += 1
        seconds = time.perf_counter() - start
    return _score(truth, events, settings.hand_frames, count, seconds)


def _score(truth: dict[str, Any], events: list[tuple[int, CardAppeared]], hand_frames: int,
           count: int, seconds: float) -> dict[str, Any]:
    """The events against the truth: a card is "new" from the first frame it lies face up in
    a place it was not before; a card turned down and shown again later is due again."""
    episodes: list[tuple[str, str, int]] = []
    before: dict[str, str] = {}
    for n, record in enumerate(truth["frames"]):
        now = {str(c.card): c.zone for c in record["cards"] if c.face_up}
        episodes += [(card, zone, n) for card, zone in now.items() if before.get(card) != zone]
        before = now
    step_start: dict[int, int] = {}
    for n, record in enumerate(truth["frames"]):
        step_start.setdefault(record["step"], n)

    def stable_from(first_face_up: int) -> int:
        hand_gone = step_start[truth["frames"][first_face_up]["step"]] + hand_frames
        return max(first_face_up, hand_gone)

    latencies, after_stable = [], []
    unmatched = list(episodes)
    for index, event in events:
        match = [e for e in unmatched if e[0] == str(event.card) and e[1] == event.zone
                 and e[2] <= index]
        if match:
            episode = max(match, key=lambda e: e[2])
            unmatched.remove(episode)
            latencies.append(index - episode[2])
            after_stable.append(index - stable_from(episode[2]))
    right = len(latencies)
    return {
        "frames": count, "seconds": round(seconds, 3), "fps": round(count / seconds, 2),
        "ms_per_frame": round(1000 * seconds / count, 1),
        "latency_frames_median": statistics.median(latencies) if latencies else None,
        "latency_frames_max": max(latencies) if latencies else None,
        "after_stable_median": statistics.median(after_stable) if after_stable else None,
        "after_stable_max": max(after_stable) if after_stable else None,
        "appearances_due": len(episodes), "appeared_right": right, "events": len(events),
        "recall": round(right / max(1, len(episodes)), 3),
        "precision": round(right / max(1, len(events)), 3),
    }


def add_totals(total: dict[str, Any], result: dict[str, Any]) -> None:
    """Adds one deck's deal to ``total`` (appearances due and right, events; recall and
    precision over all)."""
    for key in ("appearances_due", "appeared_right", "events"):
        total[key] = total.get(key, 0) + int(result[key])
    total["recall"] = round(total["appeared_right"] / max(1, total["appearances_due"]), 3)
    total["precision"] = round(total["appeared_right"] / max(1, total["events"]), 3)
