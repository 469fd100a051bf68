"""hardware.animation: frame sequences built from the renderer."""

from __future__ import annotations

import itertools
import random

import numpy as np

from hardware.animation import attract, celebration, error_flash, peg_walk, skunk
from hardware.layout import per_side_tracks
from hardware.power import PowerBudget
from hardware.render import Renderer
from hardware.state import BoardState, SidePegs

RENDERER = Renderer(per_side_tracks(2))
STATE = BoardState((SidePegs("Ann", 10, 4), SidePegs("Bob", 7, 3)))


def brightest(frame: np.ndarray, leds: range) -> int:
    sums = frame[list(leds)].astype(int).sum(axis=1)
    return leds[int(np.argmax(sums))]


def test_peg_walk_steps_hole_by_hole_and_ends_on_the_pegged_state() -> None:
    frames = list(peg_walk(RENDERER, STATE, 0, 4, frames_per_hole=1))
    assert len(frames) == 4
    assert [brightest(f, range(11, 15)) for f in frames[:3]] == [11, 12, 13]
    assert np.array_equal(frames[-1], RENDERER(STATE.pegged(0, 4)))
    # The old front stays lit as the new back peg the whole way.
    assert all(f[10].any() for f in frames) and not frames[0][4].any()


def test_peg_walk_of_nothing_is_just_the_state() -> None:
    frames = list(peg_walk(RENDERER, STATE, 1, 0))
    assert len(frames) == 1 and np.array_equal(frames[0], RENDERER(STATE))


def test_peg_walk_stops_in_the_game_hole() -> None:
    near = STATE.with_pegs(0, 119, 110)
    frames = list(peg_walk(RENDERER, near, 0, 8, frames_per_hole=1))
    assert len(frames) == 2 and frames[-1][121].any()


def test_celebration_is_repeatable_with_the_same_rng() -> None:
    won = BoardState((SidePegs("Ann", 121, 115), SidePegs("Bob", 80, 70)), winner=0)
    one = list(celebration(RENDERER, won, rng=random.Random(5), frames=10))
    two = list(celebration(RENDERER, won, rng=random.Random(5), frames=10))
    assert len(one) == 11 and all(np.array_equal(a, b) for a, b in zip(one, two, strict=True))
    assert np.array_equal(one[-1], RENDERER(won))


def test_skunk_flashes_the_holes_short_of_the_line() -> None:
    won = BoardState((SidePegs("Ann", 121, 115), SidePegs("Bob", 80, 70)), winner=0)
    frames = list(skunk(RENDERER, won, 1, flashes=2, frames_per_phase=1))
    assert len(frames) == 4
    on, off = frames[0], frames[1]
    gap = [122 + h for h in range(81, 92)]
    assert on[gap].any(axis=1).all()
    assert not off[[122 + h for h in range(81, 91)]].any()


def test_double_skunk_flashes_to_the_61_line() -> None:
    won = BoardState((SidePegs("Ann", 121, 115), SidePegs("Bob", 50, 40)), winner=0)
    on = next(skunk(RENDERER, won, 1))
    assert on[[122 + h for h in range(51, 62)]].any(axis=1).all()
    assert not on[122 + 70].any()


def test_error_flash_alternates() -> None:
    frames = list(error_flash(RENDERER, STATE, flashes=2, frames_per_phase=1))
    assert len(frames) == 4
    assert frames[0][50].any() and not frames[1][50].any()


def test_attract_is_endless_and_stays_in_budget() -> None:
    budget = PowerBudget(supply_amps=0.5, headroom=0.0)
    renderer = Renderer(per_side_tracks(3), power=budget)
    for frame in itertools.islice(attract(renderer), 50):
        assert budget.estimate_ma(frame) <= budget.budget_ma
    frames = list(attract(renderer, frames=3))
    assert len(frames) == 3 and not np.array_equal(frames[0], frames[1])
