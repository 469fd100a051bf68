"""The camera's eye: a still of the table as the camera last read it, made off the loop's thread.

The players cannot see what the board saw, so when it misses or misreads a card they have
to guess why (glare, a hand over it, a camera mounted too high). The phone page shows them
the camera's last frame with every card the board has read outlined and named, the zones
drawn, the cards it could not read outlined in another colour and the places where the
game expects a card it has not seen marked (``firmware.web.eye_picture`` draws it).

It must cost the device loop nothing. So the loop only ``offer``-s an ``EyeView``: a few
references (the frame scaled down for the phone, the tracker's cards as an immutable tuple,
the game's expected places gathered once per revision), stored under a lock and nothing
else; and only when the eye ``wants`` one (the first frame after each look) or what the
loop read changed (``firmware.device.eye_snapshot.EyeFeed`` decides). So the loop scales a
frame or two a look, not every frame, and the eye never holds a full-size frame (a
2304x1296 one is 9 MB of a Pi Zero 2 W's peak memory). ``CameraEye``'s own thread
``look``-s once every ``interval_s``: it makes a picture
only when what it sees has settled (the same cards in the same places as at its last look)
and differs from the picture it last made. So there is at most one picture a second, and
while the table is still nothing is drawn or encoded at all: not a video stream.

The picture (a JPEG scaled for a phone) and its outlines (JSON, in the picture's pixels,
for the page to make tappable) are kept as one immutable ``EyePicture``; the web thread
reads ``latest`` and never sees the loop's objects.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from firmware.web.eye_view import (
    Expected,
    EyeTable,
    EyeView,
    Marks,
    Outline,
    Place,
    ReadCard,
    UnreadCard,
    marks,
    named_by_hand,
    point_inside,
)

__all__ = ["CameraEye", "EyeView", "EyePicture", "EyeTable", "ReadCard", "UnreadCard", "Place",
           "Expected", "Marks", "Outline", "marks", "named_by_hand", "settled_key", "EYE_PATH",
           "eye_links", "point_inside"]

log = logging.getLogger("firmware.web.camera_eye")

#: The phone page's address that opens straight on the camera's view.
EYE_PATH = "/eye"


def eye_links(host: str, port: int) -> list[str]:
    """Where a phone finds the camera's view of a board serving on ``host``:``port`` (as
    ``WebServer.urls`` says for the page): the LAN address and the ``.local`` name for a
    wildcard bind, else the address itself."""
    import socket

    from firmware.web.address import lan_address

    if host not in ("0.0.0.0", "::"):
        shown = f"[{host}]" if ":" in host else host
        return [f"http://{shown}:{port}{EYE_PATH}"]
    found = [f"http://{ip}:{port}{EYE_PATH}" for ip in [lan_address()] if ip]
    found.append(f"http://{socket.gethostname()}.local:{port}{EYE_PATH}")
    return found


@dataclass(frozen=True, slots=True)
class EyePicture:
    """One picture of the table: ``jpeg`` bytes and ``text``, the page's JSON of its outlines
    (``version`` counts pictures, from 1)."""

    version: int
    jpeg: bytes
    text: str

    def data(self) -> dict[str, Any]:
        found: dict[str, Any] = json.loads(self.text)
        return found


def settled_key(view: EyeView) -> tuple[Any, ...]:
    """What must stay the same between two looks for the table to count as settled: the
    cards and unread outlines, each by where its centre lies on a grid of 1/40 of the frame's
    width (a card's outline jitters by a pixel or two from frame to frame; a card moved to
    another place changes the key), the zones, the game's side (its revision) and how many
    cards lay on the table at start."""
    width = max(1, view.size[0])
    cell = width / 40

    def where(outline: Outline) -> tuple[int, int]:
        xs = sum(x for x, _ in outline) / len(outline)
        ys = sum(y for _, y in outline) / len(outline)
        return round(xs / cell), round(ys / cell)

    cards = tuple(sorted((str(card), zone or "", *where(outline))
                         for card, zone, outline in view.cards))
    unread = tuple(sorted(where(outline) for outline in view.unread))
    return (cards, unread, view.zones, view.table, view.size, len(view.at_start))


Draw = Callable[[EyeView], tuple[bytes, dict[str, Any]]]


class CameraEye:
    """The snapshot maker: ``offer`` from the loop, ``latest`` from the web thread, and its own
    thread (``start``) that looks every ``interval_s`` seconds (``look``; the tests call it
    themselves).

    ``draw`` turns a view into the JPEG and the page's JSON (default:
    ``firmware.web.eye_picture.draw_eye``, imported on first use so a board without a camera
    never loads it).
    """

    def __init__(self, *, interval_s: float = 1.0, draw: Draw | None = None) -> None:
        if not interval_s > 0:
            raise ValueError(f"interval_s must be positive, not {interval_s!r}")
        self.interval_s = interval_s
        self._draw = draw
        self._lock = threading.Lock()
        self._offered: EyeView | None = None
        self._wanted = True  # until a view comes; the thread asks again after each look
        self._picture: EyePicture | None = None
        self._last_key: tuple[Any, ...] | None = None
        self._shown_key: tuple[Any, ...] | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.problem: str | None = None
        self._said: str | None = None

    # -- the loop's side -----------------------------------------------------------------------

    @property
    def wants(self) -> bool:
        """Whether the eye wants the loop's next view: always while no thread of its own looks
        (``look`` called by hand takes the newest), else once per look (the first view after
        it). A plain read, no lock: the loop asks on every frame."""
        return self._wanted or self._thread is None

    def offer(self, view: EyeView) -> None:
        """Keeps ``view`` as the newest (the loop's whole cost: one assignment under a lock)."""
        with self._lock:
            self._offered = view
            self._wanted = False

    # -- the web thread's side -----------------------------------------------------------------

    @property
    def latest(self) -> EyePicture | None:
        """The newest picture, or None before the first one."""
        with self._lock:
            return self._picture

    # -- the eye's own thread ------------------------------------------------------------------

    def look(self) -> bool:
        """One look at the newest view: makes a picture when the view has settled since the
        last look and differs from the last picture. True when it made one."""
        with self._lock:
            view = self._offered
        if view is None:
            return False
        key = settled_key(view)
        settled, self._last_key = key == self._last_key, key
        if not settled or key == self._shown_key:
            return False
        draw = self._draw
        if draw is None:
            from firmware.web.eye_picture import draw_eye

            draw = self._draw = draw_eye
        try:
            jpeg, data = draw(view)
        except Exception as exc:  # a drawing bug must not stop the eye, nor the device
            self.problem = f"cannot draw the camera's view: {exc}"
            if self.problem != self._said:
                log.warning(self.problem)
                self._said = self.problem
            self._shown_key = key  # not again for the same view
            return False
        self.problem = None
        self._shown_key = key
        with self._lock:
            version = (self._picture.version if self._picture is not None else 0) + 1
            text = json.dumps({**data, "version": version}, ensure_ascii=False,
                              separators=(",", ":"))
            self._picture = EyePicture(version, jpeg, text)
        return True

    def start(self) -> None:
        """Looks every ``interval_s`` on a daemon thread until ``close``."""
        if self._thread is not None:
            return

        def run() -> None:
            while not self._stop.wait(self.interval_s):
                self.look()
                self._wanted = True

        self._thread = threading.Thread(target=run, name="cribbage-eye", daemon=True)
        self._thread.start()

    def close(self, *, timeout_s: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout_s)
            self._thread = None
