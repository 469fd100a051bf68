"""The chain: every row the store keeps (events, undos, losses) linked to the one before it.

Why: each row's own checksum finds a damaged row, but not a row someone edited and
checksummed again, a row added or deleted, a row moved to another match, or the history
tables rewritten with their digest (issue 60, item 3). Each row gets a link, a CRC32 of the
row's text and of its match's history digest after it, seeded with the link before it, in
the order the rows were written; the ``chain`` table holds the links and the second copy
(``firmware.store.copy``) holds them again on its lines. Any edit, insertion, deletion or
reorder then breaks the chain at that row unless every link after it is rewritten too, in
both places: ``verify`` finds the first break and names the row and the kind of change.

What the chain does not stop: someone who rewrites the whole chain from the edited row on
with this program's own code (the formulas are public and there is no secret on the board).
The club's copy of the rows is the tournament's record.
"""

from __future__ import annotations

import heapq
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from firmware.store.schema import LostRow, Row, Undo

__all__ = ["Link", "Break", "Record", "body", "key", "next_link", "build", "verify",
           "natural_order", "expected_histories"]

Record = Row | Undo | LostRow


@dataclass(frozen=True, slots=True)
class Link:
    """One link: the ``seq``-th row written, of ``kind`` (e, u, l) and id ``ref``, its
    match's history digest after it (0: none kept) and the link itself."""

    seq: int
    kind: str
    ref: int
    history: int
    link: int


@dataclass(frozen=True, slots=True)
class Break:
    """Where a chain stops holding: the row (kind, id) and what was done to it."""

    kind: str
    ref: int
    change: str  # added | deleted | changed | out of order

    def words(self) -> str:
        what = {"e": "event id", "u": "undo row", "l": "lost row"}[self.kind]
        how = {"added": "was added outside the board",
               "deleted": "was deleted outside the board",
               "changed": "was changed after it was written",
               "out of order": "is out of the order it was written in"}[self.change]
        return f"{what} {self.ref} {how}"


def key(record: Record) -> tuple[str, int]:
    if isinstance(record, Row):
        return "e", record.id
    if isinstance(record, Undo):
        return "u", record.id
    return "l", record.id


def body(record: Record) -> bytes:
    """The text a link covers: every stored field of the row but ``undone_at`` (which the
    undo rows decide)."""
    if isinstance(record, Row):
        return f"e:{record.id}:{record.match}:{record.at!r}:{record.line}".encode()
    if isinstance(record, Undo):
        return f"u:{record.id}:{record.event}:{record.at!r}".encode()
    return f"l:{record.id}:{record.place}:{record.why}:{record.at!r}".encode()


def next_link(previous: int, record: Record, history: int) -> int:
    return zlib.crc32(body(record) + b"|%d" % history, previous)


def natural_order(records: Iterable[Record]) -> list[Record]:
    """The order rows were written in as far as their times tell (events, then undos,
    then losses at one time): for stores made before the chain, and for a repair."""
    rank = {"e": 0, "u": 1, "l": 2}
    kinds: dict[str, list[Record]] = {"e": [], "u": [], "l": []}
    for record in records:
        kinds[key(record)[0]].append(record)
    # Each kind in its id order (the order it was written in), merged by time.
    ordered = (sorted(rows, key=lambda r: r.id) for rows in kinds.values())
    return list(heapq.merge(*ordered, key=lambda r: (r.at, rank[key(r)[0]])))


def _match_of(record: Record, matches: Mapping[int, int]) -> int | None:
    if isinstance(record, Row):
        return record.match
    if isinstance(record, Undo):
        return matches.get(record.event)
    return None


def build(records: Sequence[Record], histories: Mapping[int, int]) -> list[Link]:
    """Links for ``records`` in that order; the last row of each match carries that
    match's history digest from ``histories``, the others none."""
    matches = {r.id: r.match for r in records if isinstance(r, Row)}
    last: dict[int, int] = {}
    for n, record in enumerate(records):
        match = _match_of(record, matches)
        if match is not None:
            last[match] = n
    links, previous = [], 0
    for n, record in enumerate(records):
        match = _match_of(record, matches)
        history = histories.get(match, 0) if match is not None and last[match] == n else 0
        previous = next_link(previous, record, history)
        kind, ref = key(record)
        links.append(Link(n + 1, kind, ref, history, previous))
    return links


def verify(links: Sequence[Link], records: Iterable[Record]) -> Break | None:
    """The first place ``links`` and the rows disagree, None when every row is linked once,
    in order, and every link holds."""
    held = {key(r): r for r in records}
    seen: set[tuple[str, int]] = set()
    previous = 0
    last_ref = {"e": 0, "u": 0, "l": 0}
    for n, link in enumerate(links, start=1):
        record = held.get((link.kind, link.ref))
        if record is None or (link.kind, link.ref) in seen:
            return Break(link.kind, link.ref, "deleted")
        if link.seq != n:
            return Break(link.kind, link.ref, "out of order")
        if next_link(previous, record, link.history) != link.link:
            return Break(link.kind, link.ref, "changed")
        if link.kind != "l" and link.ref <= last_ref[link.kind]:
            return Break(link.kind, link.ref, "out of order")
        last_ref[link.kind] = max(last_ref[link.kind], link.ref)
        seen.add((link.kind, link.ref))
        previous = link.link
    extra = sorted(set(held) - seen, key=lambda k: (k[1], k[0]))
    if extra:
        return Break(extra[0][0], extra[0][1], "added")
    return None


def expected_histories(links: Sequence[Link], records: Iterable[Record]) -> dict[int, int]:
    """Each match's history digest as the last of its links that keeps one says."""
    held = {key(r): r for r in records}
    matches = {r.id: r.match for r in held.values() if isinstance(r, Row)}
    out: dict[int, int] = {}
    for link in links:
        record = held.get((link.kind, link.ref))
        match = _match_of(record, matches) if record is not None else None
        if link.history and match is not None:
            out[match] = link.history
    return out
