"""Real photos through the device loop: what the tracker reports against the labels.

    python benchmarks/real_frames_loop.py [--dataset NAME] [--split dev|test|all]
        [--size WxH ...] [--frames-each N] [--json]

Plays each labelled photo of a shared dataset (default
``epfl-iapr2022-poker-3000``, 3000x2000 photos) to the real ``DeviceLoop`` as
a camera of each ``--size`` would see it (scaled to fit the frame, held
steady for ``--frames-each`` frames, then a cleared table), read by the
device's ``CameraRecogniser`` and ``CardTracker`` (``firmware.demo.photo_table``).
At each photo's last frame it counts the cards the tracker holds: right,
missed, wrong; and any wrong card reported while the photo showed. Also the
wall time per frame read (recogniser + tracker + flow, one core).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402

from firmware.demo.photo_table import play_photos  # noqa: E402
from vision.measure.datasets import datasets_root, load_labels  # noqa: E402
from vision.recognise.detection import CameraRecogniser  # noqa: E402
from vision.recognise.frames import frame_size  # noqa: E402
from vision.recognise.imagefile import read_image  # noqa: E402


def measure(dataset: str, split: str, size: tuple[int, int], frames_each: int) -> dict[str, Any]:
    root = datasets_root()
    if root is None or not (root / dataset).is_dir():
        raise SystemExit(f"dataset {dataset!r} not found under ../shared/datasets")
    items = load_labels(root / dataset, split=split)  # type: ignore[arg-type]
    photos = [(read_image(item.path), item.cards) for item in items]
    began = time.perf_counter()
    results = play_photos(photos, size=size, recognise=CameraRecogniser(),
                          frames_each=frames_each)
    seconds = time.perf_counter() - began
    labelled = sum(len(r.cards) for r in results)
    right = sum(r.right for r in results)
    wrong = sum(r.wrong for r in results)
    return {
        "size": f"{size[0]}x{size[1]}", "photos": len(results), "cards": labelled,
        "right": right, "missed": sum(r.missed for r in results), "wrong": wrong,
        "wrong_reports": sum(r.wrong_events for r in results),
        "recall": round(right / labelled, 3) if labelled else None,
        "precision": round(right / (right + wrong), 3) if right + wrong else None,
        "photos_all_right": sum(r.missed == 0 and r.wrong == 0 for r in results),
        "seconds": round(seconds, 1),
        "per_photo": [{"right": r.right, "missed": r.missed, "wrong": r.wrong}
                      for r in results],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="epfl-iapr2022-poker-3000")
    parser.add_argument("--split", default="dev", choices=("dev", "test", "all"))
    parser.add_argument("--size", type=frame_size, nargs="+",
                        default=[(1280, 720), (2304, 1296)])
    parser.add_argument("--frames-each", type=int, default=8)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    report = [measure(args.dataset, args.split, size, args.frames_each) for size in args.size]
    if args.json:
        print(json.dumps(report, indent=1))
        return
    for r in report:
        print(f"{args.dataset} {args.split} at {r['size']}: {r['photos']} photos, "
              f"{r['cards']} cards: {r['right']} right, {r['missed']} missed, {r['wrong']} wrong "
              f"(recall {r['recall']}, precision {r['precision']}; wrong reports "
              f"{r['wrong_reports']}); {r['photos_all_right']} photos read whole; "
              f"{r['seconds']} s")


if __name__ == "__main__":
    main()
