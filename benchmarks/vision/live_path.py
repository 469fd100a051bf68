"""The device's live path, camera frame to LEDs: the recogniser, the tracker and the loop.

    python benchmarks/vision/live_path.py photos [--dataset NAME] [--split dev|test|all]
        [--size WxH ...] [--frames-each N] [--json]
    python benchmarks/vision/live_path.py laid-cards [--frames N] [--cpu] [--still-frames N]
        [--json]
    python benchmarks/vision/live_path.py drawn-game [--players N] [--seed N]
        [--target 61|121] [--camera NAME|ideal] [--size WxH] [--json]

- ``photos`` (``benchmarks/vision/photo_loop.py``): labelled photos held in front of a camera
  of each ``--size`` and played to the real ``DeviceLoop``, read as ``run`` reads; the cards
  the tracker holds at each photo's last frame against the labels.
- ``laid-cards`` (``benchmarks/vision/stream.py``): real cards laid by a hand on 2304x1296
  table photos, read by ``StreamReader`` as ``firmware/commands/run.py`` wires it: the still
  table's cost, the changed region's read, and laid-to-LED time here and as a Pi 4.
- ``drawn-game`` (``benchmarks/vision/game.py``): a simulated game filmed at a drawn table
  by a camera model (default 2304x1296, the example config's) into the real loop, read as
  ``run`` reads: from a card's steady frame to its LED frame, and the game's CPU seconds.

Prints human text, or one JSON object with ``--json``. OpenCV runs on one thread.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import cv2  # noqa: E402

from benchmarks.common import frame_size_arg  # noqa: E402
from benchmarks.vision.game import drawn_game  # noqa: E402
from benchmarks.vision.photo_loop import photo_loop  # noqa: E402
from benchmarks.vision.stream import laid_cards  # noqa: E402


def photos(args: argparse.Namespace) -> dict[str, Any]:
    results = [photo_loop(args.dataset, args.split, size, args.frames_each)
               for size in args.size]
    if not args.json:
        for r in results:
            print(f"{args.dataset} {args.split} at {r['size']} ({r['regions_read']} reads): "
                  f"{r['photos']} "
                  f"photos, {r['cards']} cards: {r['right']} right, {r['missed']} missed, "
                  f"{r['wrong']} wrong (recall {r['recall']}, precision {r['precision']}; "
                  f"wrong reports {r['wrong_reports']}); {r['photos_all_right']} photos read "
                  f"whole; {r['seconds']} s")
            for p in r["per_photo"]:
                if p["missed_cards"] or p["wrong_cards"]:
                    print(f"  {p['photo']}: missed {' '.join(p['missed_cards']) or '-'}, "
                          f"wrong {' '.join(p['wrong_cards']) or '-'}")
    return {"dataset": args.dataset, "split": args.split, "frames_each": args.frames_each,
            "results": results}


def laid(args: argparse.Namespace) -> dict[str, Any]:
    report = laid_cards(frames=args.frames, cpu=args.cpu, still_frames=args.still_frames)
    if not args.json:
        for key, value in report.items():
            print(f"{key}: {value}")
        print("targets: still <= 2 ms a frame, a changed region <= 30 ms (here); "
              "laid to LED <= 200 ms on a Pi 4 (estimate: network work x5, the rest x3.5)")
    return report


def game(args: argparse.Namespace) -> dict[str, Any]:
    report = drawn_game(args.players, args.seed, args.target, camera=args.camera,
                        size=args.size)
    if not args.json:
        for key, value in report.items():
            print(f"{key}: {value}")
    return report


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cases = ap.add_subparsers(dest="case", required=True)
    p = cases.add_parser("photos", help="labelled photos through the device loop")
    p.add_argument("--dataset", default="epfl-iapr2022-poker-3000")
    p.add_argument("--split", default="dev", choices=("dev", "test", "all"))
    p.add_argument("--size", type=frame_size_arg, nargs="+",
                   default=[(1280, 720), (2304, 1296)])
    p.add_argument("--frames-each", type=int, default=8)
    p.set_defaults(run=photos)
    s = cases.add_parser("laid-cards", help="cards laid on photos, read by StreamReader")
    s.add_argument("--frames", type=int, default=300, help="still frames to time")
    s.add_argument("--cpu", action="store_true", help="time by the thread's CPU time")
    s.add_argument("--still-frames", type=int, default=3,
                   help="still frames before a change is read (WatchSettings)")
    s.set_defaults(run=laid)
    g = cases.add_parser("drawn-game", help="a simulated game at a drawn table")
    g.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--target", type=int, choices=(61, 121), default=61)
    g.add_argument("--camera", default="camera-module-3",
                   help="camera model (vision.drawn.camera_model.CAMERAS) or ideal")
    g.add_argument("--size", type=frame_size_arg, default=(2304, 1296),
                   help="frame size WxH (default 2304x1296; 1280x720 the low-resolution case)")
    g.set_defaults(run=game)
    for sub in (p, s, g):
        sub.add_argument("--json", action="store_true")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    cv2.setNumThreads(1)
    report = args.run(args)
    if args.json:
        print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
