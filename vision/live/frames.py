"""Reading over several frames: an unsure reading of a still region read again, and combined.

One frame decides too much when the recogniser is unsure: sensor noise, a passing shadow
or the compression of one frame can tip a blurred index from six to eight. So
``vision.live.motion.StreamReader`` reports a sure reading (``SURE`` or more) on the first
still frame, as it always did, and holds an unsure one (below ``SURE``, or no card named)
back for the next ``REREADS`` still frames, reads its region again in each, and reports
``combine`` of the readings: each card's probability averaged over the frames (the reading's
own confidence for the card it names, its ranked runners-up for the others:
``vision.recognise.detection.Detection.alternatives``). The combined card is named only when
its mean reaches the recogniser's own floor (``DEFAULT_MIN_CONFIDENCE``) and the recogniser
named it in at least half the frames; else the card is
reported unreadable, with its likeliest readings as runners-up. A frame where the recogniser
found nothing at the card's place says nothing about which card it is and is left out.

Why ``SURE`` is 0.9: on the dev validation fold every real misread the recogniser made
scored between 0.5 and 0.7 (vision/training/README.md: 0.51 and 0.58 below the floor of 0.6,
one in 0.6-0.7). On 40 dev photos (20 EPFL, 20 Roboflow) read at 1280 and 2304 px wide,
the 668 cards named scored: 6 in 0.7-0.8, 41 in 0.8-0.9, 98 in 0.9-0.95 and 523 above,
none wrong (2026-11-27). So 0.9 leaves the band where misreads live, with a margin, to
several frames, and reports 93% of readings on their first still frame, as before; the
four real cards of ``benchmarks/vision/live_path.py laid-cards`` are each read once
(``reads``).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import Card
from vision.live.tracker import Seen
from vision.recognise.detection import ALTERNATIVES, DEFAULT_MIN_CONFIDENCE, Detection

__all__ = ["SURE", "REREADS", "sure", "combine", "probabilities"]

#: A reading at least this confident is reported on its first still frame (the docstring).
SURE = 0.9
#: How many more still frames an unsure reading is read in before it is reported.
REREADS = 2


def sure(seen: Seen, *, threshold: float = SURE) -> bool:
    """Whether a reading names a card confidently enough to report at once."""
    return seen.card is not None and seen.confidence >= threshold


def probabilities(seen: Seen) -> dict[Card, float]:
    """A reading's probability for each card it ranks: its card's confidence and its
    runners-up's (a reading without runners-up ranks only its card)."""
    out = {card: p for card, p in getattr(seen, "alternatives", ())}
    if seen.card is not None:
        out[seen.card] = seen.confidence
    return out


def combine(readings: Sequence[Seen], *, min_confidence: float = DEFAULT_MIN_CONFIDENCE
            ) -> Detection:
    """One reading of one card from its readings in several frames (oldest first): the mean of
    each card's probability over the frames, named when the best mean reaches
    ``min_confidence`` and the recogniser named that card in at least half the frames (it
    calls a reading unknown for reasons its probabilities do not show: a rival reading of the
    same glyphs), so one frame's reading is reported exactly as read; the outline is the
    latest frame's."""
    if not readings:
        raise ValueError("combine needs at least one reading")
    totals: dict[Card, float] = {}
    named: dict[Card, int] = {}
    for seen in readings:
        for card, p in probabilities(seen).items():
            totals[card] = totals.get(card, 0.0) + p
        if seen.card is not None:
            named[seen.card] = named.get(seen.card, 0) + 1
    n = len(readings)
    ranked = sorted(((card, total / n) for card, total in totals.items()),
                    key=lambda item: (-item[1], item[0].index))
    corners = tuple(readings[-1].corners)
    outline = (corners[0], corners[1], corners[2], corners[3])
    if ranked and ranked[0][1] >= min_confidence and 2 * named.get(ranked[0][0], 0) >= n:
        best, p = ranked[0]
        return Detection(best, outline, p, tuple(ranked[1:1 + ALTERNATIVES]))
    unsure = sum(seen.confidence for seen in readings) / n
    return Detection(None, outline, unsure, tuple(ranked[:ALTERNATIVES]))
