"""Reading an SQLite file's rows straight from its pages, for a repair that SQLite refuses.

Why: a flipped bit in the schema page, in a b-tree's interior keys or in a page header
makes SQLite refuse the file or skip whole runs of rows, though nearly every row is still
on the card, byte for byte. The store's rows carry their own checksum (id included), so a
row found anywhere in the file (or in a committed frame of its ``-wal``) whose checksum
holds is that row, whatever pointed at it. This reads every leaf page of a table b-tree
(and cells missed through a damaged cell pointer, found where the cell before them ends)
and hands back each cell's rowid and values; the caller keeps the rows that verify.

Only what the store needs of the file format (https://sqlite.org/fileformat2.html): table
leaf cells whose payload fits in their page (an event line is far smaller than a page),
and WAL frames up to the last commit frame of the WAL's current salt.
"""

from __future__ import annotations

import struct
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

__all__ = ["Cell", "cells", "located"]

Cell = tuple[int, tuple[object, ...]]  # rowid, column values (text as bytes)

_LEAF_TABLE = 0x0D
_INTERIOR = (0x02, 0x05, 0x0A)
_MAX_READ = 1 << 30  # a store is far smaller; a bigger file is read only this far


def _varint(data: bytes, at: int) -> tuple[int, int]:
    """SQLite's big-endian varint at ``at``: its value and where the next field starts."""
    value = 0
    for i in range(8):
        byte = data[at + i]
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return value, at + i + 1
    return (value << 8) | data[at + 8], at + 9


def _record(payload: bytes) -> tuple[object, ...]:
    size, at = _varint(payload, 0)
    if not 1 <= size <= len(payload):
        raise ValueError("bad record header")
    types = []
    while at < size:
        serial, at = _varint(payload, at)
        types.append(serial)
    if at != size:
        raise ValueError("bad record header")
    values: list[object] = []
    at = size
    for serial in types:
        if serial == 0:
            values.append(None)
        elif 1 <= serial <= 6:
            width = (1, 2, 3, 4, 6, 8)[serial - 1]
            values.append(int.from_bytes(payload[at:at + width], "big", signed=True))
            at += width
        elif serial == 7:
            values.append(struct.unpack(">d", payload[at:at + 8])[0])
            at += 8
        elif serial in (8, 9):
            values.append(serial - 8)
        elif serial >= 12:
            width = (serial - 12) // 2
            values.append(bytes(payload[at:at + width]))
            at += width
        else:
            raise ValueError("reserved serial type")
        if at > len(payload):
            raise ValueError("record runs past its cell")
    return tuple(values)


def _cell(page: bytes, at: int, usable: int) -> tuple[Cell, int]:
    """The table leaf cell at ``at``: (rowid, values) and where it ends."""
    length, pos = _varint(page, at)
    rowid, pos = _varint(page, pos)
    if rowid >= 1 << 63:
        rowid -= 1 << 64
    if length > usable - 35 or pos + length > len(page):
        raise ValueError("payload overflows its page")
    return (rowid, _record(page[pos:pos + length])), pos + length


def _leaf_cells(page: bytes, header: int, usable: int) -> Iterator[Cell]:
    for _, _, cell in _located_cells(page, header, usable):
        yield cell


def _located_cells(page: bytes, header: int, usable: int
                   ) -> Iterator[tuple[int, int, Cell]]:
    """Every readable cell of a leaf page: through its cell pointers, then wherever a
    cell found ends and no cell is known to start (cells are packed end to end)."""
    if page[header] in _INTERIOR or len(page) < header + 8:
        return
    count = int.from_bytes(page[header + 3:header + 5], "big")
    start = int.from_bytes(page[header + 5:header + 7], "big") or 65536
    pointers = header + 8
    todo = {int.from_bytes(page[pointers + 2 * i:pointers + 2 * i + 2], "big")
            for i in range(min(count, (len(page) - pointers) // 2))}
    todo.add(start)
    seen: set[int] = set()
    while todo:
        at = todo.pop()
        if at in seen or not pointers <= at < usable:
            continue
        seen.add(at)
        try:
            cell, end = _cell(page, at, usable)
        except (ValueError, IndexError, struct.error):
            continue
        yield at, end, cell
        todo.add(end)


def _page_size(header: bytes) -> int:
    raw = int.from_bytes(header[16:18], "big") if len(header) >= 18 else 0
    size = 65536 if raw == 1 else raw
    return size if 512 <= size <= 65536 and size & (size - 1) == 0 else 4096


def _pages(data: bytes, size: int) -> Iterator[tuple[int, bytes]]:
    for number, at in enumerate(range(0, len(data) - size + 1, size), start=1):
        yield number, data[at:at + size]


def located(db: Path, wal: Path | None = None) -> Iterator[tuple[Path, int, int, Cell]]:
    """Like ``cells``, with where each cell lies: the file and its first and last byte + 1
    (for benchmarks that must know which rows a damaged byte touched)."""
    data = db.read_bytes()
    size = _page_size(data[:100])
    for number, at in enumerate(range(0, len(data) - size + 1, size), start=1):
        for start, end, cell in _located_cells(data[at:at + size], 100 if number == 1 else 0,
                                               size):
            yield db, at + start, at + end, cell
    log = wal.read_bytes() if wal is not None and wal.exists() else b""
    if wal is None or len(log) < 32:
        return
    for number, start, page in _wal_frames(log):
        for first, end, cell in _located_cells(page, 100 if number == 1 else 0, len(page)):
            yield wal, start + first, start + end, cell


def _wal_pages(data: bytes) -> Iterator[tuple[int, bytes]]:
    for number, _, page in _wal_frames(data):
        yield number, page


def _wal_frames(data: bytes) -> Iterator[tuple[int, int, bytes]]:
    """The committed frames of a -wal (page number, where its page starts, the page): those
    with its salt (the header's, or the most common one where the header is damaged) up to
    the last commit frame."""
    if len(data) < 32:
        return
    size = int.from_bytes(data[8:12], "big")
    if not (512 <= size <= 65536 and size & (size - 1) == 0):
        return
    frames = [(data[at:at + 24], at + 24)
              for at in range(32, len(data) - 24 - size + 1, 24 + size)]
    salts = Counter(head[8:16] for head, _ in frames)
    salt = data[16:24] if data[16:24] in salts else (salts.most_common(1) or [(b"", 0)])[0][0]
    last = max((i for i, (head, _) in enumerate(frames)
                if head[8:16] == salt and int.from_bytes(head[4:8], "big")), default=-1)
    for head, start in frames[:last + 1]:
        if head[8:16] == salt:
            yield int.from_bytes(head[:4], "big"), start, data[start:start + size]


def cells(db: Path, wal: Path | None = None) -> Iterator[Cell]:
    """Every table leaf cell that can be parsed from ``db``'s pages and then from ``wal``'s
    committed frames (newer last); cells of any table, unverified: the caller checks them."""
    try:
        with db.open("rb") as handle:
            data = handle.read(_MAX_READ)
    except OSError:
        data = b""
    size = _page_size(data[:100])
    sources = [(_pages(data, size), size)]
    if wal is not None:
        try:
            with wal.open("rb") as handle:
                log = handle.read(_MAX_READ)
        except OSError:
            log = b""
        if len(log) >= 32:
            sources.append((_wal_pages(log), int.from_bytes(log[8:12], "big")))
    for pages, page_size in sources:
        reserved = data[20] if len(data) > 20 and data[20] < 64 else 0
        usable = page_size - reserved
        for number, page in pages:
            yield from _leaf_cells(page, 100 if number == 1 else 0, usable)
