"""Keeps a frame within what the LED power supply can deliver.

A WS2812 draws about 20 mA per colour channel at full level and about 1 mA
dark, so the guide's 3-track board of 366 LEDs all white would want about 22.3 A:
far more than its closed 5 V 10 A adapter (docs/building.md). Rather than let
the supply sag (and the strip flicker or brown out), every frame is estimated
and, if needed, scaled down as a whole, which keeps its colours and the
front/back peg contrast: with the default 20 % headroom a 10 A adapter is held
to 8 A.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["PowerBudget", "PowerBudgetError"]


class PowerBudgetError(ValueError):
    """A supply that cannot power the strip even when it is dark, or a bad setting."""


@dataclass(frozen=True)
class PowerBudget:
    """A 5 V supply's budget for the LEDs.

    ``budget_ma`` is ``supply_amps`` less ``headroom`` (a fraction kept spare
    for wiring losses and LEDs that draw more than their datasheet).
    ``ma_per_channel`` is one channel's draw at level 255 and
    ``idle_ma_per_led`` an LED's draw when dark; measure your strip and set
    them in the config if it differs.
    """

    supply_volts: float = 5.0
    supply_amps: float = 10.0
    headroom: float = 0.2
    ma_per_channel: float = 20.0
    idle_ma_per_led: float = 1.0

    def __post_init__(self) -> None:
        if self.supply_amps <= 0:
            raise PowerBudgetError(f"supply_amps must be positive, got {self.supply_amps!r}")
        if not 0.0 <= self.headroom < 1.0:
            raise PowerBudgetError(f"headroom must be in [0, 1), got {self.headroom!r}")
        if self.ma_per_channel <= 0 or self.idle_ma_per_led < 0:
            raise PowerBudgetError(
                f"ma_per_channel must be positive and idle_ma_per_led not negative, got "
                f"{self.ma_per_channel!r} and {self.idle_ma_per_led!r}"
            )

    @property
    def budget_ma(self) -> float:
        """The most current the strip may draw, in mA."""
        return self.supply_amps * 1000.0 * (1.0 - self.headroom)

    def estimate_ma(self, frame: npt.ArrayLike) -> float:
        """Estimates the strip's current for ``frame`` (N x 3, levels 0..255), in mA."""
        levels = np.asarray(frame, dtype=np.float64)
        n = levels.shape[0]
        return float(n * self.idle_ma_per_led + levels.sum() * (self.ma_per_channel / 255.0))

    def scale_for(self, levels: npt.NDArray[np.floating[Any]]) -> float:
        """Returns the factor (at most 1) that brings ``levels`` within the budget."""
        n = int(levels.shape[0])
        idle = n * self.idle_ma_per_led
        if idle >= self.budget_ma:
            raise PowerBudgetError(
                f"{n} LEDs draw {idle:.0f} mA even when dark, over the {self.budget_ma:.0f} mA "
                f"budget of a {self.supply_amps:g} A supply; use a bigger supply"
            )
        colour_ma = float(levels.sum()) * (self.ma_per_channel / 255.0)
        if colour_ma <= self.budget_ma - idle:
            return 1.0
        return (self.budget_ma - idle) / colour_ma

    @classmethod
    def from_config(cls, table: Mapping[str, Any]) -> PowerBudget:
        """Builds a budget from the config's ``[board.power]`` table (same key names)."""
        known = {"supply_volts", "supply_amps", "headroom", "ma_per_channel", "idle_ma_per_led"}
        values: dict[str, float] = {}
        for key, value in table.items():
            if key not in known:
                raise PowerBudgetError(f"unknown power key {key!r}: use {', '.join(sorted(known))}")
            if not isinstance(value, int | float) or isinstance(value, bool):
                raise PowerBudgetError(f"power.{key} must be a number, got {value!r}")
            values[key] = float(value)
        return cls(**values)
