"""The club server's worker without a broker: round changes the page gave up on."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from firmware.club.clubdb import ClubDB
from firmware.club.server import ClubServer
from firmware.club.settings import parse_broker


class _NoBroker:
    """Stands in for the paho client: the worker never needs the network for rounds."""

    on_connect: Any = None
    on_message: Any = None

    def connect_async(self, *args: Any, **kwargs: Any) -> None: ...
    def loop_start(self) -> None: ...
    def loop_stop(self) -> None: ...
    def disconnect(self) -> None: ...
    def publish(self, *args: Any, **kwargs: Any) -> None: ...


def test_a_round_change_given_up_on_is_skipped_and_the_rest_of_the_batch_goes_on(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "club.sqlite3"
    server = ClubServer(path, broker=parse_broker("mqtt://127.0.0.1:1"),
                        client_factory=lambda *args, **kwargs: _NoBroker())
    withdrawn = server.change_round("start", "Withdrawn")
    assert withdrawn.cancel()  # the page's wait ran out before the worker took it up
    kept = server.change_round("start", "Final")
    with caplog.at_level(logging.ERROR, logger="firmware.club.server"):
        server.start()
        try:
            assert kept.result(timeout=10)["name"] == "Final"
        finally:
            server.stop()
    assert not [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    db = ClubDB(path)
    try:
        assert [r.name for r in db.rounds()] == ["Final"]
    finally:
        db.close()


class _Heard(_NoBroker):
    """Keeps what the server publishes (its resend requests)."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, bytes]] = []

    def publish(self, topic: str, payload: bytes, **kwargs: Any) -> None:
        self.sent.append((topic, payload))


class _Message:
    def __init__(self, topic: str, payload: bytes) -> None:
        self.topic, self.payload = topic, payload


def _settled(server: ClubServer) -> None:
    """Waits until the worker has finished every batch holding a message queued before
    (FIFO, one worker): a round change answered in a later batch than theirs."""
    server.change_round("start").result(timeout=10)
    server.change_round("start").result(timeout=10)


def test_resend_requests_are_at_most_one_a_board_a_window_and_none_to_strangers(
        tmp_path: Path) -> None:
    """Issue 51: a stream of messages saying rows are missing (forged or not) makes the
    server ask a board once per window, from the earliest row; an unknown board's
    messages are refused and ask nothing."""
    import json

    heard = _Heard()
    now = [1000.0]
    server = ClubServer(tmp_path / "club.sqlite3", broker=parse_broker("mqtt://127.0.0.1:1"),
                        boards=frozenset({"table-1"}), clock=lambda: now[0],
                        resend_every_s=5.0, client_factory=lambda *a, **k: heard)
    server.start()
    def claims(last_ids: range) -> None:
        for last in last_ids:
            for board in ("table-1", "t9"):
                payload = json.dumps({"v": 1, "board": board, "store": f"s-{board}",
                                      "last_id": last}).encode()
                server._on_message(None, None, _Message(f"cribbage/club/{board}/now", payload))
        _settled(server)

    try:
        claims(range(20, 30))
        assert heard.sent == [("cribbage/club/table-1/resend",
                               b'{"v":1,"store":"s-table-1","from":1}')]
        assert server.refused == 10 and server.resends_asked == 1
        claims(range(30, 40))  # within the window: merged, not asked
        assert server.resends_asked == 1 and server.refused == 20
        now[0] += 5.0  # the window passes: the merged request goes out, once
        _settled(server)
        assert server.resends_asked == 2 and heard.sent[-1] == heard.sent[0]
    finally:
        server.stop()
