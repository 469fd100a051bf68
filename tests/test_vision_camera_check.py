"""The camera check (``vision.live.camera_check``, ``calibrate --check``): cards measured in pixels,
a verdict in words, and what to change."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from firmware.commands.cli import main
from vision.live.camera_check import (
    GOOD_CARD_PX,
    MIN_CARD_PX,
    card_heights,
    card_size,
    check_camera,
)
from vision.live.zones import areas_in_view, default_markers


def card(x: float, y: float, h: float) -> list[tuple[float, float]]:
    w = h * 63 / 88
    return [(x, y), (x + w, y), (x + w, y + h), (x, y + h)]


def test_card_height_is_the_longer_pair_of_sides_whichever_way_the_card_lies() -> None:
    upright = card(0, 0, 90)
    sideways = [(0.0, 0.0), (90.0, 0.0), (90.0, 64.4), (0.0, 64.4)]
    assert card_heights([upright, sideways]) == pytest.approx([90.0, 90.0])


def test_card_size_follows_the_outline_and_averages_a_card_seen_askew() -> None:
    assert card_size(card(0, 0, 88)) == pytest.approx((63.0, 88.0))
    # The far side foreshortened: 60 px against the near side's 66.
    assert card_size([(0, 0), (66, 0), (63, 88), (3, 88)]) == pytest.approx((63.0, 88.05), abs=0.01)


def test_small_cards_are_too_small_and_the_advice_names_a_resolution_and_a_height() -> None:
    result = check_camera((1280, 720), [card(0, 0, 50), card(200, 0, 52), card(400, 0, 54)],
                          mount_cm=100)
    assert result.verdict == "too small"
    assert result.card_px == 52.0
    assert result.index_px == 4.6
    assert result.advice.startswith("cards 52 px tall, corner indices 4.6 px (3 cards at "
                                    "1280x720): too small;")
    assert "raise the resolution to 2304x1296" in result.advice
    assert f"lower the camera to {int(100 * 52 / GOOD_CARD_PX)} cm" in result.advice


def test_cards_between_the_thresholds_are_marginal_and_big_ones_good() -> None:
    middle = 0.5 * (MIN_CARD_PX + GOOD_CARD_PX)
    marginal = check_camera((1920, 1080), [card(0, 0, middle)])
    assert marginal.verdict == "marginal"
    assert "some cards will be missed" in marginal.advice
    assert "% of its height" in marginal.advice
    good = check_camera((2304, 1296), [card(0, 0, GOOD_CARD_PX + 10)])
    assert good.verdict == "good"
    assert good.advice.endswith(": good")


def test_no_cards_asks_for_cards_to_be_laid() -> None:
    result = check_camera((1280, 720), [])
    assert result.verdict == "no cards"
    assert "lay three or four cards face up" in result.advice
    assert result.to_json()["card_px"] is None


def test_calibrate_check_on_an_empty_table_says_so_in_json(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]
                                                           ) -> None:
    image = tmp_path / "table.png"
    cv2.imwrite(str(image), np.full((720, 1280, 3), 90, np.uint8))
    # Nothing to judge the camera by: exit 2, as calibrate does without its marker cards.
    assert main(["calibrate", "--check", "--image", str(image), "--json"]) == 2
    out = capsys.readouterr().out
    assert '"verdict": "no cards"' in out
    assert '"frame": [1280, 720]' in out


def test_calibrate_check_refuses_a_mounting_height_below_zero(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]
                                                              ) -> None:
    image = tmp_path / "table.png"
    cv2.imwrite(str(image), np.full((720, 1280, 3), 90, np.uint8))
    assert main(["calibrate", "--check", "--image", str(image), "--mount-cm", "-3"]) == 2
    assert "mounting height -3.0 cm: expected a positive number" in capsys.readouterr().err


# -- vision.live.zones.areas_in_view: is each player's area in the camera's view -------------


def _square(x: float, y: float, side: float = 60) -> list[tuple[float, float]]:
    return [(x, y), (x + side, y), (x + side, y + side * 1.4), (x, y + side * 1.4)]


MARKERS = default_markers(["Ann", "Bob"])
SIZE = (1280, 720)


def test_a_zone_wholly_or_partly_outside_the_frame_is_named() -> None:
    zones = {"Ann": [(0, 800), (1280, 800), (1280, 960), (0, 960)],  # below the frame
             "Bob": [(0, 600), (1280, 600), (1280, 840), (0, 840)],  # half in it
             "starter": [(500, 300), (700, 300), (700, 420), (500, 420)]}
    views = {v.area: v for v in areas_in_view(SIZE, MARKERS, {}, zones=zones)}
    assert views["Ann"].in_view is False
    assert views["Ann"].why == "its zone ([zones]) lies outside the frame"
    assert views["Bob"].in_view is False and views["Bob"].why.startswith("only 50% of its zone")
    assert views["starter"].in_view is True
    assert views["crib"].in_view is None  # no zone, no markers: nothing says


def test_laid_markers_must_each_be_seen_whole() -> None:
    found = {MARKERS["Ann"]: _square(600, 600), MARKERS["Bob"]: _square(600, 40),
             MARKERS["starter"]: _square(1250, 300)}  # its right side beyond the frame
    views = {v.area: v for v in areas_in_view(SIZE, MARKERS, found)}
    assert [views[a].in_view for a in ("Ann", "Bob")] == [True, True]
    assert views["starter"].why == "its marker card KH is cut by the frame's edge"
    assert views["crib"].in_view is False
    assert views["crib"].why == "its marker card KS is not in view"
    # A card in view that was read as no card may be the crib's king: not judged.
    unsure = {v.area: v for v in areas_in_view(SIZE, MARKERS, found, unread=1)}
    assert unsure["crib"].in_view is None and "was not read" in unsure["crib"].why


def test_one_marker_card_is_not_a_laid_out_table() -> None:
    # A single ace of clubs among the cards played says nothing of the other areas.
    views = areas_in_view(SIZE, MARKERS, {MARKERS["Ann"]: _square(600, 600)})
    assert [v.in_view for v in views] == [None] * 4
