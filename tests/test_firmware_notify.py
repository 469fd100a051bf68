"""firmware.device.notify: real datagrams on a real AF_UNIX socket, and the watchdog's timing."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from firmware.device.notify import Notifier, Watchdog


@pytest.fixture
def listener(tmp_path: Path) -> Iterator[tuple[socket.socket, str]]:
    path = tmp_path / "n.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.settimeout(5)
    yield sock, str(path)
    sock.close()


def test_ready_with_status_is_one_datagram(listener) -> None:
    sock, path = listener
    notifier = Notifier({"NOTIFY_SOCKET": path})
    assert notifier.enabled and notifier.ready("resumed match 3 at event 41")
    assert sock.recv(4096) == b"READY=1\nSTATUS=resumed match 3 at event 41"


def test_watchdog_status_and_stopping(listener) -> None:
    sock, path = listener
    notifier = Notifier({"NOTIFY_SOCKET": path})
    assert notifier.watchdog() and notifier.status("camera:\nlost") and notifier.stopping()
    assert [sock.recv(4096) for _ in range(3)] == \
        [b"WATCHDOG=1", b"STATUS=camera: lost", b"STOPPING=1"]


def test_abstract_namespace_socket() -> None:
    name = f"cribbage-test-{os.getpid()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind("\0" + name)
        sock.settimeout(5)
        assert Notifier({"NOTIFY_SOCKET": "@" + name}).watchdog()
        assert sock.recv(100) == b"WATCHDOG=1"


def test_unset_socket_is_a_no_op() -> None:
    notifier = Notifier({})
    assert not notifier.enabled
    assert notifier.ready() is False and notifier.watchdog() is False


def test_a_vanished_socket_is_reported_not_raised(tmp_path: Path) -> None:
    assert Notifier({"NOTIFY_SOCKET": str(tmp_path / "gone.sock")}).ready() is False


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_watchdog_pings_at_half_the_interval(listener) -> None:
    sock, path = listener
    clock = FakeClock()
    dog = Watchdog.from_environ({"WATCHDOG_USEC": "30000000"}, clock=clock)
    notifier = Notifier({"NOTIFY_SOCKET": path})
    assert dog.interval_s == 15.0
    assert dog.ping(notifier)  # the first is due at once
    clock.now += 14.9
    assert not dog.due() and not dog.ping(notifier)
    clock.now += 0.1
    assert dog.due() and dog.ping(notifier)
    assert [sock.recv(100) for _ in range(2)] == [b"WATCHDOG=1", b"WATCHDOG=1"]


@pytest.mark.parametrize("environ", [
    {}, {"WATCHDOG_USEC": "0"}, {"WATCHDOG_USEC": "junk"},
    {"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"},
])
def test_no_watchdog_for_us_means_never_due(environ) -> None:
    dog = Watchdog.from_environ(environ, clock=FakeClock(), pid=4242)
    assert dog.interval_s is None and not dog.due()


def test_watchdog_pid_matching_us_is_honoured() -> None:
    dog = Watchdog.from_environ({"WATCHDOG_USEC": "2000000", "WATCHDOG_PID": "4242"},
                                clock=FakeClock(), pid=4242)
    assert dog.interval_s == 1.0
