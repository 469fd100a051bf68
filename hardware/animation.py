"""Animations: finite (or endless) sequences of frames from the same renderer.

Each function is a generator of frames and nothing else: it does not sleep,
read the clock or touch a strip. The loop that owns the strip pushes one
frame every ``1 / FPS`` seconds and may drop an animation half-way (a new
event arrived) by simply not asking for the next frame. Randomness comes in
as an ``rng`` so a test sees the same sparkle every time.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace

import numpy as np
import numpy.typing as npt

from hardware.palette import to_linear
from hardware.render import Frame, Renderer
from hardware.state import BoardState

__all__ = ["FPS", "peg_walk", "celebration", "skunk", "error_flash", "attract"]

#: Frames per second the animations are timed for.
FPS = 30


def peg_walk(
    renderer: Renderer, state: BoardState, side: int, points: int, *, frames_per_hole: int = 2
) -> Iterator[Frame]:
    """Walks ``side``'s back peg hole by hole past its front peg, ``points`` holes on.

    The walking peg is drawn as the front peg (it is the new front); the old
    front becomes the back peg at once, as when a player lifts the back peg.
    The last frame is ``renderer(state.pegged(side, points))``.
    """
    old = state.sides[side]
    end = state.pegged(side, points)
    new_front = end.sides[side].front
    for hole in range(old.front + 1, new_front):
        step = state.with_pegs(side, hole, old.front)
        frame = renderer(step)
        for _ in range(frames_per_hole):
            yield frame
    yield renderer(end)


def _track_leds(renderer: Renderer, state: BoardState, side: int) -> npt.NDArray[np.intp]:
    layout = renderer.layout
    return layout.index[layout.track_for_side(side), : state.target + 1]


def celebration(
    renderer: Renderer, state: BoardState, *, rng: random.Random, frames: int = 3 * FPS
) -> Iterator[Frame]:
    """The winner's colour chases up their track while the rest of the board sparkles."""
    winner = state.winner if state.winner is not None else 0
    colour = to_linear(renderer.palette.side(winner))
    leds = _track_leds(renderer, state, winner)
    base = np.asarray(renderer(replace(state, turn=None)), dtype=np.float64)
    n = renderer.layout.n_leds
    for f in range(frames):
        levels = base * 0.5
        head = (f * 4) % len(leds)
        tail = np.arange(12)
        positions = leds[(head - tail) % len(leds)]
        levels[positions] = colour[None, :] * (1.0 - tail / 12.0)[:, None]
        for _ in range(6):
            levels[rng.randrange(n)] = colour * rng.uniform(0.3, 1.0)
        yield renderer.finish(levels)
    yield renderer(state)


def skunk(
    renderer: Renderer,
    state: BoardState,
    loser: int,
    *,
    flashes: int = 4,
    frames_per_phase: int = 6,
) -> Iterator[Frame]:
    """Flashes the holes the loser fell short by, from their front peg to the skunk line."""
    line = (
        state.double_skunk
        if (state.double_skunk is not None and state.sides[loser].front < state.double_skunk)
        else state.skunk
    )
    if line is None:
        yield renderer(state)
        return
    track = renderer.layout.track_for_side(loser)
    gap = renderer.layout.index[track, state.sides[loser].front + 1 : line + 1]
    colour = to_linear(renderer.palette.skunk)
    base = np.asarray(renderer(state), dtype=np.float64)
    for _ in range(flashes):
        lit = base.copy()
        lit[gap] = colour
        frame_on = renderer.finish(lit)
        for _ in range(frames_per_phase):
            yield frame_on
        frame_off = renderer(state)
        for _ in range(frames_per_phase):
            yield frame_off


def error_flash(
    renderer: Renderer, state: BoardState, *, flashes: int = 3, frames_per_phase: int = 4
) -> Iterator[Frame]:
    """Flashes the empty holes red: the card just laid was rejected."""
    on = renderer(replace(state, error=True))
    off = renderer(replace(state, error=False))
    for _ in range(flashes):
        for _ in range(frames_per_phase):
            yield on
        for _ in range(frames_per_phase):
            yield off


def attract(
    renderer: Renderer, *, sides: int | None = None, frames: int | None = None
) -> Iterator[Frame]:
    """Idle mode: a comet in each side's colour runs round each track; endless by default."""
    layout = renderer.layout
    palette = renderer.palette
    count = sides if sides is not None else (len(palette.sides) if layout.shared else layout.tracks)
    count = min(count, len(palette.sides))
    holes = layout.holes
    tail = np.arange(10)
    fade = (1.0 - tail / 10.0) ** 2
    f = 0
    while frames is None or f < frames:
        levels = np.zeros((layout.n_leds, 3), dtype=np.float64)
        for s in range(count):
            track = layout.track_for_side(s)
            head = (f * 2 + s * holes // max(count, 1)) % holes
            leds = layout.index[track, (head - tail) % holes]
            levels[leds] = np.maximum(
                levels[leds], to_linear(palette.side(s))[None, :] * fade[:, None]
            )
        yield renderer.finish(levels)
        f += 1
