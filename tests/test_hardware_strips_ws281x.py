"""hardware.strips.ws281x, with a stand-in library: the real one crashes off a Pi."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from standins import rpi_ws281x

from hardware.strip import StripError, StripUnavailableError
from hardware.strips.ws281x import Ws281xStrip, pi_model


class FakePixelStrip:
    def __init__(self, *args: Any) -> None:
        self.args = args
        self.pixels: dict[int, int] = {}
        self.shown = 0
        self.cleaned = False
        self.fail = ""

    def begin(self) -> None:
        if self.fail:
            raise RuntimeError(self.fail)

    def setPixelColor(self, n: int, colour: int) -> None:  # noqa: N802 - the library's name
        self.pixels[n] = colour

    def show(self) -> None:
        self.shown += 1

    def _cleanup(self) -> None:
        self.cleaned = True


def fake_library(fail: str = "") -> SimpleNamespace:
    made: list[FakePixelStrip] = []

    def pixel_strip(*args: Any) -> FakePixelStrip:
        strip = FakePixelStrip(*args)
        strip.fail = fail
        made.append(strip)
        return strip

    return SimpleNamespace(
        PixelStrip=pixel_strip,
        made=made,
        ws=SimpleNamespace(WS2811_STRIP_GRB=0x81000, WS2811_STRIP_RGB=0x100800),
    )


@pytest.fixture()
def pi4(tmp_path: Path) -> Path:
    model = tmp_path / "model"
    model.write_bytes(b"Raspberry Pi 4 Model B Rev 1.4\0")
    return model


def test_pi_model_reads_the_device_tree(pi4: Path) -> None:
    assert pi_model(pi4) == "Raspberry Pi 4 Model B Rev 1.4"
    assert pi_model(pi4.parent / "absent") is None


def test_show_packs_rgb_and_pushes(pi4: Path) -> None:
    lib = fake_library()
    strip = Ws281xStrip(2, pin=18, library=lib, model_path=pi4)
    made = lib.made[0]
    assert made.args == (2, 18, 800_000, 10, False, 255, 0, 0x81000)
    strip.show(np.array([[1, 2, 3], [255, 0, 128]], dtype=np.uint8))
    assert made.pixels == {0: 0x010203, 1: 0xFF0080} and made.shown == 1
    strip.close()
    assert made.pixels == {0: 0, 1: 0} and made.cleaned


def test_second_pwm_channel_pins(pi4: Path) -> None:
    lib = fake_library()
    Ws281xStrip(4, pin=13, order="RGB", library=lib, model_path=pi4)
    assert lib.made[0].args[6:] == (1, 0x100800)


def test_pi5_is_refused_with_the_alternatives(tmp_path: Path) -> None:
    model = tmp_path / "model"
    model.write_bytes(b"Raspberry Pi 5 Model B Rev 1.0\0")
    with pytest.raises(
        StripUnavailableError,
        match="cannot drive a Raspberry Pi 5 Model B Rev 1.0; use backend 'pi5_pio' or 'spi'",
    ):
        Ws281xStrip(4, library=fake_library(), model_path=model)


def test_failed_begin_is_unavailable(pi4: Path) -> None:
    with pytest.raises(StripUnavailableError, match="ws2811_init failed with code -5.*needs root"):
        Ws281xStrip(4, library=fake_library("ws2811_init failed with code -5"), model_path=pi4)


def test_bad_pin_and_order(pi4: Path) -> None:
    with pytest.raises(StripError, match="cannot drive GPIO4"):
        Ws281xStrip(4, pin=4, library=fake_library(), model_path=pi4)
    with pytest.raises(StripError, match="unknown colour order 'GGB'"):
        Ws281xStrip(4, order="GGB", library=fake_library(), model_path=pi4)


# -- through the binding and its C library as their code behaves (tests/standins/rpi_ws281x.py)


def test_closing_twice_never_renders_a_cleaned_strip(pi4: Path) -> None:
    """Fails when close() shows a dark frame again after ``_cleanup``: the binding would hand
    ws2811_render a NULL and the interpreter would crash."""
    lib = rpi_ws281x.library()
    strip = Ws281xStrip(3, library=lib, model_path=pi4)
    strip.close()
    strip.close()
    (made,) = lib.made
    assert made.cleaned and made.wire == [bytes(9)]
    with pytest.raises(ValueError, match="closed"):
        strip.show(np.zeros((3, 3), dtype=np.uint8))


def test_every_level_reaches_the_wire_unchanged(pi4: Path) -> None:
    """Fails on a brightness under 255 or a gamma table passed to PixelStrip: ws2811_render
    scales by (b + 1) >> 8 and looks each byte up, and the renderer's levels are final."""
    lib = rpi_ws281x.library()
    levels = np.arange(256, dtype=np.uint8)
    frame = np.stack([levels, levels[::-1], levels], axis=1)
    Ws281xStrip(256, order="RGB", library=lib, model_path=pi4).show(frame)
    assert lib.made[0].wire == [frame.tobytes()]
