"""hardware.config: the [board] and [buttons] tables of the config file."""

from __future__ import annotations

from pathlib import Path

import pytest

from hardware.config import BoardConfig, ConfigError, load_config
from hardware.layout import LayoutError
from hardware.strip import StripUnavailableError
from hardware.strips.simulator import SimulatorStrip

EXAMPLE = """
[board]
brightness = 0.4

[board.layout]
kind = "serpentine"
tracks = 2

[board.strip]
backend = "pi5_pio"
device = "{device}"

[board.colours]
sides = ["vermillion", "sky_blue"]

[board.power]
supply_amps = 4.0

[buttons]
pin_factory = "mock"
go = 5
confirm = 6
"""


def test_defaults_run_anywhere() -> None:
    config = BoardConfig.from_config({})
    assert (config.layout.kind, config.layout.n_leds, config.backend) == (
        "per_side",
        366,
        "simulator",
    )
    assert isinstance(config.open_strip(), SimulatorStrip)
    assert config.renderer().brightness == 0.5


def test_example_file(tmp_path: Path) -> None:
    path = tmp_path / "cribbage.toml"
    path.write_text(EXAMPLE.format(device=tmp_path / "leds0"))
    config = load_config(path)
    assert (config.layout.kind, config.layout.n_leds) == ("serpentine", 244)
    assert config.brightness == 0.4 and config.power.budget_ma == pytest.approx(3200)
    assert config.palette.sides == ((213, 94, 0), (86, 180, 233))
    assert dict(config.buttons.pins) == {"go": 5, "confirm": 6}
    assert (config.backend, dict(config.strip_options)) == (
        "pi5_pio",
        {"device": str(tmp_path / "leds0")},
    )
    # The configured backend is missing here: a clear error, never the simulator.
    with pytest.raises(StripUnavailableError, match="pi5_pio"):
        config.open_strip()


@pytest.mark.parametrize(
    ("document", "error", "message"),
    [
        ({"board": {"brightnes": 0.5}}, ConfigError, "unknown board key 'brightnes'"),
        (
            {"board": {"brightness": 3}},
            ConfigError,
            "board.brightness must be between 0 and 1, got 3",
        ),
        (
            {"board": {"layout": "per_side"}},
            ConfigError,
            "board.layout must be a table, got 'per_side'",
        ),
        (
            {"board": {"layout": {"kind": "per_side", "tracks": 2, "n_leds": 100}}},
            LayoutError,
            "only 100 LEDs",
        ),
        ({"board": {"strip": {"backend": 5}}}, ConfigError, "board.strip.backend must be a name"),
    ],
)
def test_bad_tables(document: dict[str, object], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        BoardConfig.from_config(document)


def test_bad_toml_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("[board\n")
    with pytest.raises(ConfigError, match="bad.toml' is not valid TOML"):
        load_config(path)


@pytest.mark.parametrize("nested", ["x = " + "[" * 2000 + "]" * 2000,
                                    "x = " + "{a = " * 2000 + "1" + "}" * 2000])
def test_toml_nested_past_the_stack_is_refused_in_words(tmp_path: Path, nested: str) -> None:
    path = tmp_path / "deep.toml"
    path.write_text("[board]\n" + nested + "\n")
    with pytest.raises(ConfigError, match="deep.toml' nests arrays or tables too deep to read"):
        load_config(path)
