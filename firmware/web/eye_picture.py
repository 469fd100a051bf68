"""Draws the camera's eye (``firmware.web.camera_eye``): the frame scaled for a phone, marked.

On the picture, in the frame's own colours dimmed a little so the marks stand out:

- each zone's border, thin, with whose area it is now;
- each card the board has read, or a player named or corrected by hand: a green outline and
  the name the game holds on a label above it;
- each card seen but not read: an orange outline and a "?";
- each place where the game waits for a card it has not seen: a dashed yellow card-sized
  box in that zone, with what it waits for ("Ann: next card", "starter", "Bob: hand");
- each card that lay on the table when the board started, which it takes for the table's
  own art and never counts: a dashed blue outline labelled "at start", and the page's words
  say how to count it (``firmware.table.words.at_start_words``).

The same outlines go to the page as JSON, in the picture's pixels, so it can lay tap targets
over them: a read card to correct, an unread one or an expected place to name.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from typing import Any

import cv2
import numpy as np

from firmware.table.words import at_start_words
from firmware.web.eye_place import Board, Box, Ground, leader_for
from firmware.web.eye_view import EyeView, Outline, marks, point_inside
from vision.live.zones import centroid

__all__ = ["draw_eye", "for_phone", "picture_size", "PHONE_WIDTH", "QUALITY", "READ", "UNREAD",
           "EXPECTED", "ZONE", "AT_START"]

#: The picture's width: a phone's screen is 1080 to 1290 device pixels across, the page a
#: little narrower; a 1280x720 frame at 960 px is about 90 kB at ``QUALITY``.
PHONE_WIDTH = 960
QUALITY = 80
# BGR colours, told apart also by line style (dashed expected places) and by label.
READ = (60, 200, 60)
UNREAD = (0, 140, 255)
EXPECTED = (0, 215, 255)
ZONE = (235, 235, 235)
AT_START = (235, 170, 110)
_FONT = cv2.FONT_HERSHEY_SIMPLEX
# A card's height over its width (poker size, 88 x 63 mm).
_CARD_RATIO = 88 / 63


def draw_eye(view: EyeView, *, width: int = PHONE_WIDTH, quality: int = QUALITY
             ) -> tuple[bytes, dict[str, Any]]:
    """The JPEG and the page's JSON for ``view``. Never writes to the camera's frame."""
    frame_w, frame_h = view.size
    out_w, out_h = picture_size(view.size, width)
    scale = min(1.0, width / frame_w)
    image = _base(view.image, (out_w, out_h))
    line = max(2, round(out_w / 320))
    text = out_w / 700  # the font's scale: labels about 4% of the picture's width tall

    def scaled(outline: Sequence[tuple[float, float]]) -> list[list[float]]:
        return [[round(x * scale, 1), round(y * scale, 1)] for x, y in outline]

    marked = marks(view)
    ground = Ground(image)  # before any mark: where cards lie, read or not
    board = Board()  # labels and leaders placed so far, and the cards' corner indices
    for o in [c.outline for c in marked.cards] + [u.outline for u in marked.unread] + [
            o for _, o in view.at_start]:
        board.kept.append(_index_box(scaled(o)))
    places = []
    for place in marked.places:
        polygon = scaled(place.polygon)
        _poly(image, polygon, ZONE, 1)
        name = place.place or f"{place.zone} (nobody)"
        at = _label(image, name, [_outer_edge(polygon, out_w, out_h, text)], ZONE, text * 0.8,
                    dark=True, board=board)
        places.append({"zone": place.zone, "place": place.place, "polygon": polygon,
                       "label": [round(v, 1) for v in at]})

    card_h = _card_height([c.outline for c in marked.cards] + [u.outline for u in marked.unread]
                          + [o for _, o in view.at_start], frame_h) * scale
    lying = [scaled(c.outline) for c in marked.cards] + [scaled(u.outline)
                                                        for u in marked.unread] + [
        scaled(o) for _, o in view.at_start]
    expected = []
    for want in view.table.expected:
        zone = next((p for p in marked.places if p.place == want.place), None)
        if zone is None or any(u.place == want.place for u in marked.unread) or (
                want.what == "cut" and any(c.place == want.place for c in marked.cards)):
            continue  # no area for it in view; a card not read lies there (that is the one
            # to name); or the card cut for the deal lies there already
        box = _placeholder(scaled(zone.polygon), card_h, out_w, out_h, lying, ground)
        _poly(image, box, EXPECTED, line, dashed=True)
        words = want.what if want.place in ("starter", "crib") else f"{want.place}: {want.what}"
        at = _label(image, words + "?", _spots(box, out_h, text), EXPECTED, text, board=board,
                    ground=ground, outline=box)
        expected.append({"place": want.place, "what": want.what, "cards": want.cards,
                         "outline": box, "label": [round(v, 1) for v in at]})

    unread = []
    for seen in marked.unread:
        outline = scaled(seen.outline)
        _poly(image, outline, UNREAD, line)
        at = _label(image, "?", _spots(outline, out_h, text), UNREAD, text, board=board,
                    ground=ground, outline=outline)
        unread.append({"place": seen.place, "outline": outline,
                       "label": [round(v, 1) for v in at]})

    at_start = []
    for card, outline_ in view.at_start:
        outline = scaled(outline_)
        _poly(image, outline, AT_START, line, dashed=True)
        at = _label(image, f"at start: {card}", _spots(outline, out_h, text), AT_START,
                    text * 0.8, board=board, ground=ground, outline=outline)
        at_start.append({"card": str(card), "outline": outline,
                         "label": [round(v, 1) for v in at]})

    cards = []
    for read in marked.cards:
        outline = scaled(read.outline)
        _poly(image, outline, READ, line)
        at = _label(image, str(read.card), _spots(outline, out_h, text), READ, text,
                    board=board, ground=ground, outline=outline)
        cards.append({"card": str(read.card), "place": read.place, "outline": outline,
                      "named": read.named, "label": [round(v, 1) for v in at]})

    ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise ValueError("OpenCV could not encode the camera's view as JPEG")
    leaders = [[round(v, 1) for v in seg] for seg in board.leaders]
    data = {"size": [out_w, out_h], "frame": [frame_w, frame_h], "at": round(view.at, 3),
            "leaders": leaders,
            "rev": view.table.rev, "cards": cards, "unread": unread, "places": places,
            "expected": expected, "at_start": at_start,
            "at_start_words": (at_start_words([c for c, _ in view.at_start])
                               if view.at_start else ""),
            "laid": {player: [str(c) for c in cards_] for player, cards_ in view.table.laid}}
    return encoded.tobytes(), data


def picture_size(frame: tuple[int, int], width: int = PHONE_WIDTH) -> tuple[int, int]:
    """The picture's size for a camera frame of size ``frame``: ``width`` across at most, in
    the frame's proportions (a narrower frame is not enlarged)."""
    scale = min(1.0, width / frame[0])
    return max(1, round(frame[0] * scale)), max(1, round(frame[1] * scale))


def for_phone(image: Any, width: int = PHONE_WIDTH) -> tuple[Any, tuple[int, int] | None]:
    """``image`` scaled down as ``draw_eye`` scales it (so the picture it draws is the same),
    and the camera frame's size (``EyeView.frame``); the image itself and None when it is no
    wider than ``width``. Why: the eye keeps its newest view until its next look, and a
    2304x1296 frame held there is 9 MB more at the device's peak memory; 960x540 is 1.5 MB."""
    array = np.asarray(image)
    frame = (int(array.shape[1]), int(array.shape[0]))
    size = picture_size(frame, width)
    if size == frame:
        return image, None
    return cv2.resize(array, size, interpolation=cv2.INTER_AREA), frame


def _base(frame: Any, size: tuple[int, int]) -> np.ndarray:
    """The frame at ``size`` as a new BGR image, dimmed a little so the marks stand out."""
    image = np.asarray(frame)
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if (image.shape[1], image.shape[0]) != size:
        image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    else:
        image = image.copy()
    return cv2.convertScaleAbs(image, alpha=0.8, beta=0)


def _poly(image: np.ndarray, outline: Sequence[Sequence[float]], colour: tuple[int, int, int],
          thickness: int, *, dashed: bool = False) -> None:
    points = np.round(np.asarray(outline, np.float64)).astype(np.int32)
    if not dashed:
        cv2.polylines(image, [points], True, (0, 0, 0), thickness + 2, cv2.LINE_AA)
        cv2.polylines(image, [points], True, colour, thickness, cv2.LINE_AA)
        return
    dash = max(6, 4 * thickness)
    for a, b in zip(points, np.roll(points, -1, axis=0), strict=True):
        length = float(np.hypot(*(b - a)))
        steps = max(1, int(length // dash))
        for k in range(0, steps, 2):
            p = a + (b - a) * (k / steps)
            q = a + (b - a) * (min(k + 1, steps) / steps)
            cv2.line(image, tuple(int(v) for v in p), tuple(int(v) for v in q), colour,
                     thickness, cv2.LINE_AA)


def _label(image: np.ndarray, words: str, spots: Sequence[tuple[float, float]],
           colour: tuple[int, int, int], scale: float, *, board: Board, dark: bool = False,
           ground: Ground | None = None,
           outline: Sequence[Sequence[float]] | None = None) -> Box:
    """``words`` on a filled box whose bottom-left is the first of ``spots`` (kept inside the
    picture) where the box fits the ``board`` (covers no other label or card index, crosses
    no leader line, and its own leader to ``outline`` crosses no label), on bare table if
    one such spot is (``ground``: not over cards the camera could not outline), else the
    nearest free place further off (``_farther``). The box and its leader join ``board``;
    the leader is drawn."""
    thickness = max(1, round(scale * 2))
    (w, h), base = cv2.getTextSize(words, _FONT, scale, thickness)
    pad = max(2, round(h * 0.3))

    def place(spot: tuple[float, float]) -> tuple[int, int]:
        return (int(min(max(spot[0], 0), image.shape[1] - w - 2 * pad)),
                int(min(max(spot[1], h + 2 * pad), image.shape[0] - base)))

    def rect(xy: tuple[int, int]) -> Box:
        return (xy[0], xy[1] - h - 2 * pad, xy[0] + w + 2 * pad, xy[1] + base)

    def fits(xy: tuple[int, int]) -> bool:
        return board.fits(rect(xy), _leader_of(rect(xy), outline))

    chosen = [place(spot) for spot in spots]
    free = [xy for xy in chosen if fits(xy)]
    quiet = [xy for xy in free if ground is None or ground.quiet(rect(xy))]
    x, y = (quiet or free or [_farther(chosen[0], (w + 2 * pad, h + 2 * pad + base), board,
                                       place, rect, fits)])[0]
    box = rect((x, y))
    leader = _leader_of(box, outline)
    board.keep(box, leader)
    if leader is not None:
        a, b = (int(leader[0]), int(leader[1])), (int(leader[2]), int(leader[3]))
        cv2.line(image, a, b, colour, 2, cv2.LINE_AA)
    if dark:  # a zone's name: light text on a see-through dark box, quieter than the cards'
        patch = image[max(0, y - h - 2 * pad):y + base, max(0, x):x + w + 2 * pad]
        patch[:] = (patch * 0.35).astype(np.uint8)
        cv2.putText(image, words, (x + pad, y - pad), _FONT, scale, colour, thickness,
                    cv2.LINE_AA)
        return box
    cv2.rectangle(image, (x, y - h - 2 * pad), (x + w + 2 * pad, y + base), colour, cv2.FILLED)
    cv2.putText(image, words, (x + pad, y - pad), _FONT, scale, (0, 0, 0), thickness,
                cv2.LINE_AA)
    return box


def _leader_of(box: Box, outline: Sequence[Sequence[float]] | None
               ) -> tuple[float, float, float, float] | None:
    return leader_for(box, outline) if outline is not None else None


def _farther(first: tuple[int, int], size: tuple[float, float], board: Board,
             place: Callable[[tuple[float, float]], tuple[int, int]],
             rect: Callable[[tuple[int, int]], Box],
             fits: Callable[[tuple[int, int]], bool]) -> tuple[int, int]:
    """Where a label goes when none of its card's own spots is free (a pegging pile fanned
    at the picture's edge): the free place nearest ``first`` on a grid of half a label across
    and a label down, up to six labels away (its leader line says whose it is); else the
    place it covers least of."""
    w, h = size
    around = sorted(((first[0] + i * (w / 2 + 2), first[1] + j * (h + 2))
                     for i in range(-6, 7) for j in range(-6, 7)),
                    key=lambda p: math.hypot(p[0] - first[0], 1.5 * (p[1] - first[1])))
    spots = [place(p) for p in around]
    free = next((xy for xy in spots if fits(xy)), None)
    if free is not None:
        return free
    return min(spots, key=lambda xy: board.covered(rect(xy)))


def _index_box(outline: Sequence[Sequence[float]]) -> Box:
    """Where a card's corner index lies, roughly: a fifth of its box at the top-left corner
    as the camera sees it (its bounding box's), which a label must not cover."""
    xs, ys = [p[0] for p in outline], [p[1] for p in outline]
    x0, y0, x1, y1 = min(xs), min(ys), max(xs), max(ys)
    return (x0, y0, x0 + (x1 - x0) * 0.3, y0 + (y1 - y0) * 0.25)


def _spots(outline: Sequence[Sequence[float]], height: int, scale: float
           ) -> list[tuple[float, float]]:
    """Where a card's label may go, best first: above it, above and further up, below it,
    inside its lower part, beside it."""
    xs, ys = [p[0] for p in outline], [p[1] for p in outline]
    x0, top, x1, bottom = min(xs), min(ys), max(xs), max(ys)
    line = 34 * scale
    return [_above(outline, height, scale), (x0, top - 4 - line), (x0, top - 4 - 2 * line),
            (x0, bottom + line), (x0 + 4, bottom - 6), (x1 + 4, (top + bottom) / 2),
            (x0 - 3 * line, (top + bottom) / 2), (x0, bottom + 2 * line)]


def _above(outline: Sequence[Sequence[float]], height: int, scale: float
           ) -> tuple[float, float]:
    """Where a label goes: just above the outline's top, or inside it when at the top edge."""
    xs = [p[0] for p in outline]
    ys = [p[1] for p in outline]
    top = min(ys)
    lift = 4.0
    return (min(xs), top - lift if top > 30 * scale + lift else top + 34 * scale)


def _outer_edge(polygon: Sequence[Sequence[float]], width: int, height: int, scale: float
                ) -> tuple[float, float]:
    """Where a zone's name goes: inside it, at the middle of its side nearest the frame's
    edge (where its player sits), so it stays clear of the cards in the zone's middle."""
    clipped = _clipped(polygon, width, height)
    cx, cy = centroid(clipped)
    dx, dy = (cx - width / 2) / width, (cy - height / 2) / height
    xs, ys = [p[0] for p in clipped], [p[1] for p in clipped]
    line = 30 * scale
    if abs(dy) >= abs(dx):  # a zone above or below the middle: its top or bottom edge,
        edge = min(ys) if dy < 0 else max(ys)  # a fifth of the way along it
        along = [p[0] for p in clipped if abs(p[1] - edge) < 2] or [cx]
        x = min(along) + 0.2 * (max(along) - min(along))
        return (x, edge + line + 8 if dy < 0 else edge - 8)
    edge = min(xs) if dx < 0 else max(xs)  # a zone left or right: that edge, a fifth down
    along = [p[1] for p in clipped if abs(p[0] - edge) < 2] or [cy]
    y = min(along) + 0.2 * (max(along) - min(along)) + line
    return (edge + 6 if dx < 0 else edge - 5 * line, y)


def _clipped(polygon: Sequence[Sequence[float]], width: int, height: int
             ) -> list[tuple[float, float]]:
    """``polygon``'s points moved inside the picture (a zone may reach past the frame)."""
    return [(min(max(p[0], 0.0), width), min(max(p[1], 0.0), height)) for p in polygon]


def _card_height(outlines: Sequence[Outline], frame_h: int) -> float:
    """The cards' height in frame pixels (their median), or a fifth of the frame's height."""
    heights = [max(math.dist(o[k], o[(k + 1) % len(o)]) for k in range(len(o)))
               for o in outlines if len(o) >= 3]
    return statistics.median(heights) if heights else frame_h / 5


def _placeholder(polygon: Sequence[Sequence[float]], card_h: float, width: int, height: int,
                 lying: Sequence[Sequence[Sequence[float]]], ground: Ground | None = None
                 ) -> list[list[float]]:
    """A card-sized upright box in the zone, clear of the cards ``lying`` there (outlined)
    and on bare table (``ground``: clear of cards the camera could not outline, such as a
    hand fanned at the show): at the zone's centre, else beside or above or below it, further
    out step by step; else clear of the outlined cards only; else at the centre after all."""
    clipped = _clipped(polygon, width, height)
    mx, my = centroid(clipped)
    h = card_h
    w = h / _CARD_RATIO
    taken = [(min(p[0] for p in o), min(p[1] for p in o), max(p[0] for p in o),
              max(p[1] for p in o)) for o in lying]

    def box(cx: float, cy: float) -> tuple[float, float, float, float]:
        cx = min(max(cx, w / 2 + 2), width - w / 2 - 2)
        cy = min(max(cy, h / 2 + 2), height - h / 2 - 2)
        return (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)

    def free(b: tuple[float, float, float, float]) -> bool:
        inside = point_inside(((b[0] + b[2]) / 2, (b[1] + b[3]) / 2), clipped)
        return inside and not any(b[0] < t[2] and t[0] < b[2] and b[1] < t[3] and t[1] < b[3]
                                  for t in taken)

    steps = [(0, 0), (1.3, 0), (-1.3, 0), (2.6, 0), (-2.6, 0), (0, 1.15), (0, -1.15),
             (1.3, 1.15), (-1.3, 1.15), (1.3, -1.15), (-1.3, -1.15), (3.9, 0), (-3.9, 0),
             (2.6, 1.15), (-2.6, 1.15), (2.6, -1.15), (-2.6, -1.15), (5.2, 0), (-5.2, 0),
             (0, 2.3), (0, -2.3), (3.9, 1.15), (-3.9, 1.15), (3.9, -1.15), (-3.9, -1.15)]
    boxes = [box(mx + sx * w, my + sy * h) for sx, sy in steps]
    clear = [b for b in boxes if free(b)]
    # A margin round the box: a card's index may lie just outside what the camera outlined.
    bare = [b for b in clear if ground is None or ground.quiet(
        (b[0] - w / 4, b[1] - h / 8, b[2] + w / 4, b[3] + h / 8))]
    chosen = (bare or clear or [box(mx, my)])[0]
    x0, y0, x1, y1 = (round(v, 1) for v in chosen)
    return [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]

