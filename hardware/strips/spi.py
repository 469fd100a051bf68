"""WS2812 strip driven from an SPI MOSI pin: the installed backend on a Pi 3, 4 and 5.

A WS2812 bit is one high pulse and one low pulse, 1.25 us together; its length
says 0 or 1. Here each data bit becomes four SPI bits, ``1000`` for 0 and
``1100`` for 1, at 3.2 MHz: a 0 is high 312 ns then low 938 ns, a 1 high 625 ns
then low 625 ns (two LED bits per SPI byte, so 12 bytes per RGB LED). That
fits the WS2812B-V5 datasheet (T0H 220-380 ns, T1H 580-1000 ns, T0L and T1L
580-1000 ns) and the SK6812's (T0H 150-450, T1H 450-750, T0L 750-1050, T1L
450-750 ns) at the clocks the Pis really give, which are below the asked speed
because they divide a fixed clock by an even number: 3.165 MHz on a Pi 4
(``core_freq=500``), 3.125 MHz on a Pi 3 (``core_freq=250``) and a Pi 5 (RP1's
200 MHz). ``tests/test_hardware_led_protocols.py`` decodes the real bytes at
those clocks. rpi_ws281x's three-bit code (``110``/``100`` at 2.4 MHz) gives
417 ns for T0H and T1L: inside the first WS2812B sheet's +-150 ns windows but
outside the V5 sheet's and, for T1H, the SK6812's. No SPI code fits the first
WS2812B sheet (T1H 650-950, T1L 300-600 ns) and the V5's and SK6812's at once with
any room: T1L would have to be 580-600 ns, and on a Pi 5 (SPI bits in 10 ns steps)
every fit lands on a window's edge (``tests/test_hardware_led_protocols.py`` searches
1-50 MHz). So this code keeps to the V5 and SK6812, and a 1 bit's 625-632 ns high is
short of the first sheet's 650 ns: buy WS2812B-V5 or SK6812 strips.

The frame goes out in one transfer followed by at least ``reset_us`` of low
(300 us: over the newer WS2812B's 280 us latch, the SK6812's 80 us); a transfer
split by spidev's buffer size would latch half a frame, so that is refused.
py-spidev's ``writebytes2`` cuts a buffer into blocks of
``/sys/module/spidev/parameters/bufsiz`` bytes (4096 when it cannot read it, never
over 65535: ``get_xfer_block_size`` in its ``spidev_module.c``), one ``write()``
and so one transfer each; the kernel's spidev refuses a ``write()`` over its
``bufsiz`` with EMSGSIZE. The facts and their sources are in
``docs/interfaces/spidev.md``; ``tests/standins/spidev.py`` behaves so.
"""

from __future__ import annotations

import importlib
import math
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from hardware.strip import SizedStrip, StripError, StripUnavailableError, check_frame

__all__ = ["SpiStrip", "encode_ws2812", "check_buffer", "frame_bytes", "SPEED_HZ",
           "SPEED_RANGE_HZ", "BITS_PER_LED_BIT", "BUFSIZ_PATH", "ORDERS", "MOSI_GPIO",
           "XFER_DEFAULT_BLOCK", "XFER_MAX_BLOCK"]

#: SPI0 MOSI: the data line of this backend, header pin 19 on every 40-pin Pi.
MOSI_GPIO = 10
SPEED_HZ = 3_200_000
#: Asked speeds whose pulses stay inside both datasheets on every Pi's real clock.
SPEED_RANGE_HZ = (3_100_000, 3_400_000)
BITS_PER_LED_BIT = 4
BUFSIZ_PATH = Path("/sys/module/spidev/parameters/bufsiz")
#: py-spidev's block when it cannot read ``BUFSIZ_PATH``, and its cap (spidev_module.c).
XFER_DEFAULT_BLOCK, XFER_MAX_BLOCK = 4096, 65535
_CHANNELS = {"R": 0, "G": 1, "B": 2, "W": 3}
#: Colour orders: WS2812B and SK6812 RGB strips are GRB; SK6812 RGBW strips GRBW.
ORDERS = ("GRB", "RGB", "BRG", "RBG", "GBR", "BGR", "GRBW", "RGBW")
_ZERO, _ONE = 0b1000, 0b1100


def _table() -> npt.NDArray[np.uint8]:
    """Each colour byte's four SPI bytes, most significant bit first."""
    table = np.zeros((256, 4), dtype=np.uint8)
    for value in range(256):
        bits = 0
        for i in range(7, -1, -1):
            bits = (bits << BITS_PER_LED_BIT) | (_ONE if value >> i & 1 else _ZERO)
        table[value] = [(bits >> shift) & 0xFF for shift in (24, 16, 8, 0)]
    return table


_TABLE = _table()


def _order(order: str) -> list[int]:
    if order not in ORDERS:
        raise StripError(f"colour order {order!r} is not one of {', '.join(ORDERS)} "
                         "(WS2812B and SK6812 RGB: GRB; SK6812 RGBW: GRBW)")
    return [_CHANNELS[c] for c in order]


def encode_ws2812(
    frame: npt.NDArray[np.uint8], *, order: str = "GRB", reset_bytes: int = 0
) -> bytes:
    """Returns the SPI bytes for ``frame`` (RGB), then ``reset_bytes`` zero bytes.

    Colour bytes go out in ``order`` (WS2812B: green, red, blue), each most significant
    bit first; a ``W`` in the order sends white as 0, so an RGBW strip shows the same
    colours as an RGB one.

    >>> encode_ws2812(np.array([[0, 255, 0]], dtype=np.uint8)).hex()
    'cccccccc8888888888888888'
    """
    pixels = np.asarray(frame, dtype=np.uint8)
    rgbw = np.zeros((pixels.shape[0], 4), dtype=np.uint8)
    rgbw[:, :3] = pixels
    encoded = _TABLE[rgbw[:, _order(order)]].tobytes()
    return encoded + bytes(reset_bytes) if reset_bytes else encoded


def frame_bytes(n: int, *, speed_hz: int = SPEED_HZ, reset_us: int = 300,
                order: str = "GRB") -> int:
    """The bytes one transfer of ``n`` LEDs takes: the colour bits and the reset gap."""
    return n * len(order) * 8 * BITS_PER_LED_BIT // 8 + reset_gap_bytes(speed_hz, reset_us)


def reset_gap_bytes(speed_hz: int, reset_us: int) -> int:
    """Zero bytes that hold the line low ``reset_us`` at ``speed_hz`` (the real clock is never
    faster than the one asked, so the gap is never shorter)."""
    return math.ceil(reset_us * 1e-6 * speed_hz / 8)


class SpiStrip(SizedStrip):
    """A WS2812 strip on SPI0 MOSI: GPIO10, header pin 19.

    Wiring: strip DIN through a 74AHCT125 level shifter from GPIO10; grounds
    joined; strip on its own 5 V supply. Enable SPI with ``dtparam=spi=on``
    in ``/boot/firmware/config.txt``; the user needs the ``spi`` group. A frame
    over spidev's 4096-byte buffer (over 331 RGB LEDs) needs
    ``spidev.bufsiz=65536`` on the kernel command line. On a Pi 4 the SPI clock
    follows the core clock: pin it with ``core_freq=500`` and ``core_freq_min=500``
    (Pi 3: ``core_freq=250``).
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
        low, high = SPEED_RANGE_HZ
        if not low <= speed_hz <= high:
            raise StripError(
                f"speed_hz {speed_hz!r} is outside {low:,}-{high:,}: the WS2812 pulses would "
                f"miss the datasheet's windows; leave it out for {SPEED_HZ:,}")
        if reset_us < 280:
            raise StripError(f"reset_us {reset_us!r} is under the WS2812B's 280 us latch time")
        self._n = n
        self._order = order
        self._reset_bytes = check_buffer(n, speed_hz=speed_hz, reset_us=reset_us,
                                         bufsiz_path=bufsiz_path, order=order,
                                         unreadable=XFER_DEFAULT_BLOCK)
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
                 bufsiz_path: Path | str = BUFSIZ_PATH, order: str = "GRB",
                 unreadable: int | None = None) -> int:
    """Returns the reset gap in bytes, or raises ``StripError`` when a frame of ``n`` LEDs
    would not fit py-spidev's block (it would go out in two transfers and latch half).

    ``unreadable`` is the block to assume when ``bufsiz_path`` cannot be read: py-spidev
    then uses 4096 (what ``SpiStrip`` passes); None skips the check (``doctor`` on a Pi
    whose spidev module is not loaded yet)."""
    reset_bytes = reset_gap_bytes(speed_hz, reset_us)
    needed = frame_bytes(n, speed_hz=speed_hz, reset_us=reset_us, order=order)
    read = _read_int(Path(bufsiz_path))
    if read is None or read <= 0:
        if unreadable is not None and needed > unreadable:
            raise StripError(
                f"{n} LEDs need {needed} bytes per SPI transfer but {str(bufsiz_path)!r} "
                f"cannot be read, so py-spidev sends {unreadable}-byte blocks: load spidev "
                "(dtparam=spi=on) with 'spidev.bufsiz=65536' in /boot/firmware/cmdline.txt")
        return reset_bytes
    if needed > min(read, XFER_MAX_BLOCK):
        advice = (f" and py-spidev sends at most {XFER_MAX_BLOCK} bytes at once: use fewer "
                  "LEDs per strip" if read >= XFER_MAX_BLOCK else
                  ": add 'spidev.bufsiz=65536' to /boot/firmware/cmdline.txt")
        raise StripError(f"{n} LEDs need {needed} bytes per SPI transfer but spidev.bufsiz "
                         f"is {read}{advice}")
    return reset_bytes


def _read_int(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None
