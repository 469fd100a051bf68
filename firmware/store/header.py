"""The two bytes of SQLite's file header no checksum covers that decide whether the store can
be written at all, put right before the store opens to write.

Why: bytes 18 and 19 of the header are SQLite's file format write and read versions (1:
rollback journal, 2: WAL). A value above 2 makes SQLite open the file read-only (byte 18)
or not at all (19), so one flipped bit in byte 18 let the board start, pass ``doctor`` and
then answer its first change with an error. The store is always in WAL mode, so any other
value there is damage to the header, not a choice someone made: it is set back to 2.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["put_right_versions"]

_MAGIC = b"SQLite format 3\0"
_OFFSET = 18
_WAL = 2


def put_right_versions(path: Path) -> str | None:
    """Sets the write and read version bytes of the SQLite file at ``path`` back to WAL's
    (2) when either holds anything but 1 or 2, flushed to the card; returns what it did, for
    the store's notes, or None when there was nothing to put right (or no header to read)."""
    try:
        fd = os.open(path, os.O_RDWR)
    except OSError:
        return None  # the open that follows names what is wrong with the file
    try:
        header = os.pread(fd, 20, 0)
        if len(header) < 20 or not header.startswith(_MAGIC):
            return None
        write, read = header[_OFFSET], header[_OFFSET + 1]
        if write in (1, 2) and read in (1, 2):
            return None
        os.pwrite(fd, bytes([_WAL, _WAL]), _OFFSET)
        os.fsync(fd)
    finally:
        os.close(fd)
    return (f"the SQLite header's file format versions (bytes 18-19) read {write} and {read}, "
            "which would have kept the store from being written; they were put back to 2 "
            "(WAL)")
