"""Files replaced whole, for what the device writes besides its event store.

The Pi loses power when someone pulls the plug, so a config, a settings file
or a photo is written beside its target, flushed to the card, checked if the
caller wants, and only then renamed over the target: a power cut leaves the
old file or the new one, never half of either, and a failed check leaves the
old one untouched.
"""

from __future__ import annotations

import os
import secrets
import stat
import time
from collections.abc import Callable
from pathlib import Path

__all__ = ["NotAFileError", "aside", "fsync_dir", "replace_file", "require_folder"]


class NotAFileError(OSError):
    """The path names something that is not a plain file (a FIFO, a device, a folder)."""


def replace_file(path: Path, data: bytes, *, check: Callable[[Path], object] | None = None,
                 mode: int | None = None) -> None:
    """Puts ``data`` at ``path`` in one rename.

    ``check`` gets the written copy before the rename and raises to keep the old
    file (what it returns is ignored, so a loader serves); ``mode`` sets the new
    file's permission bits, else it keeps the old file's, or a new file gets
    what the umask allows (as ``open`` would). A symbolic link is followed, so
    the file it names is replaced, not the link; a FIFO, a device or a folder
    is refused, never replaced by a file. The folder must exist (``require_folder``).
    """
    require_folder(path)
    target = Path(os.path.realpath(path))
    try:
        old = os.stat(target)
    except FileNotFoundError:
        old = None
    if old is not None and not stat.S_ISREG(old.st_mode):
        raise NotAFileError(f"{str(path)!r} is {_kind(old.st_mode)}, not a file: "
                            f"give the path of a file to write")
    temporary = target.parent / f".{target.name}.{secrets.token_hex(6)}.part"
    # 0o666 through os.open lets the kernel apply the umask, as for any new file.
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            if mode is not None or old is not None:
                os.fchmod(out.fileno(), mode if mode is not None
                          else stat.S_IMODE(old.st_mode))  # type: ignore[union-attr]
            os.fsync(out.fileno())
        if check is not None:
            check(temporary)
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    fsync_dir(target.parent)


def require_folder(path: Path) -> None:
    """Raises, naming the folder, unless ``path``'s folder is there to write it in.

    A command calls it before its slow work, so a typo in ``-o`` costs nothing; the folder is
    not made, since a mistyped folder is likelier than a wanted new one (as ``cp`` does).
    """
    folder = Path(path).parent
    try:
        mode = os.stat(folder).st_mode
    except FileNotFoundError:
        raise FileNotFoundError(f"cannot write {str(path)!r}: no folder {str(folder)!r}") from None
    if not stat.S_ISDIR(mode):
        raise NotADirectoryError(f"cannot write {str(path)!r}: {str(folder)!r} is "
                                 f"{_kind(mode)}, not a folder")


def aside(path: Path, when: float) -> Path:
    """A free name beside ``path`` to keep a damaged file under, untouched:
    ``NAME.damaged-STAMP`` (UTC, from ``when``), ``-N`` for a second one in the same second.

    Why one naming: the store and its second copy are both kept this way, so a person finds
    every kept file by one pattern, and ``repair.damaged_copies`` lists the store's."""
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(when))
    found = path.with_name(f"{path.name}.damaged-{stamp}")
    n = 1
    while found.exists() or found.is_symlink():
        n += 1
        found = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
    return found


def _kind(mode: int) -> str:
    kinds = ((stat.S_ISREG, "a file"), (stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"),
             (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket"))
    return next((name for test, name in kinds if test(mode)), "not a plain file")


def fsync_dir(directory: Path) -> None:
    """Makes a rename in ``directory`` survive a power cut (the folder's entry is on the card)."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
