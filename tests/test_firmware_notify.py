"""firmware.device.notify: real datagrams on a real AF_UNIX socket, and the watchdog's timing."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from standins.systemd_notify import ServiceManager

from firmware.device.notify import Notifier, Watchdog, extend_timeout


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


# -- against the manager's end as systemd's code behaves (tests/standins/systemd_notify.py)


@pytest.fixture
def manager(tmp_path: Path) -> Iterator[ServiceManager]:
    made = ServiceManager(str(tmp_path / "notify"))
    yield made
    made.close()


def test_a_long_status_never_costs_the_ready(manager: ServiceManager) -> None:
    """Fails when the datagram passes 4096 bytes: systemd ignores it whole, READY=1 with it,
    and the start times out."""
    assert Notifier({"NOTIFY_SOCKET": manager.address}).ready("camera: " + "x" * 5000)
    fields = manager.receive()
    assert fields is not None and fields["READY"] == "1", manager.ignored
    assert fields["STATUS"].startswith("camera: xxx") and fields["STATUS"].endswith("...")


def test_extend_timeout_is_microseconds_systemd_can_parse(manager: ServiceManager) -> None:
    assert extend_timeout(90, {"NOTIFY_SOCKET": manager.address})
    assert Notifier({"NOTIFY_SOCKET": manager.address}).extend_timeout(0.25)
    assert [manager.extend_usec(manager.receive() or {}) for _ in range(2)] == \
        [90_000_000, 250_000]
    with pytest.raises(ValueError, match="seconds > 0"):
        extend_timeout(0, {"NOTIFY_SOCKET": manager.address})


def test_abstract_socket_reaches_the_manager() -> None:
    made = ServiceManager(f"@cribbage-manager-{os.getpid()}")
    try:
        assert Notifier({"NOTIFY_SOCKET": made.address}).watchdog()
        assert made.receive() == {"WATCHDOG": "1"}
    finally:
        made.close()


@pytest.mark.parametrize("value", ["n.sock", "@", "/", "vsock:2:1234", "/" + "x" * 120])
def test_addresses_sd_notify_refuses_are_not_used(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    """Fails on a relative path being connected to: sd_notify takes only '/...' or '@...'."""
    monkeypatch.chdir(tmp_path)
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind("n.sock")
        notifier = Notifier({"NOTIFY_SOCKET": value})
        assert not notifier.enabled and notifier.ready() is False


def test_standin_ignores_what_systemd_ignores(manager: ServiceManager) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.sendto(b"READY=1\nSTATUS=" + b"y" * 5000, manager.address)
    assert manager.receive() is None and "overly long" in manager.ignored[0]
    other = ServiceManager(manager.address + "2", main_pid=1)
    try:
        Notifier({"NOTIFY_SOCKET": other.address}).ready()
        assert other.receive() is None and "only permitted for main PID" in other.ignored[0]
    finally:
        other.close()
