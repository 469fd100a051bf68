"""hardware.render: pegs, overlaps, lines, turn, error, brightness and the current cap."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hardware.layout import LayoutError, per_side_tracks, shared_track
from hardware.palette import Palette, to_linear
from hardware.power import PowerBudget
from hardware.render import ERROR_LEVEL, Renderer, finish, occupants, render
from hardware.state import BoardState, SidePegs

PALETTE = Palette()
LAYOUT = per_side_tracks(3)


def level(colour: tuple[int, int, int], fraction: float = 1.0) -> list[int]:
    return np.rint(to_linear(colour) * fraction).astype(int).tolist()


def lit(frame: np.ndarray) -> set[int]:
    return set(np.nonzero(frame.any(axis=1))[0].tolist())


def two_sides(**kw: object) -> BoardState:
    sides = (SidePegs("Ann", 30, 24), SidePegs("Bob", 12, 4))
    return BoardState(sides, **kw)  # type: ignore[arg-type]


def test_front_peg_bright_back_peg_dim_on_its_own_track() -> None:
    frame = render(two_sides(skunk=None, double_skunk=None), LAYOUT, PALETTE)
    ann, bob = PALETTE.sides[0], PALETTE.sides[1]
    assert frame[30].tolist() == level(ann)
    assert frame[24].tolist() == level(ann, PALETTE.back_level)
    assert frame[122 + 12].tolist() == level(bob)
    assert frame[122 + 4].tolist() == level(bob, PALETTE.back_level)
    assert lit(frame) == {24, 30, 121, 122 + 4, 122 + 12, 122 + 121}


def test_lines_and_game_hole_marked_only_on_tracks_in_use() -> None:
    frame = render(two_sides(), LAYOUT, PALETTE)
    for track in (0, 1):
        base = track * 122
        assert frame[base + 91].tolist() == level(PALETTE.skunk, PALETTE.mark_level)
        assert frame[base + 61].tolist() == level(PALETTE.double_skunk, PALETTE.mark_level)
        assert frame[base + 121].tolist() == level(PALETTE.game_hole, PALETTE.mark_level)
    assert not frame[244:].any()


def test_marks_are_dimmer_than_any_peg() -> None:
    frame = render(two_sides(), LAYOUT, PALETTE).astype(int)
    assert frame[[91, 61, 121]].sum(axis=1).max() < frame[[24, 126]].sum(axis=1).min()


def test_whose_turn_lights_that_sides_game_hole_in_its_colour() -> None:
    frame = render(two_sides(turn=1), LAYOUT, PALETTE)
    assert frame[122 + 121].tolist() == level(PALETTE.sides[1], PALETTE.turn_level)
    assert frame[121].tolist() == level(PALETTE.game_hole, PALETTE.mark_level)


def test_start_hole_shows_only_the_front_peg() -> None:
    frame = render(BoardState.new(["Ann"]), per_side_tracks(1), PALETTE)
    assert frame[0].tolist() == level(PALETTE.sides[0])


def test_two_sides_on_one_hole_alternate_with_tick() -> None:
    layout = shared_track()
    state = BoardState((SidePegs("Ann", 40, 30), SidePegs("Bob", 40, 35)))
    assert occupants(state, layout, PALETTE)[40] == [(0, 1.0), (1, 1.0)]
    first = render(state, layout, PALETTE, tick=0)
    second = render(state, layout, PALETTE, tick=1)
    assert first[40].tolist() == level(PALETTE.sides[0])
    assert second[40].tolist() == level(PALETTE.sides[1])
    assert render(state, layout, PALETTE, tick=2)[40].tolist() == first[40].tolist()
    # Everything else holds still.
    assert np.array_equal(np.delete(first, 40, axis=0), np.delete(second, 40, axis=0))


def test_front_and_back_of_different_sides_share_a_hole() -> None:
    state = BoardState((SidePegs("Ann", 40, 30), SidePegs("Bob", 50, 40)))
    assert occupants(state, shared_track(), PALETTE)[40] == [(0, 1.0), (1, PALETTE.back_level)]


def test_error_washes_the_empty_holes_but_keeps_the_pegs() -> None:
    frame = render(two_sides(error=True), LAYOUT, PALETTE)
    assert frame[50].tolist() == level(PALETTE.error, ERROR_LEVEL)
    assert frame[30].tolist() == level(PALETTE.sides[0])
    assert not frame[244:].any()


def test_brightness_scales_every_led() -> None:
    full = render(two_sides(), LAYOUT, PALETTE).astype(float)
    half = render(two_sides(), LAYOUT, PALETTE, brightness=0.5).astype(float)
    assert np.abs(half - full * 0.5).max() <= 1.0
    with pytest.raises(ValueError, match="brightness must be between 0 and 1, got 1.5"):
        render(two_sides(), LAYOUT, PALETTE, brightness=1.5)


def test_363_white_leds_stay_within_a_10_amp_supply() -> None:
    budget = PowerBudget(supply_amps=10.0, headroom=0.2)
    white = np.full((363, 3), 255.0)
    assert budget.estimate_ma(white) > 20_000
    capped = finish(white, power=budget)
    assert budget.estimate_ma(capped) <= budget.budget_ma
    assert budget.estimate_ma(capped) > 0.99 * budget.budget_ma  # not dimmer than needed
    assert len(set(capped.ravel().tolist())) == 1  # the whole frame scaled alike


def test_the_cap_leaves_a_normal_board_alone() -> None:
    state = two_sides(turn=0)
    assert np.array_equal(
        render(state, LAYOUT, PALETTE, power=PowerBudget()), render(state, LAYOUT, PALETTE)
    )


def test_frame_is_read_only_uint8_and_pure() -> None:
    state = two_sides(turn=0)
    frame = Renderer(LAYOUT)(state)
    assert frame.dtype == np.uint8 and frame.shape == (366, 3)
    with pytest.raises(ValueError):
        frame[0, 0] = 1
    assert np.array_equal(frame, Renderer(LAYOUT)(state))


def test_61_game_marks_its_own_game_hole_and_lines() -> None:
    state = BoardState((SidePegs("Ann", 10, 2),), target=61, skunk=31, double_skunk=None)
    frame = render(state, per_side_tracks(1), PALETTE)
    assert lit(frame) == {2, 10, 31, 61}


def test_a_game_longer_than_the_board_is_an_error() -> None:
    state = BoardState((SidePegs("Ann"),), target=121)
    with pytest.raises(
        LayoutError, match="a 121-point game needs 122 holes per track; layout 'per_side' has 62"
    ):
        render(state, per_side_tracks(1, holes=62), PALETTE)


def test_more_sides_than_tracks_is_an_error() -> None:
    state = BoardState.new(["A", "B", "C"])
    with pytest.raises(LayoutError, match="side 2 has no track"):
        render(state, per_side_tracks(2), PALETTE)


@given(
    st.lists(st.tuples(st.integers(0, 121), st.integers(0, 121)), min_size=1, max_size=4),
    st.integers(0, 5),
)
def test_every_front_peg_is_lit_on_a_shared_track(pegs: list[tuple[int, int]], tick: int) -> None:
    sides = tuple(SidePegs(f"S{i}", max(a, b), min(a, b)) for i, (a, b) in enumerate(pegs))
    frame = render(
        BoardState(sides, turn=0), shared_track(), PALETTE, power=PowerBudget(), tick=tick
    )
    for side in sides:
        assert frame[side.front].any()
