"""hardware.strips.pi5_pio through a stand-in /dev/leds0 that behaves as ws2812-pio-rp1.c does.

``tests/standins/ws2812_pio_rp1.py`` follows the driver's ``write()``, deferred work and
gamma line by line; ``DeviceFiles`` replaces the backend module's ``os`` so the real code
path (open, write, close) runs against it. A plain file accepts anything, so it is used
here only for the errors of opening.
"""

from __future__ import annotations

import errno
from pathlib import Path

import numpy as np
import pytest
from standins.ws2812_pio_rp1 import DeviceFiles, Ws2812PioRp1, apply_gamma

from hardware.layout import per_side_tracks
from hardware.palette import Palette
from hardware.render import finish, render
from hardware.state import BoardState, SidePegs
from hardware.strip import StripError, StripUnavailableError
from hardware.strips import pi5_pio
from hardware.strips.pi5_pio import Pi5PioStrip, encode_rgbw


def test_encode_is_r_g_b_w_per_led() -> None:
    frame = np.array([[1, 2, 3], [250, 0, 9]], dtype=np.uint8)
    assert encode_rgbw(frame) == bytes([1, 2, 3, 0, 250, 0, 9, 0])


def board_device(monkeypatch: pytest.MonkeyPatch, num_leds: int, **overlay: object
                 ) -> tuple[Ws2812PioRp1, DeviceFiles]:
    """A probed driver instance at /dev/leds0, and the backend's ``os`` replaced to reach it."""
    device = Ws2812PioRp1(num_leds, **overlay)  # type: ignore[arg-type]
    files = DeviceFiles({"/dev/leds0": device})
    monkeypatch.setattr(pi5_pio, "os", files)
    return device, files


def test_frame_after_frame_reaches_the_leds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fails on one descriptor kept open: frame 2 starts at num_leds * 4, ENOSPC."""
    device, files = board_device(monkeypatch, 3)
    strip = Pi5PioStrip.open(per_side_tracks(1, holes=3))
    assert strip.n == 3
    for value in (7, 200, 31, 1):
        frame = np.array([[value, 2, 3]] * 3, dtype=np.uint8)
        strip.show(frame)
        device.tick()  # the brightness write's HZ / 20 delay, at most, then it is shown
        assert (device.shown() == frame).all()
    strip.close()
    device.tick()
    assert not device.shown().any() and files.files == {}  # dark, nothing left open
    strip.close()  # closing twice is harmless
    with pytest.raises(ValueError, match="is closed"):
        strip.show(np.zeros((3, 3), dtype=np.uint8))


def test_every_level_the_renderer_lights_stays_lit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fails without the brightness write: at the overlay's 255, levels 1-21 go to 0."""
    device, _ = board_device(monkeypatch, 255)
    strip = Pi5PioStrip(255)
    levels = np.arange(1, 256, dtype=np.uint8)
    frame = np.stack([levels, levels[::-1], levels], axis=1)
    strip.show(frame)
    device.tick()
    assert device.brightness == 0 and (device.shown() == frame).all()


def test_a_rendered_board_loses_no_led(monkeypatch: pytest.MonkeyPatch) -> None:
    layout = per_side_tracks(3)
    state = BoardState((SidePegs("Ann", 30, 24), SidePegs("Bob", 12, 4)))
    frame = finish(render(state, layout, Palette()), brightness=0.5)
    lit = frame.any(axis=1)
    device, _ = board_device(monkeypatch, layout.n_leds)
    dark_at_255 = Ws2812PioRp1(layout.n_leds)
    dark_at_255.write(0, encode_rgbw(frame))
    assert (lit & ~dark_at_255.shown().any(axis=1)).sum() > 0  # what the issue saw
    Pi5PioStrip.open(layout).show(frame)
    device.tick()
    assert (device.shown() == frame).all()


def test_the_wire_is_green_red_blue_per_led(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fails on a backend that sends G R B itself (the driver reorders R G B W)."""
    device, _ = board_device(monkeypatch, 2)
    Pi5PioStrip(2).show(np.array([[0x10, 0x20, 0x30], [0xFF, 0x01, 0x80]], dtype=np.uint8))
    device.tick()
    assert device.sent[-1] == bytes([0x20, 0x10, 0x30, 0x01, 0xFF, 0x80])


def test_an_rgbw_overlay_gets_white_off(monkeypatch: pytest.MonkeyPatch) -> None:
    device, _ = board_device(monkeypatch, 1, rgbw=True)
    Pi5PioStrip(1).show(np.array([[1, 2, 3]], dtype=np.uint8))
    device.tick()
    assert device.sent[-1] == bytes([2, 1, 3, 0])


def test_an_overlay_shorter_than_the_layout_names_num_leds(
        monkeypatch: pytest.MonkeyPatch) -> None:
    board_device(monkeypatch, 3)
    strip = Pi5PioStrip(4)
    with pytest.raises(StripUnavailableError, match=r"fewer than 4 LEDs .*num_leds=4"):
        strip.show(np.zeros((4, 3), dtype=np.uint8))


def test_a_shorter_layout_leaves_the_rest_dark_after_the_drivers_delay(
        monkeypatch: pytest.MonkeyPatch) -> None:
    device, _ = board_device(monkeypatch, 4)
    device.tick()  # the brightness write's delayed work
    Pi5PioStrip(2).show(np.full((2, 3), 9, dtype=np.uint8))
    assert device.pending  # write_end < pixbuf_size: HZ / 20 later
    device.tick()
    assert device.shown().tolist() == [[9, 9, 9]] * 2 + [[0, 0, 0]] * 2


# -- the stand-in is the driver: each fact from ws2812-pio-rp1.c -------------------------


def test_standin_one_descriptor_two_frames_is_enospc_and_no_seek() -> None:
    files = DeviceFiles({"/dev/leds0": Ws2812PioRp1(2)})
    fd = files.open("/dev/leds0", files.O_WRONLY)
    assert files.write(fd, bytes(8)) == 8
    with pytest.raises(OSError) as seek:
        files.lseek(fd, 0, files.SEEK_SET)
    assert seek.value.errno == errno.ESPIPE
    with pytest.raises(OSError) as full:
        files.write(fd, bytes(8))
    assert full.value.errno == errno.ENOSPC


def test_standin_write_errors_as_the_driver() -> None:
    device = Ws2812PioRp1(2)
    assert device.write(0, bytes(range(1, 13))) == (-errno.EFBIG, 8)  # copied 8, EFBIG
    assert device.write(4, bytes(range(1, 7))) == (-errno.ENOSPC, 8)  # copied 4, ENOSPC
    assert device.write(9, b"ab") == (-errno.EFBIG, 9)  # pos past the end: nothing
    assert device.pixbuf == bytes([1, 2, 3, 4, 1, 2, 3, 4])


def test_standin_one_byte_at_zero_is_brightness_and_gamma() -> None:
    device = Ws2812PioRp1(1)
    assert device.write(0, bytes([128])) == (1, 0)  # the position does not move
    assert device.brightness == 128
    device.write(0, bytes([255, 100, 21, 0]))
    device.tick()  # the 1-byte write's work was pending, so this write's adds nothing
    # ws2812_gamma[(v * 128) / 255]: 255 -> [128] = 55, 100 -> [50] = 6, 21 -> [10] = 0
    assert device.sent[-1] == bytes([6, 55, 0])
    assert [apply_gamma(255, v) for v in (0, 1, 21, 22, 255)] == [0, 0, 0, 1, 255]
    assert [apply_gamma(0, v) for v in (1, 21, 255)] == [1, 21, 255]


def test_wrong_frame_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    board_device(monkeypatch, 3)
    strip = Pi5PioStrip(3)
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
