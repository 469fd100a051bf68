"""WS2812 strip on a Raspberry Pi 1-4 through the ``rpi_ws281x`` library.

rpi_ws281x 5.0.0 does not know the Pi 5, and off a Pi its objects crash the
interpreter (``begin()`` fails, then the strip's exit handler segfaults). So
this backend reads the board model first and imports the library only on a
Pi 1-4; anywhere else it raises ``StripUnavailableError`` before touching it.

What the library accepts on a 40-pin Pi (its ``lib/ws2811.c``,
``check_hwver_and_gpionum`` and ``set_driver_mode``): GPIO12 or GPIO18 on
PWM channel 0, GPIO13 or GPIO19 on PWM channel 1 alone, GPIO21 (PCM) and
GPIO10 (SPI). PWM needs root (``/dev/mem``) and ``dtparam=audio=off``; SPI
needs only the ``gpio`` and ``spi`` groups and sends ``freq_hz`` x 3 on SPI0.
DMA is one of its 16 channels; its README warns that channel 5 corrupts the
SD card on a Pi 3, and 10 (the default) is safe. It renders at ``brightness``
/ 256 of each level (``(v * (b + 1)) >> 8``), so 255 leaves the renderer's
levels untouched, and the binding's default gamma is the identity (``PixelStrip``'s
``gamma=None``), so none is passed. The facts and their sources are in
``docs/interfaces/rpi_ws281x.md``; ``tests/standins/rpi_ws281x.py`` behaves so.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

from hardware.strip import SizedStrip, StripError, StripUnavailableError, check_frame

__all__ = ["Ws281xStrip", "MODEL_PATH", "pi_model", "PINS", "FREQUENCIES", "DMA_CHANNELS"]

MODEL_PATH = Path("/proc/device-tree/model")

#: GPIO -> (channel, driver) that rpi_ws281x 5.0.0 accepts on a 40-pin Pi (2, 3, 4, Zero).
PINS: dict[int, tuple[int, str]] = {
    10: (0, "SPI"), 12: (0, "PWM"), 18: (0, "PWM"), 21: (0, "PCM"), 13: (1, "PWM"), 19: (1, "PWM"),
}
#: WS2812 (800 kHz) or WS2811 (400 kHz) data rates.
FREQUENCIES = frozenset({800_000, 400_000})
#: DMA channels: the library's 16, less 5 (its README: SD card corruption on a Pi 3).
DMA_CHANNELS = frozenset(range(16)) - {5}
_ORDERS = frozenset({"RGB", "RBG", "GRB", "GBR", "BRG", "BGR"})
#: SK6812 RGBW strips; white is sent as 0.
_RGBW_ORDERS = frozenset({"RGBW", "RBGW", "GRBW", "GBRW", "BRGW", "BGRW"})


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
        if pin not in PINS:
            raise StripError(f"rpi_ws281x cannot drive GPIO{pin!r} on a 40-pin Pi: use 10 (SPI), "
                             "12 or 18 (PWM0), 13 or 19 (PWM1) or 21 (PCM)")
        if order not in _ORDERS | _RGBW_ORDERS:
            raise StripError(f"unknown colour order {order!r}: use one of "
                             f"{sorted(_ORDERS | _RGBW_ORDERS)}")
        if freq_hz not in FREQUENCIES:
            raise StripError(f"freq_hz {freq_hz!r}: a WS2812 takes 800000 (a WS2811 400000)")
        if dma not in DMA_CHANNELS:
            raise StripError(f"dma {dma!r}: use one of the DMA channels 0-15 but 5 "
                             "(10, the default, is safe)")
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
        self._closed = False
        prefix = "SK6812" if order in _RGBW_ORDERS else "WS2811"
        strip_type = getattr(library.ws, f"{prefix}_STRIP_{order}")
        channel = PINS[pin][0]
        self._strip = library.PixelStrip(n, pin, freq_hz, dma, invert, 255, channel, strip_type)
        try:
            self._strip.begin()
        except RuntimeError as exc:
            raise StripUnavailableError(
                "ws281x", f"{exc} (PWM on GPIO{pin} needs root; GPIO10 needs dtparam=spi=on)"
            ) from exc


    def show(self, frame: npt.NDArray[np.uint8]) -> None:
        if self._closed:
            raise ValueError("rpi_ws281x strip is closed")
        pixels = check_frame(frame, self._n).astype(np.uint32)
        packed = (pixels[:, 0] << 16) | (pixels[:, 1] << 8) | pixels[:, 2]
        set_pixel = self._strip.setPixelColor
        for i, colour in enumerate(packed.tolist()):
            set_pixel(i, colour)
        self._strip.show()

    def _release(self) -> None:
        """Frees the library's device, once (``SizedStrip.close``): after ``_cleanup`` the
        binding's ``show`` would pass NULL to ``ws2811_render`` and crash the interpreter."""
        cleanup = getattr(self._strip, "_cleanup", None)
        if cleanup is not None:
            cleanup()
