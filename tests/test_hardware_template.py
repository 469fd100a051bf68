"""hardware.template: the drilling and cutting template, read back from its SVG."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict

import pytest

from hardware.layout import per_side_tracks, serpentine, shared_track
from hardware.template import STRIP_PITCH_MM, make_template

SVG = "{http://www.w3.org/2000/svg}"


def holes_of(svg: str) -> list[tuple[float, float, float]]:
    root = ET.fromstring(svg)
    return [(float(c.get("cx", 0)), float(c.get("cy", 0)), float(c.get("r", 0)))
            for c in root.iter(f"{SVG}circle") if c.get("class") == "hole"]


def test_the_guides_board_three_tracks_of_122_holes_at_the_strips_pitch() -> None:
    template = make_template(per_side_tracks(3))
    svg = template.svg()
    root = ET.fromstring(svg)
    # 1:1: the page is as many mm as the board, and the view box counts mm. The holes take
    # 560 mm; the controls' band at the left end 40 more: the 600 x 300 plywood of the guide.
    assert root.get("width") == "600.00mm" and root.get("height") == "293.33mm"
    assert root.get("viewBox") == "0 0 600.00 293.33"
    holes = holes_of(svg)
    assert len(holes) == 3 * 122 == len(set((x, y) for x, y, _ in holes))
    assert {r for _, _, r in holes} == {2.5}
    rows: dict[float, list[float]] = defaultdict(list)
    for x, y, _ in holes:
        rows[y].append(x)
    assert len(rows) == 4 * 3  # 4 streets x 3 tracks
    for xs in rows.values():
        gaps = [b - a for a, b in zip(sorted(xs), sorted(xs)[1:], strict=False)]
        assert gaps == pytest.approx([1000 / 60] * len(gaps), abs=0.011)  # 60 LED/m's pitch
    # Street 1 and 4 rows hold the start or game hole too: 31 holes; the others 30.
    assert sorted(len(xs) for xs in rows.values()) == [30] * 6 + [31] * 6


def test_every_led_of_the_layout_is_under_one_hole_and_pieces_follow_the_strip() -> None:
    layout = per_side_tracks(3)
    template = make_template(layout)
    assert sorted(h.led for h in template.holes) == list(range(layout.n_leds))
    assert [p.leds for p in template.pieces] == [31, 30, 30, 31] * 3
    assert sum(p.leds for p in template.pieces) == layout.n_leds
    first = {(h.track, h.hole): h for h in template.holes}
    # Hole 1 is one pitch right of the start hole; the game hole one pitch left of 120.
    assert first[0, 1].x - first[0, 0].x == pytest.approx(STRIP_PITCH_MM)
    assert first[0, 120].x - first[0, 121].x == pytest.approx(STRIP_PITCH_MM)
    assert first[1, 5].y - first[0, 5].y == pytest.approx(STRIP_PITCH_MM)


def test_other_layouts_and_pitches() -> None:
    t = make_template(serpentine(2), pitch_mm=1000 / 30)
    assert len(t.holes) == 244 and t.width_mm == pytest.approx(40 + 60 + 30 * 1000 / 30)
    t = make_template(shared_track())
    assert len(t.holes) == 122 and len(t.pieces) == 4
    t = make_template(per_side_tracks(2, holes=62))  # a 61 board: 2 streets
    assert len(t.holes) == 124 and [p.leds for p in t.pieces] == [31, 31, 31, 31]


def test_impossible_sizes_are_refused() -> None:
    with pytest.raises(ValueError, match="pitch 1 mm"):
        make_template(per_side_tracks(3), pitch_mm=1)
    with pytest.raises(ValueError, match="hole 20 mm"):
        make_template(per_side_tracks(3), hole_mm=20)


def skunk_line_x(svg: str, word: str) -> float:
    root = ET.fromstring(svg)
    texts = [t for t in root.iter(f"{SVG}text") if t.text == word]
    assert len(texts) == 1, word
    return float(texts[0].get("x", 0))


@pytest.mark.parametrize("row_length", [30, 20, 24])
def test_skunk_lines_sit_just_before_their_hole_whatever_the_street_length(row_length: int
                                                                           ) -> None:
    # The line comes before hole 91 (61) on the side pegging arrives from: on a street
    # running right that is its left; on one running left, its right.
    template = make_template(serpentine(2, row_length=row_length))
    svg = template.svg()
    for line, word in ((61, "double skunk"), (91, "skunk")):
        hole = next(h for h in template.holes if h.track == 0 and h.hole == line)
        before = next(h for h in template.holes if h.track == 0 and h.hole == line - 1)
        x = skunk_line_x(svg, word)
        if before.y == hole.y:  # both in one street: the line lies between them
            assert min(before.x, hole.x) < x < max(before.x, hole.x)
        else:  # the hole starts a street: the line is on the street's entry side
            rightward = (line - 1) // row_length % 2 == 0
            assert (x < hole.x) == rightward


# -- issue 59: the template a builder can print, with the controls on it ------------------------

def test_a_pitch_whose_strips_would_overlap_is_refused_with_the_width_it_needs() -> None:
    # Rows are one pitch apart; a 10 mm strip needs its width and a gap between rows.
    with pytest.raises(ValueError, match=r"pitch 10 mm .* 10 mm wide strip needs at least "
                                         r"12 mm"):
        make_template(per_side_tracks(3), pitch_mm=10)
    assert make_template(per_side_tracks(3), pitch_mm=12).pitch_mm == 12


def test_the_buttons_the_encoder_and_the_shifter_box_are_on_the_template() -> None:
    template = make_template(per_side_tracks(3))
    root = ET.fromstring(template.svg())
    controls = {c.get("data-name"): c for c in root.iter(f"{SVG}circle")
                if c.get("class") == "control"}
    assert set(controls) == {"GO", "MUGGINS", "UNDO", "CONFIRM", "encoder"}
    assert float(controls["GO"].get("r", 0)) * 2 == pytest.approx(24.0)
    assert float(controls["encoder"].get("r", 0)) * 2 == pytest.approx(7.0)
    boxes = [r for r in root.iter(f"{SVG}rect") if r.get("class") == "box"]
    assert len(boxes) == 1
    # Nothing of the controls lies over a strip piece or a hole.
    strips = [r for r in root.iter(f"{SVG}rect") if r.get("class") == "strip"]
    left_of_strips = min(float(s.get("x", 0)) for s in strips)
    for c in controls.values():
        assert float(c.get("cx", 0)) + float(c.get("r", 0)) < left_of_strips
    box = boxes[0]
    assert float(box.get("x", 0)) + float(box.get("width", 0)) < left_of_strips
    # The board is the plywood the guide buys: 600 x 300 mm holds it.
    assert template.width_mm <= 600 and template.height_mm <= 300


def test_a_serpentine_of_three_tracks_is_drawn_with_three() -> None:
    template = make_template(serpentine(3))
    assert template.layout.tracks == 3 and len(template.holes) == 366
    assert sorted(h.led for h in template.holes) == list(range(366))


def test_the_box_on_the_template_is_the_parts_lists() -> None:
    import re
    from pathlib import Path

    wiring = (Path(__file__).resolve().parents[1] / "docs" / "building.md").read_text()
    found = re.search(r"small box, about (\d+) x (\d+) x \d+ mm", wiring)
    assert found
    box = make_template(per_side_tracks(3)).box
    assert box is not None and (box.width, box.height) == (float(found[1]), float(found[2]))
