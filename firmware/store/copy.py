"""The store's second copy: every event and undo row again, in an append-only file beside it.

Why: a row's checksum tells a damaged row from a sound one but cannot bring it back, and in
issue 60's sweep 43 of 100 random bit flips in the store's pages lost an event, with every
later event of its game set aside behind it. ``NAME-copy`` holds each row once more, one line
a row: the CRC32 of the line's text in hex, a space, and the row as JSON (``["e", id, match,
at, line, crc]`` or ``["u", id, event, at, crc]``), each row keeping its own row checksum too.
It is a plain file, written with ``write`` and flushed with ``fdatasync`` after SQLite commits
and before the store acknowledges the row, so no single damaged page, frame or sector holds
both copies of a row; a repair takes from it every row the store lost
(``firmware.store.repair``), and opening rewrites it from the store when the copy itself is
the damaged one (``rewrite``). A line torn by a power cut, or damaged, is skipped: only a row
damaged in both copies is lost.
"""

from __future__ import annotations

import json
import os
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from firmware.store.files import fsync_dir, replace_file
from firmware.store.schema import Row, Undo, row_crc, undo_crc

__all__ = ["Copy", "CopyFile", "copy_path", "read_copy", "rewrite"]


def copy_path(store: Path) -> Path:
    """Where the second copy of the store at ``store`` lives (beside it, like its mark)."""
    return store.with_name(store.name + "-copy")


@dataclass
class Copy:
    """What a copy file holds: the rows whose line and row checksums both hold, by id, and
    how many lines could not be trusted."""

    rows: dict[int, Row] = field(default_factory=dict)
    undos: dict[int, Undo] = field(default_factory=dict)
    damaged: int = 0


def _line(fields: list[object]) -> bytes:
    text = json.dumps(fields, ensure_ascii=False, separators=(",", ":"))
    return f"{zlib.crc32(text.encode()):08x} {text}\n".encode()


def event_line(row: Row) -> bytes:
    return _line(["e", row.id, row.match, row.at, row.line, row.crc])


def undo_line(undo: Undo) -> bytes:
    return _line(["u", undo.id, undo.event, undo.at, undo.crc])


def read_copy(path: Path) -> Copy:
    """Every row of the copy at ``path`` whose checksums hold (none when there is no file)."""
    out = Copy()
    try:
        data = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return out
    for raw in data.split(b"\n"):
        if not raw:
            continue
        if not _parse(raw, out):
            out.damaged += 1
    return out


def _parse(raw: bytes, out: Copy) -> bool:
    head, _, text = raw.partition(b" ")
    try:
        if int(head, 16) != zlib.crc32(text) or len(head) != 8:
            return False
        fields = json.loads(text.decode())
    except (ValueError, RecursionError):
        return False
    if not isinstance(fields, list) or not fields:
        return False
    if fields[0] == "e" and len(fields) == 6:
        _, event_id, match, at, line, crc = fields
        if type(event_id) is type(match) is type(crc) is int and isinstance(at, float) \
                and isinstance(line, str) and row_crc(event_id, match, at, line) == crc:
            out.rows[event_id] = Row(event_id, match, line, crc, at, None)
            return True
    elif fields[0] == "u" and len(fields) == 5:
        _, undo_id, event, at, crc = fields
        if type(undo_id) is type(event) is type(crc) is int and isinstance(at, float) \
                and undo_crc(undo_id, event, at) == crc:
            out.undos[undo_id] = Undo(undo_id, event, at, crc)
            return True
    return False


def rewrite(path: Path, rows: list[Row], undos: list[Undo]) -> None:
    """Replaces the copy at ``path``, whole and power-cut safe, with ``rows`` and ``undos``."""
    data = b"".join([*(event_line(r) for r in rows), *(undo_line(u) for u in undos)])
    replace_file(path, data)


class CopyFile:
    """The writer's handle on the copy: ``add`` after every commit, before acknowledging."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    @classmethod
    def open(cls, path: Path) -> CopyFile:
        created = not path.exists()
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
        if created:
            fsync_dir(path.parent)
        return cls(fd)

    def add(self, line: bytes) -> None:
        """Appends one row's line and flushes it to the card."""
        os.write(self._fd, line)
        os.fdatasync(self._fd)

    def close(self) -> None:
        os.close(self._fd)
