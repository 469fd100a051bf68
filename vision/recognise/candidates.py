"""Finds candidate corner indices (a rank glyph above a suit glyph) in a frame.

A card's corner index is the one part of it that survives overlap: a fanned hand
or a pegging pile often shows nothing else of the lower card. So the detector
looks for indices, not for whole cards. Stage one (here) is classical and cheap:
segment small ink blobs of either polarity (dark or red ink on a light card,
gold or silver ink on a dark card), pair each blob with a slightly smaller blob
just "below" it, and cut out a patch rotated so that the pair stands upright.
Ink is measured against the card's own paper, never against the table, so a card on a
table as light as its paper (a birch top, a white cloth) is found by its index alone; faint
ink near ink of a glyph's depth is searched at a lower floor too (``_faint_glyphs``). The
pair, not the frame, sets which way is up: a card lying sideways reads as one upright.
Stage two (``vision.recognise.classifier``) names each patch or rejects it.

Every size threshold follows the cards' size. Where the caller knows how tall a card
is in its pixels (the device's camera: ``card_px``), the frame is resized so a card is
``CARD_READ_PX`` tall and the glyph limits are shares of that, so a crop of a frame reads
the same as the whole frame. A photo of unknown geometry (``vision eval``) has only its
own size to go by, and its limits are fractions of its shorter side.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from vision.recognise.finder import FoundIndices, IndexFinder, new_pairs
from vision.recognise.frames import check_frame
from vision.recognise.geometry import points_in_quad
from vision.recognise.screen import load_screen
from vision.recognise.span_check import span_fits

__all__ = [
    "PATCH_SIZE",
    "Glyphs",
    "IndexCandidates",
    "GlyphLimits",
    "Reading",
    "ScaleError",
    "check_card_px",
    "reading",
    "channel_extremes",
    "white_balanced",
    "stretched",
    "find_glyphs",
    "pair_glyphs",
    "extract_patches",
    "pair_spans",
    "find_candidates",
    "find_candidates_in",
    "working_scale",
]

PATCH_SIZE = 32
# Half the patch side, in units of the rank-to-suit centroid distance.
PATCH_HALF_SPAN = 1.25

# Glyph height limits as fractions of the frame's shorter side (measured on both
# dev sets: index glyphs span roughly 1 % to 9 % of the shorter side, and up to 15 % in
# phone shots taken a hand's width from the cards; the floor sits a little below, where
# the smallest glyphs of a photo taken from high still pass). The ceiling was 13 %, which
# lost close-up indices; 18 % costs about 0.4 ms a frame (vision/training/README.md,
# "Close-ups and turned indices").
MIN_GLYPH = 0.007
MAX_GLYPH = 0.18
# ... and never below this many pixels, where a blob is noise rather than a glyph.
MIN_GLYPH_PX = 5.0
# Paper window (fraction of the shorter side): wider than any index glyph, so the paper
# estimate wipes glyphs out. Contrast floor: how far (grey levels) ink lies from its paper.
# Against a local mean (which took in the ink and the table beside the card) the floor was
# 28; against the paper itself 48 finds the most Roboflow dev indices with the fewest blobs
# (vision/training/README.md, "Glyphs measured against their paper").
WINDOW = 0.06
MIN_CONTRAST = 48
# Faint ink (``_faint_glyphs``, in frames read at under FAINT_BELOW_SCALE): where the darkest
# ink within FAINT_REACH smallest glyphs lies under FAINT_PEAK times the contrast floor below
# its paper, the floor there is FAINT_SHARE of that ink's depth, never under FAINT_FLOOR grey
# levels (paper noise lies under about 12), and what it segments is added to the glyphs. On
# train_06 (EPFL test) a share of 0.5 found 4 of its 11 cards, 0.4 six, 0.3 eight. A faint
# blob holding the middle of a glyph found at the fixed floor at least FAINT_SAME its size is
# that glyph again.
# Searched in frames read at less than this scale (``GlyphLimits.faint``): photos and the
# 2304x1296 camera's frames (cards 120-180 px, read at 1-1.5 times), where it took the EPFL
# test split from 0.850 to 0.912 at the price of about 40 % more time per read (interleaved,
# on a loaded machine); 1.0 keeps it to photos and frames read shrunk, at no cost to the
# device. Frames enlarged twice (a 1280x720 stream) have a lower floor already.
FAINT_BELOW_SCALE = 2.0  # SMALL_FRAME_UPSCALE
FAINT_REACH = 2.0
FAINT_SHARE = 0.3
FAINT_FLOOR = 20
FAINT_PEAK = 2.0
FAINT_SAME = 0.75
# The device spends the faint search only inside the card outlines it found without reading
# an index there (``find_candidates(faint_within=...)``, issue 62): over a changed region of
# grained wood it added 100-180 faint blobs and up to 1,600 candidate pairs for one queen
# (the light birch table, 41-58 ms of a 2304x1296 region's read here against 28-46 without:
# benchmarks/vision/live_path.py laid-cards). A card of an overlapping hand shows no outline:
# dev at device:2304x1296 lost 2 of 884 Roboflow cards, no EPFL one. Each outline is grown
# by this factor about its middle.
FAINT_OUTLINE_MARGIN = 1.08
# ... but only where faint ink is dense: a card of an overlapping hand (played cards, a shown
# hand) shows no outline, and confined everywhere the search lost EPFL's test split 0.912 ->
# 0.863 at device:2304x1296 (Roboflow 0.936 -> 0.929). So the device searches the whole
# region and keeps each faint glyph found outside the unread outlines where fewer than this
# many faint glyphs a million pixels lie about it, in a square FAINT_DENSE_SIDE smallest
# glyphs across (``faint_dense``: a card's height as the device reads it). Judged glyph by
# glyph, not over the region read (as until 2026-12-07, at 120): a region the device reads
# is a card or two, and one full of a fanned hand's cards looked like grain, where a region
# half wood and half light table did not. Measured at 2304x1296 (EPFL, a card square about
# each faint glyph): the parquet round the light table of train_06 and the laid-cards
# queen's wood 216-1,170 (median 494 and 837), a fanned hand's faint indices 93-247.
FAINT_DENSE_PER_MP = 300.0
FAINT_DENSE_SIDE = 28.0
# Light ink (gold or silver on a dark card: ``find_glyphs(bright=True)``) lying in grain (where
# the dark pass's faint-ink search found faint ink dense, ``Glyphs.grain``) off the unread
# card outlines must also lie this share of its paper's own level above that paper, where the
# card's height is known (the device, ``GlyphLimits.of_card``). A light wooden table's paler
# streaks peak 57-71 over their paper at 120-158 (10th-90th percentile) and were searched as
# light ink: the laid-cards birch queen's region gave 224 such blobs, 286 pairs and 63
# patches for the network, all grain (issue 62, item 4). Light ink's own paper is a dark card
# (Roboflow's dark deck at device geometry, val: the median light blob's paper at 6-62), where
# the fixed floor stays (0.5 x 92 = 46). Held to it everywhere, 1 card of dev's 1,986 and 1
# of test's 684 were lost at 1280x720 (a black card's sliver by a white table; 0.4 lost it
# too; 1.0 lost a 7D on val); held to it in grain only, the same readings on val.
BRIGHT_PAPER_SHARE = 0.5
# A lamp's colour cast (``white_balanced``): the paper's level in each channel is this
# percentile of every CAST_STEP-th pixel (a frame's brightest half per cent is paper where a
# card fills a two-hundredth of it); a channel CAST_TOLERANCE or more below the brightest is
# raised to it, by at most CAST_MAX_GAIN. The test photos' paper is within 0.14 of grey.
CAST_PERCENTILE = 99.5
CAST_STEP = 6
CAST_TOLERANCE = 0.2
CAST_MAX_GAIN = 2.5
# A flat frame (``stretched``): its darkest channel's FLAT_PERCENTILES less than FLAT_RANGE
# apart (the dev photos' 1st and 99th span 170-250; halving their contrast leaves 85-115)
# are stretched to FLAT_TARGET apart, by at most FLAT_MAX_GAIN. The extreme half per cents:
# a card on a plain table is most of a frame's ink and paper.
FLAT_PERCENTILES = (0.5, 99.5)
FLAT_RANGE = 140.0
FLAT_TARGET = 200.0
FLAT_MAX_GAIN = 2.0
# ... where its paper is at least this bright: a dim photo's ink is as deep as its paper
# allows, and stretching one (paper at 98) lost a Roboflow test card. A trade (Roboflow dev,
# all 181 photos, recall lost to -1.5 EV / to contrast halved, in points): 150 1.1 / 3.3,
# 135 2.6 / 1.5, 120 3.6 / 1.5; a global stretch cannot do both (benchmarks/README.md).
FLAT_MIN_PAPER = 150.0
# A suit glyph may be at most this much bigger than its rank (box size, and extent along
# the rank-to-suit axis). Every deck prints the rank taller, but a glyph's box measures a
# turned glyph loosely, and a wide heart under a narrow 6 must still pair.
SUIT_SIZE = 1.3
SUIT_EXTENT = 1.25
# Rank and suit must lie apart along their axis, each measured there by its box. A box
# overstates a glyph turned by an angle t by up to the glyph's width times sin 2t, so an
# index turned 45 degrees failed the gate by a fraction of a pixel (a close-up's KS,
# Roboflow dev); the gate eases by this share of sin 2t.
TURNED_BOX_EASING = 0.25
# The shorter side is brought down to at most this many pixels before anything else: a
# 1080p frame or a photo keeps the resolution its small indices need (on the EPFL dev
# photos, 1067 pixels high, recall rose from 0.79 at 720 to 0.90), and a 1280x720 camera
# frame is read as it comes.
MAX_SHORT_SIDE = 1080
# A frame of unknown geometry this small or smaller is read at twice its size, with a lower
# glyph floor and contrast floor: its indices are likely small (a 1280x720 stream over a 1 m
# table makes cards 60-90 px tall and indices 5-8 px, whose 1 px strokes the floors at the
# frame's own size cut away).
SMALL_FRAME_SHORT_SIDE = 720
SMALL_FRAME_UPSCALE = 2.0
SMALL_FRAME_MIN_GLYPH = 0.0045
SMALL_FRAME_MIN_CONTRAST = 40
# Where the card's height in the frame's pixels is known (``card_px``), the frame is resized
# so a card is this tall, and the limits below are shares of it: what a 1280x720 frame with
# 90 px cards is read at by the small-frame rule above (a 2x enlargement), which took real
# photos scaled to 60-90 px cards from recall 0.51 to 0.92 (EPFL dev) and 0.70 to 0.91
# (Roboflow dev). The glyph floor is the frame-relative floor of such a frame (6.5 px), the
# paper window 0.48 of a card, the ceiling 1.44 cards: glyphs never reach it, but line work
# up to twice it is opened (a card's printed border with an index against it). Cards read
# 120 or 150 px tall found fewer, 210 px no more (benchmarks/README.md, device geometry).
CARD_READ_PX = 180.0
CARD_MIN_GLYPH = SMALL_FRAME_MIN_GLYPH * SMALL_FRAME_SHORT_SIDE * SMALL_FRAME_UPSCALE / CARD_READ_PX
CARD_MAX_GLYPH = MAX_GLYPH * SMALL_FRAME_SHORT_SIDE * SMALL_FRAME_UPSCALE / CARD_READ_PX
CARD_WINDOW = WINDOW * SMALL_FRAME_SHORT_SIDE * SMALL_FRAME_UPSCALE / CARD_READ_PX
# A blob filling less than this share of its box, and no more than this many times the
# biggest glyph across, is mostly line: a card's printed border or a court's frame, where a
# blurred index glyph may hang. It is opened by the kernel to cut the glyph free ("Glyphs cut
# free of printed lines" in vision/training/README.md).
LINE_WORK_FILL = 0.3
LINE_WORK_SIZE = 2.0
# A blob bigger across than any glyph is opened too while it fills less than this share of its
# box: line work with solid ink on it, a court's frame round its picture, or the band of table
# along a card's rim with a rank run into it (a Penguins queen's blob fills 0.41). Opening
# glyph-sized blobs up to this fill as well found a few cards more, but cost 1.9 ms a photo
# instead of 0.4 ("Glyphs cut free of framed pictures" in vision/training/README.md).
OVERSIZED_LINE_WORK_FILL = 0.6
_LINE_KERNEL = np.ones((3, 3), np.uint8)
# What is cut free must be solid: a suit in any deck fills at least this share of its box (a
# heart, spade, diamond or club about half of it), as do bold ranks; the thin scraps of a
# picture that an opening leaves seldom do.
SOLID_FILL = 0.35
# Blur joins a glyph to a neighbour (a 10 to the first big pip of its card) with a bridge
# fainter than either. Where a blob falls apart into solid glyphs at this stricter contrast
# (1.5 times MIN_CONTRAST), the parts are glyphs too ("Glyphs parted where blur bridges
# them" in vision/training/README.md).
STRICT_CONTRAST = 72
# ... and each part is at most this share of its blob's size across.
BRIDGED_PART = 0.8
# Counting each blob's pixels over that contrast, to skip the blobs that cannot part, costs
# 0.3-0.45 ns a pixel of the frame, and labelling a blob alone 5-8 us (here): the count is
# spent only where the blobs to part are more than one in this many pixels (a region of grained
# wood as the device reads it: the laid-cards queen 1 in 1,700, king 1 in 4,000), not on a
# photo's few (Roboflow dev: about 1 in 11,000, most with ink enough to part).
BRIDGED_COUNT_PIXELS = 6_000


@dataclass(frozen=True, slots=True)
class Glyphs:
    """Ink blobs of one polarity: centroids, bounding boxes (x, y, w, h) and pixel areas."""

    centroids: np.ndarray  # (n, 2) float32
    boxes: np.ndarray  # (n, 4) int32
    areas: np.ndarray  # (n,) int32
    # Where the faint-ink search found faint ink dense (wood grain: ``faint_dense``), uint8
    # 255 there, the channel's shape: only from a search told where the unread outlines lie.
    grain: np.ndarray | None = None


@dataclass(frozen=True, slots=True)
class IndexCandidates:
    """Upright patches of candidate indices and their geometry in frame pixels.

    ``rank_xy`` and ``suit_xy`` are the two glyph centroids; ``down`` is the unit
    vector from rank to suit (the card's "down" direction at that corner);
    ``span`` is the rank-to-suit distance, which sets the index's scale.
    """

    patches: np.ndarray  # (n, PATCH_SIZE, PATCH_SIZE, 3) uint8
    rank_xy: np.ndarray  # (n, 2) float32
    suit_xy: np.ndarray  # (n, 2) float32
    down: np.ndarray  # (n, 2) float32
    span: np.ndarray  # (n,) float32

    def __len__(self) -> int:
        return int(self.span.shape[0])


class ScaleError(ValueError):
    """A card size that sets no scale (not a positive number of pixels)."""


@dataclass(frozen=True, slots=True)
class GlyphLimits:
    """What a glyph is, in the pixels of the frame as read: the smallest and biggest size
    across, the paper window and how far ink lies from its paper (grey levels)."""

    min_glyph: float
    max_glyph: float
    window: int
    min_contrast: int
    # Whether faint ink is searched too (``_faint_glyphs``): in a frame read at less than twice
    # its size, where thin strokes lose their contrast; one enlarged twice has a lower floor
    # already, and the search would cost its many pixels about 40 % more time.
    faint: bool = False
    # Light ink's floor is also this share of its paper's level (``BRIGHT_PAPER_SHARE``; 0
    # none): where the card's height is known.
    bright_paper_share: float = 0.0

    @classmethod
    def of_frame(cls, shape: tuple[int, ...], *, small: bool = False) -> GlyphLimits:
        """Limits as fractions of a frame's shorter side (the lower floors of a small frame
        read enlarged with ``small``): for frames of unknown geometry."""
        short = min(shape[0], shape[1])
        floor, contrast = ((SMALL_FRAME_MIN_GLYPH, SMALL_FRAME_MIN_CONTRAST) if small
                           else (MIN_GLYPH, MIN_CONTRAST))
        return cls(max(MIN_GLYPH_PX, floor * short), MAX_GLYPH * short,
                   max(3, int(round(WINDOW * short)) | 1), contrast, faint=not small)

    @classmethod
    def of_card(cls, scale: float) -> GlyphLimits:
        """Limits as shares of a card ``CARD_READ_PX`` tall: for a frame resized to that by
        ``scale``.

        Enlarging smears an index's 1 px strokes into grey, so ink lies nearer its paper: the
        contrast floor falls from ``MIN_CONTRAST`` (cards read at their size or shrunk) to
        ``SMALL_FRAME_MIN_CONTRAST`` (enlarged twice or more), in proportion between. At 1x
        the lower floor found no more cards (2560x1440 frames, 120-180 px cards, dev) and
        twice the candidates on a wooden table (305 against 147 in one crop, whose candidate
        stage took 41.6 against 27.5 ms).
        """
        enlarged = min(1.0, max(0.0, (scale - 1.0) / (SMALL_FRAME_UPSCALE - 1.0)))
        contrast = MIN_CONTRAST - enlarged * (MIN_CONTRAST - SMALL_FRAME_MIN_CONTRAST)
        return cls(max(MIN_GLYPH_PX, CARD_MIN_GLYPH * CARD_READ_PX),
                   CARD_MAX_GLYPH * CARD_READ_PX,
                   max(3, int(round(CARD_WINDOW * CARD_READ_PX)) | 1), int(round(contrast)),
                   faint=scale < FAINT_BELOW_SCALE, bright_paper_share=BRIGHT_PAPER_SHARE)


@dataclass(frozen=True, slots=True)
class Reading:
    """How a frame is read: resized by ``scale``, then searched with ``limits``."""

    scale: float
    limits: GlyphLimits


def check_card_px(card_px: float) -> float:
    """``card_px`` as a float, or ``ScaleError`` where it is no positive number of pixels."""
    if isinstance(card_px, bool) or not isinstance(card_px, (int, float)) \
            or not math.isfinite(card_px) or card_px <= 0:
        raise ScaleError(f"card_px must be a positive number of pixels, not {card_px!r}")
    return float(card_px)


def reading(shape: tuple[int, ...], *, card_px: float | None = None) -> Reading:
    """How to read a frame of ``shape`` whose cards are ``card_px`` tall (None: unknown).

    A known card size sets everything, whatever the frame's size: a crop round one card and
    the whole frame it came from are read alike. Without it the frame's own size is the
    only guide: over ``MAX_SHORT_SIDE`` it is shrunk, at most ``SMALL_FRAME_SHORT_SIDE`` it
    is enlarged.
    """
    if card_px is not None:
        scale = CARD_READ_PX / check_card_px(card_px)
        return Reading(scale, GlyphLimits.of_card(scale))
    if min(shape[0], shape[1]) <= SMALL_FRAME_SHORT_SIDE:
        scale = SMALL_FRAME_UPSCALE
        return Reading(scale, GlyphLimits.of_frame(_scaled(shape, scale), small=True))
    scale = working_scale(shape)
    return Reading(scale, GlyphLimits.of_frame(_scaled(shape, scale)))


def _scaled(shape: tuple[int, ...], scale: float) -> tuple[int, int]:
    """A frame's (height, width) once resized by ``scale``."""
    return int(round(shape[0] * scale)), int(round(shape[1] * scale))


def working_scale(shape: tuple[int, ...]) -> float:
    """Returns the factor that brings a frame's shorter side to at most ``MAX_SHORT_SIDE``."""
    short = min(shape[0], shape[1])
    return min(1.0, MAX_SHORT_SIDE / short)


_ONE_PIXEL_ROW = np.ones((1, 3), np.uint8)


def white_balanced(image: np.ndarray) -> np.ndarray:
    """The frame with its brightest surfaces (the cards' paper) made grey again, where a lamp
    has tinted them by more than ``CAST_TOLERANCE``; the frame itself otherwise. For photos
    (``find_candidates`` without ``card_px``): in a camera's frame, mostly table, the
    brightest surfaces are often the table's.

    Ink is found in each pixel's darkest channel, and under a warm lamp the paper's blue
    falls while red ink, darkest in green, cannot fall further: a red rank 70 grey levels
    under its paper lay 25-50 under it at 2700 K, and was lost (robustness sweep, EPFL dev: 6
    points of recall). Each channel is scaled so its ``CAST_PERCENTILE`` (of every
    ``CAST_STEP``-th pixel) matches the brightest channel's, by at most ``CAST_MAX_GAIN``.
    """
    sample = _sample(image)
    if sample.size == 0:
        return image
    ref = np.array([_level(sample[..., c], CAST_PERCENTILE) for c in range(3)])
    gains = np.minimum(ref.max() / np.maximum(ref, 1.0), CAST_MAX_GAIN)
    if float(gains.max()) <= 1.0 + CAST_TOLERANCE:
        return image
    return cv2.transform(image, np.diag(gains).astype(np.float32))


def _sample(image: np.ndarray) -> np.ndarray:
    """Every ``CAST_STEP``-th pixel of every ``CAST_STEP``-th row, as a small BGR image."""
    h, w = image.shape[:2]
    if h < CAST_STEP or w < CAST_STEP:
        return image[:0]
    return cv2.resize(image, (w // CAST_STEP, h // CAST_STEP), interpolation=cv2.INTER_NEAREST)


def _level(values: np.ndarray, percent: float) -> float:
    """The grey level ``percent`` of ``values`` (uint8) lie at or below, from their histogram:
    a tenth of ``np.percentile``'s time, which sorts."""
    counts = np.cumsum(np.bincount(np.ravel(values), minlength=256))
    return float(np.searchsorted(counts, percent / 100.0 * counts[-1]))


def stretched(image: np.ndarray) -> np.ndarray:
    """The frame's levels stretched where its darkest and brightest lie less than
    ``FLAT_RANGE`` apart and the brightest is paper-bright (``FLAT_MIN_PAPER``: a hazy or
    low-contrast camera, a light table); the frame itself otherwise.

    The contrast floors are grey levels: with the contrast halved, a rank 70 under its paper
    lay 35 under it and was lost (robustness sweep, EPFL dev: 3 points of recall). The range
    is the ``FLAT_PERCENTILES`` of every ``CAST_STEP``-th pixel's darkest channel, and is
    stretched to ``FLAT_TARGET`` down from its bright end, by at most ``FLAT_MAX_GAIN``.
    """
    sample = _sample(image)
    if sample.size == 0:
        return image
    sample = np.minimum(np.minimum(sample[..., 0], sample[..., 1]), sample[..., 2])
    dark, bright = (_level(sample, q) for q in FLAT_PERCENTILES)
    if bright - dark >= FLAT_RANGE or bright < FLAT_MIN_PAPER:
        return image
    gain = min(FLAT_MAX_GAIN, FLAT_TARGET / max(bright - dark, 1.0))
    # Anchored at the bright end: the paper keeps its level and all below it darkens, so a
    # light table (a flat frame too: its ink is a sliver of the frame) is not pushed to black.
    return cv2.addWeighted(image, gain, image, 0.0, (1.0 - gain) * bright)


def channel_extremes(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each pixel's darkest and brightest channel of a BGR image: dark or red ink shows in the
    first, gold or silver ink on a black card in the second.

    Read as one row of B, G, R values per image row, a 3-wide erosion (dilation) at a pixel's
    middle value takes the minimum (maximum) of exactly its three channels: the same result as
    splitting the channels, in a third of the time (1.0 against 3.4 ms for a 1280x720 frame).
    """
    image = np.ascontiguousarray(image)
    rows = image.reshape(image.shape[0], -1)
    lo = cv2.erode(rows, _ONE_PIXEL_ROW, borderType=cv2.BORDER_REPLICATE)
    hi = cv2.dilate(rows, _ONE_PIXEL_ROW, borderType=cv2.BORDER_REPLICATE)
    return (cv2.extractChannel(lo.reshape(image.shape), 1),
            cv2.extractChannel(hi.reshape(image.shape), 1))


def _paper_level(channel: np.ndarray, window: int, *, bright: bool) -> np.ndarray:
    """The level of the paper under each pixel: a morphological closing (opening for light
    ink) of a quarter-size copy, brought back to full size.

    A closing wipes out whatever dark is narrower than its window (the glyphs) and keeps
    the edges of larger things where they are. An index sits near its card's edge, and the
    local mean used before took in the table beside the card: a dark table pulled it down
    towards the ink, a light one pushed it up past dim gold ink, and such indices were never
    segmented (held-out decks, deal 2: 247 to 266 cards read). It is smooth, so a quarter-size
    copy serves.
    """
    h, w = channel.shape[:2]
    # Padded to whole 4x4 blocks first: OpenCV shrinks by a whole factor in a quarter of the
    # time it takes for any other (0.13 against 0.56 ms for a laid card's region here, twice a
    # read), and each small pixel is then exactly its block, not one drifting a little wider.
    ph, pw = -h % 4, -w % 4
    if ph or pw:
        channel = cv2.copyMakeBorder(channel, 0, ph, 0, pw, cv2.BORDER_REPLICATE)
    small = cv2.resize(channel, ((w + pw) // 4, (h + ph) // 4), interpolation=cv2.INTER_AREA)
    side = max(3, window // 4 | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (side, side))
    level = cv2.morphologyEx(small, cv2.MORPH_OPEN if bright else cv2.MORPH_CLOSE, kernel)
    level = cv2.resize(level, (w + pw, h + ph), interpolation=cv2.INTER_LINEAR)
    return level[:h, :w] if ph or pw else level


def _size_and_fill(bw: np.ndarray, bh: np.ndarray, area: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Blobs' size (their box's longer side) and the share of their box they fill."""
    return np.maximum(bw, bh), area / np.maximum(bw * bh, 1)


def _glyph_like(bw: np.ndarray, bh: np.ndarray, area: np.ndarray, lo: float, hi: float
                ) -> np.ndarray:
    """Which blobs (box width, height, pixel area) could be an index glyph at this scale."""
    size, fill = _size_and_fill(bw, bh, area)
    thickness = np.minimum(bw, bh)
    return np.asarray(
        (size >= lo)
        & (size <= hi)
        & (thickness >= 2)
        & (fill >= 0.12)
        & (fill <= 0.95)
        & (size <= 4.5 * thickness + 2)
    )


def _parts_of_line_work(labels: np.ndarray, stats: np.ndarray, lo: float, hi: float
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Solid glyphs glued to thin lines, cut free: centroids, boxes and areas of the parts.

    A card's printed border or a court's picture frame is a line a pixel or two wide, and
    where an index lies against it (a fanned card's index under the next card's border) the
    blurred glyph touches it and becomes part of one large, sparse blob that is no glyph. An
    opening wipes out the lines and leaves the solid glyph. Only sparse blobs (mostly line),
    and blobs too big to be a glyph that are not solid either, are opened, and the parts are
    added beside them, so no blob that was a glyph is lost.
    """
    size, fill = _size_and_fill(stats[:, 2], stats[:, 3], stats[:, 4])
    to_open = np.nonzero(((fill < LINE_WORK_FILL) & (size >= 3 * lo)
                          | (fill < OVERSIZED_LINE_WORK_FILL) & (size > hi))
                         & (size <= LINE_WORK_SIZE * hi))[0]
    cents: list[np.ndarray] = []
    boxes: list[np.ndarray] = []
    holders: list[np.ndarray] = []
    for i, (x, y, w, h) in zip(to_open.tolist(), stats[to_open, :4].tolist(), strict=True):
        blob = np.equal(labels[y:y + h, x:x + w], i + 1).view(np.uint8)
        # The opening is an erosion then a dilation; what the erosion leaves, grown by the
        # dilation's one pixel, is all there is to label (labelling costs by the pixel).
        # Outside the box is no ink (the default border would keep lines along the box's edges).
        core = cv2.erode(blob, _LINE_KERNEL, borderType=cv2.BORDER_CONSTANT, borderValue=0)
        rx, ry, rw, rh = cv2.boundingRect(core)
        if min(rw, rh) + 2 < lo:
            continue
        # The erosion cleared the box's rim, so the grown core stays inside the box.
        rx, ry, rw, rh = rx - 1, ry - 1, rw + 2, rh + 2
        opened = cv2.dilate(core[ry:ry + rh, rx:rx + rw], _LINE_KERNEL)
        _, _, parts, part_cents = cv2.connectedComponentsWithStatsWithAlgorithm(
            opened, 8, cv2.CV_32S, cv2.CCL_GRANA)
        parts[1:, :2] += (x + rx, y + ry)
        cents.append(part_cents[1:] + (x + rx, y + ry))
        boxes.append(parts[1:])
        holders.append(np.full(len(parts) - 1, size[i]))
    if not cents:
        return _no_parts()
    part_cents, parts = np.concatenate(cents), np.concatenate(boxes)
    # Well smaller than what held it: half its size at most.
    keep = _solid_parts(parts[:, 2:5], 0.5 * np.concatenate(holders), lo, hi)
    return part_cents[keep], parts[keep, :4], parts[keep, 4]


def _components(binary: np.ndarray) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """8-connected components of ``binary`` with their stats, as
    ``cv2.connectedComponentsWithStats`` gives them (labels uint16 or int32).

    Grana's block-based labelling: the same components, in the same order, as the default
    algorithm, in less than half the time on a frame of ink and table grain. Labels of 16 bits
    where fewer than 65,535 pixels are set (so the labels cannot overflow them): the stats of
    a region as the device reads it (800,000 pixels) then took 1.8-2.1 ms here against
    3.9-4.7 with 32 (OpenCV 5.1, one thread), which the faint search over a whole region
    (``FAINT_DENSE_PER_MP``) pays twice over.
    """
    small = cv2.countNonZero(binary) < np.iinfo(np.uint16).max
    n, labels, stats, cents = cv2.connectedComponentsWithStatsWithAlgorithm(
        binary, 8, cv2.CV_16U if small else cv2.CV_32S, cv2.CCL_GRANA)
    return n, labels, stats, cents


def _no_parts() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """No glyphs cut from any blob: empty centroids, boxes and areas."""
    return np.zeros((0, 2)), np.zeros((0, 4), np.int32), np.zeros(0, np.int32)


def _solid_parts(sizes: np.ndarray, most: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """Which parts cut from a blob (rows of width, height, area) are glyphs: glyph-like,
    solid, and no bigger across than ``most``. (Not squarish, as a suit: a frame squashed to
    another aspect squashes its suits too.)"""
    pw, ph, area = sizes[:, 0], sizes[:, 1], sizes[:, 2]
    return np.asarray(_glyph_like(pw, ph, area, lo, hi) & (area >= SOLID_FILL * pw * ph)
                      & (np.maximum(pw, ph) <= most))


def find_glyphs(channel: np.ndarray, *, bright: bool, limits: GlyphLimits | None = None,
                faint_within: np.ndarray | None = None,
                light_gate: np.ndarray | None = None) -> Glyphs:
    """Segments glyph-sized blobs darker (or, with ``bright``, lighter) than their paper, and
    the solid glyphs cut free of the printed lines they touch. ``limits`` default to
    fractions of the channel's shorter side (``GlyphLimits.of_frame``). ``faint_within``
    (uint8, the channel's shape, non-zero inside) confines the faint-ink search to it where
    that search finds faint ink dense (``_faint_glyphs``), and the glyphs say where that was
    (``Glyphs.grain``). Where ``light_gate`` (uint8, non-zero there) is given, light ink must
    also lie ``limits.bright_paper_share`` of its paper's level above it
    (``BRIGHT_PAPER_SHARE``)."""
    if limits is None:
        limits = GlyphLimits.of_frame(channel.shape)
    paper = _paper_level(channel, limits.window, bright=bright)
    if bright:
        diff = cv2.subtract(channel, paper)
    else:
        diff = cv2.subtract(paper, channel)
    _, binary = cv2.threshold(diff, limits.min_contrast, 255, cv2.THRESH_BINARY)
    if bright and light_gate is not None and limits.bright_paper_share > 0:
        # Light ink lies well above its paper, in proportion too (``BRIGHT_PAPER_SHARE``),
        # where the gate is: worked out in the box round it only (a few cells of most regions).
        x, y, w, h = cv2.boundingRect(light_gate)
        if w and h:
            box = np.s_[y:y + h, x:x + w]
            share = cv2.bitwise_and(cv2.convertScaleAbs(paper[box],
                                                        alpha=limits.bright_paper_share),
                                    light_gate[box])
            binary[box] = cv2.compare(diff[box], cv2.max(share, float(limits.min_contrast)),
                                      cv2.CMP_GT)
    n, labels, stats, cents = _components(binary)
    stats = stats[1:]
    cents = cents[1:]
    lo, hi = limits.min_glyph, limits.max_glyph
    keep = _glyph_like(stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT],
                       stats[:, cv2.CC_STAT_AREA], lo, hi)
    parts = [_parts_of_line_work(labels, stats, lo, hi)]
    grain = None
    if not bright:  # dark or red ink: nearly every deck (see _parts_of_bridged, _faint_glyphs)
        parts.append(_parts_of_bridged(diff, labels, stats, lo, hi))
        if limits.faint:
            f_cents, f_boxes, f_areas, grain = _faint_glyphs(diff, limits, stats[keep, :4],
                                                             within=faint_within)
            parts.append((f_cents, f_boxes, f_areas))
    part_cents, part_boxes, part_areas = zip(*parts, strict=True)
    return Glyphs(
        centroids=np.concatenate([cents[keep], *part_cents]).astype(np.float32),
        boxes=np.concatenate([stats[keep, :4], *part_boxes]).astype(np.int32),
        areas=np.concatenate([stats[keep, cv2.CC_STAT_AREA], *part_areas]).astype(np.int32),
        grain=grain,
    )


def _faint_glyphs(diff: np.ndarray, limits: GlyphLimits, found: np.ndarray, *,
                  within: np.ndarray | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """Glyphs of faint ink: centroids, boxes and areas of the glyph-like blobs segmented where
    the contrast floor is lowered (``_faint_floor``), less those ``found`` (boxes) already.
    Where a mask ``within`` is given, those lying where faint glyphs are dense
    (``faint_dense``: wood grain) are kept only where their middle lies inside it, and the
    fourth value is where they are dense (``grain_mask``; None without ``within``, or where
    nothing is).

    A thin rank printed in a light font and shrunk to the working scale, or blurred, lies
    50-75 grey levels under its paper where its suit lies 200 under: the fixed floor broke it
    into scraps and no index was found (``epfl-iapr2022-poker/train_06``, a light table: 2 of
    11 cards read). Only where the darkest ink within a glyph's reach lies between the floor
    and ``FAINT_PEAK`` times it is the floor lowered, and what is segmented there is added
    beside the blobs of the fixed floor, not put in their place: lowered across a frame, the
    floor joined glyphs to the soft edges of dark things beside them, and cards read before
    were lost (2 of Roboflow's test split).
    """
    binary = cv2.compare(diff, _faint_floor(diff, limits, elsewhere=255), cv2.CMP_GT)
    _, labels, stats, cents = _components(binary)
    stats, cents = stats[1:], cents[1:]
    keep = _glyph_like(stats[:, 2], stats[:, 3], stats[:, 4], limits.min_glyph,
                       limits.max_glyph)
    # Faint ink alone is no glyph: some of it must be as dark as the fixed floor asks. Marked
    # for every blob at once, not blob by blob: wood grain makes thousands of them.
    dark = np.zeros(len(stats) + 1, bool)
    dark[labels[diff > limits.min_contrast]] = True
    keep &= dark[1:]
    stats, cents = stats[keep], cents[keep]
    if found.size and len(stats):
        keep = ~_found_already(stats[:, :4], found)
        stats, cents = stats[keep], cents[keep]
    grain = None
    if within is not None:
        side = FAINT_DENSE_SIDE * limits.min_glyph
        grain = grain_mask(cents, diff.shape, side)
        if grain is not None:  # else nothing is dense: every glyph stays
            keep = ~faint_dense(cents, diff.shape, side) | _inside(within, cents)
            stats, cents = stats[keep], cents[keep]
    return cents, stats[:, :4], stats[:, 4], grain


def faint_dense(points: np.ndarray, shape: tuple[int, ...], side: float) -> np.ndarray:
    """Which faint glyphs (``points``, (n, 2) x, y in an image of ``shape``) lie where they are
    grain rather than indices: more than ``FAINT_DENSE_PER_MP`` a million pixels of the
    image within a square about ``side`` across round them (its part inside the image).

    Counted on a grid of cells a third of ``side``, each glyph's square the 3x3 cells round
    its own: a histogram and a box sum, not a distance between every two glyphs (wood grain
    gives a thousand of them in a settled 2304x1296 table)."""
    h, w = shape[:2]
    n = len(points)
    if n == 0 or h == 0 or w == 0:
        return np.zeros(n, bool)
    dense, cx, cy = _dense_cells(points, shape, side)
    return np.asarray(dense[cy, cx])


def grain_mask(points: np.ndarray, shape: tuple[int, ...], side: float) -> np.ndarray | None:
    """The mask (uint8, 255 where dense, ``shape``'s height and width) of the cells where
    ``points`` are dense by ``faint_dense``'s rule: where a faint glyph would be grain; None
    where no cell is (most regions: nothing to hold light ink to, at no cost)."""
    h, w = shape[:2]
    if len(points) == 0 or h == 0 or w == 0:
        return None
    dense, _, _ = _dense_cells(points, shape, side)
    if not dense.any():
        return None
    cells = dense.astype(np.uint8) * np.uint8(255)
    return cv2.resize(cells, (w, h), interpolation=cv2.INTER_NEAREST)


def _dense_cells(points: np.ndarray, shape: tuple[int, ...], side: float
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``faint_dense``'s grid: which cells (gh, gw) are dense, and each point's cell x, y."""
    h, w = shape[:2]
    cell = max(1.0, side / 3.0)
    gw, gh = max(1, math.ceil(w / cell)), max(1, math.ceil(h / cell))
    xy = np.asarray(points, np.float64).reshape(-1, 2)
    cx = np.clip((xy[:, 0] / cell).astype(np.int64), 0, gw - 1)
    cy = np.clip((xy[:, 1] / cell).astype(np.int64), 0, gh - 1)
    counts = np.bincount(cy * gw + cx, minlength=gw * gh).reshape(gh, gw).astype(np.float32)
    # Each cell's pixels inside the image (the last row and column may be cut short).
    cols = np.minimum(cell, w - np.arange(gw) * cell)
    rows = np.minimum(cell, h - np.arange(gh) * cell)
    area = np.outer(rows, cols).astype(np.float32)
    kernel = (3, 3)
    near = cv2.boxFilter(counts, -1, kernel, normalize=False, borderType=cv2.BORDER_CONSTANT)
    room = cv2.boxFilter(area, -1, kernel, normalize=False, borderType=cv2.BORDER_CONSTANT)
    return np.asarray(near * 1e6 > FAINT_DENSE_PER_MP * room), cx, cy


def _inside(mask: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Which ``points`` ((n, 2) x, y) fall on a non-zero pixel of ``mask``."""
    if len(points) == 0:
        return np.zeros(0, bool)
    h, w = mask.shape[:2]
    xy = np.rint(points).astype(np.int64)
    x, y = np.clip(xy[:, 0], 0, w - 1), np.clip(xy[:, 1], 0, h - 1)
    return np.asarray(mask[y, x] != 0)


def _found_already(boxes: np.ndarray, found: np.ndarray) -> np.ndarray:
    """Which ``boxes`` (x, y, w, h) hold the middle of a box ``found`` at the fixed floor that
    is nearly as big (``FAINT_SAME`` of its size across): the same glyph, grown by its blur."""
    size = np.maximum(boxes[:, 2], boxes[:, 3]).astype(np.float64)
    mid = found[:, :2] + 0.5 * found[:, 2:4]
    big = np.maximum(found[:, 2], found[:, 3]) >= FAINT_SAME * size[:, None]
    inside = ((mid[None, :, 0] >= boxes[:, None, 0]) & (mid[None, :, 0] < boxes[:, None, 0]
                                                        + boxes[:, None, 2])
              & (mid[None, :, 1] >= boxes[:, None, 1]) & (mid[None, :, 1] < boxes[:, None, 1]
                                                          + boxes[:, None, 3]))
    return np.asarray(np.any(inside & big, axis=1))


def _faint_floor(diff: np.ndarray, limits: GlyphLimits, *, elsewhere: int | None = None
                 ) -> np.ndarray:
    """Each pixel's contrast floor (uint8): ``FAINT_SHARE`` of the darkest ink within a
    glyph's reach where that ink is darker than ``limits.min_contrast`` but less than
    ``FAINT_PEAK`` times it, never under ``FAINT_FLOOR``; ``elsewhere`` (default
    ``limits.min_contrast``; 255 keeps only the faint search's own pixels) elsewhere.

    Only near ink the fixed floor already finds is it lowered, so table grain and shadows
    fainter than that add no blob. A dilation and a table look-up: about 5 ms for a frame
    read at 2560x1440.
    """
    side = max(3, int(round(FAINT_REACH * limits.min_glyph)) | 1)
    peak = cv2.dilate(diff, cv2.getStructuringElement(cv2.MORPH_RECT, (side, side)))
    contrast = limits.min_contrast
    return cv2.LUT(peak, _faint_table(contrast, contrast if elsewhere is None else elsewhere))


@lru_cache(maxsize=8)
def _faint_table(contrast: int, elsewhere: int) -> np.ndarray:
    """The floor for each depth of the darkest ink near a pixel (``_faint_floor``)."""
    depth = np.arange(256, dtype=np.float64)
    lowered = np.maximum(np.rint(FAINT_SHARE * depth), min(FAINT_FLOOR, contrast))
    faint = (depth > contrast) & (depth < FAINT_PEAK * contrast)
    table = np.where(faint, np.minimum(lowered, contrast), elsewhere).astype(np.uint8)
    table.flags.writeable = False
    return table


def _parts_of_bridged(diff: np.ndarray, labels: np.ndarray, stats: np.ndarray, lo: float,
                      hi: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Solid glyphs that a faint bridge of blur joined into one blob, parted at
    ``STRICT_CONTRAST``: centroids, boxes and areas of the parts.

    A 10's index beside its first big pip, blurred, became one blob too big to pair with the
    small suit below it, in every other frame of a still card (a drawn deal's 10H was named
    13 frames late). Each blob that could hold two glyphs is labelled again, in its own
    box and pixels, at the stricter contrast: about 0.5 ms for a photo's 80 such blobs, where
    labelling the whole frame again cost 1.8 ms. The blob itself stays, so nothing that was a
    glyph is lost. Only the dark-ink pass does this: light ink on a dark card is rare, and
    parting it gained no card on the held-out decks.

    Where blobs are many for the frame's pixels (``BRIDGED_COUNT_PIXELS``), only those with
    ink enough at the stricter contrast for two solid parts are labelled (``_bridgeable``): on
    the laid-cards queen's birch 60 of 215, which took this from 2.4 to 1.4 ms a read here,
    with the same parts.
    """
    size = np.maximum(stats[:, 2], stats[:, 3])
    holders = np.nonzero((size >= lo / BRIDGED_PART) & (size <= hi)
                         & (np.minimum(stats[:, 2], stats[:, 3]) >= 2))[0]
    if len(holders) * BRIDGED_COUNT_PIXELS >= diff.size:
        holders = holders[_bridgeable(diff, labels, len(stats), lo)[holders]]
    cut: list[tuple[int, np.ndarray, np.ndarray]] = []  # each blob's parts: stats, centroids
    for i, (x, y, w, h) in zip(holders.tolist(), stats[holders, :4].tolist(), strict=True):
        strict = (diff[y:y + h, x:x + w] > STRICT_CONTRAST) & (labels[y:y + h, x:x + w] == i + 1)
        n, _, parts, cents = cv2.connectedComponentsWithStatsWithAlgorithm(
            strict.view(np.uint8), 8, cv2.CV_32S, cv2.CCL_GRANA)
        if n < 3:  # one part or none: not bridged
            continue
        parts[1:, :2] += (x, y)
        cut.append((i, parts[1:], cents[1:] + (x, y)))
    if not cut:
        return _no_parts()
    # Rows: x, y, w, h, area, cx, cy, blob's size, blob (built once, not blob by blob).
    blob_of = np.repeat([i for i, _, _ in cut], [len(parts) for _, parts, _ in cut])
    part = np.column_stack([np.concatenate([parts for _, parts, _ in cut]),
                            np.concatenate([cents for _, _, cents in cut]), size[blob_of],
                            blob_of])
    part = part[_solid_parts(part[:, 2:5], BRIDGED_PART * part[:, 7], lo, hi)]
    # Only blobs that still fall apart into two glyphs or more were bridged.
    blob = part[:, 8].astype(np.int64)
    part = part[np.bincount(blob, minlength=len(stats))[blob] >= 2]
    return part[:, 5:7], part[:, :4].astype(np.int32), part[:, 4].astype(np.int32)


def _bridgeable(diff: np.ndarray, labels: np.ndarray, blobs: int, lo: float) -> np.ndarray:
    """Which of ``blobs`` (labels 1..blobs) hold enough ink over ``STRICT_CONTRAST`` to part
    into two solid glyphs (``_solid_parts``): each is at least ``lo`` across and 2 pixels
    thick and fills ``SOLID_FILL`` of its box, so it holds at least this many pixels.

    One count over the frame's strict pixels, where labelling every blob cost a call each:
    most blobs of table grain have no such ink at all."""
    least = 2.0 * SOLID_FILL * 2 * max(1, math.ceil(lo))
    counts = np.bincount(labels[diff > STRICT_CONTRAST], minlength=blobs + 1)
    return np.asarray(counts[1:] >= least)


def pair_glyphs(glyphs: Glyphs, *, max_partners: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """Pairs each glyph (as a rank) with nearby smaller-or-similar glyphs (as its suit).

    Returns index arrays ``(rank_idx, suit_idx)``. A pair is kept when the suit
    lies about one glyph height away and is not much bigger than the rank: in
    every deck we know the rank is the taller of the two.
    """
    n = glyphs.centroids.shape[0]
    if n < 2:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    c = glyphs.centroids
    w = glyphs.boxes[:, 2].astype(np.float32)
    h = glyphs.boxes[:, 3].astype(np.float32)
    size = np.maximum(w, h)
    ranks: list[np.ndarray] = []
    suits: list[np.ndarray] = []
    # Blocks of rows keep the pairwise arrays small on frames with thousands of blobs.
    block = max(1, 250_000 // n)
    for start in range(0, n, block):
        a = np.arange(start, min(n, start + block))
        dx = c[None, :, 0] - c[a, None, 0]
        dy = c[None, :, 1] - c[a, None, 1]
        dist = np.sqrt(dx * dx + dy * dy)
        sa = size[a, None]
        near = (dist >= 0.45 * sa) & (dist <= 1.7 * sa)
        near &= (size[None, :] >= 0.35 * sa) & (size[None, :] <= SUIT_SIZE * sa)
        ai, bi = np.nonzero(near)
        if ai.size == 0:
            continue
        ai = a[ai]
        d = dist[ai - start, bi]
        ux = np.abs(dx[ai - start, bi]) / d
        uy = np.abs(dy[ai - start, bi]) / d
        # Extent of each blob along the pair axis (from its box; good enough for a gate).
        ext_a = w[ai] * ux + h[ai] * uy
        ext_b = w[bi] * ux + h[bi] * uy
        apart = 0.4 * (1.0 - TURNED_BOX_EASING * 2.0 * ux * uy) * (ext_a + ext_b)
        ok = (ext_b <= SUIT_EXTENT * ext_a) & (d >= apart)
        ai, bi, d = ai[ok], bi[ok], d[ok]
        if ai.size == 0:
            continue
        # Keep the nearest few partners of each rank blob.
        order = np.lexsort((d, ai))
        ai, bi = ai[order], bi[order]
        first = np.searchsorted(ai, ai, side="left")
        keep = (np.arange(ai.size) - first) < max_partners
        ranks.append(ai[keep])
        suits.append(bi[keep])
    if not ranks:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    return np.concatenate(ranks).astype(np.int64), np.concatenate(suits).astype(np.int64)


def pair_spans(rank_xy: np.ndarray, suit_xy: np.ndarray) -> np.ndarray:
    """Each pair's rank-to-suit distance (float32, (n,)): the ``span`` ``extract_patches``
    gives, computed alike so a test before the cut decides as one after it would."""
    delta = suit_xy - rank_xy
    return np.asarray(np.hypot(delta[:, 0], delta[:, 1]), np.float32)


def _worth_cutting(rank_xy: np.ndarray, suit_xy: np.ndarray, inv: np.float32,
                   index_span: float | None, read_whole: Sequence[np.ndarray]) -> np.ndarray:
    """Which pairs (points in the frame as read; ``inv`` brings them back to the frame's
    pixels) are worth a patch: those whose span fits an index of the told card
    (``span_check``, with ``index_span``) and whose rank lies on no card already read whole
    (``read_whole`` outlines, frame pixels). ``recognise`` drops the others after the cut,
    screen and network; dropped here they cost none of the three (issue 62, item 4: on the
    laid-cards birch queen 140 of 777 pairs)."""
    keep = np.ones(len(rank_xy), bool)
    if index_span is not None and len(rank_xy):
        keep &= span_fits(pair_spans(rank_xy, suit_xy) * inv, index_span)
    for outline in read_whole:
        if keep.any():
            keep &= ~points_in_quad(rank_xy * inv, outline)
    return keep


def extract_patches(
    image: np.ndarray, rank_xy: np.ndarray, suit_xy: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cuts one upright ``PATCH_SIZE`` square per (rank, suit) pair: rank on top, suit below.

    Returns ``(patches, down, span)``.
    """
    n = rank_xy.shape[0]
    patches = np.empty((n, PATCH_SIZE, PATCH_SIZE, 3), dtype=np.uint8)
    delta = suit_xy - rank_xy
    span = pair_spans(rank_xy, suit_xy)
    down = (delta / np.maximum(span, 1e-6)[:, None]).astype(np.float32)
    centre = 0.5 * (rank_xy + suit_xy)
    # Every patch's inverse map at once (arithmetic per patch in Python cost 1 ms a frame):
    # patch pixel (u, v) samples centre + s * ((u - m) * right + (v - m) * down), m the patch's
    # middle, where "right" on the card is "down" turned a quarter (a rotation, never a mirror).
    s = 2.0 * PATCH_HALF_SPAN * span.astype(np.float64) / PATCH_SIZE
    ux, uy = down[:, 0].astype(np.float64), down[:, 1].astype(np.float64)
    rx, ry = uy, -ux
    off = s * (0.5 - PATCH_SIZE / 2.0)
    maps = np.empty((n, 2, 3), np.float64)
    maps[:, 0, 0], maps[:, 0, 1] = s * rx, s * ux
    maps[:, 1, 0], maps[:, 1, 1] = s * ry, s * uy
    # The offset is added in the centroids' own precision, as it always was: the same patches
    # to the bit as those the CNN was trained on.
    maps[:, 0, 2] = centre[:, 0] + (off * (rx + ux)).astype(centre.dtype)
    maps[:, 1, 2] = centre[:, 1] + (off * (ry + uy)).astype(centre.dtype)
    for i in range(n):
        cv2.warpAffine(image, maps[i], (PATCH_SIZE, PATCH_SIZE), dst=patches[i],
                       flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                       borderMode=cv2.BORDER_REPLICATE)
    return patches, down, span


def faint_mask(shape: tuple[int, ...], outlines: Sequence[np.ndarray], scale: float
               ) -> np.ndarray:
    """The mask (uint8, ``shape``'s height and width) of card ``outlines`` ((4, 2) points in
    the frame's pixels) scaled by ``scale`` into the frame as read, each grown by
    ``FAINT_OUTLINE_MARGIN`` about its middle: an index lies just inside its card's rim, and
    an outline found on a soft edge may fall a little short of it."""
    mask = np.zeros(shape[:2], np.uint8)
    for outline in outlines:
        points = np.asarray(outline, np.float64).reshape(4, 2) * scale
        middle = points.mean(axis=0)
        grown = middle + FAINT_OUTLINE_MARGIN * (points - middle)
        cv2.fillConvexPoly(mask, np.rint(grown).astype(np.int32), 255)
    return mask


def find_candidates(image: np.ndarray, *, screen: bool = True, card_px: float | None = None,
                    faint_within: Sequence[np.ndarray] | None = None,
                    finder: IndexFinder | None = None, index_span: float | None = None,
                    read_whole: Sequence[np.ndarray] = (),
                    window: tuple[int, int, int, int] | None = None) -> IndexCandidates:
    """Runs segmentation, pairing and patch cutting on a BGR frame (coordinates in its pixels).

    ``card_px`` is a card's height in the frame's pixels where the caller knows it (the
    device's camera), which sets the scale it is read at (``reading``). With ``screen`` (the
    default) the cheap index screen (``vision.recognise.screen``) drops the patches that cannot be
    an index; training code that harvests hard negatives for the CNN or the screen itself asks
    for every candidate. ``faint_within`` confines the faint-ink search, where the reading
    does one, to those card outlines ((4, 2) frame points each) where it finds faint ink
    dense (``FAINT_DENSE_PER_MP``: wood grain); None keeps all it finds. ``finder`` (the
    learned index finder, ``vision.recognise.finder``; only with ``card_px``) adds the pairs
    it finds away from every classic pair, cut and screened alike. ``index_span`` (the
    rank-to-suit span in frame pixels of an index of the told card: ``card_px /
    detection.CARD_HEIGHT``) and ``read_whole`` (outlines of the cards read whole, (4, 2)
    frame points each) drop, before any patch is cut, the pairs ``recognise`` would drop
    after: a span outside ``span_check``'s band, a rank on a card already read.
    """
    check_frame(image, "find_candidates")
    fx0, fy0, fx1, fy1 = (0, 0, image.shape[1], image.shape[0]) if window is None else window
    found = None
    if finder is not None and card_px is not None:
        # First, before the read's own working copies exist: the network's buffers are given
        # back before the classic stage's peak rather than added to it (run later, it raised
        # a settled table's read's peak RSS by 7.5 MB).
        # Over the whole image even with a window: the network's stride-4 grid on its shrunk
        # copy is the image's, and a window's own grid found other indices (OpenCV 4.11's
        # dnn lost a laid 9D's two); what it finds outside the window is dropped below.
        found = (finder.find_within(image, card_px, faint_within)
                 if finder.outlines_only and faint_within is not None
                 else finder.find(image, card_px))
    read = reading(image.shape, card_px=card_px)
    scale = read.scale
    work = image
    if scale != 1.0:
        height, width = _scaled(image.shape, scale)
        work = cv2.resize(image, (max(1, width), max(1, height)),
                          interpolation=cv2.INTER_AREA if scale < 1.0 else cv2.INTER_CUBIC)
    origin = None  # the window's corner in ``work``: read there, the pixels those of it all
    edges = None  # the window's edges inside the image, in the window's pixels as read
    if window is not None:
        # On whole 4x4 blocks of ``work``: the paper level is judged on a quarter-size copy
        # (``_paper_level``), whose blocks must be the whole image's for the same pixels to
        # give the same levels (off the grid, OpenCV 4.11 moved an index's rank 0.1 px and the
        # live path lost a laid 9D; OpenCV 5 happened not to).
        wx0, wy0 = int(fx0 * scale) // 4 * 4, int(fy0 * scale) // 4 * 4
        full_h, full_w = work.shape[:2]
        work = np.ascontiguousarray(work[wy0:math.ceil(fy1 * scale), wx0:math.ceil(fx1 * scale)])
        origin = np.array([wx0, wy0], np.float32)
        edges = (np.array([0.0 if wx0 > 0 else -np.inf, 0.0 if wy0 > 0 else -np.inf]),
                 np.array([work.shape[1] if wx0 + work.shape[1] < full_w else np.inf,
                           work.shape[0] if wy0 + work.shape[0] < full_h else np.inf]))
        shift = (float(wx0) / scale, float(wy0) / scale)  # in the frame's pixels
        faint_within, read_whole = _moved(faint_within, shift), _moved(read_whole, shift) or []
    # A photo's levels are its cards' (they fill much of it); a camera's frame is mostly
    # table, whose cast taken off the frame lost 3 of Roboflow's test cards at 1280x720.
    lo, hi = channel_extremes(work if card_px is not None else stretched(white_balanced(work)))
    rank_parts: list[np.ndarray] = []
    suit_parts: list[np.ndarray] = []
    patch_parts: list[np.ndarray] = []
    down_parts: list[np.ndarray] = []
    span_parts: list[np.ndarray] = []
    within = None
    if read.limits.faint and faint_within is not None:
        within = faint_mask(work.shape, faint_within, scale)
    classic_mid: list[np.ndarray] = []
    inv = np.float32(1.0 / scale)
    gate = None
    for channel, bright in ((lo, False), (hi, True)):
        glyphs = find_glyphs(channel, bright=bright, limits=read.limits, faint_within=within,
                             light_gate=gate)
        if glyphs.grain is not None and within is not None:
            # Light ink in the dark pass's grain, off the unread outlines, is held to its
            # paper's level too (``BRIGHT_PAPER_SHARE``): pale streaks of a light wood.
            gate = cv2.subtract(glyphs.grain, within)  # 255 less 255 inside an outline
        r, s = pair_glyphs(glyphs)
        # Every pair, cut or not, holds its place against the finder's (``new_pairs``).
        classic_mid.append(0.5 * (glyphs.centroids[r] + glyphs.centroids[s]))
        worth = _worth_cutting(glyphs.centroids[r], glyphs.centroids[s], inv, index_span,
                               read_whole)
        if edges is not None:
            worth &= _clear_of(glyphs.centroids[r], glyphs.centroids[s], edges)
        r, s = r[worth], s[worth]
        if r.size == 0:
            continue
        patches, down, span = extract_patches(work, glyphs.centroids[r], glyphs.centroids[s])
        if bright:
            # Light ink on a dark card: invert so the classifier always sees ink darker
            # than paper (gold turns blue-dark, silver turns grey-dark).
            patches = 255 - patches
        if screen:
            keep = load_screen().passes(patches)
            r, s, patches, down, span = r[keep], s[keep], patches[keep], down[keep], span[keep]
        rank_parts.append(glyphs.centroids[r])
        suit_parts.append(glyphs.centroids[s])
        patch_parts.append(patches)
        down_parts.append(down)
        span_parts.append(span)
    if found is not None:
        at = found.scaled(scale)
        if origin is not None:  # from the whole frame to the window's part of work
            at = FoundIndices(at.rank_xy - origin, at.suit_xy - origin, at.heat)
        r_xy, s_xy = new_pairs(at, np.concatenate(classic_mid))
        worth = _worth_cutting(r_xy, s_xy, inv, index_span, read_whole)
        if edges is not None:
            worth &= _clear_of(r_xy, s_xy, edges)
        r_xy, s_xy = r_xy[worth], s_xy[worth]
        if len(r_xy):
            patches, down, span = extract_patches(work, r_xy, s_xy)
            keep = load_screen().passes(patches) if screen else np.ones(len(r_xy), bool)
            for part, got in ((rank_parts, r_xy), (suit_parts, s_xy), (patch_parts, patches),
                              (down_parts, down), (span_parts, span)):
                part.append(got[keep])
    if not rank_parts:
        z2 = np.zeros((0, 2), np.float32)
        return IndexCandidates(
            np.zeros((0, PATCH_SIZE, PATCH_SIZE, 3), np.uint8), z2, z2, z2, np.zeros(0, np.float32)
        )
    rank_xy, suit_xy = np.concatenate(rank_parts), np.concatenate(suit_parts)
    if origin is not None:
        rank_xy, suit_xy = rank_xy + origin, suit_xy + origin
    return IndexCandidates(
        np.concatenate(patch_parts),
        rank_xy * inv,
        suit_xy * inv,
        np.concatenate(down_parts),
        np.concatenate(span_parts) * inv,
    )


def _clear_of(rank_xy: np.ndarray, suit_xy: np.ndarray, edges: tuple[np.ndarray, np.ndarray]
              ) -> np.ndarray:
    """Which pairs' patches lie whole within ``edges`` (low and high x, y; infinite where the
    window meets the image's own edge): a glyph cut by a window's edge inside the image (a
    neighbour's index, or a pip of a card read whole, half in) is no index, and pairs made of
    it cost a patch, the screen and the network for nothing (3D's laid-cards region: 41 pairs
    cut in its window against 21 in the whole box)."""
    if len(rank_xy) == 0:
        return np.zeros(0, bool)
    middle = 0.5 * (rank_xy + suit_xy).astype(np.float64)
    reach = (PATCH_HALF_SPAN * pair_spans(rank_xy, suit_xy).astype(np.float64))[:, None]
    low, high = edges
    return np.asarray(np.all((middle - reach >= low) & (middle + reach <= high), axis=1))


def _moved(outlines: Sequence[np.ndarray] | None, by: tuple[float, float]
           ) -> list[np.ndarray] | None:
    """Outlines ((4, 2) points each) in the pixels of an image whose corner is at ``by``."""
    if outlines is None:
        return None
    shift = np.array(by, np.float64)
    return [np.asarray(o, np.float64).reshape(4, 2) - shift for o in outlines]


def find_candidates_in(image: np.ndarray, window: tuple[int, int, int, int] | None, *,
                       card_px: float | None = None,
                       faint_within: Sequence[np.ndarray] | None = None,
                       finder: IndexFinder | None = None, index_span: float | None = None,
                       read_whole: Sequence[np.ndarray] = ()) -> IndexCandidates:
    """``find_candidates`` in ``image``'s ``window`` (x0, y0, x1, y1 in its pixels, x1 and y1
    excluded) only, the candidates in ``image``'s pixels; None searches all of ``image``,
    exactly as ``find_candidates`` does.

    Why: the live path reads a changed region padded to whole cards, but a card laid or taken
    changes the whole of its outline, so its indices lie in or next to the changed cells; the
    contrast stage costs its pixels, and the padding is half of them
    (``vision.live.motion.INDEX_MARGIN``). The learned finder still looks over the whole
    image (its grid is the image's), and its pairs outside the window are dropped. The image
    is resized whole, as without a window, and the window cut from that on whole 4x4 blocks:
    the pixels searched are the very ones searched before (a window resized on its own lands
    on another pixel grid, and soft small cards read a little differently on it: the demo's
    games lost 10 of 806 cards so). ``faint_within`` and
    ``read_whole`` are in ``image``'s pixels; the other options are ``find_candidates``' own.
    """
    if window is None:
        return find_candidates(image, card_px=card_px, faint_within=faint_within,
                               finder=finder, index_span=index_span, read_whole=read_whole)
    check_frame(image, "find_candidates_in")
    x0, y0, x1, y1 = _window(window, image.shape)
    # Pairs whose patch the window's edge inside the image cuts are dropped before the cut
    # (``_clear_of``); the image's own edges cut as they always did.
    return find_candidates(image, card_px=card_px, faint_within=faint_within, finder=finder,
                           index_span=index_span, read_whole=read_whole, window=(x0, y0, x1, y1))


def _window(window: tuple[int, int, int, int], shape: tuple[int, ...]
            ) -> tuple[int, int, int, int]:
    """``window`` clipped to an image of ``shape``; ValueError where it is no box of whole
    pixels or leaves nothing of the image."""
    if len(window) != 4 or not all(isinstance(v, (int, np.integer))
                                   and not isinstance(v, bool) for v in window):
        raise ValueError(f"index window must be four whole pixels (x0, y0, x1, y1), "
                         f"not {window!r}")
    h, w = shape[:2]
    x0, y0 = max(0, int(window[0])), max(0, int(window[1]))
    x1, y1 = min(w, int(window[2])), min(h, int(window[3]))
    if x1 - x0 < 2 or y1 - y0 < 2:
        raise ValueError(f"index window {window!r} leaves under 2x2 pixels of a "
                         f"{w}x{h} image")
    return x0, y0, x1, y1
