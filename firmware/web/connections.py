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
"""

from __future__ import annotations

import asyncio
import resource
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["bounded_protocol", "connection_limit", "HEADER_TIMEOUT_S", "MAX_CONNECTIONS",
           "KEEP_ALIVE_S", "MAX_HEADER_BYTES"]

HEADER_TIMEOUT_S = 10.0
KEEP_ALIVE_S = 5
MAX_CONNECTIONS = 256
MAX_HEADER_BYTES = 16 * 1024
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
