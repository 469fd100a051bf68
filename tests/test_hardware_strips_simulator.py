"""hardware.strips.simulator: the board picture (golden PNGs) and the terminal view.

The golden pictures in tests/golden/ are what a person checked by eye. After
an intended change to the picture, regenerate them with

    UPDATE_GOLDEN=1 .venv/bin/pytest tests/test_hardware_strips_simulator.py

then look at every changed picture before committing it.

A golden picture judges what it is about: the holes, pegs, lines and marks by
their pixels (drawn without words), and the words and numbers by what they say
and where they stand (``<name>.labels.json``). Each OpenCV build rasterises
Hershey glyphs its own way (4.11 as strokes, 5.0 as outlines, 5.1 differently
again: 1.5-1.8 % of the pixels, all in the glyphs), while the holes and pegs are
the same in every build; one peg moved one hole is 0.14-0.22 % of the pixels.
So no tolerance could take every build's glyphs and still catch a moved peg,
and one set of pictures now serves every OpenCV.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.layout import Layout, per_side_tracks, serpentine, shared_track
from hardware.palette import Palette
from hardware.power import PowerBudget
from hardware.render import Renderer
from hardware.state import BoardState, SidePegs
from hardware.strip import StripError
from hardware.strips.simulator import PNG_OPTIONS, SimulatorStrip

GOLDEN = Path(__file__).parent / "golden"

POSITIONS: dict[str, tuple[Layout, BoardState]] = {
    # Ann's front peg and Bob's front peg in one hole of a single shared track.
    "shared_two_sides_overlap": (
        shared_track(),
        BoardState((SidePegs("Ann", 57, 49), SidePegs("Bob", 57, 52)), turn=1),
    ),
    # Three players on a 3-track board: Cy still short of the double-skunk line.
    "per_side_three_sides": (
        per_side_tracks(3),
        BoardState(
            (SidePegs("Ann", 95, 88), SidePegs("Bob", 84, 80), SidePegs("Cy", 58, 55)), turn=2
        ),
    ),
    # A serpentine two-track board at the end: Ann in the game hole, Bob skunked.
    "serpentine_game_over": (
        serpentine(2),
        BoardState((SidePegs("Ann", 121, 118), SidePegs("Bob", 88, 80)), winner=0),
    ),
}


def drawn(name: str, state: BoardState | None = None) -> tuple[np.ndarray, list[list[object]]]:
    """The picture of one position without its words, and the words with their anchors."""
    layout, position = POSITIONS[name]
    state = state or position
    sim = SimulatorStrip(layout)
    sim.show(Renderer(layout, Palette(), 1.0, PowerBudget())(state))
    image = sim.to_image(state, title=f"{name.replace('_', ' ')}", labels=False)
    return image, [[label.text, label.x, label.y, list(label.colour)] for label in sim.labels]


def assert_matches_golden(
    name: str, image: np.ndarray, labels: list[list[object]], tmp_path: Path
) -> None:
    path = GOLDEN / f"{name}.png"
    labels_path = GOLDEN / f"{name}.labels.json"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        cv2.imwrite(str(path), image, PNG_OPTIONS)
        labels_path.write_text("[\n" + ",\n".join(json.dumps(label) for label in labels) + "\n]\n")
        return
    golden = cv2.imread(str(path), cv2.IMREAD_COLOR)
    assert golden is not None, f"missing {path}; run with UPDATE_GOLDEN=1 to create it"
    actual = tmp_path / f"{name}.png"
    cv2.imwrite(str(actual), image)
    assert golden.shape == image.shape, f"size changed: see {actual}"
    diff = np.abs(golden.astype(int) - image.astype(int)).max(axis=2)
    # Small anti-aliasing differences between OpenCV builds are fine; a moved
    # peg or line is hundreds of pixels off by far more than 40 levels.
    assert (diff > 40).mean() < 0.0005 and diff.mean() < 0.3, f"differs from {path}: see {actual}"
    assert labels == json.loads(labels_path.read_text()), f"the words differ from {labels_path}"


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_picture_matches_golden(name: str, tmp_path: Path) -> None:
    assert_matches_golden(name, *drawn(name), tmp_path)


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_words_are_drawn_only_where_their_labels_stand(name: str) -> None:
    """The words the golden pictures leave out are on the real picture, near their anchors."""
    layout, state = POSITIONS[name]
    sim = SimulatorStrip(layout)
    sim.show(Renderer(layout, Palette(), 1.0, PowerBudget())(state))
    bare = sim.to_image(state, title=name, labels=False)
    worded = sim.to_image(state, title=name)
    inked = np.abs(worded.astype(int) - bare.astype(int)).max(axis=2) > 40
    near = np.zeros_like(inked)
    for label in sim.labels:
        reach = 14 + 12 * len(label.text)  # the widest glyph run, whichever side it grows
        near[max(label.y - 14, 0):label.y + 14, max(label.x - reach, 0):label.x + reach] = True
        assert inked[max(label.y - 10, 0):label.y + 10,
                     max(label.x - reach, 0):label.x + reach].any(), f"no ink for {label.text!r}"
    assert not (inked & ~near).any(), "ink away from every label"


def test_picture_shows_the_pegs_where_the_layout_puts_them() -> None:
    layout, state = POSITIONS["per_side_three_sides"]
    sim = SimulatorStrip(layout)
    sim.show(Renderer(layout)(state))
    image = sim.to_image()
    for track, hole in ((0, 95), (1, 84), (2, 58)):
        x, y = sim.geometry.position(track, hole)
        b, g, r = image[int(round(y)), int(round(x))].astype(int)
        expected = Palette().sides[track]
        assert abs(r - expected[0]) + abs(g - expected[1]) + abs(b - expected[2]) < 30
    # An empty hole is dark.
    x, y = sim.geometry.position(0, 20)
    assert image[int(round(y)), int(round(x))].max() < 60


def test_geometry_streets_run_like_a_wooden_board() -> None:
    geo = SimulatorStrip(per_side_tracks(2)).geometry
    assert geo.streets == 4
    assert geo.position(0, 1)[0] < geo.position(0, 30)[0]  # first street runs right
    assert geo.position(0, 31)[0] > geo.position(0, 60)[0]  # second runs back
    assert geo.position(0, 0)[0] < geo.position(0, 1)[0]  # start hole before hole 1
    assert geo.position(0, 121)[1] > geo.position(0, 120)[1] - 1  # game hole on the last street
    assert geo.position(1, 5)[1] > geo.position(0, 5)[1]  # tracks side by side


def test_to_png_writes_atomically(tmp_path: Path) -> None:
    sim = SimulatorStrip(per_side_tracks(2))
    out = sim.to_png(tmp_path / "board.png")
    assert cv2.imread(str(out)) is not None
    assert [p.name for p in tmp_path.iterdir()] == ["board.png"]


def test_show_keeps_a_copy_of_the_last_frame() -> None:
    sim = SimulatorStrip(per_side_tracks(1))
    frame = np.zeros((122, 3), dtype=np.uint8)
    frame[5] = (1, 2, 3)
    sim.show(frame)
    frame[5] = (9, 9, 9)
    assert sim.frame[5].tolist() == [1, 2, 3] and sim.frames_shown == 1
    with pytest.raises(StripError):
        sim.show(np.zeros((5, 3), dtype=np.uint8))
    sim.close()
    assert not sim.frame.any()


def test_terminal_view() -> None:
    layout = per_side_tracks(2)
    sim = SimulatorStrip(layout)
    sim.show(Renderer(layout)(BoardState((SidePegs("Ann", 3, 1), SidePegs("Bob", 0, 0)))))
    lines = sim.to_terminal(colour=False).splitlines()
    assert lines[0] == "· → ○·●·· ····· ····· ····· ····· ·····  "
    assert lines[1] == "● → ····· ····· ····· ····· ····· ·····  "
    assert lines[-1].startswith("○ ← ")  # Bob's game hole, marked
    coloured = sim.to_terminal()
    assert "\x1b[38;2;" in coloured and coloured.count("●") >= 2


def test_terminal_echo_on_show() -> None:
    stream = io.StringIO()
    layout = per_side_tracks(1)
    sim = SimulatorStrip(layout, terminal=True, stream=stream)
    sim.show(np.zeros((122, 3), dtype=np.uint8))
    assert stream.getvalue().startswith("\x1b[H· → ")


def test_golden_comparison_catches_a_moved_peg(tmp_path: Path) -> None:
    _, state = POSITIONS["per_side_three_sides"]
    image, labels = drawn("per_side_three_sides", state.with_pegs(1, 85, 80))
    with pytest.raises(AssertionError, match="differs from"):
        assert_matches_golden("per_side_three_sides", image, labels, tmp_path)


def test_golden_comparison_catches_a_changed_word(tmp_path: Path) -> None:
    image, labels = drawn("per_side_three_sides")
    labels[-1][0] = str(labels[-1][0]).replace("Cy: 58", "Cy: 59")
    with pytest.raises(AssertionError, match="words differ"):
        assert_matches_golden("per_side_three_sides", image, labels, tmp_path)
