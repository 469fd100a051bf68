"""Debian's card themes laid on real tables and filmed at the device's geometry: index-finder
training frames whose every index, and which way it reads, is known (issue 62, item 1).

The finder learnt indices from the Roboflow photos' one deck design and the project's own
drawn decks. Debian's themes (``facedecks``: Paris, Dondorf, Tigullio, ...) print other
typefaces and corner layouts; these frames lay their faces, at any angle, on tables cut from
the fit photos' empty areas (``table_textures``: the felt, cloth and wood the dev sets were
taken on, at their own grain), on white and glossy tables now and then, under a lamp's glare,
and film them through the calibrated camera model (``device_patches``' camera, its light and
its frame sizes), cards 55-95 px per 720 rows as the device sees them. Only the themes'
training half is used: the held-out half keeps measuring decks no network met.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from engine.cards import Card
from vision.drawn.camera_model import falloff_gain
from vision.measure.datasets import LabelledImage
from vision.recognise.geometry import points_in_quad
from vision.training.device_patches import CARD_ROWS, DEVICE_SIZES, relit, varied_camera
from vision.training.facedecks import FaceDeck, SignedBox
from vision.training.finder import REGION_CARD_PX, SPAN_PER_BOX, Region, boxed_photos, shrunk_region

__all__ = ["TableTexture", "index_marks", "table_textures", "theme_frame", "theme_regions"]

# A photo's pixel is table, for sure, this many of its card heights from every labelled corner
# box's middle: a card reaches at most about its diagonal (1.2 heights) from its own index.
FREE_CARDS = 1.4
# A texture is cut as a square the first of these many card heights on a side that fits (the
# photos are crowded: most only leave a strip of table), at least ``TILE_MIN`` pixels, at most
# ``TILES_PER_PHOTO`` of them per photo.
TILE_CARDS = (2.0, 1.0, 0.6, 0.4)
TILE_MIN = 48
TILES_PER_PHOTO = 2
# Each frame's spread of cards: this many of them, over a square this many card heights wide.
CARDS_PER_FRAME = (3, 9)
SPREAD_CARDS = (2.5, 5.0)


@dataclass(frozen=True, slots=True)
class TableTexture:
    """An empty piece of a real table (BGR) and how tall a card is in its pixels."""

    image: np.ndarray
    card_px: float


def _free_tiles(shape: tuple[int, int], middles: np.ndarray, card: float, side: int
                ) -> list[tuple[int, int]]:
    """Top-left corners of ``side`` squares of a ``shape`` photo that lie ``FREE_CARDS`` card
    heights from every point in ``middles``."""
    h, w = shape
    out = []
    step = max(1, side // 4)
    for y in range(0, h - side + 1, step):
        for x in range(0, w - side + 1, step):
            # The square's nearest point to each middle.
            nx = np.clip(middles[:, 0], x, x + side)
            ny = np.clip(middles[:, 1], y, y + side)
            if np.all(np.hypot(nx - middles[:, 0], ny - middles[:, 1]) > FREE_CARDS * card):
                out.append((x, y))
    return out


def table_textures(images: Sequence[LabelledImage], dataset: str, *, seed: int
                   ) -> list[TableTexture]:
    """Empty table squares of the photos in ``images`` that have corner boxes (their cards are
    known to lie round those boxes and nowhere else)."""
    rng = np.random.default_rng(seed)
    out = []
    for item, photo, widen, card in boxed_photos(images, dataset):
        middles = np.array([[(b[0] + b[2]) / 2, (b[1] + b[3]) / 2] for _, b in item.corner_boxes],
                           np.float64)
        spots: list[tuple[int, int]] = []
        for cards in TILE_CARDS:
            side = int(cards * card)
            if side < TILE_MIN:
                break
            spots = _free_tiles(photo.shape[:2], middles, card, side)
            if spots:
                break
        for k in rng.permutation(len(spots))[:TILES_PER_PHOTO]:
            x, y = spots[int(k)]
            tile = photo[y:y + side, x:x + side]
            if widen != 1.0:
                tile = cv2.resize(tile, (int(round(side * widen)), side),
                                  interpolation=cv2.INTER_CUBIC)
            out.append(TableTexture(np.ascontiguousarray(tile), card))
    return out


def _table(textures: Sequence[TableTexture], size: tuple[int, int], card_px: float,
           rng: np.random.Generator) -> np.ndarray:
    """A float32 table ``size`` (w, h) big: a real texture at its cards' scale (reflected to
    fill), now and then bleached white or a plain glossy colour, with a lamp's glare."""
    w, h = size
    kind = rng.random()
    if textures and kind < 0.75:
        tex = textures[int(rng.integers(len(textures)))]
        factor = card_px / tex.card_px * float(2.0 ** rng.uniform(-0.5, 0.5))
        tile = cv2.resize(tex.image, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA
                          if factor < 1 else cv2.INTER_LINEAR)
        tile = np.rot90(tile, int(rng.integers(4)))
        th, tw = tile.shape[:2]
        table = cv2.copyMakeBorder(tile, 0, max(0, h - th), 0, max(0, w - tw),
                                   cv2.BORDER_REFLECT_101)[:h, :w].astype(np.float32)
        if rng.random() < 0.2:  # a white table: the same grain, faint, on near-white
            table = float(rng.uniform(190, 240)) + (table - table.mean()) * float(
                rng.uniform(0.1, 0.3))
    else:  # a plain laminate: any colour, fine grain
        colour = rng.uniform(30, 235, 3).astype(np.float32)
        table = np.empty((h, w, 3), np.float32)
        table[:] = colour
        table += rng.normal(0, rng.uniform(1, 6), (h, w, 1)).astype(np.float32)
    if rng.random() < 0.4:  # glare: the lamp's soft reflection, added light
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        sx, sy = rng.uniform(0.5, 3.0, 2) * card_px
        blob = np.exp(-(((xs - cx) / sx) ** 2 + ((ys - cy) / sy) ** 2) / 2)
        table += (float(rng.uniform(40, 160)) * blob)[..., None]
    return np.asarray(np.clip(table, 0, 255), np.float32)


def _lay(canvas: np.ndarray, face: np.ndarray, m: np.ndarray) -> None:
    """Draws the BGRA ``face`` onto ``canvas`` through the affine ``m`` (face -> canvas), with
    a faint soft shadow below and right of it."""
    h, w = canvas.shape[:2]
    alpha = cv2.warpAffine(face[..., 3], m, (w, h), flags=cv2.INTER_LINEAR).astype(np.float32)
    alpha *= 1.0 / 255.0
    shadow = cv2.GaussianBlur(alpha, (0, 0), 2.0)
    shadow = np.roll(shadow, (2, 2), axis=(0, 1))
    canvas *= (1.0 - 0.35 * shadow)[..., None]
    colour = cv2.warpAffine(face[..., :3], m, (w, h), flags=cv2.INTER_LINEAR).astype(np.float32)
    a = alpha[..., None]
    canvas *= 1.0 - a
    canvas += colour * a


def index_marks(boxes: Sequence[SignedBox], m: np.ndarray, face: tuple[int, int]
                ) -> list[tuple[np.ndarray, np.ndarray, float]]:
    """Where a face ``face`` (w, h) pixels big, laid through the affine ``m``, has its indices:
    each box's middle, its rank-to-suit direction (a unit vector: the card's down where the
    box reads upright, up where it reads turned) and its span, in the canvas's pixels."""
    fw, fh = face
    down = m[:, :2] @ np.array([0.0, 1.0])
    down /= float(np.hypot(*down))
    scale = float(np.sqrt(abs(np.linalg.det(m[:, :2]))))
    out = []
    for (x0, y0, x1, y1), sign in boxes:
        mid = m @ np.array([(x0 + x1) / 2 * fw, (y0 + y1) / 2 * fh, 1.0])
        span = SPAN_PER_BOX * scale * max((x1 - x0) * fw, (y1 - y0) * fh)
        out.append((mid, sign * down, span))
    return out


def theme_frame(deck: FaceDeck, textures: Sequence[TableTexture], rng: np.random.Generator
                ) -> tuple[np.ndarray, np.ndarray, float]:
    """One filmed device frame of ``deck``'s cards on a table: the frame (uint8 BGR), its
    indices as (n, 9) finder points (``finder.Region``; all axes and directions known) and
    the frame's card height in pixels."""
    size = DEVICE_SIZES[int(rng.integers(len(DEVICE_SIZES)))]
    card_px = float(rng.uniform(*CARD_ROWS)) * size[1] / 720
    height = max(8, int(round(card_px)))
    canvas = _table(textures, size, card_px, rng)
    spread = float(rng.uniform(*SPREAD_CARDS)) * card_px
    middle = np.array([rng.uniform(spread / 2 + card_px, size[0] - spread / 2 - card_px),
                       rng.uniform(min(spread / 2 + card_px, size[1] / 2),
                                   max(size[1] - spread / 2 - card_px, size[1] / 2))])
    picks = rng.choice(52, size=int(rng.integers(CARDS_PER_FRAME[0], CARDS_PER_FRAME[1] + 1)),
                       replace=False)
    quads: list[np.ndarray] = []
    marks: list[tuple[int, np.ndarray, np.ndarray, float]] = []  # card, middle, direction, span
    for k, pick in enumerate(picks):
        face = deck.face(Card.from_index(int(pick)), height)
        fh, fw = face.shape[:2]
        angle = float(rng.uniform(-180, 180)) if rng.random() < 0.6 else (
            90.0 * int(rng.integers(4)) + float(rng.normal(0, 8)))
        at = middle + rng.uniform(-spread / 2, spread / 2, 2)
        m = cv2.getRotationMatrix2D((fw / 2, fh / 2), angle, 1.0)
        m[:, 2] += at - np.array([fw / 2, fh / 2])
        _lay(canvas, face, m)
        quads.append(np.array([[0, 0, 1], [fw, 0, 1], [fw, fh, 1], [0, fh, 1]], np.float64)
                     @ m.T)
        marks += [(k, *mark) for mark in index_marks(deck.index_boxes, m, (fw, fh))]
    rows = []
    for k, mid, d, span in marks:
        inside = 0 <= mid[0] < size[0] and 0 <= mid[1] < size[1]
        covered = any(points_in_quad(mid[None], q)[0] for q in quads[k + 1:])
        if inside and not covered:
            a = math.atan2(d[1], d[0])
            rows.append([mid[0], mid[1], math.cos(2 * a), math.sin(2 * a), 1.0, span,
                         d[0], d[1], 1.0])
    camera = varied_camera(rng)
    gain = falloff_gain(size, corner=float(rng.uniform(0, camera.falloff)))
    frame = camera.capture(relit(canvas, rng), gain=gain, rng=rng)
    return frame, np.array(rows, np.float32).reshape(-1, 9), card_px


def theme_regions(decks: Sequence[FaceDeck], textures: Sequence[TableTexture], *, frames: int,
                  seed: int) -> list[Region]:
    """``frames`` theme frames (decks taken in turn), each cut to its cards and shrunk to the
    finder's scale."""
    if not decks:
        raise ValueError("theme_regions needs at least one rendered deck (facedecks.NO_THEMES)")
    rng = np.random.default_rng(seed)
    out = []
    for k in range(frames):
        image, points, card_px = theme_frame(decks[k % len(decks)], textures, rng)
        if len(points):
            keep = (float(points[:, 0].min() - card_px), float(points[:, 1].min() - card_px),
                    float(points[:, 0].max() + card_px), float(points[:, 1].max() + card_px))
        else:
            keep = None
        out.append(shrunk_region(image, points, REGION_CARD_PX / card_px, keep))
    return out
