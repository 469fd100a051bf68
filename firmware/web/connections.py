"""Bounds on the phone page's connections, so half-open ones cannot take the page down.

Why: uvicorn starts no timer until a connection's first response, and any byte
received stops its keep-alive timer, so a client that opens a connection and
never finishes its request headers (or sends them one byte at a time) holds it
for ever. 1,100 such connections used up the unit's 1,024 open files and the
page answered nobody until they closed.

Two bounds, in uvicorn's own h11 protocol:

- a connection waiting for a request's headers gets ``header_timeout_s`` from
  when it opened or its last response ended, however it trickles; then it is
  closed. Requests being answered (an event stream included) are not touched;
- at most ``max_connections`` are open. A new one past that closes the
  connection that has waited longest for its headers, or, when every one is
  busy answering, is closed at once. ``max_connections`` is kept well below
  the process's open-file limit (``connection_limit``).

And a bound on event streams (``StreamSeats``), because a stream is a request being
answered for as long as the client likes: 256 streams opened without the PIN used to
fill every connection, and then each newcomer (a PIN holder's change included) was
closed at once. Now one client (``firmware.web.pins.client_key``) holds at most
``STREAMS_PER_CLIENT`` streams (a new one ends its oldest), and streams from clients
that have not given the PIN share at most half the connections (a new one past that
ends the oldest of the client holding most), so the other half always has room for
changes and for the streams of phones that gave the PIN.
"""

from __future__ import annotations

import asyncio
import itertools
import resource
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["bounded_protocol", "connection_limit", "HEADER_TIMEOUT_S", "MAX_CONNECTIONS",
           "KEEP_ALIVE_S", "MAX_HEADER_BYTES", "StreamSeats", "STREAMS_PER_CLIENT"]

HEADER_TIMEOUT_S = 10.0
KEEP_ALIVE_S = 5
MAX_CONNECTIONS = 256
MAX_HEADER_BYTES = 16 * 1024
#: A phone with the page open in a few tabs; a new stream past this ends the client's oldest.
STREAMS_PER_CLIENT = 4
#: Open files kept for everything else: the store and its WAL, the camera, models, logs.
RESERVED_FILES = 128


def connection_limit(wanted: int = MAX_CONNECTIONS) -> int:
    """``wanted``, or fewer when the process may not open that many files besides its own."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(8, min(wanted, soft - RESERVED_FILES))


def bounded_protocol(*, header_timeout_s: float = HEADER_TIMEOUT_S,
                     max_connections: int = MAX_CONNECTIONS) -> type[H11Protocol]:
    """uvicorn's h11 protocol with the two bounds of this module's note (pass it as
    ``uvicorn.Config(http=...)``)."""

    class BoundedH11(H11Protocol):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._header_timer: asyncio.TimerHandle | None = None
            self._waiting_since = 0.0

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._wait_for_headers()
            if len(self.connections) > max_connections:
                _make_room(self, self.connections)

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_timer()
            super().connection_lost(exc)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._wait_for_headers()

        @property
        def waiting_for_headers(self) -> bool:
            return bool(self.conn.their_state is h11.IDLE)

        def _wait_for_headers(self) -> None:
            self._stop_timer()
            self._waiting_since = self.loop.time()
            self._header_timer = self.loop.call_later(header_timeout_s, self._headers_late)

        def _stop_timer(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _headers_late(self) -> None:
            self._header_timer = None
            if self.waiting_for_headers and not self.transport.is_closing():
                self.transport.close()

    return BoundedH11


def _make_room(newcomer: Any, connections: set[Any]) -> None:
    idle = [c for c in connections if c is not newcomer and not c.transport.is_closing()
            and getattr(c, "waiting_for_headers", False)]
    if idle:
        min(idle, key=lambda c: c._waiting_since).transport.close()
    else:
        newcomer.transport.close()


@dataclass(frozen=True, slots=True)
class _Seat:
    client: str
    pinned: bool
    end: Callable[[], None]


class StreamSeats:
    """The open event streams, by client: see this module's note for the two bounds.

    ``take`` is called as a stream starts, with ``end`` (how to end that stream: it must
    only wake it, from any thread); it gives back the call that frees the seat when the
    stream ends. Ending a stream only closes the response: a browser's ``EventSource``
    opens it again after its ``retry``, and takes its turn like everyone else.
    """

    def __init__(self, *, pinless: int | None = None,
                 per_client: int = STREAMS_PER_CLIENT) -> None:
        self.pinless = max(1, connection_limit() // 2 if pinless is None else pinless)
        self.per_client = max(1, per_client)
        self.ended = 0  # streams ended to make room (for tests and logs)
        self._seats: dict[int, _Seat] = {}  # in the order they were taken
        self._numbers = itertools.count()
        self._lock = threading.Lock()

    def take(self, client: str, *, pinned: bool, end: Callable[[], None]
             ) -> Callable[[], None]:
        number = next(self._numbers)
        with self._lock:
            own = [n for n, s in self._seats.items() if s.client == client]
            gone: int | None = None
            if len(own) >= self.per_client:
                gone = own[0]
            elif not pinned and self._pinless_count() >= self.pinless:
                gone = self._crowded_oldest()
            if gone is not None:
                self._seats.pop(gone).end()
                self.ended += 1
            self._seats[number] = _Seat(client, pinned, end)

        def release() -> None:
            with self._lock:
                self._seats.pop(number, None)

        return release

    def held(self, client: str | None = None) -> int:
        with self._lock:
            return sum(1 for s in self._seats.values() if client in (None, s.client))

    def _pinless_count(self) -> int:
        return sum(1 for s in self._seats.values() if not s.pinned)

    def _crowded_oldest(self) -> int:
        """The oldest PIN-less stream of the client holding the most PIN-less streams."""
        counts: dict[str, int] = {}
        for seat in self._seats.values():
            if not seat.pinned:
                counts[seat.client] = counts.get(seat.client, 0) + 1
        most = max(counts.values())
        return next(n for n, s in self._seats.items()
                    if not s.pinned and counts[s.client] == most)
