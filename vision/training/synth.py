"""Synthetic corner-index patches, rendered in the classifier's canonical frame.

Each positive is a rank (cv2.putText over the Hershey fonts, thickness and
slant varied) above a drawn suit symbol, placed so that the two glyph centroids
land where ``vision.recognise.candidates.extract_patches`` puts them, then jittered.
Given ``faces`` (``bundled_typefaces()``), half the glyphs come from real
TrueType faces instead (ranks and other text in all, suit symbols in those that
have them): Hershey strokes alone look like no printed deck.
Negatives are the look-alikes the candidate stage produces on real tables:
upside-down and sideways indices, pairs of pips, other letters, the "1" and "0"
of a ten side by side, card-back hatching and smooth blobs; and indices whose
"rank" is a letter no English deck prints (a French R, D or V, a German B), set
exactly as an index is: a court letter the network does not know is "not an
index" to it rather than its nearest court, and a player teaches such a deck.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import cast

import cv2
import numpy as np

from vision.recognise.candidates import PATCH_HALF_SPAN, PATCH_SIZE

RANK_TEXT = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("C", "D", "H", "S")
FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_PLAIN,
    cv2.FONT_HERSHEY_COMPLEX_SMALL,
)
# Faces matplotlib bundles, set by Pillow (both pinned in the training requirements, so a
# training is the same on every machine): sans, mono, serif and Computer Modern, upright,
# bold and slanted.
TYPEFACE_FILES = (
    "DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSans-Oblique.ttf",
    "DejaVuSans-BoldOblique.ttf", "DejaVuSansMono.ttf", "DejaVuSansMono-Bold.ttf",
    "DejaVuSansMono-Oblique.ttf", "DejaVuSansMono-BoldOblique.ttf", "DejaVuSerif.ttf",
    "DejaVuSerif-Bold.ttf", "DejaVuSerif-Italic.ttf", "DejaVuSerif-BoldItalic.ttf",
    "STIXGeneral.ttf", "STIXGeneralBol.ttf", "STIXGeneralItalic.ttf", "STIXGeneralBolIta.ttf",
    "cmr10.ttf", "cmb10.ttf", "cmss10.ttf", "cmti10.ttf", "cmtt10.ttf",
)
SUIT_CHARS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}
OTHER_TEXT = tuple("BCEFGHLMNPRSTUVWXYZ01") + ("?", "%", "&", "$", "#")
# Letters that are no rank in an English deck, among them other languages' courts (French
# V, D, R; German B, D; Dutch H, V, B). Not I or O, which a blurred 1 or Q can look like.
NOT_RANK_LETTERS = tuple("BCDEFGHLMNPRSTUVWXYZ")

HI = 128  # render size (4x the patch) for anti-aliasing
_DIST = HI / (2 * PATCH_HALF_SPAN)  # rank-to-suit centroid distance in the render
_RANK_AT = np.array([HI / 2, HI / 2 - _DIST / 2])
_SUIT_AT = np.array([HI / 2, HI / 2 + _DIST / 2])


def _suit_mask(
    suit: str, size: int, rng: np.random.Generator, faces: Sequence[Path] = ()
) -> np.ndarray:
    """Draws a filled suit symbol of height ``size`` on a square canvas."""
    typeset = _from_typeface(SUIT_CHARS[suit], size, rng, faces)
    if typeset is not None:
        return typeset
    c = size * 2
    m = np.zeros((c, c), np.uint8)
    cx, cy, r = c / 2, c / 2, size / 2
    fat = rng.uniform(0.85, 1.15)
    if suit == "D":
        pts = np.array(
            [[cx, cy - r], [cx + 0.72 * r * fat, cy], [cx, cy + r], [cx - 0.72 * r * fat, cy]]
        )
        cv2.fillPoly(m, [pts.astype(np.int32)], 255, cv2.LINE_AA)
    elif suit in ("H", "S"):
        lobe = 0.5 * r * fat
        sign = 1 if suit == "H" else -1
        ly = cy - sign * 0.35 * r
        cv2.circle(m, (int(cx - lobe * 0.95), int(ly)), int(lobe), 255, -1, cv2.LINE_AA)
        cv2.circle(m, (int(cx + lobe * 0.95), int(ly)), int(lobe), 255, -1, cv2.LINE_AA)
        tip = cy + sign * r
        pts = np.array(
            [
                [cx - 1.9 * lobe, ly + sign * 0.2 * lobe],
                [cx + 1.9 * lobe, ly + sign * 0.2 * lobe],
                [cx, tip],
            ]
        )
        cv2.fillPoly(m, [pts.astype(np.int32)], 255, cv2.LINE_AA)
        if suit == "S":
            stem = np.array([[cx, cy], [cx - 0.4 * r, cy + r], [cx + 0.4 * r, cy + r]])
            cv2.fillPoly(m, [stem.astype(np.int32)], 255, cv2.LINE_AA)
    else:  # clubs
        lobe = 0.3 * r * fat
        cv2.circle(m, (int(cx), int(cy - 0.55 * r)), int(lobe), 255, -1, cv2.LINE_AA)
        cv2.circle(m, (int(cx - 0.55 * r), int(cy + 0.05 * r)), int(lobe), 255, -1, cv2.LINE_AA)
        cv2.circle(m, (int(cx + 0.55 * r), int(cy + 0.05 * r)), int(lobe), 255, -1, cv2.LINE_AA)
        cv2.circle(m, (int(cx), int(cy - 0.05 * r)), int(lobe * 0.6), 255, -1, cv2.LINE_AA)
        stem = np.array([[cx, cy], [cx - 0.35 * r, cy + r], [cx + 0.35 * r, cy + r]])
        cv2.fillPoly(m, [stem.astype(np.int32)], 255, cv2.LINE_AA)
    return m


class TypefaceError(RuntimeError):
    """The bundled TrueType faces cannot be found (matplotlib missing or changed)."""


def bundled_typefaces() -> tuple[Path, ...]:
    """Paths of ``TYPEFACE_FILES`` inside matplotlib's data folder (a training requirement)."""
    try:
        import matplotlib
    except ImportError as exc:
        raise TypefaceError(
            "typeface glyphs need matplotlib: install vision/training/requirements.txt"
        ) from exc
    folder = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
    faces = tuple(folder / name for name in TYPEFACE_FILES)
    missing = [f.name for f in faces if not f.is_file()]
    if missing:
        raise TypefaceError(f"matplotlib {matplotlib.__version__} lacks the faces {missing}")
    return faces


@lru_cache(maxsize=4096)
def _typeface_glyphs(face: Path, text: str) -> np.ndarray | None:
    """``text`` set in ``face`` at 120 px, cropped to its ink; None when the face lacks a glyph."""
    from matplotlib.ft2font import FT2Font
    from PIL import Image, ImageDraw, ImageFont

    if not all(FT2Font(str(face)).get_char_index(ord(ch)) for ch in text):
        return None
    font = ImageFont.truetype(str(face), 120)
    left, top, right, bottom = (int(v) for v in font.getbbox(text))
    canvas = Image.new("L", (right - left + 8, bottom - top + 8), 0)
    ImageDraw.Draw(canvas).text((4 - left, 4 - top), text, fill=255, font=font)
    ink = np.asarray(canvas)
    ys, xs = np.nonzero(ink > 32)
    if len(ys) == 0:
        return None
    return np.ascontiguousarray(ink[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1])


def _typeface_mask(glyphs: np.ndarray, height: float, rng: np.random.Generator) -> np.ndarray:
    """Set glyphs scaled to ``height``, squashed and made lighter or bolder like ``_text_mask``."""
    scale = height / glyphs.shape[0]
    squash = rng.uniform(0.75, 1.25)
    size = (max(1, round(glyphs.shape[1] * scale * squash)), max(1, round(height)))
    mask = cv2.resize(glyphs, size, interpolation=cv2.INTER_AREA)
    pad = max(4, int(height * 0.2))
    mask = cv2.copyMakeBorder(mask, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    weight = int(rng.integers(-1, 4))
    if weight:
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * abs(weight) + 1,) * 2)
        mask = cv2.dilate(mask, kernel) if weight > 0 else cv2.erode(mask, kernel)
    return cast(np.ndarray, mask)


def _from_typeface(
    text: str, height: float, rng: np.random.Generator, faces: Sequence[Path]
) -> np.ndarray | None:
    """Half the time (when faces are given), ``text`` set in one of them that has its glyphs."""
    if not faces or rng.random() < 0.5:
        return None
    glyphs = _typeface_glyphs(faces[int(rng.integers(len(faces)))], text)
    return None if glyphs is None else _typeface_mask(glyphs, height, rng)


def _text_mask(
    text: str, height: float, rng: np.random.Generator, faces: Sequence[Path] = ()
) -> np.ndarray:
    typeset = _from_typeface(text, height, rng, faces)
    if typeset is not None:
        return typeset
    font = FONTS[rng.integers(len(FONTS))]
    thick = int(rng.integers(1, 4))
    (tw, th), _ = cv2.getTextSize(text, font, 1.0, thick)
    scale = height / max(th, 1)
    thick = max(1, int(round(thick * scale * rng.uniform(0.6, 1.4))))
    (tw, th), base = cv2.getTextSize(text, font, scale, thick)
    canvas: np.ndarray = np.zeros((th + base + 4 * thick + 8, tw + 4 * thick + 8), np.uint8)
    cv2.putText(
        canvas, text, (2 * thick + 4, th + 2 * thick + 4), font, scale, 255, thick, cv2.LINE_AA
    )
    squash = rng.uniform(0.75, 1.25)
    canvas = cv2.resize(canvas, (max(1, int(canvas.shape[1] * squash)), canvas.shape[0]))
    return canvas


def _centroid(mask: np.ndarray, rng: np.random.Generator, *, pick_part: bool) -> np.ndarray:
    """Centroid of the mask, or of one of its parts (the "1" or the "0" of a ten)."""
    if pick_part:
        n, _, stats, cents = cv2.connectedComponentsWithStats((mask > 96).astype(np.uint8))
        parts = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] > 0.1 * (mask > 96).sum()]
        if len(parts) > 1:
            return cast(np.ndarray, cents[parts[rng.integers(len(parts))]])
    m = cv2.moments(mask, binaryImage=False)
    if m["m00"] <= 0:
        return np.array([mask.shape[1] / 2, mask.shape[0] / 2])
    return np.array([m["m10"] / m["m00"], m["m01"] / m["m00"]])


def _place(
    mask: np.ndarray, src: np.ndarray, dst: np.ndarray, angle: float, scale: float
) -> np.ndarray:
    """Moves ``src`` (a point of ``mask``) to ``dst`` in an HI x HI canvas, rotated and scaled."""
    m = cv2.getRotationMatrix2D((float(src[0]), float(src[1])), angle, scale)
    m[:, 2] += dst - src
    return cv2.warpAffine(mask, m, (HI, HI), flags=cv2.INTER_LINEAR)


def _ink_colour(suit: str | None, rng: np.random.Generator) -> np.ndarray:
    u = rng.random()
    if u < 0.12:
        return rng.integers(0, 200, 3).astype(np.float32)  # any colour: four-colour decks
    red = suit in ("H", "D")
    if red:
        return np.array([rng.uniform(0, 90), rng.uniform(0, 80), rng.uniform(120, 255)], np.float32)
    grey = rng.uniform(0, 90)
    return np.array([grey, grey, grey], np.float32) + rng.uniform(-15, 15, 3).astype(np.float32)


def _compose(masks: list[tuple[np.ndarray, np.ndarray]], rng: np.random.Generator) -> np.ndarray:
    """Paints (mask, colour) layers on paper, adds clutter and camera effects, returns 32x32 BGR."""
    paper = np.array([rng.uniform(150, 255)] * 3, np.float32) + rng.uniform(-25, 25, 3)
    img = np.empty((HI, HI, 3), np.float32)
    img[:] = paper
    # Shading gradient across the patch.
    gy, gx = np.mgrid[0:HI, 0:HI].astype(np.float32) / HI
    img *= (1 + rng.uniform(-0.3, 0.3) * gx + rng.uniform(-0.3, 0.3) * gy)[..., None]
    if rng.random() < 0.3:
        # Card edge: darker table beyond a straight line somewhere near the border.
        a = rng.uniform(0, 2 * np.pi)
        off = rng.uniform(0.35, 0.7) * HI
        side = (gx * HI - HI / 2) * np.cos(a) + (gy * HI - HI / 2) * np.sin(a) > off
        img[side] = rng.uniform(0, 200, 3)
    for mask, colour in masks:
        alpha = (mask.astype(np.float32) / 255.0)[..., None]
        img = img * (1 - alpha) + colour * alpha
    if rng.random() < 0.25:
        # A sliver of picture or pip from the rest of the card.
        cv2.circle(
            img,
            (int(rng.uniform(0, HI)), int(rng.uniform(0, HI))),
            int(rng.uniform(6, 30)),
            tuple(float(v) for v in rng.uniform(0, 255, 3)),
            -1,
            cv2.LINE_AA,
        )
    small = cv2.resize(img, (PATCH_SIZE, PATCH_SIZE), interpolation=cv2.INTER_AREA)
    if rng.random() < 0.5:
        small = cv2.GaussianBlur(small, (0, 0), rng.uniform(0.3, 1.2))
    small = small * rng.uniform(0.6, 1.25) + rng.uniform(-40, 30)
    small += rng.normal(0, rng.uniform(0, 10), small.shape)
    return cast(np.ndarray, np.clip(small, 0, 255).astype(np.uint8))


def _pip_beside(suit: str, rank_height: float, colour: np.ndarray, angle: float,
                rng: np.random.Generator, faces: Sequence[Path]
                ) -> list[tuple[np.ndarray, np.ndarray]]:
    """Layers of what a court card prints just inside its index: a big pip of the index's own
    suit, often behind the thin line of the picture's frame, cut off by the patch's edge.

    Turned by ``angle`` about the patch's middle, as the index is.
    """
    size = rank_height * rng.uniform(1.2, 2.2)
    pip = _suit_mask(suit, int(size), rng, faces)
    index_edge = HI / 2 + 0.4 * rank_height
    gap = rank_height * rng.uniform(0.05, 0.35)
    at = np.array([index_edge + gap + 0.55 * size, HI / 2 + _DIST * rng.uniform(-0.7, 0.5)])
    pip_colour = np.clip(colour + rng.uniform(-30, 60), 0, 255).astype(np.float32)
    layers = [(_place(pip, _centroid(pip, rng, pick_part=False), at, angle, 1.0), pip_colour)]
    if rng.random() < 0.5:
        frame = np.zeros((HI, HI), np.uint8)
        x = int(index_edge + gap * rng.uniform(0.3, 0.7))
        top = int(HI / 2 - _DIST * rng.uniform(0.5, 1.4))
        thick = int(rng.integers(1, 5))
        cv2.line(frame, (x, HI), (x, top), 255, thick, cv2.LINE_AA)
        cv2.line(frame, (x, top), (HI, top), 255, thick, cv2.LINE_AA)
        turn = cv2.getRotationMatrix2D((HI / 2, HI / 2), angle, 1.0)
        frame_colour = rng.uniform(0, 120, 3).astype(np.float32)
        layers.insert(0, (cv2.warpAffine(frame, turn, (HI, HI), flags=cv2.INTER_LINEAR),
                          frame_colour))
    return layers


def render_index(
    rank: int, suit: int, rng: np.random.Generator, *, flip: str = "",
    faces: Sequence[Path] = (), text: str | None = None,
    beside: np.random.Generator | None = None,
) -> np.ndarray:
    """One 32x32 patch of the index of rank ``rank`` (0..12) and suit ``suit`` (0..3).

    ``flip`` "180" or "90" renders the same index turned, as a negative; ``faces``
    (``bundled_typefaces()``) sets half the glyphs in real type; ``text`` prints another
    "rank" in its place, as a negative. ``beside`` (a generator of its own, so the index
    itself is drawn as without it) adds a court's big pip and frame beside the index.
    """
    rh = _DIST * rng.uniform(0.75, 1.25)
    text = RANK_TEXT[rank] if text is None else text
    rmask = _text_mask(text, rh, rng, faces)
    smask = _suit_mask(SUITS[suit], int(rh * rng.uniform(0.55, 0.95)), rng, faces)
    rc = _centroid(rmask, rng, pick_part=(text == "10"))
    sc = _centroid(smask, rng, pick_part=False)
    ra, sa = _RANK_AT.copy(), _SUIT_AT.copy()
    if flip == "180":
        ra, sa = sa, ra
    elif flip == "90":
        ra = np.array([HI / 2 - _DIST / 2, HI / 2])
        sa = np.array([HI / 2 + _DIST / 2, HI / 2])
        if rng.random() < 0.5:
            ra, sa = sa, ra
    angle = (
        180.0 if flip == "180" else (90.0 * (1 if ra[0] < sa[0] else -1) if flip == "90" else 0.0)
    )
    angle += rng.normal(0, 6)
    sc_scale = rng.uniform(0.9, 1.1)
    jitter = rng.normal(0, 1.5, 2)
    colour = _ink_colour(SUITS[suit], rng)
    layers = [
        (_place(rmask, rc, ra + jitter, angle, sc_scale), colour),
        (_place(smask, sc, sa + jitter + rng.normal(0, 1.5, 2), angle, sc_scale), colour),
    ]
    if beside is not None:
        layers = _pip_beside(SUITS[suit], rh, colour, angle, beside, faces) + layers
    return _compose(layers, rng)


def render_negative(rng: np.random.Generator, *, faces: Sequence[Path] = (),
                    letters: bool = True) -> np.ndarray:
    """One 32x32 patch of something the candidate stage pairs but that is not an index.

    ``letters`` False leaves out the indices printing a letter that is no rank: shaped like
    indices, they are for the CNN to refuse, and the index screen rightly lets them through.
    """
    kind = rng.integers(6 if letters else 5)
    if kind == 5:  # an index printing a letter that is no rank here
        return render_index(0, int(rng.integers(4)), rng, faces=faces,
                            text=NOT_RANK_LETTERS[int(rng.integers(len(NOT_RANK_LETTERS)))])
    if kind == 0:
        return render_index(
            int(rng.integers(13)),
            int(rng.integers(4)),
            rng,
            flip="180" if rng.random() < 0.6 else "90",
            faces=faces,
        )
    colour = _ink_colour(SUITS[rng.integers(4)], rng)
    rh = _DIST * rng.uniform(0.7, 1.3)
    if kind == 1:  # two pips
        s = SUITS[rng.integers(4)]
        a = _suit_mask(s, int(rh * rng.uniform(0.8, 1.4)), rng, faces)
        b = _suit_mask(s, int(rh * rng.uniform(0.8, 1.4)), rng, faces)
    elif kind == 2:  # other characters
        a = _text_mask(OTHER_TEXT[rng.integers(len(OTHER_TEXT))], rh, rng, faces)
        b = (
            _text_mask(OTHER_TEXT[rng.integers(len(OTHER_TEXT))], rh * 0.8, rng, faces)
            if rng.random() < 0.5
            else _suit_mask(SUITS[rng.integers(4)], int(rh * 0.7), rng, faces)
        )
    elif kind == 3:  # the "1" and "0" of a ten, or two rank glyphs, stacked
        a = _text_mask(RANK_TEXT[rng.integers(13)], rh, rng, faces)
        b = _text_mask(RANK_TEXT[rng.integers(13)], rh * rng.uniform(0.7, 1.0), rng, faces)
    else:  # hatching and blobs: card backs, table grain, fingers
        img: np.ndarray = np.full((PATCH_SIZE, PATCH_SIZE, 3), rng.uniform(80, 255), np.float32)
        step = rng.uniform(2, 6)
        yy, xx = np.mgrid[0:PATCH_SIZE, 0:PATCH_SIZE]
        ang = rng.uniform(0, np.pi)
        wave = np.sin((xx * np.cos(ang) + yy * np.sin(ang)) / step * np.pi)
        if rng.random() < 0.5:
            wave = wave * np.sin((xx * np.sin(ang) - yy * np.cos(ang)) / step * np.pi)
        img += (wave[..., None] * rng.uniform(20, 90) * rng.uniform(0.3, 1.0, 3)).astype(np.float32)
        for _ in range(int(rng.integers(0, 3))):
            cv2.ellipse(
                img,
                (int(rng.uniform(0, 32)), int(rng.uniform(0, 32))),
                (int(rng.uniform(3, 12)), int(rng.uniform(3, 12))),
                float(rng.uniform(0, 180)),
                0,
                360,
                tuple(float(v) for v in rng.uniform(0, 255, 3)),
                -1,
            )
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.5))
        return np.clip(img + rng.normal(0, 5, img.shape), 0, 255).astype(np.uint8)
    ac = _centroid(a, rng, pick_part=True)
    bc = _centroid(b, rng, pick_part=True)
    angle = rng.uniform(-180, 180) if rng.random() < 0.5 else rng.normal(0, 8)
    layers = [
        (_place(a, ac, _RANK_AT, angle, 1.0), colour),
        (_place(b, bc, _SUIT_AT, angle, 1.0), colour),
    ]
    return _compose(layers, rng)


def synth_set(
    n_pos: int, n_neg: int, seed: int, *, faces: Sequence[Path] = (), pip_beside: float = 0.0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Returns (patches, rank labels 0..13, suit labels 0..4); 13 and 4 mean "not an index".

    ``pip_beside`` is the share of indices drawn with a court's big pip beside them
    (``_pip_beside``); its own generator draws them, so the rest of the set is the same.
    """
    if not 0.0 <= pip_beside <= 1.0:
        raise ValueError(f"pip_beside is a share of the indices, 0 to 1, got {pip_beside}")
    rng = np.random.default_rng(seed)
    extra = np.random.default_rng((seed, 1))
    xs, rs, ss = [], [], []
    for _ in range(n_pos):
        r, s = int(rng.integers(13)), int(rng.integers(4))
        beside = extra if extra.random() < pip_beside else None
        xs.append(render_index(r, s, rng, faces=faces, beside=beside))
        rs.append(r)
        ss.append(s)
    for _ in range(n_neg):
        xs.append(render_negative(rng, faces=faces))
        rs.append(13)
        ss.append(4)
    return np.stack(xs), np.array(rs, np.int64), np.array(ss, np.int64)


def render_card(rank: int, suit: int, *, height: int = 350, seed: int = 0) -> np.ndarray:
    """A whole card face (BGR, white paper, index in two corners, a few pips), ``height`` tall.

    Used by tests to build scenes; ``rank`` 0..12 (A..K), ``suit`` 0..3 (C D H S).
    """
    rng = np.random.default_rng(seed)
    w = int(round(height * 63 / 88))
    card = np.full((height, w, 3), 250, np.uint8)
    colour = (30, 30, 200) if SUITS[suit] in ("H", "D") else (25, 25, 25)
    span = height / 8.3  # rank-to-suit distance, as vision.recognise.detection assumes
    rh = int(span * 0.95)
    text = RANK_TEXT[rank]
    font = cv2.FONT_HERSHEY_SIMPLEX
    thick = max(2, int(rh / 8))
    (tw, th), _ = cv2.getTextSize(text, font, 1.0, thick)
    scale = rh / th
    (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
    corner = np.full((int(span * 2.4), int(span * 1.5)), 0, np.uint8)
    cx = corner.shape[1] // 2
    cv2.putText(
        corner,
        text,
        (cx - tw // 2, int(span * 0.6) + th // 2),
        font,
        scale,
        255,
        thick,
        cv2.LINE_AA,
    )
    pip = _suit_mask(SUITS[suit], int(span * 0.75), rng)
    py = int(span * 1.6) - pip.shape[0] // 2
    px = cx - pip.shape[1] // 2
    region = corner[py : py + pip.shape[0], px : px + pip.shape[1]]
    np.maximum(region, pip[: region.shape[0], : region.shape[1]], out=region)
    ch, cw = corner.shape
    ox, oy = max(2, int(span * 0.75) - cw // 2), max(2, int(span * 1.1) - int(span * 0.6))
    for m, (x, y) in ((corner, (ox, oy)), (corner[::-1, ::-1], (w - ox - cw, height - oy - ch))):
        sub = card[y : y + ch, x : x + cw]
        alpha = (m[: sub.shape[0], : sub.shape[1]].astype(np.float32) / 255)[..., None]
        sub[:] = (sub * (1 - alpha) + np.array(colour) * alpha).astype(np.uint8)
    big = _suit_mask(SUITS[suit], int(height * 0.2), rng)
    by, bx = height // 2 - big.shape[0] // 2, w // 2 - big.shape[1] // 2
    sub = card[by : by + big.shape[0], bx : bx + big.shape[1]]
    alpha = (big.astype(np.float32) / 255)[..., None]
    sub[:] = (sub * (1 - alpha) + np.array(colour) * alpha).astype(np.uint8)
    cv2.rectangle(card, (0, 0), (w - 1, height - 1), (200, 200, 200), 2)
    return card


def place(
    scene: np.ndarray,
    card: np.ndarray,
    centre: tuple[float, float],
    angle: float,
    scale: float = 1.0,
) -> np.ndarray:
    """Pastes ``card`` into ``scene`` (in place, also returned), turned ``angle`` degrees."""
    h, w = card.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, scale)
    m[:, 2] += np.array(centre) - np.array([w / 2, h / 2])
    mask = cv2.warpAffine(np.full((h, w), 255, np.uint8), m, scene.shape[1::-1])
    warped = cv2.warpAffine(card, m, scene.shape[1::-1], flags=cv2.INTER_AREA)
    scene[mask > 127] = warped[mask > 127]
    return scene
