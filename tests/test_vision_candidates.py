"""Candidate corner indices: segmentation, pairing and upright patches."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

import vision.recognise.candidates as candidates_module
from vision.recognise.candidates import (
    PATCH_SIZE,
    Glyphs,
    channel_extremes,
    extract_patches,
    find_candidates,
    find_glyphs,
    pair_glyphs,
)
from vision.training.synth import place, render_card

TABLE = (60, 110, 150)


def scene(
    angle: float = 0.0, *, size: tuple[int, int] = (720, 1280), scale: float = 0.5
) -> np.ndarray:
    img = np.full((*size, 3), TABLE, np.uint8)
    place(img, render_card(5, 2), (size[1] / 2, size[0] / 2), angle, scale)
    return img


def test_blank_table_has_no_candidates() -> None:
    c = find_candidates(np.full((720, 1280, 3), TABLE, np.uint8))
    assert len(c) == 0
    assert c.patches.shape == (0, PATCH_SIZE, PATCH_SIZE, 3)


@pytest.mark.parametrize("angle", [0, 90, 180, 233])
def test_index_pair_points_down_the_card(angle: float) -> None:
    c = find_candidates(scene(angle))
    # The card's "down" in the frame, for a card turned counter-clockwise by `angle`.
    t = np.deg2rad(angle)
    down = np.array([np.sin(t), np.cos(t)])
    # One corner index reads with the card, the other against it (turned 180 degrees).
    dots = c.down @ down
    assert (np.abs(dots) > 0.95).any()


def test_sizes_are_relative_to_the_frame() -> None:
    small = find_candidates(scene(size=(360, 640), scale=0.25))
    big = find_candidates(scene(size=(720, 1280), scale=0.5))
    assert len(small) > 0
    assert abs(float(np.median(small.span)) * 2 - float(np.median(big.span))) < 3


def test_patch_puts_rank_on_top() -> None:
    img = np.full((200, 200, 3), 255, np.uint8)
    cv2.circle(img, (50, 26), 6, (0, 0, 0), 2)  # "rank" glyph
    cv2.fillPoly(img, [np.array([[46, 40], [54, 40], [50, 47]], np.int32)], (0, 0, 0))  # "suit"
    for k, turned in enumerate((img, np.rot90(img).copy())):
        g = find_glyphs(turned.min(axis=2), bright=False)
        r, s = pair_glyphs(g)
        assert len(r) >= 1
        big = int(np.argmax(g.areas))
        i = int(np.nonzero(r == big)[0][0])
        patches, down, span = extract_patches(
            turned, g.centroids[r[i : i + 1]], g.centroids[s[i : i + 1]]
        )
        p = patches[0].min(axis=2)
        top, bottom = p[: PATCH_SIZE // 2], p[PATCH_SIZE // 2 :]
        assert (top < 128).sum() > (bottom < 128).sum(), f"turn {k}"
        assert span[0] == pytest.approx(16.5, abs=1.5)


def test_rejects_grey_and_float_images() -> None:
    with pytest.raises(ValueError, match="^find_candidates expects a BGR"):
        find_candidates(np.zeros((10, 10), np.uint8))
    with pytest.raises(ValueError, match="^find_candidates expects uint8"):
        find_candidates(np.zeros((10, 10, 3), np.float32))


@pytest.mark.parametrize("shape", [(720, 1280), (5, 7), (1, 1)])
def test_channel_extremes_are_each_pixels_darkest_and_brightest_channel(
        shape: tuple[int, int]) -> None:
    image = np.random.default_rng(1).integers(0, 256, (*shape, 3), np.uint8)
    for view in (image, image[:, ::-1]):  # a frame as cut from a bigger one: not contiguous
        lo, hi = channel_extremes(view)
        np.testing.assert_array_equal(lo, view.min(axis=2))
        np.testing.assert_array_equal(hi, view.max(axis=2))


FRAMED_PICTURE_BOTTOM = 450


def framed_index(*, glued: bool, picture: bool = False) -> tuple[np.ndarray, tuple[float, float]]:
    """Paper with a printed frame two pixels wide, a rank ring beside it and a solid diamond
    suit below the rank, touching the frame when ``glued`` (as a blurred index touches the
    next card's border); with ``picture``, a frame taller than any glyph and solid stripes of a
    court's picture inside it, from its top line to its bottom one. Returns the picture and the
    suit's centre."""
    img = np.full((720, 1280, 3), 255, np.uint8)
    bottom = FRAMED_PICTURE_BOTTOM if picture else 420
    for inset in (0, 1):
        cv2.rectangle(img, (600 + inset, 300 + inset), (690 - inset, bottom - inset), (0, 0, 0), 1)
    if picture:  # stripes narrower than the paper window, so that they are ink all through
        for left in range(610, 680, 18):
            cv2.rectangle(img, (left, 302), (left + 9, bottom - 2), (0, 0, 0), -1)
    cv2.circle(img, (588, 314), 6, (0, 0, 0), 2)  # the rank
    right = 600 if glued else 596  # the suit's right tip on the frame's left line, or clear
    suit = np.array([[right - 7, 326], [right, 333], [right - 7, 340], [right - 14, 333]])
    cv2.fillPoly(img, [suit.astype(np.int32)], (0, 0, 0))
    return img, (right - 7.0, 333.0)


def glyph_near(glyphs: Glyphs, point: tuple[float, float]) -> np.ndarray:
    return np.nonzero(np.hypot(*(glyphs.centroids - np.asarray(point, np.float32)).T) < 2.0)[0]


def test_a_suit_glued_to_a_printed_line_is_cut_free_and_pairs_with_its_rank() -> None:
    img, suit = framed_index(glued=True)
    glyphs = find_glyphs(img.min(axis=2), bright=False)
    found = glyph_near(glyphs, suit)
    assert len(found) == 1
    w, h = glyphs.boxes[found[0], 2:]
    assert 12 <= w <= 16 and 12 <= h <= 16
    ranks, suits = pair_glyphs(glyphs)
    rank = glyph_near(glyphs, (588.0, 314.0))
    assert any(r == rank[0] and s == found[0] for r, s in zip(ranks, suits, strict=True))


def test_without_cutting_the_glued_suit_is_lost(monkeypatch: pytest.MonkeyPatch) -> None:
    # The counterpart of the test above: the frame swallows the suit unless it is cut free.
    monkeypatch.setattr(candidates_module, "LINE_WORK_FILL", 0.0)
    img, suit = framed_index(glued=True)
    assert len(glyph_near(find_glyphs(img.min(axis=2), bright=False), suit)) == 0


def test_a_free_suit_and_bare_line_work_are_found_once() -> None:
    img, suit = framed_index(glued=False)
    first, last = 100, 250  # the lattice's square, in both directions
    for k in range(first, last + 1, 12):  # a lattice of thin lines: all line, nothing to cut free
        cv2.line(img, (k, first), (k, last), (0, 0, 0), 1)
        cv2.line(img, (k + 1, first), (k + 1, last), (0, 0, 0), 1)
        cv2.line(img, (first, k), (last, k), (0, 0, 0), 1)
    # What makes the test mean something: the lattice is too big to be a glyph itself, yet
    # sparse and small enough to be line work that the opening is tried on.
    ink = img[first:last + 1, first:last + 1].min(axis=2) < 128
    side, short = max(ink.shape), min(img.shape[:2])
    assert candidates_module.MAX_GLYPH * short < side
    assert side <= candidates_module.LINE_WORK_SIZE * candidates_module.MAX_GLYPH * short
    assert ink.mean() < candidates_module.LINE_WORK_FILL
    glyphs = find_glyphs(img.min(axis=2), bright=False)
    assert len(glyph_near(glyphs, suit)) == 1
    assert not ((glyphs.centroids[:, 0] < 270) & (glyphs.centroids[:, 1] < 270)).any()


def turned_close_up_index() -> Glyphs:
    """A rank and its suit as a close-up photo's index turned about 45 degrees shows them
    (boxes and centroids measured on a Roboflow dev photo's KS): the suit sits close to the
    rank, and each box is far wider along the pair's axis than the glyph it holds."""
    return Glyphs(
        centroids=np.array([[560.9, 222.2], [596.9, 177.3]], np.float32),
        boxes=np.array([[523, 192, 74, 58], [579, 161, 42, 35]], np.int32),
        areas=np.array([1264, 959], np.int32),
    )


def test_a_turned_index_pairs_although_its_boxes_overstate_it() -> None:
    ranks, suits = pair_glyphs(turned_close_up_index())
    assert (0, 1) in set(zip(ranks.tolist(), suits.tolist(), strict=True))


def test_without_easing_the_turned_index_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # The counterpart of the test above: the boxes alone put the two glyphs too close.
    monkeypatch.setattr(candidates_module, "TURNED_BOX_EASING", 0.0)
    ranks, suits = pair_glyphs(turned_close_up_index())
    assert (0, 1) not in set(zip(ranks.tolist(), suits.tolist(), strict=True))


def framed_picture_blob() -> tuple[int, float]:
    """The size across of the frame, its picture and the glued suit, and the share of their
    box that they fill."""
    img, _ = framed_index(glued=True, picture=True)
    ink = img[300:FRAMED_PICTURE_BOTTOM + 1, 586:691].min(axis=2) < 128
    ink[:, :2] = False  # the suit reaches 586; the rank's ring, beside it, is no part of the blob
    cols, rows = np.nonzero(ink.any(axis=0))[0], np.nonzero(ink.any(axis=1))[0]
    width, height = cols[-1] - cols[0] + 1, rows[-1] - rows[0] + 1
    return max(width, height), float(ink.sum()) / (width * height)


def glued_suit_beside_a_picture(monkeypatch: pytest.MonkeyPatch) -> tuple[Glyphs, np.ndarray]:
    """``framed_index`` with a picture: its glyphs, with glyphs parted only by an opening (the
    stricter contrast, which would also part it, is out of reach), and those by its suit."""
    monkeypatch.setattr(candidates_module, "STRICT_CONTRAST", 255)
    img, suit = framed_index(glued=True, picture=True)
    glyphs = find_glyphs(img.min(axis=2), bright=False)
    return glyphs, glyph_near(glyphs, suit)


def test_a_suit_glued_to_a_frame_round_a_solid_picture_is_cut_free(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A court's frame with its picture fills far more of its box than bare line work, and is
    # too big to be a glyph: it is opened too.
    size, fill = framed_picture_blob()
    assert size > candidates_module.MAX_GLYPH * 720
    assert candidates_module.LINE_WORK_FILL < fill < candidates_module.OVERSIZED_LINE_WORK_FILL
    glyphs, found = glued_suit_beside_a_picture(monkeypatch)
    assert len(found) == 1
    ranks, suits = pair_glyphs(glyphs)
    rank = glyph_near(glyphs, (588.0, 314.0))
    assert any(r == rank[0] and s == found[0] for r, s in zip(ranks, suits, strict=True))


def test_opening_only_sparse_line_work_loses_the_suit_beside_a_picture(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(candidates_module, "OVERSIZED_LINE_WORK_FILL",
                        candidates_module.LINE_WORK_FILL)  # the rule before 2026-11-23
    assert len(glued_suit_beside_a_picture(monkeypatch)[1]) == 0


def bridged_index(*, bridge_level: int) -> tuple[np.ndarray, tuple[float, float]]:
    """Paper with a rank (an L-shaped stroke), its small suit below, and a big pip beside the
    rank joined to it by a thin bridge of grey ``bridge_level``, as blur joins a 10 to the first
    big pip of its card. Returns the picture and the suit's centre."""
    img = np.full((720, 1280, 3), 255, np.uint8)
    cv2.rectangle(img, (584, 306), (587, 321), (0, 0, 0), -1)  # the rank's stem
    cv2.rectangle(img, (584, 318), (593, 321), (0, 0, 0), -1)  # ... and its foot
    suit = np.array([[588, 326], [595, 333], [588, 340], [581, 333]], np.int32)
    cv2.fillPoly(img, [suit], (0, 0, 0))
    pip = np.array([[615, 300], [629, 314], [615, 328], [601, 314]], np.int32)
    cv2.fillPoly(img, [pip], (0, 0, 0))
    cv2.rectangle(img, (588, 310), (606, 311), (bridge_level,) * 3, -1)
    return img, (588.0, 333.0)


def faint_bridge_level() -> int:
    """A grey that is ink at ``MIN_CONTRAST`` from white paper, but not at ``STRICT_CONTRAST``."""
    return 255 - (candidates_module.MIN_CONTRAST + candidates_module.STRICT_CONTRAST) // 2


def the_rank(glyphs: Glyphs) -> np.ndarray:
    """Which glyphs are ``bridged_index``'s rank alone (its stem and foot, 10 x 16 pixels)."""
    return np.asarray((glyphs.boxes[:, 0] == 584) & (glyphs.boxes[:, 2] == 10)
                      & (glyphs.boxes[:, 3] == 16))


def test_a_rank_bridged_to_a_pip_by_faint_blur_is_parted_and_pairs_with_its_suit() -> None:
    # The bridge is ink at the loose contrast, not at the strict one: one blob, two glyphs.
    img, suit = bridged_index(bridge_level=faint_bridge_level())
    glyphs = find_glyphs(img.min(axis=2), bright=False)
    merged = (glyphs.boxes[:, 0] <= 584) & (glyphs.boxes[:, 0] + glyphs.boxes[:, 2] >= 629)
    assert merged.any()  # the loose blob is there, as before
    rank = np.nonzero(the_rank(glyphs))[0]
    assert len(rank) == 1
    found = glyph_near(glyphs, suit)
    ranks, suits = pair_glyphs(glyphs)
    assert any(r == rank[0] and s in found for r, s in zip(ranks, suits, strict=True))


@pytest.mark.parametrize("bridge_level", [0, 255])
def test_a_rank_joined_in_full_ink_or_free_is_not_found_twice(bridge_level: int) -> None:
    # Solid ink is one glyph (nothing to part); a free rank is its own blob, not also a part.
    img, _ = bridged_index(bridge_level=bridge_level)
    glyphs = find_glyphs(img.min(axis=2), bright=False)
    assert the_rank(glyphs).sum() == (1 if bridge_level == 255 else 0)


def test_without_the_strict_contrast_the_bridged_rank_is_lost(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The counterpart of the test above: the pip swallows the rank unless it is parted.
    level = faint_bridge_level()
    monkeypatch.setattr(candidates_module, "STRICT_CONTRAST", 255)
    img, _ = bridged_index(bridge_level=level)
    assert not the_rank(find_glyphs(img.min(axis=2), bright=False)).any()


def grained_bridged_index() -> np.ndarray:
    """``bridged_index`` (its bridge faint) on paper scored with grain: short strokes of ink at
    the loose contrast only, and a few at full ink, none on the index."""
    img, _ = bridged_index(bridge_level=faint_bridge_level())
    rng = np.random.default_rng(62)
    for k in range(600):
        x, y = int(rng.integers(10, 1270)), int(rng.integers(10, 710))
        if abs(x - 600) < 60 and abs(y - 320) < 60:
            continue
        level = 0 if k % 10 == 0 else faint_bridge_level()
        end = (x + int(rng.integers(-14, 15)), y + int(rng.integers(-14, 15)))
        cv2.line(img, (x, y), end, (level,) * 3, int(rng.integers(2, 4)))
    return img


def test_blobs_skipped_for_want_of_strict_ink_leave_the_same_glyphs(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Counting each blob's strict ink first (BRIDGED_COUNT_PIXELS) skips blobs that cannot part
    # into two glyphs; what it finds is what labelling every blob alone finds, in its order.
    grey = grained_bridged_index().min(axis=2)
    monkeypatch.setattr(candidates_module, "BRIDGED_COUNT_PIXELS", 0)  # never counted
    every = find_glyphs(grey, bright=False)
    skipped: list[int] = []
    count = candidates_module._bridgeable

    def spy(diff: np.ndarray, labels: np.ndarray, blobs: int, lo: float) -> np.ndarray:
        kept = count(diff, labels, blobs, lo)
        areas = np.bincount(labels.ravel(), minlength=blobs + 1)[1:]
        skipped.append(int((~kept & (areas >= 20)).sum()))  # grain strokes, not scraps
        return kept

    monkeypatch.setattr(candidates_module, "_bridgeable", spy)
    monkeypatch.setattr(candidates_module, "BRIDGED_COUNT_PIXELS", 10**9)  # always counted
    counted = find_glyphs(grey, bright=False)
    assert len(skipped) == 1 and skipped[0] > 100
    for field in dataclasses.fields(Glyphs):
        assert np.array_equal(getattr(every, field.name), getattr(counted, field.name))
    assert the_rank(counted).sum() == 1


# -- the scale a frame is read at ---------------------------------------------------------


def test_a_known_card_height_sets_the_scale_whatever_the_frames_size() -> None:
    from vision.recognise.candidates import CARD_READ_PX, reading

    # A card CARD_READ_PX tall is read as it comes, in a whole frame or a crop of it ...
    whole, crop = reading((1296, 2304), card_px=CARD_READ_PX), reading((400, 500),
                                                                       card_px=CARD_READ_PX)
    assert whole == crop and whole.scale == 1.0
    # ... a card half that tall is read at twice its size ...
    assert reading((720, 1280), card_px=CARD_READ_PX / 2).scale == 2.0
    # ... and the glyph limits are the card's, in a 200 px crop as in a 2560x1440 frame ...
    assert reading((200, 200), card_px=90.0) == reading((1440, 2560), card_px=90.0)
    # ... but for the contrast floor, lower where enlarging smears the strokes, and the
    # search for faint ink, which only a frame not enlarged twice needs.
    shrunk, enlarged = reading((720, 1280), card_px=300.0), reading((720, 1280), card_px=90.0)
    assert shrunk.limits.min_contrast == candidates_module.MIN_CONTRAST
    assert enlarged.limits.min_contrast == candidates_module.SMALL_FRAME_MIN_CONTRAST
    assert shrunk.limits.faint and not enlarged.limits.faint
    assert (dataclasses.replace(shrunk.limits, min_contrast=0, faint=False)
            == dataclasses.replace(enlarged.limits, min_contrast=0))


def test_without_a_card_height_the_frames_own_size_sets_the_scale() -> None:
    from vision.recognise.candidates import reading

    assert reading((1440, 2560)).scale == 0.75  # shrunk to 1080 high
    assert reading((1080, 1920)).scale == 1.0
    assert reading((720, 1280)).scale == 2.0  # small, so its indices are likely small
    assert reading((400, 500)).limits != reading((720, 1280)).limits


@pytest.mark.parametrize("card_px", [0, -90.0, float("nan"), float("inf"), True])
def test_a_card_height_that_is_no_size_is_refused_by_name(card_px: float) -> None:
    from vision.recognise.candidates import ScaleError

    with pytest.raises(ScaleError, match=rf"card_px must be a positive number of pixels, "
                                         rf"not {card_px!r}"):
        find_candidates(scene(), card_px=card_px)


def test_a_card_read_in_a_tight_and_a_loose_crop_gives_the_same_candidates() -> None:
    """A changed region's crop has any size: the card in it must be read alike. (Read at
    the crops' own sizes, the tight one was enlarged twice and the loose one was not.)"""
    frame = scene(30, size=(1296, 2304), scale=0.6)  # a card 210 px tall, turned
    cx, cy = 1152, 648
    tight = frame[cy - 150:cy + 150, cx - 140:cx + 140]  # 280 x 300
    loose = frame[cy - 500:cy + 500, cx - 560:cx + 560]  # 1120 x 1000: no enlargement
    from vision.recognise.candidates import CARD_READ_PX, reading

    assert reading(tight.shape).limits != reading(loose.shape).limits
    a, b = (find_candidates(c, card_px=CARD_READ_PX) for c in (tight, loose))
    assert len(a) == len(b) >= 2  # the index at both corners
    # The same pairs, in frame pixels: the crops' origins differ by (420, 350).
    ra = a.rank_xy + (cx - 140, cy - 150)
    rb = b.rank_xy + (cx - 560, cy - 500)
    order_a, order_b = np.lexsort(ra.T), np.lexsort(rb.T)
    np.testing.assert_allclose(ra[order_a], rb[order_b], atol=0.01)
    np.testing.assert_allclose(a.span[order_a], b.span[order_b], atol=0.01)


@pytest.mark.parametrize("every", [3, 40])
def test_components_are_labelled_alike_in_16_or_32_bits(every: int) -> None:
    """Under 65,535 set pixels the labels are 16 bits (cheaper, and they cannot overflow);
    over, 32: the same components and stats either way."""
    binary = np.zeros((840, 970), np.uint8)
    binary[::every, ::every] = 255
    binary[100:110, 200:230] = 255
    n, labels, stats, cents = candidates_module._components(binary)
    want = cv2.connectedComponentsWithStatsWithAlgorithm(binary, 8, cv2.CV_32S, cv2.CCL_GRANA)
    assert labels.dtype == (np.int32 if every == 3 else np.uint16)
    assert n == want[0]
    assert np.array_equal(labels, want[1]) and np.array_equal(stats, want[2])
    assert np.allclose(cents, want[3])
