"""The board's part of the config file: ``[board]`` and ``[buttons]``.

Example (every key optional; these are the defaults, except ``backend``
whose default is the simulator so that a laptop runs without a config)::

    [board]
    brightness = 0.5

    [board.layout]          # see hardware.layout
    kind = "per_side"       # per_side | shared | serpentine
    tracks = 3

    [board.strip]           # backend and its options, see hardware.strips
    backend = "simulator"   # ws281x (Pi 1-4) | pi5_pio | spi | simulator

    [board.colours]         # see hardware.palette
    sides = ["blue", "orange", "bluish_green", "reddish_purple"]

    [board.power]           # see hardware.power
    supply_amps = 10.0
    headroom = 0.2

    [buttons]               # see hardware.buttons
    pin_factory = "lgpio"
    go = 17
    muggins = 27
    undo = 22
    confirm = 23
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hardware.buttons import ButtonConfig
from hardware.layout import Layout, per_side_tracks
from hardware.palette import Palette
from hardware.power import PowerBudget
from hardware.render import Renderer
from hardware.strip import LedStrip, open_strip

__all__ = ["BoardConfig", "ConfigError", "load_config", "read_toml"]


class ConfigError(ValueError):
    """A config file that cannot be read, or a ``[board]`` key nobody knows."""


@dataclass(frozen=True)
class BoardConfig:
    """Everything needed to drive the board: layout, colours, power, strip backend."""

    layout: Layout = field(default_factory=per_side_tracks)
    palette: Palette = field(default_factory=Palette)
    power: PowerBudget = field(default_factory=PowerBudget)
    brightness: float = 0.5
    backend: str = "simulator"
    strip_options: Mapping[str, Any] = field(default_factory=dict)
    buttons: ButtonConfig = field(default_factory=ButtonConfig)

    def __post_init__(self) -> None:
        if not 0.0 <= self.brightness <= 1.0:
            raise ConfigError(f"board.brightness must be between 0 and 1, got {self.brightness!r}")

    def renderer(self) -> Renderer:
        """Returns the renderer for this board."""
        return Renderer(self.layout, self.palette, self.brightness, self.power)

    def open_strip(self) -> LedStrip:
        """Opens the configured backend; raises if it cannot run here (no fallback)."""
        return open_strip(self.backend, self.layout, **self.strip_options)

    @classmethod
    def from_config(cls, document: Mapping[str, Any]) -> BoardConfig:
        """Builds the config from a whole parsed config file (its ``board`` and ``buttons``)."""
        board = dict(document.get("board", {}))
        kwargs: dict[str, Any] = {}
        for key, value in board.items():
            if key == "layout":
                kwargs["layout"] = Layout.from_config(_table("board.layout", value))
            elif key == "colours":
                kwargs["palette"] = Palette.from_config(_table("board.colours", value))
            elif key == "power":
                kwargs["power"] = PowerBudget.from_config(_table("board.power", value))
            elif key == "strip":
                options = dict(_table("board.strip", value))
                backend = options.pop("backend", "simulator")
                if not isinstance(backend, str):
                    raise ConfigError(f"board.strip.backend must be a name, got {backend!r}")
                kwargs["backend"] = backend
                kwargs["strip_options"] = options
            elif key == "brightness":
                if not isinstance(value, int | float) or isinstance(value, bool):
                    raise ConfigError(f"board.brightness must be a number, got {value!r}")
                kwargs["brightness"] = float(value)
            else:
                raise ConfigError(
                    f"unknown board key {key!r}: use brightness, layout, strip, colours, power"
                )
        if "buttons" in document:
            kwargs["buttons"] = ButtonConfig.from_config(_table("buttons", document["buttons"]))
        return cls(**kwargs)


def _table(where: str, value: object) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ConfigError(f"{where} must be a table, got {value!r}")
    return value


def read_toml(path: Path | str) -> dict[str, Any]:
    """Reads a TOML file; bad TOML is a ``ConfigError`` naming the file."""
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config {str(path)!r} is not valid TOML: {exc}") from exc
    except RecursionError:
        # tomllib parses nested arrays and inline tables by recursion: a few hundred
        # levels exhaust the stack. No config nests more than two.
        raise ConfigError(f"config {str(path)!r} nests arrays or tables too deep to "
                          f"read") from None


def load_config(path: Path | str) -> BoardConfig:
    """Reads a TOML config file; a missing ``[board]`` table means the defaults."""
    return BoardConfig.from_config(read_toml(path))
