"""WS2812 strip on a Raspberry Pi 5 through the kernel's ws2812-pio-rp1 driver.

The driver runs the WS2812 timing on the RP1's PIO and exposes the strip as
a character device (``/dev/leds0``). What this backend relies on, from the
driver's own code (raspberrypi/linux ``drivers/misc/ws2812-pio-rp1.c``; the
list with sources is ``docs/interfaces/ws2812-pio-rp1.md``, the stand-in
``tests/standins/ws2812_pio_rp1.py``):

- ``ws2812_pio_rp1_fops`` has ``open`` and ``write`` only: ``lseek`` fails with
  ESPIPE, and ``ws2812_pio_rp1_write`` copies at the open file's own ``*ppos``
  and advances it. A second frame on the same descriptor starts at
  ``num_leds * 4`` and fails with ENOSPC. So each frame opens the device anew
  (position 0) and closes it; nothing is kept open between frames.
- A frame is ``num_leds`` x 4 bytes, R G B W per LED (W ignored unless the
  overlay sets ``rgbw``); the driver sends them G R B (W).
- Each byte goes out as ``ws2812_gamma[(v * brightness) / 255]`` unless the
  brightness is 0 (``ws2812_apply_gamma``: ``if (!val || !brightness) return val``);
  the overlay leaves it at 255, which would darken the renderer's faint levels
  (1-21 -> 0) a second time after ``hardware.palette``. A write of exactly one
  byte at position 0 sets the brightness (``if (!pos && count == 1)``), so opening
  the strip writes one 0 byte: the driver then passes every byte through.
  (``install.sh``'s ``dtoverlay`` line is left as it is: the 1-byte write covers
  every config.txt, and a changed line would be added again beside the old one
  by a re-run.)
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import numpy as np
import numpy.typing as npt

from hardware.strip import SizedStrip, StripUnavailableError, check_frame

__all__ = ["Pi5PioStrip", "encode_rgbw", "DEVICE", "PASS_THROUGH"]

DEVICE = Path("/dev/leds0")
#: The 1-byte write that sets the driver's brightness to 0: bytes pass its gamma untouched.
PASS_THROUGH = bytes([0])


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
        self._closed = False
        self._write(PASS_THROUGH)

    def show(self, frame: npt.NDArray[np.uint8]) -> None:
        if self._closed:
            raise ValueError(f"strip {str(self._device)!r} is closed")
        self._write(encode_rgbw(check_frame(frame, self._n)))

    def _write(self, data: bytes) -> None:
        """Writes ``data`` from position 0 on a descriptor of its own, then closes it.

        The driver's ``write()`` continues at the open file's position and it has no
        ``llseek``, so a fresh open is the only way back to 0. A short write would
        go on from where it stopped, as the driver's ``*ppos`` does.
        """
        fd = self._open()
        try:
            view = memoryview(data)
            while view:
                try:
                    written = os.write(fd, view)
                except OSError as exc:
                    if exc.errno in (errno.ENOSPC, errno.EFBIG):
                        raise StripUnavailableError(
                            "pi5_pio", f"{str(self._device)!r} holds fewer than {self._n} LEDs "
                            f"({exc.strerror}): set num_leds={self._n} in the "
                            f"'dtoverlay=ws2812-pio,gpio=18,num_leds={self._n}' line of "
                            "/boot/firmware/config.txt and reboot") from exc
                    raise
                if written <= 0:
                    raise StripUnavailableError(
                        "pi5_pio", f"{str(self._device)!r} took no bytes of a frame")
                view = view[written:]
        finally:
            os.close(fd)

    def _open(self) -> int:
        try:
            return os.open(self._device, os.O_WRONLY)
        except FileNotFoundError as exc:
            raise StripUnavailableError(
                "pi5_pio",
                f"no {str(self._device)!r}: add 'dtoverlay=ws2812-pio,gpio=18,num_leds={self._n}' "
                "to /boot/firmware/config.txt and reboot (Pi 5 only)",
            ) from exc
        except PermissionError as exc:
            raise StripUnavailableError(
                "pi5_pio", f"cannot write {str(self._device)!r}: install "
                "systemd/99-cribbage-board-leds.rules (systemd/install.sh --leds pio) and join "
                "the group leds"
            ) from exc
