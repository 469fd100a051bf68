"""A small network that finds corner indices in a region: the learned index finder (issue 62).

The classic candidate stage (``candidates``) finds an index only where its rank and suit clear
a contrast floor as two blobs; at the device's 1280x720 a third of the Roboflow test cards it
lost had no candidate pair at all, and an overexposed photo's red ranks bleach below the
floor. This network looks at the region instead: shrunk so a card is ``FINDER_CARD_PX`` tall,
it marks per cell of ``FINDER_STRIDE`` pixels how likely an index's middle lies there, the
axis it runs along (as the doubled angle: the dev photos' corner boxes, its training, tell
the axis, not which end is the rank), the middle's offset in the cell and the index's size.
Each peak becomes two (rank, suit) pairs, one each way along the axis; they are cut, screened
and named exactly as the classic pairs are, and the upside-down one reads as no index.

Weights: ``models/index_finder.onnx`` (``python -m vision.training.finder``). Runs through
onnxruntime on one thread, OpenCV's dnn where onnxruntime has no wheel, as ``classifier`` does.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision.recognise.classifier import first_output
from vision.recognise.frames import check_frame

__all__ = ["BAND_MARGIN", "BAND_ROWS", "FINDER_PATH", "FINDER_CARD_PX", "FINDER_STRIDE",
           "FINDER_THRESHOLD", "OUTPUTS",
           "NOMINAL_SPAN", "SPAN_PER_CARD", "INPUT_NAME", "OUTPUT_NAME", "FoundIndices",
           "IndexFinder", "FinderError", "load_finder", "new_pairs", "normalise",
           "DUPLICATE_SPAN"]

FINDER_PATH = Path(__file__).resolve().parent / "models" / "index_finder.onnx"
# The finder reads a region shrunk so a card is this tall: half ``candidates.CARD_READ_PX``,
# where an index is still 10-20 px and the network's cost a quarter of the read's.
FINDER_CARD_PX = 90.0
FINDER_STRIDE = 4
# Maps out: heat (logit), cos and sin of twice the axis angle (tanh), the middle's offset in
# cells (x, y), the log of the span over ``NOMINAL_SPAN``.
OUTPUTS = 6
# A card is 9.2 rank-to-suit spans tall (``detection.CARD_HEIGHT``).
SPAN_PER_CARD = 1.0 / 9.2
NOMINAL_SPAN = FINDER_CARD_PX * SPAN_PER_CARD
INPUT_NAME = "image"
OUTPUT_NAME = "maps"
# A peak this likely is an index middle (chosen on the validation fold).
FINDER_THRESHOLD = 0.5
# Peaks are the highest heat within this many cells either way.
PEAK_CELLS = 2
# Where the axis the network gives is shorter than this (it is unsure which way the index
# runs), the pairs across it are proposed too: the classifier takes a sideways pair for no
# index.
AXIS_SURE = 0.6
# A region taller than this many rows (at the finder's scale; whole cells) is run in bands of
# it, each seeing ``BAND_MARGIN`` rows more either way: the network sees 31 pixels (15 either
# side of a cell), so each band's own cells come out as the whole region's would, without the
# whole region's float copy and first layers held at once (a 2304x1296 table read in one go
# cost ``run`` 12.6 MB more peak RSS).
BAND_ROWS = 192
BAND_MARGIN = 24
# A card outline searched alone (``find_within``) is grown by this factor about its middle, and
# the finder sees the square of pixels round it: an index lies just inside the rim.
OUTLINE_MARGIN = 1.15
# A span never strays past these multiples of the nominal one (a card 55-165 px tall).
SPAN_RANGE = (0.5, 2.0)


class FinderError(ValueError):
    """Input the finder cannot read (a card height that sets no scale)."""


@dataclass(frozen=True, slots=True)
class FoundIndices:
    """Pairs the finder proposes, in the pixels of the image it was given: rank and suit
    points (n, 2), each pair's heat (n,)."""

    rank_xy: np.ndarray
    suit_xy: np.ndarray
    heat: np.ndarray

    def __len__(self) -> int:
        return int(self.heat.shape[0])

    def scaled(self, factor: float) -> FoundIndices:
        """The same pairs in an image resized by ``factor``."""
        f = np.float32(factor)
        return FoundIndices(self.rank_xy * f, self.suit_xy * f, self.heat)


def normalise(images: np.ndarray) -> np.ndarray:
    """BGR uint8 (n, h, w, 3) -> float32 NCHW in [-0.5, 0.5]: a region's own light, kept (the
    net learnt exposure from -1.5 to +1.5 EV)."""
    x = np.ascontiguousarray(images.transpose(0, 3, 1, 2)).astype(np.float32)
    x *= np.float32(1.0 / 255.0)
    x -= np.float32(0.5)
    return x


class IndexFinder:
    """The loaded finder: ``find(image, card_px)`` for the index pairs of a BGR region."""

    def __init__(self, run: Callable[[np.ndarray], np.ndarray], path: str,
                 threshold: float = FINDER_THRESHOLD, outlines_only: bool = False) -> None:
        self._run = run
        self.path = path
        self.threshold = threshold
        # Where the candidate stage is given card outlines not read whole (the device), search
        # only those (``find_within``) rather than the whole region.
        self.outlines_only = outlines_only

    def maps(self, image: np.ndarray) -> np.ndarray:
        """The raw (OUTPUTS, h / stride, w / stride) maps of a region already at the finder's
        scale."""
        check_frame(image, "IndexFinder")
        h, w = image.shape[:2]
        # Padded to whole cells so every cell sees the same pixels wherever the region lies.
        ph, pw = -h % FINDER_STRIDE, -w % FINDER_STRIDE
        if ph or pw:
            image = cv2.copyMakeBorder(image, 0, ph, 0, pw, cv2.BORDER_REPLICATE)
        h = image.shape[0]
        if h <= BAND_ROWS + 2 * BAND_MARGIN:
            return self._maps_of(image)
        bands = []
        for top in range(0, h, BAND_ROWS):
            start, stop = max(0, top - BAND_MARGIN), min(h, top + BAND_ROWS + BAND_MARGIN)
            first = (top - start) // FINDER_STRIDE
            cells = (min(h, top + BAND_ROWS) - top) // FINDER_STRIDE
            bands.append(self._maps_of(image[start:stop])[:, first:first + cells])
        return np.concatenate(bands, axis=1)

    def _maps_of(self, image: np.ndarray) -> np.ndarray:
        return np.asarray(np.asarray(self._run(normalise(image[None])))[0])

    def find(self, image: np.ndarray, card_px: float) -> FoundIndices:
        """The index pairs in a BGR ``image`` whose cards are ``card_px`` tall: two per peak
        (rank and suit either way along its axis), in ``image``'s pixels."""
        check_frame(image, "IndexFinder")
        if isinstance(card_px, bool) or not isinstance(card_px, (int, float)) \
                or not math.isfinite(card_px) or card_px <= 0:
            raise FinderError(f"card_px must be a positive number of pixels, not {card_px!r}")
        factor = FINDER_CARD_PX / float(card_px)
        small = image
        if abs(factor - 1.0) > 1e-3:
            size = (max(1, round(image.shape[1] * factor)), max(1, round(image.shape[0] * factor)))
            # Bilinear down to half size: area averaging cost 2.3 ms of a 2304x1296 region's
            # 4.5 here, bilinear 0.3, with the same cards read (val, device:2304x1296).
            small = cv2.resize(image, size, interpolation=cv2.INTER_AREA if factor < 0.5
                               else cv2.INTER_LINEAR)
        m = self.maps(small)
        heat = 1.0 / (1.0 + np.exp(-m[0]))
        side = 2 * PEAK_CELLS + 1
        top = cv2.dilate(heat, np.ones((side, side), np.uint8))
        ys, xs = np.nonzero((heat >= self.threshold) & (heat >= top))
        if ys.size == 0:
            z = np.zeros((0, 2), np.float32)
            return FoundIndices(z, z, np.zeros(0, np.float32))
        score = heat[ys, xs]
        cx = (xs + 0.5 + m[3, ys, xs]) * FINDER_STRIDE
        cy = (ys + 0.5 + m[4, ys, xs]) * FINDER_STRIDE
        c2, s2 = np.tanh(m[1, ys, xs]), np.tanh(m[2, ys, xs])
        angle = 0.5 * np.arctan2(s2, c2)
        span = NOMINAL_SPAN * np.clip(np.exp(m[5, ys, xs]), *SPAN_RANGE)
        centre = np.column_stack([cx, cy])
        unsure = np.hypot(c2, s2) < AXIS_SURE
        if unsure.any():
            angle = np.concatenate([angle, angle[unsure] + 0.5 * np.pi])
            span, centre = np.concatenate([span, span[unsure]]), np.concatenate(
                [centre, centre[unsure]])
            score = np.concatenate([score, score[unsure]])
        half = 0.5 * span[:, None] * np.column_stack([np.cos(angle), np.sin(angle)])
        back = np.float32(1.0 / factor)
        rank = np.concatenate([centre - half, centre + half]) * back
        suit = np.concatenate([centre + half, centre - half]) * back
        return FoundIndices(rank.astype(np.float32), suit.astype(np.float32),
                            np.concatenate([score, score]).astype(np.float32))


    def find_within(self, image: np.ndarray, card_px: float, outlines: Sequence[np.ndarray]
                    ) -> FoundIndices:
        """``find`` in each card outline ((4, 2) points in ``image``'s pixels) only, each cut
        square about its middle and grown by ``OUTLINE_MARGIN``: the device's search where a
        card's outline was found and no index read on it (issue 62, item 4)."""
        parts = []
        h, w = image.shape[:2]
        for outline in outlines:
            points = np.asarray(outline, np.float64).reshape(-1, 2)
            middle = points.mean(axis=0)
            grown = middle + OUTLINE_MARGIN * (points - middle)
            x0, y0 = np.maximum(np.floor(grown.min(axis=0)).astype(int), 0)
            x1, y1 = np.minimum(np.ceil(grown.max(axis=0)).astype(int), (w, h))
            if x1 - x0 < 2 or y1 - y0 < 2:
                continue
            got = self.find(image[y0:y1, x0:x1], card_px)
            shift = np.array([x0, y0], np.float32)
            parts.append(FoundIndices(got.rank_xy + shift, got.suit_xy + shift, got.heat))
        if not parts:
            z = np.zeros((0, 2), np.float32)
            return FoundIndices(z, z, np.zeros(0, np.float32))
        return FoundIndices(np.concatenate([p.rank_xy for p in parts]),
                            np.concatenate([p.suit_xy for p in parts]),
                            np.concatenate([p.heat for p in parts]))


@lru_cache(maxsize=2)
def load_finder(path: str = str(FINDER_PATH)) -> IndexFinder:
    """Loads the finder once per process; a missing file is an ``OSError``."""
    if not Path(path).is_file():
        raise OSError(f"index finder weights not found: {path}")
    return IndexFinder(first_output(path), path)


# A found pair whose middle lies within this many of its spans of a classic pair's middle is
# an index the classic stage cut already.
DUPLICATE_SPAN = 0.3


def new_pairs(found: FoundIndices, classic_mid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rank and suit points of the ``found`` pairs whose middles lie away from every
    classic pair's middle (``classic_mid``, (m, 2), the same pixels)."""
    if len(found) == 0 or len(classic_mid) == 0:
        return found.rank_xy, found.suit_xy
    mid = 0.5 * (found.rank_xy + found.suit_xy)
    span = np.hypot(*(found.suit_xy - found.rank_xy).T)
    keep = np.ones(len(found), bool)
    for start in range(0, len(classic_mid), 4096):
        block = classic_mid[start:start + 4096]
        d = np.hypot(mid[:, None, 0] - block[None, :, 0], mid[:, None, 1] - block[None, :, 1])
        keep &= ~np.any(d < DUPLICATE_SPAN * span[:, None], axis=1)
    return found.rank_xy[keep], found.suit_xy[keep]
