"""systemd's notify protocol without a dependency: READY, WATCHDOG and STATUS datagrams.

The unit runs with ``Type=notify`` and ``WatchdogSec=``: systemd starts the
next unit only once the board says READY=1, and restarts it if WATCHDOG=1
pings stop, which catches a loop stuck on a camera or a bus, not only a crash.
The protocol is one datagram of ``KEY=value`` lines to the AF_UNIX socket named
by ``$NOTIFY_SOCKET`` (a leading ``@`` means Linux's abstract namespace).
Outside systemd the variable is unset and every call is a no-op, so the same
program runs on a laptop.

What systemd's own code does with it (sources and the stand-in that behaves so:
``docs/interfaces/systemd-notify.md``, ``tests/standins/systemd_notify.py``): the
address must begin with ``/`` or ``@`` (sd-daemon.c); the manager reads at most
``PIPE_BUF`` (4096) bytes and ignores a longer datagram whole, READY=1 with it
(manager.c), so a long STATUS is cut to fit; ``EXTEND_TIMEOUT_USEC`` holds off the
start (or stop) timeout while a long repair runs before READY=1, when the watchdog is
not active yet (systemd.service(5), ``WatchdogSec=``).
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

__all__ = ["Notifier", "Watchdog", "extend_timeout", "NOTIFY_BUFFER_MAX"]

#: systemd's receive buffer (``NOTIFY_BUFFER_MAX`` = ``PIPE_BUF``): a longer datagram is ignored.
NOTIFY_BUFFER_MAX = 4096
#: ``sizeof(sockaddr_un.sun_path)`` less the path's NUL.
_MAX_PATH = 107


class Notifier:
    """Sends notify messages to systemd, or nothing when not run by it."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        raw = env.get("NOTIFY_SOCKET", "")
        usable = len(raw) > 1 and raw[0] in "/@" and len(raw) <= _MAX_PATH
        # sd_notify refuses anything else (a relative path, "vsock:" here): so do we.
        self.address: str | None = None if not usable else \
            ("\0" + raw[1:]) if raw.startswith("@") else raw

    @property
    def enabled(self) -> bool:
        return self.address is not None

    def send(self, **fields: str | int) -> bool:
        """Sends ``KEY=value`` lines in one datagram; True when it was delivered.

        Failures are returned, not raised: a scorer that crashed mid-game
        because systemd's socket hiccuped would be worse than a missed ping,
        and missed pings are exactly what the watchdog is there to notice.
        """
        if self.address is None or not fields:
            return False
        message = _fit("\n".join(f"{key}={_one_line(value)}" for key, value in fields.items()))
        if message is None:
            return False
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
                sock.connect(self.address)
                sock.sendall(message.encode())
        except OSError:
            return False
        return True

    def ready(self, status: str | None = None) -> bool:
        """Startup is done: the store is replayed and the board shows the game."""
        return self.send(READY=1, **({"STATUS": status} if status else {}))

    def status(self, text: str) -> bool:
        """A line ``systemctl status`` shows, such as the score or a camera problem."""
        return self.send(STATUS=text)

    def watchdog(self) -> bool:
        return self.send(WATCHDOG=1)

    def extend_timeout(self, seconds: float) -> bool:
        """Asks systemd to wait ``seconds`` more for the next message (``EXTEND_TIMEOUT_USEC``).

        Before READY=1 this holds off ``TimeoutStartSec=``, as the store does while it
        repairs; call it again before the time runs out. It does not feed the watchdog,
        which systemd starts only once READY=1 is sent.
        """
        if not seconds > 0:
            raise ValueError(f"extend_timeout needs seconds > 0, got {seconds!r}")
        return self.send(EXTEND_TIMEOUT_USEC=max(1, round(seconds * 1_000_000)))

    def stopping(self) -> bool:
        return self.send(STOPPING=1)


def extend_timeout(seconds: float, environ: Mapping[str, str] | None = None) -> bool:
    """``Notifier(environ).extend_timeout(seconds)``: for code that holds no Notifier."""
    return Notifier(environ).extend_timeout(seconds)


def _one_line(value: str | int) -> str:
    # A newline would start a new KEY=value assignment in the datagram.
    return " ".join(str(value).splitlines())


def _fit(message: str) -> str | None:
    """``message`` within systemd's 4096 bytes, its STATUS text cut if need be; None when
    even that cannot fit (systemd would ignore the whole datagram)."""
    data = message.encode()
    if len(data) <= NOTIFY_BUFFER_MAX:
        return message
    lines = message.split("\n")
    status = [i for i, line in enumerate(lines) if line.startswith("STATUS=")]
    if not status:
        return None
    over = len(data) - NOTIFY_BUFFER_MAX
    line = lines[status[0]].encode()
    if len(line) - over < len("STATUS=") + 1:
        return None
    lines[status[0]] = line[:len(line) - over - 3].decode("utf-8", "ignore") + "..."
    return _fit("\n".join(lines))


@dataclass
class Watchdog:
    """Says when to ping: every half of systemd's ``WatchdogSec``, as sd_watchdog_enabled advises.

    ``interval_s`` is None when systemd asked for no watchdog (or asked
    another process, per ``$WATCHDOG_PID``); then ``due`` is never true.
    """

    interval_s: float | None
    clock: Callable[[], float] = time.monotonic
    _last: float | None = None

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None, *,
                     clock: Callable[[], float] = time.monotonic,
                     pid: int | None = None) -> Watchdog:
        env = os.environ if environ is None else environ
        usec, owner = env.get("WATCHDOG_USEC"), env.get("WATCHDOG_PID")
        if not usec or not usec.isdigit() or int(usec) == 0:
            return cls(None, clock)
        if owner and owner != str(os.getpid() if pid is None else pid):
            return cls(None, clock)
        return cls(int(usec) / 1_000_000 / 2, clock)

    def due(self) -> bool:
        """Whether a ping is due now (the first one is due at once)."""
        if self.interval_s is None:
            return False
        return self._last is None or self.clock() - self._last >= self.interval_s

    def ping(self, notifier: Notifier) -> bool:
        """Pings if due; True when a ping went out. Call it from the loop, every turn."""
        if not self.due():
            return False
        self._last = self.clock()
        return notifier.watchdog()
