"""hardware.strips.spi: the WS2812-over-SPI bit encoding, with a stand-in bus."""

from __future__ import annotations

import errno
import sys
from pathlib import Path

import numpy as np
import pytest
from standins.spidev import CONTROLLERS, SpidevNode, module_for

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


def test_show_sends_one_transfer_at_3_2_mhz(tmp_path: Path) -> None:
    spi = FakeSpi()
    bufsiz = tmp_path / "bufsiz"
    bufsiz.write_text("65536\n")
    strip = SpiStrip(366, spi=spi, bufsiz_path=bufsiz)
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


# -- through py-spidev and the kernel's spidev as their code behaves (tests/standins/spidev.py)


def spidev_at(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, bufsiz: int | None
              ) -> tuple[SpidevNode, Path]:
    """A spidev node whose sysfs ``bufsiz`` reads ``bufsiz`` (None: unreadable), installed as
    the ``spidev`` module the backend imports."""
    node = SpidevNode(bufsiz=bufsiz)
    monkeypatch.setitem(sys.modules, "spidev", module_for(node))
    path = tmp_path / "bufsiz"
    if bufsiz is not None:
        path.write_text(f"{bufsiz}\n")
    return node, path


@pytest.mark.parametrize("bufsiz", [None, 4096, 65536, 100_000])
@pytest.mark.parametrize("n", [331, 332, 366, 5441, 5452])
def test_an_accepted_strip_sends_each_frame_in_one_transfer(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, bufsiz: int | None, n: int) -> None:
    """Fails when the check trusts an unreadable bufsiz (py-spidev then cuts at 4096) or a
    bufsiz over 65535 (py-spidev's cap): the frame would latch in two pieces."""
    node, path = spidev_at(monkeypatch, tmp_path, bufsiz)
    try:
        strip = SpiStrip(n, bufsiz_path=path)
    except StripError as exc:
        assert f"{n} LEDs need" in str(exc)
        return
    strip.show(np.full((n, 3), 5, dtype=np.uint8))
    assert len(node.transfers) == 1 and len(node.transfers[0].data) == n * 12 + 120


def test_the_guides_board_fits_once_bufsiz_is_raised(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    node, path = spidev_at(monkeypatch, tmp_path, 65536)
    SpiStrip(366, bufsiz_path=path).show(np.zeros((366, 3), dtype=np.uint8))
    (transfer,) = node.transfers
    assert transfer.asked_hz == 3_200_000 and transfer.sclk_hz == 3_125_000  # RP1: 200 MHz / 64
    assert transfer.mode == 0


def test_standin_spidev_as_its_sources() -> None:
    assert [round(CONTROLLERS[k](3_200_000)) for k in sorted(CONTROLLERS)] == \
        [3_125_000, 3_164_557, 3_125_000]  # Pi 3, Pi 4, Pi 5: never faster than asked
    node = SpidevNode(bufsiz=4096)
    with pytest.raises(OSError) as big:
        node.write(bytes(4097), 3_200_000, 0)
    assert big.value.errno == errno.EMSGSIZE
    dev = module_for(node).SpiDev()
    dev.open(0, 0)
    dev.max_speed_hz = 3_200_000
    assert dev.max_speed_hz == 3_200_000  # read back as asked, not as the controller runs
    dev.writebytes2(bytes(5000))
    assert [len(t.data) for t in node.transfers] == [4096, 904]
    with pytest.raises(OverflowError):
        dev.xfer2([0] * 4097)
