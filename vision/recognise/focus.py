"""Defocus: how blurred a frame is, and the frame sharpened back when it is.

A camera a little out of focus (a Pi camera's fixed lens set for another height, a phone
that focused on the chips) softens every index until its thin strokes fall under the glyph
finder's contrast floor and rank and suit run together. Blurred by a Gaussian of 1.5 pixels
(of a 1067-pixel-high photo), the EPFL dev photos read 98 of 163 cards instead of 159
(vision/training/README.md, "Out-of-focus frames sharpened back"). Sharpening every frame
would not do: the focused Roboflow webcam photos lose cards to the halos (857 -> 700). So the
blur is measured first, and only a frame clearly softer than a focused photo is sharpened,
by an unsharp mask as wide as the blur it has beyond a focused photo's.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.recognise.candidates import working_scale
from vision.recognise.frames import check_frame

__all__ = [
    "REFERENCE_CARD_PX",
    "SHARP_SIGMA",
    "SHARPEN_FROM",
    "SHARPEN_BELOW",
    "SHARPENED_MIN_CONFIDENCE",
    "FocusMeter",
    "blur_sigma",
    "refocus",
    "sharpens",
]

# What a focused photo measures (working-scale pixels): the dev photos of both sets, as taken,
# measure 0.96-1.03 (EPFL) and 0.88-1.3 (Roboflow, whose webcam shots are soft).
SHARP_SIGMA = 0.99
# Frames measuring this or more are sharpened: dev as taken reads the same cards (at 1.15 the
# 18 softest Roboflow dev photos were, and lost 8); every EPFL dev photo blurred by 1.5 does.
SHARPEN_FROM = 1.3
# ... and read as they are from this blur up: sharpened that far, a small club reads as a spade
# (Roboflow dev blurred to 2.1-2.3 read five such cards, the drawn 10C of the tests 10S at 0.84
# from 2.1), where unsharpened they read nothing. Beyond it the camera needs focusing.
SHARPEN_BELOW = 2.0
# A sharpened frame names a card only this sure of it: below, its suit is a guess (a drawn 10C
# read 10S at 0.61 at 1.9; Roboflow dev blurred 1.35-1.9 read a JH and a 10H at 0.64-0.73 that
# are not there), where a focused frame's floor is
# vision.recognise.detection.DEFAULT_MIN_CONFIDENCE.
SHARPENED_MIN_CONFIDENCE = 0.8
# The unsharp mask's radius, per pixel of blur beyond a focused photo's, and how much of the
# difference it adds back: chosen on the dev photos blurred by 1 and 2 pixels (before the
# band and floor above: EPFL 146 -> 159 and 40 -> 122 cards, Roboflow 730 -> 856).
SHARPEN_RADIUS = 1.5
SHARPEN_AMOUNT = 3.0
# Edges are measured where the grey range within this share of the shorter side is at least
# MIN_EDGE levels: ink on paper, a card on the table, not the table's grain.
EDGE_WINDOW = 0.015
# ... or, where the cards' height is known, this share of a card's height: the same 16 pixels
# on the EPFL dev photos (1067 px high, cards about 160), and the same for a crop as its frame.
EDGE_WINDOW_CARDS = 0.1
MIN_EDGE = 60
# The sharpest edges decide (this quantile of gradient over range): most edges of a frame are
# turned, shaded or soft by nature, but a focused frame always has some crisp ones.
SHARPEST = 0.99
# Fewer edge pixels than this (a blank table) say nothing about focus.
MIN_EDGE_PIXELS = 50
# Where the cards' height is known (a mounted camera's ``card_px``), the blur is measured in a
# frame scaled so a card is at most this tall: the EPFL dev photos' cards at the working scale,
# where the thresholds above were set. A crop and its whole frame then measure the same, and
# a 4608x2592 camera's cards the same as a 2304x1296 camera's. Frames are never enlarged for
# it: interpolation adds a blur of its own that says nothing of the lens.
REFERENCE_CARD_PX = 160.0
# The blur is measured in bands of at least this many rows (``blur_sigma``).
FOCUS_BAND_ROWS = 256


def measuring_scale(shape: tuple[int, ...], card_px: float | None = None) -> float:
    """The factor a frame (or crop) of ``shape`` is scaled by before its blur is measured:
    cards brought to at most ``REFERENCE_CARD_PX`` where their height is known, else the
    recogniser's working scale (``vision.recognise.candidates.working_scale``), which
    depends on the image's size and so differs between a crop and its frame."""
    if card_px is None:
        return working_scale(shape)
    if not (math.isfinite(card_px) and card_px > 0):
        raise ValueError(f"card_px must be a card's height in pixels, not {card_px!r}")
    return min(1.0, REFERENCE_CARD_PX / card_px)


def _edge_histogram(grey: np.ndarray, kernel: np.ndarray, first: int, count: int
                    ) -> np.ndarray:
    """``blur_sigma``'s histogram of gradient over range at the edges of rows ``first`` to
    ``first + count`` of ``grey`` (the rows round them only give the window its reach)."""
    rows = slice(first, first + count)
    height = cv2.morphologyEx(grey, cv2.MORPH_GRADIENT, kernel)[rows]
    # Sobel's 3x3 derivative is 8 times the slope; a quarter of it, the central difference, is
    # twice the slope and never above the edge's height.
    dx = cv2.convertScaleAbs(cv2.Sobel(grey, cv2.CV_16S, 1, 0, ksize=3)[rows], alpha=0.25)
    dy = cv2.convertScaleAbs(cv2.Sobel(grey, cv2.CV_16S, 0, 1, ksize=3)[rows], alpha=0.25)
    ratio = cv2.divide(cv2.max(dx, dy), height, scale=255)
    edges = np.greater_equal(height, MIN_EDGE).view(np.uint8)
    return cv2.calcHist([ratio], [0], edges, [256], [0, 256]).ravel()


def blur_sigma(image: np.ndarray, *, card_px: float | None = None) -> float:
    """The frame's blur as a Gaussian's sigma in pixels at the measuring scale
    (``measuring_scale``: fixed by the cards' height ``card_px`` where known, else the
    recogniser's working scale); 0.0 when it shows no edge to measure.

    A step of height H blurred by sigma has its steepest slope at H / (sigma * sqrt(2 pi)), so
    the sharpest edges' slope over their height gives sigma, whatever their contrast. Costs
    about 2-3 ms on a 1280x720 frame on one core (all uint8 OpenCV passes).
    """
    check_frame(image, "blur_sigma")
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    scale = measuring_scale(image.shape, card_px)
    if scale < 1.0:
        grey = cv2.resize(grey, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    window = EDGE_WINDOW * min(grey.shape) if card_px is None else \
        EDGE_WINDOW_CARDS * card_px * scale
    side = max(5, int(window) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (side, side))
    # Measured in bands of rows, each with the rows round it that its window reaches, and the
    # bands' histograms added: the same counts as the whole frame's at once, without a whole
    # frame's worth of each working image (a 2304x1296 frame's came to about 25 MB at once,
    # every second on a bare table, on a 512 MB Pi Zero 2 W: ``benchmarks/device/rss.py``).
    rows, step, reach = grey.shape[0], max(4 * side, FOCUS_BAND_ROWS), side // 2 + 1
    hist = np.zeros(256, np.float32)
    for top in range(0, rows, step):
        lo, hi = max(0, top - reach), min(rows, top + step + reach)
        hist += _edge_histogram(grey[lo:hi], kernel, top - lo, min(step, rows - top))
    total = np.cumsum(hist)
    if total[-1] < MIN_EDGE_PIXELS:
        return 0.0
    slope = (int(np.searchsorted(total, SHARPEST * total[-1])) + 0.5) / 255.0 / 2.0
    return 1.0 / (math.sqrt(2.0 * math.pi) * slope)


def sharpens(sigma: float) -> bool:
    """Whether a frame of this ``blur_sigma`` is sharpened (and so held to the higher floor,
    ``SHARPENED_MIN_CONFIDENCE``) before it is read."""
    return SHARPEN_FROM <= sigma < SHARPEN_BELOW


def refocus(image: np.ndarray, sigma: float | None = None) -> np.ndarray:
    """``image`` itself when it is about as sharp as a focused photo or too blurred to sharpen
    safely, else a sharpened copy.

    ``sigma`` is the frame's ``blur_sigma`` when the caller has it (a camera's focus holds from
    one frame to the next, see ``FocusMeter``); None measures this frame.
    """
    if sigma is None:
        sigma = blur_sigma(image)
    if not sharpens(sigma):
        return image
    beyond = math.sqrt(sigma * sigma - SHARP_SIGMA * SHARP_SIGMA)
    radius = SHARPEN_RADIUS * beyond / working_scale(image.shape)
    soft = cv2.GaussianBlur(image, (0, 0), radius)
    return cv2.addWeighted(image, 1.0 + SHARPEN_AMOUNT, soft, -SHARPEN_AMOUNT, 0.0)


class FocusMeter:
    """A camera's blur, measured again every ``every`` frames rather than on each one.

    The lens's focus does not change between two frames, and measuring costs 2-3 ms of a
    frame's 25 ms budget; at 30 fps the default measures once a second, so a camera knocked
    out of focus is caught within a second. The device loop reads ``sigma`` and
    ``measurements`` to tell the players when the lens needs turning
    (``vision.live.focus_watch``).

    The device's stream reader (``vision.live.motion.StreamReader``) hands the meter every
    whole frame (``frame``), measured at the cards' fixed scale; the recogniser it calls on
    changed crops then asks the meter (``__call__``) and gets that frame's measure, never a
    crop's. A meter never handed a frame (a loop reading whole frames, a photo) counts the
    recogniser's calls as frames, as before.
    """

    def __init__(self, every: int = 30) -> None:
        if every < 1:
            raise ValueError(f"a focus meter measures every 1 frame or more, got {every}")
        self.every = every
        self._count = 0
        self._frames = 0
        self._sigma = 0.0
        self._measurements = 0

    def frame(self, image: np.ndarray, *, card_px: float | None = None) -> float:
        """One whole camera frame, whose cards are ``card_px`` tall where known: measured
        once every ``every`` frames (``due``)."""
        if self.due:
            self._sigma = blur_sigma(image, card_px=card_px)
            self._measurements += 1
        self._frames += 1
        return self._sigma

    @property
    def due(self) -> bool:
        """Whether the next whole frame handed to ``frame`` is measured: a caller that picks
        where in the frame to measure need pick only then."""
        return self._frames % self.every == 0

    @property
    def frames(self) -> int:
        """How many whole frames ``frame`` was handed."""
        return self._frames

    def __call__(self, image: np.ndarray) -> float:
        """The blur to read ``image`` with: the latest frame's where frames are handed to
        ``frame`` (``image`` is then a crop of one), else measured on ``image`` itself every
        ``every`` calls."""
        if self._frames:
            return self._sigma
        if self._count % self.every == 0:
            self._sigma = blur_sigma(image)
            self._measurements += 1
        self._count += 1
        return self._sigma

    @property
    def sigma(self) -> float:
        """The latest measure (0.0 before the first frame, or on a frame with no edges)."""
        return self._sigma

    @property
    def measurements(self) -> int:
        """How many frames have been measured: a watcher counts new measures by it."""
        return self._measurements
