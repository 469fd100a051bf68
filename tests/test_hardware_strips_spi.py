"""hardware.strips.spi: the WS2812-over-SPI bit encoding, with a stand-in bus."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hardware.strip import StripError
from hardware.strips.spi import SpiStrip, encode_ws2812


class FakeSpi:
    def __init__(self) -> None:
        self.sent: list[bytes] = []
        self.closed = False
        self.max_speed_hz = 0
        self.mode = -1

    def writebytes2(self, data: bytes) -> None:
        self.sent.append(bytes(data))

    def close(self) -> None:
        self.closed = True


def bits(data: bytes) -> str:
    return "".join(f"{b:08b}" for b in data)


def test_each_bit_becomes_four_spi_bits() -> None:
    encoded = encode_ws2812(np.array([[0, 0, 0]], dtype=np.uint8))
    assert bits(encoded) == "1000" * 24
    encoded = encode_ws2812(np.array([[255, 255, 255]], dtype=np.uint8))
    assert bits(encoded) == "1100" * 24


def test_grb_order_and_msb_first() -> None:
    # Red 0x80 (only its top bit), green 0x01 (only its bottom bit), blue 0.
    encoded = encode_ws2812(np.array([[0x80, 0x01, 0x00]], dtype=np.uint8))
    green, red, blue = bits(encoded[0:4]), bits(encoded[4:8]), bits(encoded[8:12])
    assert green == "1000" * 7 + "1100"
    assert red == "1100" + "1000" * 7
    assert blue == "1000" * 8


def test_rgb_order_and_reset_gap() -> None:
    encoded = encode_ws2812(np.array([[0xFF, 0, 0]], dtype=np.uint8), order="RGB", reset_bytes=4)
    assert bits(encoded[:4]) == "1100" * 8 and encoded[-4:] == bytes(4) and len(encoded) == 16


def test_show_sends_one_transfer_at_3_2_mhz() -> None:
    spi = FakeSpi()
    strip = SpiStrip(366, spi=spi, bufsiz_path="/nonexistent")
    assert (spi.max_speed_hz, spi.mode) == (3_200_000, 0)
    strip.show(np.zeros((366, 3), dtype=np.uint8))
    assert len(spi.sent) == 1 and len(spi.sent[0]) == 366 * 12 + 120
    strip.close()
    assert spi.closed and len(spi.sent) == 2


def test_a_frame_bigger_than_spidev_bufsiz_is_refused(tmp_path: Path) -> None:
    bufsiz = tmp_path / "bufsiz"
    bufsiz.write_text("4096\n")
    SpiStrip(331, spi=FakeSpi(), bufsiz_path=bufsiz)  # 331 x 12 + 120 = 4092
    with pytest.raises(
        StripError, match=r"366 LEDs need 4512 bytes per SPI transfer but spidev.bufsiz is 4096"
    ):
        SpiStrip(366, spi=FakeSpi(), bufsiz_path=bufsiz)


def test_bad_order() -> None:
    with pytest.raises(StripError, match="colour order 'RGGB'"):
        SpiStrip(1, spi=FakeSpi(), order="RGGB")


def test_rgbw_frames_are_16_bytes_per_led_and_counted_so(tmp_path: Path) -> None:
    from hardware.strips.spi import check_buffer, frame_bytes

    assert frame_bytes(366) == 366 * 12 + 120 and frame_bytes(366, order="GRBW") == 366 * 16 + 120
    bufsiz = tmp_path / "bufsiz"
    bufsiz.write_text("4096\n")
    check_buffer(248, bufsiz_path=bufsiz, order="GRBW")  # 248 x 16 + 120 = 4088
    with pytest.raises(StripError, match="249 LEDs need 4104 bytes"):
        check_buffer(249, bufsiz_path=bufsiz, order="GRBW")
