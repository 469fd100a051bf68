"""Real training patches from the DEV split only: run the candidate stage, label by the boxes.

Roboflow photos carry corner-index boxes: a candidate whose rank and suit
centroids both fall in one (slightly grown) box is that card's index, if its
rank-to-suit direction agrees with the box's long side; a candidate with both
centroids far from every box is "not an index"; anything in between is left
out. Each photo is also used turned by a random angle and rescaled, so the
classifier sees every orientation of every real index.
"""

from __future__ import annotations

from typing import cast

import cv2
import numpy as np

from engine.cards import Card
from vision.measure.datasets import LabelledImage
from vision.recognise.candidates import IndexCandidates, find_candidates
from vision.recognise.classifier import RANKS, SUITS


def card_labels(card: Card) -> tuple[int, int]:
    return RANKS.index(card.rank), SUITS.index(card.suit)


def _turn(image: np.ndarray, angle: float, scale: float) -> tuple[np.ndarray, np.ndarray]:
    h, w = image.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, scale)
    cos, sin = abs(m[0, 0]), abs(m[0, 1])
    nw, nh = int(h * sin + w * cos), int(h * cos + w * sin)
    m[0, 2] += nw / 2 - w / 2
    m[1, 2] += nh / 2 - h / 2
    out = cv2.warpAffine(image, m, (nw, nh), borderMode=cv2.BORDER_REFLECT)
    return out, cv2.invertAffineTransform(m)


class Patches:
    """Patches with (rank, suit) labels (13 / 4 = not an index) and box ids (-1 for
    negatives), gathered photo by photo."""

    def __init__(self) -> None:
        self.xs: list[np.ndarray] = []
        self.rs: list[int] = []
        self.ss: list[int] = []
        self.gs: list[int] = []

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        if not self.xs:
            z = np.zeros(0, np.int64)
            return np.zeros((0, 32, 32, 3), np.uint8), z, z, z
        return (np.stack(self.xs), np.array(self.rs, np.int64), np.array(self.ss, np.int64),
                np.array(self.gs, np.int64))


def label_by_boxes(out: Patches, cand: IndexCandidates, inv: np.ndarray,
                   corner_boxes: tuple[tuple[Card, tuple[float, float, float, float]], ...],
                   group0: int) -> None:
    """Adds ``cand`` (found in an image that ``inv`` maps back to the labelled photo's
    pixels) to ``out``: a candidate whose rank and suit centroids both fall in one (slightly
    grown) corner box is that card's index, if its rank-to-suit direction agrees with the
    box's long side; one with both far from every box is "not an index"; the rest are left
    out. Box ``k`` gets id ``group0 + k``."""
    if len(cand) == 0:
        return
    boxes = np.array([b for _, b in corner_boxes], np.float32)
    cards = [c for c, _ in corner_boxes]
    bw = boxes[:, 2] - boxes[:, 0]
    bh = boxes[:, 3] - boxes[:, 1]

    def back(p: np.ndarray) -> np.ndarray:
        return cast(np.ndarray, p @ inv[:, :2].T + inv[:, 2])

    r0, s0 = back(cand.rank_xy), back(cand.suit_xy)
    d = s0 - r0
    d /= np.maximum(np.hypot(d[:, 0], d[:, 1]), 1e-6)[:, None]

    def inside(p: np.ndarray, grow: float) -> np.ndarray:
        return (
            (p[:, None, 0] >= boxes[None, :, 0] - grow * bw)
            & (p[:, None, 0] <= boxes[None, :, 2] + grow * bw)
            & (p[:, None, 1] >= boxes[None, :, 1] - grow * bh)
            & (p[:, None, 1] <= boxes[None, :, 3] + grow * bh)
        )

    both = inside(r0, 0.15) & inside(s0, 0.15)
    near = inside(r0, 0.5) | inside(s0, 0.5)
    for i in range(len(cand)):
        hits = np.nonzero(both[i])[0]
        if hits.size:
            k = hits[0]
            # The index runs along the box's long side; a sideways pair (the
            # "1" and "0" of a ten) is not the index read upright.
            tall = bh[k] >= bw[k]
            along = abs(d[i, 1]) if tall else abs(d[i, 0])
            if abs(bh[k] - bw[k]) > 0.25 * max(bh[k], bw[k]) and along < 0.6:
                continue
            r, s = card_labels(cards[k])
            g = group0 + int(k)
        elif not near[i].any():
            r, s, g = 13, 4, -1
        else:
            continue
        out.xs.append(cand.patches[i])
        out.rs.append(r)
        out.ss.append(s)
        out.gs.append(g)


def harvest_boxes(
    images: list[LabelledImage], *, turns: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Patches, (rank, suit) labels (13 / 4 = not an index) and box ids (-1 for negatives).

    Candidates sharing a box id lie in the same corner box of the same (turned) photo:
    at most a few of them are the index read upright, the caller picks which.
    """
    rng = np.random.default_rng(seed)
    out = Patches()
    next_group = 0
    for li in images:
        if not li.corner_boxes:
            continue
        original = cv2.imread(str(li.path))
        if original is None:
            continue
        for t in range(turns + 1):
            if t == 0:
                image, inv = original, np.array([[1, 0, 0], [0, 1, 0]], np.float64)
            else:
                image, inv = _turn(original, rng.uniform(-180, 180), rng.uniform(0.8, 1.3))
                image = np.clip(image * rng.uniform(0.6, 1.3) + rng.uniform(-30, 30), 0, 255)
                image = image.astype(np.uint8)
            cand = find_candidates(image, screen=False)
            label_by_boxes(out, cand, inv, li.corner_boxes, next_group)
            next_group += len(li.corner_boxes)
    return out.arrays()


def harvest_sets(
    images: list[LabelledImage], *, turns: int, seed: int
) -> tuple[np.ndarray, np.ndarray, list[frozenset[Card]]]:
    """All candidate patches of photos labelled only with their card sets (no boxes).

    Returns patches, the photo number of each patch, and each photo's card set;
    ``train.py`` names the patches with a model restricted to that set.
    """
    rng = np.random.default_rng(seed)
    xs: list[np.ndarray] = []
    owner: list[np.ndarray] = []
    sets: list[frozenset[Card]] = []
    for li in images:
        original = cv2.imread(str(li.path))
        if original is None:
            continue
        k = len(sets)
        sets.append(li.cards)
        for t in range(turns + 1):
            image = original
            if t:
                image, _ = _turn(original, rng.uniform(-180, 180), rng.uniform(0.7, 1.2))
                image = np.clip(image * rng.uniform(0.6, 1.3) + rng.uniform(-30, 30), 0, 255)
                image = image.astype(np.uint8)
            cand = find_candidates(image, screen=False)
            xs.append(cand.patches)
            owner.append(np.full(len(cand), k, np.int64))
    if not xs:
        return np.zeros((0, 32, 32, 3), np.uint8), np.zeros(0, np.int64), sets
    return np.concatenate(xs), np.concatenate(owner), sets
