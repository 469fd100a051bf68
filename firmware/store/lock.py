"""One writing program per store: a lock ``run`` holds on the store for as long as it runs.

Why: a second ``run`` on the same store (a hand-started one beside the service, say)
served a page from its own stale copy of the game, and its first change failed because the
first had written meanwhile. ``hold`` takes an exclusive ``flock`` on a file beside the store
(``NAME-lock``, never moved by a repair) and writes its pid there, so the second is refused
at start in one line naming the first. The kernel lets go of the lock when its process
ends, however it ends, so a crash leaves nothing to clean up.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from firmware.store.schema import StoreError

__all__ = ["StoreInUse", "hold", "lock_path"]


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
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise StoreError(f"cannot lock event store {str(store)!r}: {str(path)!r}: "
                         f"{exc.strerror or exc}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
            raise StoreInUse(f"event store {str(store)!r} is in use by another run "
                             f"(pid {holder}): stop that one first (systemctl stop "
                             "cribbage-board, or kill it) or give this one another --store"
                             ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # closing the last descriptor lets go of the lock
