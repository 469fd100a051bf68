"""Whether an index's size fits the card height the camera was told: an index is a rank and a
suit glyph of one card, so its rank-to-suit span is a fixed share of that card's height
(``detection.CARD_HEIGHT`` spans). A pair whose span is several times too big or too small
is a rank of one card paired with a suit (or a pip) of another, or ink that is no index at
all; read as a card it is a wrong card, which costs a player more than a card not read.

Only where the card height is known (``card_px``: a mounted camera, ``CameraRecogniser``); a
photo as taken has no such measure and keeps every pair.

The band is wide because the decks and the tables are. Measured on the dev split of EPFL and
Roboflow (the card height told is the device's 0.125 of the frame's height): at device
geometry (1280x720 and 2304x1296, cards 60-90 px per 720 rows as labelled, 2,900 readings of
correct cards) the spans were 0.38-2.37 times ``card_px / CARD_HEIGHT`` (small indices on
cards farther than told near 0.4; Roboflow's big-index webcam decks near 2); with every card
100 px tall in 1280x720 (nearer than told) they reached 2.98, and a band ending at 2.75 lost
3 of 890 Roboflow cards there. So the band ends 10 % past that, and starts 15 % below the
smallest; cards 45 px tall (half the height told) lost none to it. The wrong card it was made
for (a rank paired with another card's suit, read 10D, Roboflow test at 1280x720) spans 3.6.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["SPAN_LOW", "SPAN_HIGH", "span_fits"]

# An index's span over the span that the told card height implies (``card_px / CARD_HEIGHT``):
# below SPAN_LOW or above SPAN_HIGH the pair is not an index of a card of that height.
SPAN_LOW = 0.33
SPAN_HIGH = 3.3


def span_fits(span: np.ndarray, expected: float) -> np.ndarray:
    """Which of the spans ``span`` ((n,), pixels) fit an index of a card whose index spans
    ``expected`` pixels (``card_px / CARD_HEIGHT``): a bool mask (n,)."""
    if isinstance(expected, bool) or not isinstance(expected, (int, float)) \
            or not math.isfinite(expected) or expected <= 0:
        raise ValueError(f"span_fits: expected span must be a positive number of pixels, "
                         f"not {expected!r}")
    ratio = np.asarray(span, np.float64) / float(expected)
    return np.asarray((ratio >= SPAN_LOW) & (ratio <= SPAN_HIGH))
