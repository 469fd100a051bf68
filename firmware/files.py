"""Files replaced whole, for what the device writes besides its event store.

The Pi loses power when someone pulls the plug, so a config, a settings file
or a photo is written beside its target, flushed to the card, checked if the
caller wants, and only then renamed over the target: a power cut leaves the
old file or the new one, never half of either, and a failed check leaves the
old one untouched.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

__all__ = ["fsync_dir", "replace_file"]


def replace_file(path: Path, data: bytes, *, check: Callable[[Path], object] | None = None,
                 mode: int | None = None) -> None:
    """Puts ``data`` at ``path`` in one rename.

    ``check`` gets the written copy before the rename and raises to keep the old
    file (what it returns is ignored, so a loader serves); ``mode`` sets the new
    file's permission bits (a temporary file starts private, 0o600). The folder
    must exist.
    """
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        if check is not None:
            check(Path(temporary))
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def fsync_dir(directory: Path) -> None:
    """Makes a rename in ``directory`` survive a power cut (the folder's entry is on the card)."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
