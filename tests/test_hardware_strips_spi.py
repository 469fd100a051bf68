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


def test_each_bit_becomes_three_spi_bits() -> None:
    encoded = encode_ws2812(np.array([[0, 0, 0]], dtype=np.uint8))
    assert bits(encoded) == "100" * 24
    encoded = encode_ws2812(np.array([[255, 255, 255]], dtype=np.uint8))
    assert bits(encoded) == "110" * 24


def test_grb_order_and_msb_first() -> None:
    # Red 0x80 (only its top bit), green 0x01 (only its bottom bit), blue 0.
    encoded = encode_ws2812(np.array([[0x80, 0x01, 0x00]], dtype=np.uint8))
    green, red, blue = bits(encoded[0:3]), bits(encoded[3:6]), bits(encoded[6:9])
    assert green == "100" * 7 + "110"
    assert red == "110" + "100" * 7
    assert blue == "100" * 8


def test_rgb_order_and_reset_gap() -> None:
    encoded = encode_ws2812(np.array([[0xFF, 0, 0]], dtype=np.uint8), order="RGB", reset_bytes=4)
    assert bits(encoded[:3]) == "110" * 8 and encoded[-4:] == bytes(4) and len(encoded) == 13


def test_show_sends_one_transfer_at_2_4_mhz() -> None:
    spi = FakeSpi()
    strip = SpiStrip(366, spi=spi, bufsiz_path="/nonexistent")
    assert (spi.max_speed_hz, spi.mode) == (2_400_000, 0)
    strip.show(np.zeros((366, 3), dtype=np.uint8))
    assert len(spi.sent) == 1 and len(spi.sent[0]) == 366 * 9 + 90
    strip.close()
    assert spi.closed and len(spi.sent) == 2


def test_a_frame_bigger_than_spidev_bufsiz_is_refused(tmp_path: Path) -> None:
    bufsiz = tmp_path / "bufsiz"
    bufsiz.write_text("4096\n")
    SpiStrip(445, spi=FakeSpi(), bufsiz_path=bufsiz)
    with pytest.raises(
        StripError, match=r"500 LEDs need 4590 bytes per SPI transfer but spidev.bufsiz is 4096"
    ):
        SpiStrip(500, spi=FakeSpi(), bufsiz_path=bufsiz)


def test_bad_order() -> None:
    with pytest.raises(StripError, match="colour order 'RGBW'"):
        SpiStrip(1, spi=FakeSpi(), order="RGBW")
