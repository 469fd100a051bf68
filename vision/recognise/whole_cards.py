"""Finds whole, unoccluded cards by their outline and reads both corner indices.

A card lying free on the table is a bright, paper-white quadrilateral with the
proportions of a card (63 x 88 mm, bridge 57 x 89). For each one found, the
card is warped to a canonical upright rectangle, white-balanced on its own
paper (room light becomes irrelevant), and the ink blobs in the top-left
corner and in the bottom-right corner (the top-left of the card turned 180
degrees) are paired and named by the same corner-index CNN as the index path.
Only a card whose readable corners agree is named; a card with no readable
index (a card back, a blank sheet) is not reported at all.

Cards that touch or overlap do not form one clean quadrilateral and are left
to the corner-index path (``vision.recognise.candidates``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import cv2
import numpy as np

from engine.cards import Card
from vision.recognise.candidates import channel_extremes, check_card_px, extract_patches
from vision.recognise.geometry import points_in_quad

__all__ = ["CardQuad", "find_card_quads", "corner_patches", "CANON_W", "CANON_H"]

# Canonical warp size (pixels) of a card, long side vertical.
CANON_W = 160
CANON_H = 224
# Quad search runs with the frame's shorter side at most this many pixels.
QUAD_SHORT_SIDE = 288
# Card area as a fraction of the frame, and its long/short side ratio.
MIN_AREA = 0.002
MAX_AREA = 0.35
# Where a card's height is known (``card_px``) the search runs with a card this tall (what a
# frame 288 px high makes of a card an eighth of its height, the device's expectation), and
# a card is from half to twice that tall, as ``vision.live.motion.StreamReader`` counts a card
# physical: a crop round one card and the whole frame are searched alike.
QUAD_CARD_PX = 36.0
CARD_SIZES = (0.5, 2.0)
# The card's area over its height squared (a poker card is 63 x 88 mm).
CARD_AREA_PER_HEIGHT2 = 63 / 88
# The local threshold's window: a share of the frame's shorter side, or (card_px known)
# that many cards, what the share is on a frame of cards an eighth of its height.
LOCAL_WINDOW = 0.35
LOCAL_WINDOW_CARDS = LOCAL_WINDOW * 8
MIN_ASPECT = 1.22
MAX_ASPECT = 1.7
# A card's blob fills its enclosing rectangle (rounded corners, slight perspective).
MIN_FILL = 0.86
# A quad holding the centres of two quads whose areas are within this band of fractions
# of its own is a union of two cards lying close, not a card.
UNION_AREA = (0.3, 0.7)
# Margin around the card in the canonical canvas, as a fraction of its size.
MARGIN = 0.03
# Ink: darker in its darkest channel than the mean of the window around it (canonical
# pixels, about two glyphs) by this many grey levels, and never lighter than the ceiling.
INK_WINDOW = 31
INK_CONTRAST = 25
INK_CEILING = 215
# Corner region searched for the index, as fractions of the canonical card, and the
# tallest glyph in canonical pixels. A wider, taller search would take in the pips and
# court frames of ordinary decks; it is made only on a card where this one finds no
# index at either corner, for jumbo-index decks (rank a fifth of the card's height).
CORNER_W = 0.30
CORNER_H = 0.36
MAX_GLYPH_PX = 34
JUMBO_CORNER_W = 0.34
JUMBO_CORNER_H = 0.46
JUMBO_MAX_GLYPH_PX = 44
# The smallest glyph, canonical pixels.
MIN_GLYPH_PX = 6


@dataclass(frozen=True, slots=True)
class CardQuad:
    """A card-shaped quadrilateral: four frame points, clockwise, the first two on a short side."""

    corners: np.ndarray  # (4, 2) float32


def _order_clockwise(pts: np.ndarray) -> np.ndarray:
    c = pts.mean(axis=0)
    ang = np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0])
    pts = pts[np.argsort(ang)]  # clockwise in image coordinates (y down)
    # Start on a short side: side 0-1 shorter than side 1-2.
    if np.hypot(*(pts[1] - pts[0])) > np.hypot(*(pts[2] - pts[1])):
        pts = np.roll(pts, -1, axis=0)
    return pts.astype(np.float32)


def _quads_in_mask(mask: np.ndarray, inv: float, areas: tuple[float, float], *,
                   grow: float = 0.0, mode: int = cv2.RETR_EXTERNAL) -> list[np.ndarray]:
    contours, _ = cv2.findContours(mask, mode, cv2.CHAIN_APPROX_SIMPLE)
    out = []
    for c in contours:
        if len(c) < 4:
            continue
        hull = cv2.convexHull(c)
        hull_area = cv2.contourArea(hull)
        if not areas[0] <= hull_area <= areas[1]:
            continue
        rect = cv2.minAreaRect(hull)
        (rw, rh) = rect[1]
        if min(rw, rh) < 8:
            continue
        aspect = max(rw, rh) / min(rw, rh)
        # The hull fills the card's rectangle; pips printed near the edge may notch
        # the blob itself, so the blob need only fill most of its hull.
        if not MIN_ASPECT <= aspect <= MAX_ASPECT or hull_area < MIN_FILL * rw * rh:
            continue
        if cv2.contourArea(c) < 0.75 * hull_area:
            continue
        # The rectangle, not a polygon fit: an index printed near a corner can
        # cut that corner off the blob.
        rect = (rect[0], (rw + grow, rh + grow), rect[2])
        out.append(_order_clockwise(cv2.boxPoints(rect).astype(np.float32)) * inv)
    return out


def find_card_quads(image: np.ndarray, *, card_px: float | None = None) -> list[CardQuad]:
    """Finds bright card-shaped quadrilaterals in a BGR frame (frame pixel coordinates).

    ``card_px`` is a card's height in the frame's pixels where the caller knows it: the search
    then runs at the cards' scale and looks for cards of about that size, whatever the frame's
    size; otherwise card sizes are shares of the frame.
    """
    h, w = image.shape[:2]
    short = min(h, w)
    if card_px is not None:
        card_px = check_card_px(card_px)
        scale = min(1.0, QUAD_CARD_PX / card_px)
        card = CARD_AREA_PER_HEIGHT2 * (card_px * scale) ** 2
        areas = (CARD_SIZES[0] ** 2 * card, CARD_SIZES[1] ** 2 * card)
        win = max(31, int(LOCAL_WINDOW_CARDS * card_px * scale) | 1)
    else:
        scale = min(1.0, QUAD_SHORT_SIDE / short)
        frame_area = float(round(w * scale) * round(h * scale))
        areas = (MIN_AREA * frame_area, MAX_AREA * frame_area)
        win = max(31, int(short * scale * LOCAL_WINDOW) | 1)
    small = _shrink(image, (round(w * scale), round(h * scale))) if scale < 1.0 else image
    lo, hi = channel_extremes(small)
    # Paper is bright in every channel and barely coloured.
    white = cv2.subtract(lo, cv2.subtract(hi, lo))
    white = cv2.GaussianBlur(white, (3, 3), 0)
    masks = []
    t, m = cv2.threshold(white, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    masks.append(m)
    # A local threshold for tables nearly as light as the cards.
    mean = cv2.blur(white, (win, win))
    masks.append(np.where(white.astype(np.int16) > mean.astype(np.int16) + 12, 255, 0)
                 .astype(np.uint8))
    kernel = np.ones((3, 3), np.uint8)
    # On a table nearly as white as the cards only the card's edge shows: the
    # regions that edges enclose.
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    edges = cv2.dilate(cv2.Canny(cv2.GaussianBlur(grey, (3, 3), 0), 30, 90), kernel)
    found: list[list[np.ndarray]] = [
        _quads_in_mask(cv2.morphologyEx(m, cv2.MORPH_OPEN, kernel), 1.0 / scale, areas)
        for m in masks
    ]
    found.append(_quads_in_mask(255 - edges, 1.0 / scale, areas, grow=3.0, mode=cv2.RETR_LIST))
    quads: list[np.ndarray] = []
    for group in found:
        for q in group:
            c = q.mean(axis=0)
            size = np.hypot(*(q[2] - q[0]))
            if all(np.hypot(*(c - o.mean(axis=0))) > 0.2 * size for o in quads):
                quads.append(q)
    # The paper mask again, unopened: opening wipes out the thin paper frame round a court
    # picture that fills the card, and the card with it. Unopened it also shows corners of
    # paper that a big index cuts off a card, so it only adds quads outside those found.
    for q in _quads_in_mask(masks[0], 1.0 / scale, areas):
        if not any(points_in_quad(q.mean(axis=0), o)[0] for o in quads):
            quads.append(q)
    return [CardQuad(q) for q in _without_unions(quads)]


def _shrink(image: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Area-averaged halvings, then one bilinear step of less than two: about what one area
    resize gives, in a fifth of its time (0.5 against 2.6 ms from 1280x720 to 512x288),
    since OpenCV's area resize is fast only for whole factors.
    """
    while image.shape[1] >= 2 * size[0] and image.shape[0] >= 2 * size[1]:
        image = cv2.resize(image, (image.shape[1] // 2, image.shape[0] // 2),
                           interpolation=cv2.INTER_AREA)
    return cv2.resize(image, size, interpolation=cv2.INTER_LINEAR)


def _without_unions(quads: list[np.ndarray]) -> list[np.ndarray]:
    """Drops quads that enclose the centres of two or more quads of about half their area.

    Two cards laid side by side with a narrow gap can merge into one blob with a
    card's proportions (two 63 x 88 mm cards make 126 x 88, aspect 1.43); when
    the cards themselves are also found, the merged quad is not a card. The quads
    are distinct ones (one per card, however many masks found it), and a court
    card's printed frame, inside it, is only one.
    """
    if len(quads) < 3:
        return quads
    centres = np.array([q.mean(axis=0) for q in quads], np.float64)
    areas = np.array([abs(cv2.contourArea(q)) for q in quads])
    low, high = UNION_AREA
    return [q for q, area in zip(quads, areas, strict=True)
            if np.count_nonzero(points_in_quad(
                centres[(areas > low * area) & (areas < high * area)], q)) < 2]


def _warp(image: np.ndarray, corners: np.ndarray) -> np.ndarray:
    # The quad's corners map a little inside the canvas: an index printed close to
    # the card's edge then never touches the canvas border.
    mx, my = MARGIN * CANON_W, MARGIN * CANON_H
    dst = np.array([[mx, my], [CANON_W - 1 - mx, my], [CANON_W - 1 - mx, CANON_H - 1 - my],
                    [mx, CANON_H - 1 - my]], np.float32)
    m = cv2.getPerspectiveTransform(corners.astype(np.float32), dst)
    card = cv2.warpPerspective(image, m, (CANON_W, CANON_H), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)
    return _white_balance(card)


def _white_balance(card: np.ndarray) -> np.ndarray:
    """Scales each channel so the card's own paper (a coarse 90th percentile is plenty)
    reads 235, through a table of each channel's 256 levels: the same bytes as scaling
    every pixel in float32, in a tenth of the time."""
    coarse = cv2.resize(card, (16, 22), interpolation=cv2.INTER_AREA).reshape(-1, 3)
    paper = np.sort(coarse, axis=0)[int(0.9 * len(coarse))].astype(np.float32)
    gain = 235.0 / np.maximum(paper, 20.0)
    levels = np.clip(np.arange(256, dtype=np.float32)[:, None] * gain, 0, 255).astype(np.uint8)
    return cast(np.ndarray, cv2.LUT(card, levels.reshape(256, 1, 3)))


def _corner_pairs(card: np.ndarray, *, jumbo: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Rank/suit centroid pairs among the ink blobs of the canonical card's top-left corner."""
    corner_w, corner_h, max_glyph = ((JUMBO_CORNER_W, JUMBO_CORNER_H, JUMBO_MAX_GLYPH_PX)
                                     if jumbo else (CORNER_W, CORNER_H, MAX_GLYPH_PX))
    cw, ch = int(corner_w * CANON_W), int(corner_h * CANON_H)
    region = card[:ch, :cw]
    lo = channel_extremes(region)[0]
    # Ink is darker than the paper around it: glare on a glossy card leaves the rest of
    # its paper darker than the white balance expects, so no one level divides them.
    around = cv2.blur(lo, (INK_WINDOW, INK_WINDOW)).astype(np.int16)
    ink = (lo.astype(np.int16) < around - INK_CONTRAST) & (lo < INK_CEILING)
    n, labels, stats, cents = cv2.connectedComponentsWithStats(ink.astype(np.uint8),
                                                                connectivity=8)
    bx, by, bw, bh = stats[1:, 0], stats[1:, 1], stats[1:, 2], stats[1:, 3]
    size = np.maximum(bw, bh)
    keep = (size >= MIN_GLYPH_PX) & (size <= max_glyph) & (np.minimum(bw, bh) >= 2)
    # Blobs touching the canvas border are the table or the card's edge.
    keep &= (bx > 0) & (by > 0)
    keep &= stats[1:, 4] >= 8
    c = cents[1:][keep].astype(np.float32)
    s = size[keep].astype(np.float32)
    ranks, suits = [], []
    paired = np.zeros(len(c), bool)
    for i in range(len(c)):
        for j in range(len(c)):
            if i == j:
                continue
            dx, dy = c[j, 0] - c[i, 0], c[j, 1] - c[i, 1]
            if dy <= 0 or abs(dx) > 0.8 * dy:
                continue
            if not 0.45 * s[i] <= np.hypot(dx, dy) <= 1.8 * s[i] or s[j] > 1.2 * s[i]:
                continue
            ranks.append(c[i])
            suits.append(c[j])
            paired[i] = paired[j] = True
    # A small index printed with its suit close under the rank blurs into one tall blob.
    for label in (np.nonzero(keep)[0] + 1)[~paired]:
        split = _rank_over_suit(labels, stats[label], label)
        if split is not None:
            ranks.append(split[0])
            suits.append(split[1])
    if not ranks:
        z = np.zeros((0, 2), np.float32)
        return z, z
    return np.array(ranks, np.float32), np.array(suits, np.float32)


def _rank_over_suit(labels: np.ndarray, stat: np.ndarray, label: int
                    ) -> tuple[np.ndarray, np.ndarray] | None:
    """Centroids of a tall blob's parts above and below its waist, or None if it has none.

    The waist is the narrowest row in the blob's middle, and must be at most half
    as wide as the parts on either side of it: a rank and its suit touching, not
    one glyph (a tall 1 or J has no waist).
    """
    x, y, w, h = (int(v) for v in stat[:4])
    if h < max(2 * MIN_GLYPH_PX, 1.7 * w):
        return None
    mask = labels[y:y + h, x:x + w] == label
    widths = mask.sum(axis=1)
    lo, hi = int(0.3 * h), int(0.7 * h)
    waist = lo + int(np.argmin(widths[lo:hi + 1]))
    if 2 * widths[waist] > min(widths[:waist].max(), widths[waist + 1:].max()):
        return None
    parts = []
    for rows in (slice(0, waist), slice(waist + 1, h)):
        ys, xs = np.nonzero(mask[rows])
        offset = 0 if rows.start == 0 else waist + 1
        parts.append(np.array([x + xs.mean(), y + offset + ys.mean()], np.float32))
    return parts[0], parts[1]


def corner_patches(image: np.ndarray, quad: CardQuad
                   ) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """Index patches of both diagonal corners of a card (its quad read either way up).

    Returns ``(patches, corner_id, orientation)``: ``corner_id`` is 0 or 1 (the
    quad read as given, or turned 180 degrees) and ``orientation[k]`` the quad's
    corners rolled so that the card reads upright from that corner.
    """
    # The quad starts on a short side; rolling by two reads it the other way up. The canvas
    # is symmetric about its centre, so that reading is the first one turned half round:
    # one warp serves both (the warp and its white balance are most of this function's time).
    orients = [np.roll(quad.corners, -2 * k, axis=0) for k in range(2)]
    upright = _warp(image, orients[0])
    cards = [upright, cv2.rotate(upright, cv2.ROTATE_180)]
    for jumbo in (False, True):
        patches: list[np.ndarray] = []
        ids: list[int] = []
        for k, card in enumerate(cards):
            r, s = _corner_pairs(card, jumbo=jumbo)
            if len(r):
                p = extract_patches(card, r, s)[0]
                patches.append(p)
                ids.extend([k] * len(p))
        if patches:
            return np.concatenate(patches), np.array(ids, np.int64), orients
    return np.zeros((0, 32, 32, 3), np.uint8), np.zeros(0, np.int64), orients


def read_card(
    rank: np.ndarray, suit: np.ndarray, ids: np.ndarray, *, min_index: float = 0.7
) -> tuple[Card | None, float, bool, int]:
    """Names a card from its corner patches' scores.

    Returns ``(card, confidence, has_index, corner)``: each corner's reading is its
    likeliest index patch; the corners that show an index must agree.
    """
    from vision.recognise.classifier import PatchScores

    cards, conf, is_index = PatchScores(rank, suit).best()
    readings: list[tuple[Card | None, float, int]] = []
    for k in np.unique(ids).tolist():
        sel = np.nonzero((ids == k) & (is_index >= min_index))[0]
        if sel.size == 0:
            continue
        best = max(sel.tolist(), key=lambda i: float(conf[i]))
        # Any other confident reading at this corner makes it ambiguous.
        rivals = {cards[i] for i in sel.tolist() if conf[i] >= 0.3} - {cards[best]}
        card = cards[best] if not rivals else None
        readings.append((card, float(conf[best]), int(k)))
    if not readings:
        return None, 0.0, False, 0
    named = {c for c, _, _ in readings}
    if len(named) != 1 or None in named:
        return None, max(p for _, p, _ in readings), True, readings[0][2]
    miss = 1.0
    for _, p, _ in readings:
        miss *= 1.0 - p
    conf_card = 1.0 - miss if len(readings) > 1 else readings[0][1]
    best_corner = max(readings, key=lambda x: x[1])[2]
    return readings[0][0], float(conf_card), True, best_corner
