"""What the benchmark scripts share: a frame size on the command line, and the percentile
every report takes the same way.

The scripts run as ``.venv/bin/python benchmarks/AREA/NAME.py`` from the repository root:
each puts the root on ``sys.path`` itself (``Path(__file__).resolve().parents[2]``) before
importing ``benchmarks.*``, since a script's own folder is all Python adds. Modules that are
not scripts (this one, ``benchmarks/vision/photos.py`` ...) add nothing: whoever imports
them already has the root on the path.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from vision.recognise.frames import frame_size as parse_frame_size

__all__ = ["frame_size_arg", "p95"]


def frame_size_arg(text: str) -> tuple[int, int]:
    """``WIDTHxHEIGHT`` -> (width, height), each 64 pixels or more: an ``argparse`` type, so
    a bad size is a usage error, not a traceback halfway through a long run."""
    try:
        width, height = parse_frame_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if min(width, height) < 64:
        raise argparse.ArgumentTypeError(f"{text}: each side must be at least 64 pixels")
    return width, height


def p95(values: Sequence[float]) -> float:
    """The 95th percentile as the reports have always taken it: the value at index
    ``int(0.95 * (n - 1))`` of the sorted values (no interpolation, so it is a measured one)."""
    ordered = sorted(values)
    return ordered[int(0.95 * (len(ordered) - 1))]
