"""The ``rpi_ws281x`` Python binding over its C library, as their code behaves on a Pi 4.

Binding, rpi-ws281x/rpi-ws281x-python ``library/rpi_ws281x/rpi_ws281x.py``, ``PixelStrip``:

- ``__init__(num, pin, freq_hz=800000, dma=10, invert=False, brightness=255, channel=0,
  strip_type=None, gamma=None)``: ``gamma`` None is the identity ``list(range(256))``;
  ``strip_type`` None is ``WS2811_STRIP_GRB``; ``atexit.register(self._cleanup)``.
- ``begin``/``show``: a non-zero ``ws2811_init``/``ws2811_render`` raises
  ``RuntimeError('ws2811_init failed with code {n} ({text})')``.
- ``setPixelColor(n, color)``: ``color`` is ``(w << 24) | (r << 16) | (g << 8) | b``
  (``Color``/``RGBW``); ``ws2811_led_set`` ignores an index past ``count``.
- ``_cleanup``: ``ws2811_fini`` and ``_leds = None`` once; a ``show`` after it hands
  NULL to ``ws2811_render``, which crashes the interpreter (raised here instead).

C library, jgarff/rpi_ws281x ``ws2811.c``:

- ``ws2811_render``: ``scale = (brightness & 0xff) + 1``; each byte sent is
  ``gamma[(((leds[i] >> shift) & 0xff) * scale) >> 8]``, in the order of the strip
  type's shifts (``ws2811.h``: first byte at bits 16-23 of the type, then 8-15, 0-7,
  and white at 24-31 for SK6812 types); 4 bytes per LED when the type has white.
- ``check_hwver_and_gpionum`` / ``set_driver_mode`` on a 40-pin board: channel 0 takes
  GPIO 12 or 18 (PWM), 21 (PCM) or 10 (SPI); channel 1 GPIO 13 or 19 (PWM);
  otherwise ``-11`` (Selected GPIO not possible). DMA channels 0-14 are valid.
"""

from __future__ import annotations

import types
from typing import Any

__all__ = ["STRIP_TYPES", "PixelStrip", "library"]

#: ws2811.h
STRIP_TYPES = {
    "WS2811_STRIP_RGB": 0x00100800, "WS2811_STRIP_RBG": 0x00100008,
    "WS2811_STRIP_GRB": 0x00081000, "WS2811_STRIP_GBR": 0x00080010,
    "WS2811_STRIP_BRG": 0x00001008, "WS2811_STRIP_BGR": 0x00000810,
    "SK6812_STRIP_RGBW": 0x18100800, "SK6812_STRIP_RBGW": 0x18100008,
    "SK6812_STRIP_GRBW": 0x18081000, "SK6812_STRIP_GBRW": 0x18080010,
    "SK6812_STRIP_BRGW": 0x18001008, "SK6812_STRIP_BGRW": 0x18000810,
}
FORTY_PIN_CHANNEL_0 = {10: "SPI", 12: "PWM", 18: "PWM", 21: "PCM"}
FORTY_PIN_CHANNEL_1 = {13, 19}


class PixelStrip:
    """``PixelStrip`` and the C calls it makes, judged as on a Pi 4 (a 40-pin board)."""

    def __init__(self, num: int, pin: int, freq_hz: int = 800_000, dma: int = 10,
                 invert: bool = False, brightness: int = 255, channel: int = 0,
                 strip_type: int | None = None, gamma: list[int] | None = None) -> None:
        self.gamma = list(range(256)) if gamma is None else gamma
        strip_type = STRIP_TYPES["WS2811_STRIP_GRB"] if strip_type is None else strip_type
        self.args = (num, pin, freq_hz, dma, invert, brightness, channel, strip_type)
        self.leds = [0] * num
        self.wire: list[bytes] = []
        self.cleaned = False
        self.begun = False

    def begin(self) -> None:
        num, pin, freq, dma, _, _, channel, _ = self.args
        if channel == 0 and pin not in FORTY_PIN_CHANNEL_0 or \
                channel == 1 and pin not in FORTY_PIN_CHANNEL_1:
            raise RuntimeError("ws2811_init failed with code -11 (Selected GPIO not possible)")
        if not 0 <= dma < 15:
            raise RuntimeError("ws2811_init failed with code -7 (DMA error)")
        self.begun = True

    def setPixelColor(self, n: int, colour: int) -> None:  # noqa: N802 - the library's name
        if 0 <= n < len(self.leds):  # ws2811_led_set: past count is ignored
            self.leds[n] = colour & 0xFFFFFFFF

    def show(self) -> None:
        """``ws2811_render``: each LED's bytes by the strip type's shifts, scaled, gamma'd."""
        if self.cleaned:
            raise AssertionError("show() after _cleanup(): ws2811_render(NULL) would crash "
                                 "the interpreter")
        assert self.begun, "show() before begin(): ws2811_render on an uninitialised device"
        strip_type, brightness = self.args[7], self.args[5]
        shifts = [(strip_type >> s) & 0xFF for s in (16, 8, 0, 24)]
        scale = (brightness & 0xFF) + 1
        size = 4 if strip_type & 0xF0000000 else 3
        out = bytearray()
        for led in self.leds:
            out += bytes(self.gamma[(((led >> s) & 0xFF) * scale) >> 8] for s in shifts[:size])
        self.wire.append(bytes(out))

    def _cleanup(self) -> None:
        self.cleaned = True


def library() -> Any:
    """A stand-in ``rpi_ws281x`` module; ``made`` lists the strips it built."""
    made: list[PixelStrip] = []

    def pixel_strip(*args: Any, **kwargs: Any) -> PixelStrip:
        made.append(PixelStrip(*args, **kwargs))
        return made[-1]

    return types.SimpleNamespace(PixelStrip=pixel_strip, made=made,
                                 ws=types.SimpleNamespace(**STRIP_TYPES))
