"""The LED board without LEDs: a picture (PNG) and a terminal view.

The simulator is a strip backend like the others: it keeps the last frame
pushed to it and draws it on a wooden board laid out the way players know
it: each track's 120 scoring holes in streets of 30 (groups of 5) running
right, left, right, left, the start holes where the first street begins and
the game holes where the last street ends. The printed marks of a real board
are added (hole numbers, the skunk and double-skunk lines, "start" and
"game"), and each row's first and last LED index is written in the margin,
so the picture also checks a layout's wiring.

LED levels are linear light (PWM duty); the picture converts them to sRGB,
so a back peg at a quarter of the light looks as bright on screen as on the board.
"""

from __future__ import annotations

import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import numpy as np
import numpy.typing as npt

from hardware.layout import Layout, Streets
from hardware.palette import Palette, to_display, to_linear
from hardware.render import occupants
from hardware.state import BoardState
from hardware.strip import check_frame

__all__ = ["SimulatorStrip", "BoardGeometry", "BoardLabel", "PNG_OPTIONS"]

#: OpenCV's PNG options for the pictures: smallest files (the wood grain is costly).
PNG_OPTIONS = [2**4, 9]  # cv2.IMWRITE_PNG_COMPRESSION, 9; no cv2 import at module load

# Picture metrics, in pixels.
_PITCH = 20
_GROUP_GAP = 9
_STREET_GAP = 30
_LEFT = 112
_RIGHT = 64
_TOP = 58
_HOLE_R = 5
_LED_R = 7

# Colours (BGR for OpenCV).
_BACKGROUND = (28, 36, 44)
_WOOD = (74, 128, 176)
_WOOD_DARK = (52, 95, 139)
_GROOVE = (44, 78, 118)
_HOLE = (22, 30, 38)
_INK = (24, 34, 46)
_FAINT_INK = (56, 82, 112)
_LINE_SKUNK = (0, 60, 200)
_LINE_DOUBLE = (120, 40, 150)


@dataclass(frozen=True)
class BoardLabel:
    """One printed word or number on the picture, where it is anchored.

    The words are kept apart from the pixels because each OpenCV build rasterises
    its Hershey glyphs its own way (4.x as strokes, 5.x as smooth outlines, and
    5.1 differently again): a check of the picture judges the pegs, holes and
    lines by pixels and the labels by what they say and where they stand.
    """

    text: str
    x: int
    y: int
    colour: tuple[int, int, int]


@dataclass(frozen=True)
class BoardGeometry:
    """Where each hole of a layout sits in the picture, and how streets run."""

    layout: Layout
    row_length: int

    @property
    def rule(self) -> Streets:
        return Streets(self.layout.holes, self.row_length)

    @property
    def streets(self) -> int:
        return self.rule.count

    def street_of(self, hole: int) -> int:
        return self.rule.street_of(hole)

    def rightward(self, street: int) -> bool:
        return Streets.rightward(street)

    def column_x(self, column: int) -> float:
        return _LEFT + column * _PITCH + (column // 5) * _GROUP_GAP

    def row_y(self, street: int, track: int) -> float:
        return _TOP + street * (self.layout.tracks * _PITCH + _STREET_GAP) + track * _PITCH

    def column_of(self, hole: int) -> int:
        return self.rule.column_of(hole)

    def end_x(self, at_right: bool) -> float:
        if at_right:
            return self.column_x(self.row_length - 1) + 2.2 * _PITCH
        return self.column_x(0) - 2.2 * _PITCH

    def position(self, track: int, hole: int) -> tuple[float, float]:
        """Returns the centre of ``hole`` on ``track``, in pixels."""
        game = self.layout.game_hole
        if hole == 0:
            return self.end_x(False), self.row_y(0, track)
        if hole == game:
            last = self.streets - 1
            return self.end_x(self.rightward(last)), self.row_y(last, track)
        return self.column_x(self.column_of(hole)), self.row_y(self.street_of(hole), track)

    def size(self) -> tuple[int, int]:
        width = int(self.column_x(self.row_length - 1) + _RIGHT + 2 * _PITCH)
        height = int(self.row_y(self.streets - 1, self.layout.tracks - 1) + 40 + 26 * 4)
        return width, height


class SimulatorStrip:
    """A strip that draws the board instead of lighting it; works on any machine.

    Nothing to wire. ``png`` (a path) rewrites that picture on every ``show``;
    ``terminal`` prints the board to ``stream`` on every ``show``. Either way
    ``to_png``, ``to_image`` and ``to_terminal`` draw the last frame on demand.
    """

    def __init__(
        self,
        layout: Layout,
        *,
        png: Path | str | None = None,
        terminal: bool = False,
        stream: TextIO | None = None,
        row_length: int | None = None,
    ) -> None:
        self.layout = layout
        self.geometry = BoardGeometry(layout, row_length or layout.row_length)
        self._frame: npt.NDArray[np.uint8] = np.zeros((layout.n_leds, 3), dtype=np.uint8)
        self._png = Path(png) if png is not None else None
        self._terminal = terminal
        self._stream = stream
        self.frames_shown = 0
        #: The words and numbers of the last ``to_image``, in drawing order.
        self.labels: tuple[BoardLabel, ...] = ()

    @classmethod
    def open(cls, layout: Layout, **options: Any) -> SimulatorStrip:
        """Opens a simulator for ``layout``."""
        return cls(layout, **options)

    @property
    def n(self) -> int:
        return self.layout.n_leds

    @property
    def frame(self) -> npt.NDArray[np.uint8]:
        """The last frame shown (read-only)."""
        view = self._frame.view()
        view.setflags(write=False)
        return view

    def show(self, frame: npt.NDArray[np.uint8]) -> None:
        self._frame = check_frame(frame, self.n).copy()
        self.frames_shown += 1
        if self._png is not None:
            self.to_png(self._png)
        if self._terminal:
            stream = self._stream or sys.stdout
            stream.write("\x1b[H" + self.to_terminal() + "\n")
            stream.flush()

    def close(self) -> None:
        self._frame = np.zeros_like(self._frame)

    # -- picture ---------------------------------------------------------

    def to_image(
        self, state: BoardState | None = None, *, palette: Palette | None = None, title: str = "",
        led_numbers: bool = False, labels: bool = True,
    ) -> npt.NDArray[np.uint8]:
        """Draws the last frame on the board; returns a BGR image.

        With ``state`` the picture also names the sides with their scores,
        puts the lines where the game's rules have them, and splits a hole
        that several sides share (on the LEDs those alternate). ``led_numbers``
        writes each row's first and last LED index in the margins, for checking
        the wiring; players never need them. ``labels=False`` leaves every word
        and number off the picture (tests compare the rest by pixels); either
        way ``self.labels`` lists them afterwards.
        """
        import cv2  # the picture needs OpenCV; pushing frames does not

        geo = self.geometry
        layout = self.layout
        width, height = geo.size()
        img: npt.NDArray[np.uint8] = np.empty((height, width, 3), dtype=np.uint8)
        img[:] = _BACKGROUND
        # Wood with a faint, fixed grain: the same picture every time.
        y = np.arange(height - 12)[:, None]
        x = np.arange(width - 12)[None, :]
        grain = 6.0 * np.sin(y / 3.1 + 2.0 * np.sin(x / 97.0)) + 4.0 * np.sin(y / 11.7 + x / 340.0)
        wood = np.asarray(_WOOD, dtype=np.float64)[None, None, :] + grain[..., None]
        img[6:-6, 6:-6] = np.clip(wood, 0, 255).astype(np.uint8)
        cv2.rectangle(img, (6, 6), (width - 7, height - 7), _WOOD_DARK, 2)

        tracks = layout.tracks
        target = state.target if state is not None else layout.game_hole
        skunk = state.skunk if state is not None else (91 if layout.game_hole == 121 else None)
        double = (
            state.double_skunk if state is not None else (61 if layout.game_hole == 121 else None)
        )

        def pt(p: tuple[float, float]) -> tuple[int, int]:
            return int(round(p[0])), int(round(p[1]))

        drawn: list[BoardLabel] = []

        def text(
            s: str,
            at: tuple[float, float],
            scale: float = 0.38,
            colour: tuple[int, int, int] = _INK,
            thick: int = 1,
            centre: bool = True,
        ) -> None:
            drawn.append(BoardLabel(s, *pt(at), colour))
            if not labels:
                return
            (w, h), _ = cv2.getTextSize(s, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
            x0 = at[0] - w / 2 if centre else at[0]
            cv2.putText(
                img,
                s,
                pt((x0, at[1] + h / 2)),
                cv2.FONT_HERSHEY_SIMPLEX,
                scale,
                colour,
                thick,
                cv2.LINE_AA,
            )

        # Grooves joining each street to the next at the turning end, as on a wooden board.
        half = _PITCH * 0.5
        for street in range(geo.streets):
            x0 = geo.column_x(0) - half - 4
            x1 = geo.column_x(geo.row_length - 1) + half + 4
            y0 = geo.row_y(street, 0) - half - 2
            y1 = geo.row_y(street, tracks - 1) + half + 2
            cv2.rectangle(img, pt((x0, y0)), pt((x1, y1)), _GROOVE, 1, cv2.LINE_AA)
            # Hole numbers every 5, in the gap above the street.
            for hole in geo.rule.holes_of(street):
                if hole % 5 == 0:
                    text(str(hole), (geo.column_x(geo.column_of(hole)), y0 - 8), 0.34, _FAINT_INK)
            if street + 1 < geo.streets:
                at_right = geo.rightward(street)
                xe = x1 if at_right else x0
                ym0 = geo.row_y(street, tracks - 1) + half + 2
                ym1 = geo.row_y(street + 1, 0) - half - 2
                xo = xe + (10 if at_right else -10)
                cv2.line(img, pt((xe, ym0 - 4)), pt((xo, ym0 - 4)), _GROOVE, 1, cv2.LINE_AA)
                cv2.line(img, pt((xo, ym0 - 4)), pt((xo, ym1 + 4)), _GROOVE, 1, cv2.LINE_AA)
                cv2.line(img, pt((xo, ym1 + 4)), pt((xe, ym1 + 4)), _GROOVE, 1, cv2.LINE_AA)

        # The lines: a bar on the entry side of the first hole past the line, its
        # number just outside the bar.
        for line, colour in ((double, _LINE_DOUBLE), (skunk, _LINE_SKUNK)):
            if line is None or not 0 < line < layout.game_hole:
                continue
            street = geo.street_of(line)
            step = -1 if geo.rightward(street) else 1
            bx = geo.column_x(geo.column_of(line)) + step * (
                half + (2 if (line - 1) % 5 == 0 else 0)
            )
            by0 = geo.row_y(street, 0) - half - 1
            by1 = geo.row_y(street, tracks - 1) + half + 1
            cv2.line(img, pt((bx, by0)), pt((bx, by1)), colour, 3, cv2.LINE_AA)
            text(str(line), (bx + step * 13, (by0 + by1) / 2), 0.4, colour, 1)
        # Start and game holes' labels.
        start = geo.position(0, 0)
        text("start", (start[0], geo.row_y(0, 0) - half - 8), 0.36)
        game = geo.position(0, layout.game_hole)
        text("game", (game[0], geo.row_y(geo.streets - 1, 0) - half - 8), 0.36)
        if target != layout.game_hole:
            tx, ty = geo.position(0, target)
            text(f"game {target}", (tx, ty - half - 8), 0.36, _LINE_SKUNK)

        # LED index at each row's ends, for checking the wiring.
        for street in range(geo.streets if led_numbers else 0):
            street_holes = geo.rule.holes_of(street)
            first, last = street_holes[0], street_holes[-1]
            left_hole, right_hole = (first, last) if geo.rightward(street) else (last, first)
            for t in range(tracks):
                yy = geo.row_y(street, t)
                text(str(layout.led(t, left_hole)), (14, yy), 0.3, _FAINT_INK, centre=False)
                text(
                    str(layout.led(t, right_hole)),
                    (geo.column_x(geo.row_length - 1) + 2.4 * _PITCH + 8, yy),
                    0.3,
                    _FAINT_INK,
                    centre=False,
                )
        if led_numbers:
            text("LED", (14, _TOP - 26), 0.3, _FAINT_INK, centre=False)

        # Holes and LEDs, with a soft glow around lit ones.
        shared: dict[int, list[tuple[int, float]]] = {}
        palette = palette or Palette()
        if state is not None:
            shared = {
                led: here
                for led, here in occupants(state, layout, palette).items()
                if len({side for side, _ in here}) > 1
            }
        display = to_display(self._frame)
        glow = np.zeros_like(img)
        for t in range(tracks):
            for hole in range(layout.holes):
                led = layout.led(t, hole)
                if display[led].any():
                    rgb = display[led]
                    cv2.circle(
                        glow,
                        pt(geo.position(t, hole)),
                        _LED_R + 3,
                        (int(rgb[2]), int(rgb[1]), int(rgb[0])),
                        -1,
                        cv2.LINE_AA,
                    )
        halo = (cv2.GaussianBlur(glow, (0, 0), 4.0) * 0.55).astype(np.uint8)
        img = np.asarray(cv2.add(img, halo), dtype=np.uint8)
        for t in range(tracks):
            for hole in range(layout.holes):
                c = pt(geo.position(t, hole))
                led = layout.led(t, hole)
                rgb = display[led]
                cv2.circle(img, c, _HOLE_R + 1, _WOOD_DARK, -1, cv2.LINE_AA)
                cv2.circle(img, c, _HOLE_R, _HOLE, -1, cv2.LINE_AA)
                if led in shared:
                    here = shared[led]
                    span = 360.0 / len(here)
                    for k, (owner, level) in enumerate(here):
                        sc = to_display(to_linear(palette.side(owner)) * level)
                        cv2.ellipse(
                            img,
                            c,
                            (_LED_R, _LED_R),
                            0,
                            -90 + k * span,
                            -90 + (k + 1) * span,
                            (int(sc[2]), int(sc[1]), int(sc[0])),
                            -1,
                            cv2.LINE_AA,
                        )
                    cv2.circle(img, c, _LED_R + 1, (235, 235, 235), 1, cv2.LINE_AA)
                elif rgb.any():
                    cv2.circle(
                        img, c, _LED_R, (int(rgb[2]), int(rgb[1]), int(rgb[0])), -1, cv2.LINE_AA
                    )

        # Title and legend.
        n_on = int(self._frame.any(axis=1).sum())
        heading = (
            title
            or f"{layout.kind.replace('_', ' ')} layout, {tracks} track{'s' * (tracks != 1)}, "
            f"{layout.n_leds} LEDs"
        )
        text(heading, (_LEFT - 60, 22), 0.5, _INK, 1, centre=False)
        text(f"{n_on} lit", (width - 70, 22), 0.4, _FAINT_INK, centre=False)
        y0 = geo.row_y(geo.streets - 1, tracks - 1) + 40
        keys = [
            (colour, words.format(line))
            for line, colour, words in (
                (skunk, _LINE_SKUNK, "skunk line: a loser short of {} is skunked"),
                (double, _LINE_DOUBLE, "double skunk: short of {}"),
            )
            if line is not None
        ]
        for k, (colour, words) in enumerate(keys):
            yy = y0 + 24 * k
            cv2.line(
                img, pt((width - 330, yy - 7)), pt((width - 330, yy + 7)), colour, 3, cv2.LINE_AA
            )
            text(words, (width - 318, yy), 0.4, _INK, centre=False)
        if state is not None:
            for i, side in enumerate(state.sides):
                col = palette.side(i)
                bgr = (col[2], col[1], col[0])
                yy = y0 + 24 * i
                cv2.circle(img, pt((_LEFT - 40, yy)), _LED_R, bgr, -1, cv2.LINE_AA)
                where = "" if layout.shared else f"  track {layout.track_for_side(i) + 1}"
                note = ""
                if state.winner == i:
                    note = "  wins"
                elif state.turn == i:
                    note = "  to play"
                text(
                    f"{side.name}: {side.front}  (back peg {side.back}){where}{note}",
                    (_LEFT - 24, yy),
                    0.45,
                    _INK,
                    1,
                    centre=False,
                )
        self.labels = tuple(drawn)
        return img

    def picture_bytes(self, state: BoardState | None = None, *, jpeg: bool = False,
                      **options: Any) -> bytes:
        """``to_image(state)`` encoded as a PNG, or a JPEG when ``jpeg``."""
        import cv2

        ok, data = cv2.imencode(".jpg" if jpeg else ".png", self.to_image(state, **options),
                                [cv2.IMWRITE_JPEG_QUALITY, 92] if jpeg else PNG_OPTIONS)
        if not ok:
            raise OSError("could not encode the board picture")
        return bytes(data.tobytes())

    def to_png(self, path: Path | str, state: BoardState | None = None, **options: Any) -> Path:
        """Writes ``to_image(state)`` as a PNG at ``path`` (a JPEG when the name ends in
        ``.jpg`` or ``.jpeg``), atomically; returns the path.

        Atomic so that whoever watches the picture never opens half of one; not
        fsynced, because it is a view redrawn on every ``show`` (a power cut costs
        one picture, and syncing each frame to an SD card would wear it for nothing).
        The device's own files go through ``firmware.store.files.replace_file``.
        """
        data = self.picture_bytes(state, jpeg=Path(path).suffix.lower() in (".jpg", ".jpeg"),
                                  **options)
        target = Path(path)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or Path("."))
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return target

    # -- terminal --------------------------------------------------------

    def to_terminal(self, *, colour: bool = True) -> str:
        """Returns the board as text, one line per track and street.

        With ``colour`` lit holes are ANSI 24-bit coloured ``●`` and dark ones
        ``·``; without, bright holes (front pegs) are ``●``, dim ones (marks,
        back pegs) ``○`` and the text is plain.
        """
        geo = self.geometry
        layout = self.layout
        display = to_display(self._frame)
        # Pegs against marks and back pegs, whatever the global brightness.
        bright = 0.6 * int(display.max())

        def cell(t: int, hole: int) -> str:
            rgb = display[layout.led(t, hole)]
            if not rgb.any():
                return "·"
            if not colour:
                return "●" if rgb.max() >= bright else "○"
            return f"\x1b[38;2;{rgb[0]};{rgb[1]};{rgb[2]}m●\x1b[0m"

        lines = []
        for street in range(geo.streets):
            holes = list(geo.rule.holes_of(street))
            arrow = "→" if geo.rightward(street) else "←"
            for t in range(layout.tracks):
                by_column = {geo.column_of(h): h for h in holes}
                cells = []
                for col in range(geo.row_length):
                    if col and col % 5 == 0:
                        cells.append(" ")
                    cells.append(cell(t, by_column[col]) if col in by_column else " ")
                left = cell(t, 0) if street == 0 else " "
                last = geo.streets - 1
                game_left = street == last and not geo.rightward(last)
                game_right = street == last and geo.rightward(last)
                if game_left:
                    left = cell(t, layout.game_hole)
                right = cell(t, layout.game_hole) if game_right else " "
                lines.append(f"{left} {arrow} {''.join(cells)} {right}")
            lines.append("")
        return "\n".join(lines).rstrip("\n")
