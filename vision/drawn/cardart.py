"""Card faces and backs the project draws itself: no shared photos, no downloaded art.

Scenes for tests and benchmarks need cards that look like a real deck to the
recogniser: white rounded cards (63 x 88 mm), the rank and suit index in two
opposite corners (the second turned 180 degrees), pips where a real deck puts
them, framed court panels, red and black ink (or a four-colour deck). Each
``CardStyle`` is one "deck"; ``CardStyle.random(rng)`` makes another, so a test
can show that recognition does not hang on one font or one index size.

Everything is drawn at a multiple of the asked size and shrunk with area
averaging: that is the anti-aliasing, and it keeps thin Hershey strokes crisp
at the 100-150 pixel card heights a 720p camera sees.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from engine.cards import Card, Rank, Suit

__all__ = [
    "CardStyle", "CardArtError", "render_card", "render_back", "suit_polygons",
    "CARD_ASPECT", "HERSHEY_FONTS", "BACK_PATTERNS", "index_boxes",
]

# Width over height of a poker-size card (63 x 88 mm).
CARD_ASPECT = 63 / 88
HERSHEY_FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
)
BACK_PATTERNS = ("lattice", "dots", "waves")

BGR = tuple[int, int, int]
_RED: BGR = (38, 30, 196)
_BLACK: BGR = (28, 26, 24)
_FOUR_COLOUR: dict[Suit, BGR] = {
    Suit.CLUBS: (40, 120, 16), Suit.DIAMONDS: (150, 64, 12),
    Suit.HEARTS: _RED, Suit.SPADES: _BLACK,
}
# Index geometry as fractions of the card's height, measured on a poker deck.
_INDEX_X = 0.082
_RANK_Y = 0.088
_SUIT_Y = 0.188
# The rank is asked for taller than it should print: a Hershey digit's ink comes out about
# three quarters of the cap height asked for. Printed, the rank is ~0.07 and the suit ~0.055
# of the card's height, as on a poker deck: the suit is always the smaller glyph.
_RANK_H = 0.094
_INDEX_PIP = 0.055
_CORNER_R = 0.045


class CardArtError(ValueError):
    """A style or size no card can be drawn with."""


@dataclass(frozen=True, slots=True)
class CardStyle:
    """One deck's look. ``font`` is a Hershey font; sizes scale with the card's height."""

    font: int = cv2.FONT_HERSHEY_SIMPLEX
    index_scale: float = 1.0  # 1.0 is a standard index, 1.25 a "jumbo" one
    weight: float = 1.0  # stroke thickness of the index text
    four_colour: bool = False  # clubs green, diamonds blue
    border: bool = False  # a thin printed frame inside the edge
    paper: BGR = (244, 247, 249)
    back_colour: BGR = (52, 38, 170)
    back_pattern: str = "lattice"
    court_colours: tuple[BGR, BGR, BGR] = field(
        default=((40, 170, 230), (150, 80, 30), (40, 40, 180)))
    # What the jack, queen and king print in their index: French decks say V, D, R.
    court_letters: tuple[str, str, str] = ("J", "Q", "K")

    def __post_init__(self) -> None:
        if len(self.court_letters) != 3 or not all(
                isinstance(t, str) and 1 <= len(t) <= 2 for t in self.court_letters):
            raise CardArtError(f"court_letters must be three texts of one or two letters, "
                               f"not {self.court_letters!r}")
        if self.font not in HERSHEY_FONTS:
            raise CardArtError(f"font must be one of the Hershey fonts {HERSHEY_FONTS}, "
                               f"not {self.font!r}")
        if not 0.7 <= self.index_scale <= 1.4:
            raise CardArtError(f"index_scale must be 0.7 to 1.4, not {self.index_scale!r}")
        if not 0.5 <= self.weight <= 2.0:
            raise CardArtError(f"weight must be 0.5 to 2.0, not {self.weight!r}")
        if self.back_pattern not in BACK_PATTERNS:
            raise CardArtError(f"back_pattern must be one of {BACK_PATTERNS}, "
                               f"not {self.back_pattern!r}")

    @classmethod
    def random(cls, rng: np.random.Generator) -> CardStyle:
        """Another deck: font, index size, ink, border and back drawn from ``rng``."""
        hue = rng.uniform(0, 1)
        backs: list[BGR] = [(52, 38, 170), (150, 70, 30), (40, 90, 30), (30, 30, 30)]
        base = backs[int(rng.integers(len(backs)))]
        back = tuple(int(np.clip(v + rng.uniform(-20, 20), 0, 255)) for v in base)
        paper = tuple(int(v) for v in np.clip(np.array([238, 243, 247]) + rng.uniform(-6, 6, 3),
                                              0, 255))
        return cls(
            font=HERSHEY_FONTS[int(rng.integers(len(HERSHEY_FONTS)))],
            index_scale=float(rng.uniform(0.9, 1.2)),
            weight=float(rng.uniform(0.8, 1.4)),
            four_colour=bool(rng.random() < 0.15),
            border=bool(rng.random() < 0.3),
            paper=(paper[0], paper[1], paper[2]),
            back_colour=(back[0], back[1], back[2]),
            back_pattern=BACK_PATTERNS[int(rng.integers(len(BACK_PATTERNS)))],
            court_colours=((int(30 + 40 * hue), 170, 230), (150, 80, 30), (40, 40, 180)),
        )

    def rank_text(self, rank: Rank) -> str:
        """What this deck prints for ``rank`` in its corner index."""
        if rank >= Rank.JACK:
            return self.court_letters[int(rank) - int(Rank.JACK)]
        return rank.symbol

    def ink(self, suit: Suit) -> BGR:
        """The printing colour of a suit in this deck."""
        if self.four_colour:
            return _FOUR_COLOUR[suit]
        return _RED if suit in (Suit.HEARTS, Suit.DIAMONDS) else _BLACK


# -- suit symbols ----------------------------------------------------------------------------


def _normalise(polys: list[np.ndarray]) -> tuple[np.ndarray, ...]:
    """Scales polygons so their union is one unit tall, centred on its bounding box."""
    every = np.concatenate(polys)
    lo, hi = every.min(axis=0), every.max(axis=0)
    middle, height = (lo + hi) / 2, hi[1] - lo[1]
    return tuple(((p - middle) / height).astype(np.float64) for p in polys)


def _heart(n: int = 96) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    x = 16 * np.sin(t) ** 3
    y = -(13 * np.cos(t) - 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t))
    return np.stack([x, y], axis=1)


def _stem(top: float, bottom: float, half_base: float, n: int = 12) -> np.ndarray:
    """A stem that flares into a concave-sided foot, as on spades and clubs."""
    ys = np.linspace(top, bottom, n)
    flare = half_base * (0.12 + 0.88 * ((ys - top) / (bottom - top)) ** 2.2)
    right = np.stack([flare, ys], axis=1)
    left = np.stack([-flare[::-1], ys[::-1]], axis=1)
    return np.concatenate([right, left])


def _circle(cx: float, cy: float, r: float, n: int = 40) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.stack([cx + r * np.cos(t), cy + r * np.sin(t)], axis=1)


def _diamond(n: int = 16) -> np.ndarray:
    tips = np.array([[0, -1], [0.74, 0], [0, 1], [-0.74, 0]], np.float64)
    points = []
    for a, b in zip(tips, np.roll(tips, -1, axis=0), strict=True):
        control = (a + b) / 2 * 0.84  # pulled inward: slightly concave sides
        for t in np.linspace(0, 1, n, endpoint=False):
            points.append((1 - t) ** 2 * a + 2 * (1 - t) * t * control + t ** 2 * b)
    return np.array(points)


def _build_suits() -> dict[Suit, tuple[np.ndarray, ...]]:
    heart = _heart()
    heart = heart / (heart[:, 1].max() - heart[:, 1].min())
    heart -= (heart.max(axis=0) + heart.min(axis=0)) / 2
    spade_body = heart * np.array([1.0, -1.0]) * 0.82 + np.array([0.0, -0.06])
    body_bottom = float(spade_body[:, 1].max())
    spade_stem = _stem(body_bottom - 0.12, body_bottom + 0.32, 0.2)
    clubs = [_circle(0, -0.3, 0.22), _circle(-0.25, 0.05, 0.22), _circle(0.25, 0.05, 0.22),
             np.array([[0, -0.2], [0.2, 0.08], [0, 0.12], [-0.2, 0.08]]),
             _stem(0.0, 0.5, 0.2)]
    return {
        Suit.HEARTS: _normalise([heart]),
        Suit.DIAMONDS: _normalise([_diamond()]),
        Suit.SPADES: _normalise([spade_body, spade_stem]),
        Suit.CLUBS: _normalise(clubs),
    }


_SUITS = _build_suits()


def suit_polygons(suit: Suit) -> tuple[np.ndarray, ...]:
    """The suit symbol as polygons (x right, y down), one unit tall, centred on (0, 0)."""
    return _SUITS[suit]


def _draw_suit(canvas: np.ndarray, suit: Suit, centre: tuple[float, float], size: float,
               colour: BGR, *, upside_down: bool = False) -> None:
    sign = -1.0 if upside_down else 1.0
    for part in _SUITS[suit]:
        # One call per part: fillPoly would cut the overlap of two parts out (even-odd).
        points = np.round(np.asarray(centre) + sign * size * part).astype(np.int32)
        cv2.fillPoly(canvas, [points], colour, cv2.LINE_AA)


# -- faces -----------------------------------------------------------------------------------

# Standard pip positions for 2..10: (column 0/0.5/1, row 0..1) inside the pip field.
_PIPS: dict[int, tuple[tuple[float, float], ...]] = {
    2: ((0.5, 0), (0.5, 1)),
    3: ((0.5, 0), (0.5, 0.5), (0.5, 1)),
    4: ((0, 0), (1, 0), (0, 1), (1, 1)),
    5: ((0, 0), (1, 0), (0.5, 0.5), (0, 1), (1, 1)),
    6: ((0, 0), (1, 0), (0, 0.5), (1, 0.5), (0, 1), (1, 1)),
    7: ((0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0, 1), (1, 1)),
    8: ((0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0.5, 0.75), (0, 1), (1, 1)),
    9: ((0, 0), (1, 0), (0, 1 / 3), (1, 1 / 3), (0.5, 0.5), (0, 2 / 3), (1, 2 / 3), (0, 1),
        (1, 1)),
    10: ((0, 0), (1, 0), (0.5, 1 / 6), (0, 1 / 3), (1, 1 / 3), (0, 2 / 3), (1, 2 / 3),
         (0.5, 5 / 6), (0, 1), (1, 1)),
}


def _supersample(height: int) -> int:
    return 4 if height < 160 else 3 if height < 320 else 2


def _check_height(height: int) -> None:
    if not isinstance(height, int) or isinstance(height, bool) or not 24 <= height <= 4000:
        raise CardArtError(f"card height must be 24 to 4000 pixels, not {height!r}")


def _blank(height: int, paper: BGR) -> tuple[np.ndarray, np.ndarray]:
    """A paper-coloured card canvas and its rounded-rectangle mask, both at ``height``."""
    width = max(2, round(height * CARD_ASPECT))
    canvas = np.empty((height, width, 3), np.uint8)
    canvas[:] = paper
    mask = np.zeros((height, width), np.uint8)
    r = max(1, round(_CORNER_R * height))
    cv2.rectangle(mask, (r, 0), (width - 1 - r, height - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (width - 1, height - 1 - r), 255, -1)
    for cx, cy in ((r, r), (width - 1 - r, r), (r, height - 1 - r),
                   (width - 1 - r, height - 1 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return canvas, mask


def _finish(canvas: np.ndarray, mask: np.ndarray, height: int) -> np.ndarray:
    """Shrinks the big drawing to ``height`` (area averaging anti-aliases) and adds alpha."""
    width = max(2, round(height * CARD_ASPECT))
    small = cv2.resize(canvas, (width, height), interpolation=cv2.INTER_AREA)
    alpha = cv2.resize(mask, (width, height), interpolation=cv2.INTER_AREA)
    # The card's cut edge is a little darker than its face.
    edge = cv2.erode(alpha, np.ones((3, 3), np.uint8))
    small = np.where((alpha > 0)[..., None] & (edge < 255)[..., None],
                     (small.astype(np.float32) * 0.86).astype(np.uint8), small)
    return np.dstack([small, alpha])


def _put_text_centred(canvas: np.ndarray, text: str, centre: tuple[float, float], height: float,
                      font: int, weight: float, colour: BGR) -> None:
    """Draws ``text`` with its cap height ``height`` centred on ``centre``."""
    (_, base_h), _ = cv2.getTextSize(text, font, 1.0, 1)
    scale = height / max(base_h, 1)
    thick = max(1, round(height * 0.13 * weight))
    (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
    if text == "10":  # a ten's two glyphs are squeezed together on real cards
        scale *= 0.92
        (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
    x = round(centre[0] - tw / 2)
    y = round(centre[1] + th / 2)
    cv2.putText(canvas, text, (x, y), font, scale, colour, thick, cv2.LINE_AA)


def index_boxes(height: int, style: CardStyle) -> tuple[tuple[float, float, float, float], ...]:
    """Where the two indices lie on a card of ``height``: (x0, y0, x1, y1) boxes, card pixels.

    Tests use them to check that both corners carry ink and that a back carries none.
    """
    width = height * CARD_ASPECT
    s = style.index_scale
    half_w = 0.06 * height * s
    x0, x1 = _INDEX_X * height - half_w, _INDEX_X * height + half_w
    y0 = (_RANK_Y - 0.05 * s) * height
    y1 = (_SUIT_Y * s + 0.045 * s) * height
    return ((x0, y0, x1, y1), (width - x1, height - y1, width - x0, height - y0))


def _draw_index(canvas: np.ndarray, card: Card, h: float, style: CardStyle) -> None:
    """The top-left index: rank above a small suit symbol."""
    s = style.index_scale
    ink = style.ink(card.suit)
    _put_text_centred(canvas, style.rank_text(card.rank),
                      (_INDEX_X * h, _RANK_Y * s * h + 0.01 * h),
                      _RANK_H * s * h, style.font, style.weight, ink)
    _draw_suit(canvas, card.suit, (_INDEX_X * h, _SUIT_Y * s * h), _INDEX_PIP * s * h, ink)


def _draw_pips(canvas: np.ndarray, card: Card, h: float, style: CardStyle) -> None:
    w = h * CARD_ASPECT
    ink = style.ink(card.suit)
    if card.rank is Rank.ACE:
        size = 0.26 * h if card.suit is Suit.SPADES else 0.17 * h
        _draw_suit(canvas, card.suit, (w / 2, h / 2), size, ink)
        return
    x0, x1 = 0.3 * w, 0.7 * w
    y0, y1 = 0.2 * h, 0.8 * h
    size = 0.125 * h
    for col, row in _PIPS[int(card.rank)]:
        centre = (x0 + col * (x1 - x0), y0 + row * (y1 - y0))
        # Pips below the middle are printed upside down, as on every real deck.
        _draw_suit(canvas, card.suit, centre, size, ink, upside_down=row > 0.5 + 1e-9)


def _draw_court(canvas: np.ndarray, card: Card, h: float, style: CardStyle) -> None:
    """A framed panel: a simple figure and a big letter, mirrored top to bottom."""
    w = h * CARD_ASPECT
    ink = style.ink(card.suit)
    px0, px1 = round(0.2 * w), round(0.8 * w)
    py0, py1 = round(0.1 * h), round(0.9 * h)
    pw, ph = px1 - px0, py1 - py0
    panel = np.empty((ph, pw, 3), np.uint8)
    panel[:] = style.paper
    gold, blue, red = style.court_colours
    half = ph // 2
    # Upper half: a robed figure (shoulders, head, crown or cap), big letter, suit.
    robe = np.array([[0.08 * pw, half], [0.2 * pw, 0.62 * half], [0.8 * pw, 0.62 * half],
                     [0.92 * pw, half]], np.int32)
    cv2.fillPoly(panel, [robe], red if card.rank is Rank.KING else blue, cv2.LINE_AA)
    cv2.fillPoly(panel, [np.array([[0.38 * pw, 0.62 * half], [0.62 * pw, 0.62 * half],
                                   [0.55 * pw, half], [0.45 * pw, half]], np.int32)], gold,
                 cv2.LINE_AA)
    head = (round(0.5 * pw), round(0.47 * half))
    cv2.circle(panel, head, round(0.13 * pw), (150, 190, 235), -1, cv2.LINE_AA)
    cv2.circle(panel, head, round(0.13 * pw), ink, max(1, round(0.006 * h)), cv2.LINE_AA)
    top = head[1] - round(0.13 * pw)
    if card.rank is Rank.JACK:
        cap = np.array([[0.36 * pw, top + 0.02 * half], [0.64 * pw, top + 0.02 * half],
                        [0.7 * pw, top - 0.1 * half], [0.34 * pw, top - 0.08 * half]], np.int32)
        cv2.fillPoly(panel, [cap], red, cv2.LINE_AA)
    else:
        spikes = 3 if card.rank is Rank.QUEEN else 5
        xs = np.linspace(0.37 * pw, 0.63 * pw, 2 * spikes + 1)
        crown = [[xs[0], top + 0.03 * half]]
        crown += [[x, top - (0.16 if i % 2 else 0.07) * half] for i, x in enumerate(xs)]
        crown += [[xs[-1], top + 0.03 * half]]
        cv2.fillPoly(panel, [np.array(crown, np.int32)], gold, cv2.LINE_AA)
    letter = {Rank.JACK: "J", Rank.QUEEN: "Q", Rank.KING: "K"}[card.rank]
    _put_text_centred(panel, letter, (0.2 * pw, 0.2 * half), 0.2 * half, style.font, 1.2, ink)
    _draw_suit(panel, card.suit, (0.8 * pw, 0.2 * half), 0.16 * half, ink)
    panel[ph - half:] = panel[:half][::-1, ::-1]
    line = max(1, round(0.006 * h))
    cv2.line(panel, (0, half), (pw - 1, ph - half), ink, line, cv2.LINE_AA)
    cv2.rectangle(panel, (0, 0), (pw - 1, ph - 1), ink, 2 * line, cv2.LINE_AA)
    canvas[py0:py1, px0:px1] = panel


def render_card(card: Card, *, height: int, style: CardStyle) -> np.ndarray:
    """Draws ``card``'s face, ``height`` pixels tall: BGRA, alpha 0 outside the rounded card."""
    _check_height(height)
    ss = _supersample(height)
    big = height * ss
    canvas, mask = _blank(big, style.paper)
    if style.border:
        inset = round(0.03 * big)
        cv2.rectangle(canvas, (inset, inset), (canvas.shape[1] - 1 - inset, big - 1 - inset),
                      (150, 150, 150), max(1, round(0.004 * big)), cv2.LINE_AA)
    _draw_index(canvas, card, big, style)
    # The second index is the first one turned 180 degrees about the card's centre.
    turned = np.ascontiguousarray(canvas[::-1, ::-1])
    _draw_index(turned, card, big, style)
    canvas = np.ascontiguousarray(turned[::-1, ::-1])
    if card.rank >= Rank.JACK:
        _draw_court(canvas, card, big, style)
    else:
        _draw_pips(canvas, card, big, style)
    return _finish(canvas, mask, height)


def render_back(*, height: int, style: CardStyle) -> np.ndarray:
    """Draws a card back, ``height`` pixels tall: a white margin round a printed pattern."""
    _check_height(height)
    ss = _supersample(height)
    big = height * ss
    canvas, mask = _blank(big, style.paper)
    width = canvas.shape[1]
    inset = round(0.05 * big)
    colour = np.array(style.back_colour, np.float32)
    light = tuple(int(v) for v in np.clip(colour * 0.45 + 140, 0, 255))
    field_ = np.empty((big - 2 * inset, width - 2 * inset, 3), np.uint8)
    field_[:] = style.back_colour
    fh, fw = field_.shape[:2]
    step = 0.045 * big
    thick = max(1, round(0.006 * big))
    if style.back_pattern == "lattice":
        for k in range(-int(fh / step) - 2, int((fw + fh) / step) + 2):
            x = k * step
            cv2.line(field_, (round(x), 0), (round(x + fh), fh), light, thick, cv2.LINE_AA)
            cv2.line(field_, (round(x), fh), (round(x + fh), 0), light, thick, cv2.LINE_AA)
    elif style.back_pattern == "dots":
        for row, y in enumerate(np.arange(step / 2, fh, step)):
            for x in np.arange(step / 2 + (row % 2) * step / 2, fw, step):
                cv2.circle(field_, (round(x), round(y)), round(step * 0.22), light, -1,
                           cv2.LINE_AA)
    else:
        xs = np.arange(0, fw + 1, max(1.0, step / 6))
        for y in np.arange(0, fh + step, step * 0.7):
            ys = y + 0.25 * step * np.sin(xs / step * math.pi)
            pts = np.stack([xs, ys], axis=1).round().astype(np.int32)
            cv2.polylines(field_, [pts], False, light, thick, cv2.LINE_AA)
    centre = (fw // 2, fh // 2)
    cv2.ellipse(field_, centre, (round(0.22 * fw), round(0.14 * fh)), 0, 0, 360,
                style.back_colour, -1, cv2.LINE_AA)
    cv2.ellipse(field_, centre, (round(0.22 * fw), round(0.14 * fh)), 0, 0, 360, light,
                2 * thick, cv2.LINE_AA)
    cv2.rectangle(field_, (0, 0), (fw - 1, fh - 1), light, 2 * thick, cv2.LINE_AA)
    canvas[inset:inset + fh, inset:inset + fw] = field_
    return _finish(canvas, mask, height)
