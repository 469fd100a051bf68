"""``cribbage-board vision``: score the recogniser on labelled photos, draw it, take a photo
with the device's camera, teach a deck."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, get_args

from firmware.device.camera_frame import add_source_arguments
from vision.measure.datasets import Split

__all__ = ["register"]

_MIN_CONFIDENCE_HELP = ("report a card only when this sure of it, 0-1 (default: the "
                        "recogniser's own floor)")
_SQUARE_PIXELS_HELP = ("read each photo once, as the device reads its camera's frames; by "
                       "default a photo is also read widened to 4:3 and 16:9, in case it was "
                       "resized to a square")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("vision", help="card recognition: eval on photos, show one, "
                                                 "snap one, teach a deck")
    sub = parser.add_subparsers(dest="vision_command", required=True,
                                parser_class=type(parser))
    ev = sub.add_parser("eval", help="score recognition on DIR (images + labels.json)")
    ev.add_argument("dir", type=Path, metavar="DIR")
    ev.add_argument("--json", action="store_true", help="print one JSON object (CONTRACT.md)")
    ev.add_argument("--split", choices=get_args(Split), default="all",
                    help="only this part of the dev/test split; fit and val cut dev in two "
                         "(vision/training/README.md)")
    ev.add_argument("--min-confidence", type=float, default=None, metavar="P",
                    help=_MIN_CONFIDENCE_HELP)
    ev.add_argument("--deck", type=Path, metavar="DECK.npz",
                    help="a deck profile from `vision teach`")
    ev.add_argument("--square-pixels", action="store_true", help=_SQUARE_PIXELS_HELP)
    ev.set_defaults(handler=_eval)
    sh = sub.add_parser("show", help="draw card outlines and names on IMAGE")
    sh.add_argument("image", type=Path, metavar="IMAGE")
    sh.add_argument("-o", "--output", type=Path, required=True, metavar="OUT.png")
    sh.add_argument("--json", action="store_true", help="also print the detections as JSON")
    sh.add_argument("--min-confidence", type=float, default=None, metavar="P",
                    help=_MIN_CONFIDENCE_HELP)
    sh.add_argument("--deck", type=Path, metavar="DECK.npz",
                    help="a deck profile from `vision teach`")
    sh.add_argument("--square-pixels", action="store_true", help=_SQUARE_PIXELS_HELP)
    sh.set_defaults(handler=_show)
    sn = sub.add_parser("snap", help="save one frame of the device's camera (a photo to teach "
                                     "from, or to show)")
    sn.add_argument("-o", "--output", type=Path, required=True, metavar="OUT.png")
    sn.add_argument("--config", type=Path, metavar="FILE",
                    help="device config whose [camera] takes the photo (default: defaults)")
    add_source_arguments(sn)
    sn.add_argument("--force", action="store_true", help="replace OUT.png if it exists")
    sn.add_argument("--json", action="store_true", help="print one JSON object")
    sn.set_defaults(handler=_snap)
    te = sub.add_parser("teach", help="learn the table's own deck from photos of it laid out")
    te.add_argument("photos", type=Path, nargs="+", metavar="PHOTO")
    te.add_argument("--cards", action="append", metavar='"AS 2S ..."',
                    help="the cards of a photo in reading order (once per photo)")
    te.add_argument("--suit", action="append", metavar="S",
                    help="the photo shows ace to king of this suit in reading order "
                         "(once per photo)")
    te.add_argument("-o", "--out", type=Path, required=True, metavar="DECK.npz")
    te.add_argument("--as-laid", action="store_true",
                    help="the cards lie in the order given: teach a card the network reads "
                         "as another (a deck printing its 6 like a 9) instead of refusing")
    te.add_argument("--json", action="store_true", help="print one JSON object")
    te.set_defaults(handler=_teach)


def _min_conf(args: argparse.Namespace) -> float:
    from vision.recognise.detection import DEFAULT_MIN_CONFIDENCE

    if args.min_confidence is None:
        return DEFAULT_MIN_CONFIDENCE
    if not 0.0 <= args.min_confidence <= 1.0:
        raise ValueError(f"--min-confidence must be between 0 and 1, got {args.min_confidence}")
    return float(args.min_confidence)


def _deck(args: argparse.Namespace) -> Any:
    """The ``--deck`` profile, or None; a bad file is a ``DeckError`` (a ValueError) naming it."""
    if args.deck is None:
        return None
    from vision.recognise.deck import load_profile

    return load_profile(args.deck)


def _eval(args: argparse.Namespace) -> int:
    from firmware.commands.cli import print_json
    from firmware.commands.progress import Progress
    from vision.measure.evaluate import evaluate

    if not (args.dir / "labels.json").is_file():
        raise ValueError(f"no labels.json in {str(args.dir)!r}")
    progress = Progress("vision eval")
    result = evaluate(args.dir, split=args.split, min_confidence=_min_conf(args),
                      deck=_deck(args), square_pixels=args.square_pixels, progress=progress)
    progress.done()
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

    from firmware.commands.cli import print_json
    from firmware.store.files import require_folder
    from vision.recognise.draw import draw_detections
    from vision.recognise.imagefile import read_image
    from vision.recognise.photo import PHOTO_ASPECTS, recognise_photo

    if args.output.suffix.lower() != ".png":
        raise ValueError(f"output must be a .png file, got {str(args.output)!r}")
    require_folder(args.output)
    image = read_image(args.image)
    detections = recognise_photo(image, deck=_deck(args), min_confidence=_min_conf(args),
                                 aspects=() if args.square_pixels else PHOTO_ASPECTS)
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


def _snap(args: argparse.Namespace) -> int:
    import cv2

    from firmware.commands.cli import print_json
    from firmware.device.camera_frame import grab_frame
    from firmware.device.config import load_device_config
    from firmware.store.files import replace_file, require_folder

    if args.output.suffix.lower() != ".png":
        raise ValueError(f"output must be a .png file, got {str(args.output)!r}")
    require_folder(args.output)
    if args.output.exists() and not args.force:
        raise ValueError(f"{str(args.output)!r} exists: choose another name, or --force")
    image = grab_frame(load_device_config(args.config), source=args.source, path=args.path)
    ok, data = cv2.imencode(".png", image)
    if not ok:
        raise OSError("could not encode the PNG")
    replace_file(args.output, data.tobytes())  # a cut-off write leaves no half photo
    height, width = image.shape[:2]
    if args.json:
        print_json({"output": str(args.output), "width": width, "height": height})
    else:
        print(f"{width}x{height} frame -> {args.output}")
    return 0


def _teach(args: argparse.Namespace) -> int:

    from firmware.commands.cli import print_json
    from firmware.commands.progress import Progress
    from firmware.store.files import replace_file, require_folder
    from vision.recognise.deck import TeachPhoto, load_profile, photo_cards, teach
    from vision.recognise.imagefile import read_image

    given = [("--cards", c, None) for c in args.cards or []] + [
        ("--suit", None, s) for s in args.suit or []]
    if args.cards and args.suit:
        raise ValueError("give either --cards or --suit for the photos, not both")
    if len(given) != len(args.photos):
        raise ValueError(f"{len(args.photos)} photos need {len(args.photos)} --cards or --suit, "
                         f"got {len(given)}")
    if args.out.suffix.lower() != ".npz":
        raise ValueError(f"output must be a .npz file, got {str(args.out)!r}")
    require_folder(args.out)  # before the photos are read and taught from
    photos = [TeachPhoto(str(path), read_image(path),
                         photo_cards(cards=cards, suit=suit))
              for path, (_, cards, suit) in zip(args.photos, given, strict=True)]
    progress = Progress("vision teach")
    profile = teach(photos, as_laid=args.as_laid, progress=progress)
    progress.done()
    # Read back before the rename: a profile that cannot be loaded never replaces a good one.
    replace_file(args.out, profile.to_bytes(), check=load_profile, mode=0o644)
    summary = {"output": str(args.out), "photos": [p.name for p in photos], **profile.summary()}
    if args.json:
        print_json(summary)
    else:
        print(f"taught {summary['cards_taught']} cards ({summary['patches']} index patches) "
              f"from {len(photos)} photos -> {args.out}")
    return 0
