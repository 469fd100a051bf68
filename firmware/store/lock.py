"""One writing program per store: a lock ``run`` holds on the store for as long as it runs.

Why: a second ``run`` on the same store (a hand-started one beside the service, say)
served a page from its own stale copy of the game, and its first change failed because the
first had written meanwhile. ``hold`` takes an exclusive ``flock`` on a file beside the store
(``NAME-lock``, never moved by a repair) and writes its pid there, so the second is refused
at start in one line naming the first. The kernel lets go of the lock when its process
ends, however it ends, so a crash leaves nothing to clean up. Where this user cannot write
beside the store (its folder or file system read-only), the lock is taken read-only, or not
at all when there is no lock file: such a ``run`` serves the store read-only and writes none.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from firmware.store.schema import StoreError

__all__ = ["StoreInUse", "hold", "holds", "lock_path"]

# The locks this process holds (``hold``), by the lock file's real path: a store served
# read-only takes changes again only under its lock (``EventStore.writable_again``). Why not
# ask the kernel: a second ``flock`` from this process on another descriptor is refused just
# as another process's is, so only the holder knows it holds it.
_HELD: set[str] = set()


class StoreInUse(StoreError):
    """Another process holds the store's lock (its pid in the words)."""


def lock_path(store: Path) -> Path:
    """Where the lock of the store at ``store`` lives (beside it, like its mark)."""
    return store.with_name(store.name + "-lock")


@contextmanager
def hold(store: Path | str) -> Iterator[None]:
    """Holds the store's lock until the block ends; ``StoreInUse`` when another holds it."""
    store = Path(store)
    path = lock_path(store)
    fd: int | None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except PermissionError:  # a folder read-only for this user: nor can it write the store
        fd = _read_only(path)
    except OSError as exc:
        if exc.errno != errno.EROFS:
            raise StoreError(f"cannot lock event store {str(store)!r}: {str(path)!r}: "
                             f"{exc.strerror or exc}") from None
        fd = _read_only(path)
    if fd is None:  # no lock file, and none can be made: then no writer holds one either
        yield
        return
    held = os.path.realpath(path)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
            raise StoreInUse(f"event store {str(store)!r} is in use by another run "
                             f"(pid {holder}): stop that one first (systemctl stop "
                             "cribbage-board, or kill it) or give this one another --store"
                             ) from None
        with contextlib.suppress(OSError):  # a lock opened read-only names no pid
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        _HELD.add(held)
        try:
            yield
        finally:
            _HELD.discard(held)
    finally:
        os.close(fd)  # closing the last descriptor lets go of the lock


def holds(store: Path | str) -> bool:
    """Whether this process holds the lock of the store at ``store`` (``hold``), so no other
    ``run`` can be writing it."""
    return os.path.realpath(lock_path(Path(store))) in _HELD


def _read_only(path: Path) -> int | None:
    """The lock opened read-only (``flock`` needs no write), where this user cannot write
    beside the store, so that ``run`` serves it read-only; None when there is no lock file."""
    try:
        return os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
