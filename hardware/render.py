"""Turns a board state into a frame of LED colours: a pure function.

``render`` reads nothing but its arguments and returns a read-only
``(n_leds, 3)`` uint8 array of RGB levels, so the same call drives a real
strip, the simulator picture, the animations and the tests.

What the players see:

- each side's front peg in its full colour, its back peg dim in the same
  colour;
- the skunk line, the double-skunk line and the game hole as faint marks on
  every track in use (a mark sits on the first hole past the line: reach it
  and you are safe);
- the game hole of the side whose turn (or count) it is glowing in that
  side's colour;
- two sides on one hole (a shared track) alternate colours as ``tick``
  advances, so neither hides the other;
- ``error``: the empty holes wash red, for a rejected card.

Then the global brightness and the supply's current budget scale the frame.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from hardware.layout import Layout, LayoutError
from hardware.palette import RGB, Palette, to_linear
from hardware.power import PowerBudget
from hardware.state import BoardState

__all__ = ["Frame", "render", "finish", "Renderer", "occupants", "ERROR_LEVEL"]

#: A frame: ``(n_leds, 3)`` uint8 RGB levels, read-only.
Frame = npt.NDArray[np.uint8]

#: How strongly an error washes the empty holes (fraction of the error colour).
ERROR_LEVEL = 0.25


def occupants(
    state: BoardState, layout: Layout, palette: Palette
) -> dict[int, list[tuple[int, float]]]:
    """Returns, per lit LED, the ``(side, level)`` pegs on it in side order.

    A side's back peg on its own front peg's hole (both in the start hole)
    is hidden: the front peg says all there is.
    """
    if state.target > layout.game_hole:
        raise LayoutError(
            f"a {state.target}-point game needs {state.target + 1} holes per track; "
            f"layout {layout.kind!r} has {layout.holes}"
        )
    pegs: dict[int, list[tuple[int, float]]] = defaultdict(list)
    for i, side in enumerate(state.sides):
        palette.side(i)  # fail early on a side without a colour
        track = layout.track_for_side(i)
        pegs[layout.led(track, side.front)].append((i, 1.0))
        if side.back != side.front:
            pegs[layout.led(track, side.back)].append((i, palette.back_level))
    return dict(pegs)


def _scaled(colour: RGB, level: float) -> npt.NDArray[np.float64]:
    return to_linear(colour) * level


def render(
    state: BoardState,
    layout: Layout,
    palette: Palette | None = None,
    *,
    brightness: float = 1.0,
    power: PowerBudget | None = None,
    tick: int = 0,
) -> Frame:
    """Renders ``state`` on ``layout``: one RGB level per LED.

    ``brightness`` (0..1) scales everything; ``power`` then caps the
    estimated current (None: no cap). ``tick`` picks which of several sides
    on one hole shows now; advance it a few times a second.
    """
    if not 0.0 <= brightness <= 1.0:
        raise ValueError(f"brightness must be between 0 and 1, got {brightness!r}")
    palette = palette or Palette()
    pegs = occupants(state, layout, palette)
    levels = np.zeros((layout.n_leds, 3), dtype=np.float64)
    tracks = sorted({layout.track_for_side(i) for i in range(len(state.sides))})

    for line, colour in ((state.double_skunk, palette.double_skunk), (state.skunk, palette.skunk)):
        if line is not None:
            levels[layout.index[tracks, line]] = _scaled(colour, palette.mark_level)
    levels[layout.index[tracks, state.target]] = _scaled(palette.game_hole, palette.mark_level)
    if state.turn is not None and state.winner is None:
        track = layout.track_for_side(state.turn)
        levels[layout.led(track, state.target)] = _scaled(
            palette.side(state.turn), palette.turn_level
        )
    if state.error:
        holes = layout.index[tracks, : state.target + 1].ravel()
        levels[holes] = _scaled(palette.error, ERROR_LEVEL)

    for led, here in pegs.items():
        side, level = here[tick % len(here)]
        levels[led] = _scaled(palette.side(side), level)

    return finish(levels, brightness=brightness, power=power)


def finish(
    levels: npt.ArrayLike, *, brightness: float = 1.0, power: PowerBudget | None = None
) -> Frame:
    """Applies the global brightness and the current cap to raw levels (0..255)."""
    scaled = np.asarray(levels, dtype=np.float64) * brightness
    factor = power.scale_for(scaled) if power is not None else 1.0
    # Rounding down when capping keeps the capped frame within the budget.
    out = np.floor(scaled * factor) if factor < 1.0 else np.rint(scaled)
    frame = np.clip(out, 0, 255).astype(np.uint8)
    frame.setflags(write=False)
    return frame


@dataclass(frozen=True)
class Renderer:
    """``render`` with the board's fixed settings bound, for the loop and animations."""

    layout: Layout
    palette: Palette = field(default_factory=Palette)
    brightness: float = 1.0
    power: PowerBudget | None = field(default_factory=PowerBudget)

    def __call__(self, state: BoardState, *, tick: int = 0) -> Frame:
        return render(
            state,
            self.layout,
            self.palette,
            brightness=self.brightness,
            power=self.power,
            tick=tick,
        )

    def blank(self) -> Frame:
        """Returns an all-dark frame."""
        frame = np.zeros((self.layout.n_leds, 3), dtype=np.uint8)
        frame.setflags(write=False)
        return frame

    def finish(self, levels: npt.ArrayLike) -> Frame:
        """Applies brightness and the current cap to raw levels (for animation effects)."""
        return finish(levels, brightness=self.brightness, power=self.power)
