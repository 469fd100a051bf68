"""A 1:1 drilling and cutting template for the LED pegboard, as SVG in millimetres.

Holes sit over LEDs, so the hole pitch along a row is the strip's LED pitch
(16.67 mm on a 60 LED/m strip) and there are no wider gaps between groups of
five as on a wooden board (the template draws a tick between groups instead).
The rows are the streets of ``hardware.layout``: holes 1-120 of each track in
4 streets of 30 running right, left, right, left, the tracks of a street in
adjacent rows, the start holes before the first street's hole 1 and the game
holes after the last street's hole 120. Each hole is labelled with the LED the
layout puts under it, so the same template checks the wiring.

Where two LEDs that follow each other on the strip are not neighbours in a row,
the strip is cut there and joined with three wires (5 V, data, GND): the
template draws each strip piece with its LED range, and each joint as a dashed
line. A band at the board's left end holds the four buttons, the optional
encoder and the footprint of the small box under the board for the 330 ohm
resistor, the 1000 uF capacitor and the terminals of the cable and the LED
adapter, next to the strip's DIN (docs/building.md, "Where everything goes"). Print it at 100 % (the 100 mm scale bar checks it) on a plotter, or tiled
onto A4 or Letter pages (``hardware.template_pages``), and drill ``hole_mm``
holes through the marks.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from hardware.layout import Layout, Streets

__all__ = ["Template", "Hole", "Piece", "Control", "Box", "make_template", "STRIP_PITCH_MM",
           "LEDS_PER_METRE", "STRIP_WIDTH_MM", "ROW_GAP_MM", "BUTTON_MM", "ENCODER_MM",
           "BOX_MM"]

LEDS_PER_METRE = 60
STRIP_PITCH_MM = 1000 / LEDS_PER_METRE
STRIP_WIDTH_MM = 10.0  # a 5050 LED strip's PCB
#: The least air between two strips in adjacent rows: their edges must not touch or ride up.
ROW_GAP_MM = 2.0
_MARGIN_MM = 30.0
#: A 24 mm arcade button's mounting hole (the guide's parts list); an EC11 encoder's bushing.
BUTTON_MM = 24.0
ENCODER_MM = 7.0
#: The controls' band at the board's left end: one column of this width per column of
#: controls; each control takes this much of the column's height.
_BAND_MM = 40.0
_CONTROL_STEP_MM = 36.0
#: The box under the board for the resistor, capacitor and terminals (w x h, mm): the
#: parts list's "about 35 x 70 x 25 mm".
BOX_MM = (35.0, 70.0)
_CONTROLS = (("GO", BUTTON_MM), ("MUGGINS", BUTTON_MM), ("UNDO", BUTTON_MM),
             ("CONFIRM", BUTTON_MM), ("encoder", ENCODER_MM))


@dataclass(frozen=True)
class Hole:
    """One hole: its track and hole number, the LED under it, its centre in mm."""

    track: int
    hole: int
    led: int
    x: float
    y: float


@dataclass(frozen=True)
class Piece:
    """One straight piece of strip: its first and last LED, in strip order."""

    first_led: int
    last_led: int

    @property
    def leds(self) -> int:
        return abs(self.last_led - self.first_led) + 1


@dataclass(frozen=True)
class Control:
    """A button's or the encoder's hole: its name, centre and diameter (mm)."""

    name: str
    x: float
    y: float
    diameter_mm: float


@dataclass(frozen=True)
class Box:
    """The footprint, under the board, of the box at the strip's DIN (mm)."""

    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True)
class Template:
    """Where every hole goes, the strip's pieces, and the board's size (mm)."""

    layout: Layout
    streets: Streets
    pitch_mm: float
    track_pitch_mm: float
    hole_mm: float
    holes: tuple[Hole, ...]
    pieces: tuple[Piece, ...]
    width_mm: float
    height_mm: float
    controls: tuple[Control, ...] = ()
    box: Box | None = None

    def svg(self) -> str:
        """The template as an SVG document sized in millimetres."""
        return _svg(self)


def make_template(layout: Layout, *, pitch_mm: float = STRIP_PITCH_MM,
                  hole_mm: float = 5.0, row_length: int | None = None) -> Template:
    """Lays out ``layout``'s holes in streets of ``row_length`` (the layout's own by default)
    at the strip's ``pitch_mm``."""
    if not 3.0 <= pitch_mm <= 100.0:
        raise ValueError(f"pitch {pitch_mm!r} mm is not an LED strip's (3-100 mm)")
    if pitch_mm < STRIP_WIDTH_MM + ROW_GAP_MM:
        raise ValueError(
            f"pitch {pitch_mm:g} mm puts the tracks' rows {pitch_mm:g} mm apart, but a "
            f"{STRIP_WIDTH_MM:g} mm wide strip needs at least "
            f"{STRIP_WIDTH_MM + ROW_GAP_MM:g} mm (its width and a {ROW_GAP_MM:g} mm gap): "
            "the strips would overlap")
    if not 1.0 <= hole_mm < pitch_mm:
        raise ValueError(f"hole {hole_mm!r} mm must be at least 1 mm and under the "
                         f"pitch {pitch_mm:.2f} mm")
    tracks = layout.tracks
    rule = Streets(layout.holes, row_length or layout.row_length)
    row_length = rule.row_length
    streets = rule.count
    track_pitch = pitch_mm
    street_gap = 2 * pitch_mm
    street_height = (tracks - 1) * track_pitch + street_gap
    last_street_rightward = (streets - 1) % 2 == 0

    def column(hole: int) -> int:
        if hole == 0:
            return 0
        if hole == layout.game_hole:
            return row_length + 1 if last_street_rightward else 0
        return 1 + rule.column_of(hole)

    def street_of(hole: int) -> int:
        if hole == 0:
            return 0
        if hole == layout.game_hole:
            return streets - 1
        return rule.street_of(hole)

    columns = row_length + (2 if last_street_rightward else 1)
    height = 2 * _MARGIN_MM + (streets - 1) * street_height + (tracks - 1) * track_pitch
    band, controls, box = _controls(height)
    holes = tuple(
        Hole(track, hole, layout.led(track, hole),
             band + _MARGIN_MM + column(hole) * pitch_mm,
             _MARGIN_MM + street_of(hole) * street_height + track * track_pitch)
        for track in range(tracks) for hole in range(layout.holes))
    width = band + 2 * _MARGIN_MM + (columns - 1) * pitch_mm
    return Template(layout, rule, pitch_mm, track_pitch, hole_mm, holes,
                    _pieces(holes, pitch_mm), width, height, controls, box)


def _controls(height: float) -> tuple[float, tuple[Control, ...], Box]:
    """The band left of the holes: the shifter box at the top (beside the strip's DIN, which
    enters at the top left), then the buttons and the encoder down the band, a new column
    where the board is too short for them. Returns the band's width, the holes and the box."""
    top, bottom = 12.0, height - 12.0
    box_w, box_h = BOX_MM
    box = Box(_BAND_MM / 2 - box_w / 2, top, box_w, box_h)
    y, column = top + box_h + _CONTROL_STEP_MM / 2 + 4, 0
    controls: list[Control] = []
    for name, diameter in _CONTROLS:
        if y + _CONTROL_STEP_MM / 2 > bottom:
            y, column = top + _CONTROL_STEP_MM / 2, column + 1
        controls.append(Control(name, _BAND_MM / 2 + column * _BAND_MM, y, diameter))
        y += _CONTROL_STEP_MM
    return (column + 1) * _BAND_MM, tuple(controls), box


def _pieces(holes: tuple[Hole, ...], pitch: float) -> tuple[Piece, ...]:
    """Runs of consecutive LEDs that are neighbours in one row: one piece of strip each."""
    by_led = sorted(holes, key=lambda h: h.led)
    pieces: list[Piece] = []
    first = previous = by_led[0]
    for hole in by_led[1:]:
        neighbour = (hole.led == previous.led + 1 and abs(hole.y - previous.y) < 1e-6
                     and abs(abs(hole.x - previous.x) - pitch) < 1e-6)
        if not neighbour:
            pieces.append(Piece(first.led, previous.led))
            first = hole
        previous = hole
    pieces.append(Piece(first.led, previous.led))
    return tuple(pieces)


def _svg(t: Template) -> str:
    return "\n".join([
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{t.width_mm:.2f}mm" '
        f'height="{t.height_mm:.2f}mm" viewBox="0 0 {t.width_mm:.2f} {t.height_mm:.2f}" '
        'font-family="DejaVu Sans, Arial, sans-serif">',
        f'<title>cribbage-board drilling template: {len(t.holes)} holes, pitch '
        f'{t.pitch_mm:.3f} mm</title>',
        *drawing(t), "</svg>"]) + "\n"


def drawing(t: Template) -> list[str]:
    """The template's SVG elements in board millimetres, without the document around them
    (the plotter sheet wraps them once; each A4 or Letter page wraps them shifted)."""
    layout = t.layout
    at = {h.led: h for h in t.holes}
    out: list[str] = [
        f'<rect x="0.5" y="0.5" width="{t.width_mm - 1:.2f}" height="{t.height_mm - 1:.2f}" '
        'fill="#fff" stroke="#000" stroke-width="0.5"/>',
    ]
    out += _control_marks(t)
    # Strip pieces under the holes, and the wire joints between them.
    half = t.pitch_mm / 2
    for n, piece in enumerate(t.pieces):
        a, b = at[piece.first_led], at[piece.last_led]
        x0, x1 = min(a.x, b.x) - half, max(a.x, b.x) + half
        out.append(f'<rect class="strip" x="{x0:.2f}" y="{a.y - STRIP_WIDTH_MM / 2:.2f}" '
                   f'width="{x1 - x0:.2f}" height="{STRIP_WIDTH_MM:.2f}" fill="#f3ead8" '
                   'stroke="#b39b6b" stroke-width="0.3"/>')
        for x in (x0, x1):  # cut lines
            out.append(f'<line x1="{x:.2f}" y1="{a.y - 7:.2f}" x2="{x:.2f}" y2="{a.y + 7:.2f}" '
                       'stroke="#c00" stroke-width="0.3" stroke-dasharray="1 0.7"/>')
        if n + 1 < len(t.pieces):
            c = at[t.pieces[n + 1].first_led]
            out.append(f'<polyline class="joint" points="{b.x:.2f},{b.y:.2f} '
                       f'{c.x:.2f},{c.y:.2f}" fill="none" stroke="#06c" stroke-width="0.35" '
                       'stroke-dasharray="2 1.2"/>')
    first = at[t.pieces[0].first_led]
    out.append(_text(first.x - t.pitch_mm * 0.9, first.y - 6, "DIN", 2.6, "#06c", "end"))
    # Holes: a circle of the drill's size, a centre cross, the LED index under it.
    for h in t.holes:
        r = t.hole_mm / 2
        out.append(f'<circle class="hole" cx="{h.x:.2f}" cy="{h.y:.2f}" r="{r:.2f}" '
                   'fill="none" stroke="#000" stroke-width="0.25"/>')
        out.append(f'<path d="M{h.x - 1:.2f} {h.y:.2f}h2M{h.x:.2f} {h.y - 1:.2f}v2" '
                   'stroke="#000" stroke-width="0.15"/>')
        out.append(_text(h.x, h.y + r + 2.2, str(h.led), 1.6, "#777"))
        if h.track == 0 and 0 < h.hole < layout.game_hole and h.hole % 5 == 0:
            out.append(_text(h.x, h.y - r - 1.6, str(h.hole), 2.4, "#000"))
    # Start and game labels, and the skunk lines of a 121 board.
    for hole, word in ((0, "start"), (layout.game_hole, "game")):
        h = next(x for x in t.holes if x.track == 0 and x.hole == hole)
        out.append(_text(h.x, h.y - t.hole_mm / 2 - 4.5, word, 2.6, "#000"))
    if layout.game_hole == 121:
        for line, word in ((61, "double skunk"), (91, "skunk")):
            ends = [h for h in t.holes if h.hole == line]
            # The line sits before the hole, on the side pegging comes from.
            rightward = t.streets.rightward(t.streets.street_of(line))
            x = ends[0].x + (-half if rightward else half)
            y0, y1 = min(h.y for h in ends) - 5, max(h.y for h in ends) + 5
            out.append(f'<line x1="{x:.2f}" y1="{y0:.2f}" x2="{x:.2f}" y2="{y1:.2f}" '
                       'stroke="#000" stroke-width="0.6"/>')
            out.append(_text(x, y1 + 3.5, word, 2.2, "#000"))
    # A scale bar and what the template is.
    y = t.height_mm - 9
    out.append(f'<path d="M10 {y:.2f}h100M10 {y - 2:.2f}v4M110 {y - 2:.2f}v4" stroke="#000" '
               'stroke-width="0.4" fill="none"/>')
    out.append(_text(60, y - 2.5, "100 mm: print at 100 %", 2.6, "#000"))
    counts = "+".join(str(p.leds) for p in t.pieces[: 4]) + ("+..." if len(t.pieces) > 4 else "")
    out.append(_text(120, y + 1, (
        f"{layout.kind}, {layout.tracks} tracks x {layout.holes} holes = {len(t.holes)} holes; "
        f"pitch {t.pitch_mm:.3f} mm ({1000 / t.pitch_mm:.0f} LEDs/m); drill {t.hole_mm:g} mm; "
        f"board {t.width_mm:.0f} x {t.height_mm:.0f} mm; strip in {len(t.pieces)} pieces "
        f"({counts} LEDs), dashed: wire joints"), 2.6, "#000", "start"))
    return out


def _control_marks(t: Template) -> list[str]:
    """The buttons' and encoder's holes (drilled through, marked like the holes) and the
    shifter box's footprint under the board (dashed: not cut)."""
    out: list[str] = []
    if t.box is not None:
        b = t.box
        out.append(f'<rect class="box" x="{b.x:.2f}" y="{b.y:.2f}" width="{b.width:.2f}" '
                   f'height="{b.height:.2f}" fill="none" stroke="#06c" stroke-width="0.35" '
                   'stroke-dasharray="2 1.2"/>')
        for n, line in enumerate(("box under", "the board:", "330 ohm,", "1000 uF,",
                                  "terminals:", "cable from", "the arm, DC", "socket")):
            out.append(_text(b.x + b.width / 2, b.y + 8 + n * 4, line, 2.4, "#06c"))
    for c in t.controls:
        r = c.diameter_mm / 2
        out.append(f'<circle class="control" data-name="{escape(c.name)}" cx="{c.x:.2f}" '
                   f'cy="{c.y:.2f}" r="{r:.2f}" fill="none" stroke="#000" stroke-width="0.3"/>')
        out.append(f'<path d="M{c.x - 2:.2f} {c.y:.2f}h4M{c.x:.2f} {c.y - 2:.2f}v4" '
                   'stroke="#000" stroke-width="0.2"/>')
        out.append(_text(c.x, c.y - r - 1.5, c.name, 2.8, "#000"))
        out.append(_text(c.x, c.y + r + 3.2, f"drill {c.diameter_mm:g} mm", 2.2, "#777"))
    return out


def _text(x: float, y: float, text: str, size: float, colour: str,
          anchor: str = "middle") -> str:
    return (f'<text x="{x:.2f}" y="{y:.2f}" font-size="{size}" fill="{colour}" '
            f'text-anchor="{anchor}">{escape(text)}</text>')
