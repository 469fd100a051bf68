"""``spidev.SpiDev`` (py-spidev 3.7) over the kernel's spidev, as their code behaves.

py-spidev, doceme/py-spidev ``spidev_module.c``:

- ``get_xfer_block_size``: reads ``/sys/module/spidev/parameters/bufsiz`` once;
  4096 (``SPIDEV_MAXPATH``) when it cannot, capped at 65535 (``XFER_MAX_BLOCK_SIZE``).
- ``SpiDev_writebytes2_buffer``: one ``write()`` per block of that size, so a buffer
  over it goes out as several SPI transfers with the line idle between them.
- ``xfer``/``xfer2``: a list over the block size raises OverflowError.
- ``SpiDev_open`` reads the node's mode and speed back (``SPI_IOC_RD_MAX_SPEED_HZ``: the
  device tree's until one is set); ``SpiDev_close`` sets them to 0 again.
- ``max_speed_hz``: the setter passes the asked speed to SPI_IOC_WR_MAX_SPEED_HZ and
  the getter returns it as asked.

Kernel, raspberrypi/linux ``drivers/spi/spidev.c``:

- ``static unsigned bufsiz = 4096; module_param(bufsiz, uint, S_IRUGO)``: set only on
  the kernel command line (``spidev.bufsiz=65536``); ``spidev_write`` returns
  EMSGSIZE for ``count > bufsiz``.
- ``SPI_IOC_WR_MAX_SPEED_HZ``: 0 is EINVAL; the speed is kept as asked
  (``spidev->speed_hz``) and ``SPI_IOC_RD_MAX_SPEED_HZ`` reads it back unchanged;
  each ``write()`` is one ``spi_transfer`` with ``.speed_hz = spidev->speed_hz``.
- The controller rounds it: ``drivers/spi/spi-bcm2835.c`` ``bcm2835_spi_transfer_one``
  (Pi 0-4): ``cdiv = DIV_ROUND_UP(clk_hz, spi_hz)``, ``cdiv += cdiv % 2``, at least 2;
  ``drivers/spi/spi-dw-core.c`` ``dw_spi_update_config`` (Pi 5, RP1, ``max_freq``
  200 MHz): ``clk_div = (DIV_ROUND_UP(max_freq, freq) + 1) & 0xfffe``. The real clock
  is the input clock over that divider, never faster than asked.
"""

from __future__ import annotations

import errno
import types
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["bcm2835_hz", "dw_spi_hz", "CONTROLLERS", "Transfer", "SpidevNode", "SpiDev",
           "module_for"]

XFER_DEFAULT_BLOCK_SIZE = 4096
XFER_MAX_BLOCK_SIZE = 65535
#: What SpiDev.open reads back before a speed is set: the Pi device trees' spidev
#: nodes say spi-max-frequency = <125000000>.
DT_SPEED_HZ = 125_000_000


def bcm2835_hz(clk_hz: int) -> Callable[[int], float]:
    """``bcm2835_spi_transfer_one``'s SCLK for an asked speed, with the core clock ``clk_hz``."""
    def effective(speed_hz: int) -> float:
        if speed_hz >= clk_hz // 2:
            return clk_hz / 2
        cdiv = -(-clk_hz // speed_hz)
        cdiv += cdiv % 2
        return clk_hz / cdiv if cdiv < 65536 else clk_hz / 65536
    return effective


def dw_spi_hz(max_freq: int = 200_000_000) -> Callable[[int], float]:
    """``dw_spi_update_config``'s SCLK: the RP1's 200 MHz over an even divider."""
    def effective(speed_hz: int) -> float:
        clk_div = (-(-max_freq // speed_hz) + 1) & 0xFFFE
        return max_freq / clk_div
    return effective


#: The clocks the project's guide sets up: core_freq pinned on a Pi 3 and 4.
CONTROLLERS: dict[str, Callable[[int], float]] = {
    "Pi 4 (core_freq=500)": bcm2835_hz(500_000_000),
    "Pi 3 (core_freq=250)": bcm2835_hz(250_000_000),
    "Pi 5 (RP1, 200 MHz)": dw_spi_hz(),
}


@dataclass(frozen=True)
class Transfer:
    """One ``spi_transfer`` on the wire: its bytes and the clock the controller really ran."""

    data: bytes
    asked_hz: int
    sclk_hz: float
    mode: int


@dataclass
class SpidevNode:
    """``/dev/spidevB.C`` and its module parameter, on one controller."""

    bufsiz: int | None = 4096  # None: /sys/module/spidev/parameters/bufsiz unreadable
    controller: Callable[[int], float] = field(default=CONTROLLERS["Pi 5 (RP1, 200 MHz)"])
    transfers: list[Transfer] = field(default_factory=list)

    def write(self, data: bytes, speed_hz: int, mode: int) -> int:
        """``spidev_write``: EMSGSIZE over ``bufsiz``, else one transfer."""
        if len(data) > (self.bufsiz or 4096):
            raise OSError(errno.EMSGSIZE, "Message too long")
        self.transfers.append(Transfer(bytes(data), speed_hz, self.controller(speed_hz), mode))
        return len(data)

    def frames(self) -> list[bytes]:
        return [t.data for t in self.transfers]


class SpiDev:
    """py-spidev's ``SpiDev`` on ``node`` (the class a stand-in ``spidev`` module offers)."""

    node: SpidevNode = SpidevNode()

    def __init__(self) -> None:
        self._speed = 0
        self._mode = 0
        self._open = False

    def open(self, bus: int, device: int) -> None:
        """``SpiDev_open``: reads the node's mode and speed back (``SPI_IOC_RD_*``)."""
        self._open = True
        self._speed, self._mode = DT_SPEED_HZ, 0

    @property
    def max_speed_hz(self) -> int:
        return self._speed

    @max_speed_hz.setter
    def max_speed_hz(self, value: int) -> None:
        if value == 0:
            raise OSError(errno.EINVAL, "Invalid argument")
        self._speed = int(value)

    @property
    def mode(self) -> int:
        return self._mode

    @mode.setter
    def mode(self, value: int) -> None:
        if value not in (0, 1, 2, 3):
            raise TypeError("The mode attribute must be an integer between 0 and 3")
        self._mode = value

    def _block(self) -> int:
        bufsiz = self.node.bufsiz
        if bufsiz is None or bufsiz <= 0:
            return XFER_DEFAULT_BLOCK_SIZE
        return min(bufsiz, XFER_MAX_BLOCK_SIZE)

    def writebytes2(self, data: bytes | bytearray | memoryview) -> None:
        if not self._open:
            raise OSError(errno.EBADF, "Bad file descriptor")
        view, block = memoryview(bytes(data)), self._block()
        for start in range(0, len(view), block):
            chunk = bytes(view[start:start + block])
            self.node.write(chunk, self._speed, self._mode)

    def xfer2(self, data: list[int]) -> list[int]:
        if len(data) > self._block():
            raise OverflowError(f"Argument list size exceeds {self._block()} bytes.")
        self.node.write(bytes(data), self._speed, self._mode)
        return [0] * len(data)

    def close(self) -> None:
        """``SpiDev_close``: fd, mode and speed back to those of a new object."""
        self._open = False
        self._speed = self._mode = 0


def module_for(node: SpidevNode) -> types.ModuleType:
    """A ``spidev`` module whose ``SpiDev`` objects all talk to ``node``."""
    module = types.ModuleType("spidev")
    module.SpiDev = type("SpiDev", (SpiDev,), {"node": node})  # type: ignore[attr-defined]
    return module
