"""systemd's notify protocol without a dependency: READY, WATCHDOG and STATUS datagrams.

The unit runs with ``Type=notify`` and ``WatchdogSec=``: systemd starts the
next unit only once the board says READY=1, and restarts it if WATCHDOG=1
pings stop, which catches a loop stuck on a camera or a bus, not only a crash.
The protocol is one datagram of ``KEY=value`` lines to the AF_UNIX socket named
by ``$NOTIFY_SOCKET`` (a leading ``@`` means Linux's abstract namespace).
Outside systemd the variable is unset and every call is a no-op, so the same
program runs on a laptop.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

__all__ = ["Notifier", "Watchdog"]


class Notifier:
    """Sends notify messages to systemd, or nothing when not run by it."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        raw = env.get("NOTIFY_SOCKET", "")
        self.address: str | None = ("\0" + raw[1:]) if raw.startswith("@") else (raw or None)

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
        message = "\n".join(f"{key}={_one_line(value)}" for key, value in fields.items())
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

    def stopping(self) -> bool:
        return self.send(STOPPING=1)


def _one_line(value: str | int) -> str:
    # A newline would start a new KEY=value assignment in the datagram.
    return " ".join(str(value).splitlines())


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
