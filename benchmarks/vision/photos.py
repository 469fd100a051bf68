"""Card recognition at the device's geometry: real photos scaled so cards are as tall as the
device's camera sees them, read as the device reads its frames.

    python benchmarks/vision_device_geometry.py [--json] [--split dev|val|test] [--set NAME]
        [--geometry device|full|taken] [--camera] [--heights 45,60,75,90]
        [--card-px device|frame|label]

Each labelled photo is scaled so its cards are ``--geometry device`` 60-90 px tall (a
1280x720 stream over a 1 m table), ``full`` 120-180 px (the same table at the camera's full
resolution), or left ``taken`` (``vision.measure.evaluate``, photos read widened back as ``vision
eval`` reads them). Scaled photos are laid in the middle of a frame of the stream's size
(1280x720, or 2560x1440 at full resolution) filled with the photo's own border colour, and
read by ``CameraRecogniser``, a fresh one per photo (each photo is another camera). With
``--camera`` each frame first goes through what a camera does to it: lens blur, sensor noise,
4:2:0 chroma and JPEG (seeded per photo). ``--heights`` instead reads every photo at each
card height given and prints recall against card and index height: the curve the camera
check's thresholds come from (``vision.live.camera_check``).

``--card-px`` is the card height the recogniser is told: ``device`` (the default) what the
device expects of its frame size (``WatchSettings.card_fraction`` of its height: 90 px at
720, 180 at 1440, whatever the photo's cards really measure), ``frame`` none (the frame's
own size sets the scale, as ``vision eval`` reads photos), ``label`` each photo's true card
height (a camera check's measurement, at its best).

Scale comes from the labels, never from the recogniser: a Roboflow photo's cards are
``CARD_PER_INDEX_BOX`` times the median long side of its labelled corner boxes, and the EPFL
set (no boxes) has one measured card height. Roboflow's webcam photos (``WIN_``) were
stretched to 640x640 from 16:9 and are widened back first; its phone photos (``IMG_``) are
read as stored, their shape unknown. Tune on dev or val; the test split is for reporting.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any, NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from engine.cards import Card  # noqa: E402
from vision.live.camera_check import INDEX_PER_CARD  # noqa: E402
from vision.live.motion import WatchSettings  # noqa: E402
from vision.measure.datasets import LabelledImage, Split, datasets_root, load_labels  # noqa: E402
from vision.measure.evaluate import evaluate  # noqa: E402
from vision.recognise.detection import CameraRecogniser  # noqa: E402
from vision.recognise.imagefile import read_image  # noqa: E402

DATASETS = ("epfl-iapr2022-poker-3000", "roboflow-cardcounterml")
# A card's height over its labelled corner box's longer side: 3.8-4.5 measured by eye on
# Roboflow webcam photos (a 10C 165 px tall with a 43 px box, a JD 210 px with 47 px).
CARD_PER_INDEX_BOX = 4.0
# EPFL at 3000 px wide: cards measure 281 px tall (median of the 20 outlines of card
# proportions that ``find_card_quads`` finds in the first six photos, 271-361).
EPFL_3000_CARD_HEIGHT = 281.0
STREAM = (1280, 720)
WEBCAM_ASPECT = 16 / 9
RED = frozenset("HD")


class Frame(NamedTuple):
    """One photo made into a device frame: pixels, the labelled cards, the cards' height."""

    image: np.ndarray
    cards: frozenset[Card]
    card_px: float


def card_height(item: LabelledImage, shape: tuple[int, ...], dataset: str) -> float:
    """The photo's card height in its own pixels, from its labels (never from the recogniser)."""
    if dataset.startswith("epfl"):
        return EPFL_3000_CARD_HEIGHT * shape[1] / 3000.0
    sides = [max(b[2] - b[0], b[3] - b[1]) for _, b in item.corner_boxes]
    if not sides:
        raise ValueError(f"{item.path.name}: no corner boxes to size its cards by")
    return CARD_PER_INDEX_BOX * statistics.median(sides)


def widened(image: np.ndarray, name: str) -> np.ndarray:
    """A webcam photo stretched to a square, widened back to 16:9 (square pixels)."""
    h, w = image.shape[:2]
    if name.startswith("WIN_") and abs(w - h) < 2:
        return cv2.resize(image, (int(round(h * WEBCAM_ASPECT)), h), interpolation=cv2.INTER_CUBIC)
    return image


def camera(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """What a small camera does to a frame: lens blur (0.5-0.9 px), sensor noise (2-4 grey
    levels), 4:2:0 chroma and JPEG (quality 75-90)."""
    out = cv2.GaussianBlur(image, (0, 0), float(rng.uniform(0.5, 0.9)))
    noisy = out.astype(np.float32) + rng.normal(0.0, float(rng.uniform(2, 4)), out.shape)
    out = np.clip(noisy, 0, 255).astype(np.uint8)
    ycc = cv2.cvtColor(out, cv2.COLOR_BGR2YCrCb)
    h, w = ycc.shape[:2]
    for c in (1, 2):
        half = cv2.resize(ycc[:, :, c], (max(1, w // 2), max(1, h // 2)),
                          interpolation=cv2.INTER_AREA)
        ycc[:, :, c] = cv2.resize(half, (w, h), interpolation=cv2.INTER_LINEAR)
    out = cv2.cvtColor(ycc, cv2.COLOR_YCrCb2BGR)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(75, 91))])
    assert ok
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def device_frame(photo: np.ndarray, scale: float, size: tuple[int, int]) -> np.ndarray:
    """The photo scaled by ``scale`` in the middle of a frame of ``size`` (grown to hold it)
    filled with the photo's median border colour."""
    h, w = photo.shape[:2]
    sw, sh = max(1, int(round(w * scale))), max(1, int(round(h * scale)))
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC
    small = cv2.resize(photo, (sw, sh), interpolation=interp)
    border = np.concatenate([small[0], small[-1], small[:, 0], small[:, -1]])
    fill = np.median(border, axis=0).astype(np.uint8)
    fw, fh = max(size[0], sw), max(size[1], sh)
    frame = np.empty((fh, fw, 3), np.uint8)
    frame[:] = fill
    y, x = (fh - sh) // 2, (fw - sw) // 2
    frame[y:y + sh, x:x + sw] = small
    return frame


def target_heights(n: int, low: float, high: float) -> list[float]:
    """Card heights spread evenly over [low, high] across n photos (golden-ratio steps)."""
    return [low + (high - low) * ((i * 0.6180339887) % 1.0) for i in range(n)]


def frames(directory: Path, split: Split, heights: list[float] | float, size: tuple[int, int],
           *, degrade: bool) -> list[Frame]:
    """Every photo of a split made into a device frame with cards the height given (one for
    all, or one per photo)."""
    items = load_labels(directory, split=split)
    per = heights if isinstance(heights, list) else [heights] * len(items)
    out = []
    for i, (item, height) in enumerate(zip(items, per, strict=False)):
        photo = widened(read_image(item.path), item.path.name)
        scale = height / card_height(item, photo.shape, directory.name)
        frame = device_frame(photo, scale, size)
        if degrade:
            frame = camera(frame, np.random.default_rng(i))
        out.append(Frame(frame, item.cards, height))
    return out


def told_card_px(f: Frame, how: str) -> float | None:
    """The card height the recogniser is told (``--card-px``)."""
    if how == "frame":
        return None
    if how == "label":
        return f.card_px
    return WatchSettings().card_fraction * f.image.shape[0]


def score(batch: list[Frame], *, card_px: str = "device") -> dict[str, Any]:
    """Precision, recall and red / black recall of a fresh device recogniser on each frame."""
    labelled = found = right = red = red_right = 0
    times = []
    for f in batch:
        start = time.perf_counter()
        read = CameraRecogniser()(f.image, card_px=told_card_px(f, card_px))
        seen = {d.card for d in read if d.card is not None}
        times.append((time.perf_counter() - start) * 1000)
        labelled += len(f.cards)
        found += len(seen)
        right += len(seen & f.cards)
        reds = {c for c in f.cards if c.suit.letter in RED}
        red += len(reds)
        red_right += len(seen & reds)
    black = labelled - red
    return {"images": len(batch), "cards_labelled": labelled, "cards_found": found,
            "wrong": found - right,
            "precision": round(right / found, 4) if found else 1.0,
            "recall": round(right / labelled, 4) if labelled else 1.0,
            "red_recall": round(red_right / red, 4) if red else 1.0,
            "black_recall": round((right - red_right) / black, 4) if black else 1.0,
            "ms_per_frame_median": round(statistics.median(times), 1) if times else 0.0}


def measure(directory: Path, split: Split, geometry: str, *, degrade: bool,
            card_px: str = "device") -> dict[str, Any]:
    if geometry == "taken":
        out = evaluate(directory, split=split)
        out.pop("per_image")
        return out
    factor = 2 if geometry == "full" else 1
    heights = target_heights(len(load_labels(directory, split=split)), 60 * factor, 90 * factor)
    size = (STREAM[0] * factor, STREAM[1] * factor)
    return score(frames(directory, split, heights, size, degrade=degrade), card_px=card_px)


def curve(directory: Path, split: Split, heights: list[float], *, degrade: bool,
          card_px: str = "device") -> list[dict[str, Any]]:
    """Recall and precision against card height (and index height) on one split."""
    rows = []
    for h in heights:
        size = STREAM if h <= 100 else (STREAM[0] * 2, STREAM[1] * 2)
        result = score(frames(directory, split, float(h), size, degrade=degrade), card_px=card_px)
        rows.append({"card_px": h, "index_px": round(h * INDEX_PER_CARD, 1), **result})
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--split", choices=("dev", "val", "fit", "test"), default="dev")
    ap.add_argument("--set", action="append", choices=DATASETS, help="default: both")
    ap.add_argument("--geometry", choices=("device", "full", "taken"), default="device")
    ap.add_argument("--camera", action="store_true", help="blur, noise, 4:2:0 chroma, JPEG")
    ap.add_argument("--heights", help="comma-separated card heights in px: the recall curve")
    ap.add_argument("--card-px", choices=("device", "frame", "label"), default="device",
                    help="the card height the recogniser is told (see above)")
    args = ap.parse_args()
    root = datasets_root()
    if root is None:
        print("no datasets found (../shared/datasets or $CRIBBAGE_DATASETS)", file=sys.stderr)
        return 2
    cv2.setNumThreads(1)
    results: dict[str, Any] = {}
    for name in args.set or DATASETS:
        directory = root / name
        if args.heights:
            heights = [float(h) for h in args.heights.split(",")]
            results[name] = curve(directory, args.split, heights, degrade=args.camera,
                                  card_px=args.card_px)
        else:
            results[name] = measure(directory, args.split, args.geometry, degrade=args.camera,
                                    card_px=args.card_px)
    if args.json:
        print(json.dumps({"split": args.split, "geometry": args.geometry, "camera": args.camera,
                          "card_px": args.card_px, "sets": results}))
        return 0
    for name, result in results.items():
        rows = result if isinstance(result, list) else [result]
        for r in rows:
            lead = f"card {r['card_px']:g} px / index {r['index_px']:g} px  " if "card_px" in r \
                else ""
            extra = (f"red {r['red_recall']:.3f} black {r['black_recall']:.3f} "
                     f"wrong {r['wrong']}") if "red_recall" in r else \
                f"exact {r['images_exact']:.2f}"
            prec = r.get("precision", r.get("card_precision"))
            rec = r.get("recall", r.get("card_recall"))
            print(f"{name} {args.split} {args.geometry}{' camera' if args.camera else ''}: "
                  f"{lead}precision {prec:.3f} recall {rec:.3f} {extra} "
                  f"({r['cards_labelled']} cards, {r['images']} photos)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
