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
