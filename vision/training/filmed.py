"""Training patches filmed through the calibrated camera at the device's card sizes.

The augmentation's own blur (a 3x3 Gaussian on a fifth of the patches, ``augment.py``) is a
guess at what a camera does. The device's camera is known instead (``vision.drawn
.camera_model``, calibrated against real frames): a patch is cut from a card 55-95 px tall
per 720 rows of a 1280x720 or 2304x1296 frame, so its 32 px square stood for 14-43 frame
pixels, which passed the lens, the Bayer sensor with its noise, demosaicking, the image
processor's scaler, a white balance that leaves a cast and the encoder, and were then
enlarged to a 180 px card (``candidates.reading``) before the patch was cut. ``film``
does exactly that to a patch: it shrinks it to those frame pixels, films it with a camera
model whose one sensor mode is the patch at the sensor's scale (so the calibrated lens blur,
noise and scaler act in the right pixels), and enlarges it back to 32 px.

Two things the device meets that the dev photos rarely show are made on purpose:
red indices bleached by overexposure (the light pushed up to 2.8x before the sensor clips, so
red ink's red channel saturates and the glyph goes pink-white against white paper: the
+1.5 EV losses of ``benchmarks/vision/robustness.py``), and blue casts (a cool white balance
under daylight or LED lamps, ``warmth`` down to -0.25).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.drawn.camera_model import CAMERA_MODULE_3, USB_WEBCAM, CameraModel

__all__ = ["FilmError", "Filming", "PATCH_CARD_SHARE", "film", "film_patches"]

#: A 32 px patch spans 2.5 rank-to-suit spans (``candidates.PATCH_HALF_SPAN``), about a
#: quarter of the card's height (45 px of a 180 px card as read).
PATCH_CARD_SHARE = 0.25
#: The device's frame sizes and card heights per 720 rows (``device_patches``).
FRAME_SIZES = ((1280, 720), (2304, 1296))
CARD_ROWS = (55.0, 95.0)


class FilmError(ValueError):
    """A filming setting no camera has."""


@dataclass(frozen=True, slots=True)
class Filming:
    """How a batch is filmed: ``share`` of its patches, ``bleach`` of those overexposed
    (light x 1.4-2.8 before the sensor), ``cool`` of those cast blue (warmth -0.25 to
    -0.05); the rest keep the camera's own cast."""

    share: float = 0.5
    bleach: float = 0.25
    cool: float = 0.25

    def __post_init__(self) -> None:
        for name in ("share", "bleach", "cool"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise FilmError(f"Filming.{name} is a share, 0 to 1, not {value!r}")


def _patch_camera(base: CameraModel, size: tuple[int, int], frame_px: int) -> CameraModel:
    """``base`` remade for a ``frame_px`` square cut from a ``size`` frame: its one sensor
    mode is that square at the sensor mode's scale, its lens blur the same in those pixels."""
    mode = base.sensor_mode(size)
    ratio = mode[0] / size[0]
    mode_px = max(frame_px, int(round(frame_px * ratio)))
    lens = base.lens_blur * mode[0] / max(m[0] for m in base.sensor_modes)  # mode pixels
    return replace(base, sensor_modes=((mode_px, mode_px),), lens_blur=lens)


def film(patch: np.ndarray, rng: np.random.Generator, *, frame_px: int,
         size: tuple[int, int] = (1280, 720), camera: CameraModel = CAMERA_MODULE_3,
         exposure: float = 1.0, warmth: float | None = None) -> np.ndarray:
    """``patch`` (uint8, square, BGR) as the device sees it when it stood for ``frame_px``
    pixels of a ``size`` frame filmed by ``camera``, light times ``exposure`` (clipped by
    the sensor, not before) and with white balance ``warmth`` (the camera's own if None),
    enlarged back to the patch's size."""
    if patch.ndim != 3 or patch.shape[0] != patch.shape[1] or patch.shape[2] != 3:
        raise FilmError(f"film wants a square BGR patch, not shape {patch.shape!r}")
    if not 4 <= frame_px <= 4 * patch.shape[0]:
        raise FilmError(f"frame_px must be 4 to {4 * patch.shape[0]}, not {frame_px!r}")
    if not 0.25 <= exposure <= 4.0:
        raise FilmError(f"exposure must be 0.25 to 4 times the light, not {exposure!r}")
    side = patch.shape[0]
    cam = _patch_camera(camera, size, frame_px)
    if warmth is not None:
        cam = replace(cam, warmth=warmth)
    interp = cv2.INTER_AREA if frame_px < side else cv2.INTER_CUBIC
    scene = cv2.resize(patch, (frame_px, frame_px), interpolation=interp).astype(np.float32)
    shot = cam.capture(scene * exposure, gain=None, rng=rng)
    out: np.ndarray = cv2.resize(shot, (side, side), interpolation=cv2.INTER_CUBIC)
    return out


def film_patches(x: np.ndarray, rng: np.random.Generator, filming: Filming
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The uint8 patches ``x`` (n, s, s, 3) with ``filming.share`` of them filmed at a random
    device card size, camera, exposure and cast; and the mask of those filmed."""
    n = x.shape[0]
    chosen: np.ndarray = np.asarray(rng.random(n) < filming.share)
    out = x.copy()
    for i in np.nonzero(chosen)[0].tolist():
        size = FRAME_SIZES[int(rng.integers(len(FRAME_SIZES)))]
        card = float(rng.uniform(*CARD_ROWS)) * size[1] / 720
        frame_px = max(4, int(round(PATCH_CARD_SHARE * card)))
        base = CAMERA_MODULE_3 if rng.random() < 0.75 else USB_WEBCAM
        camera = replace(base, lens_blur=base.lens_blur * float(rng.uniform(0.6, 2.0)),
                         electrons=base.electrons * float(rng.uniform(0.5, 2.0)))
        if base is CAMERA_MODULE_3:
            camera = replace(camera, encoding=str(rng.choice(["rgb", "yuv420", "jpeg"],
                                                             p=[0.5, 0.3, 0.2])))
        exposure = float(rng.uniform(1.4, 2.8)) if rng.random() < filming.bleach else float(
            rng.uniform(0.7, 1.2))
        warmth = (float(rng.uniform(-0.25, -0.05)) if rng.random() < filming.cool
                  else float(rng.uniform(-0.05, 0.1)))
        out[i] = film(x[i], rng, frame_px=frame_px, size=size, camera=camera,
                      exposure=exposure, warmth=warmth)
    return out, chosen
