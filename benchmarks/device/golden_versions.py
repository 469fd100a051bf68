"""How far the board pictures drawn by this OpenCV are from the golden ones, against how far
one peg moved one hole moves them: the measure behind one set of golden pictures for every
OpenCV build (tests/test_hardware_strips_simulator.py compares them without their words).

    .venv/bin/python benchmarks/device/golden_versions.py           # the newest OpenCV
    .venv-bookworm/bin/python benchmarks/device/golden_versions.py  # Bookworm's OpenCV 4.11
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))

import cv2  # noqa: E402
import numpy as np  # noqa: E402
from test_hardware_strips_simulator import GOLDEN, POSITIONS, drawn  # noqa: E402


def off(a: np.ndarray, b: np.ndarray) -> float:
    """The share of pixels more than 40 levels apart: what the golden test bounds."""
    return float((np.abs(a.astype(int) - b.astype(int)).max(axis=2) > 40).mean())


def main() -> None:
    print(f"OpenCV {cv2.__version__}, against the pictures in {GOLDEN}")
    for name in sorted(POSITIONS):
        golden = cv2.imread(str(GOLDEN / f"{name}.png"))
        picture, _ = drawn(name)
        state = POSITIONS[name][1]
        last = state.sides[-1]
        moved = state.with_pegs(len(state.sides) - 1, last.front + 1, last.back)
        one_hole, _ = drawn(name, moved)
        print(f"{name:26} this build vs golden {off(golden, picture):.4f}; "
              f"one peg one hole on, same build {off(picture, one_hole):.4f}")


if __name__ == "__main__":
    main()
