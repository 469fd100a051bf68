"""WS2812 strip driven from an SPI MOSI pin, for the Pi 5 (and Pi 4 without root).

WS2812 wants 800 kHz pulses: a 1 is long-high-short-low, a 0 short-high-
long-low. At an SPI clock of 2.4 MHz each data bit becomes three SPI bits,
``110`` for 1 and ``100`` for 0, so one LED (24 bits) is 9 SPI bytes. The
frame is sent in one transfer followed by a low reset gap; a transfer split
by spidev's buffer size would latch half a frame, so that is refused.
"""

from __future__ import annotations

import importlib
import math
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from hardware.strip import SizedStrip, StripError, StripUnavailableError, check_frame

__all__ = ["SpiStrip", "encode_ws2812", "check_buffer", "SPEED_HZ", "BUFSIZ_PATH"]

SPEED_HZ = 2_400_000
BUFSIZ_PATH = Path("/sys/module/spidev/parameters/bufsiz")
_CHANNELS = {"R": 0, "G": 1, "B": 2}


def _table() -> npt.NDArray[np.uint8]:
    table = np.zeros((256, 3), dtype=np.uint8)
    for value in range(256):
        bits = 0
        for i in range(7, -1, -1):
            bits = (bits << 3) | (0b110 if value >> i & 1 else 0b100)
        table[value] = ((bits >> 16) & 0xFF, (bits >> 8) & 0xFF, bits & 0xFF)
    return table


_TABLE = _table()


def _order(order: str) -> list[int]:
    if sorted(order) != ["B", "G", "R"]:
        raise StripError(f"colour order {order!r} must be the letters R, G and B in some order")
    return [_CHANNELS[c] for c in order]


def encode_ws2812(
    frame: npt.NDArray[np.uint8], *, order: str = "GRB", reset_bytes: int = 0
) -> bytes:
    """Returns the SPI bytes for ``frame`` at 2.4 MHz, then ``reset_bytes`` zero bytes.

    Bytes go out in ``order`` (WS2812B: green, red, blue), most significant
    bit first.

    >>> encode_ws2812(np.array([[0, 255, 0]], dtype=np.uint8)).hex()
    'db6db6924924924924'
    """
    pixels = np.asarray(frame, dtype=np.uint8)[:, _order(order)]
    encoded = _TABLE[pixels].tobytes()
    return encoded + bytes(reset_bytes) if reset_bytes else encoded


class SpiStrip(SizedStrip):
    """A WS2812 strip on SPI0 MOSI: GPIO10, header pin 19.

    Wiring: strip DIN through a 74AHCT125 level shifter from GPIO10; grounds
    joined; strip on its own 5 V supply. Enable SPI with ``dtparam=spi=on``
    in ``/boot/firmware/config.txt``; the user needs the ``spi`` group. For
    more than 445 LEDs raise spidev's buffer (``spidev.bufsiz=65536`` on the
    kernel command line). On a Pi 4 the SPI clock follows the core clock: pin
    it with ``core_freq=500`` and ``core_freq_min=500``.
    """

    def __init__(
        self,
        n: int,
        *,
        bus: int = 0,
        device: int = 0,
        speed_hz: int = SPEED_HZ,
        order: str = "GRB",
        reset_us: int = 300,
        spi: Any | None = None,
        bufsiz_path: Path | str = BUFSIZ_PATH,
    ) -> None:
        _order(order)
        self._n = n
        self._order = order
        self._reset_bytes = check_buffer(n, speed_hz=speed_hz, reset_us=reset_us,
                                         bufsiz_path=bufsiz_path)
        if spi is None:
            try:
                spidev = importlib.import_module("spidev")
            except ImportError as exc:
                raise StripUnavailableError(
                    "spi", f"{exc}; install it with pip install spidev"
                ) from exc
            spi = spidev.SpiDev()
            try:
                spi.open(bus, device)
            except OSError as exc:
                raise StripUnavailableError(
                    "spi",
                    f"cannot open /dev/spidev{bus}.{device} ({exc}): add dtparam=spi=on to "
                    "/boot/firmware/config.txt and join the spi group",
                ) from exc
        spi.max_speed_hz = speed_hz
        spi.mode = 0
        self._spi: Any | None = spi


    def encode(self, frame: npt.NDArray[np.uint8]) -> bytes:
        """Returns the bytes ``show`` would send for ``frame``."""
        return encode_ws2812(
            check_frame(frame, self._n), order=self._order, reset_bytes=self._reset_bytes
        )

    def show(self, frame: npt.NDArray[np.uint8]) -> None:
        if self._spi is None:
            raise ValueError("SPI strip is closed")
        self._spi.writebytes2(self.encode(frame))

    def close(self) -> None:
        if self._spi is None:
            return
        try:
            self.show(np.zeros((self._n, 3), dtype=np.uint8))
        finally:
            self._spi.close()
            self._spi = None


def check_buffer(n: int, *, speed_hz: int = SPEED_HZ, reset_us: int = 300,
                 bufsiz_path: Path | str = BUFSIZ_PATH) -> int:
    """Returns the reset gap in bytes, or raises ``StripError`` when a frame of ``n`` LEDs
    would not fit spidev's buffer (it would go out in two transfers and latch half)."""
    reset_bytes = math.ceil(reset_us * 1e-6 * speed_hz / 8)
    frame_bytes = n * 9 + reset_bytes
    bufsiz = _read_int(Path(bufsiz_path))
    if bufsiz is not None and frame_bytes > bufsiz:
        raise StripError(
            f"{n} LEDs need {frame_bytes} bytes per SPI transfer but spidev.bufsiz is "
            f"{bufsiz}: add 'spidev.bufsiz=65536' to /boot/firmware/cmdline.txt"
        )
    return reset_bytes


def _read_int(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None
