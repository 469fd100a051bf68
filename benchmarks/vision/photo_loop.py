"""Real photos through the device loop: what the tracker reports against the labels.

Plays each labelled photo of a shared dataset (default ``epfl-iapr2022-poker-3000``, 3000x2000
photos) to the real ``DeviceLoop`` as a camera of each size would see it (scaled to fit the
frame, held steady for ``frames_each`` frames, then a cleared table: ``firmware.demo
.photo_table``), read by the device's ``CameraRecogniser`` and ``CardTracker``. At each
photo's last frame it counts the cards the tracker holds: right, missed, wrong; and any wrong
card reported while the photo showed. Also the wall time of the whole run.

``reader``: ``whole`` (the default, the figures before 2026-11-27) reads every whole frame;
``stream`` puts ``StreamReader`` (``vision.live.motion``) in front of the recogniser as
``firmware/commands/run.py`` does, reading only where the table changed. Two differences
from the device, both from the photos: the reader learns no table art (the device learns it
from the table it starts on, but here the first thing the camera sees is a photo full of
cards, which would all be taken for print), and the tracker stays ``play_photos``' own,
three steady readings where the device asks for one (each change is read once and its
reading repeated, so the three come from one read, a frame or two later).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from firmware.demo.photo_table import play_photos
from vision.live.motion import StreamReader
from vision.live.sources import Frame
from vision.live.tracker import Seen
from vision.measure.datasets import datasets_root, load_labels
from vision.recognise.detection import CameraRecogniser
from vision.recognise.imagefile import read_image

__all__ = ["READERS", "StreamRecognise", "photo_loop"]

READERS = ("whole", "stream")


class StreamRecognise:
    """``StreamReader`` behind the ``recognise(image)`` that ``play_photos`` hands the loop:
    each image becomes the next frame of the stream. ``focus`` is the recogniser's, so the
    loop still watches the camera's focus as on the device."""

    def __init__(self, size: tuple[int, int]) -> None:
        self.recognise = CameraRecogniser()
        self.reader = StreamReader(self.recognise, frame_size=size, learn_art=False)
        self.frames = 0

    @property
    def focus(self) -> Any:
        return self.recognise.focus

    def __call__(self, image: np.ndarray) -> list[Seen]:
        self.frames += 1
        return self.reader(Frame(image, float(self.frames), self.frames))


def photo_loop(dataset: str, split: str, size: tuple[int, int], frames_each: int, *,
               reader: str = "whole") -> dict[str, Any]:
    """One dataset's split played at one frame size (the module's docstring)."""
    root = datasets_root()
    if root is None or not (root / dataset).is_dir():
        raise SystemExit(f"dataset {dataset!r} not found under ../shared/datasets")
    items = load_labels(root / dataset, split=split)  # type: ignore[arg-type]
    photos = [(read_image(item.path), item.cards) for item in items]
    recognise = CameraRecogniser() if reader == "whole" else StreamRecognise(size)
    began = time.perf_counter()
    results = play_photos(photos, size=size, recognise=recognise, frames_each=frames_each)
    seconds = time.perf_counter() - began
    labelled = sum(len(r.cards) for r in results)
    right = sum(r.right for r in results)
    wrong = sum(r.wrong for r in results)
    return {
        "size": f"{size[0]}x{size[1]}", "reader": reader, "photos": len(results),
        "cards": labelled, "right": right, "missed": sum(r.missed for r in results),
        "wrong": wrong, "wrong_reports": sum(r.wrong_events for r in results),
        "recall": round(right / labelled, 3) if labelled else None,
        "precision": round(right / (right + wrong), 3) if right + wrong else None,
        "photos_all_right": sum(r.missed == 0 and r.wrong == 0 for r in results),
        "seconds": round(seconds, 1),
        "per_photo": [{"right": r.right, "missed": r.missed, "wrong": r.wrong}
                      for r in results],
    }
