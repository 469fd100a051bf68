"""Card recognition accuracy: a dataset read in a named geometry.

    python benchmarks/vision/accuracy.py [--dataset NAME ...] [--geometry G ...] [--json]

Datasets (``--dataset``, repeatable; one family a run):

- labelled photos (``../shared/datasets``, or ``$CRIBBAGE_DATASETS``):
  ``epfl-iapr2022-poker`` (as published), ``epfl-iapr2022-poker-3000`` (3000 px wide) and
  ``roboflow-cardcounterml``; default the last two. ``--split dev|val|fit|test|all``
  (default dev: tune on dev or val, the test split is for reporting). Geometries
  (``benchmarks/vision/photos.py``): ``as-taken`` (the default: each photo at its own
  resolution, read as ``vision eval`` reads photos; ``--square-pixels`` reads each once),
  ``device:WxH`` (cards scaled to 60-90 px tall per 720 rows: ``device:1280x720`` the
  stream, ``device:2560x1440`` the full view; ``--heights`` the recall curve
  ``vision.live.camera_check`` takes its thresholds from), ``fit:WxH`` (the whole photo
  fitted into the frame, as ``live_path.py photos`` plays it). ``--camera`` puts the frames
  through blur, noise, 4:2:0 and JPEG; ``--card-px device|frame|label`` is the card height
  the recogniser is told. ``--speed`` also times the device's recogniser per 1280x720 frame.
- drawn deals (``benchmarks/vision/decks.py``): ``decks`` (Debian's card themes, chosen by
  ``--theme`` and ``--half``) or ``drawn`` (the drawn deck), the ``--seed`` deal. Geometries:
  ``as-drawn`` (the default), ``resized:WxH``, ``closeup:ZOOM``, read frame by frame
  (``--misses`` puts each missed card in the stage that lost it, ``--list`` prints them;
  ``--photo`` reads frames as photos), and ``camera:NAME[:WxH]``, the deal filmed by a
  camera model and followed by the tracker (``benchmarks/vision/tracking.py``).
- taught decks (``benchmarks/vision/teaching.py``): ``lab-decks`` (the drawn lab decks, each
  read with no, its own and another deck's profile) or ``taught-decks`` (Debian's themes,
  ``--theme`` and ``--half``, own profile); ``--deals N``, ``--as-laid``.

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

from benchmarks.vision.decks import (  # noqa: E402
    DrawnGeometry,
    add_deck_arguments,
    chosen_decks,
    parse_drawn_geometry,
    read_deal,
)
from benchmarks.vision.misses import STAGES  # noqa: E402
from benchmarks.vision.photos import (  # noqa: E402
    CARD_PX_CHOICES,
    EPFL_3000,
    PHOTO_DATASETS,
    ROBOFLOW,
    PhotoGeometry,
    curve,
    frame_speed,
    measure,
)
from benchmarks.vision.teaching import lab_decks, taught_decks  # noqa: E402
from benchmarks.vision.tracking import CameraGeometry, add_totals, track_deal  # noqa: E402
from vision.measure.datasets import datasets_root, load_labels  # noqa: E402

DECK_DATASETS = ("decks", "drawn")
TEACH_DATASETS = ("lab-decks", "taught-decks")
FAMILIES = {**{n: "photos" for n in PHOTO_DATASETS}, **{n: "drawn" for n in DECK_DATASETS},
            **{n: "taught" for n in TEACH_DATASETS}}


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", action="append", choices=list(FAMILIES),
                    help="repeatable; default the two photo sets "
                         f"{EPFL_3000} and {ROBOFLOW}")
    ap.add_argument("--geometry", action="append",
                    help="repeatable; default as-taken (photos) or as-drawn (drawn and taught)")
    ap.add_argument("--json", action="store_true")
    photos = ap.add_argument_group("labelled photos")
    photos.add_argument("--split", choices=("dev", "val", "fit", "test", "all"), default="dev")
    photos.add_argument("--camera", action="store_true", help="blur, noise, 4:2:0 chroma, JPEG")
    photos.add_argument("--card-px", choices=CARD_PX_CHOICES, default="device",
                        help="the card height the recogniser is told (photos.py)")
    photos.add_argument("--heights", help="comma-separated card heights in px: the recall curve")
    photos.add_argument("--square-pixels", action="store_true",
                        help="as-taken: read each photo once, as the device reads its frames")
    photos.add_argument("--speed", action="store_true",
                        help="also time the recogniser per 1280x720 frame on one core")
    drawn = ap.add_argument_group("drawn deals and taught decks")
    add_deck_arguments(drawn)
    drawn.add_argument("--photo", action="store_true",
                       help="read the frames as photos (vision.recognise.photo.recognise_photo)")
    drawn.add_argument("--misses", action="store_true",
                       help="put every missed card in the stage that lost it (misses.py)")
    drawn.add_argument("--list", action="store_true", help="with --misses: print each one")
    drawn.add_argument("--frames-per-step", type=int, default=8, help="camera: geometries")
    drawn.add_argument("--deals", type=int, default=4, help="taught: drawn deals per deck")
    drawn.add_argument("--as-laid", action="store_true",
                       help="taught: teach taking each card as laid (vision teach --as-laid)")
    return ap


def photos(ap: argparse.ArgumentParser, args: argparse.Namespace, names: list[str]
           ) -> dict[str, Any]:
    """Each photo set read in each geometry (or along the height curve)."""
    root = datasets_root()
    if root is None:
        raise SystemExit("no datasets found (../shared/datasets or $CRIBBAGE_DATASETS)")
    try:
        geometries = [PhotoGeometry.parse(g) for g in args.geometry or ["as-taken"]]
    except ValueError as exc:
        ap.error(str(exc))
    if args.camera and any(g.kind == "as-taken" for g in geometries):
        ap.error("--camera degrades frames: give device:WxH or fit:WxH")
    if args.heights and any(g.kind != "device" for g in geometries):
        ap.error("--heights scales photos by their cards: give device:WxH")
    results: dict[str, Any] = {}
    for g in geometries:
        results[g.name] = {}
        for name in names:
            if args.heights:
                heights = [float(h) for h in args.heights.split(",")]
                results[g.name][name] = curve(root / name, args.split, g, heights,
                                              degrade=args.camera, card_px=args.card_px)
            else:
                results[g.name][name] = measure(root / name, args.split, g, degrade=args.camera,
                                                card_px=args.card_px,
                                                square_pixels=args.square_pixels)
    report: dict[str, Any] = {"split": args.split, "camera": args.camera,
                              "card_px": args.card_px, "square_pixels": args.square_pixels,
                              "geometries": results, "errata": errata_applied(root, names, args)}
    if args.speed:
        paths = [li.path for name in names for li in load_labels(root / name, split=args.split)]
        report["speed"] = {
            "ms_per_1280x720_frame_median_one_core": frame_speed(paths),
            "ms_per_1280x720_frame_measuring_each_frame": frame_speed(paths, each_frame=True)}
    if not args.json:
        print_photos(report)
    return report


def errata_applied(root: Path, names: list[str], args: argparse.Namespace) -> dict[str, int]:
    """How many of each set's photos in the split had their labels corrected by the project's
    errata (``vision/measure/errata.json``): the scores count against the corrected labels."""
    return {name: sum(li.erratum is not None for li in load_labels(root / name, split=args.split))
            for name in names}


def print_photos(report: dict[str, Any]) -> None:
    print("labels corrected by vision/measure/errata.json: " + ", ".join(
        f"{name} {n} photos" for name, n in report["errata"].items()))
    for geometry, sets in report["geometries"].items():
        for name, result in sets.items():
            for r in result if isinstance(result, list) else [result]:
                lead = (f"card {r['card_px']:g} px / index {r['index_px']:g} px  "
                        if "index_px" in r else "")
                extra = (f"red {r['red_recall']:.3f} black {r['black_recall']:.3f} "
                         f"wrong {r['wrong']}") if "red_recall" in r else \
                    f"exact {r['images_exact']:.2f}"
                prec = r.get("precision", r.get("card_precision"))
                rec = r.get("recall", r.get("card_recall"))
                print(f"{name} {report['split']} {geometry}"
                      f"{' camera' if report['camera'] else ''}: {lead}precision {prec:.3f} "
                      f"recall {rec:.3f} {extra} ({r['cards_labelled']} cards, "
                      f"{r['images']} photos)")
    for key, value in report.get("speed", {}).items():
        print(key, value)


def drawn(ap: argparse.ArgumentParser, args: argparse.Namespace, names: list[str]
          ) -> dict[str, Any]:
    """The deal laid with each chosen deck, read in each geometry."""
    frame_geometries: list[DrawnGeometry] = []
    cameras: list[CameraGeometry] = []
    for text in args.geometry or ["as-drawn"]:
        try:
            if text.startswith("camera:"):
                cameras.append(CameraGeometry.parse(text))
            else:
                frame_geometries.append(parse_drawn_geometry(text))
        except ValueError as exc:
            ap.error(str(exc))
    decks: list[Any] = chosen_decks(args) if "decks" in names else []
    if "drawn" in names:
        decks.append(None)
    rows: dict[str, Any] = {}
    total: dict[str, Any] = {}
    for deck in decks:
        name = deck.name if deck is not None else "drawn"
        row: dict[str, Any] = {}
        if frame_geometries:
            counts, notes = read_deal(deck, args.seed, frame_geometries, model=args.model,
                                      photo=args.photo, misses=args.misses)
            for g, c in counts.items():
                row[g] = dict(c)
                total.setdefault(g, {})
                for key, value in c.items():
                    total[g][key] = total[g].get(key, 0) + value
            if args.list and not args.json:
                for n in notes:
                    print(f"  {name} {n.geometry} frame {n.frame}: {n.card} {n.stage} "
                          f"{n.reading}".rstrip())
        for cam in cameras:
            row[cam.name] = track_deal(args.seed, args.frames_per_step, cam, deck=deck,
                                       model=args.model)
            add_totals(total.setdefault(cam.name, {}), row[cam.name])
        rows[name] = row
        if not args.json:
            for g, r in row.items():
                print(f"{name} {g}: {describe(r)}", flush=True)
    if not args.json:
        for g, r in total.items():
            print(f"all {len(decks)} decks {g}: {describe(r)}")
    return {"seed": args.seed, "half": args.half, "photo": args.photo, "decks": rows,
            "total": {"themes": len(decks), **total}}


def describe(r: dict[str, Any]) -> str:
    """One line for a geometry's counts, or for a tracked deal."""
    if "appearances_due" in r:
        text = (f"recall {r['recall']}, precision {r['precision']} ({r['appeared_right']} of "
                f"{r['appearances_due']}, {r['events']} events)")
        if "fps" in r:
            text += (f"; {r['frames']} frames at {r['fps']} fps, after stable median "
                     f"{r['after_stable_median']} max {r['after_stable_max']}")
        return text
    text = (f"{r['right']} right, {r['wrong']} wrong of {r['face_up']} face up "
            f"({r['frames']} frames)")
    stages = [f"{s} {r[s]}" for s in STAGES if s in r]
    return text + ("; " + ", ".join(stages) if stages else "")


def taught(ap: argparse.ArgumentParser, args: argparse.Namespace, names: list[str]
           ) -> dict[str, Any]:
    """The lab decks and/or Debian's themes taught and read."""
    if any(g != "as-drawn" for g in args.geometry or []):
        ap.error("taught decks are read as drawn: --geometry as-drawn")
    report: dict[str, Any] = {}

    def lab_row(deck: str, rows: dict[str, dict[str, Any]]) -> None:
        if not args.json:
            for label, row in rows.items():
                print(f"{deck:20s} {label:28s} found {row['found']:4d} wrong {row['wrong']:3d} "
                      f"precision {row['precision']:.4f} recall {row['recall']:.4f} "
                      f"{row['ms_per_frame_median']:.1f} ms", flush=True)

    def theme_row(deck: str, row: dict[str, Any]) -> None:
        if args.json:
            return
        if not row["taught"]:
            print(f"{deck:40s} not taught: {row['refused']}", flush=True)
            return
        print(f"{deck:40s} " + "  ".join(
            f"{name}: found {r['found']} wrong {r['wrong']} recall {r['recall']:.3f}"
            for name, r in row.items() if name != "taught"), flush=True)

    if "lab-decks" in names:
        report["lab-decks"] = lab_decks(deals=args.deals, as_laid=args.as_laid, emit=lab_row)
    if "taught-decks" in names:
        out = taught_decks(chosen_decks(args), deals=args.deals, as_laid=args.as_laid,
                           emit=theme_row)
        report["taught-decks"] = out
        if not args.json:
            t = out["total"]
            print(f"taught {t['taught']} of {t['themes']} themes; " + "  ".join(
                f"{name}: found {t[name]['found']} wrong {t[name]['wrong']} "
                f"precision {t[name]['precision']:.4f} recall {t[name]['recall']:.4f}"
                for name in ("none", "own")))
    return report


def main(argv: list[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    names = args.dataset or [EPFL_3000, ROBOFLOW]
    families = {FAMILIES[n] for n in names}
    if len(families) > 1:
        ap.error("give datasets of one family a run: photos, drawn deals or taught decks")
    cv2.setNumThreads(1)
    run = {"photos": photos, "drawn": drawn, "taught": taught}[families.pop()]
    report = run(ap, args, names)
    if args.json:
        print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
