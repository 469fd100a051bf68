"""The one check every public stage makes of the frame it is handed.

The recogniser's stages are called directly by the device, the CLI, the benchmarks and
people at a Python prompt; each must refuse what is no camera frame in words that name the
function they called, rather than fail deep inside OpenCV or quietly measure a cast copy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["check_frame", "frame_size"]


def frame_size(text: str) -> tuple[int, int]:
    """``WIDTHxHEIGHT`` (``1280x720``) as (width, height): the one spelling of a frame size on
    every command line (also an ``argparse`` type: its ``ValueError`` is a usage error)."""
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise ValueError(f"expected WIDTHxHEIGHT such as 1280x720, got {text!r}") from None
    if width <= 0 or height <= 0:
        raise ValueError(f"a frame size is positive, got {text!r}")
    return width, height


def check_frame(image: Any, who: str) -> None:
    """Raises ``ValueError`` naming ``who`` unless ``image`` is a non-empty uint8 BGR array
    of shape (h, w, 3), which is what OpenCV's ``imread`` and every camera source give."""
    if not isinstance(image, np.ndarray):
        raise ValueError(f"{who} expects a BGR image array of shape (h, w, 3), "
                         f"got {type(image).__name__}")
    if image.ndim != 3 or image.shape[2] != 3:
        raise ValueError(f"{who} expects a BGR image array of shape (h, w, 3), "
                         f"got shape {image.shape}")
    if image.dtype != np.uint8:
        raise ValueError(f"{who} expects uint8 pixels, got {image.dtype}")
    if image.shape[0] == 0 or image.shape[1] == 0:
        raise ValueError(f"{who} expects a frame with pixels, got shape {image.shape}")
