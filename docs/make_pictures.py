"""Makes the docs' pictures from the project itself, so they show what the code draws today.

    .venv/bin/python docs/make_pictures.py [board] [template] [eye]

- ``board``: the LED pegboard as the simulator draws it, after ``tests/games/partnership.jsonl``
  (``cribbage-board board``).
- ``template``: the first A4 sheet of the drilling and cutting template
  (``cribbage-board board --template --paper a4``).
- ``eye``: the camera's eye on a phone, a headless Chromium screenshot of the page with a
  replayed table (the browser test ``tests/test_firmware_web_eye_browser.py`` takes it; needs
  Playwright and ``/usr/bin/chromium``).

The wiring diagram is ``hardware/wiring.svg`` (``python -m hardware.wiring_svg``), linked as it
is. ``tests/test_docs.py`` checks that each picture is there and current.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parent.parent
PICTURES = ROOT / "docs" / "pictures"
BOARD_GAME = ROOT / "tests" / "games" / "partnership.jsonl"
EYE_TEST = ("tests/test_firmware_web_eye_browser.py::"
            "test_tap_a_misread_card_and_an_unread_one_on_the_cameras_view")
EYE_SHOT = "eye-01-misread.png"
#: The phone the browser tests use (tests/conftest.py's ``page``), in CSS pixels.
PHONE = (390, 844)


def board(out: Path) -> Path:
    """The simulated LED board after ``BOARD_GAME``'s last event."""
    _cli(["board", str(BOARD_GAME), "-o", str(out)])
    return out


def template(out: Path) -> Path:
    """The template's first A4 sheet (SVG, in mm)."""
    with tempfile.TemporaryDirectory() as folder:
        _cli(["board", "--template", "--paper", "a4", "-o", str(Path(folder) / "template.svg")])
        shutil.copyfile(Path(folder) / "template-p1.svg", out)
    return out


def eye(out: Path) -> Path:
    """The camera's eye on a 390x844 phone's first screen, a misread card outlined, from the
    browser test."""
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "CRIBBAGE_SCREENSHOTS": folder}
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        EYE_TEST], cwd=ROOT, env=env, check=True)
        shot = cv2.imread(str(Path(folder) / EYE_SHOT))
    if shot is None:
        raise OSError(f"the browser test wrote no readable {EYE_SHOT}")
    # The phone's first screen (the page is taken whole, at twice its CSS pixels), at 1:1.
    scale = shot.shape[1] / PHONE[0]
    first = shot[:round(PHONE[1] * scale)]
    if not cv2.imwrite(str(out), cv2.resize(first, PHONE, interpolation=cv2.INTER_AREA)):
        raise OSError(f"could not write {out}")
    return out


def _cli(argv: list[str]) -> None:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from firmware.commands.cli import main

    status = main(argv)
    if status not in (0, None):
        raise SystemExit(f"cribbage-board {' '.join(argv)} ended {status}")


MAKERS = {"board": (board, "board.png"), "template": (template, "template-p1.svg"),
          "eye": (eye, "eye.png")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("which", nargs="*", metavar="PICTURE",
                        help=f"pictures to make: {', '.join(MAKERS)} (default: all)")
    args = parser.parse_args()
    unknown = sorted(set(args.which) - set(MAKERS))
    if unknown:
        parser.error(f"no picture named {', '.join(unknown)}: choose from {', '.join(MAKERS)}")
    PICTURES.mkdir(parents=True, exist_ok=True)
    for name in args.which or MAKERS:
        make, file = MAKERS[name]
        print(make(PICTURES / file).relative_to(ROOT))


if __name__ == "__main__":
    main()
