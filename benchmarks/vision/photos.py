"""Labelled photos (``../shared/datasets``) made into the frames a geometry names, and read.

Geometries (``benchmarks/vision/accuracy.py --geometry``):

- ``as-taken``: each photo at its own resolution, read as ``vision eval`` reads photos
  (``vision.measure.evaluate``: ``recognise_photo``, also widened back from a square unless
  ``square_pixels``), the CONTRACT.md keys less ``per_image``;
- ``device:WxH``: each photo scaled so its cards are 60-90 px tall per 720 rows of the frame
  (60-90 px in 1280x720, a 1 m table seen by the stream; 120-180 in 2560x1440, the same
  table at the camera's full resolution), spread evenly over the photos, laid in the middle
  of a WxH frame filled with the photo's border colour and read by a fresh
  ``CameraRecogniser`` per photo (each photo is another camera);
- ``fit:WxH``: each photo fitted whole into a WxH frame (``firmware.demo.photo_table
  .fit_frame``, what ``live_path.py photos`` plays to the loop), read the same way.

Scale comes from the labels (``vision.measure.photo_scale``), never from the recogniser;
Roboflow's webcam photos are widened back to 16:9 first in the scaled geometries.
``device`` frames are not ``fit_frame``'s: that one scales a photo to the frame, this one to
the cards' labelled height, so only the border fill is alike.

``camera`` (``--camera``) puts each frame through what a small camera does to it, with
``vision.drawn.camera_model``'s effects: lens blur (0.5-0.9 px), sensor noise (2-4 grey
levels, Gaussian), 4:2:0 chroma and JPEG (quality 75-90), seeded per photo.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import cv2
import numpy as np

from engine.cards import Card
from firmware.demo.photo_table import centred_on_border, fit_frame
from vision.drawn.camera_model import chroma_420, jpeg, lens_blur
from vision.live.camera_check import INDEX_PER_CARD
from vision.live.motion import WatchSettings
from vision.measure.datasets import Split, load_labels
from vision.measure.evaluate import evaluate
from vision.measure.photo_scale import (
    CARD_PER_INDEX_BOX,
    DEVICE_CARD_ROWS,
    EPFL_3000_CARD_HEIGHT,
    STREAM,
    card_height,
    widened,
)
from vision.recognise.detection import CameraRecogniser, recognise
from vision.recognise.frames import frame_size
from vision.recognise.imagefile import read_image

__all__ = ["EPFL", "EPFL_3000", "ROBOFLOW", "PHOTO_DATASETS", "STREAM", "PhotoGeometry",
           "Frame", "card_height", "widened", "camera", "device_frame", "target_heights",
           "photo_frames", "score", "measure", "curve", "frame_speed", "CARD_PX_CHOICES",
           "CARD_PER_INDEX_BOX", "EPFL_3000_CARD_HEIGHT", "DEVICE_CARD_ROWS"]

EPFL = "epfl-iapr2022-poker"
EPFL_3000 = "epfl-iapr2022-poker-3000"
ROBOFLOW = "roboflow-cardcounterml"
PHOTO_DATASETS = (EPFL, EPFL_3000, ROBOFLOW)
# The height curve reads cards taller than this share of 720 rows in a frame twice the size.
CURVE_DOUBLE_ABOVE = 100.0
RED = frozenset("HD")
CARD_PX_CHOICES = ("device", "frame", "label")


@dataclass(frozen=True, slots=True)
class PhotoGeometry:
    """``as-taken``, ``device:WxH`` or ``fit:WxH`` (see the module's docstring)."""

    kind: str
    size: tuple[int, int] | None = None

    @classmethod
    def parse(cls, text: str) -> PhotoGeometry:
        """The geometry a ``--geometry`` names; ``ValueError`` for one photos have not."""
        kind, _, size = text.partition(":")
        if kind == "as-taken" and not size:
            return cls(kind)
        if kind in ("device", "fit") and size:
            return cls(kind, frame_size(size))
        raise ValueError(f"{text!r}: photos take as-taken, device:WxH or fit:WxH")

    @property
    def name(self) -> str:
        return self.kind if self.size is None else f"{self.kind}:{self.size[0]}x{self.size[1]}"


class Frame(NamedTuple):
    """One photo made into a device frame: pixels, the labelled cards, the cards' height."""

    image: np.ndarray
    cards: frozenset[Card]
    card_px: float


def camera(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """What a small camera does to a frame, in the order the light meets it: lens blur
    (0.5-0.9 px), sensor noise (2-4 grey levels), 4:2:0 chroma, JPEG (quality 75-90).

    The noise is plain Gaussian, not ``camera_model.sensor_noise``'s shot noise: the frame
    is already a photo, whose own sensor's shot noise is in it."""
    out = lens_blur(image, sigma=float(rng.uniform(0.5, 0.9)))
    noisy = out.astype(np.float32) + rng.normal(0.0, float(rng.uniform(2, 4)), out.shape)
    return jpeg(chroma_420(noisy), quality=int(rng.integers(75, 91)))


def device_frame(photo: np.ndarray, scale: float, size: tuple[int, int]) -> np.ndarray:
    """The photo scaled by ``scale`` in the middle of a frame of ``size`` (grown to hold it)
    filled with the photo's median border colour."""
    h, w = photo.shape[:2]
    sw, sh = max(1, int(round(w * scale))), max(1, int(round(h * scale)))
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC
    return centred_on_border(cv2.resize(photo, (sw, sh), interpolation=interp), size)


def target_heights(n: int, low: float, high: float) -> list[float]:
    """Card heights spread evenly over [low, high] across n photos (golden-ratio steps)."""
    return [low + (high - low) * ((i * 0.6180339887) % 1.0) for i in range(n)]


def photo_frames(directory: Path, split: Split, geometry: PhotoGeometry, *,
                 heights: list[float] | float | None = None, degrade: bool = False
                 ) -> list[Frame]:
    """Every photo of a split made into a frame of ``geometry``: ``device`` with cards the
    height given (one for all, or one per photo), ``fit`` fitted whole (``heights`` unused)."""
    if geometry.size is None:
        raise ValueError("as-taken photos are read by vision.measure.evaluate, not as frames")
    items = load_labels(directory, split=split)
    per = heights if isinstance(heights, list) else [heights] * len(items)
    out = []
    for i, (item, height) in enumerate(zip(items, per, strict=False)):
        photo = widened(read_image(item.path), item.path.name)
        true_height = card_height(item, photo.shape, directory.name)
        if geometry.kind == "fit":
            frame = fit_frame(photo, geometry.size)
            ph, pw = photo.shape[:2]
            height = true_height * min(geometry.size[0] / pw, geometry.size[1] / ph)
        else:
            assert height is not None, "device frames need the cards' height"
            frame = device_frame(photo, height / true_height, geometry.size)
        if degrade:
            frame = camera(frame, np.random.default_rng(i))
        out.append(Frame(frame, item.cards, height))
    return out


def told_card_px(f: Frame, how: str) -> float | None:
    """The card height the recogniser is told (``--card-px``): ``device`` what the device
    expects of its frame size (``WatchSettings.card_fraction`` of its height), ``frame``
    none (the frame's own size sets the scale), ``label`` the photo's true card height."""
    if how == "frame":
        return None
    if how == "label":
        return f.card_px
    return float(WatchSettings().card_fraction * f.image.shape[0])


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


def measure(directory: Path, split: Split, geometry: PhotoGeometry, *, degrade: bool = False,
            card_px: str = "device", square_pixels: bool = False) -> dict[str, Any]:
    """One dataset's split read in one geometry."""
    if geometry.kind == "as-taken":
        out = evaluate(directory, split=split, square_pixels=square_pixels)
        out.pop("per_image")
        return out
    assert geometry.size is not None
    heights = None
    if geometry.kind == "device":
        per_row = geometry.size[1] / STREAM[1]
        low, high = (h * per_row for h in DEVICE_CARD_ROWS)
        heights = target_heights(len(load_labels(directory, split=split)), low, high)
    frames = photo_frames(directory, split, geometry, heights=heights, degrade=degrade)
    return score(frames, card_px=card_px)


def curve(directory: Path, split: Split, geometry: PhotoGeometry, heights: list[float], *,
          degrade: bool = False, card_px: str = "device") -> list[dict[str, Any]]:
    """Recall and precision against card height (and index height) on one split: every photo
    at each height, in a ``device`` frame of the geometry's size, or twice it for cards
    taller than 100 px per 720 rows (1280x720 up to 100 px, 2560x1440 above)."""
    if geometry.kind != "device" or geometry.size is None:
        raise ValueError("the height curve scales photos by their cards: use device:WxH")
    w, h = geometry.size
    rows = []
    for height in heights:
        size = (w, h) if height <= CURVE_DOUBLE_ABOVE * h / STREAM[1] else (2 * w, 2 * h)
        batch = photo_frames(directory, split, PhotoGeometry("device", size),
                             heights=float(height), degrade=degrade)
        rows.append({"card_px": height, "index_px": round(height * INDEX_PER_CARD, 1),
                     **score(batch, card_px=card_px)})
    return rows


def frame_speed(paths: list[Path], *, repeats: int = 3, each_frame: bool = False) -> float:
    """Median ms per 1280x720 frame on one core, frames made by resizing the photos to
    1280x720, read as the device reads its camera (``CameraRecogniser``: the blur measured
    once every 30 frames) or, with ``each_frame``, measuring each frame's blur as
    ``recognise`` alone does."""
    cv2.setNumThreads(1)
    frames = [cv2.resize(_imread(p), STREAM, interpolation=cv2.INTER_AREA) for p in paths]
    read = recognise if each_frame else CameraRecogniser()
    read(frames[0])  # load the model outside the timing
    times = []
    for _ in range(repeats):
        for f in frames:
            t = time.perf_counter()
            read(f)
            times.append((time.perf_counter() - t) * 1000)
    return round(statistics.median(times), 1)


def _imread(path: Path) -> np.ndarray:
    """The photo as ``cv2.imread`` reads it, as the frame speed always has."""
    image = cv2.imread(str(path))
    if image is None:
        raise FileNotFoundError(f"{path}: not an image OpenCV reads")
    return image
