"""The event store's mark: what the store last acknowledged, kept outside SQLite.

Why: SQLite reads its WAL up to the first frame whose checksum fails and takes
everything after it for a write torn by a crash, so a flipped bit in an old
frame, a cut ``-wal`` or a lost one silently takes every later commit with it.
Only a record kept outside the WAL can tell "never committed" from "committed
and lost". The mark holds the last event id, that row's checksum, how many
undo rows there are and a CRC32 chain over their checksums (so an undo added, removed or
changed shows, not only a count that differs); the store writes it after each commit
returns, so it is never ahead of what SQLite made durable, and opening compares the two.

The mark is rewritten in place, not renamed: two slots in separate 4 KiB
blocks, written alternately, each with its own CRC, so a write torn by a power
cut spoils at most the slot being written and the other still holds the mark
before it. Writing a slot costs one ``pwrite`` into the page cache; the store
asks for an ``fdatasync`` only now and then (see ``EventStore``), so an append
pays for one fsync (SQLite's) as before.
"""

from __future__ import annotations

import os
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

from firmware.store.files import fsync_dir

__all__ = ["Mark", "MarkFile", "read_mark", "mark_path"]

_MAGIC = b"CRIBMARK"  # a mark without the undo chain (stores before undo rows)
_MAGIC3 = b"CRIBMRK3"
_SLOT = struct.Struct("<8sQQQQQ")  # magic, sequence, last id, its crc, its match, undone rows
_SLOT3 = struct.Struct("<8sQQQQQQ")  # ... and the chain of the undo rows' checksums
_BLOCK = 4096


@dataclass(frozen=True, slots=True)
class Mark:
    """The store as last acknowledged: its last event's id, checksum and match, how many
    undo rows it holds and the chain of their checksums (None in an older mark)."""

    last_id: int
    crc: int
    match: int
    undone: int
    undo_chain: int | None = None


def mark_path(store: Path) -> Path:
    """Where the mark of the store at ``store`` lives (beside it, like its ``-wal``)."""
    return store.with_name(store.name + "-mark")


def _pack(sequence: int, mark: Mark) -> bytes:
    if mark.undo_chain is None:
        body = _SLOT.pack(_MAGIC, sequence, mark.last_id, mark.crc, mark.match, mark.undone)
    else:
        body = _SLOT3.pack(_MAGIC3, sequence, mark.last_id, mark.crc, mark.match, mark.undone,
                           mark.undo_chain)
    return body + struct.pack("<I", zlib.crc32(body))


def _unpack(data: bytes) -> tuple[int, Mark] | None:
    slot = _SLOT3 if data[:8] == _MAGIC3 else _SLOT
    size = slot.size
    if len(data) < size + 4 or data[:8] not in (_MAGIC, _MAGIC3):
        return None
    body, (crc,) = data[:size], struct.unpack("<I", data[size:size + 4])
    if zlib.crc32(body) != crc:
        return None
    magic, sequence, last_id, row_crc, match, undone, *chain = slot.unpack(body)
    return sequence, Mark(last_id, row_crc, match, undone, chain[0] if chain else None)


def _newest(data: bytes) -> tuple[int, Mark] | None:
    """The intact slot with the highest sequence, and that sequence."""
    slots = [_unpack(data[start:start + _BLOCK]) for start in (0, _BLOCK)]
    return max((slot for slot in slots if slot is not None), key=lambda slot: slot[0],
               default=None)


def read_mark(path: Path) -> Mark | None:
    """The newest intact slot of the mark at ``path``; None when there is none to trust."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    newest = _newest(data)
    return newest[1] if newest else None


class MarkFile:
    """The writer's handle on a mark: ``write`` after every commit the store acknowledges."""

    def __init__(self, path: Path, fd: int, sequence: int) -> None:
        self.path = path
        self._fd = fd
        self._sequence = sequence

    @classmethod
    def open(cls, path: Path) -> MarkFile:
        created = not path.exists()
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            data = os.pread(fd, 2 * _BLOCK, 0)
        except BaseException:
            os.close(fd)
            raise
        newest = _newest(data)
        sequence = newest[0] if newest else 0
        if created:
            fsync_dir(path.parent)
        return cls(path, fd, sequence)

    def write(self, mark: Mark, *, durable: bool) -> None:
        """Puts ``mark`` in the older slot; ``durable`` also flushes it to the card."""
        self._sequence += 1
        os.pwrite(self._fd, _pack(self._sequence, mark), (self._sequence % 2) * _BLOCK)
        if durable:
            os.fdatasync(self._fd)

    def close(self) -> None:
        os.close(self._fd)
