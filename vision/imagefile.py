"""Photos read from files, with the reason in words and nothing else on stderr.

Why not ``cv2.imread``: for a missing or damaged file it prints OpenCV's own
warnings (``[ WARN:0@0.1] global loadsave.cpp ... can't open/read file``) on
stderr before returning None, so a command's one-line error came second.
Here Python reads the bytes (its error says why: no such file, a folder) and
OpenCV decodes them with its logging silenced.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

__all__ = ["ImageFileError", "read_image"]


class ImageFileError(OSError):
    """An image file that cannot be read or decoded."""


def read_image(path: Path | str) -> npt.NDArray[np.uint8]:
    """The image at ``path`` as a BGR frame (h, w, 3)."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ImageFileError(f"cannot read the image {str(path)!r}: "
                             f"{exc.strerror or exc}") from None
    before = cv2.utils.logging.getLogLevel()
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
    try:
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) if data else None
    finally:
        cv2.utils.logging.setLogLevel(before)
    if image is None:
        raise ImageFileError(f"cannot read the image {str(path)!r}: "
                             f"not a picture OpenCV can decode")
    return np.asarray(image, dtype=np.uint8)
