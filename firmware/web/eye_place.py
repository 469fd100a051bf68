"""Where the camera's eye puts its marks (``firmware.web.eye_picture`` draws them): the
geometry that keeps labels, leader lines and expected-card boxes apart from each other and
from the cards, kept apart from the drawing so it can be read and tested on its own.

Two things the players could not read past on a 390 px phone (issue 61's walk-through):
a leader line running through another card's name, and the dashed "Ann: hand?" box drawn
over fanned cards the camera cannot read (it knows nothing of them: no outline). So a
``Board`` remembers every label and leader placed, and a label is only put where it covers
no other label or card index, crosses no leader, and its own leader crosses no label; and
a ``Ground`` tells from the picture itself where something other than the bare table lies
(a card is far lighter, or of another colour, than the table around it), so that a box or
label prefers the table's bare cloth.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

__all__ = ["Box", "Segment", "Board", "Ground", "leader_for", "crosses", "overlap",
           "QUIET_SHARE"]

Box = tuple[float, float, float, float]  # x0, y0, x1, y1
Segment = tuple[float, float, float, float]  # x0, y0, x1, y1

#: A box counts as bare table when at most this share of its pixels is unlike the table.
QUIET_SHARE = 0.06
#: How far a pixel's brightness (Y) and colour (Cr, Cb) may each be from the table's usual
#: ones and still count as the table: a white card differs in Y by 100 or more, a felt's
#: grain by far less. Chosen on the dev photos' validation fold (the eye's
#: picture of each; label-sized boxes over their 326 labelled corner indices and 400 at
#: random per photo): it calls 7 index boxes bare table where the Lab test it replaced
#: (the largest Lab difference over 30) called 15, and agrees with that test on 96% of the
#: random boxes; no mark moved on 129 drawn eye pictures (felt and wood, eight tables).
_UNLIKE = (25, 20, 20)


def overlap(a: Box, b: Box) -> bool:
    """Whether two boxes share any area."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def crosses(segment: Segment, box: Box) -> bool:
    """Whether ``segment`` passes through ``box``'s inside (Liang-Barsky clipping)."""
    x0, y0, x1, y1 = segment
    dx, dy = x1 - x0, y1 - y0
    low, high = 0.0, 1.0
    for p, q in ((-dx, x0 - box[0]), (dx, box[2] - x0), (-dy, y0 - box[1]), (dy, box[3] - y0)):
        if p == 0:
            if q <= 0:
                return False
            continue
        t = q / p
        if p < 0:
            low = max(low, t)
        else:
            high = min(high, t)
        if low >= high:
            return False
    return True


def leader_for(label: Box, outline: Sequence[Sequence[float]]) -> Segment | None:
    """The thin line from a label moved aside to its card, so it is clear whose name it is:
    from the label's point nearest the card's middle to the card's nearest edge. None for a
    label on the card or within ``_NEAR`` pixels of it (plainly its own)."""
    xs, ys = [p[0] for p in outline], [p[1] for p in outline]
    card = (min(xs), min(ys), max(xs), max(ys))
    gap_x = max(card[0] - label[2], label[0] - card[2], 0.0)
    gap_y = max(card[1] - label[3], label[1] - card[3], 0.0)
    if max(gap_x, gap_y) < _NEAR:
        return None
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    ax, ay = min(max(mx, label[0]), label[2]), min(max(my, label[1]), label[3])
    bx, by = min(max(ax, card[0]), card[2]), min(max(ay, card[1]), card[3])
    return (ax, ay, bx, by)


#: A label this close to its card (pixels) needs no leader line.
_NEAR = 12


@dataclass(slots=True)
class Board:
    """The marks placed so far: ``kept`` boxes no label may cover (card indices, labels),
    ``labels`` the label boxes (no leader may cross them) and ``leaders``."""

    kept: list[Box] = field(default_factory=list)
    labels: list[Box] = field(default_factory=list)
    leaders: list[Segment] = field(default_factory=list)

    def fits(self, rect: Box, leader: Segment | None) -> bool:
        """Whether a label at ``rect`` (with its ``leader``) covers no kept box, crosses no
        leader, and its leader crosses no label."""
        return not (any(overlap(rect, k) for k in self.kept)
                    or any(crosses(line, rect) for line in self.leaders)
                    or (leader is not None and any(crosses(leader, b) for b in self.labels)))

    def covered(self, rect: Box) -> float:
        """How much of the kept boxes ``rect`` covers (for a label with no free place)."""
        return sum(max(0.0, min(rect[2], k[2]) - max(rect[0], k[0]))
                   * max(0.0, min(rect[3], k[3]) - max(rect[1], k[1])) for k in self.kept)

    def keep(self, rect: Box, leader: Segment | None) -> None:
        self.kept.append(rect)
        self.labels.append(rect)
        if leader is not None:
            self.leaders.append(leader)


class Ground:
    """Where the picture shows something other than the bare table: each pixel whose YCrCb
    brightness or colour differs by more than ``_UNLIKE`` from the picture's median (the
    table covers most of a frame), summed in an integral image so each box costs four
    look-ups.

    Never through Lab or Luv: OpenCV's 8-bit Lab and Luv converters
    (``modules/imgproc/src/color_lab.cpp``: ``RGB2Lab_b``, ``RGB2Lab_f`` and the rest) first
    call ``initLabTabs()``, which builds the Lab and Luv interpolation tables
    (``initLUTforLABLUVs16``: two of 33^3 x 24 int16s), the Luv tables (``initLUTforLUV``:
    three of 256 x 256), ``abToXZ_b`` and the gamma and cube-root tables, all held by
    ``cv::allocSingleton`` or as statics for the process's life: about 4.6 MB more RSS after
    the first picture, which took a camera-equipped board past its 150 MB
    (``benchmarks/device/rss.py``). The YCrCb converter (``color_yuv.cpp``,
    ``RGB2YCrCb_i``) works from five integer coefficients and keeps no table (measured: no
    RSS held after its first call)."""

    def __init__(self, image: np.ndarray) -> None:
        if (image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3
                or image.size == 0):
            raise ValueError(f"Ground needs an 8-bit BGR picture (height x width x 3 uint8), "
                             f"not a {image.dtype} array of shape {image.shape}")
        ycc = cv2.cvtColor(image, cv2.COLOR_BGR2YCrCb)
        usual = np.median(ycc.reshape(-1, 3)[::7], axis=0)
        low = tuple(float(max(0.0, u - t)) for u, t in zip(usual, _UNLIKE, strict=True))
        high = tuple(float(min(255.0, u + t)) for u, t in zip(usual, _UNLIKE, strict=True))
        unlike = (cv2.inRange(ycc, low, high) == 0).astype(np.uint8)
        self._sums = cv2.integral(unlike)
        self._h, self._w = unlike.shape

    def share(self, box: Box) -> float:
        """The share of ``box``'s pixels (clipped to the picture) unlike the table."""
        x0, y0 = int(max(0, min(self._w, box[0]))), int(max(0, min(self._h, box[1])))
        x1, y1 = int(max(0, min(self._w, box[2]))), int(max(0, min(self._h, box[3])))
        if x1 <= x0 or y1 <= y0:
            return 0.0
        s = self._sums
        total = int(s[y1, x1]) - int(s[y0, x1]) - int(s[y1, x0]) + int(s[y0, x0])
        return total / ((x1 - x0) * (y1 - y0))

    def quiet(self, box: Box) -> bool:
        """Whether ``box`` lies on the bare table (``QUIET_SHARE``)."""
        return self.share(box) <= QUIET_SHARE
