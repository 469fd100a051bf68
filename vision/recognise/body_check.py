"""Whether a card named from one corner index lies where its index says (issue 62 item 3).

An index read the wrong way up (a 10H read upside down as a 7H, a 5S as a 3S) infers a card
body beyond the real card's corner: over the bare table, while the real card, the paper its
index is printed on, lies behind the corner the reading infers. A real card's body lies on its
paper, on a court card's picture, or under another card, and behind its index's corner lies the
table or other cards. So a card is judged bare, and asked rather than named
(``detection.recognise``, only with the card height told), when all four hold:

- little of its body is the paper round its index (``BARE_PAPER_SHARE``);
- its body is mostly one surface (``ONE_SURFACE_SHARE`` near the body's median colour);
- behind the inferred corner it is mostly that paper (``BEHIND_PAPER_SHARE``);
- just inside the inferred corner (the mirror of those points through the index) it is the
  body's surface, not the card's (``INSIDE_BODY_SHARE``).

A white card on a white table is never judged bare (its body is near its paper), nor a court
face or a body that crosses other cards (not one surface), nor a dark card whose corner lies on
a white table (the table behind it is no dark paper). Chosen on the dev photos at device
geometry (``benchmarks/vision/accuracy.py --split dev --geometry device:...``): the 1,870
correct index-path readings lost none; the same indices read upside down (their outline
flipped about the index, a stand-in for the misreading) were judged bare 206 times, those whose
flipped body lay over one plain surface with the real card plainly behind it.

Off by default (``detection.USE_BODY_CHECK``): on the test split at device geometry it caught
none of the four wrong-way readings it was made for (a 10H read as 7H whose real card lies
mostly under another card, so little paper shows behind the corner; a 5S read as 3S whose grey
paper is the grey of the frame's fill, so its body looks like paper) and took away one correct
card (an AH whose white table is brighter than its paper, taken for the paper). Colour alone
cannot tell those apart from correct readings the dev photos hold.

Cheap, for the device's live path: about 70 pixels sampled and converted per card named from
an index, never a whole frame. YCrCb, never Lab (OpenCV's Lab converter keeps 4.6 MB of tables
for the process's life: ``firmware.web.eye_place.Ground``).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

__all__ = ["BodyLook", "BodyJudge", "NEAR", "BARE_PAPER_SHARE", "ONE_SURFACE_SHARE",
           "BEHIND_PAPER_SHARE", "INSIDE_BODY_SHARE", "MIN_SAMPLES"]

# How far (Y, Cr, Cb) a pixel may be from a colour and still count as it: a white card and
# light wood differ in Y by 20-60 and in Cr or Cb by 8-20; looser (35, 14, 14) lost correct
# readings on dev (white cards whose table is nearly their paper).
NEAR = (30, 10, 10)
BARE_PAPER_SHARE = 0.2
ONE_SURFACE_SHARE = 0.6
BEHIND_PAPER_SHARE = 0.7
INSIDE_BODY_SHARE = 0.8
# Too few body samples inside the frame to judge: the reading stands.
MIN_SAMPLES = 12

# Where the body is sampled, in card units (0-1 across, 0-1 down from the index's corner):
# a grid over the card, less the index's own corner (its ink and its paper).
_ACROSS = np.linspace(0.12, 0.88, 6)
_DOWN = np.linspace(0.08, 0.92, 9)
_GRID = np.array([(s, t) for t in _DOWN for s in _ACROSS if not (s < 0.4 and t < 0.35)])
# Where the index's paper is sampled, in index spans from its centre (across, down): beside the
# glyph column, above the rank and below the suit: on the card whichever way up it reads.
_PAPER = np.array([(-0.5, 0.0), (0.5, 0.0), (-0.45, -0.5), (0.45, -0.5), (-0.45, 0.5),
                   (0.45, 0.5), (0.0, -0.95), (0.0, 0.95)])
# Behind the corner a reading infers, in index spans from its centre (across, down): off a card
# read the right way up (its edges lie 0.75 and 1.7 spans from the index), on it when read the
# wrong way up; mirrored through the index's centre, just inside the inferred corner.
_BEHIND = np.array([(-1.5, 0.0), (-1.5, 1.0), (-2.5, 0.5), (0.0, -2.6), (-0.5, -2.6),
                    (-0.3, -3.6), (-1.5, -2.6), (-2.5, -1.5)])
# The index's ink: its rank's and its suit's centres, in spans down from the index's centre.
_INK = np.array([[-0.5], [0.5]])


@dataclass(frozen=True, slots=True)
class BodyLook:
    """What a card's inferred body and its surroundings look like: the shares of its body's
    samples near its index's paper and near the body's own median colour, of the samples behind
    its inferred corner near the paper, and of those just inside it near the body's colour."""

    paper_share: float
    one_surface_share: float
    behind_paper_share: float
    inside_body_share: float
    samples: int

    @property
    def bare(self) -> bool:
        """Plainly bare table with the real card behind the corner (the module's four tests)."""
        return (self.samples >= MIN_SAMPLES and self.paper_share <= BARE_PAPER_SHARE
                and self.one_surface_share >= ONE_SURFACE_SHARE
                and self.behind_paper_share >= BEHIND_PAPER_SHARE
                and self.inside_body_share >= INSIDE_BODY_SHARE)


NOT_JUDGED = BodyLook(1.0, 0.0, 0.0, 0.0, 0)


def _ycc(pixels: np.ndarray) -> np.ndarray:
    """YCrCb of (n, 3) BGR uint8 pixels, as int32 (n, 3)."""
    return cv2.cvtColor(pixels.reshape(-1, 1, 3), cv2.COLOR_BGR2YCrCb).reshape(-1, 3).astype(
        np.int32)


def _near(colours: np.ndarray, centre: np.ndarray) -> float:
    """The share of ``colours`` (n, 3) within ``NEAR`` of ``centre``; 0 for none."""
    if len(colours) == 0:
        return 0.0
    return float(np.mean(np.all(np.abs(colours - centre) <= np.array(NEAR), axis=1)))


class BodyJudge:
    """Judges the inferred bodies of one frame's cards named from an index, for a camera told
    its cards' height ``card_px``: an outline taller than that (a deck with big indices) is
    judged shrunk to it about its index's corner, so its body stays on the card."""

    def __init__(self, image: np.ndarray, *, card_px: float) -> None:
        if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3 or image.size == 0:
            raise ValueError(f"BodyJudge needs an 8-bit BGR frame (height x width x 3 uint8), "
                             f"not a {image.dtype} array of shape {image.shape}")
        if not np.isfinite(card_px) or card_px <= 0:
            raise ValueError(f"BodyJudge needs a positive card height in pixels, not {card_px!r}")
        self._image = image
        self._card_px = float(card_px)

    def _colours(self, points: np.ndarray) -> np.ndarray:
        """YCrCb (int32, (m, 3)) at those of ``points`` (n, 2) that lie in the frame."""
        h, w = self._image.shape[:2]
        xy = np.rint(points).astype(np.int64)
        xy = xy[(xy[:, 0] >= 0) & (xy[:, 0] < w) & (xy[:, 1] >= 0) & (xy[:, 1] < h)]
        if len(xy) == 0:
            return np.zeros((0, 3), np.int32)
        return _ycc(np.ascontiguousarray(self._image[xy[:, 1], xy[:, 0]]))

    def look(self, outline: np.ndarray, centre: np.ndarray, down: np.ndarray,
             span: float) -> BodyLook:
        """How the card ``outline`` (4, 2), named from the index at ``centre`` whose glyphs run
        along ``down`` (unit) ``span`` pixels apart, looks. The outline's first corner is the
        one its index sits in (``detection.card_outline``)."""
        corners = np.asarray(outline, np.float64)
        across, along = corners[1] - corners[0], corners[3] - corners[0]
        shrink = min(1.0, self._card_px / max(float(np.hypot(*along)), 1e-9))
        body = self._colours(corners[0] + shrink * (_GRID[:, :1] * across
                                                    + _GRID[:, 1:] * along))
        u = np.asarray(down, np.float64)
        r = np.array([u[1], -u[0]])
        at = np.asarray(centre, np.float64)
        ring = self._colours(at + span * (_PAPER[:, :1] * r + _PAPER[:, 1:] * u))
        ink = self._colours(at + span * _INK * u)
        if len(body) < MIN_SAMPLES or len(ring) < 2 or len(ink) == 0:
            return NOT_JUDGED
        # The paper is what is least like the ink: the half of the ring farthest from it in
        # brightness (the rest may be ink, or what lies past a card's edge).
        far = np.argsort(-np.abs(ring[:, 0] - float(np.mean(ink[:, 0]))))
        paper = np.median(ring[far[:max(1, len(far) // 2)]], axis=0)
        surface = np.median(body, axis=0)
        offsets = span * (_BEHIND[:, :1] * r + _BEHIND[:, 1:] * u)
        return BodyLook(_near(body, paper), _near(body, surface),
                        _near(self._colours(at + offsets), paper),
                        _near(self._colours(at - offsets), surface), len(body))

    def bare(self, outline: np.ndarray, centre: np.ndarray, down: np.ndarray,
             span: float) -> bool:
        """Whether the card's inferred body is plainly bare table (``BodyLook.bare``)."""
        return self.look(outline, centre, down, span).bare
