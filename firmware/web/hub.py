"""The one meeting point of the device loop and the phone page's web thread.

The loop is the only owner of the store, the flow and the game (see
``firmware.device.loop``); the web server runs on another thread. They share
nothing but a ``Hub``:

- the loop ``publish``-es the page's JSON after every change it committed;
  the hub keeps it as an immutable ``Snapshot`` (text), wakes everyone who
  waits for a newer one and never hands out the loop's objects;
- the web thread ``submit``-s a ``Request`` (table inputs already checked,
  the revision they were made against and a nonce) and gets a
  ``concurrent.futures.Future``; the loop ``take``-s the queued requests in
  its own step, feeds them to the flow exactly like button presses and
  answers each with a ``Reply``.

A nonce seen before is refused at once (a replayed request); whether the
request is stale is for the loop to judge, because only the loop knows the
store's revision at the moment it would apply the request. A reply that changed
the table goes out only once the snapshot showing that change is published (or
the loop has gone on to its next step), so a phone that reads ``/api/state``
right after its 200 sees the revision the 200 named, never the one before it.
Everything here is plain threading: no web framework, so it is tested without HTTP.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Literal

from firmware.table.flow import TableInput

__all__ = ["Hub", "Snapshot", "Request", "Reply", "HubError", "ReplayedError", "BusyError",
           "HubClosedError"]


class HubError(RuntimeError):
    """The hub cannot take a request (see the subclasses)."""


class ReplayedError(HubError):
    """A request whose nonce was already used: a replay, refused without looking further."""


class BusyError(HubError):
    """Too many requests wait for the loop (it is stuck, or someone floods the page)."""


class HubClosedError(HubError):
    """The device is shutting down."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One published view of the table: ``version`` counts publishes, ``rev`` names the
    store's state (``firmware.web.snapshot.revision``), ``text`` is the page's JSON."""

    version: int
    rev: str
    text: str

    def data(self) -> dict[str, Any]:
        found: dict[str, Any] = json.loads(self.text)
        return found


@dataclass(frozen=True, slots=True)
class Reply:
    """What the loop did with a request.

    ``stale``: the store had moved on from the request's revision, nothing
    was done. ``done``: the inputs went through the flow; ``changed`` says
    whether the store changed (an illegal card changes nothing and says why
    in ``feedback`` as a ``flash``).
    """

    status: Literal["done", "stale"]
    rev: str
    changed: bool = False
    feedback: tuple[tuple[str, str], ...] = ()

    @property
    def refused(self) -> str | None:
        """Why the table refused the request (the first flash), when it changed nothing."""
        if self.changed:
            return None
        return next((text for kind, text in self.feedback if kind == "flash"), None)


@dataclass(frozen=True, slots=True)
class Request:
    """Table inputs from the page, to be applied only if the store is still at ``rev``."""

    items: tuple[TableInput, ...]
    rev: str
    nonce: str
    future: Future[Reply] = field(default_factory=Future, compare=False)
    # Where the answer goes first (the hub holds a change until it is published); None:
    # straight to the future.
    settle: Callable[[Request, Reply], None] | None = field(default=None, compare=False)

    def begin(self) -> bool:
        """Claims the request for the loop; False when the web side gave up on it already."""
        return self.future.set_running_or_notify_cancel()

    def answer(self, reply: Reply) -> None:
        if self.settle is not None:
            self.settle(self, reply)
        else:
            self.future.set_result(reply)

    def fail(self, error: BaseException) -> None:
        self.future.set_exception(error)


class Hub:
    """Snapshots out, requests in; every method is safe from any thread.

    ``remember`` nonces are kept (oldest forgotten first); ``backlog``
    requests may wait for the loop before ``submit`` says busy.
    """

    def __init__(self, *, remember: int = 4096, backlog: int = 32) -> None:
        self._lock = threading.Condition()
        self._snapshot: Snapshot | None = None
        self._version = 0
        self._queue: deque[Request] = deque()
        self._nonces: OrderedDict[str, None] = OrderedDict()
        self._remember = remember
        self._backlog = backlog
        self._listeners: list[Callable[[], None]] = []
        self._closed = False
        # Replies that changed the table, held until the snapshot showing it is out.
        self._held: list[tuple[Request, Reply]] = []

    # -- the loop's side ---------------------------------------------------------------------

    def publish(self, data: Mapping[str, Any]) -> Snapshot:
        """Keeps ``data`` (the page's JSON, with its ``rev``) as the newest snapshot.

        Serialised here, on the caller's thread, so nothing the loop owns
        outlives the call.
        """
        rev = str(data.get("rev", ""))
        with self._lock:
            self._version += 1
            text = json.dumps({**data, "version": self._version}, ensure_ascii=False,
                              separators=(",", ":"))
            snapshot = Snapshot(self._version, rev, text)
            self._snapshot = snapshot
            listeners = list(self._listeners)
            held, self._held = self._held, []
            self._lock.notify_all()
        _release(held)
        for listener in listeners:
            try:
                listener()
            except Exception:  # a page that went away must not stop the device
                self.unsubscribe(listener)
        return snapshot

    def take(self) -> list[Request]:
        """Every waiting request, oldest first (the loop calls it once per step).

        Replies still held from the last step go out now: a step that changed the table
        published it, so one that did not had nothing new to show.
        """
        with self._lock:
            taken = list(self._queue)
            self._queue.clear()
            held, self._held = self._held, []
        _release(held)
        return taken

    def _settle(self, request: Request, reply: Reply) -> None:
        """A reply that changed the table waits for the next publish (see the module)."""
        with self._lock:
            if reply.changed and not self._closed:
                self._held.append((request, reply))
                return
        request.future.set_result(reply)

    # -- the web thread's side ---------------------------------------------------------------

    @property
    def latest(self) -> Snapshot | None:
        """The newest snapshot, or None before the loop has published one."""
        with self._lock:
            return self._snapshot

    @property
    def closed(self) -> bool:
        with self._lock:
            return self._closed

    def submit(self, items: Sequence[TableInput], *, rev: str, nonce: str) -> Future[Reply]:
        """Queues ``items`` for the loop. A nonce used before is a ``ReplayedError``."""
        request = Request(tuple(items), rev, nonce, settle=self._settle)
        with self._lock:
            if self._closed:
                raise HubClosedError("the board is shutting down")
            if nonce in self._nonces:
                raise ReplayedError(f"request {nonce!r} was received already: not applied again")
            if len(self._queue) >= self._backlog:
                raise BusyError(f"{len(self._queue)} requests are waiting for the board already")
            self._nonces[nonce] = None
            while len(self._nonces) > self._remember:
                self._nonces.popitem(last=False)
            self._queue.append(request)
        return request.future

    def wait(self, after: int, timeout: float | None = None) -> Snapshot | None:
        """Blocks until a snapshot newer than version ``after`` exists (None on timeout or
        once the hub is closed)."""
        with self._lock:
            self._lock.wait_for(lambda: self._closed or (
                self._snapshot is not None and self._snapshot.version > after), timeout)
            if self._snapshot is not None and self._snapshot.version > after:
                return self._snapshot
            return None

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Calls ``listener()`` (on the loop's thread: keep it tiny) after every publish and
        on close; returns the function that unsubscribes it."""
        with self._lock:
            self._listeners.append(listener)
        return lambda: self.unsubscribe(listener)

    def unsubscribe(self, listener: Callable[[], None]) -> None:
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def close(self) -> None:
        """Refuses new requests, cancels the waiting ones and wakes every waiter."""
        with self._lock:
            self._closed = True
            waiting = list(self._queue)
            self._queue.clear()
            listeners = list(self._listeners)
            held, self._held = self._held, []
            self._lock.notify_all()
        _release(held)
        for request in waiting:
            request.future.cancel()
        for listener in listeners:
            try:
                listener()
            except Exception:
                pass


def _release(held: Sequence[tuple[Request, Reply]]) -> None:
    """Answers held requests, outside the hub's lock (a future's callbacks run here)."""
    for request, reply in held:
        request.future.set_result(reply)
