"""The store's second copy: every event and undo row again, in an append-only file beside it.

Why: a row's checksum tells a damaged row from a sound one but cannot bring it back, and in
issue 60's sweep 43 of 100 random bit flips in the store's pages lost an event, with every
later event of its game set aside behind it. ``NAME-copy`` holds each row once more, one line
a row: the CRC32 of the line's text in hex, a space, and the row as JSON (``["e", id, match,
at, line, crc, history, link]``, ``["u", id, event, at, crc, history, link]`` or ``["l", id,
place, why, at, history, link]``), each row keeping its own row checksum and its chain link
(``firmware.store.chain``) too, in the order the rows were written. Lines of a copy made before
the chain (no history, no link) are still read.
It is a plain file, written with ``write`` and flushed with ``fdatasync`` after SQLite commits
and before the store acknowledges the row, so no single damaged page, frame or sector holds
both copies of a row; a repair takes from it every row the store lost
(``firmware.store.repair``), and opening rewrites it from the store when the copy itself is
the damaged one (``rewrite``). A line torn by a power cut, or damaged, is skipped: only a row
damaged in both copies is lost. A copy that holds more than the store, or other than it (a
damaged line, a file in its place that is no copy, another store's copy), is never written
over: it is kept aside first (``keep_aside``), as a damaged store is (``judge`` says which).
"""

from __future__ import annotations

import json
import os
import re
import zlib
from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from firmware.store.chain import Link, Record, next_link
from firmware.store.chain import key as record_key
from firmware.store.files import aside, fsync_dir, replace_file
from firmware.store.schema import LostRow, Row, Undo, row_crc, undo_crc

__all__ = ["Copy", "CopyFile", "Judged", "copy_path", "read_copy", "parse_copy", "rewrite",
           "line_of", "intact", "contents", "judge", "keep_aside", "copy_fault", "NOT_A_COPY"]

# Why a file in the copy's place is no copy of this store: said by the board and the doctor.
NOT_A_COPY = "no line of it is this store's: another store's copy, or damaged throughout"


def copy_path(store: Path) -> Path:
    """Where the second copy of the store at ``store`` lives (beside it, like its mark)."""
    return store.with_name(store.name + "-copy")


@dataclass
class Copy:
    """What a copy file holds: the rows whose line and row checksums both hold, by id, and
    how many lines could not be trusted; ``unreadable`` says why the file could not be read
    at all (a folder in its place, no permission, the card), None where it could."""

    rows: dict[int, Row] = field(default_factory=dict)
    undos: dict[int, Undo] = field(default_factory=dict)
    damaged: int = 0
    losts: dict[int, LostRow] = field(default_factory=dict)
    # Every trusted line in file order: the row, its history digest and link (None: a line
    # written before the chain).
    order: list[tuple[Record, int | None, int | None]] = field(default_factory=list)
    unreadable: str | None = None


def _line(fields: list[object]) -> bytes:
    text = json.dumps(fields, ensure_ascii=False, separators=(",", ":"))
    return f"{zlib.crc32(text.encode()):08x} {text}\n".encode()


def line_of(record: Record, link: Link) -> bytes:
    """The copy's line for one row and its link."""
    if isinstance(record, Row):
        fields: list[object] = ["e", record.id, record.match, record.at, record.line,
                                record.crc]
    elif isinstance(record, Undo):
        fields = ["u", record.id, record.event, record.at, record.crc]
    else:
        fields = ["l", record.id, record.place, record.why, record.at]
    return _line([*fields, link.history, link.link])


def intact(copy: Copy) -> bool:
    """Whether every line of ``copy`` is trusted and chained, each link holding."""
    if copy.damaged:
        return False
    previous = 0
    for record, history, link in copy.order:
        if link is None or history is None or next_link(previous, record, history) != link:
            return False
        previous = link
    return True


def read_copy(path: Path) -> Copy:
    """Every row of the copy at ``path`` whose checksums hold (none when there is no file,
    nor when it cannot be read: then ``unreadable`` says why, and a repair or a check takes
    nothing from it)."""
    try:
        data = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return Copy()
    except OSError as exc:
        return Copy(unreadable=_why(exc))
    return parse_copy(data)


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


def parse_copy(data: bytes) -> Copy:
    """Every row of a copy's bytes whose checksums hold, and how many lines did not."""
    out = Copy()
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
    history: object = None
    link: object = None
    if len(fields) in (7, 8) and fields[0] in ("e", "u", "l"):
        *fields, history, link = fields
        if type(history) is not int or type(link) is not int:
            return False
    record = _record(fields)
    if record is None:
        return False
    if isinstance(record, Row):
        out.rows[record.id] = record
    elif isinstance(record, Undo):
        out.undos[record.id] = record
    else:
        out.losts[record.id] = record
    out.order.append((record, history, link))  # type: ignore[arg-type]
    return True


def _record(fields: list[object]) -> Record | None:
    """The row a line's fields hold, if its checksum holds (a lost row has none of its own:
    the line's checksum and link stand for it)."""
    if fields[0] == "e" and len(fields) == 6:
        _, event_id, match, at, line, crc = fields
        if type(event_id) is type(match) is type(crc) is int and isinstance(at, float) \
                and isinstance(line, str) and row_crc(event_id, match, at, line) == crc:
            return Row(event_id, match, line, crc, at, None)
    elif fields[0] == "u" and len(fields) == 5:
        _, undo_id, event, at, crc = fields
        if type(undo_id) is type(event) is type(crc) is int and isinstance(at, float) \
                and undo_crc(undo_id, event, at) == crc:
            return Undo(undo_id, event, at, crc)
    elif fields[0] == "l" and len(fields) == 5:
        _, lost_id, place, why, at = fields
        if type(lost_id) is int and isinstance(place, str) and isinstance(why, str) \
                and isinstance(at, float):
            return LostRow(lost_id, place, why, at)
    return None


@dataclass(frozen=True)
class Judged:
    """A copy's lines against the rows the store holds, by kind and id: ``same`` lines hold
    the store's row, ``differ`` lines a different row under a key the store holds, ``extra``
    lines a key it does not, ``damaged`` lines no trusted row (a line torn by a power cut at
    the end is not counted: it is a row never acknowledged)."""

    same: int
    differ: int
    extra: int
    damaged: int

    @property
    def loses(self) -> bool:
        """Whether writing the store's rows over the copy would lose something it holds."""
        return bool(self.differ or self.extra or self.damaged)

    @property
    def foreign(self) -> bool:
        """Whether the copy holds what is not this store's: rows that disagree with the
        store's or run past them, or nothing of it is the store's (garbage). A copy whose
        only fault is damaged lines is not (the card's own damage, which checksums catch)."""
        return bool(self.differ or self.extra) or (self.loses and not self.same)

    def why(self) -> str:
        """Words for what is wrong with the copy, for the board and the journal."""
        if not self.same:
            return NOT_A_COPY
        if self.differ or self.extra:
            return f"{self.differ + self.extra} of its rows are not the store's"
        return f"{self.damaged} of its lines damaged"

    def takes_rows_from(self, held: int) -> bool:
        """Whether rows only the copy holds may be taken as rows the store lost: not from a
        copy that disagrees with a row the store holds, nor from one that shares none of the
        store's ``held`` rows (another store's copy whose ids run on past this one's)."""
        return not self.differ and (self.same > 0 or held == 0)


def judge(copy: Copy, held: Mapping[tuple[str, int], Record], *, data: bytes = b"") -> Judged:
    """``copy`` (parsed from ``data``, whose torn last line is not counted as damage) against
    the store's rows ``held`` (events with ``undone_at`` None, as the copy keeps them)."""
    same = differ = extra = 0
    for record, _, _ in copy.order:
        stored = held.get(record_key(record))
        if stored is None:
            extra += 1
        elif stored == record:
            same += 1
        else:
            differ += 1
    damaged = copy.damaged
    tail = data.rpartition(b"\n")[2]
    if tail and _TORN.fullmatch(tail) and not _parse(tail, Copy()):
        damaged -= 1
    return Judged(same, differ, extra, damaged)


# What a line cut short by a power cut can look like: a prefix of "crc32-hex [fields...".
_TORN = re.compile(rb"[0-9a-f]{1,8}|[0-9a-f]{8} (\[[^\n]*)?")


def keep_aside(path: Path, when: float) -> Path:
    """Renames the copy (file or whatever stands in its place) aside, untouched, to the
    name a damaged store is kept under (``files.aside``), and returns that name."""
    kept = aside(path, when)
    os.rename(path, kept)
    fsync_dir(path.parent)
    return kept


def copy_fault(path: Path) -> str | None:
    """Why the copy at ``path`` cannot be read as a copy, with no store to compare it with
    (the doctor's look): unreadable, or not one trusted line in it; None otherwise."""
    try:
        data = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        return _why(exc)
    copy = parse_copy(data)
    return NOT_A_COPY if not copy.order and judge(copy, {}, data=data).damaged else None


def contents(chained: list[tuple[Record, Link]]) -> bytes:
    """What a copy of these rows and links holds, in their order."""
    return b"".join(line_of(record, link) for record, link in chained)


def rewrite(path: Path, chained: list[tuple[Record, Link]]) -> None:
    """Replaces the copy at ``path``, whole and power-cut safe, with ``chained``'s lines."""
    replace_file(path, contents(chained))


class CopyFile:
    """The writer's handle on the copy: ``begin`` a row's line while SQLite commits it,
    ``finish`` before acknowledging it (``cancel`` when the commit failed).

    Why a thread: the copy's ``fdatasync`` after SQLite's own added one flush to every event,
    on the path from a card laid to its LEDs (issue 60). Flushed beside SQLite's commit
    instead of after it (both calls let go of the GIL while the card writes), an event costs
    about the slower of the two flushes, and both are still on the card before it is
    acknowledged.
    """

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._size = os.fstat(fd).st_size  # the copy's length before the line in flight
        self._flusher = ThreadPoolExecutor(max_workers=1, thread_name_prefix="store-copy")

    @classmethod
    def open(cls, path: Path) -> CopyFile:
        created = not path.exists()
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
        if created:
            fsync_dir(path.parent)
        return cls(fd)

    def begin(self, line: bytes) -> Future[int]:
        """Starts appending one row's line and flushing it to the card, on the copy's own
        thread, while the caller commits the row."""
        return self._flusher.submit(self._write, line)

    def finish(self, pending: Future[int]) -> None:
        """Waits until ``begin``'s line is on the card (raises what writing it raised)."""
        self._size += pending.result()

    def cancel(self, pending: Future[int]) -> None:
        """The row was not committed: its line, written or not, is cut off again, so the
        copy never holds a row the store refused (a full card)."""
        try:
            pending.result()
        except OSError:
            pass
        os.ftruncate(self._fd, self._size)
        os.fdatasync(self._fd)

    def _write(self, line: bytes) -> int:
        written = os.write(self._fd, line)
        os.fdatasync(self._fd)
        if written != len(line):
            raise OSError(f"only {written} of {len(line)} bytes of a copy line were written")
        return written

    def close(self) -> None:
        self._flusher.shutdown(wait=True)
        os.close(self._fd)
