"""Where a missed card is lost: the stage of ``recognise`` that dropped it.

Every face-up card the recogniser does not name is put in the first of these that fits,
looking at its two corner indices (the card's outline from the scene's truth; an index is the
corner's quarter across and third down, ``INDEX_BOX``, shown when 80 % of it lies outside the
cards above):

- ``covered``: neither corner index shows (a hand laying a card is not known to the truth,
  so a card under it counts under the other stages);
- ``no_pair``: no candidate pairs two glyphs inside a shown index;
- ``screened``: pairs there, but the index screen dropped them all;
- ``not_index``: the CNN's best pairing there is under ``MIN_INDEX_PROBABILITY``;
- ``unsure``: it reads the right card, below the confidence floor;
- ``misread``: it reads another card;
- ``lost``: a sure, right reading that the rest of ``recognise`` did not report (a rival
  reading, or the card claimed by another).

The stage's readings are one pass of the committed networks over the frame's unscreened
candidates, as ``recognise`` reads them without a taught deck.
"""

from __future__ import annotations

import cv2
import numpy as np

from engine.cards import Card
from vision.drawn.scene import TruthCard
from vision.recognise.candidates import IndexCandidates, find_candidates
from vision.recognise.classifier import classify
from vision.recognise.detection import DEFAULT_MIN_CONFIDENCE, MIN_INDEX_PROBABILITY
from vision.recognise.geometry import points_in_quad
from vision.recognise.screen import load_screen

__all__ = ["STAGES", "INDEX_BOX", "index_quads", "shown_indices", "FrameReadings",
           "frame_misses"]

STAGES = ("covered", "no_pair", "screened", "not_index", "unsure", "misread", "lost")
# A corner index in card units (x across the top edge, y down the side, from the card's
# top-left as it reads upright), and the share of it that must show.
INDEX_BOX = ((0.0, 0.0), (0.25, 0.35))
SHOWN = 0.8


def index_quads(corners: np.ndarray) -> list[np.ndarray]:
    """The card's two corner indices (top-left, and bottom-right turned) as frame quads."""
    (x0, y0), (x1, y1) = INDEX_BOX

    def at(u: float, v: float) -> np.ndarray:
        top = corners[0] + u * (corners[1] - corners[0])
        bottom = corners[3] + u * (corners[2] - corners[3])
        return np.asarray(top + v * (bottom - top))

    quads = []
    for flip in (False, True):
        pts = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
        if flip:
            pts = [(1 - u, 1 - v) for u, v in pts]
        quads.append(np.array([at(u, v) for u, v in pts]))
    return quads


def shown_indices(quads: list[np.ndarray], above: list[np.ndarray], size: tuple[int, int]
                  ) -> list[np.ndarray]:
    """The index quads of which at least ``SHOWN`` lies outside every card drawn above."""
    out = []
    for quad in quads:
        mask = np.zeros((size[1], size[0]), np.uint8)
        cv2.fillConvexPoly(mask, np.round(quad).astype(np.int32), 1)
        area = int(mask.sum())
        for other in above:
            cv2.fillConvexPoly(mask, np.round(other).astype(np.int32), 0)
        if area and mask.sum() >= SHOWN * area:
            out.append(quad)
    return out


class FrameReadings:
    """One frame's unscreened candidates, which pass the screen, and the CNN's readings."""

    def __init__(self, image: np.ndarray, model: str) -> None:
        self.cand: IndexCandidates = find_candidates(image, screen=False)
        n = len(self.cand)
        self.passes = load_screen().passes(self.cand.patches) if n else np.zeros(0, bool)
        if n:
            self.cards, self.conf, self.is_index = classify(self.cand.patches,
                                                            model_path=model).best()
        else:
            self.cards, self.conf, self.is_index = [], np.zeros(0), np.zeros(0)

    def stage(self, card: Card, shown: list[np.ndarray]) -> tuple[str, str]:
        """The stage that lost ``card`` (its shown indices), and the best reading there."""
        if not shown:
            return "covered", ""
        inside = np.zeros(len(self.cand), bool)
        for quad in shown:
            inside |= (points_in_quad(self.cand.rank_xy, quad)
                       & points_in_quad(self.cand.suit_xy, quad))
        if not inside.any():
            return "no_pair", ""
        kept = np.nonzero(inside & self.passes)[0]
        if kept.size == 0:
            return "screened", ""
        named = np.array([self.cards[i] is not None for i in kept])
        k = int(kept[np.argmax(self.is_index[kept] * np.where(named, self.conf[kept], 0.0))])
        best, conf, is_index = self.cards[k], float(self.conf[k]), float(self.is_index[k])
        reading = f"{best} {conf:.2f} (index {is_index:.2f})"
        if is_index < MIN_INDEX_PROBABILITY:
            return "not_index", reading
        if best != card:
            return "misread", reading
        return ("unsure" if conf < DEFAULT_MIN_CONFIDENCE else "lost"), reading


def frame_misses(image: np.ndarray, truth: list[TruthCard], found: set[Card], model: str,
                 to_view: np.ndarray) -> list[tuple[Card, str, str]]:
    """Each card of ``truth`` (bottom to top) that ``found`` lacks, with the stage that lost
    it and the best reading there. ``to_view`` (2x3) maps the truth's outlines (drawn-frame
    pixels) to ``image``'s pixels."""
    size = (image.shape[1], image.shape[0])
    outlines = [np.asarray(t.corners, np.float64) @ to_view[:, :2].T + to_view[:, 2]
                for t in truth]
    readings: FrameReadings | None = None
    misses = []
    for k, t in enumerate(truth):
        if t.card in found:
            continue
        readings = readings or FrameReadings(image, model)
        shown = shown_indices(index_quads(outlines[k]), outlines[k + 1:], size)
        misses.append((t.card, *readings.stage(t.card, shown)))
    return misses
