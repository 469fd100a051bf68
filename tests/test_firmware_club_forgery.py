"""Issue 51: nobody but a real board counts, through a real Mosquitto on loopback.

The broker is set up by ``club setup-broker`` itself (a login per board, the ACL, no
anonymous clients), so a forger is stopped at the broker; the server, given the
club's boards, refuses what an open broker lets through; a board answers a storm of
resend requests once. Whatever is forged, the standings stay the engine's replay of
every real board's log.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from clubforger import forged_game, hang_up, publish_all, refused, rogue, secured_broker, undo_of
from mqttbroker import MosquittoBroker, wait_until
from test_firmware_club_broker import (
    caught_up,
    engine_games,
    fresh_store,
    game_events,
    last_id,
    report,
    server_games,
    store_id,
)

from firmware.club.publisher import ClubPublisher
from firmware.club.server import ClubServer
from firmware.club.settings import ClubConfig, parse_broker, read_boards

pytestmark = pytest.mark.slow


@dataclass
class Club:
    broker: MosquittoBroker
    passwords: dict[str, str]   # board -> password, as setup-broker printed them
    server_password: str
    boards: frozenset[str]


@pytest.fixture
def club(tmp_path: Path) -> Iterator[Club]:
    """A broker configured by ``setup_broker`` for table-1 and table-2 (its files' paths
    pointed at the test's root)."""
    secured = secured_broker(tmp_path, ("table-1", "table-2"))
    secured.broker.start()
    yield Club(secured.broker, secured.passwords, secured.server_password,
               read_boards(secured.etc / "club-boards"))
    secured.broker.stop()


def counted(server: ClubServer, path: Path) -> None:
    """The standings hold exactly the engine's replay of the real board's log."""
    assert server_games(server, store_id(path)) == engine_games(path)
    assert {g["store"] for g in report(server)["games"]} <= {store_id(path)}


def real_board(club: Club, path: Path, board: str = "table-1", **options: Any) -> ClubPublisher:
    config = ClubConfig(broker=parse_broker(club.broker.url), board=board, username=board,
                        password=club.passwords[board])
    found = ClubPublisher(path, config, poll_s=0.02, reconnect_max_s=1, **options)
    found.start()
    return found


def club_server(club: Club, db: Path, *, boards: frozenset[str] | None) -> ClubServer:
    server = ClubServer(db, broker=parse_broker(club.broker.url), username="club",
                        password=club.server_password, boards=boards, reconnect_max_s=1)
    server.start()
    wait_until(server.connected.is_set, timeout_s=10, what="the club server to log in")
    return server


def test_the_broker_refuses_forgers_and_the_real_board_still_counts(tmp_path: Path,
                                                                    club: Club) -> None:
    server = club_server(club, tmp_path / "club.sqlite3", boards=club.boards)
    path = tmp_path / "t1.sqlite3"
    store = fresh_store(path)
    board = real_board(club, path)
    events = game_events(21)
    forgers: list[Any] = []
    try:
        for event in events:
            store.append(event)
        wait_until(lambda: caught_up(server, path), timeout_s=30, what="table-1's game")
        counted(server, path)
        before, kept = report(server)["standings"], server.kept
        assert kept == last_id(path)
        # Nobody logs in without a password, or with a guessed one.
        anonymous = rogue(club.broker)
        guessed = rogue(club.broker, login=("table-1", "guess"))
        forgers += [anonymous, guessed]
        assert refused(anonymous) and refused(guessed)
        # table-2's owner, logged in: a whole legal game as board t9, the undo of table-1's
        # game-ending row on table-1's topic, and ten resend requests to table-1.
        inside = rogue(club.broker, login=("table-2", club.passwords["table-2"]))
        forgers.append(inside)
        assert not refused(inside)
        game = forged_game(tmp_path, "t9", game_events(22))
        publish_all(inside, "cribbage/club/t9/event", game)
        publish_all(inside, "cribbage/club/table-1/event", [undo_of(path, 1, "table-1")])
        resend = json.dumps({"v": 1, "store": store_id(path), "from": 1}).encode()
        publish_all(inside, "cribbage/club/table-1/resend", [resend] * 10)
        denied = len(game) + 1 + 10
        wait_until(lambda: club.broker.denied() >= denied, timeout_s=10,
                   what="the broker to drop every forged message")
        # table-2 on its own topic, speaking for table-1's store: the server refuses it.
        publish_all(inside, "cribbage/club/table-2/event", [undo_of(path, 1, "table-2")])
        wait_until(lambda: report(server)["refused"], timeout_s=10,
                   what="the server's refusal on the standings page")
        reasons = [r["reason"] for r in report(server)["refused"]]
        assert any("belongs to board 'table-1': board 'table-2' cannot write" in r
                   for r in reasons)
        assert board.resends_answered == 0 and board.resends_ignored == 0
        assert server.kept == kept and server.refused == 1
        assert report(server)["standings"] == before
        counted(server, path)
        assert [b["board"] for b in report(server)["boards"]] == ["table-1"]
    finally:
        hang_up(forgers)
        board.stop()
        server.stop()
        store.close()


def test_on_an_open_broker_the_server_refuses_what_no_real_board_sends(
        tmp_path: Path) -> None:
    """Anyone may publish anything here: the server's own checks are all that stand."""
    broker = MosquittoBroker(tmp_path)
    broker.start()
    db = tmp_path / "club.sqlite3"
    server = ClubServer(db, broker=parse_broker(broker.url), reconnect_max_s=1,
                        boards=frozenset({"table-1", "table-2"}))
    server.start()
    path = tmp_path / "t1.sqlite3"
    store = fresh_store(path)
    config = ClubConfig(broker=parse_broker(broker.url), board="table-1")
    board = ClubPublisher(path, config, poll_s=0.02, reconnect_max_s=1, resend_every_s=3600)
    board.start()
    forger: Any = None
    try:
        wait_until(server.connected.is_set, timeout_s=10, what="the server")
        first = game_events(23)
        for event in first:
            store.append(event)
        second = game_events(24, ("Cy", "Di"))
        store.start_match(second[0])
        for event in second[1:10]:
            store.append(event)
        wait_until(lambda: caught_up(server, path), timeout_s=30, what="table-1's rows")
        counted(server, path)
        before, kept = report(server)["standings"], server.kept
        forger = rogue(broker)
        # A whole legal game as t9: every message refused, each logged.
        game = forged_game(tmp_path, "t9", game_events(25))
        publish_all(forger, "cribbage/club/t9/event", game)
        # The first match's game-ending row undone, on table-1's own topic, checksum and all.
        publish_all(forger, "cribbage/club/table-1/event", [undo_of(path, 1, "table-1")])
        wait_until(lambda: server.refused >= len(game) + 1 and "out of order" in
                   report(server)["refused"][-1]["reason"], timeout_s=20,
                   what="every forged row refused, and the standings page saying so")
        reasons = [r["reason"] for r in report(server)["refused"]]
        assert "board 't9' is not one of the club's boards" in reasons[-2]
        assert "undone out of order: its match 1 ended when match 2 began" in reasons[-1]
        # Ten resend requests: the board answers the first, merges the rest into a later
        # one (an hour on), and ignores one for a store it does not have.
        heard: list[bytes] = []
        forger.on_message = lambda c, u, m: heard.append(m.payload)
        forger.subscribe("cribbage/club/table-1/event", qos=1)
        time.sleep(0.3)  # the subscription in place (a real broker: no clock to move)
        resend = json.dumps({"v": 1, "store": store_id(path), "from": 1}).encode()
        publish_all(forger, "cribbage/club/table-1/resend", [resend] * 10)
        publish_all(forger, "cribbage/club/table-1/resend",
                    [json.dumps({"v": 1, "store": "0" * 16, "from": 1}).encode()])
        wait_until(lambda: board.resends_answered == 1 and len(heard) >= last_id(path),
                   timeout_s=20, what="the one answer")
        time.sleep(1.0)  # room for any further answer to show (there must be none)
        assert board.resends_answered == 1 and len(heard) == last_id(path)
        assert board.resends_ignored == 1
        assert server.kept == kept and server.refused == len(game) + 1
        assert report(server)["standings"] == before
        counted(server, path)
    finally:
        hang_up([forger] if forger is not None else [])
        board.stop()
        server.stop()
        store.close()
        broker.stop()


def test_a_member_cannot_take_the_servers_session_or_another_boards(tmp_path: Path,
                                                                      club: Club) -> None:
    """Issue 60: the broker ties client ids to logins (``use_username_as_clientid``), so a
    member connecting under the server's client id, or under another board's, takes over
    nobody; without it (the plain broker below) the same connection does."""
    server = club_server(club, tmp_path / "club.sqlite3", boards=club.boards)
    path = tmp_path / "t1.sqlite3"
    store = fresh_store(path)
    board = real_board(club, path)
    forgers: list[Any] = []
    try:
        for event in game_events(26)[:20]:
            store.append(event)
        wait_until(lambda: caught_up(server, path), timeout_s=30, what="table-1's rows")
        assert server._db is not None
        secret = server._db.meta("client_id")
        login = ("table-2", club.passwords["table-2"])
        for client_id in (secret, "club", "table-1"):
            forgers.append(rogue(club.broker, login=login, client_id=client_id))
            assert not refused(forgers[-1])
        time.sleep(0.5)  # room for a takeover to show in the broker's log (there is none)
        assert club.broker.taken_over(secret) == 0 and club.broker.taken_over("club") == 0
        # The member's connections all became table-2, each taking the one before over:
        # the only sessions taken over are its own.
        assert club.broker.taken_over("table-2") == 2 == club.broker.taken_over()
        for event in game_events(26)[20:40]:
            store.append(event)
        wait_until(lambda: caught_up(server, path), timeout_s=30, what="rows after it")
        counted(server, path)
    finally:
        hang_up(forgers)
        board.stop()
        server.stop()
        store.close()


def test_on_a_broker_without_tied_ids_a_known_client_id_takes_a_session_over(
        tmp_path: Path) -> None:
    """What the tie prevents, shown on a broker without it: a newcomer with a connected
    client's id closes that client's connection (MQTT 3.1.1 section 3.1.4)."""
    broker = MosquittoBroker(tmp_path, log_all=True)
    broker.start()
    first = second = None
    try:
        first = rogue(broker, client_id="cribbage-club-known")
        second = rogue(broker, client_id="cribbage-club-known")
        wait_until(lambda: broker.taken_over("cribbage-club-known") == 1, timeout_s=10,
                   what="the broker to close the first connection")
    finally:
        hang_up([c for c in (first, second) if c is not None])
        broker.stop()


def test_a_member_reads_nothing_but_its_own_resend_requests(tmp_path: Path, club: Club) -> None:
    """The ACL's read side: ``pattern read P/%u/resend`` for a board and ``topic read
    P/+/event`` for the server login only. A member subscribing to every board's rows, or
    to another board's resend requests, gets none of them (the broker grants or refuses
    the subscription as its version does; what matters is that nothing is delivered)."""
    import paho.mqtt.client as mqtt  # noqa: F401 - the rogue clients need it

    login = ("table-2", club.passwords["table-2"])
    snoop, server_side, speaker = (
        rogue(club.broker, login=login),
        rogue(club.broker, login=("club", club.server_password)),
        rogue(club.broker, login=("table-1", club.passwords["table-1"])))
    heard: dict[str, list[str]] = {"snoop": [], "server": [], "table-1": []}
    snoop.on_message = lambda c, u, m: heard["snoop"].append(m.topic)
    server_side.on_message = lambda c, u, m: heard["server"].append(m.topic)
    speaker.on_message = lambda c, u, m: heard["table-1"].append(m.topic)
    granted: list[Any] = []
    snoop.on_subscribe = lambda c, u, mid, codes, p: granted.extend(codes)
    try:
        snoop.subscribe([("cribbage/club/+/event", 1), ("cribbage/club/table-1/resend", 1),
                         ("cribbage/club/#", 1)])
        server_side.subscribe("cribbage/club/+/event", qos=1)
        speaker.subscribe("cribbage/club/table-1/resend", qos=1)
        wait_until(lambda: len(granted) == 3, timeout_s=10, what="the member's SUBACK")
        time.sleep(0.3)  # the subscriptions in place (a real broker: no clock to move)
        publish_all(speaker, "cribbage/club/table-1/event", [b"{}"])
        publish_all(server_side, "cribbage/club/table-1/resend", [b"{}"])
        wait_until(lambda: heard["server"] and heard["table-1"], timeout_s=10,
                   what="the rightful readers to get both messages")
        time.sleep(0.5)  # room for a wrongful delivery to show (there must be none)
        assert heard["snoop"] == []
        assert heard == {"snoop": [], "server": ["cribbage/club/table-1/event"],
                         "table-1": ["cribbage/club/table-1/resend"]}
    finally:
        hang_up([snoop, server_side, speaker])


def test_a_members_flood_of_unreadable_messages_never_holds_up_another_boards_rows(
        tmp_path: Path, club: Club) -> None:
    """Issue 60: table-2's login floods its own topic with JSON nested past the parser and
    rows whose match is 2^63 (checksum and all) while table-1 publishes a game. Each is
    refused and listed alone; table-1's rows all count, none waits for a resend."""
    from firmware.club.messages import EventMessage
    from firmware.store.schema import row_crc

    server = club_server(club, tmp_path / "club.sqlite3", boards=club.boards)
    path = tmp_path / "t1.sqlite3"
    store = fresh_store(path)
    board = real_board(club, path)
    inside = rogue(club.broker, login=("table-2", club.passwords["table-2"]))
    deep = b"[" * 30_000 + b"]" * 30_000
    line = json.dumps({"type": "go"})
    huge = EventMessage("table-2", "f" * 16, 1, 2 ** 63, row_crc(1, 2 ** 63, 1.5, line), 1.5,
                        line).payload()
    try:
        sent = [inside.publish("cribbage/club/table-2/event", deep if n % 2 else huge, qos=1)
                for n in range(200)]
        began = time.monotonic()
        for event in game_events(27):
            store.append(event)
        wait_until(lambda: caught_up(server, path), timeout_s=30, what="table-1's game")
        took = time.monotonic() - began
        for message in sent:
            message.wait_for_publish(10)
        wait_until(lambda: server.refused >= 200, timeout_s=30, what="every flooded message")
        assert server.refused == 200 and server.kept == last_id(path)
        assert board.resends_answered == 0  # nothing of table-1's was ever missing
        counted(server, path)
        reasons = [r["reason"] for r in report(server)["refused"]]
        assert any("nested too deeply" in r for r in reasons)
        assert any("match is out of range" in r for r in reasons)
        print(f"table-1: {last_id(path)} rows held {took:.2f} s after the first, "
              f"during a flood of 200 messages")
    finally:
        hang_up([inside])
        board.stop()
        server.stop()
        store.close()
