"""``cribbage-board vision``: score the card recogniser on labelled photos, or draw it."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

__all__ = ["register"]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("vision", help="card recognition: eval on photos, show one")
    sub = parser.add_subparsers(dest="vision_command", required=True,
                                parser_class=type(parser))
    ev = sub.add_parser("eval", help="score recognition on DIR (images + labels.json)")
    ev.add_argument("dir", type=Path, metavar="DIR")
    ev.add_argument("--json", action="store_true", help="print one JSON object (CONTRACT.md)")
    ev.add_argument("--split", choices=("all", "dev", "test"), default="all",
                    help="only this part of the dev/test split (vision/training/README.md)")
    ev.add_argument("--min-confidence", type=float, default=None)
    ev.set_defaults(handler=_eval)
    sh = sub.add_parser("show", help="draw card outlines and names on IMAGE")
    sh.add_argument("image", type=Path, metavar="IMAGE")
    sh.add_argument("-o", "--output", type=Path, required=True, metavar="OUT.png")
    sh.add_argument("--json", action="store_true", help="also print the detections as JSON")
    sh.add_argument("--min-confidence", type=float, default=None)
    sh.set_defaults(handler=_show)


def _min_conf(args: argparse.Namespace) -> dict[str, float]:
    if args.min_confidence is None:
        return {}
    if not 0.0 <= args.min_confidence <= 1.0:
        raise ValueError(f"--min-confidence must be between 0 and 1, got {args.min_confidence}")
    return {"min_confidence": args.min_confidence}


def _eval(args: argparse.Namespace) -> int:
    from firmware.cli import print_json
    from vision.evaluate import evaluate

    if not (args.dir / "labels.json").is_file():
        raise ValueError(f"no labels.json in {str(args.dir)!r}")
    result = evaluate(args.dir, split=args.split, **_min_conf(args))
    if args.json:
        print_json(result)
    else:
        print(
            f"{result['images']} images: precision {result['card_precision']:.4f}, "
            f"recall {result['card_recall']:.4f}, exact {result['images_exact']:.4f}, "
            f"{result['ms_per_image_median']} ms median"
        )
    return 0


def _show(args: argparse.Namespace) -> int:
    import cv2

    from firmware.cli import print_json
    from vision.detection import recognise
    from vision.draw import draw_detections

    image = cv2.imread(str(args.image), cv2.IMREAD_COLOR)
    if image is None:
        raise ValueError(f"cannot read image {str(args.image)!r}")
    if args.output.suffix.lower() != ".png":
        raise ValueError(f"output must be a .png file, got {str(args.output)!r}")
    detections = recognise(image, **_min_conf(args))
    drawn = draw_detections(image, detections)
    ok, data = cv2.imencode(".png", drawn)
    if not ok:
        raise OSError("could not encode the PNG")
    args.output.write_bytes(data.tobytes())
    if args.json:
        print_json({"output": str(args.output), "detections": [
            {"card": None if d.card is None else str(d.card),
             "corners": [list(p) for p in d.corners], "confidence": round(d.confidence, 4)}
            for d in detections]})
    else:
        names = [str(d.card) if d.card is not None else "?" for d in detections]
        print(f"{len(detections)} cards: {' '.join(names)} -> {args.output}")
    return 0
