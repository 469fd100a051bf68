"""The 1:1 drilling template tiled onto home printer paper (A4 or Letter), or one plotter sheet.

The board's template (``hardware.template``) is 600 x 293 mm, larger than A3, so a builder
without a plotter prints it in pieces. Each page is the paper itself in millimetres (printed
at "actual size" / 100 % it comes out 1:1) and shows one window of the template, the windows
overlapping by ``OVERLAP_MM`` so that pages can be lined up and taped: in every overlap sit
alignment marks (a circle and cross) drawn in board millimetres, so the same mark appears on
both pages that share it. A grey frame shows each window's edge; a 50 mm bar in the margin
checks the printer's scale, and the margin names the page, its row and column, and its
neighbours. The orientation that needs fewer pages is chosen. ``printable_html`` puts
every page in one HTML file, so a browser prints them all in one job, each on its sheet.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from hardware.template import Template, drawing

__all__ = ["PAPERS", "PAPER_NAMES", "OVERLAP_MM", "MARGIN_MM", "Page", "tile",
           "printable_html"]

#: Paper sizes, short side x long side, in mm.
PAPERS = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
PAPER_NAMES = {"a4": "A4", "letter": "Letter", "plotter": "plotter"}
#: Blank border every home printer can leave (most need 3-6 mm), holding the page's labels.
MARGIN_MM = 15.0
#: How far neighbouring windows share the board: room for the marks and for the tape.
OVERLAP_MM = 20.0


@dataclass(frozen=True)
class Page:
    """One printed sheet: its number (from 1), row and column (from 1), the window of the
    board it shows (``x0``, ``y0``, ``width``, ``height`` in board mm), its SVG and the
    paper it is for ("a4", "letter", "plotter")."""

    number: int
    row: int
    column: int
    x0: float
    y0: float
    width: float
    height: float
    svg: str
    paper: str


def tile(template: Template, paper: str) -> tuple[Page, ...]:
    """Tiles ``template`` onto ``paper`` ("a4", "letter"), or one sheet for "plotter"."""
    if paper == "plotter":
        return (Page(1, 1, 1, 0.0, 0.0, template.width_mm, template.height_mm,
                     template.svg(), paper),)
    if paper not in PAPERS:
        raise ValueError(f"paper {paper!r} is not one the template prints on: use "
                         f"{', '.join(PAPER_NAMES)}")
    short, long = PAPERS[paper]
    sheet = min(((long, short), (short, long)),
                key=lambda size: _grid(template, size)[0] * _grid(template, size)[1])
    columns, rows = _grid(template, sheet)
    window = (sheet[0] - 2 * MARGIN_MM, sheet[1] - 2 * MARGIN_MM)
    marks = _alignment_marks(template, window, columns, rows)
    body = drawing(template)
    pages = []
    for row in range(rows):
        for column in range(columns):
            number = row * columns + column + 1
            x0 = column * (window[0] - OVERLAP_MM)
            y0 = row * (window[1] - OVERLAP_MM)
            svg = _page_svg(body + marks, sheet, (x0, y0), window, number=number,
                            count=rows * columns, row=row, column=column, rows=rows,
                            columns=columns, paper=PAPER_NAMES[paper])
            pages.append(Page(number, row + 1, column + 1, x0, y0, window[0], window[1], svg,
                              paper))
    return tuple(pages)


def printable_html(pages: Sequence[Page]) -> str:
    """Every page of an A4 or Letter tiling in one HTML document: CSS ``@page`` names the
    sheet's size and no margin, and each page is one sheet of exactly that size, so the
    browser's print has nothing to scale (print it at 100 % all the same)."""
    first = pages[0].svg
    if any(page.paper not in PAPERS for page in pages):
        raise ValueError("a plotter sheet is one .svg; printable_html is for A4 or Letter pages")
    width = first.split('width="', 1)[1].split('"', 1)[0]
    height = first.split('height="', 1)[1].split('"', 1)[0]
    sheets = "\n".join(f'<div class="sheet">{page.svg.split("?>", 1)[1].strip()}</div>'
                       for page in pages)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n'
        "<title>cribbage-board drilling template</title>\n<style>\n"
        f"@page {{ size: {width} {height}; margin: 0 }}\n"
        "html, body { margin: 0; padding: 0 }\n"
        f".sheet {{ width: {width}; height: {height}; overflow: hidden; break-after: page }}\n"
        ".sheet:last-child { break-after: auto }\n"
        ".sheet svg { display: block }\n</style></head>\n"
        f"<body>\n{sheets}\n</body></html>\n")


def _grid(template: Template, sheet: tuple[float, float]) -> tuple[int, int]:
    """Columns and rows of windows that cover the board on sheets of ``sheet`` (w x h)."""
    def count(board: float, window: float) -> int:
        if board <= window:
            return 1
        return math.ceil((board - OVERLAP_MM) / (window - OVERLAP_MM))
    return (count(template.width_mm, sheet[0] - 2 * MARGIN_MM),
            count(template.height_mm, sheet[1] - 2 * MARGIN_MM))


def _alignment_marks(template: Template, window: tuple[float, float], columns: int,
                     rows: int) -> list[str]:
    """A mark in the middle of every overlap, at a third and two thirds of the shared edge,
    in board millimetres: each one prints on both pages that share it."""
    step_x, step_y = window[0] - OVERLAP_MM, window[1] - OVERLAP_MM
    points: list[tuple[float, float]] = []
    for row in range(rows):
        for column in range(1, columns):  # vertical seams
            x = column * step_x + OVERLAP_MM / 2
            points += [(x, row * step_y + window[1] * f) for f in (1 / 3, 2 / 3)]
    for row in range(1, rows):  # horizontal seams
        for column in range(columns):
            y = row * step_y + OVERLAP_MM / 2
            points += [(column * step_x + window[0] * f, y) for f in (1 / 3, 2 / 3)]
    return [f'<circle class="align" cx="{x:.2f}" cy="{y:.2f}" r="3" fill="none" '
            f'stroke="#c00" stroke-width="0.3"/><path d="M{x - 6:.2f} {y:.2f}h12M{x:.2f} '
            f'{y - 6:.2f}v12" stroke="#c00" stroke-width="0.2"/>' for x, y in points]


def _page_svg(body: list[str], sheet: tuple[float, float], origin: tuple[float, float],
              window: tuple[float, float], *, number: int, count: int, row: int, column: int,
              rows: int, columns: int, paper: str) -> str:
    """One sheet: the board shifted so its window lands inside the margin, clipped to it."""
    w, h = sheet
    m = MARGIN_MM
    orientation = "landscape" if w > h else "portrait"
    clip = f"page{number}"
    neighbours = [f"{word} page {row_ * columns + col_ + 1}"
                  for word, row_, col_ in (("left:", row, column - 1), ("right:", row, column + 1),
                                           ("above:", row - 1, column),
                                           ("below:", row + 1, column))
                  if 0 <= row_ < rows and 0 <= col_ < columns]
    head = (f"cribbage-board template, page {number} of {count} (row {row + 1}, column "
            f"{column + 1}); {paper} {orientation}, print at 100 % (actual size, no fitting)")
    foot = ("; ".join(neighbours) + ". " if neighbours else "") + (
        "Trim the grey frame on the sides with a neighbour, lay it over that page with the "
        "red marks on each other, tape.")
    return "\n".join([
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w:g}mm" height="{h:g}mm" '
        f'viewBox="0 0 {w:g} {h:g}" font-family="DejaVu Sans, Arial, sans-serif">',
        f"<title>{escape(head)}</title>",
        f'<defs><clipPath id="{clip}"><rect x="{m:g}" y="{m:g}" width="{window[0]:g}" '
        f'height="{window[1]:g}"/></clipPath></defs>',
        f'<g clip-path="url(#{clip})"><g transform="translate({m - origin[0]:.2f} '
        f'{m - origin[1]:.2f})">',
        *body,
        "</g></g>",
        f'<rect class="window" x="{m:g}" y="{m:g}" width="{window[0]:g}" '
        f'height="{window[1]:g}" fill="none" stroke="#999" stroke-width="0.3"/>',
        _label(m, m - 5, head, 3.2),
        _label(m, h - m + 6, foot, 2.6),
        f'<path class="scale" d="M{w - m - 50:g} {m - 4:g}h50M{w - m - 50:g} {m - 6:g}v4'
        f'M{w - m:g} {m - 6:g}v4" stroke="#000" stroke-width="0.4" fill="none"/>',
        _label(w - m - 52, m - 5, "50 mm", 2.6, "end"),
        "</svg>",
    ]) + "\n"


def _label(x: float, y: float, text: str, size: float, anchor: str = "start") -> str:
    return (f'<text x="{x:.2f}" y="{y:.2f}" font-size="{size}" fill="#000" '
            f'text-anchor="{anchor}">{escape(text)}</text>')
