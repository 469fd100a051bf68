"""hardware.strips.pi5_pio, writing to a plain file in place of /dev/leds0."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hardware.layout import per_side_tracks
from hardware.strip import StripError, StripUnavailableError
from hardware.strips.pi5_pio import Pi5PioStrip, encode_rgbw


def test_encode_is_r_g_b_w_per_led() -> None:
    frame = np.array([[1, 2, 3], [250, 0, 9]], dtype=np.uint8)
    assert encode_rgbw(frame) == bytes([1, 2, 3, 0, 250, 0, 9, 0])


def test_show_writes_the_whole_frame_from_the_start(tmp_path: Path) -> None:
    device = tmp_path / "leds0"
    device.write_bytes(b"")
    strip = Pi5PioStrip.open(per_side_tracks(1, holes=3), device=device)
    assert strip.n == 3
    strip.show(np.full((3, 3), 7, dtype=np.uint8))
    strip.show(np.array([[1, 2, 3]] * 3, dtype=np.uint8))
    assert device.read_bytes() == bytes([1, 2, 3, 0]) * 3
    strip.close()
    assert device.read_bytes() == bytes(12)
    strip.close()  # closing twice is harmless
    with pytest.raises(ValueError, match="is closed"):
        strip.show(np.zeros((3, 3), dtype=np.uint8))


def test_wrong_frame_is_refused(tmp_path: Path) -> None:
    device = tmp_path / "leds0"
    device.write_bytes(b"")
    strip = Pi5PioStrip(3, device=device)
    with pytest.raises(StripError, match=r"\(3, 3\)"):
        strip.show(np.zeros((4, 3), dtype=np.uint8))


def test_missing_device_says_which_overlay(tmp_path: Path) -> None:
    with pytest.raises(StripUnavailableError, match="dtoverlay=ws2812-pio,gpio=18,num_leds=5"):
        Pi5PioStrip(5, device=tmp_path / "leds0")


def test_unwritable_device_names_the_udev_rule_and_group(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    def refuse(path: object, flags: int) -> int:  # what os.open does to a non-root user
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(os, "open", refuse)
    with pytest.raises(StripUnavailableError,
                       match="install systemd/99-cribbage-board-leds.rules .* join the group leds"):
        Pi5PioStrip(5, device=tmp_path / "leds0")
