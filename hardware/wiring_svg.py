"""The wiring diagram of the board the guide builds, drawn from the config's defaults.

``python -m hardware.wiring_svg`` rewrites ``hardware/wiring.svg``; the tests check
that the file is current and that every pin it names is the one the software uses:
the LED data line on SPI0 MOSI (GPIO10, the installed ``spi`` backend) through a
74AHCT125 level shifter, the four buttons from ``ButtonConfig``'s defaults, the
optional encoder, grounds joined, the strip on its own fused 5 V supply.
"""

from __future__ import annotations

import sys
from html import escape
from pathlib import Path

from hardware.buttons import ButtonConfig
from hardware.layout import per_side_tracks
from hardware.power import PowerBudget
from hardware.strips.spi import MOSI_GPIO

__all__ = ["HEADER_PIN", "wiring_svg", "WIRING_SVG", "ENCODER"]

WIRING_SVG = Path(__file__).with_name("wiring.svg")
#: BCM GPIO -> physical pin on the 40-pin header (the same on a Pi 2, 3, 4, 5 and Zero).
HEADER_PIN = {2: 3, 3: 5, 4: 7, 17: 11, 27: 13, 22: 15, 10: 19, 9: 21, 11: 23, 0: 27, 5: 29,
              6: 31, 13: 33, 19: 35, 26: 37, 14: 8, 15: 10, 18: 12, 23: 16, 24: 18, 25: 22,
              8: 24, 7: 26, 1: 28, 12: 32, 16: 36, 20: 38, 21: 40}
POWER_PINS = {1: "3V3", 17: "3V3", 2: "5V", 4: "5V"}
GROUND_PINS = (6, 9, 14, 20, 25, 30, 34, 39)
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
             anchor: str = "start", weight: str = "normal") -> None:
        out.append(f'<text x="{x:g}" y="{y:g}" font-size="{size}" fill="{colour}" '
                   f'text-anchor="{anchor}" font-weight="{weight}">{escape(s)}</text>')

    def wire(points: list[tuple[float, float]], colour: str, dash: bool = False) -> None:
        pts = " ".join(f"{x:g},{y:g}" for x, y in points)
        style = ' stroke-dasharray="6 4"' if dash else ""
        wires.append(f'<polyline points="{pts}" fill="none" stroke="{colour}" '
                     f'stroke-width="2.5"{style}/>')

    def box(x: float, y: float, w: float, h: float, fill: str = "#fff") -> None:
        out.append(f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" rx="6" '
                   f'fill="{fill}" stroke="{_BLACK}" stroke-width="1.5"/>')

    # The header: pins 1..40 in two columns, odd on the left.
    hx, hy, step = 60.0, 120.0, 22.0

    def pin_xy(pin: int) -> tuple[float, float]:
        row, right = divmod(pin - 1, 2)
        return hx + (26 if right else 0), hy + row * step

    box(hx - 40, hy - 50, 106, 20 * step + 62, "#e8f3e8")
    back, out[:] = list(out), []
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

    # Level shifter, resistor, strip.
    sx, sy = 300.0, 120.0
    box(sx, sy, 150, 120, "#f4f4f4")
    text(sx + 75, sy + 22, "74AHCT125", 14, anchor="middle", weight="bold")
    text(sx + 75, sy + 40, "3.3 V to 5 V data", 11, anchor="middle")
    text(sx + 8, sy + 66, "1A", 11)
    text(sx + 142, sy + 66, "1Y", 11, anchor="end")
    text(sx + 8, sy + 90, "VCC (pin 14)", 10)
    text(sx + 8, sy + 108, "GND, 1OE (pins 7, 1)", 10)
    data_pin = pin_xy(HEADER_PIN[MOSI_GPIO])
    wire([data_pin, (hx + 120, data_pin[1]), (hx + 120, sy + 62), (sx, sy + 62)], _GREEN)
    text(hx + 128, sy + 56, pin_label(MOSI_GPIO), 12, _GREEN)
    text(hx + 128, sy + 80, "SPI0 MOSI", 11, _GREEN)
    rx = sx + 200
    wire([(sx + 150, sy + 62), (rx, sy + 62)], _GREEN)
    out.append(f'<rect x="{rx:g}" y="{sy + 54:g}" width="50" height="16" fill="#fff" '
               f'stroke="{_BLACK}" stroke-width="1.5"/>')
    text(rx + 25, sy + 48, "330 ohm", 11, anchor="middle")
    strip_x = 720.0
    wire([(rx + 50, sy + 62), (strip_x, sy + 62)], _GREEN)
    box(strip_x, sy + 20, 250, 100, "#fdf2d6")
    text(strip_x + 125, sy + 44, "WS2812B strip, 60 LEDs/m", 13, anchor="middle", weight="bold")
    text(strip_x + 10, sy + 66, "DIN", 11)
    text(strip_x + 10, sy + 88, "5V", 11, _RED)
    text(strip_x + 10, sy + 108, "GND", 11)
    text(strip_x + 240, sy + 88, f"3 tracks x 122 = {leds} LEDs", 11, anchor="end")
    text(strip_x + 240, sy + 108, "track 1 -> 2 -> 3, chained", 11, anchor="end")

    # Power: supply, fuse, capacitor, injection; grounds joined.
    px, py = 300.0, 340.0
    box(px, py, 150, 70, "#fde8e6")
    text(px + 75, py + 24, f"5 V {supply.supply_amps:g} A supply", 13, anchor="middle",
         weight="bold")
    text(px + 75, py + 44, "LEDs only", 11, anchor="middle")
    text(px + 75, py + 60, f"cap: {supply.budget_ma / 1000:g} A in software", 10,
         anchor="middle")
    wire([(px + 150, py + 20), (strip_x - 40, py + 20), (strip_x - 40, sy + 84),
          (strip_x, sy + 84)], _RED)
    text(px + 165, py + 14, "+5 V, fuse 10 A, 18 AWG bus", 11, _RED)
    wire([(px + 150, py + 50), (strip_x - 20, py + 50), (strip_x - 20, sy + 104),
          (strip_x, sy + 104)], _BLACK)
    text(px + 165, py + 66, "GND bus", 11)
    cx = strip_x - 90
    out.append(f'<path d="M{cx:g} {py + 20:g}v10m-10 0h20m-20 6h20m-10 0v14" fill="none" '
               f'stroke="{_BLACK}" stroke-width="2"/>')
    text(cx + 14, py + 36, "1000 uF", 10)
    wire([(strip_x + 250, sy + 84), (strip_x + 270, sy + 84), (strip_x + 270, py + 20),
          (strip_x - 40, py + 20)], _RED, dash=True)
    text(strip_x + 278, py + 10, "inject 5 V/GND at", 10, _RED)
    text(strip_x + 278, py + 24, "each track's start", 10, _RED)
    text(strip_x + 278, py + 38, "and the far end", 10, _RED)
    # Shifter power from the LED supply; Pi GND joined to the supply's GND.
    wire([(sx + 120, sy + 120), (sx + 120, py)], _RED)
    text(sx + 126, sy + 150, "VCC: LED 5 V", 10, _RED)
    wire([(sx + 40, sy + 120), (sx + 40, py)], _BLACK)
    text(sx + 34, sy + 150, "GND", 10, anchor="end")
    gnd = pin_xy(GROUND_PINS[0])
    wire([gnd, (hx + 96, gnd[1]), (hx + 96, py + 50), (px, py + 50)], _BLACK)
    text(hx + 104, gnd[1] - 6, f"GND (pin {GROUND_PINS[0]})", 11)

    # Buttons to GND, internal pull-ups; the optional encoder.
    bx, by = 330.0, 480.0
    text(bx, by - 14, "Buttons: momentary, normally open, to GND (pull-ups are the Pi's)", 12,
         _BLUE, weight="bold")
    for i, (name, gpio) in enumerate(buttons.items()):
        pin_at = pin_xy(HEADER_PIN[gpio])
        y = by + 10 + i * 30
        wire([pin_at, (hx + 150 + 6 * i, pin_at[1]), (hx + 150 + 6 * i, y), (bx, y)], _BLUE)
        out.append(f'<circle cx="{bx + 14:g}" cy="{y:g}" r="3" fill="{_BLUE}"/>'
                   f'<path d="M{bx + 10:g} {y - 10:g}h28" stroke="{_BLUE}" stroke-width="2"/>'
                   f'<circle cx="{bx + 34:g}" cy="{y:g}" r="3" fill="{_BLUE}"/>')
        wire([(bx + 34, y), (bx + 60, y)], _BLACK)
        text(bx + 70, y + 5, f"{name.upper()}: {pin_label(gpio)}", 12, _BLUE)
    ey = by + 10 + len(buttons) * 30 + 10
    for i, (name, gpio) in enumerate(ENCODER.items()):
        pin_at = pin_xy(HEADER_PIN[gpio])
        y = ey + i * 24
        wire([pin_at, (hx + 180 + 6 * i, pin_at[1]), (hx + 180 + 6 * i, y), (bx, y)],
             _GREY, dash=True)
        text(bx + 10, y + 5, f"{name} (optional): {pin_label(gpio)}; common to GND, "
             "a KY-040's + to 3V3 (pin 1)", 11, _GREY)

    text(20, 24, "cribbage-board wiring: the installed build (backend \"spi\")", 18,
         weight="bold")
    text(20, 44, "Pi 3, 4 and 5 alike. Never power the strip from the Pi's 5V pins; the Pi "
         "keeps its own supply.", 12)
    text(20, 715, "Pi 5 with backend \"pi5_pio\" instead: move the data wire to "
         f"{pin_label(18)}.", 12, _GREY)
    height, width = 730, 1200
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
