"""One frame from the device's camera, for the commands that look at the table once.

``calibrate`` finds the table's zones in it and ``vision snap`` saves it (the
photos ``vision teach`` learns a deck from), so both take the frame the same way
the running device would: the config's ``[camera]`` source with its options, or
another source named on the command line, or a recorded folder or video.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["CameraFrameError", "add_source_arguments", "grab_frame", "grab_frame_and_focus"]

# A live camera may need a moment to send its first frame: this many reads, each this long.
FIRST_FRAME_TRIES = 3
READ_TIMEOUT_S = 2.0


class CameraFrameError(ValueError):
    """No frame: a source named without what it needs, or a camera that sends nothing."""


def add_source_arguments(parser: argparse.ArgumentParser) -> None:
    """``--source`` and ``--path``, which ``grab_frame`` takes."""
    parser.add_argument("--source", choices=("replay", "opencv", "picamera2"),
                        help="camera source (default: the config's [camera] source)")
    parser.add_argument("--path", type=Path, metavar="DIR",
                        help="replay: a folder of images or a video; its first frame is used")


def grab_frame(config: Any, *, source: str | None = None, path: Path | None = None
               ) -> np.ndarray:
    """The first frame of ``source`` (default: the config's ``[camera]`` source), BGR.

    The config's camera options apply when the source is the config's own;
    ``path`` is the folder or video a ``replay`` source reads.
    """
    return grab_frame_and_focus(config, source=source, path=path)[0]


def grab_frame_and_focus(config: Any, *, source: str | None = None, path: Path | None = None
                         ) -> tuple[np.ndarray, Any]:
    """``grab_frame``'s frame and the focus the source set for it
    (``vision.live.lens.LensFocus``; None for a source that sets none: a webcam, a replay)."""
    from vision.live.sources import open_source

    source_name = source or config.camera.source
    options = dict(config.camera.options()) if source_name == config.camera.source else {}
    if source_name == "replay":
        replay_path = path or options.get("path")
        if replay_path is None:
            raise CameraFrameError("--source replay needs --path DIR")
        options = {"path": replay_path}
    elif path is not None:
        raise CameraFrameError(f"--path applies to --source replay, not {source_name!r}")
    camera = open_source(source_name, **options)
    try:
        for _ in range(FIRST_FRAME_TRIES):
            frame = camera.read(timeout=READ_TIMEOUT_S)
            if frame is not None:
                return np.asarray(frame.image), getattr(camera, "focus", None)
    finally:
        camera.close()
    raise CameraFrameError(f"camera source {source_name!r} gave no frame")
