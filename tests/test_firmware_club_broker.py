"""Club night through a real Mosquitto broker on loopback: boards, broker and server failing.

Each test starts its own broker on a free port (tests/mqttbroker.py) and skips,
saying why, where mosquitto is not installed. Whatever fails in the middle, the
server's standings must end up equal to the engine's replay of every board's
stored log, with every row kept exactly once.
"""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mqttbroker import MosquittoBroker, wait_until

from engine.game import Game
from engine.simulate import simulate_game
from firmware.club.publisher import ClubPublisher, start_publisher
from firmware.club.server import ClubServer, create_club_app
from firmware.club.settings import ClubConfig, parse_broker
from firmware.store.eventstore import EventStore
from firmware.store.schema import row_crc

pytestmark = pytest.mark.slow


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[MosquittoBroker]:
    found = MosquittoBroker(tmp_path)
    found.start()
    yield found
    found.stop()


@dataclass
class Table:
    server: ClubServer
    path: Path
    store: EventStore


@pytest.fixture
def table(tmp_path: Path, broker: MosquittoBroker) -> Iterator[Table]:
    """A club server and one board, table-1, publishing a fresh store."""
    server = club_server(broker, tmp_path / "club.sqlite3")
    path = tmp_path / "t.sqlite3"
    store = fresh_store(path)
    board = publisher(broker, path, "table-1")
    yield Table(server, path, store)
    board.stop()
    server.stop()
    store.close()


def club_server(broker: MosquittoBroker, path: Path, **options: Any) -> ClubServer:
    server = ClubServer(path, broker=parse_broker(broker.url), reconnect_max_s=1, **options)
    server.start()
    wait_until(server.connected.is_set, timeout_s=10, what="the club server to connect")
    return server


def publisher(broker: MosquittoBroker, store: Path, board: str, **options: Any) -> ClubPublisher:
    config = ClubConfig(broker=parse_broker(broker.url), board=board,
                        **{k: options.pop(k) for k in ("username", "password") if k in options})
    found = ClubPublisher(store, config, poll_s=0.02, reconnect_max_s=1, **options)
    found.start()
    return found


def store_id(path: Path) -> str:
    with sqlite3.connect(path) as conn:
        return str(conn.execute("SELECT value FROM club_outbox WHERE key = 'store'")
                   .fetchone()[0])


def report(server: ClubServer) -> dict[str, Any]:
    latest = server.hub.latest
    assert latest is not None
    return latest.data()


def rows_held(server: ClubServer, store: str) -> int:
    return next((b["rows"] for b in report(server)["boards"] if b["store"] == store), 0)


def engine_games(path: Path) -> list[tuple[int, str, str, list[int]]]:
    """Every finished game of a store, by the engine's replay of each match's log."""
    with EventStore.open(path, readonly=True) as store:
        out = []
        for match in store.matches():
            game = Game.replay(e.line for e in store.events(match.id))
            out += [(match.id, g.winner, g.result, list(g.scores)) for g in game.match]
        return out


def server_games(server: ClubServer, store: str) -> list[tuple[int, str, str, list[int]]]:
    return [(g["match"], g["winner"], g["result"], [s["score"] for s in g["sides"]])
            for g in report(server)["games"] if g["store"] == store]


def last_id(path: Path) -> int:
    with EventStore.open(path, readonly=True) as store:
        return store.last_id


def caught_up(server: ClubServer, path: Path) -> bool:
    try:
        return rows_held(server, store_id(path)) == last_id(path)
    except (TypeError, sqlite3.Error):
        return False  # the board has not made its store id yet


def fresh_store(path: Path) -> EventStore:
    return EventStore.open(path, clock=time.time)


def game_events(seed: int, players: tuple[str, ...] = ("Ann", "Bob")) -> list[dict[str, Any]]:
    return simulate_game(random.Random(seed), players, {"target": 121})


def write_club_config(path: Path, broker: MosquittoBroker, board: str) -> Path:
    path.write_text(f'[club]\nbroker = "{broker.url}"\nboard = "{board}"\n')
    return path


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "firmware.commands.cli", *args]


def test_device_processes_play_whole_games_and_the_standings_equal_the_engine(
        tmp_path: Path, broker: MosquittoBroker) -> None:
    server = club_server(broker, tmp_path / "club.sqlite3")
    boards = [("table-1", 1, 2), ("table-2", 2, 3), ("table-3", 3, 4), ("table-4", 1, 2)]
    try:
        procs = []
        for board, seed, players in boards:
            config = write_club_config(tmp_path / f"{board}.toml", broker, board)
            procs.append(subprocess.Popen(
                cli("demo", "--camera", "scripted", "--seed", str(seed), "--players",
                    str(players), "--store", str(tmp_path / f"{board}.sqlite3"),
                    "--out", str(tmp_path / board), "--club", str(config), "--json"),
                stdout=subprocess.PIPE, stderr=subprocess.PIPE))
        for proc in procs:
            out, err = proc.communicate(timeout=120)
            assert proc.returncode == 0, err.decode()[-2000:]
            result = json.loads(out)
            # Every row acknowledged before the device stopped (ids count undone rows too).
            assert result["finished"] and result["club"]["sent"] >= result["events"]
        every = {board: tmp_path / f"{board}.sqlite3" for board, _, _ in boards}
        assert len({store_id(p) for p in every.values()}) == 4
        # table-1 and table-4 played the very same game, on the demo's clock: the same
        # events at the same moments, which is one store copied, so it counts once, for
        # whichever came first, and the other board is flagged (issue 60).
        wait_until(lambda: report(server)["flags"], timeout_s=20, what="the copy flagged")
        flag = report(server)["flags"][0]
        copier = flag["board"]
        first = {"table-1": "table-4", "table-4": "table-1"}[copier]
        assert flag["store"] == store_id(every[copier])
        assert f"already holds it from board {first!r}" in flag["reason"]
        stores = [every[b] for b in ("table-2", "table-3", first)]
        for path in stores:
            wait_until(lambda p=path: caught_up(server, p), timeout_s=20,
                       what=f"the server to hold every row of {path.name}")
        for path in stores:
            assert server_games(server, store_id(path)) == engine_games(path)
        assert server_games(server, store_id(every[copier])) == []
        table = report(server)
        games = table["games"]
        assert len(games) == 3
        # Every player of each winning side (partners both) is credited with the win.
        winners = 0
        for path in stores:
            with EventStore.open(path, readonly=True) as store:
                winners += len(next(s for s in store.game.sides
                                    if s.name == store.game.winner).players)
        assert sum(r["wins"] for r in table["standings"]) == winners
        assert server.kept == sum(last_id(p) for p in stores) and server.refused >= 1
    finally:
        server.stop()


def test_the_broker_killed_mid_game_loses_nothing_and_counts_nothing_twice(
        table: Table, broker: MosquittoBroker) -> None:
    server, path, store = table.server, table.path, table.store
    events = game_events(11)
    for event in events[:40]:
        store.append(event)
    wait_until(lambda: caught_up(server, path), timeout_s=20, what="the first 40 rows")
    broker.kill()
    for event in events[40:]:
        store.append(event)  # the board plays on; nothing waits for the broker
    assert store.game.phase == "over"
    broker.start()
    wait_until(lambda: caught_up(server, path), timeout_s=30,
               what="the rows stored while the broker was down")
    assert server_games(server, store_id(path)) == engine_games(path)
    assert server.kept == len(events) and server.refused == 0


def test_a_board_killed_mid_game_and_restarted_catches_up_once(
        tmp_path: Path, broker: MosquittoBroker) -> None:
    server = club_server(broker, tmp_path / "club.sqlite3")
    path = tmp_path / "t.sqlite3"
    config = write_club_config(tmp_path / "club.toml", broker, "table-9")
    device = subprocess.Popen(
        cli("demo", "--camera", "scripted", "--seed", "6", "--store", str(path), "--out",
            str(tmp_path / "out"), "--club", str(config), "--step-seconds", "0.05", "--quiet"),
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        # Killed as soon as it is mid-game with rows already at the server, not once the
        # server has caught up: a busy machine may not catch up before the game ends.
        wait_until(lambda: server.kept > 0 and last_id(path) > 30,
                   timeout_s=60, what="the board to be mid-game and publishing")
        device.kill()
        device.wait(timeout=10)
        stored = last_id(path)
        with EventStore.open(path, readonly=True) as store:
            assert store.game.phase != "over"
            live = [side.score for side in store.game.sides]
        # The board comes back: it publishes what the broker never acknowledged, then
        # plays on (the rest of the game, appended as the device would).
        restarted = subprocess.run(cli("club", "publish", "--config", str(config), "--store",
                                       str(path), "--json"), capture_output=True, timeout=60)
        assert restarted.returncode == 0, restarted.stderr.decode()
        assert json.loads(restarted.stdout)["rows"] == stored
        wait_until(lambda: caught_up(server, path), timeout_s=20, what="the catch-up")
        board = next(b for b in report(server)["boards"] if b["board"] == "table-9")
        assert [s["score"] for s in board["sides"]] == live
        assert server.kept == stored and server.refused == 0
    finally:
        if device.poll() is None:
            device.kill()
        server.stop()


def test_the_club_server_restarted_gets_what_was_sent_while_it_was_down(
        tmp_path: Path, broker: MosquittoBroker) -> None:
    db = tmp_path / "club.sqlite3"
    server = club_server(broker, db)
    path = tmp_path / "t.sqlite3"
    store = fresh_store(path)
    board = publisher(broker, path, "table-1")
    events = game_events(12) + game_events(13, ("Bob", "Ann"))
    try:
        for event in events[:50]:
            store.append(event)
        wait_until(lambda: caught_up(server, path), timeout_s=20, what="the first 50 rows")
        first_kept = server.kept
        server.stop()
        first_match = len(game_events(12))
        for event in events[50:first_match]:
            store.append(event)
        store.start_match(events[first_match])
        for event in events[first_match + 1:]:
            store.append(event)
        wait_until(lambda: board.sent == store.last_id, timeout_s=20,
                   what="the broker to acknowledge every row")
        server = club_server(broker, db)
        wait_until(lambda: caught_up(server, path), timeout_s=30, what="the queued rows")
        assert server_games(server, store_id(path)) == engine_games(path)
        assert len(engine_games(path)) == 2
        assert first_kept + server.kept == store.last_id
    finally:
        board.stop()
        server.stop()
        store.close()


def test_forged_and_malformed_messages_are_refused_and_change_nothing(
        table: Table, broker: MosquittoBroker) -> None:
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    server, path, store = table.server, table.path, table.store
    rogue = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="rogue")
    try:
        for event in game_events(14):
            store.append(event)
        wait_until(lambda: caught_up(server, path), timeout_s=20, what="the honest game")
        before = report(server)["standings"]
        sid = store_id(path)
        rogue.connect("127.0.0.1", broker.port)
        rogue.loop_start()
        line = json.dumps({"type": "adjust", "player": "Bob", "points": 5, "reason": "forged"})
        at, row = time.time(), last_id(path) + 1
        forged_win = {"v": 1, "board": "table-1", "store": sid, "id": row, "match": 1,
                      "crc": row_crc(row, 1, at, line), "at": at, "undone": False,
                      "line": line}
        for payload, where in [
                (b"{not json", "table-1"),
                (json.dumps({**forged_win, "board": "table-2"}).encode(), "table-1"),
                (json.dumps(forged_win).encode(), "table-1")]:
            rogue.publish(f"cribbage/club/{where}/event", payload, qos=1).wait_for_publish(5)
        wait_until(lambda: len(report(server)["refused"]) >= 3, timeout_s=10,
                   what="three refusals")
        reasons = [r["reason"] for r in report(server)["refused"]]
        assert "not JSON" in reasons[0]
        assert "payload names board 'table-2' on the topic of board 'table-1'" in reasons[1]
        assert "the engine refuses it" in reasons[2]
        assert report(server)["standings"] == before
        assert rows_held(server, sid) == last_id(path)
    finally:
        rogue.loop_stop()


def test_a_broker_with_passwords_takes_the_boards_credentials_only(tmp_path: Path) -> None:
    broker = MosquittoBroker(tmp_path, users={"table-1": "s3cret", "club": "c1ub"})
    broker.start()
    path = tmp_path / "t.sqlite3"
    store = fresh_store(path)
    server = club_server(broker, tmp_path / "club.sqlite3", username="club", password="c1ub")
    good = publisher(broker, path, "table-1", username="table-1", password="s3cret")
    bad = publisher(broker, path, "table-2", username="table-2", password="guess")
    try:
        for event in game_events(15)[:20]:
            store.append(event)
        wait_until(lambda: caught_up(server, path), timeout_s=20, what="the good board's rows")
        wait_until(lambda: bad.last_error is not None, timeout_s=10, what="the refusal")
        assert "refused" in (bad.last_error or "") and not bad.connected
        assert [b["board"] for b in report(server)["boards"]] == ["table-1"]
    finally:
        good.stop()
        bad.stop()
        server.stop()
        store.close()
        broker.stop()


def test_the_page_serves_standings_and_rounds_need_the_pin(tmp_path: Path,
                                                           broker: MosquittoBroker) -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
        from starlette.testclient import TestClient

    server = club_server(broker, tmp_path / "club.sqlite3")
    try:
        client = TestClient(create_club_app(server, pin="4821"))
        assert client.get("/api/standings").json()["standings"] == []
        assert "Standings" in client.get("/").text
        assert client.post("/api/round", json={"action": "start"}).status_code == 401
        started = client.post("/api/round", json={"action": "start", "name": "Final"},
                              headers={"X-Pin": "4821"})
        assert started.status_code == 200 and started.json()["round"]["name"] == "Final"
        wait_until(lambda: report(server)["rounds"] != [], timeout_s=5, what="the round")
        assert report(server)["rounds"][0]["open"] is True
        closed = client.post("/api/round", json={"action": "close"}, headers={"X-Pin": "4821"})
        assert closed.json()["round"]["open"] is False
        again = client.post("/api/round", json={"action": "close"}, headers={"X-Pin": "4821"})
        assert again.status_code == 409 and "no round is open" in again.json()["error"]
        no_pin = TestClient(create_club_app(server))
        assert no_pin.post("/api/round", json={"action": "start"}).status_code == 403
    finally:
        server.stop()


def test_the_device_program_publishes_when_its_config_has_a_club_table(
        tmp_path: Path, broker: MosquittoBroker) -> None:
    server = club_server(broker, tmp_path / "club.sqlite3")
    config = write_club_config(tmp_path / "config.toml", broker, "table-5")
    config.write_text(config.read_text() + "[web]\nenabled = false\n")
    path = tmp_path / "events.sqlite3"
    try:
        done = subprocess.run(cli("run", "--config", str(config), "--store", str(path),
                                  "--max-seconds", "1.5"), capture_output=True, timeout=60)
        assert done.returncode == 0, done.stderr.decode()
        out = done.stdout.decode()
        assert f"club: board 'table-5' publishing to {broker.url}" in out
        wait_until(lambda: caught_up(server, path), timeout_s=20, what="the device's rows")
        board = next(b for b in report(server)["boards"] if b["board"] == "table-5")
        game = Game.replay(json.loads(line) for line in _lines(path))
        assert board["next"] == game.next
        # The retained "now" message: the live table for any other subscriber.
        import paho.mqtt.subscribe as subscribe

        now = json.loads(subscribe.simple(  # type: ignore[no-untyped-call]
            "cribbage/club/table-5/now", hostname="127.0.0.1",
            port=broker.port, retained=True).payload)
        assert (now["board"], now["last_id"], now["next"]) == ("table-5", last_id(path),
                                                               game.next)
        assert now["players"] == list(game.players)
    finally:
        server.stop()


def test_a_publisher_woken_by_the_page_hub_sends_before_its_poll(
        tmp_path: Path, broker: MosquittoBroker) -> None:
    """The device wakes its publisher from the hub after each commit: a row reaches the
    server long before a poll that would come only in a minute."""
    from firmware.web.hub import Hub

    server = club_server(broker, tmp_path / "club.sqlite3")
    path = tmp_path / "t.sqlite3"
    store = fresh_store(path)
    board = publisher(broker, path, "table-9")
    board.poll_s = 60.0
    hub = Hub()
    hub.subscribe(board.wake)
    try:
        for event in game_events(3)[:2]:
            store.append(event)
        hub.publish({"rev": "1"})  # what the loop does after its commit
        wait_until(lambda: caught_up(server, path), timeout_s=10, what="the woken rows")
        store.append(game_events(3)[2])
        hub.publish({"rev": "2"})
        wait_until(lambda: caught_up(server, path), timeout_s=10, what="the next woken row")
    finally:
        hub.close()
        board.stop()
        server.stop()
        store.close()


def _lines(path: Path) -> list[str]:
    with EventStore.open(path, readonly=True) as store:
        return list(store.lines)


def test_start_publisher_starts_one_that_wakes_on_the_pages_commits(tmp_path: Path,
                                                                  broker: MosquittoBroker) -> None:
    woken: list[Any] = []

    class Page:
        """The one thing of the page's hub a publisher uses: a listener for each commit."""

        def subscribe(self, listener: Any) -> Any:
            woken.append(listener)
            return lambda: None

    path = tmp_path / "t.sqlite3"
    store = fresh_store(path)
    config = ClubConfig(broker=parse_broker(broker.url), board="table-1")
    board = start_publisher(path, config, hub=Page())  # type: ignore[arg-type]
    try:
        assert woken == [board.wake]
        wait_until(lambda: board.connected, timeout_s=10, what="the board to connect")
        for event in game_events(5)[:12]:
            store.append(event)
        assert board.flush(store.last_id, timeout_s=10) and board.sent == store.last_id
    finally:
        board.stop()
        store.close()
