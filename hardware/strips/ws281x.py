"""WS2812 strip on a Raspberry Pi 1-4 through the ``rpi_ws281x`` library.

rpi_ws281x 5.0.0 does not know the Pi 5, and off a Pi its objects crash the
interpreter (``begin()`` fails, then the strip's exit handler segfaults). So
this backend reads the board model first and imports the library only on a
Pi 1-4; anywhere else it raises ``StripUnavailableError`` before touching it.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

from hardware.strip import SizedStrip, StripError, StripUnavailableError, check_frame

__all__ = ["Ws281xStrip", "MODEL_PATH", "pi_model"]

MODEL_PATH = Path("/proc/device-tree/model")

# Pins on the second PWM channel; rpi_ws281x wants channel=1 for them.
_CHANNEL_1_PINS = frozenset({13, 19, 41, 45, 53})
_PINS = frozenset({10, 12, 13, 18, 19, 21, 31, 38, 40, 41, 45, 52, 53})
_ORDERS = frozenset({"RGB", "RBG", "GRB", "GBR", "BRG", "BGR"})


def pi_model(path: Path = MODEL_PATH) -> str | None:
    """Returns the board's model string (``"Raspberry Pi 4 Model B Rev 1.4"``), or None."""
    try:
        return path.read_bytes().rstrip(b"\0\n").decode("ascii", "replace")
    except OSError:
        return None


class Ws281xStrip(SizedStrip):
    """A WS2812/WS2812B strip driven by rpi_ws281x on a Pi 1, 2, 3, 4 or Zero.

    Wiring: strip DIN through a 74AHCT125 (or 74HCT245) level shifter powered
    from 5 V, from GPIO18 (header pin 12, PWM; needs root and turns off the
    analog audio) or GPIO10 (pin 19, SPI; needs only the ``spi`` group and
    ``dtparam=spi=on``). Join the strip's ground to the Pi's. Strip power
    comes from its own 5 V supply, never the Pi's 5 V pin.
    """

    def __init__(
        self,
        n: int,
        *,
        pin: int = 18,
        freq_hz: int = 800_000,
        dma: int = 10,
        invert: bool = False,
        order: str = "GRB",
        library: ModuleType | Any | None = None,
        model_path: Path | str = MODEL_PATH,
    ) -> None:
        if pin not in _PINS:
            raise StripError(f"rpi_ws281x cannot drive GPIO{pin!r}: use one of {sorted(_PINS)}")
        if order not in _ORDERS:
            raise StripError(f"unknown colour order {order!r}: use one of {sorted(_ORDERS)}")
        model = pi_model(Path(model_path))
        if model is None or "Raspberry Pi" not in model:
            raise StripUnavailableError("ws281x", f"not a Raspberry Pi (model: {model!r})")
        if "Raspberry Pi 5" in model or "Compute Module 5" in model:
            raise StripUnavailableError(
                "ws281x", f"rpi_ws281x cannot drive a {model}; use backend 'pi5_pio' or 'spi'"
            )
        if library is None:
            try:
                library = importlib.import_module("rpi_ws281x")
            except ImportError as exc:
                raise StripUnavailableError(
                    "ws281x", f"{exc}; install it with pip install 'cribbage-board[pi]'"
                ) from exc
        self._lib = library
        self._n = n
        strip_type = getattr(library.ws, f"WS2811_STRIP_{order}")
        channel = 1 if pin in _CHANNEL_1_PINS else 0
        self._strip = library.PixelStrip(n, pin, freq_hz, dma, invert, 255, channel, strip_type)
        try:
            self._strip.begin()
        except RuntimeError as exc:
            raise StripUnavailableError(
                "ws281x", f"{exc} (PWM on GPIO{pin} needs root; GPIO10 needs dtparam=spi=on)"
            ) from exc


    def show(self, frame: npt.NDArray[np.uint8]) -> None:
        pixels = check_frame(frame, self._n).astype(np.uint32)
        packed = (pixels[:, 0] << 16) | (pixels[:, 1] << 8) | pixels[:, 2]
        set_pixel = self._strip.setPixelColor
        for i, colour in enumerate(packed.tolist()):
            set_pixel(i, colour)
        self._strip.show()

    def close(self) -> None:
        self.show(np.zeros((self._n, 3), dtype=np.uint8))
        cleanup = getattr(self._strip, "_cleanup", None)
        if cleanup is not None:
            cleanup()
