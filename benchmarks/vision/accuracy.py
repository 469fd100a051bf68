"""Measures card recognition on the TEST split of each shared dataset, and its speed.

    python benchmarks/vision_eval.py [--json] [--split test] [--square-pixels]

Accuracy: ``vision.measure.evaluate.evaluate`` on each dataset's test split (CONTRACT.md
keys, per_image left out), the photos read by ``recognise_photo`` (also widened
back from a square) unless ``--square-pixels``. Speed: median ms of the device's
recogniser (``CameraRecogniser``) per 1280x720 frame on one core (``cv2.setNumThreads(1)``),
frames made by resizing the test photos: the camera's frames have square pixels and are read
once; also of ``recognise`` alone, which measures each frame's blur (``vision.recognise.focus``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import get_args

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402

from vision.measure.datasets import Split, datasets_root, load_labels  # noqa: E402
from vision.measure.evaluate import evaluate  # noqa: E402
from vision.recognise.detection import CameraRecogniser, recognise  # noqa: E402

DATASETS = ("epfl-iapr2022-poker", "roboflow-cardcounterml")


def frame_speed(paths: list[Path], *, repeats: int = 3, each_frame: bool = False) -> float:
    """Median ms per 1280x720 frame on one core, read as the device reads its camera
    (``CameraRecogniser``: the blur measured once every 30 frames) or, with ``each_frame``,
    measuring each frame's blur as ``recognise`` alone does."""
    cv2.setNumThreads(1)
    frames = [cv2.resize(cv2.imread(str(p)), (1280, 720), interpolation=cv2.INTER_AREA)
              for p in paths]
    read = recognise if each_frame else CameraRecogniser()
    read(frames[0])  # load the model outside the timing
    times = []
    for _ in range(repeats):
        for f in frames:
            t = time.perf_counter()
            read(f)
            times.append((time.perf_counter() - t) * 1000)
    return round(statistics.median(times), 1)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--split", choices=get_args(Split), default="test",
                    help="val measures a model trained with --fit-only (vision/training/README.md)")
    ap.add_argument("--square-pixels", action="store_true",
                    help="read each photo once, as the device reads its frames")
    args = ap.parse_args()
    root = datasets_root()
    if root is None:
        print("no ../shared/datasets (set CRIBBAGE_DATASETS)", file=sys.stderr)
        return 2
    cv2.setNumThreads(1)
    out = {}
    paths: list[Path] = []
    for name in DATASETS:
        result = evaluate(root / name, split=args.split, square_pixels=args.square_pixels)
        result.pop("per_image")
        out[name] = result
        paths += [li.path for li in load_labels(root / name, split=args.split)]
    out["ms_per_1280x720_frame_median_one_core"] = frame_speed(paths)
    out["ms_per_1280x720_frame_measuring_each_frame"] = frame_speed(paths, each_frame=True)
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(k, v)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
