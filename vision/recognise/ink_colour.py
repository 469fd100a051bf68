"""The colour of an index's ink, and the suits that colour rules out.

The network names an index from its shapes; at 60-90 px card heights a heart's and a spade's
small glyphs are a few pixels apiece and the suit head can mix them up (a nine of diamonds
read as the nine of spades at 0.66). The pixels still know the ink's colour: red ink is dark
in green and blue and hardly in red; black ink is dark alike in all three. Where the ink is
plainly red, the black suits' probability is taken away (never handed to the red suits, so
a reading the colour contradicts falls below the detector's floors and the board asks,
rather than trading one guess for another).

Only red rules anything out. Grey ink says nothing: a greyscale photo prints hearts grey,
and a dark deck's light indices (inverted: ``candidates.find_candidates``' bright branch)
read grey whatever their suit. On the dev split's device frames (1280x720 and 2304x1296),
14 correct red readings had ink as grey as black ink's, so a "black ink rules out red"
check would have cost them. Red ink (``RED_AT_MOST``, ``MIN_DARKENING``) took away none of
the 1,612 correct black readings there, and 4 of the 14 black readings of a red card (the
others are grey or a dark deck's inverted light ink).

Measured against the patch's own paper (its brightest quarter), so a lamp's cast or a
camera's white balance counts for nothing; and as a ratio of darkenings, so overexposure that
bleaches red ink towards pink leaves it where it was. Contrast halved towards a coloured mean
adds a veil that the shares of the paper feel and the depths in grey levels do not, so red
must be red by both (``RED_DEPTH_AT_MOST``).
"""

from __future__ import annotations

import numpy as np

from vision.recognise.classifier import SUITS, PatchScores

__all__ = ["ink_darkening", "red_ink", "colour_checked", "RED_AT_MOST", "RED_DEPTH_AT_MOST",
           "MIN_DARKENING"]

# The part of a 32 px patch (rank above the middle, suit below: candidates.extract_patches,
# whose glyph centroids lie 6.4 px either side of the middle row) where the two glyphs lie.
GLYPH_ROWS = slice(3, 29)
GLYPH_COLUMNS = slice(9, 23)
# Paper: the patch's pixels at or above this percentile of their darkest channel.
PAPER_PERCENTILE = 75.0
# Ink: the glyph window's pixels darkened at least this share of its darkest pixel's darkening.
INK_SHARE = 0.5
# Ink darkened less than this (a share of its paper) is too faint to have a colour worth
# trusting (a blank patch, a glyph lost to glare, EPFL's pale clubs on warm paper: their
# darkenings 0.19 and 0.26 read as red; the dev split's red misread as black lay at 0.45-0.55).
MIN_DARKENING = 0.3
# Red: the ink's darkening in red at most this share of its darkening in green or blue. On
# the dev split's device frames correct black readings' ratio lay at 0.855 and above (two at
# 0.78 were too faint: ``MIN_DARKENING``); a webcam's dull red at 0.6-0.8 (a nine of diamonds
# read as a spade: 0.78).
RED_AT_MOST = 0.82
# ... and in grey levels (ink's depth below its paper, not its share of it) at most this share
# of its depth in green or blue. A ratio of shares alone is undone by an added veil of colour:
# a photo's contrast halved towards a warm table's mean (robustness sweep, contrast:0.5) lifts
# black ink's red share of its paper below RED_AT_MOST, while its depth stays alike in all three
# channels (EPFL dev: 20 black cards made unsure, 14 points of recall). A veil cannot make
# red's depth shallow, and a lamp's cast (a gain) cannot make black's, so both must say red.
# Looser than RED_AT_MOST: the webcam nine of diamonds read as a spade (Roboflow val, contrast
# halved) lies at 0.81 by share and 0.82 by depth, and must stay red.
RED_DEPTH_AT_MOST = 0.9
# A black suit less likely than this in a patch is below every floor the detector reads a
# card or an alternative by (``detection.ALTERNATIVE_FLOOR``): its colour need not be measured.
BLACK_WORTH_CHECKING = 0.01
_RED_SUITS = np.array([s.letter in "HD" for s in SUITS])


def ink_darkening(patches: np.ndarray) -> np.ndarray:
    """Each patch's ink darkening (n, 3) in B, G, R: 1 - ink / paper, channel by channel,
    the ink being the glyph window's darkest pixels (``INK_SHARE``) and the paper the
    patch's brightest quarter."""
    return _darkening_and_paper(patches)[0]


def _darkening_and_paper(patches: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``ink_darkening`` and each patch's paper level (n, 3) in B, G, R."""
    if patches.ndim != 4 or patches.shape[-1] != 3:
        raise ValueError(f"ink_darkening: expected BGR patches (n, h, w, 3), "
                         f"not shape {patches.shape}")
    n = patches.shape[0]
    if n == 0:
        return np.zeros((0, 3), np.float32), np.zeros((0, 3), np.float32)
    # Whole-patch work stays in bytes and in calls numpy makes fast (a channel minimum by
    # np.minimum, a percentile by partition, a masked sum by matmul): as first written, with
    # float copies, ``min(axis=3)`` and ``np.percentile``, it cost the birch queen's 158
    # candidates 16 ms on one core, a Pi 4's 300 ms budget 75 ms.
    lo = np.minimum(np.minimum(patches[..., 0], patches[..., 1]), patches[..., 2]).reshape(n, -1)
    paper_mask = lo >= _percentile(lo, PAPER_PERCENTILE)[:, None]
    flat = patches.reshape(n, -1, 3).astype(np.float32)
    paper = (np.matmul(paper_mask[:, None, :].astype(np.float32), flat)[:, 0]
             / paper_mask.sum(axis=1)[:, None])
    window = patches[:, GLYPH_ROWS, GLYPH_COLUMNS].reshape(n, -1, 3).astype(np.float32)
    dark = np.clip(1.0 - window / np.maximum(paper, 1.0)[:, None, :], 0.0, 1.0)
    strength = dark.max(axis=2)
    ink = strength >= INK_SHARE * strength.max(axis=1, keepdims=True)
    return (np.asarray((dark * ink[..., None]).sum(axis=1)
                       / np.maximum(ink.sum(axis=1), 1)[:, None], np.float32),
            np.asarray(paper, np.float32))


def _percentile(rows: np.ndarray, percent: float) -> np.ndarray:
    """Each row's ``percent`` percentile, as ``np.percentile``'s default (linear) gives it,
    from a partition rather than a sort."""
    last = rows.shape[1] - 1
    at = percent / 100.0 * last
    below = int(at)
    above = min(below + 1, last)
    part = np.partition(rows, (below, above), axis=1)
    low = part[:, below].astype(np.float64)
    return np.asarray(low + (at - below) * (part[:, above].astype(np.float64) - low))


def red_ink(patches: np.ndarray) -> np.ndarray:
    """Whether each patch's ink is plainly red (n,) bool: dark enough to have a colour
    (``MIN_DARKENING``), and far less dark in red than in green or blue, both as a share of
    its paper (``RED_AT_MOST``) and in grey levels (``RED_DEPTH_AT_MOST``)."""
    d, paper = _darkening_and_paper(patches)
    depth = d * paper
    return np.asarray((d.max(axis=1, initial=0.0) >= MIN_DARKENING)
                      & (d[:, 2] <= RED_AT_MOST * np.maximum(d[:, 1], d[:, 0]))
                      & (depth[:, 2] <= RED_DEPTH_AT_MOST * np.maximum(depth[:, 1], depth[:, 0])))


def colour_checked(patches: np.ndarray, scores: PatchScores) -> PatchScores:
    """``scores`` with clubs and spades set to zero where a patch's ink is plainly red; the
    rest, the rank head and the not-an-index column as they were, so a contradicted reading
    loses its probability rather than passing it on."""
    if len(patches) != len(scores.suit):
        raise ValueError(f"colour_checked: {len(patches)} patches for {len(scores.suit)} scores")
    black = np.flatnonzero(~_RED_SUITS)
    # Only a patch some black suit is likely for can lose anything: most candidates are not
    # indices, or red, and need no colour measured.
    asked = np.flatnonzero(scores.suit[:, black].max(axis=1, initial=0.0) >= BLACK_WORTH_CHECKING)
    if asked.size == 0:
        return scores
    red = asked[red_ink(patches[asked])]
    if red.size == 0:
        return scores
    suit = scores.suit.copy()
    suit[np.ix_(red, black)] = 0.0
    return PatchScores(scores.rank, suit)
