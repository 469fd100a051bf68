"""hardware.strip: the backend registry, its errors, and lazy imports."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from hardware.layout import per_side_tracks
from hardware.strip import (
    BACKENDS,
    LedStrip,
    StripError,
    StripUnavailableError,
    check_frame,
    open_strip,
)

LAYOUT = per_side_tracks(3)


def test_simulator_opens_anywhere_and_is_a_led_strip() -> None:
    strip = open_strip("simulator", LAYOUT)
    assert isinstance(strip, LedStrip) and strip.n == 366


def test_unknown_backend_lists_the_known_ones() -> None:
    with pytest.raises(
        StripError,
        match=r"unknown LED backend 'neopixel': choose one of pi5_pio, simulator, spi, ws281x",
    ):
        open_strip("neopixel", LAYOUT)


def test_unknown_option_names_the_backend() -> None:
    with pytest.raises(StripError, match=r"LED backend 'pi5_pio': .*'colour'"):
        open_strip("pi5_pio", LAYOUT, colour="red")


def test_missing_device_is_unavailable_never_the_simulator(tmp_path: object) -> None:
    with pytest.raises(
        StripUnavailableError,
        match=r"LED backend 'pi5_pio' is unavailable: no .*"
        r"dtoverlay=ws2812-pio,gpio=18,num_leds=366",
    ) as info:
        open_strip("pi5_pio", LAYOUT, device=f"{tmp_path}/leds0")
    assert info.value.backend == "pi5_pio"
    assert isinstance(info.value, OSError)


def test_ws281x_off_a_pi_is_unavailable_before_importing_the_library(tmp_path: object) -> None:
    with pytest.raises(StripUnavailableError, match="not a Raspberry Pi"):
        open_strip("ws281x", LAYOUT, model_path=f"{tmp_path}/model")
    assert "rpi_ws281x" not in sys.modules


def test_check_frame() -> None:
    assert check_frame(np.zeros((3, 3), np.uint8), 3).shape == (3, 3)
    with pytest.raises(
        StripError, match=r"frame must be a \(3, 3\) uint8 array for this strip, got \(2, 3\) uint8"
    ):
        check_frame(np.zeros((2, 3), np.uint8), 3)
    with pytest.raises(StripError, match="float64"):
        check_frame(np.zeros((3, 3)), 3)


def test_importing_every_backend_loads_no_hardware_library() -> None:
    modules = ", ".join(
        ["hardware.strip", "hardware.buttons", "hardware.config"]
        + [target.split(":")[0] for target in BACKENDS.values()]
    )
    code = (
        f"import sys, {modules}\n"
        "bad = {'rpi_ws281x', 'spidev', 'lgpio', 'RPi', 'cv2'} & set(sys.modules)\n"
        "print(sorted(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
