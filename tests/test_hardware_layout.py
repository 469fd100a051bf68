"""hardware.layout: hole -> LED maps for the common builds, and their checks."""

from __future__ import annotations

import numpy as np
import pytest

from hardware.layout import (
    HOLES_121,
    Layout,
    LayoutError,
    OverlappingLedsError,
    TooFewLedsError,
    per_side_tracks,
    serpentine,
    shared_track,
)


def test_per_side_tracks_chain_one_strip_per_track() -> None:
    layout = per_side_tracks(3)
    assert (layout.tracks, layout.holes, layout.n_leds) == (3, HOLES_121, 366)
    assert layout.led(0, 0) == 0 and layout.led(0, 121) == 121
    assert layout.led(1, 0) == 122 and layout.led(2, 121) == 365
    assert [layout.track_for_side(i) for i in range(3)] == [0, 1, 2]


def test_per_side_reversed_track_runs_from_the_game_hole_back() -> None:
    layout = per_side_tracks(2, reversed=[False, True])
    assert layout.led(1, 121) == 122 and layout.led(1, 0) == 243


def test_shared_track_puts_every_side_on_track_zero() -> None:
    layout = shared_track()
    assert (layout.tracks, layout.n_leds, layout.shared) == (1, 122, True)
    assert [layout.track_for_side(i) for i in range(4)] == [0, 0, 0, 0]


def test_serpentine_snakes_through_rows_of_thirty() -> None:
    layout = serpentine(2)
    assert layout.n_leds == 244
    # Start holes first, then the rows, then the game holes.
    assert [layout.led(0, 0), layout.led(1, 0)] == [0, 1]
    assert [layout.led(0, 1), layout.led(0, 30)] == [2, 31]
    # Track 1's first row runs back along the board: the strip folded.
    assert [layout.led(1, 30), layout.led(1, 1)] == [32, 61]
    # The second street runs right to left; the strip enters it at the left.
    assert [layout.led(0, 60), layout.led(0, 31)] == [62, 91]
    assert [layout.led(0, 121), layout.led(1, 121)] == [242, 243]
    assert sorted(layout.index.ravel().tolist()) == list(range(244))


def test_more_leds_than_holes_leaves_spares_dark() -> None:
    assert per_side_tracks(2, n_leds=300).n_leds == 300


def test_too_few_leds_is_rejected_with_the_numbers() -> None:
    with pytest.raises(TooFewLedsError, match=r"needs LED 243 but the strip has only 200 LEDs"):
        per_side_tracks(2, n_leds=200)


def test_overlapping_tracks_are_rejected_naming_both_holes() -> None:
    with pytest.raises(
        OverlappingLedsError,
        match=r"LED 100 is used by \(track 0, hole 100\) and \(track 1, hole 0\)",
    ):
        per_side_tracks(2, track_starts=[0, 100])


def test_layout_errors_are_value_errors() -> None:
    assert issubclass(OverlappingLedsError, ValueError)
    assert issubclass(TooFewLedsError, LayoutError)


def test_side_without_a_track_is_named() -> None:
    with pytest.raises(LayoutError, match=r"side 3 has no track: layout 'per_side' has 3 tracks"):
        per_side_tracks(3).track_for_side(3)


def test_index_is_read_only() -> None:
    layout = per_side_tracks(1)
    with pytest.raises(ValueError):
        layout.index[0, 0] = 5


@pytest.mark.parametrize(
    "table",
    [
        {"kind": "per_side", "tracks": 2},
        {"kind": "per_side", "tracks": 2, "reversed": [False, True], "n_leds": 250},
        {"kind": "shared"},
        {"kind": "serpentine", "tracks": 3},
    ],
)
def test_from_config_round_trips_through_repr(table: dict[str, object]) -> None:
    layout = Layout.from_config(table)
    again = eval(repr(layout), {"Layout": Layout})
    assert np.array_equal(again.index, layout.index) and again.n_leds == layout.n_leds


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"kind": "zigzag"}, r"unknown layout kind 'zigzag'"),
        ({"kind": "shared", "tracks": 2}, r"layout 'shared' does not take 'tracks'"),
        ({"kind": "per_side", "tracks": "3"}, r"tracks must be an integer, got '3'"),
        ({"kind": "per_side", "tracks": 0}, r"tracks must be at least 1, got 0"),
        ({"kind": "per_side", "reversed": "yes"}, r"reversed must be a list of booleans"),
        # Sizes past any board are refused before anything that size is built.
        ({"kind": "per_side", "tracks": 1_000_000}, r"tracks must be at most 8, got 1000000"),
        ({"kind": "per_side", "holes": 10**9}, r"holes must be at most 1,000, got 1000000000"),
        ({"kind": "per_side", "n_leds": 10**12}, r"n_leds must be at most 10,000"),
        ({"kind": "per_side", "track_starts": [0, 10**9, 244]},
         r"track_starts must be at most 10,000, got 1000000000"),
        ({"kind": "serpentine", "row_length": 10**9}, r"row_length must be at most 1,000"),
        ({"kind": "serpentine", "first_led": 10**15}, r"first_led must be at most 10,000"),
        ({"kind": "shared", "first_led": 10**15}, r"first_led must be at most 10,000"),
    ],
)
def test_from_config_rejects_bad_tables(table: dict[str, object], message: str) -> None:
    with pytest.raises(LayoutError, match=message):
        Layout.from_config(table)
