"""The JSON payloads boards and the club server exchange, checked on the way in.

Topics (``P`` is ``[club] topic_prefix``, ``cribbage/club`` by default; ``B`` the board):

- ``P/B/event`` (QoS 1): one row of the board's store, in store order. A row is sent
  again when it is undone (``undone: true``) and whenever the board is asked to
  resend; the consumer keys rows by (``store``, ``id``), so repeats change nothing.
  An id a repair of the store could not keep comes as ``lost: true`` with no line.
- ``P/B/now`` (QoS 1, retained): the live table after each change, with ``last_id``,
  the newest row the board has stored, so a consumer sees what it is missing.
- ``P/B/resend`` (QoS 1, club server to board): ``{"store": ..., "from": N}`` asks for
  the rows from id N again.
- ``P/B/online`` (retained): ``online``, or ``offline`` as the board's last will.

``store`` names the board's event store, not the board: it is derived from the
store's first row, which survives a rename of the board and a recovered store.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from firmware.club.outbox import OutboxRow

__all__ = ["EventMessage", "NowMessage", "ResendMessage", "MessageError", "topic",
           "parse_topic", "KINDS", "MAX_PAYLOAD"]

KINDS = ("event", "now", "resend", "online")
MAX_PAYLOAD = 64 * 1024
#: SQLite keeps integers in 8 bytes: a number past this could not be stored (OverflowError).
MAX_INT = 2 ** 63 - 1


class MessageError(ValueError):
    """A payload or topic that is not what the club protocol says; the message says why."""


def topic(prefix: str, board: str, kind: str) -> str:
    return f"{prefix}/{board}/{kind}"


def parse_topic(prefix: str, name: str) -> tuple[str, str]:
    """(board, kind) of a topic under ``prefix``."""
    head, _, rest = name.partition(prefix + "/")
    parts = rest.split("/")
    if head or len(parts) != 2 or parts[1] not in KINDS or not parts[0]:
        raise MessageError(f"not a club topic: {name!r}")
    return parts[0], parts[1]


def _load(payload: bytes) -> dict[str, Any]:
    if len(payload) > MAX_PAYLOAD:
        raise MessageError(f"payload of {len(payload)} bytes is over {MAX_PAYLOAD}")
    try:
        data = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise MessageError(f"not JSON ({exc}): {payload[:80]!r}") from None
    except RecursionError:
        # No club message nests; Python's parser gives up (RecursionError, not ValueError)
        # at about a thousand levels, which 64 KiB of brackets reaches.
        raise MessageError(f"JSON nested too deeply: {payload[:40]!r}") from None
    if not isinstance(data, dict):
        raise MessageError(f"not a JSON object: {payload[:80]!r}")
    return data


def _field(data: dict[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    value = data.get(key)
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in (
            kind if isinstance(kind, tuple) else (kind,))):
        raise MessageError(f"{key} is missing or of the wrong type: {value!r}")
    if isinstance(value, int) and not -MAX_INT <= value <= MAX_INT:
        raise MessageError(f"{key} is out of range (at most {MAX_INT}): {value}")
    return value


def _check_board(data: dict[str, Any], board: str) -> None:
    """A payload naming another board than its topic is someone else speaking for it."""
    said = _field(data, "board", str)
    if said != board:
        raise MessageError(f"payload names board {said!r} on the topic of board {board!r}")


def _dump(data: dict[str, Any]) -> bytes:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()


@dataclass(frozen=True, slots=True)
class EventMessage:
    """One stored row: ``line`` is CONTRACT.md's event line, ``crc`` the store's checksum."""

    board: str
    store: str
    id: int
    match: int
    crc: int
    at: float
    line: str
    undone: bool = False
    lost: bool = False

    @classmethod
    def of(cls, board: str, store: str, row: OutboxRow) -> EventMessage:
        """The message that publishes an outbox row of ``store`` as ``board``."""
        return cls(board, store, row.id, row.match, row.crc, row.at, row.line, row.undone,
                   row.lost)

    def payload(self) -> bytes:
        return _dump({"v": 1, "board": self.board, "store": self.store, "id": self.id,
                      "match": self.match, "crc": self.crc, "at": self.at, "line": self.line,
                      "undone": self.undone, "lost": self.lost})

    @classmethod
    def parse(cls, payload: bytes, *, board: str) -> EventMessage:
        """Checks a payload from topic ``P/board/event``; a payload naming another board is
        refused (it is someone else speaking for it)."""
        data = _load(payload)
        _check_board(data, board)
        row_id, match, crc = (_field(data, k, int) for k in ("id", "match", "crc"))
        lost = data.get("lost", False)
        if not isinstance(lost, bool):
            raise MessageError(f"lost is not true or false: {lost!r}")
        if row_id < 1 or match < (0 if lost else 1) or not 0 <= crc < 2 ** 32:
            raise MessageError(f"id, match and crc out of range: {row_id!r}, {match!r}, {crc!r}")
        at = _field(data, "at", (int, float))
        if not math.isfinite(at):
            raise MessageError(f"at is not a time: {at!r}")
        store = _field(data, "store", str)
        if not 1 <= len(store) <= 64:
            raise MessageError(f"store is not a store id: {store!r}")
        line = _field(data, "line", str)
        return cls(board, store, row_id, match, crc, float(at), line,
                   _field(data, "undone", bool), lost)


@dataclass(frozen=True, slots=True)
class NowMessage:
    """The live table as the board shows it (for display; the server folds its own)."""

    board: str
    store: str
    last_id: int
    table: dict[str, Any]

    def payload(self) -> bytes:
        return _dump({"v": 1, "board": self.board, "store": self.store,
                      "last_id": self.last_id, **self.table})

    @classmethod
    def parse(cls, payload: bytes, *, board: str) -> NowMessage:
        data = _load(payload)
        _check_board(data, board)
        last_id = _field(data, "last_id", int)
        if last_id < 0:
            raise MessageError(f"last_id out of range: {last_id!r}")
        table = {k: v for k, v in data.items() if k not in ("v", "board", "store", "last_id")}
        return cls(board, _field(data, "store", str), last_id, table)


@dataclass(frozen=True, slots=True)
class ResendMessage:
    store: str
    start: int

    def payload(self) -> bytes:
        return _dump({"v": 1, "store": self.store, "from": self.start})

    @classmethod
    def parse(cls, payload: bytes) -> ResendMessage:
        data = _load(payload)
        start = _field(data, "from", int)
        if start < 1:
            raise MessageError(f"from out of range: {start!r}")
        return cls(_field(data, "store", str), start)
