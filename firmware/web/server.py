"""The phone page's web server: a Starlette app over a ``Hub``, run by uvicorn in a thread.

Why Starlette and uvicorn: both are small, pure Python (``uvicorn`` without
its ``[standard]`` extras needs only ``h11`` and ``click``), current, and run
well on a Pi; server-sent events need nothing but a streaming response, and
a browser's ``EventSource`` reconnects by itself when the Wi-Fi drops.

Routes:

- ``GET /``, ``/static/...``: the page, shipped in the package (no CDN: the
  table may have no internet); ``GET /eye`` the same page, opened on the camera's view;
- ``GET /api/state``: the latest snapshot; ``GET /api/events``: the same as
  a stream of ``state`` events, one per change (slow phones get the newest
  only). Viewing needs no PIN; nor do ``GET /api/stats``, ``/api/review`` and
  ``/api/export?match=ID`` (a match's JSON Lines game log, as ``cribbage-board export``);
- ``POST /api/pin``: checks a PIN; ``POST /api/action``: one change (see
  ``firmware.web.inputs``), with the PIN in the ``X-Pin`` header;
- ``GET /api/eye``, ``GET /api/eye.jpg``: the camera's last view of the table, its outlines
  as JSON and the picture (``firmware.web.camera_eye``). The camera sees the players' hands
  and whatever else lies on the table, so these need the PIN as changes do.

A change is answered only once the loop has applied it (or refused it):
200 with the new revision; 400 for a malformed request, 401 without the right PIN (none or
a wrong one, as CONTRACT.md says), 429 after too many wrong ones from that phone
(``firmware.web.pins``), 409 for a replayed or
stale request or one the store cannot keep (read-only, removed, an I/O error: the error names
the fix), 422 when the table refused it (an illegal card), 507 when the card
holding the store is full (nothing stored; the board takes it once there is room), 503 when the
board did not answer. Nothing but a 200 changes the stored game. A custom
header for the PIN also means another web site open on the phone cannot post
to the board (the browser would have to ask first, and is never told yes).

Only addresses that are not public may connect (home networks, link-local,
loopback, carrier-grade NAT) unless the config says ``allow_public``.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from engine.jsontext import JsonTextError, loads
from firmware.store.coach import parse_moment, read_review, read_stats
from firmware.store.eventstore import NOT_STORED
from firmware.store.export import read_export
from firmware.store.schema import STORAGE_FULL
from firmware.web.address import check_host, is_local_address, is_local_name, lan_address
from firmware.web.camera_eye import EYE_PATH, CameraEye
from firmware.web.connections import (
    HEADER_TIMEOUT_S,
    KEEP_ALIVE_S,
    MAX_HEADER_BYTES,
    StreamSeats,
    bounded_protocol,
    connection_limit,
)
from firmware.web.hub import BusyError, Hub, HubClosedError, ReplayedError
from firmware.web.inputs import InputError, TableSettings, parse_change
from firmware.web.pins import PinGuard, client_key, new_pin

__all__ = ["create_app", "serve_page", "WebServer", "WebServerError", "PinGuard", "new_pin",
           "check_host", "state_stream", "error_response", "json_body", "await_reply", "STATIC",
           "MAX_BODY"]

STATIC = Path(__file__).parent / "static"
MAX_BODY = 16 * 1024
#: How long a request's body may take to arrive (a phone sends its few hundred bytes at once).
BODY_TIMEOUT_S = 10.0
T = TypeVar("T")


class WebServerError(OSError):
    """The phone page cannot be served: a bad host setting, or the port cannot be bound."""


def error_response(status: int, message: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": message, **extra}, status_code=status,
                        headers={"Cache-Control": "no-store"})


class _LocalOnly:
    """ASGI middleware: refuses clients from public addresses, and requests that name the
    board by a public name (see ``is_local_name``)."""

    def __init__(self, app: ASGIApp, *, allow_public: bool) -> None:
        self.app, self.allow_public = app, allow_public

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self.allow_public:
            client = scope.get("client")
            headers = dict(scope.get("headers") or [])
            host = headers.get(b"host", b"").decode("latin-1")
            refused = None
            if not client or not is_local_address(str(client[0])):
                refused = "the phone page serves the local network only"
            elif not is_local_name(host):
                refused = (f"open the board by its address (as printed when it started), "
                           f"not as {host!r}")
            if refused is not None:
                await error_response(403, refused)(scope, receive, send)
                return
        await self.app(scope, receive, send)


async def await_reply(future: Future[T], timeout: float) -> T | None:
    """The loop's answer, or None when it did not come (and never will: the request was
    withdrawn before the loop took it up, or the board is shutting down)."""
    waiting = asyncio.wrap_future(future)
    done, _ = await asyncio.wait({waiting}, timeout=timeout)
    if not done:
        if future.cancel():
            return None
        await asyncio.wait({waiting})  # the loop is applying it this very moment
    if waiting.cancelled():
        return None
    return waiting.result()


def create_app(hub: Hub, *, pin: str, allow_public: bool = False,
               on_settings: Callable[[TableSettings], None] | None = None,
               store_path: Path | None = None,
               clock: Callable[[], float] = time.monotonic, reply_timeout_s: float = 5.0,
               keepalive_s: float = 15.0, eye: CameraEye | None = None,
               seats: StreamSeats | None = None) -> ASGIApp:
    """The page's app over ``hub``. ``on_settings`` keeps a new match's settings once the
    loop has started it (``firmware.web.settings``); ``eye`` serves the camera's view;
    ``seats`` bounds the event streams (``firmware.web.connections.StreamSeats``)."""
    guard = PinGuard(pin, clock=clock)
    seats = StreamSeats() if seats is None else seats

    def client_of(request: Request) -> str:
        return request.client.host if request.client else "?"

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    async def state(request: Request) -> Response:
        snapshot = hub.latest
        if snapshot is None:
            return error_response(503, "the board is starting")
        return Response(snapshot.text, media_type="application/json",
                        headers={"Cache-Control": "no-store"})

    async def events(request: Request) -> Response:
        client = client_key(client_of(request))
        return state_stream(hub, keepalive_s=keepalive_s, seats=seats, client=client,
                            pinned=guard.holds_pin(client))

    async def coach(request: Request) -> Response:
        """The coach's statistics or a match's review, read from the store read-only (so no
        PIN: the page shows the same numbers to everyone at the table)."""
        if store_path is None:
            return error_response(404, "this board keeps no event store to read statistics from")
        query = request.query_params
        try:
            if request.url.path.endswith("/stats"):
                since, until = (None if not query.get(key) else
                                parse_moment(query[key], what=key) for key in ("since", "until"))
                data = await asyncio.to_thread(read_stats, store_path,
                                               player=query.get("player") or None,
                                               since=since, until=until)
            else:
                match = query.get("match")
                if match is not None and not match.isdigit():
                    return error_response(400, f"match must be a match id, not {match!r}")
                data = await asyncio.to_thread(
                    read_review, store_path, match=None if match is None else int(match))
        except (ValueError, OSError) as exc:
            return error_response(404 if isinstance(exc, OSError) else 400, str(exc))
        return JSONResponse(data, headers={"Cache-Control": "no-store"})

    async def export(request: Request) -> Response:
        """A match as its JSON Lines game log (``cribbage-board export``), as a download: a
        read like the coach's, so no PIN."""
        if store_path is None:
            return error_response(404, "this board keeps no event store to export from")
        match = request.query_params.get("match")
        if match is not None and not match.isdigit():
            return error_response(400, f"match must be a match id, not {match!r}")
        try:
            exported = await asyncio.to_thread(read_export, store_path,
                                               None if match is None else int(match))
        except (ValueError, OSError) as exc:
            return error_response(404, str(exc))
        name = f"cribbage-match-{exported.match}.jsonl"
        return Response(exported.text, media_type="application/jsonl",
                        headers={"Cache-Control": "no-store",
                                 "Content-Disposition": f'attachment; filename="{name}"'})

    async def check_pin(request: Request) -> Response:
        refused = guard.check(request.headers.get("x-pin"), client_of(request))
        if refused is not None:
            return error_response(*refused)
        return JSONResponse({"ok": True}, headers={"Cache-Control": "no-store"})

    async def action(request: Request) -> Response:
        refused = guard.check(request.headers.get("x-pin"), client_of(request))
        if refused is not None:
            return error_response(*refused)
        body = await json_body(request)
        if isinstance(body, Response):
            return body
        snapshot = hub.latest
        if snapshot is None:
            return error_response(503, "the board is starting: try again in a moment")
        try:
            change = parse_change(body, table=snapshot.data())
        except InputError as exc:
            return error_response(400, str(exc))
        try:
            future = hub.submit(change.items, rev=change.rev, nonce=change.nonce)
        except ReplayedError as exc:
            return error_response(409, str(exc), rev=snapshot.rev)
        except (BusyError, HubClosedError) as exc:
            return error_response(503, str(exc))
        reply = await await_reply(future, reply_timeout_s)
        if reply is None:
            return error_response(503, "the board did not answer: nothing was done")
        if reply.status == "stale":
            why = reply.feedback[0][1] if reply.feedback else (
                "the table has changed since this page looked: nothing was done; look again "
                "and retry")
            return error_response(409, why, rev=reply.rev)
        feedback = [{"kind": k, "text": t} for k, t in reply.feedback]
        if reply.refused is not None:  # 507: the card is full, nothing stored (try again)
            status = _refused_status(reply.refused)
            return error_response(status, reply.refused, rev=reply.rev, feedback=feedback)
        if change.settings is not None and reply.changed and on_settings is not None:
            await asyncio.to_thread(on_settings, change.settings)
        return JSONResponse({"ok": True, "rev": reply.rev, "changed": reply.changed,
                             "feedback": feedback}, headers={"Cache-Control": "no-store"})

    async def camera_eye(request: Request) -> Response:
        """The camera's last view: the outlines (JSON) or the picture, with the PIN only."""
        refused = guard.check(request.headers.get("x-pin"), client_of(request))
        if refused is not None and not request.headers.get("x-pin") and refused[0] == 401:
            return error_response(401, "the camera's view needs the board's PIN (X-Pin header)")
        if refused is not None:
            return error_response(*refused)
        if eye is None:
            return error_response(404, "this board has no camera to show")
        picture = eye.latest
        if picture is None:
            return error_response(503, "the camera has not shown the table yet: try again "
                                       "in a moment")
        private = {"Cache-Control": "no-store, private"}
        if request.url.path.endswith(".jpg"):
            return Response(picture.jpeg, media_type="image/jpeg", headers=private)
        return Response(picture.text, media_type="application/json", headers=private)

    app = Starlette(routes=[
        Route("/", index),
        Route(EYE_PATH, index),  # the page, opened on the camera's view
        Route("/api/state", state),
        Route("/api/events", events),
        Route("/api/pin", check_pin, methods=["POST"]),
        Route("/api/stats", coach),
        Route("/api/review", coach),
        Route("/api/export", export),
        Route("/api/action", action, methods=["POST"]),
        Route("/api/eye", camera_eye),
        Route("/api/eye.jpg", camera_eye),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ])
    return _LocalOnly(app, allow_public=allow_public)


def state_stream(hub: Hub, *, keepalive_s: float = 15.0, seats: StreamSeats | None = None,
                 client: str = "?", pinned: bool = False) -> Response:
    """Server-sent events: one ``state`` event per snapshot the hub publishes (a slow client
    gets the newest only), and a comment every ``keepalive_s`` so proxies keep it open.
    With ``seats`` the stream takes a seat as ``client`` (``pinned``: it gave the PIN), and
    ends when the seats need it for another. Also the club standings page's stream
    (``firmware.club.server``)."""
    aio = asyncio.get_running_loop()
    wake = asyncio.Event()
    ended = threading.Event()

    def poke() -> None:  # on the publishing thread: only hand over to ours
        if not aio.is_closed():
            aio.call_soon_threadsafe(wake.set)

    def end() -> None:
        ended.set()
        poke()

    async def stream() -> AsyncIterator[str]:
        unsubscribe = hub.subscribe(poke)
        release = seats.take(client, pinned=pinned, end=end) if seats is not None else None
        sent = 0
        try:
            yield "retry: 1000\n\n"
            while not hub.closed and not ended.is_set():
                wake.clear()
                snapshot = hub.latest
                if snapshot is not None and snapshot.version > sent:
                    sent = snapshot.version
                    yield f"id: {sent}\nevent: state\ndata: {snapshot.text}\n\n"
                    continue
                try:
                    await asyncio.wait_for(wake.wait(), keepalive_s)
                except TimeoutError:
                    yield ": keepalive\n\n"
        finally:
            if release is not None:
                release()
            unsubscribe()

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


def _refused_status(refused: str) -> int:
    """The status of a change the board refused: 507 when the card is full (it takes the
    change once there is room), 409 when the store cannot keep changes (read-only, removed,
    an I/O error: the words say the fix), else 422 (the table refused it)."""
    if refused.startswith(STORAGE_FULL):
        return 507
    return 409 if refused.startswith(NOT_STORED) else 422


async def json_body(request: Request) -> Any:
    """The request's JSON body, or the 4xx response that says what is wrong with it."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        return error_response(415 if kind else 400, "send the request as application/json")
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY):
        return error_response(413, f"the request is larger than {MAX_BODY} bytes")
    raw = b""
    try:
        async with asyncio.timeout(BODY_TIMEOUT_S):
            async for chunk in request.stream():
                raw += chunk
                if len(raw) > MAX_BODY:
                    return error_response(413, f"the request is larger than {MAX_BODY} bytes")
    except TimeoutError:
        return error_response(408, f"the request's body did not arrive within {BODY_TIMEOUT_S:g} s")
    try:
        return loads(raw)
    except JsonTextError as exc:
        return error_response(400, f"the request is not JSON: {exc}")


def serve_page(hub: Hub, *, host: str, port: int, pin: str, allow_public: bool = False,
               on_settings: Callable[[TableSettings], None] | None = None,
               store_path: Path | None = None, eye: CameraEye | None = None) -> WebServer:
    """Starts the phone page over ``hub`` in its own thread; ``stop()`` it when done.
    ``store_path`` lets the page read the coach's statistics from the event store; ``eye``
    shows the camera's view."""
    app = create_app(hub, pin=pin, allow_public=allow_public, on_settings=on_settings,
                     store_path=store_path, eye=eye)
    server = WebServer(app, host=check_host(host, allow_public=allow_public), port=port, hub=hub)
    server.start()
    return server


class WebServer:
    """uvicorn serving ``app`` from a daemon thread, on a socket bound up front, with its
    connections bounded (``firmware.web.connections``).

    Binding in ``start`` (on the caller's thread) makes a taken port a clear
    error at once rather than a log line from another thread. ``stop``
    closes the hub first, so the open event streams end, then asks uvicorn
    to finish and waits for its thread.
    """

    def __init__(self, app: ASGIApp, *, host: str, port: int, hub: Hub | None = None,
                 header_timeout_s: float = HEADER_TIMEOUT_S,
                 max_connections: int | None = None) -> None:
        self.app, self.host, self.port, self.hub = app, host, port, hub
        self.header_timeout_s = header_timeout_s
        self.max_connections = connection_limit() if max_connections is None else max_connections
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    def start(self, *, timeout_s: float = 10.0) -> None:
        sock = _bind(self.host, self.port)
        self.port = sock.getsockname()[1]
        # Half-open connections are bounded by firmware.web.connections; uvicorn's own
        # concurrency limit stays as a backstop that the bound keeps out of reach.
        http = bounded_protocol(header_timeout_s=self.header_timeout_s,
                                max_connections=self.max_connections)
        config = uvicorn.Config(self.app, log_level="warning", access_log=False,
                                lifespan="off", ws="none", http=http, loop="asyncio",
                                timeout_graceful_shutdown=2, server_header=False,
                                timeout_keep_alive=KEEP_ALIVE_S,
                                h11_max_incomplete_event_size=MAX_HEADER_BYTES,
                                limit_concurrency=self.max_connections + 16,
                                # Nothing stands in front of the board: a forwarded header
                                # is whatever the sender wrote (it would name a new client
                                # for every PIN guess; uvicorn trusts it from loopback).
                                proxy_headers=False, forwarded_allow_ips=[])
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]},
                                  name="cribbage-web", daemon=True)
        self._server, self._thread = server, thread
        thread.start()
        deadline = time.monotonic() + timeout_s
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise WebServerError(f"the phone page did not start on {self.host}:{self.port}")
            time.sleep(0.01)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def urls(self) -> list[str]:
        """Where phones find the page: the LAN address (and name) for a wildcard bind."""
        if self.host not in ("0.0.0.0", "::"):
            host = f"[{self.host}]" if ":" in self.host else self.host
            return [f"http://{host}:{self.port}/"]
        found = [f"http://{ip}:{self.port}/" for ip in [lan_address()] if ip]
        found.append(f"http://{socket.gethostname()}.local:{self.port}/")
        return found

    def stop(self, *, timeout_s: float = 5.0) -> None:
        if self.hub is not None:
            self.hub.close()
        server, thread = self._server, self._thread
        if server is None or thread is None:
            return
        server.should_exit = True
        thread.join(timeout_s)
        if thread.is_alive():
            server.force_exit = True
            thread.join(timeout_s)


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        sock.bind((host, port))
        sock.listen(64)
    except OSError as exc:
        sock.close()
        raise WebServerError(f"cannot serve the phone page on {host}:{port}: "
                             f"{exc.strerror or exc}") from None
    return sock
