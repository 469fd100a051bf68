"""The wiring diagram of the board the guide builds, drawn from the config's defaults.

``python -m hardware.wiring_svg`` rewrites ``hardware/wiring.svg``; the tests check
that the file is current and that every pin it names is the one the software uses:
the LED data line on SPI0 MOSI (GPIO10, the installed ``spi`` backend) through a
74AHCT125 level shifter (its unused inputs and enables tied, decoupled), the four
buttons from ``ButtonConfig``'s defaults returning to a ground pin, the optional
encoder, grounds joined, the strip on its own fused 5 V adapter with its 1000 uF
capacitor at the input. The Pi, camera and shifter ride on the camera arm; one
8-core cable runs down it to the board (docs/building.md, "Where everything goes").
"""

from __future__ import annotations

import sys
from html import escape
from pathlib import Path

from hardware.buttons import ButtonConfig
from hardware.layout import per_side_tracks
from hardware.power import PowerBudget
from hardware.strips.spi import MOSI_GPIO

__all__ = ["HEADER_PIN", "GROUND_PINS", "SHIFTER_PINS", "wiring_svg", "WIRING_SVG", "ENCODER"]

WIRING_SVG = Path(__file__).with_name("wiring.svg")
#: BCM GPIO -> physical pin on the 40-pin header (the same on a Pi 2, 3, 4, 5 and Zero).
HEADER_PIN = {2: 3, 3: 5, 4: 7, 17: 11, 27: 13, 22: 15, 10: 19, 9: 21, 11: 23, 0: 27, 5: 29,
              6: 31, 13: 33, 19: 35, 26: 37, 14: 8, 15: 10, 18: 12, 23: 16, 24: 18, 25: 22,
              8: 24, 7: 26, 1: 28, 12: 32, 16: 36, 20: 38, 21: 40}
POWER_PINS = {1: "3V3", 17: "3V3", 2: "5V", 4: "5V"}
GROUND_PINS = (6, 9, 14, 20, 25, 30, 34, 39)
#: The 74AHCT125 level shifter's DIP-14 pins (its datasheet's pinout).
SHIFTER_PINS = {"1OE": 1, "1A": 2, "1Y": 3, "2OE": 4, "2A": 5, "2Y": 6, "GND": 7, "3Y": 8,
                "3A": 9, "3OE": 10, "4Y": 11, "4A": 12, "4OE": 13, "VCC": 14}
#: The optional rotary encoder of the guide (``[buttons] encoder = { a = 5, b = 6 }``).
ENCODER = {"encoder A": 5, "encoder B": 6}

_RED, _BLACK, _GREEN, _BLUE, _GREY = "#c0392b", "#222", "#1e8449", "#1f5fa8", "#888"


def pin_label(gpio: int) -> str:
    return f"GPIO{gpio} (pin {HEADER_PIN[gpio]})"


def wiring_svg() -> str:
    """The diagram as SVG text (deterministic: the same text every time)."""
    buttons = ButtonConfig().pins
    leds = per_side_tracks(3).n_leds
    supply = PowerBudget()
    out: list[str] = []
    wires: list[str] = []  # drawn under the pins and boxes, so each wire leaves its pin

    def text(x: float, y: float, s: str, size: int = 13, colour: str = _BLACK,
             anchor: str = "start", weight: str = "normal", rotate: bool = False) -> None:
        turn = f' transform="rotate(-90 {x:g} {y:g})"' if rotate else ""
        out.append(f'<text x="{x:g}" y="{y:g}" font-size="{size}" fill="{colour}" '
                   f'text-anchor="{anchor}" font-weight="{weight}"{turn}>{escape(s)}</text>')

    def wire(points: list[tuple[float, float]], colour: str, dash: bool = False,
             role: str = "wire") -> None:
        pts = " ".join(f"{x:g},{y:g}" for x, y in points)
        style = ' stroke-dasharray="6 4"' if dash else ""
        wires.append(f'<polyline class="{role}" points="{pts}" fill="none" stroke="{colour}" '
                     f'stroke-width="2.5"{style}/>')

    def dot(x: float, y: float, colour: str = _BLACK) -> None:
        out.append(f'<circle class="junction" cx="{x:g}" cy="{y:g}" r="3.5" fill="{colour}"/>')

    def box(x: float, y: float, w: float, h: float, fill: str = "#fff",
            dash: bool = False) -> None:
        style = ' stroke-dasharray="5 4"' if dash else ""
        out.append(f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" rx="6" '
                   f'fill="{fill}" stroke="{_BLACK}" stroke-width="1.5"{style}/>')

    # The header: pins 1..40 in two columns, odd on the left.
    hx, hy, step = 60.0, 120.0, 22.0

    def pin_xy(pin: int) -> tuple[float, float]:
        row, right = divmod(pin - 1, 2)
        return hx + (26 if right else 0), hy + row * step

    def leave(pin: int) -> list[tuple[float, float]]:
        """A wire's first points from ``pin``: a left-column pin's wire drops half a row
        first, so it runs between the right column's pins instead of over one."""
        x, y = pin_xy(pin)
        return [(x, y)] if pin % 2 == 0 else [(x, y), (x, y + step / 2)]

    # The cable down the arm: everything left of it rides on the arm with the camera.
    cable_x, cable_w = 462.0, 26.0
    box(cable_x, 60, cable_w, 560, "#eeeeee", dash=True)
    back, out[:] = list(out), []
    box(hx - 40, hy - 50, 106, 20 * step + 62, "#e8f3e8")
    back, out[:] = back + out, []
    text(cable_x + cable_w / 2 + 4, 340, "8-core Cat5e cable, 3 m, down the arm: data + GND "
         "pair, GO, MUGGINS, UNDO, CONFIRM, encoder A, B", 10, rotate=True, anchor="middle")
    text(cable_x - 8, 636, "on the arm", 11, _GREY, "end")
    text(cable_x + cable_w + 8, 636, "at the board", 11, _GREY)
    text(hx + 13, hy - 28, "Raspberry Pi", 14, anchor="middle", weight="bold")
    text(hx + 13, hy - 12, "40-pin header", 11, anchor="middle")
    used = {HEADER_PIN[MOSI_GPIO]: "data", **{HEADER_PIN[g]: n for n, g in buttons.items()},
            **{HEADER_PIN[g]: n for n, g in ENCODER.items()}}
    for pin in range(1, 41):
        x, y = pin_xy(pin)
        fill = (_RED if POWER_PINS.get(pin) == "5V" else "#e67e22" if pin in POWER_PINS
                else _BLACK if pin in GROUND_PINS else _GREEN if pin in used else "#ccc")
        out.append(f'<circle class="pin" data-pin="{pin}" cx="{x:g}" cy="{y:g}" r="7" '
                   f'fill="{fill}" stroke="{_BLACK}" stroke-width="0.8"/>')
        text(x, y + 4, str(pin), 8, "#fff" if fill != "#ccc" else _BLACK, "middle")

    # The camera beside the Pi on the arm, on its short ribbon.
    box(140, 54, 300, 46, "#eef3fb")
    wires.append(f'<path d="M{hx + 66:g} 77h14" stroke="{_GREY}" stroke-width="8"/>')
    text(150, 72, "Camera Module 3, on the arm by the Pi", 12, weight="bold")
    text(150, 90, "200 mm cable; Pi 5: 22-pin Standard-Mini", 11)

    # Level shifter on the arm, by the Pi: powered from the Pi's 5V pin (a few mA).
    sx, sy = 300.0, 140.0
    box(sx, sy, 150, 120, "#f4f4f4")
    text(sx + 75, sy + 22, "74AHCT125", 14, anchor="middle", weight="bold")
    text(sx + 75, sy + 40, "3.3 V to 5 V data", 11, anchor="middle")
    text(sx + 8, sy + 66, "1A (pin 2)", 10)
    text(sx + 142, sy + 66, "1Y (pin 3)", 10, anchor="end")
    text(sx + 8, sy + 112, "GND 7", 9)
    data_pin = pin_xy(HEADER_PIN[MOSI_GPIO])
    data_y = sy + 62
    drop = leave(HEADER_PIN[MOSI_GPIO])[-1][1]
    wire([*leave(HEADER_PIN[MOSI_GPIO]), (hx + 120, drop), (hx + 120, data_y), (sx, data_y)],
         _GREEN)
    text(hx + 128, data_y - 6, pin_label(MOSI_GPIO), 12, _GREEN)
    text(hx + 128, data_y + 18, "SPI0 MOSI", 11, _GREEN)
    five = pin_xy(2)
    wire([five, (hx + 76, five[1]), (hx + 76, sy - 18), (sx + 120, sy - 18), (sx + 120, sy)],
         _RED)
    text(hx + 130, sy - 24, "VCC (pin 14): Pi 5V (pin 2)", 10, _RED)
    gnd = pin_xy(GROUND_PINS[0])
    py = 330.0
    ground_y = py + 50
    wire([gnd, (hx + 96, gnd[1]), (hx + 96, ground_y), (510, ground_y)], _BLACK)
    text(hx + 104, gnd[1] - 6, f"GND (pin {GROUND_PINS[0]})", 11)
    wire([(sx + 40, sy + 120), (sx + 40, ground_y)], _BLACK)
    dot(sx + 40, ground_y)

    # At the board: the resistor at DIN, the strip, the adapter and the capacitor.
    rx = 540.0
    wire([(sx + 150, data_y), (rx, data_y)], _GREEN)
    out.append(f'<rect x="{rx:g}" y="{data_y - 8:g}" width="50" height="16" fill="#fff" '
               f'stroke="{_BLACK}" stroke-width="1.5"/>')
    text(rx + 25, data_y - 14, "330 ohm, at DIN", 11, anchor="middle")
    strip_x = 720.0
    wire([(rx + 50, data_y), (strip_x, data_y)], _GREEN)
    box(strip_x, sy + 20, 250, 100, "#fdf2d6")
    text(strip_x + 125, sy + 44, "WS2812B strip, 60 LEDs/m", 13, anchor="middle", weight="bold")
    v5_y, g_y = sy + 84, sy + 104
    text(strip_x + 10, data_y + 4, "DIN", 11)
    text(strip_x + 10, v5_y + 4, "5V", 11, _RED)
    text(strip_x + 10, g_y + 4, "GND", 11)
    text(strip_x + 240, v5_y + 4, f"3 tracks x 122 = {leds} LEDs", 11, anchor="end")
    text(strip_x + 240, g_y + 4, "track 1 -> 2 -> 3, chained", 11, anchor="end")

    px = 510.0
    box(px, py, 130, 70, "#fde8e6")
    text(px + 65, py + 22, f"5 V {supply.supply_amps:g} A adapter", 12, anchor="middle",
         weight="bold")
    text(px + 65, py + 40, "closed, LEDs only", 10, anchor="middle")
    text(px + 65, py + 58, f"cap: {supply.budget_ma / 1000:g} A in software", 10,
         anchor="middle")
    text(px, py + 88, "fuse 10 A in the + lead", 11, _RED)
    plus_x, minus_x = strip_x - 40, strip_x - 20
    wire([(px + 130, py + 20), (plus_x, py + 20), (plus_x, v5_y), (strip_x, v5_y)], _RED)
    wire([(px + 130, ground_y), (minus_x, ground_y), (minus_x, g_y), (strip_x, g_y)], _BLACK)
    text(strip_x + 10, py + 14, "+5 V bus, 18 AWG", 11, _RED)
    text(minus_x + 8, ground_y + 16, "GND bus", 11)
    cap_y = g_y + 36
    out.append(f'<path d="M{plus_x:g} {cap_y:g}h6m0 -9v18m6 -18v18m0 -9h{minus_x - plus_x - 12:g}"'
               f' fill="none" stroke="{_BLACK}" stroke-width="2"/>')
    text(minus_x + 8, cap_y + 4, "1000 uF across 5 V and GND at the strip's input", 11)
    wire([(strip_x + 250, v5_y), (strip_x + 270, v5_y), (strip_x + 270, py + 20),
          (plus_x, py + 20)], _RED, dash=True)
    text(strip_x + 278, py - 10, "inject 5 V/GND at", 10, _RED)
    text(strip_x + 278, py + 4, "each track's start", 10, _RED)
    text(strip_x + 278, py + 18, "and the far end", 10, _RED)

    # Buttons at the board, to GND through the cable (pull-ups are the Pi's); the encoder.
    bx, by = 560.0, 470.0
    bus_x, bus_y = bx + 60, 450.0
    ground_pin = 34
    assert ground_pin in GROUND_PINS
    back_pin = pin_xy(ground_pin)
    text(bx - 40, by - 32, "Buttons: momentary, normally open, to GND (pull-ups are the Pi's)",
         12, _BLUE, weight="bold")
    for i, (name, gpio) in enumerate(buttons.items()):
        start = leave(HEADER_PIN[gpio])
        y = by + i * 30
        wire([*start, (hx + 150 + 6 * i, start[-1][1]), (hx + 150 + 6 * i, y), (bx, y)], _BLUE)
        out.append(f'<circle cx="{bx + 14:g}" cy="{y:g}" r="3" fill="{_BLUE}"/>'
                   f'<path d="M{bx + 10:g} {y - 10:g}h28" stroke="{_BLUE}" stroke-width="2"/>'
                   f'<circle class="return-contact" data-name="{name}" cx="{bx + 34:g}" '
                   f'cy="{y:g}" r="3" fill="{_BLUE}"/>')
        wire([(bx + 34, y), (bus_x, y), (bus_x, bus_y), (hx + 40, bus_y),
              (hx + 40, back_pin[1]), back_pin], _BLACK, role="return")
        if i:
            dot(bus_x, y)
        text(bus_x + 10, y + 5, f"{name.upper()}: {pin_label(gpio)}", 12, _BLUE)
    text(bus_x + 8, by + len(buttons) * 30 - 8, f"returns to GND (pin {ground_pin})", 10)
    ey = by + len(buttons) * 30 + 10
    for i, (name, gpio) in enumerate(ENCODER.items()):
        start = leave(HEADER_PIN[gpio])
        y = ey + i * 24
        wire([*start, (hx + 180 + 6 * i, start[-1][1]), (hx + 180 + 6 * i, y), (bx, y)],
             _GREY, dash=True)
        text(bx + 10, y + 5, f"{name} (optional): {pin_label(gpio)}; common to GND", 11, _GREY)

    # The shifter's other pins: nothing of a CMOS chip may float.
    legend = [
        "74AHCT125 (DIP-14), on the arm by the Pi; VCC from the Pi's 5V pin (a few mA):",
        "1A (pin 2) from GPIO10, 1Y (pin 3) down the cable; 1OE (pin 1) to GND: enabled",
        "2A, 3A, 4A (pins 5, 9, 12) to GND: unused inputs never float",
        "2OE, 3OE, 4OE (pins 4, 10, 13) to 5 V: unused outputs off",
        "0.1 uF across VCC and GND (pins 14, 7), at the chip",
    ]
    for i, line in enumerate(legend):
        text(20, 652 + i * 16, line, 11, weight="bold" if i == 0 else "normal")

    text(20, 24, "cribbage-board wiring: the installed build (backend \"spi\")", 18,
         weight="bold")
    text(20, 44, "Pi 3, 4 and 5 alike. Never power the strip from the Pi's 5V pins; the Pi "
         "keeps its own supply.", 12)
    text(20, 745, "Pi 5 with backend \"pi5_pio\" instead: move the data wire to "
         f"{pin_label(18)}.", 12, _GREY)
    height, width = 760, 1200
    head = (f'<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" '
            f'width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
            'font-family="DejaVu Sans, Arial, sans-serif">\n'
            '<title>cribbage-board wiring diagram</title>\n'
            f'<rect width="{width}" height="{height}" fill="#fff"/>')
    return head + "\n" + "\n".join(back + wires + out) + "\n</svg>\n"


def main(argv: list[str]) -> int:
    """Writes the diagram to ``argv[0]`` (default ``hardware/wiring.svg``)."""
    path = Path(argv[0]) if argv else WIRING_SVG
    path.write_text(wiring_svg())
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
