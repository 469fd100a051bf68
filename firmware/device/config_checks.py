"""The checks of a config that look past one key: the store's path on this file system, the
pins the LED strip's bus holds, and a did-you-mean for a misspelt key.

``firmware.device.config`` calls these while it reads the file, so ``run`` (which loads
the config first) and ``doctor`` (which reports the same load's faults) refuse exactly the
same files. Each returns words without the file's name or the key, which the caller puts
in front; none raises, and none lets an ``OSError`` text ("[Errno 17] File exists") reach
the person reading it.
"""

from __future__ import annotations

import difflib
import os
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["store_path_problem", "strip_pins", "did_you_mean", "KERNEL_FOLDERS"]

#: Folders of the kernel's own (devices, processes, sysfs): nothing can be stored there.
KERNEL_FOLDERS = ("/dev", "/proc", "/sys")

# The SPI buses a WS2812 strip can be driven from, and the GPIO each of their pins holds once
# dtparam=spi=on (or the spi1 overlay) gives the bus to the kernel: a button there is never read.
_SPI_PINS = {
    0: {10: "the strip's data pin (SPI0 MOSI)", 11: "SPI0's clock (SCLK)",
        9: "SPI0 MISO", 8: "SPI0 CE0", 7: "SPI0 CE1"},
    1: {20: "the strip's data pin (SPI1 MOSI)", 21: "SPI1's clock (SCLK)",
        19: "SPI1 MISO", 18: "SPI1 CE0", 17: "SPI1 CE1", 16: "SPI1 CE2"},
}
# rpi_ws281x's and the Pi 5 overlay's default data pin (hardware.strips.ws281x, pi5_pio).
_WS281X_PIN = 18


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """``"; did you mean 'muggins'?"`` for a near miss of a known word, else ``""``."""
    close = difflib.get_close_matches(word, sorted(known), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def strip_pins(backend: str, options: Mapping[str, Any]) -> dict[int, str]:
    """The GPIO pins an LED backend holds, each with what it is there for (empty for the
    simulator or a backend this does not know)."""
    if backend == "spi":
        bus = options.get("bus", 0)
        return dict(_SPI_PINS.get(bus, {})) if type(bus) is int else {}
    if backend == "ws281x":
        pin = options.get("pin", _WS281X_PIN)
        if type(pin) is not int:
            return {}
        if pin == 10:  # rpi_ws281x drives GPIO10 through SPI0
            return dict(_SPI_PINS[0])
        return {pin: f"the strip's data pin ({'PWM' if pin != 21 else 'PCM'})"}
    if backend == "pi5_pio":
        return {_WS281X_PIN: "the strip's data pin (the ws2812-pio overlay's gpio=18)"}
    return {}


def store_path_problem(path: Path) -> str | None:
    """Why the event store cannot live at ``path``, in words; None when it can be tried.

    Only what the path itself says is judged here (a folder, a device, a file where a
    folder must be, a NUL); whether this user may write there is the doctor's
    ``store:`` check, since it depends on who runs the board.
    """
    text = os.fspath(path)
    if "\x00" in text:
        return "contains a NUL character (\\x00), which no file name may hold"
    absolute = Path(os.path.abspath(text))
    for folder in KERNEL_FOLDERS:
        if absolute == Path(folder) or Path(folder) in absolute.parents:
            return (f"lies under {folder}, the kernel's own folder, where no file can be "
                    f"stored: name a file like /var/lib/cribbage-board/events.sqlite3")
    try:
        mode: int | None = absolute.stat().st_mode
    except (FileNotFoundError, NotADirectoryError):  # not there yet, or under a file: below
        mode = None
    except OSError as exc:
        return _os_words(exc, absolute)
    if mode is None and absolute.is_symlink():
        return "is a link to nothing (a dangling symbolic link)"
    if mode is not None:
        if stat.S_ISDIR(mode):
            return (f"is a folder: name a file inside it, like "
                    f"{str(absolute / 'events.sqlite3')!r}")
        if not stat.S_ISREG(mode):
            return "is not a plain file (a device, pipe or socket): name a file"
        return None
    for parent in absolute.parents:
        try:
            mode = parent.stat().st_mode
        except (FileNotFoundError, NotADirectoryError):
            continue  # made when the store opens (or under a file: said at that file)
        except OSError as exc:
            return _os_words(exc, parent)
        if not stat.S_ISDIR(mode):
            return (f"cannot be made: {str(parent)!r} is a file, not a folder, so nothing "
                    f"can be stored inside it")
        return None
    return None


def _os_words(exc: OSError, where: Path) -> str:
    reason = exc.strerror or type(exc).__name__
    return f"cannot be looked at: {str(where)!r}: {reason.lower()}"
