"""Real photos through the device loop: what the tracker reports against the labels.

Plays each labelled photo of a shared dataset (default ``epfl-iapr2022-poker-3000``, 3000x2000
photos) to the real ``DeviceLoop`` as a camera of each size would see it (scaled to fit the
frame, held steady for ``frames_each`` frames, then a cleared table: ``firmware.demo
.photo_table``), read by the device's ``CameraRecogniser`` and ``CardTracker``. At each
photo's last frame it counts the cards the tracker holds: right, missed, wrong; and any wrong
card reported while the photo showed. Also the wall time of the whole run.

Read exactly as ``cribbage-board run`` reads (``vision.live.reading.device_reading``): a
``StreamReader`` over the device's ``CameraRecogniser`` that reads the bare table the device
starts on, then only the regions that changed (a photo laid, the table cleared), and the
device's tracker, which reports a card on its first reading. Before 2026-11-27 the
figures read every whole frame (``--reader whole``) with a three-reading tracker.
"""

from __future__ import annotations

import time
from typing import Any

from firmware.demo.photo_table import play_photos
from vision.live.reading import device_reading
from vision.measure.datasets import datasets_root, load_labels
from vision.recognise.imagefile import read_image

__all__ = ["photo_loop"]


def photo_loop(dataset: str, split: str, size: tuple[int, int], frames_each: int
               ) -> dict[str, Any]:
    """One dataset's split played at one frame size (the module's docstring)."""
    root = datasets_root()
    if root is None or not (root / dataset).is_dir():
        raise SystemExit(f"dataset {dataset!r} not found under ../shared/datasets")
    items = load_labels(root / dataset, split=split)  # type: ignore[arg-type]
    photos = [(read_image(item.path), item.cards) for item in items]
    reading = device_reading(size)
    began = time.perf_counter()
    results = play_photos(photos, size=size, frames_each=frames_each, reading=reading)
    seconds = time.perf_counter() - began
    labelled = sum(len(r.cards) for r in results)
    right = sum(r.right for r in results)
    wrong = sum(r.wrong for r in results)
    return {
        "size": f"{size[0]}x{size[1]}", "regions_read": reading.reader.reads,
        "photos": len(results),
        "cards": labelled, "right": right, "missed": sum(r.missed for r in results),
        "wrong": wrong, "wrong_reports": sum(r.wrong_events for r in results),
        "recall": round(right / labelled, 3) if labelled else None,
        "precision": round(right / (right + wrong), 3) if right + wrong else None,
        "photos_all_right": sum(r.missed == 0 and r.wrong == 0 for r in results),
        "seconds": round(seconds, 1),
        "per_photo": [{"photo": item.path.name, "right": r.right, "missed": r.missed,
                       "wrong": r.wrong,
                       "missed_cards": sorted(str(c) for c in r.cards - r.reported),
                       "wrong_cards": sorted(str(c) for c in r.reported - r.cards)}
                      for item, r in zip(items, results, strict=True)],
    }
