"""Issue 60 item 5: the club against its own members' logins, without a broker.

A member holds a real login, so the broker lets it publish on its own topics: whatever it
sends there, the club must not count a game twice, lose a finished game, drop other
boards' rows, grow without bound, or let its session be taken
(tests/test_firmware_club_forgery.py runs the broker's half through Mosquitto).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from test_firmware_club_clubdb import damage_row, fake_clock, forged, ingest, played, rows
from test_firmware_club_server import _Heard, _Message, _settled

from firmware.club.brokersetup import BrokerPlan, setup_broker
from firmware.club.clubdb import ClubDB
from firmware.club.messages import EventMessage, MessageError
from firmware.club.server import ClubServer
from firmware.club.settings import parse_broker
from firmware.store.eventstore import EventStore


@pytest.fixture
def db(tmp_path: Path):  # type: ignore[no-untyped-def]
    club = ClubDB(tmp_path / "club.sqlite3", clock=fake_clock(5000.0))
    yield club
    club.close()


def test_another_boards_store_republished_under_a_new_store_id_counts_once(
        tmp_path: Path, db: ClubDB) -> None:
    store = played(tmp_path / "t1.sqlite3", seed=3)
    real = rows(store.path, "table-1")
    assert set(ingest(db, real)) == {"kept"} and len(db.games()) == 1
    # table-2 re-publishes table-1's whole store as its own: same events, same times.
    copy = [dataclasses.replace(m, board="table-2", store="c0ffee" * 2) for m in real]
    outcome = ingest(db, copy)
    assert outcome[0] == "refused" and "kept" not in outcome
    assert len(db.games()) == 1 and db.last_id("c0ffee" * 2) == 0
    assert "already holds it from board 'table-1'" in db.refusals()[-1]["reason"]
    assert [f["board"] for f in db.flags()] == ["table-2"]
    # Its own game, played after, is taken as any board's.
    own = rows(played(tmp_path / "t2.sqlite3", seed=4, start=9000.0).path, "table-2")
    assert set(ingest(db, own)) == {"kept"} and len(db.games()) == 2


def test_a_finished_game_stays_counted_when_its_board_says_a_row_was_lost(
        tmp_path: Path, db: ClubDB) -> None:
    path = tmp_path / "t.sqlite3"
    played(path, seed=10).close()
    first = rows(path, "table-1")
    assert set(ingest(db, first)) == {"kept"}
    counted = db.games()
    assert len(counted) == 1
    # The board marks the game's last row lost (a repair, or a member editing its store).
    lost = dataclasses.replace(first[-1], lost=True, line="", crc=0)
    assert ingest(db, [lost]) == ["refused"]
    assert db.games() == counted
    flags = db.flags()
    assert len(flags) == 1 and flags[0]["store"] == first[0].store
    assert f"row {first[-1].id}" in flags[0]["reason"] and "finished game" in flags[0]["reason"]
    assert any(b.get("flagged") for b in db.report()["boards"])
    # A real repair of the card the same way: the club keeps the game and says so.
    damage_row(path, len(first))
    repaired = EventStore.open(path, clock=fake_clock(2000.0))
    again = rows(path, "table-1")
    ingest(db, again)
    assert db.games() == counted
    repaired.close()


def test_a_row_of_an_unfinished_game_lost_by_a_repair_still_stops_counting(
        tmp_path: Path, db: ClubDB) -> None:
    path = tmp_path / "t.sqlite3"
    played(path, seed=10, upto=30).close()
    sent = rows(path, "t")
    ingest(db, sent)
    lost = dataclasses.replace(sent[-1], lost=True, line="", crc=0)
    assert ingest(db, [lost]) == ["kept"]
    assert db.match_lines(sent[0].store, 1) == [m.line for m in sent[:-1]]
    assert db.flags() == []


def test_a_row_that_contradicts_what_the_club_holds_flags_its_board(
        tmp_path: Path, db: ClubDB) -> None:
    store = played(tmp_path / "t.sqlite3", seed=6, upto=30)
    sent = rows(store.path, "table-1")
    ingest(db, sent)
    assert db.flags() == []
    edited = forged(sent[20], at=sent[20].at + 60)  # a row rewritten, its CRC made again
    assert ingest(db, [edited]) == ["refused"]
    flags = db.flags()
    assert [(f["board"], f["store"]) for f in flags] == [("table-1", sent[0].store)]
    assert "row 21" in flags[0]["reason"] and flags[0]["count"] == 1
    assert ingest(db, [edited, edited]) == ["refused", "refused"]
    assert db.flags()[0]["count"] == 3


def deep(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


def test_deep_json_and_huge_numbers_are_refused_each_as_a_message(tmp_path: Path) -> None:
    store = played(tmp_path / "t.sqlite3", seed=6, upto=3)
    good = rows(store.path, "table-1")[0]
    huge = forged(good, match=2 ** 63)
    for payload, why in [(deep(30_000), "nested"), (huge.payload(), "match"),
                         (forged(good, id=2 ** 70).payload(), "id"),
                         (b'{"v": 1, "board": "table-1", ' + b'"x": ' + deep(5000) + b"}",
                          "nested")]:
        with pytest.raises(MessageError, match=why):
            EventMessage.parse(payload, board="table-1")


def test_bad_messages_in_a_batch_are_refused_alone_and_every_good_row_is_kept(
        tmp_path: Path) -> None:
    heard = _Heard()
    server = ClubServer(tmp_path / "club.sqlite3", broker=parse_broker("mqtt://127.0.0.1:1"),
                        client_factory=lambda *a, **k: heard)
    one = rows(played(tmp_path / "t1.sqlite3", seed=6, upto=40).path, "table-1")
    two = rows(played(tmp_path / "t2.sqlite3", seed=7, upto=40, start=9000.0).path,
               "table-2")
    bad = [("table-3", deep(30_000)), ("table-3", forged(two[0], board="table-3",
                                                          store="f" * 16,
                                                          match=2 ** 63).payload())]
    server.start()
    try:
        server._queue.put(None)  # held back: everything below lands in one batch
        for n in range(40):
            for board, row in (("table-1", one[n]), ("table-2", two[n])):
                server._on_message(None, None, _Message(f"cribbage/club/{board}/event",
                                                        row.payload()))
            if n % 10 == 5:
                for board, payload in bad:
                    server._on_message(None, None,
                                       _Message(f"cribbage/club/{board}/event", payload))
        _settled(server)
        assert server.kept == 80 and server.refused == 8
        reasons = [r["reason"] for r in server._db.refusals(last=100)]  # type: ignore[union-attr]
        assert len(reasons) == 8 and all("table-3" in r or "nested" in r or "match" in r
                                         for r in reasons)
    finally:
        server.stop()


def test_the_refusals_kept_are_bounded_under_a_flood(tmp_path: Path) -> None:
    db = ClubDB(tmp_path / "club.sqlite3", clock=fake_clock(5000.0), max_refusals=500)
    try:
        with db.batch():
            for n in range(5000):
                db.refuse("cribbage/club/t9/event", f"flood {n}")
        with sqlite3.connect(tmp_path / "club.sqlite3") as conn:
            held = conn.execute("SELECT count(*) FROM refusals").fetchone()[0]
        assert held <= 500
        assert db.refusals(last=1)[0]["reason"] == "flood 4999"
        assert db.refused_total() == 5000
    finally:
        db.close()


def client_ids(tmp_path: Path, db: Path) -> list[str]:
    made: list[dict[str, Any]] = []

    def factory(*args: Any, **kwargs: Any) -> _Heard:
        made.append(kwargs)
        return _Heard()

    for _ in range(2):
        server = ClubServer(db, broker=parse_broker("mqtt://127.0.0.1:1"),
                            client_factory=factory)
        server.start()
        server.stop()
    return [m["client_id"] for m in made]


def test_the_servers_client_id_cannot_be_guessed_from_its_path_and_survives_a_restart(
        tmp_path: Path) -> None:
    path = tmp_path / "club.sqlite3"
    first = client_ids(tmp_path, path)
    guessed = "cribbage-club-" + hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:12]
    assert first[0] == first[1] != guessed  # one persistent session across restarts
    assert len(first[0]) >= len("cribbage-club-") + 32
    for leftover in tmp_path.glob("club.sqlite3*"):
        leftover.unlink()
    assert client_ids(tmp_path, path)[0] != first[0]  # a new club database: a new secret


def test_setup_broker_ties_every_listeners_client_ids_to_logins(tmp_path: Path) -> None:
    setup_broker(BrokerPlan(boards=("table-1",), root=tmp_path, certfile=Path("/c.pem"),
                            keyfile=Path("/k.pem")))
    lines = (tmp_path / "etc/mosquitto/conf.d/cribbage-club.conf").read_text().splitlines()
    listeners = [n for n, line in enumerate(lines) if line.startswith("listener ")]
    assert len(listeners) == 2
    # A listener option (mosquitto's conf.c sets it on the listener above it): one each.
    for start, end in zip(listeners, listeners[1:] + [len(lines)], strict=True):
        assert "use_username_as_clientid true" in lines[start:end]


def test_a_now_message_with_a_huge_last_id_is_refused(tmp_path: Path) -> None:
    payload = json.dumps({"v": 1, "board": "t", "store": "s", "last_id": 2 ** 64}).encode()
    from firmware.club.messages import NowMessage
    with pytest.raises(MessageError, match="last_id"):
        NowMessage.parse(payload, board="t")


@pytest.mark.parametrize("name", ["t+1", "t#", "table/1", "+", "#", "club/table-1"])
def test_a_board_login_is_one_topic_level_without_wildcards(tmp_path: Path, name: str) -> None:
    """``pattern write P/%u/event`` puts the login in one topic level: a ``/`` would reach
    another board's topics, and mosquitto denies everything to a login holding ``+`` or
    ``#`` once pattern ACLs exist (src/security_default.c)."""
    from firmware.club.settings import ClubConfigError

    with pytest.raises(ClubConfigError, match="board must be a name"):
        setup_broker(BrokerPlan(boards=(name,), root=tmp_path))
