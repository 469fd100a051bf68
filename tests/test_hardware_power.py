"""hardware.power: the current estimate and the cap."""

from __future__ import annotations

import numpy as np
import pytest

from hardware.power import PowerBudget, PowerBudgetError


def test_estimate_counts_idle_and_channels() -> None:
    budget = PowerBudget()
    assert budget.estimate_ma(np.zeros((10, 3))) == pytest.approx(10.0)
    assert budget.estimate_ma(np.full((1, 3), 255)) == pytest.approx(61.0)


def test_budget_is_supply_less_headroom() -> None:
    assert PowerBudget(supply_amps=10, headroom=0.2).budget_ma == pytest.approx(8000)


def test_scale_is_one_within_budget_and_shrinks_beyond() -> None:
    budget = PowerBudget()
    assert budget.scale_for(np.full((10, 3), 255.0)) == 1.0
    factor = budget.scale_for(np.full((366, 3), 255.0))
    assert 0 < factor < 1
    assert budget.estimate_ma(np.full((366, 3), 255.0) * factor) == pytest.approx(8000)


def test_a_supply_too_small_for_dark_leds_is_an_error() -> None:
    with pytest.raises(PowerBudgetError, match="1000 LEDs draw 1000 mA even when dark"):
        PowerBudget(supply_amps=1.0).scale_for(np.zeros((1000, 3)))


def test_from_config() -> None:
    assert PowerBudget.from_config({"supply_amps": 20, "headroom": 0.1}).budget_ma == pytest.approx(
        18000
    )
    with pytest.raises(PowerBudgetError, match="unknown power key 'amps'"):
        PowerBudget.from_config({"amps": 20})
    with pytest.raises(PowerBudgetError, match="headroom must be in"):
        PowerBudget(headroom=1.0)


def test_the_modules_words_are_the_guides_board() -> None:
    """The docstring's numbers are the 3-track board's (issue 59: it said 363 LEDs)."""
    import re

    import hardware.power
    from hardware.layout import per_side_tracks

    text = " ".join((hardware.power.__doc__ or "").split())
    found = re.search(r"(\d+) LEDs all white would want (?:over|about) ([\d.]+) A", text)
    assert found, text
    leds, amps = int(found[1]), float(found[2])
    assert leds == per_side_tracks(3).n_leds == 366
    white = PowerBudget().estimate_ma(np.full((leds, 3), 255.0)) / 1000
    assert white == pytest.approx(amps, abs=0.05)
    assert f"{PowerBudget().supply_amps:g} A" in text
