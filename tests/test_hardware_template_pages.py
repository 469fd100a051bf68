"""hardware.template_pages: the 1:1 template tiled onto A4 or Letter, read back from the SVG."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from hardware.layout import per_side_tracks
from hardware.template import make_template
from hardware.template_pages import OVERLAP_MM, PAPERS, tile

SVG = "{http://www.w3.org/2000/svg}"


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_the_guides_board_tiles_onto_home_paper(paper: str) -> None:
    template = make_template(per_side_tracks(3))
    pages = tile(template, paper)
    short, long = PAPERS[paper]
    assert len(pages) == 6  # 3 across, 2 down, landscape
    for n, page in enumerate(pages, 1):
        root = ET.fromstring(page.svg)
        # Each page is the paper itself in mm, so "actual size" prints it 1:1.
        assert root.get("width") == f"{long:g}mm" and root.get("height") == f"{short:g}mm"
        words = " ".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))
        assert f"page {n} of 6" in words and "100 %" in words
        # Every page carries the whole template, shifted to its window and clipped.
        holes = [c for c in root.iter(f"{SVG}circle") if c.get("class") == "hole"]
        assert len(holes) == 366
        assert re.search(r"translate\(", page.svg) and "clip-path" in page.svg
    # The windows cover the board, each overlapping its neighbours by OVERLAP_MM.
    right = max(p.x0 + p.width for p in pages)
    bottom = max(p.y0 + p.height for p in pages)
    assert right >= template.width_mm and bottom >= template.height_mm
    first, second = pages[0], pages[1]
    assert first.row == second.row == 1 and (first.column, second.column) == (1, 2)
    assert first.x0 + first.width - second.x0 == pytest.approx(OVERLAP_MM)


def test_alignment_marks_fall_in_the_overlaps_and_show_on_both_pages() -> None:
    pages = tile(make_template(per_side_tracks(3)), "a4")
    def marks(page) -> set[tuple[float, float]]:
        root = ET.fromstring(page.svg)
        found = set()
        for c in root.iter(f"{SVG}circle"):
            if c.get("class") != "align":
                continue
            x, y = float(c.get("cx", 0)), float(c.get("cy", 0))
            if page.x0 <= x <= page.x0 + page.width and page.y0 <= y <= page.y0 + page.height:
                found.add((x, y))
        return found
    shared = marks(pages[0]) & marks(pages[1])  # side by side
    assert shared and all(pages[1].x0 <= x <= pages[0].x0 + pages[0].width for x, _ in shared)
    shared = marks(pages[0]) & marks(pages[3])  # one above the other
    assert shared


def test_the_plotter_sheet_is_the_template_itself_and_unknown_paper_is_refused() -> None:
    template = make_template(per_side_tracks(3))
    (sheet,) = tile(template, "plotter")
    assert sheet.svg == template.svg()
    with pytest.raises(ValueError, match="paper 'a3'.*a4, letter, plotter"):
        tile(template, "a3")


def test_every_page_in_one_html_file_for_one_print_job() -> None:
    from hardware.template_pages import printable_html

    pages = tile(make_template(per_side_tracks(3)), "a4")
    html = printable_html(pages)
    assert html.count("<svg ") == 6 and "<?xml" not in html
    assert "@page { size: 297mm 210mm; margin: 0 }" in html
    with pytest.raises(ValueError, match="plotter"):
        printable_html(tile(make_template(per_side_tracks(3)), "plotter"))


CHROMIUM = "/usr/bin/chromium"


@pytest.mark.skipif(not __import__("os").path.exists(CHROMIUM),
                    reason="no /usr/bin/chromium (apt install chromium)")
@pytest.mark.parametrize(("paper", "points"), [("a4", (841.89, 595.28)),
                                               ("letter", (792.0, 612.0))])
def test_a_browser_prints_the_html_as_six_sheets_of_the_paper(tmp_path, paper: str,
                                                              points: tuple[float, float]
                                                              ) -> None:
    """What a builder does: open the file in a browser and print it. Chromium's own PDF has
    one page per sheet, each the paper's size, landscape."""
    import subprocess

    from hardware.template_pages import printable_html

    html = tmp_path / "template.html"
    html.write_text(printable_html(tile(make_template(per_side_tracks(3)), paper)))
    pdf = tmp_path / "template.pdf"
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                    f"--user-data-dir={tmp_path / 'profile'}", "--no-pdf-header-footer",
                    f"--print-to-pdf={pdf}", html.as_uri()],
                   capture_output=True, timeout=120, check=True)
    boxes = re.findall(rb"/MediaBox \[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", pdf.read_bytes())
    assert len(boxes) == 6, boxes
    for width, height in boxes:
        assert (float(width), float(height)) == pytest.approx(points, abs=1.0)
