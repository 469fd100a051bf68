"""Photos read from files, with the reason in words and nothing else on stderr.

Why not ``cv2.imread``: for a missing or damaged file it prints OpenCV's own
warnings (``[ WARN:0@0.1] global loadsave.cpp ... can't open/read file``) on
stderr before returning None, so a command's one-line error came second.
Here Python reads the bytes (its error says why: no such file, a folder) and
OpenCV decodes them with its logging silenced.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

__all__ = ["ImageFileError", "read_image"]


class ImageFileError(OSError):
    """An image file that cannot be read or decoded."""


def _log_level() -> tuple[Callable[[], Any], Callable[[Any], Any], Any]:
    """OpenCV's get and set of its log level, and the silent level. OpenCV 5 has them in
    ``cv2.utils.logging``; the 4.x wheels (Raspberry Pi OS Bookworm's 4.11.0.86) only at
    the top level, as ``cv2.getLogLevel`` and ``cv2.setLogLevel`` with 0 for silent."""
    module = getattr(getattr(cv2, "utils", None), "logging", None)
    if module is not None:
        return module.getLogLevel, module.setLogLevel, module.LOG_LEVEL_SILENT
    return getattr(cv2, "getLogLevel"), getattr(cv2, "setLogLevel"), 0  # noqa: B009


def read_image(path: Path | str) -> npt.NDArray[np.uint8]:
    """The image at ``path`` as a BGR frame (h, w, 3)."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ImageFileError(f"cannot read the image {str(path)!r}: "
                             f"{exc.strerror or exc}") from None
    get_level, set_level, silent = _log_level()
    before = get_level()
    set_level(silent)
    try:
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) if data else None
    finally:
        set_level(before)
    if image is None:
        raise ImageFileError(f"cannot read the image {str(path)!r}: "
                             f"not a picture OpenCV can decode")
    return np.asarray(image, dtype=np.uint8)
