"""The phone page's API as CONTRACT.md states it: a stale request during the cut is 409, the
state read right after a 200 shows the revision the 200 named, and a wrong PIN is 401."""

from __future__ import annotations

import threading
import warnings
from collections.abc import Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("httpx")

with warnings.catch_warnings():  # newer Starlette would rather have the httpx2 fork
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient  # noqa: E402
from webrig import PIN, Device  # noqa: E402

from firmware.table.flow import ManualCard  # noqa: E402
from firmware.web.hub import Hub, Reply  # noqa: E402
from firmware.web.server import create_app  # noqa: E402
from firmware.web.snapshot import revision  # noqa: E402

LOCAL = ("127.0.0.1", 50000)


@pytest.fixture
def cutting(tmp_path: Path) -> Iterator[tuple[Device, TestClient]]:
    """A new match waiting for the cut for the deal, its loop on a thread, the page over it."""
    device = Device(tmp_path / "events.sqlite3")
    device.start()
    device.run_thread()
    client = TestClient(create_app(device.hub, pin=PIN), client=LOCAL,
                        base_url="http://192.168.1.5:8080")
    yield device, client
    client.close()
    device.close()


def card(rev: str, nonce: str, name: str, zone: str) -> dict[str, Any]:
    return {"action": "card", "card": name, "zone": zone, "rev": rev, "nonce": nonce}


def test_a_second_phone_cannot_replace_a_cut_card(cutting: tuple[Device, TestClient]) -> None:
    device, client = cutting
    looked = device.wait_for(lambda s: "cut" in s["next"])["rev"]
    first = client.post("/api/action", json=card(looked, "phone-one", "KC", "Ann"),
                        headers={"X-Pin": PIN})
    assert first.status_code == 200
    # Another phone, which looked before Ann cut, sends its own card for her. A cut card is
    # not stored (the store keeps the deal it decides), so the revision alone cannot tell
    # the two phones apart: a different card for a player who has cut is refused as stale.
    second = client.post("/api/action", json=card(looked, "phone-two", "2C", "Ann"),
                         headers={"X-Pin": PIN})
    assert second.status_code == 409
    assert "Ann has already cut" in second.json()["error"]
    assert second.json()["rev"] == first.json()["rev"]
    # The same card again is no conflict: the first phone's retry.
    again = client.post("/api/action", json=card(looked, "phone-one-retry", "KC", "Ann"),
                        headers={"X-Pin": PIN})
    assert again.status_code == 200
    # Bob cuts: Ann's king stands, so Bob (the 3) cuts low and deals.
    third = client.post("/api/action", headers={"X-Pin": PIN},
                        json=card(first.json()["rev"], "phone-one-b", "3D", "Bob"))
    assert third.status_code == 200
    state = device.wait_for(lambda s: s["rev"] == third.json()["rev"])
    assert state["dealer"] == "Bob", state
    # The revision is the contract's "<last row id>.<events>" throughout.
    assert state["rev"] == revision(device.store)
    assert all(part.isdigit() for part in state["rev"].split(".")) and state["rev"].count(".") == 1


def test_the_state_after_a_200_shows_its_revision(cutting: tuple[Device, TestClient]) -> None:
    device, client = cutting
    rev = device.wait_for(lambda s: "cut" in s["next"])["rev"]
    ann = client.post("/api/action", json=card(rev, "ann-cuts", "KC", "Ann"),
                      headers={"X-Pin": PIN})
    rev = device.wait_for(lambda s: s["rev"] == ann.json()["rev"])["rev"]
    # A slow publish (a busy Pi): the loop has applied the card but not yet published the
    # snapshot that shows it. The 200 must not beat that snapshot to the phone.
    read = threading.Event()
    publish = device.hub.publish

    def slow_publish(data: Any) -> Any:
        read.wait(1.0)  # held until the phone has read the state, or a second at most
        return publish(data)

    device.hub.publish = slow_publish  # type: ignore[method-assign]
    answer = client.post("/api/action", json=card(rev, "slow-publish", "3D", "Bob"),
                         headers={"X-Pin": PIN})
    assert answer.status_code == 200
    shown = client.get("/api/state").json()["rev"]
    read.set()
    assert shown == answer.json()["rev"] != rev
    assert device.state()["dealer"] == "Bob"  # the deal is stored: the store's own revision


def test_a_changed_reply_waits_for_the_snapshot_that_shows_it() -> None:
    hub = Hub()
    hub.publish({"rev": "1.1"})
    future = hub.submit([ManualCard(card=None, zone="Ann", at=0.0)],  # type: ignore[arg-type]
                        rev="1.1", nonce="a")
    seen: list[str | None] = []
    future.add_done_callback(lambda f: seen.append(hub.latest.rev if hub.latest else None))
    (request,) = hub.take()
    assert request.begin()
    request.answer(Reply("done", "2.2", changed=True))
    assert not future.done()  # the page still shows 1.1: a 200 now would be read as stale
    hub.publish({"rev": "2.2"})
    assert future.result(timeout=1) == Reply("done", "2.2", changed=True)
    assert seen == ["2.2"]


def test_a_held_reply_goes_out_at_the_next_step_or_on_close() -> None:
    hub = Hub()
    answered: list[Future[Reply]] = []
    for nonce in ("a", "b"):
        answered.append(hub.submit([], rev="1.1", nonce=nonce))
    first, second = hub.take()
    for request in (first, second):
        request.begin()
    first.answer(Reply("done", "2.2", changed=True))
    second.answer(Reply("stale", "2.2"))  # nothing changed: answered at once
    assert answered[1].done() and not answered[0].done()
    hub.take()  # the loop's next step: nothing new was published, nothing to wait for
    assert answered[0].result(timeout=1).rev == "2.2"
    third = hub.submit([], rev="2.2", nonce="c")
    (request,) = hub.take()
    request.begin()
    request.answer(Reply("done", "3.3", changed=True))
    hub.close()
    assert third.result(timeout=1).rev == "3.3"


def test_a_wrong_pin_is_401_and_locks_out_only_the_guesser(
        cutting: tuple[Device, TestClient]) -> None:
    device, client = cutting
    rev = device.wait_for(lambda s: "cut" in s["next"])["rev"]
    for i in range(5):
        wrong = client.post("/api/pin", headers={"X-Pin": f"000{i}"})
        assert (wrong.status_code, wrong.json()) == (401, {"error": "wrong PIN"})
    assert client.post("/api/pin", headers={"X-Pin": PIN}).status_code == 429
    other = TestClient(client.app, client=("127.0.0.2", 50001),
                       base_url="http://192.168.1.5:8080")
    answer = other.post("/api/action", json=card(rev, "other-phone", "KC", "Ann"),
                        headers={"X-Pin": PIN})
    assert answer.status_code == 200
    other.close()
