"""What a real camera does to a table: the drawn table's lens, sensor and encoder.

A drawing of a table is crisp, evenly lit and as large as the artist likes; a
camera over a table is none of those, and a recogniser that reads the drawing
says little about the camera. ``CameraModel`` holds the few numbers that decide
what a camera makes of a table (field of view and mounting height, so cards get
their real size in pixels; lens blur, sensor noise, light falloff, colour cast,
encoding) and the effects below apply them, each a pure function of the image
(and of the ``rng`` given, for noise), so each can be measured on its own.

Card size. A lens of horizontal and vertical field of view ``hfov`` x ``vfov``
at height ``H`` over the table sees ``2 H tan(hfov/2)`` x ``2 H tan(vfov/2)``
of it, spread over the frame's pixels. A Camera Module 3 (standard lens,
66 x 41 degrees) at 1.0 m sees 1.30 x 0.75 m: at 1280x720 that is 1.04 mm a
pixel, so a poker card (63.5 x 88.9 mm) is 61 x 86 px and its corner index
(about 8 mm) 8 px tall; at 2304x1296 the same card is 110 x 154 px. One metre
is a lamp arm or shelf over the table: high enough to keep heads and hands
under it, low enough that the 66 degree lens still frames a card table.

Effect order follows the light: the table under its lamp, the hand's motion
during the exposure, the lens (blur, falloff), the sensor (a Bayer mosaic with
shot and read noise), the image processor (demosaicking, white balance that
leaves a cast, scaling to the frame size), then the encoder (none for the Pi
camera's RGB frames; 4:2:0 chroma for a YUV stream; JPEG for a webcam's MJPEG).

Left out: the image processor's own denoising and sharpening (the noise
figures stand for what is left after them), rolling shutter, flicker.

Calibrated against real frames of the same card height
(``benchmarks/vision/camera_calibration.py``, measured by ``vision.drawn.frame_stats``):
edge width, flat-paper noise, chroma width, JPEG blockiness, index contrast and recall.
The drawing is made at the frame's size, so the chain must add to it only what a camera
adds to a scene: before calibration the lens blur (0.7 px of the frame), a linear round
trip to the sensor mode and a heavy scaler made edges 2.7 px wide (10-90 %) at 1280x720,
against 1.5-1.6 in real frames, and the still drawn table read 0.64 of its cards against
0.98 for real photos at that card height; blur, not noise or the card art, was the gap.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np

__all__ = ["CameraModelError", "CameraModel", "CAMERA_MODULE_3", "USB_WEBCAM", "CAMERAS",
           "camera_named", "CARD_MM", "lens_blur", "sensor_noise", "mosaic", "demosaic",
           "scale_down", "chroma_420", "jpeg", "falloff_gain", "falloff", "uneven_gain",
           "colour_cast", "motion_blur", "moving_layer", "sharpness"]

_SLACK = 64  # how much larger than the sensor a noise field is, for random windows

#: A poker-size playing card, width and height in millimetres.
CARD_MM = (63.5, 88.9)


class CameraModelError(ValueError):
    """A camera setting no camera has."""


@dataclass(frozen=True, slots=True)
class CameraModel:
    """A camera over the table. Angles in degrees, lengths in metres, noise in grey levels
    (0-255), ``falloff`` and ``uneven`` as the share of light lost. ``lens_blur`` is the
    lens's point spread (a Gaussian's sigma) in pixels of the largest sensor mode, where the
    optics live: a frame of any size gets it scaled to its own pixels (``lens_sigma``).

    ``sensor_modes`` are the sensor's read-out sizes (a Camera Module 3: 2304x1296 binned,
    4608x2592 full): a frame is mosaicked, made noisy and demosaicked at the smallest mode
    that covers it, then scaled to its size, as the camera's image processor does; so a
    1280x720 frame averages away most of the mosaic's colour errors and noise, and a
    2304x1296 frame keeps them. ``electrons`` is the photo-electrons per grey level of a
    sensor-mode pixel at the exposure used: its shot noise is ``sqrt(level / electrons)``
    grey levels (2.5 at mid grey for 20), a small sensor in room light after its gain and
    its image processor's denoising (a binned Camera Module 3 pixel sums four 1.4 um
    photosites). Calibrated: 12 and 1.5 left paper 1.7 levels noisy at 1280x720 and 2.3 at
    2304x1296, where real frames of those card heights measure 1.3 and 1.8.
    ``warmth`` > 0 leaves the frame warm (red up, blue down by that share), < 0 cool.
    ``hand_speed`` (m/s) and ``exposure`` (s) make the smear of a moving hand.
    ``scaler_sigma`` is the image processor's scaler's anti-alias Gaussian per unit of the
    scaling ratio (calibrated: 0.45 with the lens blur before made the drawn frame's edges
    2.9 px wide, 10-90 %, at 1280x720 where real frames measure 1.5-1.6; 0.25 still averages
    a 1.8x scaling's noise to 0.55-0.75 of the sensor mode's, a good scaler's being 1/1.8).
    ``encoding``: "rgb" hands the processor's output over as it is (picamera2's RGB888,
    as the device asks for), "yuv420" subsamples chroma as a YUV420 stream does, "jpeg"
    encodes at ``jpeg_quality`` (a USB webcam's MJPEG, or frames stored as JPEG files).
    """

    name: str = "camera-module-3"
    hfov: float = 66.0
    vfov: float = 41.0
    height: float = 1.0
    lens_blur: float = 0.6
    electrons: float = 20.0
    read_noise: float = 1.2
    falloff: float = 0.15
    uneven: float = 0.15
    warmth: float = 0.06
    hand_speed: float = 0.5
    exposure: float = 1 / 50
    sensor_modes: tuple[tuple[int, int], ...] = ((2304, 1296), (4608, 2592))
    scaler_sigma: float = 0.25
    encoding: str = "rgb"
    jpeg_quality: int = 90

    def __post_init__(self) -> None:
        if not (10 <= self.hfov < 170 and 10 <= self.vfov < 170):
            raise CameraModelError(f"field of view must be 10 to 170 degrees, not "
                                   f"{self.hfov!r} x {self.vfov!r}")
        if not 0.2 <= self.height <= 5:
            raise CameraModelError(f"mounting height must be 0.2 to 5 m, not {self.height!r}")
        if self.lens_blur < 0 or self.electrons <= 0 or self.read_noise < 0:
            raise CameraModelError(
                f"need lens_blur >= 0, electrons > 0, read_noise >= 0, not {self.lens_blur!r}, "
                f"{self.electrons!r}, {self.read_noise!r}")
        if not (0 <= self.falloff < 1 and 0 <= self.uneven < 1 and -0.5 < self.warmth < 0.5):
            raise CameraModelError(f"need 0 <= falloff, uneven < 1 and |warmth| < 0.5, not "
                                   f"{self.falloff!r}, {self.uneven!r}, {self.warmth!r}")
        if not 1 <= self.jpeg_quality <= 100:
            raise CameraModelError(f"jpeg_quality must be 1 to 100, not {self.jpeg_quality!r}")
        if self.encoding not in ("rgb", "yuv420", "jpeg"):
            raise CameraModelError(f"encoding must be rgb, yuv420 or jpeg, not "
                                   f"{self.encoding!r}")
        if not 0 <= self.scaler_sigma <= 1:
            raise CameraModelError(f"scaler_sigma must be 0 to 1, not {self.scaler_sigma!r}")
        if not self.sensor_modes:
            raise CameraModelError("a camera needs at least one sensor mode")

    def sensor_mode(self, size: tuple[int, int]) -> tuple[int, int]:
        """The sensor read-out a frame of ``size`` is made from: the smallest that covers it
        (the largest when none does)."""
        covering = [m for m in self.sensor_modes if m[0] >= size[0] and m[1] >= size[1]]
        return min(covering) if covering else max(self.sensor_modes)

    def lens_sigma(self, size: tuple[int, int]) -> float:
        """The lens's blur in pixels of a frame of ``size``."""
        return self.lens_blur * size[0] / max(m[0] for m in self.sensor_modes)

    def field(self) -> tuple[float, float]:
        """The table area in view (width, height) in metres."""
        return (2 * self.height * math.tan(math.radians(self.hfov / 2)),
                2 * self.height * math.tan(math.radians(self.vfov / 2)))

    def card_fraction(self) -> float:
        """A card's height as a share of the frame's height, at any resolution."""
        return CARD_MM[1] / 1000 / self.field()[1]

    def mm_per_pixel(self, size: tuple[int, int]) -> float:
        """Millimetres of table a pixel covers at frame ``size`` (w, h) (the vertical figure)."""
        return 1000 * self.field()[1] / size[1]

    def card_pixels(self, size: tuple[int, int]) -> tuple[float, float]:
        """A card's width and height in pixels at frame ``size``."""
        mm = self.mm_per_pixel(size)
        return CARD_MM[0] / mm, CARD_MM[1] / mm

    def smear(self, size: tuple[int, int]) -> float:
        """How many pixels a moving hand travels during one exposure at frame ``size``."""
        return 1000 * self.hand_speed * self.exposure / self.mm_per_pixel(size)

    def noise_fields(self, size: tuple[int, int], rng: np.random.Generator, *, count: int = 2
                     ) -> tuple[np.ndarray, ...]:
        """Standard-normal fields a little larger than the sensor mode for ``size``: drawing
        a fresh one per frame was most of a frame's cost, so ``capture`` takes a window of
        one of these at a random offset instead."""
        w, h = self.sensor_mode(size)
        return tuple(rng.standard_normal((h + _SLACK, w + _SLACK), dtype=np.float32)
                     for _ in range(count))

    def capture(self, radiance: np.ndarray, *, gain: np.ndarray | None,
                rng: np.random.Generator, fields: tuple[np.ndarray, ...] = ()) -> np.ndarray:
        """The frame (uint8 BGR) a camera makes of ``radiance`` (float32 BGR, 0-255 scale):
        lens blur, ``gain`` (falloff and uneven light, made once per scene), the sensor's
        mosaic and noise at its read-out size, demosaicking, scaling to the frame's size,
        the colour cast, then the encoding. ``fields`` (``noise_fields``) stand in for
        fresh noise: a window of one, picked by ``rng``."""
        h, w = radiance.shape[:2]
        image = lens_blur(radiance, sigma=self.lens_sigma((w, h)))
        if gain is not None:
            image = image * gain[..., None]
        mode = self.sensor_mode((w, h))
        if mode != (w, h):
            # Cubic, not linear: the drawing is already at the frame's size, and a linear
            # round trip to the sensor and back blurred it by half a pixel more.
            image = cv2.resize(np.clip(image, 0, 255).astype(np.uint8), mode,
                               interpolation=cv2.INTER_CUBIC)
        normal = None
        if fields:
            field = fields[int(rng.integers(len(fields)))]
            dy, dx = (int(v) for v in rng.integers(0, _SLACK + 1, 2))
            normal = field[dy:dy + mode[1], dx:dx + mode[0]]
        raw = sensor_noise(mosaic(image), electrons=self.electrons, read_noise=self.read_noise,
                           rng=rng, normal=normal)
        out = demosaic(raw)
        if mode != (w, h):
            out = scale_down(out, (w, h), sigma=self.scaler_sigma)
        out = colour_cast(out, warmth=self.warmth)
        if self.encoding == "jpeg":
            return jpeg(out, quality=self.jpeg_quality)
        if self.encoding == "yuv420":
            return chroma_420(out)
        return out


#: The realistic default: a Raspberry Pi Camera Module 3 (IMX708, standard lens, 66 x 41
#: degrees) 1.0 m over the table, in room light, read as RGB888 as the device does. Its lens
#: blur, 0.6 px of the 4608x2592 sensor (1.4 um pixels), is an f/1.8 lens's diffraction
#: (0.3 px) with its aberrations and focus error, an MTF50 near 0.3 cycles a pixel: 0.17 px
#: of a 1280x720 frame. Calibrated against real frames of the same card height
#: (``benchmarks/vision/camera_calibration.py``; the 2026-11-27 figures are in
#: benchmarks/README.md): the drawn frame's edges were 2.9 px wide with 0.7 output px of
#: lens blur and a linear round trip through the sensor mode, against 1.5-1.6 real; 1.8 now.
CAMERA_MODULE_3 = CameraModel()
#: A 1080p USB webcam (a Logitech C920-class lens, 70 x 43 degrees) 1.0 m over the table,
#: its MJPEG stream at quality 80, one sensor mode at its own size. Calibrated against the
#: Roboflow set's webcam photos, its frames squashed to 640x640 as they were: lens blur
#: 0.45 px at 1920x1080 (0.8 made edges 1.77 px wide there, 0.45 makes them 1.57, the real
#: ones 1.46) and the little noise its denoising leaves (real: 0.3-0.6 levels on paper).
USB_WEBCAM = CameraModel(name="usb-webcam", hfov=70.4, vfov=43.3, lens_blur=0.45,
                         electrons=40.0, read_noise=0.8, sensor_modes=((1920, 1080),),
                         encoding="jpeg", jpeg_quality=80)
#: The camera models by name, for command lines.
CAMERAS = {"camera-module-3": CAMERA_MODULE_3, "usb-webcam": USB_WEBCAM}


def camera_named(name: str, *, height: float | None = None) -> CameraModel | None:
    """The camera model called ``name`` (``CAMERAS``), at ``height`` metres if given;
    "ideal" is None: the crisp drawing with no camera model."""
    if name == "ideal":
        return None
    if name not in CAMERAS:
        raise CameraModelError(f"no camera model {name!r}: choose from "
                               f"{', '.join([*CAMERAS, 'ideal'])}")
    camera = CAMERAS[name]
    return camera if height is None else replace(camera, height=height)


# -- the effects -------------------------------------------------------------------------------


def lens_blur(image: np.ndarray, *, sigma: float) -> np.ndarray:
    """The lens's point spread as a Gaussian of ``sigma`` pixels (none below 0.1 px)."""
    if sigma < 0.1:
        return image.copy()
    return cv2.GaussianBlur(image, (0, 0), sigma)


def mosaic(image: np.ndarray) -> np.ndarray:
    """The Bayer sensor's one colour per pixel (BGGR: blue at even rows and columns) of a
    BGR image: an (h, w) image of the same type. Odd sizes keep their last row/column."""
    h, w = image.shape[:2]
    out = np.empty((h, w), image.dtype)
    out[0::2, 0::2] = image[0::2, 0::2, 0]
    out[0::2, 1::2] = image[0::2, 1::2, 1]
    out[1::2, 0::2] = image[1::2, 0::2, 1]
    out[1::2, 1::2] = image[1::2, 1::2, 2]
    return out


def demosaic(raw: np.ndarray) -> np.ndarray:
    """A BGGR mosaic (any type; clipped to 0-255) back to uint8 BGR, edge-aware as an ISP."""
    raw8 = np.clip(raw, 0, 255).astype(np.uint8) if raw.dtype != np.uint8 else raw
    # OpenCV names Bayer patterns from the second row's second and third pixels: a BGGR
    # mosaic starting at (0, 0) is its "RG" pattern.
    return cv2.cvtColor(raw8, cv2.COLOR_BayerRG2BGR_EA)


def sensor_noise(image: np.ndarray, *, electrons: float, read_noise: float,
                 rng: np.random.Generator, normal: np.ndarray | None = None) -> np.ndarray:
    """Shot noise (Poisson as a Gaussian: variance ``level / electrons`` grey levels
    squared) plus read noise (``read_noise`` levels) on an image; returns float32,
    unclipped. ``normal`` (standard normal, the image's shape) replaces drawing from
    ``rng``."""
    level = np.maximum(image.astype(np.float32), 0)
    if normal is None:
        normal = rng.standard_normal(level.shape, dtype=np.float32)
    elif normal.shape != level.shape:
        raise CameraModelError(f"noise of shape {normal.shape!r} for an image of shape "
                               f"{level.shape!r}")
    sd = cv2.sqrt(cv2.addWeighted(level, 1 / electrons, level, 0, read_noise ** 2))
    return cast_f32(cv2.add(level, cv2.multiply(sd, normal)))


def cast_f32(image: np.ndarray) -> np.ndarray:
    """The image as float32 (no copy when it is already)."""
    return image.astype(np.float32, copy=False)


def colour_cast(image: np.ndarray, *, warmth: float) -> np.ndarray:
    """White balance that leaves a cast: red up and blue down by ``warmth`` (cool if < 0).
    Keeps the image's type (uint8 saturates at 255)."""
    gains: Any = (1 - warmth, 1.0, 1 + warmth, 0.0)  # a per-channel scalar (stubs lack it)
    out: np.ndarray = cv2.multiply(image, gains)
    return out


def scale_down(image: np.ndarray, size: tuple[int, int], *, sigma: float = 0.25
               ) -> np.ndarray:
    """The image processor's scaler: a Gaussian of ``sigma`` times the ratio against
    aliasing, then linear resampling.
    (OpenCV's area resampling at a 1.8 ratio took longer than the rest of a frame.)"""
    ratio = image.shape[1] / size[0]
    if ratio > 1:
        image = cv2.GaussianBlur(image, (0, 0), sigma * ratio)
    out: np.ndarray = cv2.resize(image, size, interpolation=cv2.INTER_LINEAR)
    return out


def chroma_420(image: np.ndarray) -> np.ndarray:
    """A YUV420 stream's colour: full-resolution brightness, colour at half in each axis."""
    img = np.clip(image, 0, 255).astype(np.uint8)
    h, w = img.shape[:2]
    even = img[: h - h % 2, : w - w % 2]
    out: np.ndarray = img.copy()
    yuv = cv2.cvtColor(even, cv2.COLOR_BGR2YUV_I420)
    out[: h - h % 2, : w - w % 2] = cv2.cvtColor(yuv, cv2.COLOR_YUV2BGR_I420)
    return out


def jpeg(image: np.ndarray, *, quality: int) -> np.ndarray:
    """The image through OpenCV's JPEG encoder and decoder at ``quality`` (4:2:0 chroma)."""
    img = np.clip(image, 0, 255).astype(np.uint8)
    ok, data = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise CameraModelError(f"JPEG encoding failed for an image of shape {img.shape!r}")
    decoded = cv2.imdecode(data, cv2.IMREAD_COLOR)
    if decoded is None:
        raise CameraModelError(f"JPEG decoding failed for an image of shape {img.shape!r}")
    return decoded


def falloff_gain(size: tuple[int, int], *, corner: float) -> np.ndarray:
    """The lens's light falloff (vignetting) as a gain image (h, w): 1 at the centre,
    ``1 - corner`` at the corners, falling with the square of the distance."""
    w, h = size
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    r2 = ((xx - (w - 1) / 2) ** 2 + (yy - (h - 1) / 2) ** 2) / (((w - 1) / 2) ** 2
                                                                 + ((h - 1) / 2) ** 2)
    return cast_f32(1 - corner * r2)


def falloff(image: np.ndarray, *, corner: float) -> np.ndarray:
    """``image`` with its corners ``corner`` darker than its centre (float32)."""
    h, w = image.shape[:2]
    gain = falloff_gain((w, h), corner=corner)
    return cast_f32(image * (gain[..., None] if image.ndim == 3 else gain))


def uneven_gain(size: tuple[int, int], *, amount: float, angle: float) -> np.ndarray:
    """Light from one side (a window, a lamp off to the side) as a gain image (h, w):
    1 on the bright side, ``1 - amount`` on the far side, across ``angle`` degrees."""
    w, h = size
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    a = math.radians(angle)
    along = (xx - w / 2) * math.cos(a) + (yy - h / 2) * math.sin(a)
    span = abs(w / 2 * math.cos(a)) + abs(h / 2 * math.sin(a))
    return cast_f32(1 - amount * (along / max(span, 1.0) + 1) / 2)


def motion_blur(image: np.ndarray, *, length: float, angle: float) -> np.ndarray:
    """A smear of ``length`` pixels along ``angle`` degrees: what moves during an exposure."""
    if length < 1:
        return image.copy()
    k = int(math.ceil(length)) | 1
    kernel = np.zeros((k, k), np.float32)
    c = k // 2
    a = math.radians(angle)
    half = (length - 1) / 2
    p0 = (round(c - half * math.cos(a)), round(c - half * math.sin(a)))
    p1 = (round(c + half * math.cos(a)), round(c + half * math.sin(a)))
    cv2.line(kernel, p0, p1, 1.0, 1)
    kernel /= kernel.sum()
    return cv2.filter2D(image, -1, kernel, borderType=cv2.BORDER_REFLECT)


def moving_layer(still: np.ndarray, moved: np.ndarray, mask: np.ndarray, *, length: float,
                 angle: float) -> np.ndarray:
    """``moved`` (``still`` with a thing drawn where ``mask``, uint8, is set: a hand) with
    the thing smeared ``length`` pixels along ``angle`` during the exposure, the table
    behind it sharp: the smeared thing covers each pixel for the share of the exposure it
    was there. Outside the mask ``moved`` is kept (a shadow the thing casts stays)."""
    if length < 1:
        return moved.copy()
    m = (mask.astype(np.float32) / 255)[..., None]
    v = moved.astype(np.float32)
    behind = v * (1 - m) + still.astype(np.float32) * m
    thing = motion_blur(v * m, length=length, angle=angle)
    cover = motion_blur(m[..., 0], length=length, angle=angle)[..., None]
    out: np.ndarray = np.clip(thing + behind * (1 - cover), 0, 255).astype(moved.dtype)
    return out


def sharpness(image: np.ndarray) -> float:
    """The variance of the grey image's Laplacian: higher is sharper."""
    grey = image if image.ndim == 2 else cv2.cvtColor(
        np.clip(image, 0, 255).astype(np.uint8), cv2.COLOR_BGR2GRAY)
    return float(cv2.Laplacian(grey.astype(np.float32), cv2.CV_32F).var())
