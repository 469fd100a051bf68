"""WS2812 strip on a Raspberry Pi 5 through the kernel's ws2812-pio-rp1 driver.

The driver runs the WS2812 timing on the RP1's PIO and exposes the strip as
a character device (``/dev/leds0``). A frame is written in one go from offset
0, 4 bytes per LED in R, G, B, W order (W is ignored unless the overlay sets
``rgbw``); the driver reorders for the strip itself and applies the overlay's
brightness. Source: the driver's commit in the Raspberry Pi kernel,
``misc: Add ws2812-pio-rp1 driver`` (71c5b5e9, 3 Dec 2024): "Write data to the
/dev/* entry in a 4 bytes-per-pixel format in RGBW order: RR GG BB WW". The
overlay's ``num_leds`` must be the layout's LED count (``install.sh --leds pio``
writes it), so one frame is ``num_leds`` x 4 bytes.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import numpy as np
import numpy.typing as npt

from hardware.strip import SizedStrip, StripUnavailableError, check_frame

__all__ = ["Pi5PioStrip", "encode_rgbw", "DEVICE"]

DEVICE = Path("/dev/leds0")


def encode_rgbw(frame: npt.NDArray[np.uint8]) -> bytes:
    """Returns the driver's byte stream for ``frame``: ``R G B 0`` per LED."""
    pixels = np.asarray(frame, dtype=np.uint8)
    out = np.zeros((pixels.shape[0], 4), dtype=np.uint8)
    out[:, :3] = pixels
    return out.tobytes()


class Pi5PioStrip(SizedStrip):
    """A WS2812 strip on a Pi 5 driven by the ws2812-pio-rp1 kernel driver.

    Wiring: strip DIN through a 74AHCT125 level shifter from the GPIO named
    in the overlay (GPIO18, header pin 12, by default); grounds joined; the
    strip on its own 5 V supply. ``/boot/firmware/config.txt``:
    ``dtoverlay=ws2812-pio,gpio=18,num_leds=366``. The device is root-only
    unless a udev rule gives it to a group (systemd/99-cribbage-board-leds.rules: ``leds``).
    """

    def __init__(self, n: int, *, device: Path | str = DEVICE) -> None:
        self._n = n
        self._device = Path(device)
        try:
            self._fd: int | None = os.open(self._device, os.O_WRONLY)
        except FileNotFoundError as exc:
            raise StripUnavailableError(
                "pi5_pio",
                f"no {str(self._device)!r}: add 'dtoverlay=ws2812-pio,gpio=18,num_leds={n}' "
                "to /boot/firmware/config.txt and reboot (Pi 5 only)",
            ) from exc
        except PermissionError as exc:
            raise StripUnavailableError(
                "pi5_pio", f"cannot write {str(self._device)!r}: install "
                "systemd/99-cribbage-board-leds.rules (systemd/install.sh --leds pio) and join "
                "the group leds"
            ) from exc


    def show(self, frame: npt.NDArray[np.uint8]) -> None:
        if self._fd is None:
            raise ValueError(f"strip {str(self._device)!r} is closed")
        data = encode_rgbw(check_frame(frame, self._n))
        try:
            os.lseek(self._fd, 0, os.SEEK_SET)
        except OSError as exc:
            if exc.errno != errno.ESPIPE:  # a device without seek starts each write at 0
                raise
        os.write(self._fd, data)

    def close(self) -> None:
        if self._fd is None:
            return
        try:
            self.show(np.zeros((self._n, 3), dtype=np.uint8))
        finally:
            os.close(self._fd)
            self._fd = None
