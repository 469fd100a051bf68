"""Colours of the board: one per side, plus the board's own marks.

The side colours default to the Okabe-Ito set, chosen so that players with
the common colour-vision deficiencies still tell the sides apart; red and
green are never the only difference between two sides. Marks (skunk lines,
game hole) are drawn dim so that they never look like a peg.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "RGB",
    "OKABE_ITO",
    "Palette",
    "PaletteError",
    "parse_colour",
    "to_linear",
    "to_display",
]

RGB = tuple[int, int, int]

#: Okabe & Ito (2008), "Color Universal Design": distinguishable under
#: protanopia, deuteranopia and tritanopia.
OKABE_ITO: Mapping[str, RGB] = {
    "orange": (230, 159, 0),
    "sky_blue": (86, 180, 233),
    "bluish_green": (0, 158, 115),
    "yellow": (240, 228, 66),
    "blue": (0, 114, 178),
    "vermillion": (213, 94, 0),
    "reddish_purple": (204, 121, 167),
    "white": (255, 255, 255),
}

_HEX = re.compile(r"#?([0-9a-fA-F]{6})")


def to_linear(colour: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Converts sRGB colours (as designed, 0..255) to linear LED levels (0..255).

    An LED's level is a PWM duty, proportional to light; the palette's
    colours are sRGB, as a screen shows them. Without this, Okabe-Ito orange
    (230, 159, 0) lights up yellow and dim levels look far brighter than meant.
    """
    x = np.asarray(colour, dtype=np.float64) / 255.0
    lin = np.where(x <= 0.04045, x / 12.92, np.power((x + 0.055) / 1.055, 2.4))
    return lin * 255.0


def to_display(levels: npt.ArrayLike) -> npt.NDArray[np.uint8]:
    """Converts linear LED levels (0..255) back to sRGB, to draw the board on a screen."""
    x = np.clip(np.asarray(levels, dtype=np.float64) / 255.0, 0.0, 1.0)
    srgb = np.where(x <= 0.0031308, 12.92 * x, 1.055 * np.power(x, 1 / 2.4) - 0.055)
    return np.clip(np.rint(srgb * 255.0), 0, 255).astype(np.uint8)


class PaletteError(ValueError):
    """A colour the palette cannot use."""


def parse_colour(value: object) -> RGB:
    """Parses ``"#0072B2"``, ``"blue"`` (an Okabe-Ito name) or ``[0, 114, 178]``."""
    if isinstance(value, str):
        named = OKABE_ITO.get(value.strip().lower().replace(" ", "_").replace("-", "_"))
        if named is not None:
            return named
        match = _HEX.fullmatch(value.strip())
        if match:
            raw = int(match.group(1), 16)
            return (raw >> 16, (raw >> 8) & 0xFF, raw & 0xFF)
    elif isinstance(value, Sequence) and len(value) == 3:
        if all(isinstance(c, int) and not isinstance(c, bool) and 0 <= c <= 255 for c in value):
            return (int(value[0]), int(value[1]), int(value[2]))
    raise PaletteError(
        f"bad colour {value!r}: use '#RRGGBB', [r, g, b] with 0..255, "
        f"or one of {', '.join(OKABE_ITO)}"
    )


@dataclass(frozen=True)
class Palette:
    """Colours and levels the renderer uses.

    ``sides`` are full-brightness colours, one per seat in play order. A back
    peg is its side's colour times ``back_level`` and a board mark is its
    colour times ``mark_level``: dim but visible, so the front peg is always
    the brightest thing on the board.
    """

    sides: tuple[RGB, ...] = (
        OKABE_ITO["blue"],
        OKABE_ITO["orange"],
        OKABE_ITO["bluish_green"],
        OKABE_ITO["reddish_purple"],
    )
    skunk: RGB = OKABE_ITO["vermillion"]
    double_skunk: RGB = OKABE_ITO["reddish_purple"]
    game_hole: RGB = OKABE_ITO["yellow"]
    error: RGB = OKABE_ITO["vermillion"]
    back_level: float = 0.25
    mark_level: float = 0.05
    turn_level: float = 0.35

    def __post_init__(self) -> None:
        if not self.sides:
            raise PaletteError("palette needs at least one side colour")
        for name in ("back_level", "mark_level", "turn_level"):
            level = getattr(self, name)
            if not 0.0 <= level <= 1.0:
                raise PaletteError(f"{name} must be between 0 and 1, got {level!r}")

    def side(self, index: int) -> RGB:
        """Returns side ``index``'s colour; more sides than colours is an error."""
        if not 0 <= index < len(self.sides):
            raise PaletteError(
                f"no colour for side {index}: the palette has {len(self.sides)} side colours"
            )
        return self.sides[index]

    @classmethod
    def from_config(cls, table: Mapping[str, Any]) -> Palette:
        """Builds a palette from the config's ``[board.colours]`` table.

        Keys: ``sides`` (a list of colours), ``skunk``, ``double_skunk``,
        ``game_hole``, ``error`` (colours) and ``back_level``, ``mark_level``,
        ``turn_level`` (0..1). Missing keys keep the defaults.
        """
        base = cls()
        changes: dict[str, Any] = {}
        for key, value in table.items():
            if key == "sides":
                if not isinstance(value, list) or not value:
                    raise PaletteError(f"colours.sides must be a non-empty list, got {value!r}")
                changes["sides"] = tuple(parse_colour(v) for v in value)
            elif key in ("skunk", "double_skunk", "game_hole", "error"):
                changes[key] = parse_colour(value)
            elif key in ("back_level", "mark_level", "turn_level"):
                if not isinstance(value, int | float) or isinstance(value, bool):
                    raise PaletteError(f"colours.{key} must be a number, got {value!r}")
                changes[key] = float(value)
            else:
                raise PaletteError(f"unknown colours key {key!r}")
        return replace(base, **changes)
