"""The LED strip interface, and its backends chosen by name.

A strip only pushes frames; what is on them is the renderer's business. The
backends (``ws281x`` for Pi 1-4, ``pi5_pio`` and ``spi`` for the Pi 5,
``simulator`` anywhere) live in ``hardware.strips`` and are imported only
when opened, because their libraries exist only on a Pi (and rpi_ws281x
crashes the interpreter elsewhere). A backend that cannot start raises
``StripUnavailableError``; nothing here ever swaps in the simulator instead,
so a board that is not lit says why.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any, Protocol, Self, runtime_checkable

import numpy as np
import numpy.typing as npt

from hardware.layout import Layout

__all__ = [
    "LedStrip",
    "StripError",
    "StripUnavailableError",
    "BACKENDS",
    "open_strip",
    "check_options",
    "check_frame",
    "SizedStrip",
]


@runtime_checkable
class LedStrip(Protocol):
    """What every strip backend offers."""

    @property
    def n(self) -> int:
        """The number of LEDs on the strip."""
        ...

    def show(self, frame: npt.NDArray[np.uint8]) -> None:
        """Pushes one ``(n, 3)`` uint8 RGB frame to the LEDs."""
        ...

    def close(self) -> None:
        """Turns the LEDs off and releases the device."""
        ...


class StripError(ValueError):
    """A strip configuration that cannot work: unknown backend, bad option, wrong frame."""


class StripUnavailableError(OSError):
    """A backend that cannot run here: no library, no device, no permission, wrong Pi.

    ``backend`` names the backend; the message says what to install or enable.
    """

    def __init__(self, backend: str, reason: str) -> None:
        super().__init__(f"LED backend {backend!r} is unavailable: {reason}")
        self.backend = backend
        self.reason = reason


class SizedStrip:
    """What the hardware backends share: one LED per layout position, opened by name.

    ``open_strip`` calls ``open(layout, **options)``; a backend's constructor
    takes the LED count first, so tests can build one without a layout.
    """

    _n: int
    _closed: bool

    @classmethod
    def open(cls, layout: Layout, **options: Any) -> Self:
        """Opens a strip as long as ``layout`` needs."""
        return cls(layout.n_leds, **options)  # type: ignore[call-arg]

    @property
    def n(self) -> int:
        return self._n

    def close(self) -> None:
        """Darkens the strip, then releases the device (``_release``), once."""
        if self._closed:
            return
        try:
            self.show(np.zeros((self._n, 3), dtype=np.uint8))  # type: ignore[attr-defined]
        finally:
            self._closed = True
            self._release()

    def _release(self) -> None:
        """Frees the backend's device after the last frame; nothing by default."""


#: Backend name -> "module:Class"; each class has ``open(layout, **options)``.
BACKENDS: dict[str, str] = {
    "ws281x": "hardware.strips.ws281x:Ws281xStrip",
    "pi5_pio": "hardware.strips.pi5_pio:Pi5PioStrip",
    "spi": "hardware.strips.spi:SpiStrip",
    "simulator": "hardware.strips.simulator:SimulatorStrip",
}


def open_strip(name: str, layout: Layout, **options: Any) -> LedStrip:
    """Opens the backend called ``name`` for a strip wired as ``layout``.

    ``options`` are the backend's own keyword options (the config's
    ``[board.strip]`` table less ``backend``). Raises ``StripError`` for an
    unknown name or option, ``StripUnavailableError`` when the backend cannot
    run on this machine.
    """
    strip: LedStrip = check_options(name, layout, **options).open(layout, **options)
    return strip


def check_options(name: str, layout: Layout, **options: Any) -> Any:
    """Returns the backend class called ``name`` once its options fit it, opening nothing
    (``cribbage-board doctor`` asks this of a config with the service running)."""
    target = BACKENDS.get(name)
    if target is None:
        raise StripError(
            f"unknown LED backend {name!r}: choose one of {', '.join(sorted(BACKENDS))}"
        )
    module_name, class_name = target.split(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:  # a backend module whose own imports are missing
        raise StripUnavailableError(name, str(exc)) from exc
    cls = getattr(module, class_name)
    try:
        inspect.signature(cls).bind(layout, **options)  # the first argument only holds a place
    except TypeError as exc:
        raise StripError(f"LED backend {name!r}: {exc} (options given: {sorted(options)})") from exc
    return cls


def check_frame(frame: npt.NDArray[np.uint8], n: int) -> npt.NDArray[np.uint8]:
    """Returns ``frame`` as a C-contiguous ``(n, 3)`` uint8 array, or raises ``StripError``."""
    array = np.asarray(frame)
    if array.shape != (n, 3) or array.dtype != np.uint8:
        raise StripError(
            f"frame must be a ({n}, 3) uint8 array for this strip, got {array.shape} {array.dtype}"
        )
    return np.ascontiguousarray(array)
