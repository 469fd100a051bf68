"""How much recall the recogniser loses to the light, the camera and the cards' turn.

    python benchmarks/vision/robustness.py [--dataset NAME ...] [--split dev] [--limit N]
                                           [--condition NAME ...] [--json]

Every labelled photo of a split (``../shared/datasets``, or ``$CRIBBAGE_DATASETS``) is read
as it was taken and again under each condition, and each condition's recall is compared
with the untouched photos' (the drop in points; the target is at most 2):

- ``exposure:EV`` (default -1.5, -0.75, +0.75, +1.5): the light scaled by 2^EV in linear
  light (sRGB decoded, scaled, clipped where it saturates, encoded again);
- ``temperature:K`` (default 2700, 4000, 6500): the scene lit by a black body of K kelvin
  instead of daylight and not white-balanced (each channel scaled in linear light by the
  lamp's colour over daylight's, normalised so green keeps its level: 2700 K scales B, G, R
  by 0.31, 1, 1.72);
- ``contrast:0.5``: every pixel pulled half way to the photo's mean;
- ``jpeg:60``: saved again as JPEG at quality 60;
- ``turned:90`` (also ``turned:180``, ``turned:270``): the whole photo turned, so every card
  lies sideways; the cards are the same, so the labels stand.

Each photo is read once with square pixels (``recognise``, as the device reads its frames;
Roboflow's webcam photos, stretched to a square, are widened back to 16:9 first, so a turned
photo is a turned scene and not a scene squashed the other way). ``--limit`` reads the first
N photos of each set (in label order) where the whole split is too slow; say the count.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from benchmarks.vision.photos import EPFL, EPFL_3000, PHOTO_DATASETS, ROBOFLOW, widened  # noqa: E402
from vision.measure.datasets import LabelledImage, datasets_root, load_labels  # noqa: E402
from vision.recognise.detection import recognise  # noqa: E402
from vision.recognise.imagefile import read_image  # noqa: E402

__all__ = ["Condition", "parse_condition", "DEFAULT_CONDITIONS", "exposure", "temperature",
           "contrast", "recompressed", "turned", "sweep"]

DEFAULT_CONDITIONS = ("exposure:-1.5", "exposure:-0.75", "exposure:0.75", "exposure:1.5",
                      "temperature:2700", "temperature:4000", "temperature:6500",
                      "contrast:0.5", "jpeg:60", "turned:90")
# The colour a white surface takes under D65 daylight, as a black body's (the reference the
# lamp's colour is measured against).
DAYLIGHT_K = 6504.0


@dataclass(frozen=True, slots=True)
class Condition:
    """One named change made to a photo before it is read."""

    name: str
    apply: Callable[[np.ndarray], np.ndarray]


def _to_linear(image: np.ndarray) -> np.ndarray:
    """sRGB-encoded uint8 to linear light in [0, 1] (float32)."""
    v = image.astype(np.float32) / 255.0
    linear: np.ndarray = np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)
    return linear.astype(np.float32)


def _to_srgb(linear: np.ndarray) -> np.ndarray:
    """Linear light back to sRGB-encoded uint8, clipped where it saturates."""
    v = np.clip(linear, 0.0, 1.0)
    s: np.ndarray = np.where(v <= 0.0031308, v * 12.92, 1.055 * v ** (1 / 2.4) - 0.055)
    return np.clip(np.rint(s * 255.0), 0, 255).astype(np.uint8)


def exposure(image: np.ndarray, ev: float) -> np.ndarray:
    """The photo as if exposed ``ev`` stops more (2^ev times the light), in linear light."""
    return _to_srgb(_to_linear(image) * np.float32(2.0 ** ev))


def black_body_bgr(kelvin: float) -> np.ndarray:
    """A black body's colour at ``kelvin`` as linear B, G, R: Planck's law weighed by one
    Gaussian per channel (450, 545, 605 nm), a rough camera rather than a colorimetric one.
    Against daylight, 2700 K scales B, G, R by 0.31, 1, 1.72 and 4000 K by 0.60, 1, 1.27: a
    cast as strong as a tungsten lamp's on a camera that does not white-balance."""
    if not 1000.0 <= kelvin <= 40000.0:
        raise ValueError(f"colour temperature must be 1000-40000 K, not {kelvin}")
    nm = np.arange(380.0, 781.0, 5.0)
    metres = nm * 1e-9
    radiance = 1.0 / (metres ** 5 * (np.exp(1.4388e-2 / (metres * kelvin)) - 1.0))
    centres, widths = (450.0, 545.0, 605.0), (25.0, 35.0, 35.0)  # B, G, R
    return np.array([float(np.sum(radiance * np.exp(-0.5 * ((nm - c) / w) ** 2)))
                     for c, w in zip(centres, widths, strict=True)])


def temperature(image: np.ndarray, kelvin: float) -> np.ndarray:
    """The scene lit by a ``kelvin`` lamp instead of daylight, left un-white-balanced."""
    gain = black_body_bgr(kelvin) / black_body_bgr(DAYLIGHT_K)
    gain = (gain / gain[1]).astype(np.float32)
    return _to_srgb(_to_linear(image) * gain)


def contrast(image: np.ndarray, factor: float) -> np.ndarray:
    """Every pixel pulled towards the photo's mean: ``factor`` 0.5 halves the contrast."""
    mean = image.reshape(-1, image.shape[-1]).mean(axis=0)
    out = mean + factor * (image.astype(np.float32) - mean)
    result: np.ndarray = np.clip(np.rint(out), 0, 255).astype(np.uint8)
    return result


def recompressed(image: np.ndarray, quality: int) -> np.ndarray:
    """The photo saved again as JPEG at ``quality``."""
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise ValueError(f"JPEG encoding at quality {quality} failed")
    out = cv2.imdecode(data, cv2.IMREAD_COLOR)
    assert out is not None
    return out


def turned(image: np.ndarray, degrees: int) -> np.ndarray:
    """The whole photo turned counter-clockwise by ``degrees`` (a multiple of 90)."""
    return np.ascontiguousarray(np.rot90(image, degrees // 90))


def parse_condition(text: str) -> Condition:
    """A condition as ``--condition`` names it (see the module's docstring)."""
    kind, _, value = text.partition(":")
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"{text!r}: a condition is KIND:NUMBER, e.g. exposure:-1.5") from None
    if kind == "exposure" and -4.0 <= number <= 4.0:
        return Condition(text, lambda im: exposure(im, number))
    if kind == "temperature" and 1000.0 <= number <= 40000.0:
        return Condition(text, lambda im: temperature(im, number))
    if kind == "contrast" and 0.0 < number <= 1.0:
        return Condition(text, lambda im: contrast(im, number))
    if kind == "jpeg" and 5 <= number <= 100 and number.is_integer():
        return Condition(text, lambda im: recompressed(im, int(number)))
    if kind == "turned" and number in (90.0, 180.0, 270.0):
        return Condition(text, lambda im: turned(im, int(number)))
    raise ValueError(f"{text!r}: conditions are exposure:-4..4, temperature:1000..40000, "
                     "contrast:0-1, jpeg:5..100, turned:90|180|270")


def _counts(found: set[Any], cards: frozenset[Any]) -> tuple[int, int, int]:
    return len(cards), len(found), len(found & cards)


def _row(labelled: int, found: int, right: int) -> dict[str, Any]:
    return {"cards_labelled": labelled, "cards_found": found, "wrong": found - right,
            "recall": round(right / labelled, 4) if labelled else 1.0,
            "precision": round(right / found, 4) if found else 1.0}


def sweep(items: list[LabelledImage], conditions: list[Condition]) -> dict[str, Any]:
    """Each photo read as taken and under each condition: recall, precision and the recall
    drop in points against the photos as taken."""
    names = ["as-taken", *(c.name for c in conditions)]
    totals = {n: [0, 0, 0] for n in names}
    seconds = 0.0
    for item in items:
        photo = widened(read_image(item.path), item.path.name)
        for name, change in [("as-taken", None), *((c.name, c.apply) for c in conditions)]:
            image = photo if change is None else change(photo)
            start = time.process_time()
            found = {d.card for d in recognise(image) if d.card is not None}
            seconds += time.process_time() - start
            for k, v in enumerate(_counts(found, item.cards)):
                totals[name][k] += v
    rows = {n: _row(*totals[n]) for n in names}
    base = rows["as-taken"]["recall"]
    for n in names:
        rows[n]["recall_drop_points"] = round(100.0 * (base - rows[n]["recall"]), 1)
    return {"images": len(items), "conditions": rows,
            "cpu_s_per_reading": round(seconds / max(1, len(items) * len(names)), 3)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", action="append", choices=list(PHOTO_DATASETS),
                    help=f"repeatable; default {EPFL_3000} and {ROBOFLOW} (also {EPFL})")
    ap.add_argument("--split", choices=("dev", "val", "fit", "test", "all"), default="dev")
    ap.add_argument("--limit", type=int, help="the first N photos of each set")
    ap.add_argument("--condition", action="append",
                    help="repeatable; default: " + " ".join(DEFAULT_CONDITIONS))
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if args.limit is not None and args.limit < 1:
        ap.error(f"--limit must be a positive number of photos, not {args.limit}")
    try:
        conditions = [parse_condition(c) for c in args.condition or DEFAULT_CONDITIONS]
    except ValueError as exc:
        ap.error(str(exc))
    root = datasets_root()
    if root is None:
        raise SystemExit("no datasets found (../shared/datasets or $CRIBBAGE_DATASETS)")
    cv2.setNumThreads(1)
    report: dict[str, Any] = {"split": args.split, "limit": args.limit, "sets": {}}
    for name in args.dataset or [EPFL_3000, ROBOFLOW]:
        items = load_labels(root / name, split=args.split)[:args.limit]
        result = sweep(items, conditions)
        report["sets"][name] = result
        if not args.json:
            for cond, r in result["conditions"].items():
                print(f"{name} {args.split} ({result['images']} photos) {cond:18s} "
                      f"recall {r['recall']:.3f} (drop {r['recall_drop_points']:+.1f} points) "
                      f"precision {r['precision']:.3f} wrong {r['wrong']} "
                      f"of {r['cards_labelled']} cards", flush=True)
    if args.json:
        print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
