"""How far the board pictures drawn by this OpenCV are from the golden ones, against how far
one peg moved one hole moves them: the measure behind keeping the pictures per OpenCV major
version (tests/test_hardware_strips_simulator.py).

    .venv-bookworm/bin/python benchmarks/device/golden_versions.py  # OpenCV 4.11 vs OpenCV 5's
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))

import cv2  # noqa: E402
import numpy as np  # noqa: E402
from test_hardware_strips_simulator import GOLDEN_ROOT, POSITIONS, picture  # noqa: E402

from hardware.palette import Palette  # noqa: E402
from hardware.power import PowerBudget  # noqa: E402
from hardware.render import Renderer  # noqa: E402
from hardware.state import SidePegs  # noqa: E402
from hardware.strips.simulator import SimulatorStrip  # noqa: E402


def off(a: np.ndarray, b: np.ndarray) -> float:
    """The share of pixels more than 40 levels apart: what the golden test bounds."""
    return float((np.abs(a.astype(int) - b.astype(int)).max(axis=2) > 40).mean())


def main() -> None:
    print(f"OpenCV {cv2.__version__}, against the pictures in {GOLDEN_ROOT}")
    for name in sorted(POSITIONS):
        golden = cv2.imread(str(GOLDEN_ROOT / f"{name}.png"))
        drawn = picture(name)
        layout, state = POSITIONS[name]
        last = state.sides[-1]
        moved = dataclasses.replace(state, sides=(*state.sides[:-1], SidePegs(
            last.name, last.front + 1, last.back)))
        sim = SimulatorStrip(layout)
        sim.show(Renderer(layout, Palette(), 1.0, PowerBudget())(moved))
        one_hole = sim.to_image(moved, title=name.replace("_", " "))
        print(f"{name:26} this build vs golden {off(golden, drawn):.4f}; "
              f"one peg one hole on, same build {off(drawn, one_hole):.4f}")


if __name__ == "__main__":
    main()
