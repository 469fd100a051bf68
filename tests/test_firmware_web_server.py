"""The phone page over HTTP: Starlette's TestClient against a device whose loop runs on its
own thread, a real uvicorn thread for the event stream and shutdown, and ``run``."""

from __future__ import annotations

import json
import os
import signal
import socket
import threading
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("httpx")

import httpx  # noqa: E402

with warnings.catch_warnings():  # newer Starlette would rather have the httpx2 fork
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient  # noqa: E402
from mqttbroker import free_port  # noqa: E402
from webrig import PIN, Device, scripted_game, starter_step  # noqa: E402

from firmware.commands.cli import main  # noqa: E402
from firmware.store.eventstore import EventStore  # noqa: E402
from firmware.web.connections import STREAMS_PER_CLIENT, StreamSeats  # noqa: E402
from firmware.web.inputs import TableSettings  # noqa: E402
from firmware.web.pins import client_key  # noqa: E402
from firmware.web.server import MAX_BODY, PinGuard, WebServer, create_app, new_pin  # noqa: E402
from firmware.web.settings import settings_path  # noqa: E402
from firmware.web.snapshot import revision  # noqa: E402

LOCAL = ("127.0.0.1", 50000)


class Served:
    """A running device with the page's app over its hub."""

    def __init__(self, device: Device) -> None:
        self.device = device
        self.saved: list[TableSettings] = []
        self.app = create_app(device.hub, pin=PIN, on_settings=self.saved.append)
        self.client = TestClient(self.app, client=LOCAL, base_url="http://192.168.1.5:8080")
        self.count = 0

    def post(self, body: Any, *, pin: str | None = PIN, **headers: str) -> httpx.Response:
        sent = {"X-Pin": pin} if pin is not None else {}
        sent.update(headers)
        if isinstance(body, dict | list):
            return self.client.post("/api/action", json=body, headers=sent)
        return self.client.post("/api/action", content=body, headers=sent)

    def change(self, action: str, **fields: Any) -> dict[str, Any]:
        """A well-formed request body against the page's current revision."""
        self.count += 1
        return {"action": action, "rev": self.device.state()["rev"],
                "nonce": f"test-nonce-{self.count:04d}", **fields}


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    device = Device(tmp_path / "events.sqlite3")
    device.start()
    truth, steps = scripted_game()
    device.play(steps[:starter_step(steps) + 1])  # cut and starter: Bob to lead
    device.run_thread()
    found = Served(device)
    found.truth = truth  # type: ignore[attr-defined]
    yield found
    found.client.close()
    device.close()


def test_viewing_needs_no_pin(served: Served) -> None:
    page = served.client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert '<script src="/static/app.js"' in page.text
    for name, kind in (("app.js", "javascript"), ("style.css", "text/css")):
        asset = served.client.get(f"/static/{name}")
        assert asset.status_code == 200 and kind in asset.headers["content-type"]
    state = served.client.get("/api/state")
    assert state.status_code == 200
    data = state.json()
    assert data["rev"] == revision(served.device.store) and data["phase"] == "play"
    assert [s["name"] for s in data["sides"]] == ["Ann", "Bob"]


def test_the_page_serves_the_local_network_only(served: Served) -> None:
    outside = TestClient(served.app, client=("8.8.8.8", 4000), base_url="http://10.0.0.2")
    response = outside.get("/api/state")
    assert response.status_code == 403
    assert response.json() == {"error": "the phone page serves the local network only"}
    for address in ("192.168.1.20", "10.0.0.7", "fe80::1", "100.100.1.1", "::1"):
        phone = TestClient(served.app, client=(address, 4000), base_url="http://cribbage.local")
        assert phone.get("/").status_code == 200
    # A public name for a local address is DNS rebinding: another site posing as the board.
    rebound = TestClient(served.app, client=LOCAL, base_url="http://evil.example.com")
    response = rebound.get("/api/state")
    assert response.status_code == 403 and "open the board by its address" in \
        response.json()["error"]


def test_a_change_without_the_right_pin_is_refused_and_changes_nothing(served: Served) -> None:
    lines = served.device.lines()
    response = served.post(served.change("undo"), pin=None)
    assert response.status_code == 401 and "PIN" in response.json()["error"]
    response = served.post(served.change("undo"), pin="0000")
    assert (response.status_code, response.json()) == (401, {"error": "wrong PIN"})
    assert served.client.post("/api/pin", headers={"X-Pin": PIN}).json() == {"ok": True}
    assert served.client.post("/api/pin", headers={"X-Pin": "1"}).status_code == 401
    assert served.device.lines() == lines


def test_guessing_the_pin_locks_changes_out_for_a_while() -> None:
    now = [0.0]
    guard = PinGuard("2468", tries=3, lock_s=60, clock=lambda: now[0])
    for _ in range(3):
        assert guard.check("1111", "10.0.0.5") == (401, "wrong PIN")
    assert guard.check("2468", "10.0.0.5") == (
        429, "too many wrong PINs from this phone: try again in 60 seconds")
    assert guard.check("2468", "10.0.0.6") is None  # another phone is not locked out
    now[0] = 61.0
    assert guard.check("2468", "10.0.0.5") is None


def test_guessers_from_many_addresses_never_lock_out_a_phone_that_was_not_guessing() -> None:
    now = [0.0]
    guard = PinGuard("246813", clock=lambda: now[0])
    for guesser in range(200):  # far past the old limit of 20 wrong PINs a minute for all
        for _ in range(5):
            assert guard.check("000000", f"192.168.1.{guesser}")[0] == 401  # type: ignore[index]
        assert guard.check("246813", f"192.168.1.{guesser}")[0] == 429  # type: ignore[index]
    assert guard.check("246813", "192.168.2.40") is None
    assert guard.check("246813", "fe80::1234") is None


def test_the_lock_out_doubles_for_each_round_of_wrong_pins_and_the_right_one_clears_it(
        ) -> None:
    now = [0.0]
    guard = PinGuard("246813", tries=5, lock_s=60, max_lock_s=86_400, clock=lambda: now[0])
    locks = []
    for _ in range(14):
        for _ in range(5):
            assert guard.check("999999", "10.0.0.8") == (401, "wrong PIN")
        refused = guard.check("246813", "10.0.0.8")
        assert refused is not None and refused[0] == 429
        start = now[0]
        while guard.check(None, "10.0.0.8")[0] == 429:  # type: ignore[index]
            now[0] += 30.0
        locks.append(now[0] - start)
    assert locks[:4] == [60.0, 120.0, 240.0, 480.0]
    assert locks[-1] == 86_400.0  # a day at most
    assert guard.check("246813", "10.0.0.8") is None
    for _ in range(4):  # the right PIN forgot the rounds: back to a minute after five
        assert guard.check("999999", "10.0.0.8") == (401, "wrong PIN")
    assert guard.check("999999", "10.0.0.8") == (401, "wrong PIN")
    assert guard.check("246813", "10.0.0.8") == (
        429, "too many wrong PINs from this phone: try again in 60 seconds")


def test_a_season_of_guessing_from_one_client() -> None:
    # The arithmetic of firmware/web/pins.py's note: 950 guesses in 180 days.
    now = [0.0]
    guard = PinGuard("246813", clock=lambda: now[0])
    guesses = 0
    while now[0] < 180 * 86_400:
        refused = guard.check("000000", "192.168.1.66")
        assert refused is not None
        if refused[0] == 401:
            guesses += 1
        else:
            now[0] += 60.0
    assert guesses == 950
    assert len(new_pin()) == 6 and new_pin().isdigit()


def test_one_machine_cannot_reset_its_count_with_fresh_ipv6_addresses() -> None:
    now = [0.0]
    guard = PinGuard("246813", clock=lambda: now[0])
    for host in range(1, 6):
        assert guard.check("000000", f"2001:db8:5:6::{host:x}")[0] == 401  # type: ignore[index]
    assert guard.check("246813", "2001:db8:5:6::99")[0] == 429  # type: ignore[index]
    assert guard.check("246813", "2001:db8:5:7::1") is None
    assert client_key("::ffff:10.1.2.3") == "10.1.2.3"


def test_the_guard_remembers_a_bounded_number_of_clients() -> None:
    now = [0.0]
    guard = PinGuard("246813", max_clients=100, clock=lambda: now[0])
    for _ in range(5):
        guard.check("000000", "10.9.9.9")  # locked out: kept while others come and go
    for host in range(1000):
        now[0] += 0.01
        guard.check("000000", f"10.0.{host // 250}.{host % 250}")
    assert len(guard._clients) <= 100
    assert guard.check("246813", "10.9.9.9")[0] == 429  # type: ignore[index]


@pytest.mark.parametrize(("body", "headers", "status", "message"), [
    (b"{not json", {"Content-Type": "application/json"}, 400, "the request is not JSON"),
    (b"[1, 2]", {"Content-Type": "application/json"}, 400, "must be a JSON object"),
    (b'{"action": "undo"}', {"Content-Type": "text/plain"}, 415, "application/json"),
    (b'{"action": "undo"}', {}, 400, "application/json"),
    (b"x" * (MAX_BODY + 1), {"Content-Type": "application/json"}, 413, "larger than"),
    (b"[" * 5000 + b"]" * 5000, {"Content-Type": "application/json"}, 400,
     "nested more than 32 levels deep"),
    (b'{"action": "new_match", "rules": ' + b'{"a": ' * 900 + b"0" + b"}" * 901,
     {"Content-Type": "application/json"}, 400, "nested more than 32 levels deep"),
])
def test_a_malformed_request_is_a_clear_4xx_and_changes_nothing(
        served: Served, body: bytes, headers: dict[str, str], status: int,
        message: str) -> None:
    lines = served.device.lines()
    response = served.post(body, **headers)
    assert response.status_code == status and message in response.json()["error"]
    assert served.device.lines() == lines


@pytest.mark.parametrize(("fields", "message"), [
    ({"action": "dance"}, "action must be one of"),
    ({"action": "card", "card": "1H", "zone": "Bob"}, "invalid card: '1H'"),
    ({"action": "card", "card": "5H", "zone": "Zed"}, "zone must say where"),
    ({"action": "claim", "points": 99}, "points must be a whole number from 0 to 29"),
    ({"action": "undo", "extra": 1}, "unknown field 'extra'"),
    ({"action": "new_match", "players": ["Ann", "Bob"], "rules": {"target": 100}},
     "rules.target must be 121 or 61"),
])
def test_a_request_that_makes_no_sense_is_400(served: Served, fields: dict[str, Any],
                                              message: str) -> None:
    lines = served.device.lines()
    body = served.change("undo")
    body.pop("action")
    body.update(fields)
    response = served.post(body)
    assert response.status_code == 400 and message in response.json()["error"]
    assert served.device.lines() == lines


def test_a_replayed_or_stale_request_is_409_and_changes_nothing(served: Served) -> None:
    truth = served.truth  # type: ignore[attr-defined]
    lead = next(e for e in truth if e["type"] == "play")
    body = served.change("card", card=lead["card"], zone=lead["player"])
    response = served.post(body)
    assert response.status_code == 200, response.text
    assert json.loads(served.device.lines()[-1]) == lead
    lines = served.device.lines()
    replay = served.post(body)  # the very same request again
    assert replay.status_code == 409 and "received already" in replay.json()["error"]
    stale = dict(body, nonce="another-nonce-1")  # made against the table before the card
    response = served.post(stale)
    assert response.status_code == 409 and "the table has changed" in response.json()["error"]
    assert response.json()["rev"] == revision(served.device.store)
    undo = dict(served.change("undo"), rev=body["rev"])
    assert served.post(undo).status_code == 409
    assert served.device.lines() == lines


def test_undo_card_and_new_match_reach_the_store_the_buttons_way(served: Served) -> None:
    device = served.device
    truth = served.truth  # type: ignore[attr-defined]
    lead = next(e for e in truth if e["type"] == "play")
    response = served.post(served.change("card", card=lead["card"], zone=lead["player"]))
    assert response.status_code == 200
    reply = response.json()
    assert reply["ok"] and reply["changed"] and reply["rev"] == revision(device.store)
    state = device.wait_for(lambda s: s["rev"] == reply["rev"])
    assert state["pile"] == [lead["card"]] and state["count"] > 0

    response = served.post(served.change("undo"))
    assert response.status_code == 200
    assert json.loads(device.lines()[-1])["type"] == "starter"
    assert any(f["text"].startswith("undone: ") for f in response.json()["feedback"])

    # A card out of turn: the engine refuses it, the store keeps what it had.
    lines = device.lines()
    other = "Ann" if lead["player"] == "Bob" else "Bob"
    unused = next(c for c in ("KH", "KD", "KS", "KC", "QH") if c not in str(truth[:20]))
    response = served.post(served.change("card", card=unused, zone=other))
    assert response.status_code == 422 and response.json()["error"]
    # Claims are for muggins games (or manual entry): refused with the flow's reason.
    response = served.post(served.change("claim", points=4))
    assert response.status_code == 422 and "muggins" in response.json()["error"]
    assert device.lines() == lines

    response = served.post(served.change(
        "new_match", players=["Cat", "Ann", "Bob"], rules={"target": 61, "muggins": True},
        colours=["#d55e00", "#56b4e9", "#f0e442"]))
    assert response.status_code == 200, response.text
    assert json.loads(device.lines()[0]) == {"type": "new_game", "players": ["Cat", "Ann", "Bob"],
                                            "rules": {"target": 61, "muggins": True}}
    assert served.saved == [TableSettings(("Cat", "Ann", "Bob"), {"target": 61, "muggins": True},
                                          ((213, 94, 0), (86, 180, 233), (240, 228, 66)))]
    state = device.wait_for(lambda s: s["players"] == ["Cat", "Ann", "Bob"])
    assert state["board"]["skunk"] == 31 and state["sides"][0]["colour"] == "#d55e00"
    kinds = [type(i).__name__ for i in device.flow.inputs]
    assert {"ManualCard", "ButtonAction", "NewMatch"} <= set(kinds)


def test_claims_and_muggins_over_http(tmp_path: Path) -> None:
    rules = {"muggins": True}
    truth, steps = scripted_game(rules=rules, seed=5)
    device = Device(tmp_path / "events.sqlite3", rules=rules)
    device.start()
    spreads = [i for i, s in enumerate(steps) if s.seen and type(s.seen[0]).__name__ ==
               "ZoneComplete"]
    device.play(steps[:spreads[0] + 1])
    for _ in range(400):  # the first hand is counted once the last muggins window closed
        if device.store.game.awaiting_claim:
            break
        device.loop.step()
    claimant = device.store.game.awaiting_claim[0]
    # The loop's clock runs a frame per turn on its own thread; a busy test machine must
    # not let the muggins window close between the two requests.
    device.flow.muggins_window_s = 3600.0
    device.run_thread()
    served = Served(device)
    response = served.post(served.change("claim", points=0))
    assert response.status_code == 200, response.text
    assert json.loads(device.lines()[-1]) == {"type": "claim", "player": claimant, "points": 0}
    response = served.post(served.change("muggins"))
    assert response.status_code == 200, response.text  # the hand was worth something
    assert json.loads(device.lines()[-1])["type"] == "muggins"
    assert any(f["text"].startswith("muggins! ") for f in response.json()["feedback"])
    served.client.close()
    device.close()


# -- a real server thread ------------------------------------------------------------------------


def read_event(lines: Iterator[str]) -> dict[str, Any]:
    """The next ``state`` event of a server-sent event stream."""
    kind = None
    for line in lines:
        if line.startswith("event: "):
            kind = line[7:]
        elif line.startswith("data: ") and kind == "state":
            found: dict[str, Any] = json.loads(line[6:])
            return found
    raise AssertionError("the stream ended")


def test_events_stream_each_change_and_shutdown_leaves_no_thread(tmp_path: Path) -> None:
    before = set(threading.enumerate())
    device = Device(tmp_path / "events.sqlite3")
    device.start()
    truth, steps = scripted_game()
    device.play(steps[:starter_step(steps) + 1])
    device.run_thread()
    server = WebServer(create_app(device.hub, pin=PIN), host="127.0.0.1", port=0,
                       hub=device.hub)
    server.start()
    assert server.running and server.urls() == [f"http://127.0.0.1:{server.port}/"]
    base = f"http://127.0.0.1:{server.port}"
    with httpx.stream("GET", base + "/api/events", timeout=10) as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        lines = stream.iter_lines()
        first = read_event(lines)
        assert first["rev"] == revision(device.store)
        lead = steps[starter_step(steps) + 1]
        device.play([lead])  # the camera sees the lead
        second = read_event(lines)
        assert second["version"] > first["version"] and second["rev"] != first["rev"]
        assert second["pile"] == [str(lead.seen[0].card)]  # type: ignore[attr-defined]
        response = httpx.post(base + "/api/action", headers={"X-Pin": PIN}, json={
            "action": "undo", "rev": second["rev"], "nonce": "stream-undo-1"})
        assert response.status_code == 200
        assert read_event(lines)["pile"] == []
        began = time.monotonic()
        server.stop()  # with the stream still open
        assert time.monotonic() - began < 5
        list(lines)  # the stream ends (a hang would be a read timeout)
    assert not server.running
    assert not [t for t in threading.enumerate() if t.name == "cribbage-web"]
    device.close()
    assert [t.name for t in set(threading.enumerate()) - before] == []


def test_a_port_in_use_is_a_clear_error(tmp_path: Path) -> None:
    device = Device(tmp_path / "events.sqlite3")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        server = WebServer(create_app(device.hub, pin=PIN), host="127.0.0.1", port=port)
        with pytest.raises(OSError, match=f"cannot serve the phone page on 127.0.0.1:{port}"):
            server.start()
    device.close()


# -- cribbage-board run ---------------------------------------------------------------------------


def test_run_serves_the_page_keeps_phone_settings_and_stops_cleanly(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    port = free_port()
    config = tmp_path / "config.toml"
    config.write_text(f'[game]\nplayers = ["Ann", "Bob"]\n'
                      f'[web]\nhost = "127.0.0.1"\nport = {port}\npin = "{PIN}"\n')
    store = tmp_path / "events.sqlite3"
    base = f"http://127.0.0.1:{port}"
    answers: list[int] = []

    def phone() -> None:  # a phone on the table while `run` keeps the main thread
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                state = httpx.get(base + "/api/state", timeout=2)
            except httpx.HTTPError:
                time.sleep(0.05)
                continue
            if state.status_code == 200:
                break
        answers.append(state.status_code)
        response = httpx.post(base + "/api/action", headers={"X-Pin": PIN}, timeout=10, json={
            "action": "new_match", "players": ["Bob", "Cat"], "rules": {"target": 61},
            "rev": state.json()["rev"], "nonce": "run-test-0001"})
        answers.append(response.status_code)
        if answers == [200, 200]:  # done: stop `run` as systemd would (SIGTERM)
            os.kill(os.getpid(), signal.SIGTERM)

    before = set(threading.enumerate())
    caller = threading.Thread(target=phone)
    caller.start()
    assert main(["run", "--config", str(config), "--store", str(store),
                 "--max-seconds", "30"]) == 0
    caller.join(20)
    out = capsys.readouterr().out
    assert f"phone page: http://127.0.0.1:{port}/ (PIN {PIN} for changes)" in out
    assert "stopping (signal 15)" in out
    assert answers == [200, 200]
    assert [t.name for t in set(threading.enumerate()) - before] == []  # nothing left running
    with EventStore.open(store) as reopened:
        assert json.loads(reopened.lines[0])["players"] == ["Bob", "Cat"]
    assert settings_path(store).exists()

    # At the next start the phone's players stand: the match is resumed, not replaced.
    assert main(["run", "--config", str(config), "--store", str(store), "--once"]) == 0
    out = capsys.readouterr().out
    assert "phone settings: Bob, Cat {'target': 61} (chosen on the phone)" in out
    assert "resumed" in out
    # Once the config changes, the config wins again.
    config.write_text(config.read_text().replace('"Ann", "Bob"', '"Ann", "Dan"'))
    assert main(["run", "--config", str(config), "--store", str(store), "--once"]) == 0
    out = capsys.readouterr().out
    assert "the config changed since the phone chose the players: the config wins" in out
    with EventStore.open(store) as reopened:
        assert json.loads(reopened.lines[0])["players"] == ["Ann", "Dan"]


def test_run_without_a_web_table_reports_a_busy_default_port_and_goes_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        try:
            taken.bind(("0.0.0.0", 8080))
            taken.listen(1)
        except OSError:
            pass  # something else holds 8080 already: just as busy
        assert main(["run", "--store", str(tmp_path / "e.db"), "--once"]) == 0
    out = capsys.readouterr().out
    assert "phone page: off (cannot serve the phone page on 0.0.0.0:8080" in out


def test_run_with_a_web_table_on_a_busy_port_is_an_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "config.toml"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        config.write_text(f'[web]\nhost = "127.0.0.1"\nport = {taken.getsockname()[1]}\n')
        assert main(["run", "--config", str(config), "--store", str(tmp_path / "e.db"),
                     "--once"]) == 2
    assert "cannot serve the phone page" in capsys.readouterr().err


# -- issue 60: a hostile client on the same network (or on the board itself) -----------------


def test_guesses_with_a_rotating_forwarded_header_are_still_locked_out(tmp_path: Path) -> None:
    """Nothing stands in front of the board, so no forwarded header is trusted: a process
    on the board itself (loopback, which uvicorn trusts by default) rotating
    ``X-Forwarded-For`` is still one client, locked out after its tries."""
    device = Device(tmp_path / "events.sqlite3")
    server = WebServer(create_app(device.hub, pin=PIN), host="127.0.0.1", port=0,
                       hub=device.hub)
    server.start()
    base = f"http://127.0.0.1:{server.port}"
    try:
        answers = []
        for n in range(12):
            forwarded = {"X-Forwarded-For": f"10.0.{n}.{n + 1}", "X-Pin": f"{n:04d}9"[-4:],
                         "Forwarded": f"for=10.1.{n}.1"}
            answers.append(httpx.post(base + "/api/pin", headers=forwarded,
                                      timeout=5).status_code)
        assert answers[:5] == [401] * 5 and set(answers[5:]) == {429}
        # The right PIN from the same process is refused too while the lock holds.
        assert httpx.post(base + "/api/pin", headers={"X-Pin": PIN, "X-Forwarded-For":
                                                      "10.9.9.9"}, timeout=5).status_code == 429
    finally:
        server.stop()
        device.close()


def hostile_streams(port: int, count: int, *, addresses: int) -> list[socket.socket]:
    """``count`` PIN-less ``GET /api/events`` streams, opened and never read, spread over
    ``addresses`` loopback addresses (127.0.0.2 on: other machines as the page sees them)."""
    held = []
    for n in range(count):
        source = f"127.0.{n % addresses // 250}.{2 + n % addresses % 250}"
        sock = socket.create_connection(("127.0.0.1", port), timeout=10,
                                        source_address=(source, 0))
        sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        held.append(sock)
    return held


def test_256_pinless_streams_leave_the_pin_holder_its_stream_and_its_changes(
        tmp_path: Path) -> None:
    device = Device(tmp_path / "events.sqlite3")
    device.start()
    truth, steps = scripted_game()
    device.play(steps[:starter_step(steps) + 1])
    device.run_thread()
    seats = StreamSeats()  # the default bounds, as create_app makes them
    server = WebServer(create_app(device.hub, pin=PIN, seats=seats), host="127.0.0.1",
                       port=0, hub=device.hub)  # the default connection limit (256)
    server.start()
    base = f"http://127.0.0.1:{server.port}"
    held: list[socket.socket] = []
    try:
        assert httpx.post(base + "/api/pin", headers={"X-Pin": PIN}, timeout=5).status_code == 200
        # 64 other clients, 4 streams each, then 128 more from one client.
        held = hostile_streams(server.port, 256, addresses=64)
        held += hostile_streams(server.port, 128, addresses=1)
        time.sleep(0.5)  # every stream answered (a real server: no clock to move)
        with httpx.stream("GET", base + "/api/events", timeout=10) as stream:
            lines = stream.iter_lines()
            first = read_event(lines)
            lead = steps[starter_step(steps) + 1]
            device.play([lead])
            second = read_event(lines)
            assert second["version"] > first["version"]
            response = httpx.post(base + "/api/action", headers={"X-Pin": PIN}, json={
                "action": "undo", "rev": second["rev"], "nonce": "hostile-undo-1"}, timeout=10)
            assert response.status_code == 200
            assert read_event(lines)["pile"] == []
        # A viewer who never gave the PIN still gets a stream (a fair share, not none).
        viewer = httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.3.3"))
        with viewer, viewer.stream("GET", base + "/api/events", timeout=10) as stream:
            assert read_event(stream.iter_lines())["pile"] == []
        assert seats.held("127.0.0.2") <= STREAMS_PER_CLIENT
        assert seats.held() <= seats.pinless + 1 and seats.ended > 0
    finally:
        for sock in held:
            sock.close()
        server.stop()
        device.close()


def test_a_pin_holder_is_one_who_gave_the_right_pin_and_no_wrong_one_since() -> None:
    guard = PinGuard("2468", clock=lambda: 100.0)
    assert not guard.holds_pin("192.168.1.7")
    assert guard.check("2468", "192.168.1.7") is None
    assert guard.holds_pin("192.168.1.7") and not guard.holds_pin("192.168.1.8")
    assert guard.check("1111", "192.168.1.7") == (401, "wrong PIN")
    assert not guard.holds_pin("192.168.1.7")
