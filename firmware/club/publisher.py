"""The board's publisher: a thread that copies the store's rows to the broker.

The loop never waits on it: the thread notices the store's commits itself
(SQLite's ``data_version``, checked every ``poll_s``, or at once when ``wake`` is
called), so a slow or absent broker cannot delay a card or an LED. Rows go out at
QoS 1 in store order and count as sent only once the broker has acknowledged each
(``firmware.club.outbox``); until then they are read again and sent again, which
the club server de-duplicates by (store, id). After each change the retained
``now`` message carries the table.

Resend requests are answered at most once every ``resend_every_s`` (those meanwhile
are merged into one, from the earliest row), and only for this board's own store,
so a stream of requests, forged or not, republishes the store at most once a window.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.game import Game
from engine.records import LogError
from firmware.club.messages import EventMessage, MessageError, NowMessage, ResendMessage, topic
from firmware.club.mqtt import make_client
from firmware.club.outbox import Outbox, OutboxRow
from firmware.club.settings import ClubConfig
from firmware.web.snapshot import side_json

if TYPE_CHECKING:
    from firmware.web.hub import Hub

__all__ = ["ClubPublisher", "start_publisher", "table_of"]

log = logging.getLogger(__name__)


def table_of(game: Game, match: int) -> dict[str, Any]:
    """The ``now`` message's table: what a scoreboard shows of the live game."""
    return {"match": match, "players": list(game.players), "phase": game.phase,
            "next": game.next, "turn": game.turn, "dealer": game.dealer,
            "winner": game.winner, "result": game.result,
            "sides": [side_json(s) for s in game.sides]}


def start_publisher(store_path: Path, config: ClubConfig, *,
                    hub: Hub | None = None) -> ClubPublisher:
    """A started publisher of the store at ``store_path``, as ``run``, ``demo --club`` and
    ``club publish`` start one. Where the phone page's ``hub`` says each of the loop's
    commits, the publisher wakes on each rather than at its next poll."""
    publisher = ClubPublisher(store_path, config)
    publisher.start()
    if hub is not None:
        hub.subscribe(publisher.wake)
    return publisher


class ClubPublisher:
    """Publishes the store at ``store_path`` under ``config.board``; ``start`` then ``stop``.

    ``client_factory`` makes the paho client (tests count what it sends);
    ``ack_timeout_s`` bounds the wait for one batch's acknowledgements.
    """

    def __init__(self, store_path: Path, config: ClubConfig, *, poll_s: float = 0.1,
                 ack_timeout_s: float = 5.0, batch: int = 500, reconnect_max_s: int = 10,
                 resend_every_s: float = 5.0,
                 client_factory: Callable[..., Any] = make_client) -> None:
        self.store_path, self.config = Path(store_path), config
        self.poll_s, self.ack_timeout_s, self.batch = poll_s, ack_timeout_s, batch
        self._factory, self._reconnect_max_s = client_factory, reconnect_max_s
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._connected = threading.Event()
        self._lock = threading.Lock()
        self._progress = threading.Condition()
        self.resend_every_s = resend_every_s
        self._rewinds: dict[str, int] = {}  # store -> the earliest row asked for
        self._rewound_at = -float("inf")
        self.resends_answered = 0
        self.resends_ignored = 0
        self._store: str | None = None  # this board's store id, once the outbox has made it
        self._need_now = True
        self._thread: threading.Thread | None = None
        self._client: Any = None
        self._game: tuple[int, list[str], Game] | None = None
        self.sent = 0
        self.last_error: str | None = None

    # -- life --------------------------------------------------------------------------------

    def _topic(self, kind: str) -> str:
        return topic(self.config.topic_prefix, self.config.board, kind)

    def start(self) -> None:
        config = self.config
        client = self._factory(
            config.broker, client_id=f"cribbage-{config.board}-{uuid.uuid4().hex[:8]}",
            username=config.username, password=config.password,
            ca_file=None if config.ca_file is None else str(config.ca_file),
            reconnect_max_s=self._reconnect_max_s,
            will=(self._topic("online"), b"offline"))
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        self._client = client
        client.connect_async(config.broker.host, config.broker.port, keepalive=30)
        client.loop_start()
        self._thread = threading.Thread(target=self._run, name="cribbage-club", daemon=True)
        self._thread.start()

    def stop(self, *, timeout_s: float = 5.0) -> None:
        """Sends what it can within ``timeout_s``, then says offline and disconnects."""
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout_s)
        client = self._client
        if client is not None:
            if self._connected.is_set():
                try:
                    client.publish(self._topic("online"), b"offline", qos=1, retain=True)
                except Exception:  # noqa: BLE001 - leaving anyway; the will says it too
                    pass
            client.disconnect()
            client.loop_stop()

    def flush(self, last_id: int, *, timeout_s: float) -> bool:
        """Waits until the broker has acknowledged every row up to ``last_id`` (commands that
        end after a game; the device never waits)."""
        deadline = time.monotonic() + timeout_s
        self._wake.set()
        with self._progress:
            while self.sent < last_id:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._progress.wait(min(left, 0.1))
                self._wake.set()
        return True

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    def wake(self) -> None:
        """Looks at the store now rather than at the next poll; never blocks (the device's
        page hub calls it on the loop's thread after every commit)."""
        self._wake.set()

    def describe(self) -> str:
        state = "connected" if self.connected else "connecting"
        return (f"club: board {self.config.board!r} publishing to {self.config.broker} "
                f"({state})")

    # -- paho's thread: only flags and wake-ups --------------------------------------------

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any,
                    properties: Any) -> None:
        if getattr(reason, "is_failure", False):
            self.last_error = f"the broker refused the connection: {reason}"
            log.warning("club: %s", self.last_error)
            return
        client.subscribe(self._topic("resend"), qos=1)
        client.publish(self._topic("online"), b"online", qos=1, retain=True)
        with self._lock:
            self._need_now = True
        self._connected.set()
        self._wake.set()

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any,
                       properties: Any) -> None:
        self._connected.clear()

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        try:
            asked = ResendMessage.parse(message.payload)
        except MessageError as exc:
            self.resends_ignored += 1
            log.warning("club: refused a resend request: %s", exc)
            return
        mine = self._store
        if mine is not None and asked.store != mine:
            self._ignore_foreign(asked.store, mine)
            return
        with self._lock:
            self._rewinds[asked.store] = min(self._rewinds.get(asked.store, asked.start),
                                             asked.start)
        self._wake.set()

    # -- the publishing thread ----------------------------------------------------------------

    def _run(self) -> None:
        outbox: Outbox | None = None
        try:
            while True:
                self._wake.wait(self.poll_s)
                self._wake.clear()
                if not self._connected.is_set():
                    if self._stopping.is_set():
                        return
                    continue
                try:
                    if outbox is None:
                        outbox = Outbox(self.store_path, board=self.config.board)
                    more = self._pass(outbox)
                except Exception as exc:  # noqa: BLE001 - log and retry; never stop the board
                    self.last_error = f"{type(exc).__name__}: {exc}"
                    log.warning("club: publishing failed, will retry: %s", self.last_error)
                    more = False
                if more:
                    self._wake.set()
                elif self._stopping.is_set():
                    return
        finally:
            if outbox is not None:
                outbox.close()

    def _pass(self, outbox: Outbox) -> bool:
        """Publishes one batch; True when more is waiting."""
        rewind = self._take_rewind(outbox)
        with self._lock:
            need_now, self._need_now = self._need_now, False
        outbox.persist_if_due()
        if rewind is not None:
            outbox.rewind(rewind)
        elif not outbox.changed() and not need_now:
            return False
        pending = outbox.pending(limit=self.batch)
        if pending.store is None:
            return False
        self._store = pending.store
        if pending.rows and not self._send(pending.store, pending.rows, outbox):
            with self._lock:
                self._need_now = True
            return False
        if pending.rows:
            outbox.mark_sent(pending.rows)
        with self._progress:
            self.sent = outbox.sent
            self._progress.notify_all()
        if pending.rows or need_now:
            self._send_now(outbox, pending.store, pending.last_id)
        return pending.more

    def _ignore_foreign(self, store: str, mine: str | None) -> None:
        """Counts and logs a resend request for a store that is not this board's."""
        self.resends_ignored += 1
        log.warning("club: ignored a resend request for store %s (this board's is %s)",
                    store, mine)

    def _take_rewind(self, outbox: Outbox) -> int | None:
        """The row to publish again from, if a request for this store is due."""
        now = time.monotonic()
        with self._lock:
            if not self._rewinds or now - self._rewound_at < self.resend_every_s:
                return None
            rewinds, self._rewinds = self._rewinds, {}
        mine = self._store = outbox.store()
        start = rewinds.pop(mine, None) if mine is not None else None
        for store in rewinds:
            self._ignore_foreign(store, mine)
        if start is None or start > outbox.last_id():
            return None
        self._rewound_at = now
        self.resends_answered += 1
        log.info("club: publishing again from row %d, as asked", start)
        return start

    def _send(self, store: str, rows: tuple[OutboxRow, ...], outbox: Outbox) -> bool:
        client, board = self._client, self.config.board
        where = self._topic("event")
        infos = [client.publish(where, EventMessage.of(board, store, r).payload(), qos=1)
                 for r in rows]
        outbox.mark_attempted(rows)
        for info in infos:
            try:
                info.wait_for_publish(self.ack_timeout_s)
            except (RuntimeError, ValueError):
                return False
            if not info.is_published():
                return False
        return True

    def _send_now(self, outbox: Outbox, store: str, last_id: int) -> None:
        match = outbox.current_match()
        if match is None:
            return
        lines = outbox.live_lines(match)
        cached = self._game
        try:
            if cached is not None and cached[0] == match and lines[:len(cached[1])] == cached[1]:
                game = cached[2]
                for line in lines[len(cached[1]):]:
                    game.apply(line)
            else:
                game = Game.replay(lines)
        except LogError as exc:
            self._game = None
            log.warning("club: the store's match %s does not fold: %s", match, exc)
            return
        self._game = (match, lines, game)
        now = NowMessage(self.config.board, store, last_id, table_of(game, match))
        self._client.publish(self._topic("now"), now.payload(), qos=1, retain=True)
