"""firmware.web.hub: snapshots out, requests in, safe across threads, no HTTP."""

from __future__ import annotations

import threading

import pytest

from firmware.table.flow import ButtonAction
from firmware.web.hub import BusyError, Hub, HubClosedError, ReplayedError, Reply


def test_publish_keeps_immutable_text_and_counts_versions() -> None:
    hub = Hub()
    assert hub.latest is None
    data = {"rev": "3.2", "sides": [{"name": "Ann", "score": 5}]}
    first = hub.publish(data)
    data["sides"][0]["score"] = 99  # the loop's objects may change later: the snapshot not
    assert first.version == 1 and first.rev == "3.2"
    assert hub.latest is first
    assert first.data()["sides"][0]["score"] == 5 and first.data()["version"] == 1
    second = hub.publish({"rev": "4.3"})
    assert second.version == 2 and hub.latest is second


def test_wait_wakes_when_the_loop_publishes_from_another_thread() -> None:
    hub = Hub()
    hub.publish({"rev": "1.1"})
    assert hub.wait(1, timeout=0.01) is None  # nothing newer yet
    started = threading.Event()

    def publisher() -> None:
        started.wait(5)
        hub.publish({"rev": "2.2"})

    thread = threading.Thread(target=publisher)
    thread.start()
    started.set()
    found = hub.wait(1, timeout=5)
    thread.join(5)
    assert found is not None and found.rev == "2.2"
    assert hub.wait(0, timeout=0) is found  # something newer than 0 exists already


def test_requests_wait_in_order_until_the_loop_takes_them() -> None:
    hub = Hub()
    first = hub.submit([ButtonAction("undo")], rev="5.5", nonce="aaaaaaaa")
    second = hub.submit([ButtonAction("go")], rev="5.5", nonce="bbbbbbbb")
    taken = hub.take()
    assert [r.nonce for r in taken] == ["aaaaaaaa", "bbbbbbbb"]
    assert hub.take() == []
    assert taken[0].items == (ButtonAction("undo"),) and taken[0].rev == "5.5"
    assert taken[0].begin()
    taken[0].answer(Reply("done", "6.6", True, (("say", "undone"),)))
    hub.publish({"rev": "6.6"})  # a change is answered once the page can show it
    assert first.result(0) == Reply("done", "6.6", True, (("say", "undone"),))
    assert not second.done()


def test_a_nonce_is_accepted_once_only() -> None:
    hub = Hub(remember=2)
    hub.submit([ButtonAction("go")], rev="1.1", nonce="nonce-one")
    with pytest.raises(ReplayedError, match="'nonce-one' was received already"):
        hub.submit([ButtonAction("go")], rev="1.1", nonce="nonce-one")
    assert len(hub.take()) == 1  # the replay was never queued
    hub.submit([], rev="1.1", nonce="nonce-two")
    hub.submit([], rev="1.1", nonce="nonce-three")
    hub.submit([], rev="1.1", nonce="nonce-one")  # forgotten: only the newest 2 are kept


def test_a_full_backlog_is_busy_rather_than_unbounded() -> None:
    hub = Hub(backlog=2)
    hub.submit([], rev="1.1", nonce="n1111111")
    hub.submit([], rev="1.1", nonce="n2222222")
    with pytest.raises(BusyError):
        hub.submit([], rev="1.1", nonce="n3333333")


def test_a_request_the_page_gave_up_on_is_not_begun() -> None:
    hub = Hub()
    future = hub.submit([ButtonAction("undo")], rev="1.1", nonce="givenup1")
    assert future.cancel()
    (request,) = hub.take()
    assert not request.begin()


def test_close_cancels_waiting_requests_wakes_waiters_and_refuses_more() -> None:
    hub = Hub()
    pending = hub.submit([ButtonAction("go")], rev="1.1", nonce="pending1")
    woken = threading.Event()
    hub.subscribe(woken.set)
    results: list[object] = []
    waiter = threading.Thread(target=lambda: results.append(hub.wait(0, timeout=10)))
    waiter.start()
    hub.close()
    waiter.join(5)
    assert not waiter.is_alive() and results == [None]
    assert pending.cancelled() and woken.is_set() and hub.closed
    with pytest.raises(HubClosedError):
        hub.submit([], rev="1.1", nonce="toolate1")


def test_a_listener_that_fails_is_dropped_and_never_stops_the_loop() -> None:
    hub = Hub()
    calls: list[str] = []

    def broken() -> None:
        calls.append("broken")
        raise RuntimeError("event loop is closed")

    hub.subscribe(broken)
    unsubscribe = hub.subscribe(lambda: calls.append("fine"))
    hub.publish({"rev": "1.1"})
    hub.publish({"rev": "2.2"})
    assert calls == ["broken", "fine", "fine"]
    unsubscribe()
    hub.publish({"rev": "3.3"})
    assert calls == ["broken", "fine", "fine"]


def test_a_refused_reply_names_the_first_flash_only_when_nothing_changed() -> None:
    assert Reply("done", "1.1", False, (("notice", "x"), ("flash", "no"))).refused == "no"
    assert Reply("done", "2.2", True, (("flash", "no"),)).refused is None
    assert Reply("done", "1.1", False, (("notice", "nothing to undo"),)).refused is None
