"""hardware.palette: colour parsing, defaults and the sRGB <-> LED level conversion."""

from __future__ import annotations

import numpy as np
import pytest

from hardware.palette import OKABE_ITO, Palette, PaletteError, parse_colour, to_display, to_linear


def test_default_sides_are_distinct_okabe_ito_colours() -> None:
    palette = Palette()
    assert len(set(palette.sides)) == len(palette.sides) >= 3
    assert set(palette.sides) <= set(OKABE_ITO.values())


@pytest.mark.parametrize(
    ("text", "rgb"),
    [
        ("#0072B2", (0, 114, 178)),
        ("e69f00", (230, 159, 0)),
        ("Sky Blue", (86, 180, 233)),
        ([1, 2, 3], (1, 2, 3)),
    ],
)
def test_parse_colour(text: object, rgb: tuple[int, int, int]) -> None:
    assert parse_colour(text) == rgb


@pytest.mark.parametrize("bad", ["#12345", "purpleish", [0, 0, 256], [0, 0], True])
def test_parse_colour_quotes_the_bad_input(bad: object) -> None:
    with pytest.raises(PaletteError, match=repr(bad).replace("[", r"\[").replace("]", r"\]")):
        parse_colour(bad)


def test_linear_and_display_are_inverse() -> None:
    colours = np.array(list(OKABE_ITO.values()), dtype=np.float64)
    assert np.array_equal(to_display(to_linear(colours)), colours.astype(np.uint8))
    # Half the light looks far brighter than half: that is why back pegs use a quarter.
    assert to_display([127.5])[0] == 188


def test_from_config() -> None:
    palette = Palette.from_config({"sides": ["vermillion", "#000000"], "back_level": 0.3})
    assert palette.sides == ((213, 94, 0), (0, 0, 0)) and palette.back_level == 0.3
    with pytest.raises(PaletteError, match="unknown colours key 'side'"):
        Palette.from_config({"side": ["blue"]})
    with pytest.raises(PaletteError, match="back_level must be between 0 and 1, got 2.0"):
        Palette.from_config({"back_level": 2})


def test_a_side_without_a_colour_is_an_error() -> None:
    with pytest.raises(PaletteError, match="no colour for side 2: the palette has 2 side colours"):
        Palette(sides=((1, 2, 3), (4, 5, 6))).side(2)
