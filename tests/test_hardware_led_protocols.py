"""The LED backends' bytes, captured from the real code paths and checked against the
chips' datasheets and the Pi's drivers, not against our own encoder.

Sources (the numbers below are copied from them, not from hardware/):

- WS2812B-V5 (Worldsemi): T0H 220-380 ns, T1H 580-1000 ns, T0L 580-1000 ns,
  T1L 580-1000 ns, reset low > 280 us; GRB, most significant bit first.
- SK6812 (Opsco): T0H 0.3 us, T1H 0.6 us, T0L 0.9 us, T1L 0.6 us, each +-0.15 us;
  reset > 80 us; GRB (RGB) and GRBW (RGBW).
- Pi 3 and 4 SPI (Linux spi-bcm2835): cdiv = ceil(core clock / speed), rounded up
  to even; SCLK = core / cdiv. Pi 4 with ``core_freq=500``, Pi 3 with
  ``core_freq=250`` (rpi_ws281x's README).
- Pi 5 SPI (RP1 is a Synopsys DW APB SSI, Linux spi-dw-core, clocked by
  RP1_CLK_SYS = 200 MHz in rp1.dtsi): clk_div = (ceil(200 MHz / speed) + 1) & ~1.
- Frames of 96 bytes or more go by DMA (spi-bcm2835), one continuous stream.
- ws2812-pio-rp1 (raspberrypi/linux 71c5b5e9): /dev/leds* takes RR GG BB WW per LED.
- rpi_ws281x 5.0.0 lib/ws2811.c: the GPIO/channel rules, the strip types'
  shifts, the brightness scale ``(v * (b + 1)) >> 8``, SPI at 3 x freq.
"""

from __future__ import annotations

import math
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from standins import rpi_ws281x
from standins.rpi_ws281x import FORTY_PIN_CHANNEL_1, STRIP_TYPES
from standins.spidev import CONTROLLERS as SPI_CLOCKS
from standins.spidev import dw_spi_hz

from hardware.layout import per_side_tracks
from hardware.render import finish
from hardware.strip import StripError
from hardware.strips.pi5_pio import Pi5PioStrip
from hardware.strips.spi import SpiStrip

# -- the specifications, as data ---------------------------------------------------


@dataclass(frozen=True)
class Chip:
    name: str
    t0h: tuple[float, float]
    t1h: tuple[float, float]
    t0l: tuple[float, float]
    t1l: tuple[float, float]
    reset_us: float


WS2812B_V5 = Chip("WS2812B-V5", (220, 380), (580, 1000), (580, 1000), (580, 1000), 280)
SK6812 = Chip("SK6812", (150, 450), (450, 750), (750, 1050), (450, 750), 80)
CHIPS = (WS2812B_V5, SK6812)


#: The SCLK each Pi's SPI controller really runs for an asked speed (spi-bcm2835's and
#: spi-dw-core's dividers, in tests/standins/spidev.py).
CLOCKS: dict[str, Callable[[int], float]] = dict(SPI_CLOCKS)
rp1_sclk = dw_spi_hz()


# -- a decoder: SPI bytes on the wire back into pulses and colour bytes -------------


@dataclass(frozen=True)
class Wire:
    """What a strip receives: one (high ns, low ns) pulse per bit, then the reset low."""

    pulses: list[tuple[float, float]]
    reset_us: float


def to_wire(data: bytes, sclk_hz: float) -> Wire:
    """MOSI as a level per SCLK period, cut into high-then-low pulses (MSB first)."""
    bits = "".join(f"{b:08b}" for b in data)
    period_ns = 1e9 / sclk_hz
    assert bits.startswith("1"), "the stream must start with a bit's high pulse"
    pulses: list[tuple[float, float]] = []
    i = 0
    while i < len(bits):
        high = len(bits[i:]) - len(bits[i:].lstrip("1"))
        rest = bits[i + high:]
        low = len(rest) - len(rest.lstrip("0"))
        pulses.append((high * period_ns, low * period_ns))
        i += high + low
    last_high, last_low = pulses[-1]
    return Wire(pulses, last_low / 1000)


def decode(wire: Wire, chip: Chip) -> bytes:
    """The bytes a ``chip`` reads from ``wire``, checking every pulse against its windows."""
    def inside(ns: float, window: tuple[float, float]) -> bool:
        return window[0] <= ns <= window[1]

    assert wire.reset_us >= chip.reset_us, (
        f"reset low {wire.reset_us:.1f} us is under {chip.name}'s {chip.reset_us} us")
    bits = []
    for n, (high, low) in enumerate(wire.pulses):
        last = n == len(wire.pulses) - 1
        if inside(high, chip.t0h):
            bit, window = 0, chip.t0l
        elif inside(high, chip.t1h):
            bit, window = 1, chip.t1l
        else:
            raise AssertionError(f"bit {n}: high {high:.0f} ns is neither {chip.name}'s T0H "
                                 f"{chip.t0h} nor T1H {chip.t1h}")
        assert last or inside(low, window), (
            f"bit {n} ({bit}): low {low:.0f} ns is outside {chip.name}'s window {window}")
        bits.append(bit)
    assert len(bits) % 8 == 0
    return bytes(int("".join(map(str, bits[i:i + 8])), 2) for i in range(0, len(bits), 8))


# -- a stand-in spidev, installed where the backend imports it ---------------------


class FakeSpiDev:
    """Records what the backend does to ``spidev.SpiDev``."""

    made: list[FakeSpiDev] = []

    def __init__(self) -> None:
        self.opened: tuple[int, int] | None = None
        self.max_speed_hz = 0
        self.mode = -1
        self.writes: list[bytes] = []
        self.closed = False
        FakeSpiDev.made.append(self)

    def open(self, bus: int, device: int) -> None:
        self.opened = (bus, device)

    def writebytes2(self, data: Any) -> None:
        self.writes.append(bytes(data))

    def xfer2(self, data: Any) -> list[int]:  # the other call that sends; recorded alike
        self.writes.append(bytes(data))
        return [0] * len(data)

    def close(self) -> None:
        self.closed = True


@pytest.fixture()
def spidev(monkeypatch: pytest.MonkeyPatch) -> type[FakeSpiDev]:
    module = types.ModuleType("spidev")
    module.SpiDev = FakeSpiDev  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "spidev", module)
    FakeSpiDev.made = []
    return FakeSpiDev


COLOURS = np.array([[255, 0, 0], [0, 255, 0], [0, 0, 255], [0x80, 0x01, 0xFE], [0, 0, 0],
                    [255, 255, 255]], dtype=np.uint8)


def sent(spidev: type[FakeSpiDev], frame: np.ndarray, **options: Any) -> tuple[FakeSpiDev, bytes]:
    strip = SpiStrip(len(frame), bufsiz_path="/nonexistent", **options)
    strip.show(frame)
    (device,) = spidev.made
    (data,) = device.writes
    return device, data


@pytest.mark.parametrize("clock", sorted(CLOCKS))
@pytest.mark.parametrize("chip", CHIPS, ids=lambda c: c.name)
@pytest.mark.parametrize("speed_hz", [None, 3_100_000, 3_400_000])
def test_spi_pulses_fit_the_datasheet_at_the_pis_real_clock(
        spidev: type[FakeSpiDev], clock: str, chip: Chip, speed_hz: int | None) -> None:
    options = {} if speed_hz is None else {"speed_hz": speed_hz}
    device, data = sent(spidev, COLOURS, **options)
    assert device.opened == (0, 0) and device.mode == 0
    sclk = CLOCKS[clock](device.max_speed_hz)
    grb = decode(to_wire(data, sclk), chip)
    assert grb == COLOURS[:, [1, 0, 2]].tobytes()  # green, red, blue per LED


def test_the_default_clocks_are_the_ones_the_docs_name(spidev: type[FakeSpiDev]) -> None:
    device, _ = sent(spidev, COLOURS)
    real = {name: round(sclk(device.max_speed_hz) / 1e3) for name, sclk in CLOCKS.items()}
    assert real == {"Pi 4 (core_freq=500)": 3165, "Pi 3 (core_freq=250)": 3125,
                    "Pi 5 (RP1, 200 MHz)": 3125}


def test_reset_gap_is_at_least_280_us_on_every_pi(spidev: type[FakeSpiDev]) -> None:
    device, data = sent(spidev, COLOURS)
    for sclk in CLOCKS.values():
        assert to_wire(data, sclk(device.max_speed_hz)).reset_us >= 280


def test_sk6812_rgbw_gets_four_bytes_green_red_blue_white(spidev: type[FakeSpiDev]) -> None:
    device, data = sent(spidev, COLOURS, order="GRBW")
    grbw = decode(to_wire(data, CLOCKS["Pi 4 (core_freq=500)"](device.max_speed_hz)), SK6812)
    expected = np.zeros((len(COLOURS), 4), dtype=np.uint8)
    expected[:, :3] = COLOURS[:, [1, 0, 2]]
    assert grbw == expected.tobytes()


def test_colour_order_option_is_the_wire_order(spidev: type[FakeSpiDev]) -> None:
    device, data = sent(spidev, COLOURS, order="RGB")
    rgb = decode(to_wire(data, rp1_sclk(device.max_speed_hz)), WS2812B_V5)
    assert rgb == COLOURS.tobytes()


def test_brightness_scales_what_reaches_the_strip(spidev: type[FakeSpiDev]) -> None:
    levels = np.full((4, 3), 255.0)
    device, data = sent(spidev, finish(levels, brightness=0.25))
    got = np.frombuffer(decode(to_wire(data, rp1_sclk(device.max_speed_hz)), WS2812B_V5),
                        dtype=np.uint8)
    assert set(got.tolist()) == {64}  # 255 x 0.25, rounded


def test_one_transfer_per_frame_and_the_strip_goes_dark_on_close(
        spidev: type[FakeSpiDev], tmp_path: Path) -> None:
    (tmp_path / "bufsiz").write_text("65536\n")
    strip = SpiStrip(366, bufsiz_path=tmp_path / "bufsiz")
    strip.show(np.full((366, 3), 9, dtype=np.uint8))
    strip.close()
    (device,) = spidev.made
    assert len(device.writes) == 2 and device.closed
    dark = decode(to_wire(device.writes[1], rp1_sclk(device.max_speed_hz)), WS2812B_V5)
    assert dark == bytes(366 * 3)


def test_speeds_whose_pulses_miss_the_windows_are_refused(spidev: type[FakeSpiDev]) -> None:
    with pytest.raises(StripError, match="speed_hz 2400000 is outside 3,100,000-3,400,000"):
        SpiStrip(3, speed_hz=2_400_000, bufsiz_path="/nonexistent")
    with pytest.raises(StripError, match="reset_us 50 is under the WS2812B's 280 us"):
        SpiStrip(3, reset_us=50, bufsiz_path="/nonexistent")


def test_the_decoder_refuses_rpi_ws281x_three_bit_code() -> None:
    """The check can fail: ``110``/``100`` at 2.4 MHz (rpi_ws281x's SPI code) has a 417 ns
    T0H, over the WS2812B-V5's 380 ns, and an 833 ns T1H, over the SK6812's 750 ns."""
    bits = "".join("110" if (0x0F >> i) & 1 else "100" for i in range(7, -1, -1)) * 3
    data = int(bits, 2).to_bytes(9, "big") + bytes(90)
    for chip in CHIPS:
        with pytest.raises(AssertionError, match="is neither"):
            decode(to_wire(data, 2_400_000), chip)


# -- Pi 5: the kernel's ws2812-pio-rp1 driver ----------------------------------------


def test_pio_writes_num_leds_times_rr_gg_bb_ww_from_offset_0(tmp_path: Path) -> None:
    device = tmp_path / "leds0"
    device.write_bytes(b"")
    layout = per_side_tracks(3)  # the guide's board: what install.sh puts in num_leds
    strip = Pi5PioStrip.open(layout, device=device)
    frame = np.zeros((layout.n_leds, 3), dtype=np.uint8)
    frame[: len(COLOURS)] = COLOURS
    strip.show(frame)
    data = device.read_bytes()
    assert len(data) == layout.n_leds * 4 == 366 * 4
    pixels = np.frombuffer(data, dtype=np.uint8).reshape(-1, 4)
    assert (pixels[:, :3] == frame).all()  # RR GG BB: red first, the driver reorders
    assert (pixels[:, 3] == 0).all()  # WW: no white
    strip.show(frame[::-1].copy())
    assert len(device.read_bytes()) == layout.n_leds * 4  # rewritten from 0, not appended


# -- Pi 1-4: rpi_ws281x ------------------------------------------------------------

@pytest.fixture()
def pi4(tmp_path: Path) -> Path:
    model = tmp_path / "model"
    model.write_bytes(b"Raspberry Pi 4 Model B Rev 1.4\0")
    return model


ws281x_library = rpi_ws281x.library


@pytest.mark.parametrize("pin", [10, 12, 18, 21, 13, 19])
def test_ws281x_passes_what_the_library_accepts_on_a_pi4(pi4: Path, pin: int) -> None:
    from hardware.strips.ws281x import Ws281xStrip

    lib = ws281x_library()
    Ws281xStrip(len(COLOURS), pin=pin, library=lib, model_path=pi4)
    (made,) = lib.made
    num, _, freq, dma, invert, brightness, channel, _ = made.args
    assert (num, freq, dma, invert, brightness) == (len(COLOURS), 800_000, 10, False, 255)
    assert channel == (1 if pin in FORTY_PIN_CHANNEL_1 else 0)


@pytest.mark.parametrize("pin", [31, 38, 40, 41, 45, 52, 53, 4])
def test_ws281x_refuses_pins_the_library_refuses_on_a_40_pin_pi(pi4: Path, pin: int) -> None:
    from hardware.strips.ws281x import Ws281xStrip

    with pytest.raises(StripError, match=f"cannot drive GPIO{pin} on a 40-pin Pi"):
        Ws281xStrip(3, pin=pin, library=ws281x_library(), model_path=pi4)


def test_ws281x_refuses_dma_5_and_other_rates(pi4: Path) -> None:
    from hardware.strips.ws281x import Ws281xStrip

    with pytest.raises(StripError, match="dma 5"):
        Ws281xStrip(3, dma=5, library=ws281x_library(), model_path=pi4)
    with pytest.raises(StripError, match="freq_hz 1000000"):
        Ws281xStrip(3, freq_hz=1_000_000, library=ws281x_library(), model_path=pi4)


@pytest.mark.parametrize(("order", "wire"), [("GRB", [1, 0, 2]), ("RGB", [0, 1, 2]),
                                              ("BRG", [2, 0, 1])])
def test_ws281x_colours_reach_the_wire_in_the_strips_order(
        pi4: Path, order: str, wire: list[int]) -> None:
    from hardware.strips.ws281x import Ws281xStrip

    lib = ws281x_library()
    strip = Ws281xStrip(len(COLOURS), pin=10, order=order, library=lib, model_path=pi4)
    strip.show(COLOURS)
    assert lib.made[0].wire == [COLOURS[:, wire].tobytes()]


def test_ws281x_sk6812_rgbw(pi4: Path) -> None:
    from hardware.strips.ws281x import Ws281xStrip

    lib = ws281x_library()
    strip = Ws281xStrip(len(COLOURS), pin=18, order="GRBW", library=lib, model_path=pi4)
    strip.show(COLOURS)
    expected = np.zeros((len(COLOURS), 4), dtype=np.uint8)
    expected[:, :3] = COLOURS[:, [1, 0, 2]]
    assert lib.made[0].args[7] == STRIP_TYPES["SK6812_STRIP_GRBW"]
    assert lib.made[0].wire == [expected.tobytes()]


def test_ws281x_spi_mode_rate_is_3_times_800_khz_within_the_first_ws2812b_sheet() -> None:
    """rpi_ws281x sends freq_hz x 3 on SPI with ``110``/``100``: at the Pi 4's real clock
    each pulse is inside the original WS2812B sheet's 0.4/0.8/0.85/0.45 us +-150 ns."""
    first_sheet = Chip("WS2812B (2013)", (250, 550), (650, 950), (700, 1000), (300, 600), 50)
    from hardware.strips.ws281x import FREQUENCIES

    assert 800_000 in FREQUENCIES
    sclk = CLOCKS["Pi 4 (core_freq=500)"](800_000 * 3)
    bits = "".join("110" if (0xA5 >> i) & 1 else "100" for i in range(7, -1, -1))
    data = int(bits * 3, 2).to_bytes(9, "big") + bytes(math.ceil(60e-6 * sclk / 8))
    assert decode(to_wire(data, sclk), first_sheet) == bytes([0xA5] * 3)


FIRST_WS2812B = Chip("WS2812B (2013)", (250, 550), (650, 950), (700, 1000), (300, 600), 50)


def test_no_spi_encoding_fits_all_three_sheets_off_their_edges_on_a_pi5() -> None:
    """Why the SPI backend keeps to the WS2812B-V5 and SK6812 sheets (issue 59, item 4).

    Inside the first WS2812B sheet, the V5's and the SK6812's at once a bit must be T0H
    250-380, T1H 650-750, T0L 750-1000 and T1L 580-600 ns. The RP1 runs SCLK at 200 MHz
    over an even divider (spi-dw-core), so every SPI bit lasts a multiple of 10 ns. Asking
    any speed from 1 to 50 MHz, with 1 to 16 SPI bits for each high or low part, the only
    fits put some time exactly on a window's edge (T1L at 580 or 600 ns); none has even
    1 ns to spare, which one clock tick of drift would take."""
    sheets = (FIRST_WS2812B, WS2812B_V5, SK6812)
    windows = [(max(getattr(c, k)[0] for c in sheets), min(getattr(c, k)[1] for c in sheets))
               for k in ("t0h", "t1h", "t0l", "t1l")]
    assert windows == [(250, 380), (650, 750), (750, 1000), (580, 600)]

    def fits(margin_ns: float) -> list[int]:
        found = []
        for speed_hz in range(1_000_000, 50_000_001, 5_000):
            period = 1e9 / rp1_sclk(speed_hz)
            if all(any(low + margin_ns <= n * period <= high - margin_ns for n in range(1, 17))
                   for low, high in windows):
                found.append(speed_hz)
        return found

    assert fits(0)  # the check can find one: edge-only fits exist (e.g. 120 ns periods)
    assert fits(1) == []


def test_the_spi_encoding_misses_the_first_ws2812b_where_the_docs_say(
        spidev: type[FakeSpiDev]) -> None:
    """The first sheet's T1H (650-950 ns) is what the 632 ns high misses on a Pi 4; the parts
    list must name a WS2812B-V5 or SK6812 strip (its decoder check above passes for both)."""
    device, data = sent(spidev, COLOURS)
    with pytest.raises(AssertionError, match="neither WS2812B \\(2013\\)'s T0H"):
        decode(to_wire(data, CLOCKS["Pi 4 (core_freq=500)"](device.max_speed_hz)), FIRST_WS2812B)
