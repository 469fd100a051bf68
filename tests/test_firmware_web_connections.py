"""The phone page's bounds on half-open connections, with real sockets on 127.0.0.1 against
the real uvicorn server (counts of tens and timeouts of a fraction of a second)."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("httpx")

import httpx  # noqa: E402

from firmware.web import connections  # noqa: E402
from firmware.web.hub import Hub  # noqa: E402
from firmware.web.server import WebServer, create_app  # noqa: E402

CAP = 16
HEADER_TIMEOUT_S = 0.5


@pytest.fixture
def server() -> Iterator[WebServer]:
    hub = Hub()
    page = WebServer(create_app(hub, pin="246813", keepalive_s=0.2), host="127.0.0.1", port=0,
                     hub=hub, header_timeout_s=HEADER_TIMEOUT_S, max_connections=CAP)
    page.start()
    yield page
    page.stop()


def closed_by_server(sock: socket.socket, *, within_s: float) -> bool:
    """Whether the server closes ``sock`` within ``within_s`` (reads until it does)."""
    sock.settimeout(within_s)
    try:
        while sock.recv(4096):
            pass
    except TimeoutError:
        return False
    except ConnectionResetError:
        pass
    return True


def open_connections(page: WebServer) -> int:
    assert page._server is not None
    return len(page._server.server_state.connections)


def test_half_open_connections_are_closed_and_never_crowd_out_the_page(
        server: WebServer) -> None:
    base = f"http://127.0.0.1:{server.port}"
    with httpx.stream("GET", base + "/api/events", timeout=5) as stream:
        lines = stream.iter_lines()
        assert next(lines) == "retry: 1000"
        half_open = []
        try:
            for n in range(3 * CAP):
                sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
                if n % 2:  # headers begun and never finished; or nothing sent at all
                    sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                half_open.append(sock)
            page = httpx.get(base + "/", timeout=5)
            assert page.status_code == 200 and "<html" in page.text.lower()
            assert open_connections(server) <= CAP + 1
            began = time.monotonic()
            assert all(closed_by_server(s, within_s=3.0) for s in half_open)
            assert time.monotonic() - began < 3.0
        finally:
            for sock in half_open:
                sock.close()
        # The event stream, answering a request, outlived the header timeout.
        assert [line for line, _ in zip(lines, range(3), strict=False)
                if line][:1] == [": keepalive"]


def test_headers_trickled_a_byte_at_a_time_still_time_out(server: WebServer) -> None:
    request = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 100
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        began = time.monotonic()
        sock.settimeout(0.05)
        closed = False
        for byte in request:  # a byte every 50 ms, 5 s in all if it were let
            try:
                sock.sendall(bytes([byte]))
                if sock.recv(1) == b"":
                    closed = True
                    break
            except TimeoutError:
                continue
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
        assert closed and time.monotonic() - began < HEADER_TIMEOUT_S + 1.0


def test_a_kept_alive_connection_that_trickles_after_its_answer_is_closed(
        server: WebServer) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        sock.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert sock.recv(4096).startswith(b"HTTP/1.1 503")  # the board is starting
        sock.sendall(b"G")  # uvicorn's keep-alive timer stops at any byte
        assert closed_by_server(sock, within_s=HEADER_TIMEOUT_S + 1.5)


def test_the_connection_limit_stays_below_the_open_file_limit(monkeypatch) -> None:
    monkeypatch.setattr(connections.resource, "getrlimit", lambda kind: (200, 4096))
    assert connections.connection_limit() == 200 - connections.RESERVED_FILES
    monkeypatch.setattr(connections.resource, "getrlimit", lambda kind: (65536, 65536))
    assert connections.connection_limit() == connections.MAX_CONNECTIONS


def test_the_unit_allows_more_open_files_than_the_page_can_hold() -> None:
    unit = Path(__file__).resolve().parents[1] / "systemd" / "cribbage-board.service"
    limits = [line.split("=", 1)[1] for line in unit.read_text().splitlines()
              if line.startswith("LimitNOFILE=")]
    assert len(limits) == 1 and int(limits[0]) > 1024
    assert int(limits[0]) >= connections.MAX_CONNECTIONS + 4 * connections.RESERVED_FILES


def test_stream_seats_end_a_clients_oldest_and_never_a_pin_holders() -> None:
    ended: list[str] = []
    seats = connections.StreamSeats(pinless=3, per_client=2)
    seats.take("phone", pinned=True, end=lambda: ended.append("phone-1"))
    for n in range(3):
        seats.take("crowd", pinned=False, end=lambda n=n: ended.append(f"crowd-{n}"))
    assert ended == ["crowd-0"]  # its own cap: the client's oldest makes room
    seats.take("viewer", pinned=False, end=lambda: ended.append("viewer"))
    seats.take("other", pinned=False, end=lambda: ended.append("other"))
    # The PIN-less pool (3) is full: the client holding most gives up its oldest.
    assert ended == ["crowd-0", "crowd-1"]
    release = seats.take("phone", pinned=True, end=lambda: ended.append("phone-2"))
    assert ended == ["crowd-0", "crowd-1"] and seats.held("phone") == 2
    release()
    assert seats.held("phone") == 1 and seats.held() == 4
