"""The store's mark: two checksummed slots, so a write torn by a power cut spoils only the
slot being written and the mark before it still stands."""

from __future__ import annotations

from pathlib import Path

from firmware.store.mark import Mark, MarkFile, read_mark

BLOCK = 4096
LAST_ID_AT = 16  # after the magic (8 bytes) and the sequence (8 bytes)


def written(path: Path, *marks: Mark) -> None:
    writer = MarkFile.open(path)
    for mark in marks:
        writer.write(mark, durable=True)
    writer.close()


def test_the_newest_intact_slot_is_read(tmp_path: Path) -> None:
    path = tmp_path / "s.db-mark"
    written(path, Mark(5, 111, 1, 0), Mark(6, 222, 1, 0), Mark(7, 333, 1, 1))
    assert read_mark(path) == Mark(7, 333, 1, 1)


def test_a_torn_newest_slot_gives_the_mark_before_it(tmp_path: Path) -> None:
    path = tmp_path / "s.db-mark"
    written(path, Mark(6, 222, 1, 0), Mark(7, 333, 1, 0))  # slots alternate: 7 is first
    data = bytearray(path.read_bytes())
    data[LAST_ID_AT] ^= 0x40  # the last id of the newest slot, half written
    path.write_bytes(bytes(data))
    assert read_mark(path) == Mark(6, 222, 1, 0)
    # A writer opened on it goes on from the newest sequence it can trust.
    written(path, Mark(8, 444, 1, 0))
    assert read_mark(path) == Mark(8, 444, 1, 0)


def test_no_slot_to_trust_is_no_mark(tmp_path: Path) -> None:
    path = tmp_path / "s.db-mark"
    assert read_mark(path) is None
    written(path, Mark(6, 222, 1, 0), Mark(7, 333, 1, 0))
    data = bytearray(path.read_bytes())
    data[LAST_ID_AT] ^= 1
    data[BLOCK + LAST_ID_AT] ^= 1
    path.write_bytes(bytes(data))
    assert read_mark(path) is None
