"""Large buffers given back to the system when freed, so the device's resident memory is
what it holds, not what it once held.

Every camera frame is a new array (2304x1296 BGR: 9 MB), freed a frame later. glibc serves
a block that large with its own ``mmap`` and unmaps it on free, but it then raises its
threshold to the size just freed (a "dynamic" threshold, up to 32 MB), after which frames
and the recogniser's working images come from the heap and their pages stay resident after
they are freed: ``benchmarks/device/rss.py`` measured 152.6 MB peak with the camera at
2304x1296 that way, 142.9 MB with the threshold held at 1 MiB, against the 512 MB of a Pi
Zero 2 W beside its system. The price is a fresh mapping per frame (its pages faulted in as
the frame is written), which the camera's copy of each frame pays in any case.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import platform

__all__ = ["MMAP_THRESHOLD", "give_back_large_buffers"]

#: Blocks of this many bytes or more are mapped on their own and unmapped when freed.
MMAP_THRESHOLD = 1 << 20
# glibc's mallopt parameter number for the mmap threshold (malloc.h: M_MMAP_THRESHOLD).
_M_MMAP_THRESHOLD = -3


def give_back_large_buffers(threshold: int = MMAP_THRESHOLD) -> bool:
    """Holds glibc's mmap threshold at ``threshold`` bytes (which also stops it rising).

    True where it was set; False where the C library is not glibc (musl, macOS: their own
    allocators), which is left as it is.
    """
    if threshold <= 0:
        raise ValueError(f"the mmap threshold must be a positive number of bytes, "
                         f"not {threshold!r}")
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return False
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    libc = ctypes.CDLL(name)
    return bool(libc.mallopt(_M_MMAP_THRESHOLD, ctypes.c_int(threshold)))
