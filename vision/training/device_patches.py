"""Real dev patches at the device's geometry, cut by the device's own candidate stage.

The networks learnt real indices from the dev photos as taken: cards 150-600 px tall, indices
sharp. The device sees the same cards 60-180 px tall (1280x720 to 2304x1296 under a Camera
Module 3 a metre up), through its lens, sensor and encoder, and enlarges them to a 180 px
card before cutting patches (``candidates.reading``): 5-8 px indices, enlarged and soft.
The test splits at that geometry read 0.83-0.94, far below the photos as taken.

So each dev photo is also made into device frames: scaled so its cards are 55-95 px tall
per 720 rows (by their labelled size, ``vision.measure.photo_scale``), turned, re-lit (an
exposure and contrast of a room, not of a photographer), laid on its own table colour in a
1280x720 or 2304x1296 frame, filmed by a calibrated camera model (``vision.drawn
.camera_model``: lens blur, Bayer mosaic, shot and read noise, demosaicking, the scaler, a
colour cast, and RGB, 4:2:0 or a webcam's JPEG), and read by ``find_candidates`` told the
card height the device expects, exactly as the device reads it. Candidates are mapped back
to the photo's pixels through the one affine that made the frame and labelled as
``harvest.py`` labels the photos as taken (by corner box, or by the photo's card set).
"""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

import cv2
import numpy as np

from engine.cards import Card
from vision.drawn.camera_model import CAMERA_MODULE_3, USB_WEBCAM, CameraModel, falloff_gain
from vision.live.motion import WatchSettings
from vision.measure.datasets import LabelledImage
from vision.measure.photo_scale import card_height, widening
from vision.recognise.candidates import find_candidates
from vision.training.harvest import Patches, label_by_boxes

__all__ = ["DEVICE_SIZES", "CARD_ROWS", "DeviceFrame", "device_frame", "harvest_device_boxes",
           "harvest_device_sets", "varied_camera", "relit"]

#: The frame sizes the device films (the stream and the recommended full-width mode).
DEVICE_SIZES = ((1280, 720), (2304, 1296))
#: Card heights per 720 rows: the device's 60-90 px (a table at 0.9-1.3 m), a little wider.
CARD_ROWS = (55.0, 95.0)


class DeviceFrame(NamedTuple):
    """A device frame made of a photo, and the affine from the frame back to the photo."""

    image: np.ndarray
    to_photo: np.ndarray
    card_px: float


def varied_camera(rng: np.random.Generator) -> CameraModel:
    """A camera like the device's, varied: the Camera Module 3 as RGB or a YUV stream, or a
    webcam's MJPEG; lens blur and noise spread around their calibrated values."""
    base = CAMERA_MODULE_3 if rng.random() < 0.75 else USB_WEBCAM
    encoding = base.encoding
    if base is CAMERA_MODULE_3:
        encoding = str(rng.choice(["rgb", "yuv420", "jpeg"], p=[0.5, 0.3, 0.2]))
    return replace(base, lens_blur=base.lens_blur * float(rng.uniform(0.6, 2.0)),
                   electrons=base.electrons * float(rng.uniform(0.5, 2.0)),
                   warmth=float(rng.uniform(-0.08, 0.1)), encoding=encoding,
                   jpeg_quality=int(rng.integers(70, 93)))


def relit(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The photo's light changed as a room changes it: exposure -1 to +1.5 EV (paper may
    clip, as it does under a bright lamp), and now and then contrast cut by up to half."""
    out: np.ndarray = image.astype(np.float32) * float(2.0 ** rng.uniform(-1.0, 1.5))
    if rng.random() < 0.25:
        mean = float(out.mean())
        out = (out - mean) * float(rng.uniform(0.5, 0.9)) + mean
    clipped: np.ndarray = np.clip(out, 0, 255)
    return clipped


def device_frame(photo: np.ndarray, *, widen: float, scale: float, angle: float,
                 size: tuple[int, int], rng: np.random.Generator) -> DeviceFrame:
    """``photo`` widened by ``widen`` (its pixels made square), scaled by ``scale``, turned by
    ``angle`` degrees about its middle and laid in the middle of a ``size`` frame of its own
    border colour, then filmed; with the affine from frame pixels back to the photo's."""
    h, w = photo.shape[:2]
    sw, sh = max(1, int(round(w * widen * scale))), max(1, int(round(h * scale)))
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC
    small = cv2.resize(photo, (sw, sh), interpolation=interp)
    to_small = np.array([[sw / w, 0, 0], [0, sh / h, 0], [0, 0, 1]], np.float64)
    turn = cv2.getRotationMatrix2D((sw / 2, sh / 2), angle, 1.0)
    turn[:, 2] += np.array([size[0] / 2 - sw / 2, size[1] / 2 - sh / 2])
    border = np.concatenate([small[0], small[-1], small[:, 0], small[:, -1]])
    fill = tuple(float(v) for v in np.median(border, axis=0))
    laid = cv2.warpAffine(small, turn, size, flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_CONSTANT, borderValue=fill)
    camera = varied_camera(rng)
    gain = falloff_gain(size, corner=float(rng.uniform(0, camera.falloff)))
    frame = camera.capture(relit(laid, rng), gain=gain, rng=rng)
    to_frame = np.vstack([turn, [0, 0, 1]]) @ to_small
    card_px = float(WatchSettings().card_fraction * size[1])
    return DeviceFrame(frame, np.linalg.inv(to_frame)[:2], card_px)


def _frames_of(item: LabelledImage, dataset: str, count: int, rng: np.random.Generator
               ) -> list[DeviceFrame]:
    photo = cv2.imread(str(item.path), cv2.IMREAD_COLOR)
    if photo is None:
        return []
    widen = widening(photo, item.path.name)
    wide_shape = (photo.shape[0], int(round(photo.shape[1] * widen)), 3)
    true_height = card_height(item, wide_shape, dataset)
    frames = []
    for _ in range(count):
        size = DEVICE_SIZES[int(rng.integers(len(DEVICE_SIZES)))]
        rows = float(rng.uniform(*CARD_ROWS)) * size[1] / 720
        # Half the frames turned anywhere; the rest near a side, as cards lie on a table.
        angle = (float(rng.uniform(-180, 180)) if rng.random() < 0.5
                 else 90.0 * int(rng.integers(4)) + float(rng.normal(0, 8)))
        frames.append(device_frame(photo, widen=widen, scale=rows / true_height, angle=angle,
                                   size=size, rng=rng))
    return frames


def harvest_device_boxes(images: list[LabelledImage], dataset: str, *, frames: int, seed: int
                         ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``harvest.harvest_boxes`` at the device's geometry: patches, labels, box ids."""
    rng = np.random.default_rng(seed)
    out = Patches()
    group = 0
    for item in images:
        if not item.corner_boxes:
            continue
        for f in _frames_of(item, dataset, frames, rng):
            cand = find_candidates(f.image, screen=False, card_px=f.card_px)
            label_by_boxes(out, cand, f.to_photo, item.corner_boxes, group)
            group += len(item.corner_boxes)
    return out.arrays()


def harvest_device_sets(images: list[LabelledImage], dataset: str, *, frames: int, seed: int
                        ) -> tuple[np.ndarray, np.ndarray, list[frozenset[Card]]]:
    """``harvest.harvest_sets`` at the device's geometry: patches, their photo, the sets."""
    rng = np.random.default_rng(seed)
    xs: list[np.ndarray] = []
    owner: list[np.ndarray] = []
    sets: list[frozenset[Card]] = []
    for item in images:
        k = len(sets)
        sets.append(item.cards)
        for f in _frames_of(item, dataset, frames, rng):
            cand = find_candidates(f.image, screen=False, card_px=f.card_px)
            xs.append(cand.patches)
            owner.append(np.full(len(cand), k, np.int64))
    if not xs:
        return np.zeros((0, 32, 32, 3), np.uint8), np.zeros(0, np.int64), sets
    return np.concatenate(xs), np.concatenate(owner), sets
