"""The club server: subscribes to every board, keeps the standings, serves them live.

Three threads meet here. paho's network thread only queues what arrives; one
worker thread owns the database (``ClubDB``), ingests queued rows in batches (one
commit per burst), asks boards to resend what it is missing, and publishes the
standings to a ``Hub``; uvicorn serves the page and ``GET /api/standings`` from
the hub, and hands round changes to the worker through the same queue.

The subscription is a persistent MQTT session (``clean_session`` off, a client id
made at random once and kept in the club database), so the broker keeps the rows that
arrive while the server is down. The id is a secret: a member who knew it could connect
under it and take the server's session over (the two then kick each other off); the
broker ``club setup-broker`` writes goes further and replaces every client id with its
login (``use_username_as_clientid``), so no login can take another's. Whatever is still
missing (a broker restarted without persistence) shows as a gap or as a board's ``now``
naming a row the server does not have, and the server asks that board to resend from
there: at most once every ``resend_every_s`` per board (requests meanwhile are merged
into one, from the earliest row), so no stream of messages makes it flood a board with
requests.

With ``boards`` (``club serve --boards FILE``, the names ``club setup-broker`` gave
logins) a message on another board's topic is refused and logged, and a store
belongs to the board that first published it (``ClubDB.known_boards``). A message that
cannot be taken (nested past the parser, a number past SQLite's) is refused and listed
alone: the rest of its batch, other boards' rows included, is kept.
"""

from __future__ import annotations

import logging
import queue
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp

from firmware.club.clubdb import ClubDB, ClubDBError
from firmware.club.messages import (
    EventMessage,
    MessageError,
    NowMessage,
    ResendMessage,
    parse_topic,
    topic,
)
from firmware.club.mqtt import make_client
from firmware.club.settings import TOPIC_PREFIX, Broker
from firmware.club.standings import Roster, Scoring
from firmware.web.connections import StreamSeats
from firmware.web.hub import Hub
from firmware.web.pins import client_key
from firmware.web.server import (
    PinGuard,
    WebServer,
    await_reply,
    error_response,
    json_body,
    state_stream,
)

__all__ = ["ClubServer", "create_club_app", "serve_club", "STANDINGS_PAGE"]

log = logging.getLogger(__name__)
STANDINGS_PAGE = Path(__file__).parent / "static" / "standings.html"


@dataclass(frozen=True, slots=True)
class _Arrived:
    topic: str
    payload: bytes


@dataclass(frozen=True, slots=True)
class _RoundChange:
    action: str
    name: str | None
    done: Future[dict[str, Any]]


class ClubServer:
    """Subscribes to ``broker`` and keeps ``db_path``; ``start``, then ``stop``."""

    def __init__(self, db_path: Path | str, *, broker: Broker, prefix: str = TOPIC_PREFIX,
                 username: str | None = None, password: str | None = None,
                 ca_file: str | None = None, roster: Roster | None = None,
                 boards: frozenset[str] | None = None,
                 scoring: Scoring | None = None, clock: Callable[[], float] = time.time,
                 resend_every_s: float = 2.0, reconnect_max_s: int = 10,
                 publish_every_s: float = 0.1,
                 client_factory: Callable[..., Any] = make_client) -> None:
        self.db_path, self.broker, self.prefix = Path(db_path), broker, prefix
        self.roster = roster or Roster()
        self.boards = boards
        self.scoring = scoring
        self.clock = clock
        self.hub = Hub()
        self.kept = 0
        self.refused = 0
        self.resends_asked = 0
        self._resend_every_s = resend_every_s
        # Standings are computed at most this often: under a burst of rows, once per
        # burst rather than once per row (each costs a query over every game). The gap
        # grows with what a report costs, so a long club night's standings never take
        # more than a tenth of the worker's time.
        self._publish_every_s = publish_every_s
        self._report_cost_s = 0.0
        self._stale = False  # rows kept (or refused, or a round changed) since the standings
        self._published_at = 0.0
        self._asked: dict[str, float] = {}     # board -> when it was last asked to resend
        self._waiting: dict[str, int] = {}     # store -> the row to ask from, once allowed
        self._names: dict[str, str] = {}  # store id -> board name (where to ask for resends)
        self._queue: queue.Queue[_Arrived | _RoundChange | None] = queue.Queue()
        self._stopping = threading.Event()
        self._db: ClubDB | None = None
        self._worker: threading.Thread | None = None
        self._login: dict[str, Any] = {"username": username, "password": password,
                                       "ca_file": ca_file, "reconnect_max_s": reconnect_max_s}
        self._client_factory = client_factory
        self._client: Any = None
        self.connected = threading.Event()

    # -- life ----------------------------------------------------------------------------------

    def start(self) -> None:
        db = ClubDB(self.db_path, clock=self.clock, known_boards=self.boards)
        self._db = db
        with db.batch():
            if self.scoring is not None:
                db.set_meta("scoring", self.scoring.to_json())
            client_id = db.meta("client_id")
            if not isinstance(client_id, str):
                client_id = "cribbage-club-" + secrets.token_hex(16)
                db.set_meta("client_id", client_id)
        self._client = self._client_factory(self.broker, client_id=client_id,
                                            clean_session=False, **self._login)
        self._client.on_connect = self._on_connect
        self._client.on_message = self._on_message
        self._publish_standings()
        self._client.connect_async(self.broker.host, self.broker.port, keepalive=30)
        self._client.loop_start()
        self._worker = threading.Thread(target=self._run, name="cribbage-club-server",
                                        daemon=True)
        self._worker.start()

    def stop(self, *, timeout_s: float = 5.0) -> None:
        self._stopping.set()
        self._queue.put(None)
        if self._client is not None:
            self._client.disconnect()
            self._client.loop_stop()
        if self._worker is not None:
            self._worker.join(timeout_s)
        self.hub.close()
        if self._db is not None:
            self._db.close()

    def change_round(self, action: str, name: str | None = None) -> Future[dict[str, Any]]:
        """Starts or closes a round on the worker thread (the database's one writer)."""
        if action not in ("start", "close"):
            raise ValueError(f"a round is started or closed, not {action!r}")
        done: Future[dict[str, Any]] = Future()
        self._queue.put(_RoundChange(action, name, done))
        return done

    # -- paho's thread ----------------------------------------------------------------------------

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any,
                    properties: Any) -> None:
        if getattr(reason, "is_failure", False):
            log.warning("club: the broker refused the server: %s", reason)
            return
        client.subscribe([(f"{self.prefix}/+/event", 1), (f"{self.prefix}/+/now", 1)])
        self.connected.set()

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        self._queue.put(_Arrived(message.topic, bytes(message.payload)))

    # -- the worker ------------------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stopping.is_set():
            wait = 0.5
            if self._stale:
                wait = max(0.0, self._published_at + self._publish_gap_s() - time.monotonic())
            try:
                first = self._queue.get(timeout=wait) if wait > 0 else self._queue.get_nowait()
            except queue.Empty:
                first = None
            batch: list[_Arrived | _RoundChange | None] = [] if first is None else [first]
            while batch and len(batch) < 2000:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            try:
                if batch:
                    self._handle(batch)
                if self._waiting:
                    self._ask_waiting()
                if self._stale and \
                        time.monotonic() - self._published_at >= self._publish_gap_s():
                    self._publish_standings()
            except Exception:  # noqa: BLE001 - a bug must not stop the standings
                log.exception("club: the server failed on a batch of %d messages", len(batch))

    def _handle(self, batch: list[_Arrived | _RoundChange | None]) -> None:
        db = self._db
        assert db is not None
        resend: dict[str, int] = {}
        rounds: list[_RoundChange] = []
        kept, refused = self.kept, self.refused
        with db.batch():
            for item in batch:
                if isinstance(item, _RoundChange):
                    rounds.append(item)
                elif isinstance(item, _Arrived):
                    self._take(db, item, resend)
        for change in rounds:
            if not change.done.set_running_or_notify_cancel():
                continue  # the page gave up waiting before the worker took it up
            try:
                found = db.start_round(change.name) if change.action == "start" else \
                    db.close_round()
            except ClubDBError as exc:
                change.done.set_exception(exc)
            else:
                change.done.set_result(found.to_json())
        for store, start in resend.items():
            self._waiting[store] = min(self._waiting.get(store, start), start)
        if self._waiting:
            self._ask_waiting()
        if self.kept != kept or rounds or self.refused != refused:
            self._stale = True
        if rounds:
            self._published_at = 0.0  # a round change shows at once

    def _take(self, db: ClubDB, item: _Arrived, resend: dict[str, int]) -> None:
        try:
            board, kind = parse_topic(self.prefix, item.topic)
            if kind in ("event", "now") and self.boards is not None and \
                    board not in self.boards:
                raise MessageError(f"board {board!r} is not one of the club's boards "
                                   "(club serve --boards)")
            if kind == "event":
                row = EventMessage.parse(item.payload, board=board)
            elif kind == "now":
                now = NowMessage.parse(item.payload, board=board)
                foreign = db.foreign(now.store, board)
                if foreign is not None:
                    raise MessageError(foreign)
                self._names[now.store] = board
                if now.last_id > db.last_id(now.store):
                    resend.setdefault(now.store, db.last_id(now.store) + 1)
                return
            else:
                return
        except MessageError as exc:
            self.refused += 1
            db.refuse(item.topic, str(exc))
            return
        try:
            done = db.ingest(row)
        except sqlite3.DatabaseError:
            raise  # the database, not the message: the batch is rolled back and sent again
        except Exception as exc:  # noqa: BLE001 - one message must not sink its batch
            self.refused += 1
            db.refuse(item.topic, f"row {row.id} could not be taken: {exc!r}")
            return
        if done.status != "refused":
            self._names[row.store] = row.board
        if done.status == "kept":
            self.kept += 1
            if resend.get(row.store, row.id + 1) <= row.id:
                del resend[row.store]  # the rows asked for are coming in
            if self._waiting.get(row.store, row.id + 1) <= row.id:
                del self._waiting[row.store]
        elif done.status == "gap" and done.resend_from is not None:
            resend[row.store] = min(resend.get(row.store, done.resend_from), done.resend_from)
        elif done.status == "refused":
            self.refused += 1

    def _ask_waiting(self) -> None:
        """Asks each board for what its stores lack, at most once every ``resend_every_s``
        a board; a store whose rows came in meanwhile is asked nothing."""
        db = self._db
        assert db is not None
        now = self.clock()
        for store, start in list(self._waiting.items()):
            board = self._names.get(store)
            if board is None:
                del self._waiting[store]
                continue
            asked = self._asked.get(board)
            if asked is not None and 0 <= now - asked < self._resend_every_s:
                continue
            del self._waiting[store]
            self._asked[board] = now
            self.resends_asked += 1
            log.info("club: asking board %r to resend from row %d", board, start)
            self._client.publish(topic(self.prefix, board, "resend"),
                                 ResendMessage(store, start).payload(), qos=1)

    def _publish_gap_s(self) -> float:
        return max(self._publish_every_s, 10 * self._report_cost_s)

    def _publish_standings(self) -> None:
        assert self._db is not None
        began = time.monotonic()
        report = self._db.report(roster=self.roster, scoring=self.scoring)
        report["updated_at"] = self.clock()
        self.hub.publish(report)
        self._stale, self._published_at = False, time.monotonic()
        self._report_cost_s = self._published_at - began


def create_club_app(server: ClubServer, *, pin: str | None = None) -> ASGIApp:
    """The standings page: ``/``, ``GET /api/standings``, ``GET /api/events`` (server-sent
    events, one ``state`` per change), and ``POST /api/round`` (with ``X-Pin``) to start or
    close a round; without a PIN rounds change only from the command line."""
    hub = server.hub
    guard = PinGuard(pin) if pin else None
    seats = StreamSeats()  # as the phone page's: no crowd of streams takes the page down

    async def index(request: Request) -> Response:
        return FileResponse(STANDINGS_PAGE, headers={"Cache-Control": "no-cache"})

    async def standings(request: Request) -> Response:
        snapshot = hub.latest
        if snapshot is None:
            return error_response(503, "the club server is starting")
        return Response(snapshot.text, media_type="application/json",
                        headers={"Cache-Control": "no-store"})

    async def events(request: Request) -> Response:
        client = client_key(request.client.host if request.client else "?")
        return state_stream(hub, seats=seats, client=client,
                            pinned=guard is not None and guard.holds_pin(client))

    async def change_round(request: Request) -> Response:
        if guard is None:
            return error_response(403, "rounds change with `cribbage-board club round` "
                                       "(the server was started without --pin)")
        refused = guard.check(request.headers.get("x-pin"),
                              request.client.host if request.client else "?")
        if refused is not None:
            return error_response(*refused)
        body = await json_body(request)
        if isinstance(body, Response):
            return body
        action = body.get("action") if isinstance(body, dict) else None
        name = body.get("name") if isinstance(body, dict) else None
        if action not in ("start", "close") or not (name is None or isinstance(name, str)):
            return error_response(400, f"send {{\"action\": \"start\" | \"close\", "
                                       f"\"name\": ...}}, not {body!r}")
        try:
            done = await await_reply(server.change_round(action, name), 10)
        except ClubDBError as exc:
            return error_response(409, str(exc))
        if done is None:
            return error_response(503, "the club server did not answer: the round is as it was")
        return JSONResponse({"ok": True, "round": done})

    return Starlette(routes=[
        Route("/", index),
        Route("/api/standings", standings),
        Route("/api/events", events),
        Route("/api/round", change_round, methods=["POST"]),
    ])


def serve_club(server: ClubServer, *, host: str, port: int, pin: str | None = None
               ) -> WebServer:
    """Starts the standings page in its own thread; ``stop()`` it when done."""
    web = WebServer(create_club_app(server, pin=pin), host=host, port=port, hub=server.hub)
    web.start()
    return web
