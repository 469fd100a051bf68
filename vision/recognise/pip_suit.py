"""A veto on a card's suit from the big pips in its body: a club is never named a spade.

At the device's 1280x720 a corner index's suit glyph is about 6 pixels tall, and the index
network can take a club for a spade there (or the reverse); a pip in the card's body is two
or three times larger and its shape is plain. This module does not read cards: it warps a
named card's body upright (``upright_body``), finds its pips (ink darker than the paper, or
lighter on a dark deck, judged from the paper's own level), and asks only whether their shape
plainly says club or plainly says not-club (``pip_says``). ``contradicts`` is the veto: a
card named 2-10 or A whose pips plainly say the other side of that line is not named (the
board asks). Court cards, and any body that is unclear (not as many alike pips as the rank,
other ink in the body: a card lying over it, a court's picture, glare; faint ink), veto
nothing. Red or gold club-shaped pips never veto a diamond (a fancy deck's four-pointed
diamonds) nor an ace (an ornate heart); a 2-10 spade or heart they do (a club in a tinted
light, or a diamond).

The shape: a club's three round lobes and its stem leave three or four deep notches in its
outline (convexity defects); a spade has two (its stem), a heart one, a diamond none. The
thresholds were chosen on the dev photos' correctly read A-10 with a clear body, at both
device geometries (1280x720 and 2304x1296: 119 clubs, 86 spades, 124 hearts, 140
diamonds): every pip of 72 clubs had a third notch of at least 0.09 of its height, and of
no other card (the most any other card's every pip reached was 0.064); no club had every
pip's third notch at most 0.045, and 75 spades, 120 hearts and 110 diamonds had. Over the
1,949 cards the device-geometry reading names on dev, the veto takes away none. On 24 of
Debian's card themes rendered 70, 86 and 154 px tall (2,880 cards A-10) it takes away one
(the oxygen theme's 5S at 154 px: gradient-shaded pips) and asks about 398 of 720 spades
read as clubs and 474 of 720 clubs read as spades.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import cv2
import numpy as np

from engine.cards import Card, Suit
from vision.recognise.candidates import channel_extremes

__all__ = ["Pip", "PipShape", "upright_body", "read_pips", "pip_says", "contradicts"]

Corners = tuple[tuple[float, float], ...]

# The card warped upright to this many pixels (about 1.75 px a millimetre of a poker card).
BODY_W = 110
BODY_H = 154
# The inset from the outline that is never the body (an outline read from an index can be
# a little off), as a fraction of the card.
INSET = 0.06
# Ink differs from the paper by at least this many grey levels (after the paper's level is
# taken as the card interior's median), else the body is too faint to judge.
MIN_CONTRAST = 40.0
# A pip's height as a fraction of the card's height (an index's suit glyph is under 0.09);
# an ace's one pip may be larger. Its centre lies in the pips' column.
PIP_HEIGHT = (0.10, 0.25)
ACE_HEIGHT = (0.10, 0.45)
PIP_COLUMN = (0.2, 0.8)
PIP_ROWS = (0.1, 0.9)
# Pips of one card are alike: each pip's area within this factor of the pips' median area.
PIP_AREA_SPREAD = 2.0
# A body is clear when the ink outside its pips covers at most this share of its field (the
# card less a margin that holds its indices and, beside a loose outline, the table): more
# is another card lying over it, a court's picture, or glare on glossy paper.
FOREIGN_INK = 0.02
FIELD_X = (0.16, 0.84)
FIELD_Y = (0.08, 0.92)
# A club's outline has three or four deep notches (two between its lobes, one or two where
# its stem meets them); a spade's two (its stem), a heart's one, a diamond's none. The
# third deepest notch over the pip's height: a club's at least ``CLUB_NOTCH``, another
# suit's at most ``OTHER_NOTCH``; between is unsure. An ace's one pip, with no other to
# agree with it, says club only with a fourth notch of at least ``ACE_FOURTH_NOTCH`` too.
CLUB_NOTCH = 0.09
OTHER_NOTCH = 0.045
ACE_FOURTH_NOTCH = 0.06
# A pip whose mean colour is at least this saturated ((max - min) / max) is coloured ink.
COLOURED = 0.25
# A pip whose ink fills less of its outline than this is drawn hollow or outlined (a light
# pip ringed in dark): its outline's notches are not its shape's, so it says nothing.
SOLID_FILL = 0.92


class PipShape(Enum):
    """What a card's pips say: plainly a club, plainly not a club, or nothing."""

    CLUB = "club"
    NOT_CLUB = "not club"
    UNSURE = "unsure"


@dataclass(frozen=True, slots=True)
class Pip:
    """One pip: its four deepest outline notches over its height, deepest first, whether
    its ink is coloured (a red or gold pip, not a black or grey one), and the share of its
    outline that its ink fills."""

    notches: tuple[float, float, float, float] | None
    coloured: bool
    fill: float = 1.0

    @property
    def shape(self) -> PipShape:
        """Club (three deep notches or more), not club (at most two), or unsure."""
        if self.notches is None or self.fill < SOLID_FILL:
            return PipShape.UNSURE
        third = self.notches[2]
        if third >= CLUB_NOTCH:
            return PipShape.CLUB
        if third <= OTHER_NOTCH:
            return PipShape.NOT_CLUB
        return PipShape.UNSURE


def upright_body(image: np.ndarray, corners: Corners | np.ndarray) -> np.ndarray:
    """The card warped upright to ``BODY_W`` x ``BODY_H`` BGR pixels, corners clockwise from
    its upright top-left (``vision.recognise.detection.Detection.corners``)."""
    src = np.asarray(corners, np.float32).reshape(4, 2)
    dst = np.array([[0, 0], [BODY_W - 1, 0], [BODY_W - 1, BODY_H - 1], [0, BODY_H - 1]],
                   np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    return cv2.warpPerspective(image, m, (BODY_W, BODY_H), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


def _ink(card: np.ndarray) -> tuple[np.ndarray, bool] | None:
    """The ink mask of an upright card and whether its ink is lighter than its paper, or
    None where ink and paper are too alike to tell pips from paper."""
    ix, iy = int(INSET * BODY_W), int(INSET * BODY_H)
    inner = card[iy:BODY_H - iy, ix:BODY_W - ix]
    # Each pixel's darkest and lightest channel (red and black ink are dark in the first).
    dark, light = (c.astype(np.float32) for c in channel_extremes(inner))
    paper_dark, paper_light = float(np.median(dark)), float(np.median(light))
    # The ink is the side of the paper that holds the most strongly different pixels.
    below = np.count_nonzero(dark < paper_dark - MIN_CONTRAST)
    above = np.count_nonzero(light > paper_light + MIN_CONTRAST)
    light_ink = bool(above > below)
    level = 255.0 - light if light_ink else dark
    paper = 255.0 - paper_light if light_ink else paper_dark
    ink_level = float(np.percentile(level, 3))
    if paper - ink_level < MIN_CONTRAST:
        return None
    mask = np.zeros(card.shape[:2], np.uint8)
    mask[iy:BODY_H - iy, ix:BODY_W - ix] = (level < 0.5 * (paper + ink_level)).astype(np.uint8)
    return mask, light_ink


def _notches(contour: np.ndarray, height: int) -> tuple[float, float, float, float] | None:
    """The four deepest convexity defects of a contour, deepest first, over ``height``; None
    where OpenCV cannot measure them (an outline that touches itself)."""
    hull = cv2.convexHull(contour, returnPoints=False)
    try:
        defects = cv2.convexityDefects(contour, hull)
    except cv2.error:
        return None
    depths = [] if defects is None else sorted(defects.reshape(-1, 4)[:, 3].tolist(),
                                               reverse=True)
    depths += [0, 0, 0, 0]
    first, second, third, fourth = (d / 256.0 / height for d in depths[:4])
    return first, second, third, fourth


def _foreign_ink(mask: np.ndarray, pips: list[np.ndarray]) -> float:
    """The share of the body's field that is ink but not a pip."""
    rest = mask.copy()
    cv2.drawContours(rest, pips, -1, 0, -1)
    cv2.drawContours(rest, pips, -1, 0, 2)  # the pips' soft edges
    x0, x1 = (int(f * BODY_W) for f in FIELD_X)
    y0, y1 = (int(f * BODY_H) for f in FIELD_Y)
    return float(np.count_nonzero(rest[y0:y1, x0:x1])) / ((x1 - x0) * (y1 - y0))


def read_pips(image: np.ndarray, corners: Corners | np.ndarray, *, ace: bool = False
              ) -> tuple[Pip, ...] | None:
    """The pips on a named card's body (an ``ace``'s one may be bigger), or None where the
    body is unclear: no clear ink, or ink that is not its own pips (``FOREIGN_INK``)."""
    card = upright_body(image, corners)
    ink = _ink(card)
    if ink is None:
        return None
    mask, _ = ink
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    lo, hi = (f * BODY_H for f in (ACE_HEIGHT if ace else PIP_HEIGHT))
    found: list[tuple[float, np.ndarray, int]] = []
    for c in contours:
        x, y, w, h = cv2.boundingRect(c)
        if not lo <= h <= hi or w > hi:
            continue
        cx, cy = (x + 0.5 * w) / BODY_W, (y + 0.5 * h) / BODY_H
        if not (PIP_COLUMN[0] < cx < PIP_COLUMN[1] and PIP_ROWS[0] < cy < PIP_ROWS[1]):
            continue
        found.append((float(cv2.contourArea(c)), c, h))
    if not found:
        return ()
    median = float(np.median([a for a, _, _ in found]))
    alike = [(c, h) for area, c, h in found
             if median / PIP_AREA_SPREAD <= area <= median * PIP_AREA_SPREAD]
    if _foreign_ink(mask, [c for c, _ in alike]) > FOREIGN_INK:
        return None
    pips: list[Pip] = []
    for c, h in alike:
        inside = np.zeros(mask.shape, np.uint8)
        cv2.drawContours(inside, [c], -1, 1, -1)
        colour = card[inside > 0].mean(axis=0)
        fill = float(np.count_nonzero(mask[inside > 0])) / max(int(np.count_nonzero(inside)), 1)
        saturation = float(colour.max() - colour.min()) / max(float(colour.max()), 1.0)
        pips.append(Pip(_notches(c, h), saturation >= COLOURED, fill))
    return tuple(pips)


def pip_says(pips: tuple[Pip, ...] | None, *, rank: int) -> PipShape:
    """Whether the pips of a card of ``rank`` (1-10) plainly say club, plainly not club, or
    nothing: a card shows as many pips as its rank, and every one must say the same. An
    ace's one big pip is often drawn ornate (a spade's scrolls): it may say club, with all
    four notches deep (``ACE_FOURTH_NOTCH``), never not."""
    if pips is None or len(pips) != rank:
        return PipShape.UNSURE
    shapes = {p.shape for p in pips}
    says = shapes.pop() if len(shapes) == 1 else PipShape.UNSURE
    if rank == 1 and (says is PipShape.NOT_CLUB or (
            says is PipShape.CLUB and (pips[0].notches or (0.0,) * 4)[3] < ACE_FOURTH_NOTCH)):
        return PipShape.UNSURE
    return says


def contradicts(image: np.ndarray, corners: Corners | np.ndarray, card: Card) -> bool:
    """Whether a card named ``card`` shows pips that plainly say another suit: club-shaped
    pips on a card named a spade or a heart (on a diamond or an ace, only black or grey ones),
    or another suit's on one named a club. Court cards (no pips of a size to judge) are never
    contradicted."""
    rank = int(card.rank)
    if rank > 10:
        return False
    pips = read_pips(image, corners, ace=rank == 1)
    says = pip_says(pips, rank=rank)
    if card.suit is Suit.CLUBS:
        return says is PipShape.NOT_CLUB
    # Coloured club-like pips are a club in a tinted light or a fancy deck's four-pointed
    # diamonds: never a spade or a heart, but they may be the diamond read. An ace's one
    # coloured pip may be an ornate heart (Debian's slavic_costumes AH says club).
    coloured = pips is not None and any(p.coloured for p in pips)
    if coloured and (card.suit is Suit.DIAMONDS or rank == 1):
        return False
    return says is PipShape.CLUB
