"""The Pi 5's ``/dev/leds0`` as raspberrypi/linux ``drivers/misc/ws2812-pio-rp1.c`` behaves.

Followed line by line (the file at raspberrypi/linux 8474bec4, rpi-6.12.y):

- ``ws2812_pio_rp1_fops`` has only ``.open`` and ``.write``: no ``.llseek``, so
  ``lseek`` fails with ESPIPE (``fs/read_write.c`` ``vfs_llseek``: no FMODE_LSEEK or
  ``no_llseek``); there is no ``.release``, so closing does nothing to the device.
- ``ws2812_pio_rp1_write``: starts at the open file's own ``*ppos``; ``pos > pixbuf_size``
  -> EFBIG; ``count > pixbuf_size`` -> EFBIG after copying ``pixbuf_size`` bytes;
  ``pos + count > pixbuf_size`` -> ENOSPC after copying what fits; a 1-byte write at
  position 0 sets ``brightness`` and moves nothing; otherwise ``pos += count`` and
  ``write_end = pos``; then ``schedule_delayed_work`` with delay 0 when
  ``write_end == pixbuf_size``, else ``HZ / 20``.
- ``ws2812_pio_rp1_deferred_work``: zeroes ``pixbuf`` past ``write_end``, reads each
  LED as a little-endian u32 (byte 0 red, 1 green, 2 blue, 3 white) and
  ``rgbw_u32`` puts ``W B R G`` in memory, so the PIO (out shift left, 24 or 32 bits)
  sends G R B (W) most significant bit first.
- ``ws2812_apply_gamma``: a value of 0 or a brightness of 0 passes through; otherwise
  ``ws2812_gamma[(v * brightness) / 255]``.
- ``ws2812_pio_rp1_probe``: ``brightness`` is 255 unless the overlay's ``rpi,brightness``
  (``dtoverlay=ws2812-pio,...,brightness=N``) says otherwise; ``pixbuf_size`` is
  ``num_leds * 4``; ``rgbw`` makes the PIO send 32 bits per LED.

``DeviceFiles`` is an ``os``-shaped fd layer (``open``, ``write``, ``lseek``, ``close``)
that a test puts in place of the backend module's ``os``.
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

__all__ = ["GAMMA", "apply_gamma", "Ws2812PioRp1", "DeviceFiles"]

#: ``ws2812_gamma[]``, copied from the driver (255 * (i / 255) ** (1 / .45)).
GAMMA = bytes([
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2,
    2, 2, 2, 3, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5,
    6, 6, 6, 7, 7, 7, 8, 8, 8, 9, 9, 9, 10, 10, 11, 11,
    11, 12, 12, 13, 13, 13, 14, 14, 15, 15, 16, 16, 17, 17, 18, 18,
    19, 19, 20, 21, 21, 22, 22, 23, 23, 24, 25, 25, 26, 27, 27, 28,
    29, 29, 30, 31, 31, 32, 33, 34, 34, 35, 36, 37, 37, 38, 39, 40,
    40, 41, 42, 43, 44, 45, 46, 46, 47, 48, 49, 50, 51, 52, 53, 54,
    55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70,
    71, 72, 73, 74, 76, 77, 78, 79, 80, 81, 83, 84, 85, 86, 88, 89,
    90, 91, 93, 94, 95, 96, 98, 99, 100, 102, 103, 104, 106, 107, 109, 110,
    111, 113, 114, 116, 117, 119, 120, 121, 123, 124, 126, 128, 129, 131, 132, 134,
    135, 137, 138, 140, 142, 143, 145, 146, 148, 150, 151, 153, 155, 157, 158, 160,
    162, 163, 165, 167, 169, 170, 172, 174, 176, 178, 179, 181, 183, 185, 187, 189,
    191, 193, 194, 196, 198, 200, 202, 204, 206, 208, 210, 212, 214, 216, 218, 220,
    222, 224, 227, 229, 231, 233, 235, 237, 239, 241, 244, 246, 248, 250, 252, 255,
])
assert len(GAMMA) == 256

_PIXEL_BYTES = 4


def apply_gamma(brightness: int, value: int) -> int:
    """``ws2812_apply_gamma``: C integer division, then the table."""
    if not value or not brightness:
        return value
    return GAMMA[(value * brightness) // 255]


@dataclass
class Ws2812PioRp1:
    """One probed instance: its ``state`` fields and the frames its PIO sent.

    ``sent`` holds each ``ws2812_update_leds`` as the wire bytes, G R B (W) per LED.
    ``pending`` is a scheduled ``deferred_work`` not yet run; ``tick()`` lets the
    ``HZ / 20`` pass. As in the kernel, scheduling work already pending changes nothing.
    """

    num_leds: int
    brightness: int = 255
    rgbw: bool = False
    sent: list[bytes] = field(default_factory=list)
    pending: bool = False
    write_end: int = 0

    def __post_init__(self) -> None:
        self.brightness = min(self.brightness, 255)
        self.pixbuf = bytearray(self.pixbuf_size)  # devm_kmalloc: contents unspecified
        self._update(bytes(self.pixbuf_size))  # ws2812_clear_leds at probe

    @property
    def pixbuf_size(self) -> int:
        return self.num_leds * _PIXEL_BYTES

    def write(self, pos: int, data: bytes) -> tuple[int, int]:
        """``ws2812_pio_rp1_write``: returns (result, new position); a result < 0 is -errno."""
        size, count, err = self.pixbuf_size, len(data), 0
        if pos > size:
            return -errno.EFBIG, pos
        if count > size:
            err, count = -errno.EFBIG, size
        if pos + count > size:
            if not err:
                err = -errno.ENOSPC
            count = size - pos
        if not pos and count == 1:
            self.brightness = data[0]
        else:
            self.pixbuf[pos:pos + count] = data[:count]
            pos += count
            self.write_end = pos
        self._schedule(0 if self.write_end == size else 1)
        return (err if err else count), pos

    def _schedule(self, delay: int) -> None:
        if self.pending:
            return
        self.pending = True
        if delay == 0:
            self.tick()

    def tick(self) -> None:
        """Runs pending ``ws2812_pio_rp1_deferred_work`` (the ``HZ / 20`` has passed)."""
        if not self.pending:
            return
        self.pending = False
        blank = self.pixbuf_size - self.write_end
        if blank > 0:
            self.pixbuf[self.write_end:] = bytes(blank)
        self._update(bytes(self.pixbuf))

    def _update(self, pixbuf: bytes) -> None:
        out = bytearray()
        for i in range(self.num_leds):
            r, g, b, w = pixbuf[i * 4:i * 4 + 4]
            word = [apply_gamma(self.brightness, v) for v in (g, r, b, w)]
            out += bytes(word if self.rgbw else word[:3])
        self.sent.append(bytes(out))

    def shown(self) -> npt.NDArray[np.uint8]:
        """The last frame as each LED shows it: ``(num_leds, 3)`` RGB, white left out."""
        size = 4 if self.rgbw else 3
        grb = np.frombuffer(self.sent[-1], dtype=np.uint8).reshape(-1, size)
        return grb[:, [1, 0, 2]].copy()


@dataclass
class _OpenFile:
    device: Ws2812PioRp1
    pos: int = 0  # struct file's f_pos, which write() advances through *ppos


class DeviceFiles:
    """``os``-shaped calls on ``/dev/leds*`` paths: open files keep their own position."""

    O_WRONLY = os.O_WRONLY
    O_RDWR = os.O_RDWR
    SEEK_SET = os.SEEK_SET

    def __init__(self, devices: dict[str | Path, Ws2812PioRp1]) -> None:
        self.devices = {str(path): device for path, device in devices.items()}
        self.files: dict[int, _OpenFile] = {}
        self.opens = 0
        self._next = 100

    def open(self, path: str | Path, flags: int, mode: int = 0o777) -> int:
        device = self.devices.get(str(path))
        if device is None:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", str(path))
        if flags & os.O_ACCMODE == os.O_RDONLY:
            raise AssertionError("opened read-only: the driver has no read(); write needs a "
                                 "writable descriptor")
        self._next += 1
        self.files[self._next] = _OpenFile(device)
        self.opens += 1
        return self._next

    def _file(self, fd: int) -> _OpenFile:
        if fd not in self.files:
            raise OSError(errno.EBADF, "Bad file descriptor")
        return self.files[fd]

    def write(self, fd: int, data: bytes | bytearray | memoryview) -> int:
        handle = self._file(fd)
        result, handle.pos = handle.device.write(handle.pos, bytes(data))
        if result < 0:
            raise OSError(-result, os.strerror(-result))
        return result

    def lseek(self, fd: int, pos: int, how: int) -> int:
        self._file(fd)
        raise OSError(errno.ESPIPE, "Illegal seek")

    def pwrite(self, fd: int, data: bytes, offset: int) -> int:
        raise AssertionError("pwrite on /dev/leds* is not modelled: the driver's code does not "
                             "say; open the device anew for each frame")

    def close(self, fd: int) -> None:
        self._file(fd)
        del self.files[fd]  # no .release in the fops: the device keeps its state

    def __getattr__(self, name: str) -> object:
        return getattr(os, name)  # errno names, strerror, and the rest of os as it is
