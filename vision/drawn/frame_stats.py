"""What a frame's pixels say about the camera that made it: edge width, noise, chroma, ink.

A camera model is only as good as its agreement with a real camera, so these measure a
drawn frame and a real one the same way, and all but the index contrast with no labels:
they need not know where the cards are. Each is a pure function of the image.

- ``edge_width``: the median 10-90 % rise, in pixels, across strong step edges with a
  paper-bright side (a pip's or an index's edge, a card on a dark table) sampled along the
  gradient, each side flat; a Gaussian blur of sigma s over a
  pixel-sampled step at any angle reads about ``sqrt((2.563 s)**2 + 1.35**2)``
  (``sigma_of_edge_width`` inverts it).
- ``noise``: the standard deviation of flat 8x8 blocks (paper, plain table) after a
  plane is taken off each (the lamp's low-frequency shading); the blocks kept are those
  within 1.5x the flattest tenth, so grain and texture are left out and pure noise is not
  biased low; constant blocks (a fill, a block JPEG flattened) are not counted.
- ``chroma_width``: the same 10-90 % rise on the red-green chroma (Cr) at colour edges (red
  pips on white paper): about the luma's for full-resolution colour, wider by the 2-pixel
  chroma sampling after 4:2:0 (a 1.7 px rise becomes about 2.3) and wider still from a
  Bayer mosaic's demosaicking.
- ``blockiness``: mean step across the 8-pixel JPEG block grid over the mean step inside
  blocks (1.0 with no grid: an unencoded frame, or one scaled after encoding).
- ``index_contrast``: how dark a corner index's ink is against its paper, in boxes the
  caller knows (a drawn frame's truth, a dataset's labelled corner boxes): the one
  measurement that needs labels, since an index cannot be told from table grain without.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

__all__ = ["FrameStats", "RISE_PER_SIGMA", "EDGE_FLOOR", "edge_width", "sigma_of_edge_width",
           "noise", "chroma_width", "blockiness", "index_contrast", "box_quad", "frame_stats"]

#: The 10-90 % rise of a Gaussian edge in units of its sigma: 2 * 1.2816.
RISE_PER_SIGMA = 2.5631
#: The rise ``edge_width`` measures on a perfectly sharp step sampled by area at random
#: angles (the pixel's footprint along the gradient and the profile's bilinear sampling).
EDGE_FLOOR = 1.35
_REACH = 6.0  # how far along the gradient a profile is sampled, each side, px
_TAIL = 3.0  # profile samples beyond this distance are the edge's two flat sides
_STEP = 0.25  # profile sampling step, px
_MAX_EDGES = 3000  # edge points sampled per image (evenly, deterministically)


@dataclass(frozen=True, slots=True)
class FrameStats:
    """One frame's measurements (NaN where the frame had nothing to measure)."""

    edge_width: float  # px, 10-90 % rise of luma step edges
    edges: int  # how many edge profiles were used
    noise: float  # grey levels, flat blocks anywhere
    paper_noise: float  # grey levels, flat blocks brighter than 160
    chroma_width: float  # px, 10-90 % rise of Cr at colour edges
    blockiness: float  # across / inside the 8 px grid, 1.0 = no grid
    index_contrast: float  # share of the paper's brightness an index's ink takes away


def _grey(image: np.ndarray) -> np.ndarray:
    """The image's luma as float32."""
    if image.ndim == 2:
        return image.astype(np.float32)
    # Float frames (a drawing before its camera) are not rounded: rounding is noise too.
    source = (image if image.dtype == np.uint8
              else np.clip(image, 0, 255).astype(np.float32))
    grey: np.ndarray = cv2.cvtColor(source, cv2.COLOR_BGR2GRAY)
    return grey.astype(np.float32)


def _profile_widths(channel: np.ndarray, *, min_contrast: float, low: float, high: float,
                    min_bright: float = -1.0, max_edges: int = _MAX_EDGES) -> list[float]:
    """10-90 % rises of the step edges in ``channel`` (float32) whose two sides differ by
    at least ``min_contrast``, are each flat (spread under a fifth of the step) and whose
    bright side is at least ``min_bright``."""
    c8 = np.clip(channel, 0, 255).astype(np.uint8)
    edges = cv2.Canny(c8, low, high, L2gradient=True)
    ys, xs = np.nonzero(edges[8:-8, 8:-8])
    if len(ys) == 0:
        return []
    ys, xs = ys + 8, xs + 8
    if len(ys) > max_edges:
        pick = np.linspace(0, len(ys) - 1, max_edges).round().astype(int)
        ys, xs = ys[pick], xs[pick]
    smooth = cv2.GaussianBlur(channel, (0, 0), 1.0)
    gx = cv2.Sobel(smooth, cv2.CV_32F, 1, 0, ksize=3)[ys, xs]
    gy = cv2.Sobel(smooth, cv2.CV_32F, 0, 1, ksize=3)[ys, xs]
    mag = np.hypot(gx, gy)
    keep = mag > 1e-3
    ys, xs, ux, uy = ys[keep], xs[keep], gx[keep] / mag[keep], gy[keep] / mag[keep]
    t = np.arange(-_REACH, _REACH + _STEP / 2, _STEP, dtype=np.float32)
    map_x = (xs[:, None] + ux[:, None] * t[None, :]).astype(np.float32)
    map_y = (ys[:, None] + uy[:, None] * t[None, :]).astype(np.float32)
    prof = cv2.remap(channel, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    lo_side, hi_side = prof[:, t <= -_TAIL], prof[:, t >= _TAIL]
    lo, hi = np.median(lo_side, axis=1), np.median(hi_side, axis=1)
    step = hi - lo
    flat = (np.ptp(lo_side, axis=1) < 0.2 * step) & (np.ptp(hi_side, axis=1) < 0.2 * step)
    ok = (step >= min_contrast) & flat & (hi >= min_bright)
    widths = []
    centre = len(t) // 2
    for p, a, b in zip(prof[ok], lo[ok], step[ok], strict=True):
        width = _rise(((p - a) / b).astype(np.float64), centre)
        if width is not None:
            widths.append(width)
    return widths


def _rise(v: np.ndarray, centre: int) -> float | None:
    """The 10-90 % rise (px) of a normalised profile ``v``: from the half-way crossing
    nearest ``centre``, out to where it last passes 10 % below and first passes 90 %
    above; None when the profile has no such crossing (not a single edge)."""
    above = v >= 0.5
    cross = np.nonzero(above[1:] != above[:-1])[0]
    if len(cross) == 0:
        return None
    m = int(cross[np.argmin(np.abs(cross - centre))])
    lo_i = m
    while lo_i >= 0 and v[lo_i] > 0.1:
        lo_i -= 1
    hi_i = m + 1
    while hi_i < len(v) and v[hi_i] < 0.9:
        hi_i += 1
    if lo_i < 0 or hi_i >= len(v):
        return None
    # Linear interpolation between the samples each side of the two levels.
    x10 = lo_i + (0.1 - v[lo_i]) / (v[lo_i + 1] - v[lo_i])
    x90 = hi_i - 1 + (0.9 - v[hi_i - 1]) / (v[hi_i] - v[hi_i - 1])
    return float((x90 - x10) * _STEP)


def edge_width(image: np.ndarray, *, min_contrast: float = 60.0, min_bright: float = 160.0
               ) -> tuple[float, int]:
    """The median 10-90 % rise (px) of the luma's step edges of at least ``min_contrast``
    grey levels whose bright side is at least ``min_bright`` (paper: ink on a card, a card
    on a dark table), and how many edges it is the median of (NaN, 0 with none)."""
    widths = _profile_widths(_grey(image), min_contrast=min_contrast, low=40, high=100,
                             min_bright=min_bright)
    return (float(np.median(widths)) if widths else math.nan), len(widths)


def sigma_of_edge_width(width: float) -> float:
    """The Gaussian sigma (px) a 10-90 % rise of ``width`` stands for: ``EDGE_FLOOR`` (what
    a perfectly sharp step sampled by pixels at any angle measures) taken off in quadrature.
    Good to about 1.5 px; wider blurs outgrow the profile and read a little narrow."""
    return math.sqrt(max(0.0, width * width - EDGE_FLOOR * EDGE_FLOOR)) / RISE_PER_SIGMA


def noise(image: np.ndarray, *, block: int = 8, brighter_than: float = -1.0) -> float:
    """Grey-level noise: the median spread of the flat blocks (see the module's
    docstring), among blocks whose mean is above ``brighter_than``; NaN with none."""
    return _block_noise(_block_spreads(_grey(image), block), brighter_than)


_Blocks = tuple[np.ndarray, np.ndarray, np.ndarray, int] | None


def _block_spreads(g: np.ndarray, block: int) -> _Blocks:
    """Each ``block``-square tile of the luma ``g``: its spread once a plane is taken off,
    its mean, whether it says anything of the noise, and the block's side (None where the
    image holds no whole block)."""
    h, w = g.shape
    nby, nbx = h // block, w // block
    if nby == 0 or nbx == 0:
        return None
    tiles = g[: nby * block, : nbx * block].reshape(nby, block, nbx, block)
    blocks = tiles.transpose(0, 2, 1, 3).reshape(-1, block * block)
    yy, xx = np.mgrid[0:block, 0:block].astype(np.float32)
    design = np.stack([np.ones(block * block, np.float32), xx.ravel(), yy.ravel()], axis=1)
    coef, *_ = np.linalg.lstsq(design, blocks.T, rcond=None)
    resid = blocks - (design @ coef).T
    spread = resid.std(axis=1)
    # Blocks that clip say nothing of the noise. A constant block is a fill or a block an
    # encoder flattened: it says nothing of the sensor's noise.
    usable = (blocks.max(axis=1) < 250) & (blocks.min(axis=1) > 5) & (spread > 0.01)
    return spread, blocks.mean(axis=1), usable, block


def _block_noise(tiles: _Blocks, brighter_than: float) -> float:
    """``noise`` from ``_block_spreads``, among the blocks brighter than ``brighter_than``."""
    if tiles is None:
        return math.nan
    spread, means, usable, block = tiles
    usable = usable & (means > max(8.0, brighter_than))
    if usable.sum() < 4:
        return math.nan
    spread = spread[usable]
    floor = float(np.percentile(spread, 10))
    kept = spread[spread <= 1.5 * floor + 0.05]
    # Plane fitting takes 3 of the block's degrees of freedom.
    return float(np.median(kept)) * math.sqrt(block * block / (block * block - 3))


def chroma_width(image: np.ndarray, *, min_contrast: float = 25.0) -> tuple[float, int]:
    """The median 10-90 % rise (px) of the Cr chroma at colour edges, and their count."""
    if image.ndim != 3:
        return math.nan, 0
    ycrcb = cv2.cvtColor(np.clip(image, 0, 255).astype(np.uint8), cv2.COLOR_BGR2YCrCb)
    widths = _profile_widths(ycrcb[..., 1].astype(np.float32), min_contrast=min_contrast,
                             low=15, high=30)
    return (float(np.median(widths)) if widths else math.nan), len(widths)


def blockiness(image: np.ndarray) -> float:
    """Mean luma step across the 8 px grid over the mean step inside blocks, both axes."""
    g = _grey(image)
    dx = np.abs(np.diff(g, axis=1))
    dy = np.abs(np.diff(g, axis=0))
    cols = np.arange(dx.shape[1]) % 8 == 7
    rows = np.arange(dy.shape[0]) % 8 == 7
    across = float(dx[:, cols].mean() + dy[rows, :].mean())
    inside = float(dx[:, ~cols].mean() + dy[~rows, :].mean())
    return across / inside if inside > 0 else math.nan


def index_contrast(image: np.ndarray, quads: Sequence[np.ndarray]) -> float:
    """The median over ``quads`` (each 4 corners, frame pixels, clockwise from top-left: a
    corner index's box) of the ink's depth as a share of the paper: (paper - ink) / paper,
    the paper the 90th percentile of the box's grey, the ink its 3rd. NaN with no box.

    A thin stroke blurred over more pixels than its width loses depth first: this is what
    blur and small cards take from an index before the recogniser sees it."""
    g = _grey(image)
    depths = []
    for quad in quads:
        q = np.asarray(quad, np.float32).reshape(4, 2)
        w = max(3, int(round(float(np.linalg.norm(q[1] - q[0])))))
        h = max(3, int(round(float(np.linalg.norm(q[3] - q[0])))))
        dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
        patch = cv2.warpPerspective(g, cv2.getPerspectiveTransform(q, dst), (w, h),
                                    flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        paper, ink = np.percentile(patch, [90, 3])
        if paper > 0:
            depths.append(float((paper - ink) / paper))
    return float(np.median(depths)) if depths else math.nan


def box_quad(box: Sequence[float]) -> np.ndarray:
    """An axis-aligned (x0, y0, x1, y1) box as ``index_contrast``'s 4 corners."""
    x0, y0, x1, y1 = (float(v) for v in box)
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)


def frame_stats(image: np.ndarray, *, indices: Sequence[np.ndarray] = ()) -> FrameStats:
    """Every measurement of one frame; ``indices`` are its corner indices' quads, where
    known (``index_contrast``)."""
    width, count = edge_width(image)
    tiles = _block_spreads(_grey(image), 8)  # both noises from one fit of the blocks
    return FrameStats(edge_width=width, edges=count, noise=_block_noise(tiles, -1.0),
                      paper_noise=_block_noise(tiles, 160.0),
                      chroma_width=chroma_width(image)[0], blockiness=blockiness(image),
                      index_contrast=index_contrast(image, indices))
