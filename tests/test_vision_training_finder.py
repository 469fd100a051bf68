"""The index finder's training data: Debian-theme frames on real tables, and the rank-to-suit
direction learnt where the truth knows it (``vision.training.finder``, ``finder_themes``)."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from engine.cards import Card
from vision.drawn.cardart import CardStyle, render_card
from vision.recognise.finder import FINDER_STRIDE, OUTPUTS
from vision.training.device_patches import CARD_ROWS, DEVICE_SIZES
from vision.training.drawn import drawn_boxes
from vision.training.facedecks import FaceDeck, theme_files
from vision.training.finder import (
    CROP,
    DIRECTION_TARGET,
    POINT_COLUMNS,
    REGION_CARD_PX,
    TARGETS,
    Region,
    _cut,
    _targets,
    sample_batch,
    with_direction,
)
from vision.training.finder_themes import (
    TableTexture,
    index_marks,
    theme_frame,
    theme_regions,
)


@pytest.fixture(scope="module")
def drawn_deck(tmp_path_factory: pytest.TempPathFactory) -> FaceDeck:
    """A face deck of the project's own drawn cards, laid out as a rendered theme is."""
    folder = tmp_path_factory.mktemp("deck")
    style = CardStyle()
    for k in range(52):
        card = Card.from_index(k)
        cv2.imwrite(str(folder / f"{card}.png"), render_card(card, height=220, style=style))
    return FaceDeck("drawn", folder, tuple(drawn_boxes(style)))


def felt() -> TableTexture:
    rng = np.random.default_rng(0)
    image = np.clip(rng.normal((40, 110, 30), 12, (120, 140, 3)), 0, 255).astype(np.uint8)
    return TableTexture(image, 200.0)


def test_photo_rows_get_an_unknown_direction() -> None:
    six = np.array([[10, 20, 1, 0, 1, 9]], np.float32)
    rows = with_direction(six)
    assert rows.shape == (1, POINT_COLUMNS)
    assert rows[0, 8] == 0 and np.all(rows[0, :6] == six[0])
    assert with_direction(np.zeros((0, 6))).shape == (0, POINT_COLUMNS)
    with pytest.raises(ValueError, match="columns"):
        with_direction(np.zeros((2, 5)))


def test_the_direction_target_is_set_only_where_the_direction_is_known() -> None:
    known = np.array([[64, 64, 1, 0, 1, 10, 0, 1, 1]], np.float32)
    t = _targets(known)
    assert t.shape == (TARGETS, CROP // FINDER_STRIDE, CROP // FINDER_STRIDE)
    cell = 64 // FINDER_STRIDE
    assert t[DIRECTION_TARGET + 2, cell, cell] == 1
    assert t[DIRECTION_TARGET, cell, cell] == 0 and t[DIRECTION_TARGET + 1, cell, cell] == 1
    photo = _targets(with_direction(known[:, :6]))
    assert photo[DIRECTION_TARGET + 2].sum() == 0 and photo[OUTPUTS].sum() > 0


def test_a_turned_crop_turns_the_direction_with_the_axis() -> None:
    image = np.full((300, 300, 3), 128, np.uint8)
    a = 0.4
    rows = np.array([[150, 150, math.cos(2 * a), math.sin(2 * a), 1, 10, math.cos(a),
                      math.sin(a), 1]], np.float32)
    for seed in range(20):
        _, out = _cut(Region(image, rows), np.random.default_rng(seed))
        if len(out) == 0:
            continue
        way = math.atan2(out[0, 7], out[0, 6])
        assert math.hypot(out[0, 6], out[0, 7]) == pytest.approx(1, abs=1e-4)
        # The direction's doubled angle is the axis the crop turned: both turn the same way.
        assert math.cos(2 * way) == pytest.approx(out[0, 2], abs=1e-3)
        assert math.sin(2 * way) == pytest.approx(out[0, 3], abs=1e-3)


def test_an_upright_index_runs_down_the_card_and_a_turned_one_up() -> None:
    # A card turned a quarter anticlockwise on screen: its bottom edge faces right.
    boxes = [((0.05, 0.05, 0.2, 0.3), 1), ((0.8, 0.7, 0.95, 0.95), -1)]
    m = cv2.getRotationMatrix2D((50, 70), 90, 1.0)
    (top_mid, top_way, span), (bottom_mid, bottom_way, _) = index_marks(boxes, m, (100, 140))
    assert np.allclose(top_way, [1, 0], atol=1e-9) and np.allclose(bottom_way, [-1, 0])
    # The top-left corner lies bottom-left once turned; the bottom-right one top-right.
    assert top_mid[0] < 50 and top_mid[1] > 70 and bottom_mid[0] > 50 and bottom_mid[1] < 70
    assert span == pytest.approx(4 / 9.2 * 0.25 * 140)


def test_a_theme_frame_is_a_device_frame_with_its_cards_indices(drawn_deck: FaceDeck) -> None:
    rng = np.random.default_rng(3)
    for _ in range(2):
        frame, points, card_px = theme_frame(drawn_deck, [felt()], rng)
        assert (frame.shape[1], frame.shape[0]) in DEVICE_SIZES and frame.dtype == np.uint8
        rows = frame.shape[0] / 720
        assert CARD_ROWS[0] * rows <= card_px <= CARD_ROWS[1] * rows
        assert points.shape[1] == POINT_COLUMNS and len(points) >= 2
        assert np.all(points[:, [4, 8]] == 1)
        assert np.allclose(np.hypot(points[:, 6], points[:, 7]), 1, atol=1e-4)
        # Each index middle lies on a card: paper or ink, not the green felt.
        for x, y in points[:, :2].astype(int):
            b, g, r = (int(v) for v in frame[y, x])
            assert not (g > r + 25 and g > b + 25), (x, y, (b, g, r))


def test_theme_regions_are_at_the_finders_scale_and_feed_a_batch(drawn_deck: FaceDeck) -> None:
    regions = theme_regions([drawn_deck], [felt()], frames=2, seed=1)
    assert len(regions) == 2 and all(len(r.points) for r in regions)
    for r in regions:
        assert r.image.ndim == 3 and min(r.image.shape[:2]) >= REGION_CARD_PX
        spans = r.points[:, 5]
        assert np.all((spans > 3) & (spans < 0.3 * REGION_CARD_PX))
    x, t = sample_batch(regions, 4, np.random.default_rng(0))
    assert x.shape == (4, 3, CROP, CROP) and t.shape == (4, TARGETS, CROP // 4, CROP // 4)
    with pytest.raises(ValueError, match="deck"):
        theme_regions([], [felt()], frames=1, seed=0)


@pytest.mark.skipif(not theme_files() or shutil.which("rsvg-convert") is None,
                    reason="no Debian card themes (gnome-cards-data, librsvg2-bin)")
def test_a_debian_theme_lays_its_own_cards(tmp_path: Path) -> None:
    from vision.training.facedecks import face_decks_named
    decks = face_decks_named("paris")
    frame, points, _ = theme_frame(decks[0], [felt()], np.random.default_rng(0))
    assert len(points) >= 2 and frame.ndim == 3


def test_the_direction_loss_counts_only_where_it_is_known() -> None:
    torch = pytest.importorskip("torch")
    from vision.training.finder_net import DIRECTION_OUTPUTS, build, loss_of
    net = build()
    x = torch.zeros(1, 3, CROP, CROP)
    out = net(x)
    assert out.shape[1] == OUTPUTS + DIRECTION_OUTPUTS
    t = torch.from_numpy(_targets(np.array([[64, 64, 1, 0, 1, 10, 0, 1, 0]], np.float32))[None])
    _, parts = loss_of(out, t)
    assert parts[-1] == 0.0
    t[:, DIRECTION_TARGET + 2] = 1.0
    assert loss_of(out, t)[1][-1] > 0.0
