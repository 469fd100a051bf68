"""Exactly labelled candidate patches from scenes the project draws (``vision.drawn.scene``).

The photos' corner boxes leave the index's up and down to be guessed; a drawn
scene knows every card's outline as it reads upright, so each candidate the
real candidate stage finds there is labelled exactly: the card, when its two
glyphs lie in one of the card's index boxes in the upright direction and no
card lies on top of them; "not an index" when it lies away from every index
(table, pips, court panels, backs, hands, and indices read sideways or upside
down). These patches come from the same cutting code as at run time, with the
fans, perspective, blur and hands of a real table, in many drawn decks, and
with ``decks`` in the real designs Debian's card themes carry (``facedecks``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace

import cv2
import numpy as np

from engine.cards import Rank
from engine.simulate import deal_cards
from vision.drawn.cardart import CARD_ASPECT, CardStyle, index_boxes
from vision.drawn.scene import SceneRenderer, SceneSettings, Script, TruthCard
from vision.recognise.candidates import PATCH_SIZE, find_candidates
from vision.recognise.detection import points_in_quad
from vision.training.facedecks import FaceDeck, SignedBox
from vision.training.harvest import card_labels

__all__ = ["drawn_boxes", "harvest_scenes"]

NOT_INDEX = (13, 4)
# A candidate reads upright when its rank-to-suit direction is within ~30 degrees of the card's.
UPRIGHT_COS = 0.85
_BOX_GROW = 0.15


def _unit_to_frame(corners: np.ndarray) -> np.ndarray:
    """Homography from card units (width ``CARD_ASPECT``, height 1, upright) to frame pixels."""
    card = np.array([[0, 0], [CARD_ASPECT, 0], [CARD_ASPECT, 1], [0, 1]], np.float32)
    return cv2.getPerspectiveTransform(card, np.asarray(corners, np.float32))


def drawn_boxes(style: CardStyle) -> list[SignedBox]:
    """A drawn deck's two index boxes as fractions of the card, the second read turned."""
    height = 1000
    width = height * CARD_ASPECT
    return [((x0 / width, y0 / height, x1 / width, y1 / height), sign)
            for (x0, y0, x1, y1), sign in zip(index_boxes(height, style), (1, -1), strict=True)]


def _index_regions(truth: TruthCard, boxes: Sequence[SignedBox]
                   ) -> list[tuple[np.ndarray, np.ndarray]]:
    """Every index box of one card in frame pixels, each with the index's upright "down"."""
    h = _unit_to_frame(np.asarray(truth.corners))
    corners = np.asarray(truth.corners, np.float64)
    down = 0.5 * (corners[2] + corners[3]) - 0.5 * (corners[0] + corners[1])
    down /= max(1e-9, float(np.hypot(*down)))
    out = []
    for (fx0, y0, fx1, y1), sign in boxes:
        x0, x1 = fx0 * CARD_ASPECT, fx1 * CARD_ASPECT
        gx, gy = _BOX_GROW * (x1 - x0), _BOX_GROW * (y1 - y0)
        quad = np.array([[x0 - gx, y0 - gy], [x1 + gx, y0 - gy], [x1 + gx, y1 + gy],
                         [x0 - gx, y1 + gy]], np.float64)
        frame = cv2.perspectiveTransform(quad.reshape(-1, 1, 2), h).reshape(-1, 2)
        out.append((frame, sign * down))
    return out


def _label_frame(image: np.ndarray, truth: tuple[TruthCard, ...], boxes: Sequence[SignedBox],
                 rng: np.random.Generator, keep_negatives: float,
                 foreign_courts: frozenset[Rank] = frozenset()
                 ) -> tuple[np.ndarray, list[tuple[int, int]]]:
    cand = find_candidates(image, screen=False)
    n = len(cand)
    if n == 0:
        return np.zeros((0, PATCH_SIZE, PATCH_SIZE, 3), np.uint8), []
    labels: list[tuple[int, int] | None] = [NOT_INDEX] * n
    near_any = np.zeros(n, bool)
    turned = np.zeros(n, bool)
    foreign = np.zeros(n, bool)  # the upright index of a court printed with another letter
    i: int | np.intp  # candidate index: from np.nonzero below, then from range(n)
    for k, t in enumerate(truth):
        covered = np.zeros(n, bool)
        for above in truth[k + 1:]:
            outline = np.asarray(above.corners)
            covered |= points_in_quad(cand.rank_xy, outline) | points_in_quad(cand.suit_xy, outline)
        for quad, down in _index_regions(t, boxes):
            centre = quad.mean(axis=0)
            grown = centre + 1.5 * (quad - centre)
            near = points_in_quad(cand.rank_xy, grown) | points_in_quad(cand.suit_xy, grown)
            near_any |= near
            if not t.face_up:
                continue
            both = (points_in_quad(cand.rank_xy, quad) & points_in_quad(cand.suit_xy, quad)
                    & ~covered)
            upright = cand.down @ down >= UPRIGHT_COS
            for i in np.nonzero(near)[0]:
                if both[i] and upright[i] and t.card.rank in foreign_courts:
                    foreign[i] = True
                    labels[i] = None
                elif both[i] and upright[i]:
                    labels[i] = card_labels(t.card)
                elif both[i] and labels[i] in (None, NOT_INDEX):
                    turned[i] = True  # the index's own glyphs read sideways or upside down
                    labels[i] = None
                elif labels[i] == NOT_INDEX:
                    labels[i] = None  # near an index, partly on it: too close to call
    keep = []
    for i in range(n):
        if labels[i] is not None and labels[i] != NOT_INDEX:
            keep.append(i)
        elif labels[i] == NOT_INDEX and not near_any[i] and rng.random() < keep_negatives:
            keep.append(i)
        elif foreign[i]:
            labels[i] = NOT_INDEX  # a letter the network does not know is no index to it
            keep.append(i)
        elif turned[i] and rng.random() < 0.5:
            labels[i] = NOT_INDEX  # teaches "upside down is not an index"
            keep.append(i)
    return cand.patches[keep], [labels[i] for i in keep]  # type: ignore[misc]


def scripted_deal(seed: int, k: int) -> tuple[random.Random, np.random.Generator, Script]:
    """Scene ``k`` of a seed's drawn deals: its two random streams (the script's, then the
    drawing's) and a deal of 2-4 players scripted from them. Every trainer that films drawn
    deals takes its scenes here, so one seed gives the same deals to each."""
    rnd = random.Random(seed * 100_003 + k)
    rng = np.random.default_rng((seed, k))
    players = ("Ann", "Bob", "Cid", "Dee")[: rnd.choice((2, 3, 4))]
    script = Script.from_deal(deal_cards(rnd, len(players), rnd.randrange(len(players))),
                              players, rnd)
    return rnd, rng, script


def harvest_scenes(scenes: int, *, frames: int, seed: int, keep_negatives: float = 0.15,
                   decks: Sequence[FaceDeck] = ()) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Patches and (rank, suit) labels (13 / 4 = not an index) from ``scenes`` drawn deals.

    With ``decks``, each scene lays the faces of one of them (its backs stay drawn); courts
    printed with a letter other than J, Q or K (``FaceDeck.foreign_courts``) are "not an
    index".
    """
    xs: list[np.ndarray] = []
    rs: list[int] = []
    ss: list[int] = []
    settings = SceneSettings(frames_per_step=3, hand_frames=1)
    for k in range(scenes):
        rnd, rng, script = scripted_deal(seed, k)
        scene_settings = settings
        deck = decks[rnd.randrange(len(decks))] if decks else None
        if deck is not None:
            scene_settings = replace(settings, faces=deck.face)
        renderer = SceneRenderer(script, rng=rng, settings=scene_settings)
        boxes = list(deck.index_boxes) if deck is not None else drawn_boxes(renderer.style)
        for index in rng.choice(renderer.frame_count, size=min(frames, renderer.frame_count),
                                replace=False):
            frame = renderer.render(int(index))
            patches, labels = _label_frame(frame.image, frame.truth, boxes, rng, keep_negatives,
                                           deck.foreign_courts if deck else frozenset())
            if len(labels):
                xs.append(patches)
                rs.extend(r for r, _ in labels)
                ss.extend(s for _, s in labels)
    if not xs:
        z = np.zeros(0, np.int64)
        return np.zeros((0, PATCH_SIZE, PATCH_SIZE, 3), np.uint8), z, z
    return np.concatenate(xs), np.array(rs, np.int64), np.array(ss, np.int64)
