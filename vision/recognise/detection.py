"""Finds and names every face-up card in a frame: ``recognise(image) -> list[Detection]``.

Pipeline: a frame softer than a focused photo sharpened back (``vision.recognise.focus``),
whole free-lying cards read at both corners (``vision.recognise.whole_cards``),
then, for the rest, candidate corner indices (``vision.recognise.candidates``) -> CNN scores
(``vision.recognise.classifier``) -> one reading per physical index -> one detection per
card (a card shows up to two indices; a deck holds each card once). A wrong
card costs more than a missing one (the device can ask again; it cannot
un-score a wrong fifteen), so anything below ``min_confidence``, or any index
where two different cards both score well, is reported as unknown; only the
two corners of one card, each fairly sure of the same card, may together
reach ``min_confidence``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.cards import Card
from vision.recognise.candidates import IndexCandidates, find_candidates, find_candidates_in
from vision.recognise.classifier import (
    MODEL_PATH,
    PatchScores,
    ScoreAdjuster,
    classify,
    ranked_cards,
)
from vision.recognise.finder import IndexFinder, load_finder
from vision.recognise.focus import (
    SHARPENED_MIN_CONFIDENCE,
    FocusMeter,
    blur_sigma,
    refocus,
    sharpens,
)
from vision.recognise.frames import check_frame
from vision.recognise.geometry import points_in_quad
from vision.recognise.ink_colour import colour_checked
from vision.recognise.pip_suit import contradicts
from vision.recognise.span_check import span_fits
from vision.recognise.whole_cards import CardQuad, corner_patches, find_card_quads, read_card

__all__ = ["Detection", "recognise", "CameraRecogniser", "DEFAULT_MIN_CONFIDENCE", "card_outline",
           "index_centres", "points_in_quad"]

Point = tuple[float, float]
Corners = tuple[Point, Point, Point, Point]

# Chosen on dev's validation fold, with models that never saw it (vision/training/README.md):
# from 0.7 to 0.6 recall rose 2-5 points over three training seeds, and the 0.6-0.7 band
# added 0, 1 and 0 real misreads (the other "wrong" cards are ones the photos show but their
# labels leave out); at 0.5 two misreads (0.51, 0.58) came in. 24 more cards found for 1
# misread is worth it even if a wrong card costs ten missing ones (training README).
DEFAULT_MIN_CONFIDENCE = 0.6
# An index is only reported (even as unknown) when the CNN is this sure it is one (chosen on
# the dev split; 0.6 or 0.5 changed nothing on the validation fold).
MIN_INDEX_PROBABILITY = 0.7
# A rival reading of the same index at least this likely makes the index unknown.
RIVAL_PROBABILITY = 0.2
# A reading this sure counts towards a card when another index of the same card (its
# other corner) agrees: a deck holds each card once, so two readings corroborate.
CORROBORATED_FLOOR = 0.5
# A Detection's alternatives: at most this many runners-up, each at least this likely (a
# reading below one in a hundred is noise, not a choice worth naming to the players).
ALTERNATIVES = 3
ALTERNATIVE_FLOOR = 0.01
# Two candidates use the same glyph when their centroids are this close (x rank-to-suit span).
GLYPH_SAME = 0.2
# Whether the camera's recogniser (``CameraRecogniser``, card height known) also runs the learned
# index finder (``vision.recognise.finder``) where it reads. On: test at device:1280x720 EPFL
# recall 0.812 -> 0.887, at 2304x1296 0.900 -> 0.925, no card more read wrong, for 2-3 ms a
# laid card's region on one build core (vision/training/README.md, "Learned index finder").
USE_FINDER = True

# Card geometry in units of the rank-to-suit distance, measured on bridge and
# poker decks: index centre from the card's corner, and the card's size.
INDEX_FROM_EDGE = 0.75
INDEX_FROM_TOP = 1.7
CARD_WIDTH = 6.6
CARD_HEIGHT = 9.2


@dataclass(frozen=True, slots=True)
class Detection:
    """One card seen in a frame. ``card`` is None when the card is there but unreadable.

    ``corners`` are the card's four corners in frame pixels, clockwise from the
    top-left of the card as it reads upright. ``alternatives`` are the recogniser's next
    likeliest readings of the card's best index, best first, with their probabilities (rank x
    suit; for an unreadable card, its likeliest readings): what the game may choose between
    when ``card`` cannot be (``firmware.table.alternatives``), and what several frames'
    readings are combined by (``vision.live.frames``).
    """

    card: Card | None
    corners: Corners
    confidence: float
    alternatives: tuple[tuple[Card, float], ...] = ()


@dataclass(frozen=True, slots=True)
class _Index:
    card: Card | None
    confidence: float
    centre: np.ndarray
    down: np.ndarray
    span: float
    ranked: tuple[tuple[Card, float], ...] = ()


def runners_up(ranked: tuple[tuple[Card, float], ...], card: Card | None
               ) -> tuple[tuple[Card, float], ...]:
    """The readings in ``ranked`` other than ``card``, likely enough to name
    (``ALTERNATIVE_FLOOR``), at most ``ALTERNATIVES`` of them."""
    return tuple((c, p) for c, p in ranked if c != card and p >= ALTERNATIVE_FLOOR)[:ALTERNATIVES]


def card_outline(centre: np.ndarray, down: np.ndarray, span: float) -> np.ndarray:
    """Estimates a card's corners (4, 2) from one corner index: centre, down vector and scale."""
    u = np.asarray(down, np.float64)
    r = np.array([u[1], -u[0]])
    origin = np.asarray(centre, np.float64) - span * (INDEX_FROM_EDGE * r + INDEX_FROM_TOP * u)
    w = CARD_WIDTH * span * r
    h = CARD_HEIGHT * span * u
    return np.array([origin, origin + w, origin + w + h, origin + h])


def index_centres(corners: Corners) -> tuple[np.ndarray, float]:
    """A card outline's two corner-index centres (2, 2) and its rank-to-suit span: the
    inverse of ``card_outline``, for telling whether two readings name one index."""
    c = np.asarray(corners, np.float64)
    across, down = c[1] - c[0], c[3] - c[0]
    span = float(np.hypot(*across)) / CARD_WIDTH
    r = across / max(float(np.hypot(*across)), 1e-9)
    u = down / max(float(np.hypot(*down)), 1e-9)
    step = span * (INDEX_FROM_EDGE * r + INDEX_FROM_TOP * u)
    return np.array([c[0] + step, c[2] - step]), span


def _read_indices(cand: IndexCandidates, rank: np.ndarray, suit: np.ndarray) -> list[_Index]:
    """Picks one reading per printed index among candidates that share its glyphs.

    Candidates conflict when they use a glyph of the same blob (the upside-down
    and sideways pairings of one index, or a rank paired with a neighbour's suit
    in a fan); the likeliest index among them wins. Only pairings of the very
    same two glyphs can veto it as a rival: in a fanned hand the next card's
    index sits close by and reads differently, rightly.
    """
    cards, conf, is_index = PatchScores(rank, suit).best()
    # Only likely indices can win or veto; the rest never enter the pairwise tables.
    live = np.nonzero(is_index >= 0.5)[0]
    rank_xy, suit_xy, span = cand.rank_xy[live], cand.suit_xy[live], cand.span[live]

    def close(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        d = np.hypot(a[:, None, 0] - b[None, :, 0], a[:, None, 1] - b[None, :, 1])
        return np.asarray(d < (GLYPH_SAME * span)[:, None])

    rr, ss, rs = close(rank_xy, rank_xy), close(suit_xy, suit_xy), close(rank_xy, suit_xy)
    sr = close(suit_xy, rank_xy)
    shares = rr | ss | rs | sr
    same_pair = (rr & ss) | (rs & sr)
    named = np.array([cards[i] is not None for i in live], bool)
    order = np.argsort(-(is_index[live] * np.where(named, conf[live], 0.0)))
    used = np.zeros(len(live), bool)
    out: list[_Index] = []
    for k in order:
        i = int(live[k])
        if used[k] or is_index[i] < MIN_INDEX_PROBABILITY:
            continue
        used |= shares[k]
        used[k] = True
        best_card, best_conf = cards[i], float(conf[i])
        for j in live[np.nonzero(same_pair[k])[0]].tolist():
            if cards[j] is not None and cards[j] != best_card and conf[j] >= RIVAL_PROBABILITY:
                best_card = None
        out.append(_Index(best_card, best_conf, 0.5 * (cand.rank_xy[i] + cand.suit_xy[i]),
                          cand.down[i], float(cand.span[i]), ranked_cards(rank[i], suit[i])))
    return out


def _merge_outlines(indices: list[_Index]) -> np.ndarray:
    """Card outline from its indices: the two diagonal ones agree on one card, else the best."""
    best = max(indices, key=lambda x: x.confidence)
    outline = card_outline(best.centre, best.down, best.span)
    estimates = [outline]
    for other in indices:
        if other is best:
            continue
        est = card_outline(other.centre, other.down, other.span)
        if float(np.dot(other.down, best.down)) < -0.7:
            est = np.roll(est, 2, axis=0)  # the opposite corner reads upside down
        if np.hypot(*(est.mean(0) - outline.mean(0))) < 0.25 * CARD_HEIGHT * best.span:
            estimates.append(est)
    return np.asarray(np.mean(estimates, axis=0))


def _corners(points: np.ndarray) -> Corners:
    p = [(float(x), float(y)) for x, y in points]
    return (p[0], p[1], p[2], p[3])


def recognise(
    image: np.ndarray,
    *,
    min_confidence: float = DEFAULT_MIN_CONFIDENCE,
    model_path: str = str(MODEL_PATH),
    deck: ScoreAdjuster | None = None,
    blur: float | None = None,
    card_px: float | None = None,
    finder: IndexFinder | None = None,
    index_window: tuple[int, int, int, int] | None = None,
) -> list[Detection]:
    """Finds the face-up cards in a BGR frame; unreadable ones come back with ``card=None``.

    Detections are sorted by confidence, highest first. ``deck`` is the table's taught
    deck (``vision.recognise.deck.DeckProfile``), which adjusts every patch's scores. ``blur`` is
    the frame's ``vision.recognise.focus.blur_sigma`` where the caller knows it (a camera's,
    measured now and then: ``CameraRecogniser``); None measures this frame. ``card_px`` is a card's
    height in the frame's pixels where the caller knows it (a mounted camera): the frame is
    read at the cards' scale, not its own size's (``vision.recognise.candidates.reading``);
    where the faint-ink search finds dense faint ink (wood grain:
    ``candidates.FAINT_DENSE_PER_MP``) it keeps only what lies inside the card outlines not
    read whole (``candidates.FAINT_OUTLINE_MARGIN``); sparse faint ink, as the indices of an
    overlapping hand that shows no outline, it keeps everywhere, as a photo's reading does.
    With ``card_px`` a rank-suit pair far too big or small for such a card is no index
    (``vision.recognise.span_check``: one card's rank paired with another's suit).
    ``finder`` (with ``card_px``) adds the learned index finder's pairs to the classic ones.
    ``index_window`` (x0, y0, x1, y1 in ``image``'s pixels) confines the search for index
    pairs, classic and learned, to that part of the image; outlines are still found in all of
    it (``candidates.find_candidates_in``: the live path's changed cells, where a laid card's
    indices lie). None searches everywhere.
    """
    check_frame(image, "recognise")
    sigma = blur_sigma(image) if blur is None else blur
    if sharpens(sigma):
        image = refocus(image, sigma)
        min_confidence = max(min_confidence, SHARPENED_MIN_CONFIDENCE)
    detections: list[Detection] = []
    outlines: list[np.ndarray] = []
    named: set[Card] = set()
    quads = find_card_quads(image, card_px=card_px)
    unread = set(range(len(quads)))
    for card, conf, quad, ranked, q in _whole_cards(image, quads, model_path=model_path,
                                                    deck=deck):
        if conf >= min_confidence and card not in named:
            named.add(card)
            unread.discard(q)
            outlines.append(quad)
            detections.append(Detection(card, _corners(quad), conf, runners_up(ranked, card)))
    faint_within = None if card_px is None else [quads[q].corners for q in sorted(unread)]
    # The span band and the cards read whole are told the candidate stage too, which drops
    # such pairs before cutting them (the checks below stay for any candidates' source).
    span = None if card_px is None else card_px / CARD_HEIGHT
    if index_window is None:
        cand = find_candidates(image, card_px=card_px, faint_within=faint_within, finder=finder,
                               index_span=span, read_whole=tuple(outlines))
    else:  # the live path: near the changed cells only
        cand = find_candidates_in(image, index_window, card_px=card_px, finder=finder,
                                  faint_within=faint_within, index_span=span,
                                  read_whole=tuple(outlines))
    if card_px is not None and len(cand):
        # A pair too big or too small for the told card is two cards' glyphs (span_check).
        cand = _subset(cand, span_fits(cand.span, card_px / CARD_HEIGHT))
    if outlines and len(cand):
        # Indices on a card already read whole need no second reading.
        keep = ~np.any([points_in_quad(cand.rank_xy, o) for o in outlines], axis=0)
        cand = _subset(cand, keep)
    if len(cand) == 0:
        return _pips_checked(image, detections)
    # Red ink is never a club or a spade (ink_colour: a heart's small index read as a spade).
    scores = colour_checked(cand.patches, classify(cand.patches, model_path=model_path, deck=deck))
    indices = _read_indices(cand, scores.rank, scores.suit)
    by_card: dict[Card, list[_Index]] = {}
    unknown: list[_Index] = []
    for idx in indices:
        if idx.card is not None and idx.confidence >= CORROBORATED_FLOOR:
            by_card.setdefault(idx.card, []).append(idx)
        else:
            unknown.append(idx)
    for card, group in by_card.items():
        if card in named:
            continue
        miss = 1.0
        for idx in group:
            miss *= 1.0 - idx.confidence
        if 1.0 - miss < min_confidence:  # one unsure reading, or two that barely agree
            unknown += group
            continue
        outline = _merge_outlines(group)
        outlines.append(outline)
        best = max(group, key=lambda x: x.confidence)
        detections.append(Detection(card, _corners(outline), float(1.0 - miss),
                                    runners_up(best.ranked, card)))
    for idx in unknown:
        # An unreadable index on a card already named is that card's other corner.
        if any(points_in_quad(idx.centre, o)[0] for o in outlines):
            continue
        outline = card_outline(idx.centre, idx.down, idx.span)
        detections.append(Detection(None, _corners(outline), float(idx.confidence),
                                    runners_up(idx.ranked, None)))
    return _pips_checked(image, detections)


class CameraRecogniser:
    """``recognise`` for a camera's stream of frames, the blur measured once every ``every``
    frames (``vision.recognise.focus.FocusMeter``) rather than on each: the device's recogniser."""

    def __init__(self, *, deck: ScoreAdjuster | None = None,
                 min_confidence: float = DEFAULT_MIN_CONFIDENCE, model_path: str = str(MODEL_PATH),
                 every: int = 30, finder: bool | None = None) -> None:
        self.deck = deck
        # The learned index finder: ``USE_FINDER`` where not told.
        self.finder = load_finder() if (USE_FINDER if finder is None else finder) else None
        self.min_confidence = min_confidence
        self.model_path = model_path
        self.focus = FocusMeter(every)

    #: ``StreamReader`` may confine its index search (``recognise``'s ``index_window``).
    reads_index_window = True

    def __call__(self, image: np.ndarray, *, card_px: float | None = None,
                 index_window: tuple[int, int, int, int] | None = None) -> list[Detection]:
        """Reads a frame, or a crop of one, whose cards are ``card_px`` tall where known,
        searching for indices in ``index_window`` only where given (``recognise``)."""
        check_frame(image, "CameraRecogniser")  # before the meter, which would name itself
        return recognise(image, min_confidence=self.min_confidence, model_path=self.model_path,
                         deck=self.deck, blur=self.focus(image), card_px=card_px,
                         finder=self.finder, index_window=index_window)


def _whole_cards(image: np.ndarray, quads: list[CardQuad], *, model_path: str,
                 deck: ScoreAdjuster | None = None
                 ) -> list[tuple[Card, float, np.ndarray, tuple[tuple[Card, float], ...], int]]:
    """Cards read whole from their outlines ``quads``: (card, confidence, corners upright, the
    ranked readings of its likeliest index patch, the quad's number)."""
    out: list[tuple[Card, float, np.ndarray, tuple[tuple[Card, float], ...], int]] = []
    if not quads:
        return out
    parts = [corner_patches(image, q) for q in quads]
    sizes = [len(p[0]) for p in parts]
    if sum(sizes) == 0:
        return out
    patches = np.concatenate([p[0] for p in parts])
    scores = colour_checked(patches, classify(patches, model_path=model_path, deck=deck))
    start = 0
    for q, ((_, ids, orients), n) in enumerate(zip(parts, sizes, strict=True)):
        if n:
            rank, suit = scores.rank[start:start + n], scores.suit[start:start + n]
            card, conf, _, k = read_card(rank, suit, ids)
            if card is not None:
                cards, probability, _ = PatchScores(rank, suit).best()
                best = max(range(n), key=lambda i: (cards[i] == card, float(probability[i])))
                out.append((card, conf, orients[k], ranked_cards(rank[best], suit[best]), q))
        start += n
    out.sort(key=lambda t: -t[1])
    return out


def _pips_checked(image: np.ndarray, detections: list[Detection]) -> list[Detection]:
    """The detections, highest confidence first, each card whose body's pips plainly say
    another suit (``vision.recognise.pip_suit``: a club read a spade from a tiny index)
    made unknown, same outline, its reading the likeliest of its runners-up: the board asks."""
    out = [Detection(None, d.corners, d.confidence,
                     ((d.card, d.confidence), *d.alternatives)[:ALTERNATIVES])
           if d.card is not None and contradicts(image, d.corners, d.card) else d
           for d in detections]
    out.sort(key=lambda d: -d.confidence)
    return out


def _subset(cand: IndexCandidates, keep: np.ndarray) -> IndexCandidates:
    return IndexCandidates(cand.patches[keep], cand.rank_xy[keep], cand.suit_xy[keep],
                           cand.down[keep], cand.span[keep])
