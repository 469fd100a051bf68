"""The PIN that guards changes from the phone page, and how guessing it is slowed down.

Why per client, and exponential: a limit shared by everyone lets one guesser
lock every phone at the table out (while it held, even the right PIN was
refused). Here each client has its own count: every ``tries`` wrong PINs lock
that client out (429), for ``lock_s`` the first time and twice as long each time
after, up to ``max_lock_s``; the right PIN clears its count. A phone that has
not been guessing is never refused.

The arithmetic, with the defaults (6-digit PINs, 5 tries, 1 minute doubling
to a day, forgotten after 30 days without a wrong PIN): one client gets 60
guesses in its first 34 hours, then 5 a day: 950 in a 180-day season
(``test_a_season_of_guessing_from_one_client``); waiting a month to be
forgotten is slower still. Against 1,000,000 PINs that is a 0.1% chance a
season per client; ten clients, 1%; even odds would take about 530 clients
guessing all season. A config PIN of 4 digits (still accepted) falls 100
times sooner: 9.5% a season per client.

A client is its IPv4 address, or its IPv6 /64 network: one machine can take
any number of addresses in its /64, which would reset the count at will. The
price is that phones using IPv6 on the guesser's own network share its count;
the page's printed address is IPv4.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["PinGuard", "new_pin", "is_pin", "PIN_DIGITS", "client_key"]

#: How long a PIN the device makes up when its config sets none.
PIN_DIGITS = 6


def new_pin() -> str:
    """A fresh PIN of ``PIN_DIGITS`` digits for a device whose config sets none."""
    return f"{secrets.randbelow(10**PIN_DIGITS):0{PIN_DIGITS}d}"


def is_pin(text: object) -> bool:
    """A PIN a person sets (config or command line): 4 to 8 ASCII digits, which a phone's
    keypad can type and an ``X-Pin`` header can carry."""
    return isinstance(text, str) and text.isascii() and text.isdigit() and 4 <= len(text) <= 8


def client_key(address: str) -> str:
    """Who is guessing: an IPv4 address as it is, an IPv6 address as its /64 network.

    >>> client_key("2001:db8:1:2:aaaa::9")
    '2001:db8:1:2::/64'
    >>> client_key("::ffff:192.168.1.7")
    '192.168.1.7'
    """
    try:
        ip = ipaddress.ip_address(address.split("%")[0])
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        if not ip.is_loopback:
            return str(ipaddress.IPv6Network((int(ip) >> 64 << 64, 64)))
    return str(ip)


@dataclass(frozen=True, slots=True)
class _Guessing:
    wrong: int  # wrong PINs since the last right one
    locked_until: float
    last: float  # when the last wrong PIN came


class PinGuard:
    """Checks PINs, and slows guessing per client (see the module's note for the arithmetic)."""

    def __init__(self, pin: str, *, tries: int = 5, lock_s: float = 60.0,
                 max_lock_s: float = 86_400.0, forget_s: float = 30 * 86_400.0,
                 max_clients: int = 4096, clock: Callable[[], float] = time.monotonic) -> None:
        self.pin, self.tries, self.clock = pin, tries, clock
        self.lock_s, self.max_lock_s, self.forget_s = lock_s, max_lock_s, forget_s
        self.max_clients = max_clients
        self._clients: dict[str, _Guessing] = {}
        # Who gave the right PIN lately (key -> when): their event streams are the PIN
        # holders' (``firmware.web.connections.StreamSeats``), which no crowd can push out.
        self._holders: dict[str, float] = {}
        self._lock = threading.Lock()

    def check(self, given: str | None, client: str) -> tuple[int, str] | None:
        """None when ``given`` is the PIN; else the HTTP status and why."""
        now, key = self.clock(), client_key(client)
        with self._lock:
            record = self._clients.get(key)
            if record is not None and record.locked_until <= now \
                    and record.last <= now - self.forget_s:
                del self._clients[key]
                record = None
            if record is not None and now < record.locked_until:
                return 429, (f"too many wrong PINs from this phone: try again in "
                             f"{_duration(record.locked_until - now)}")
            if not given:
                return 401, "changes need the board's PIN (X-Pin header)"
            if hmac.compare_digest(given.encode(), self.pin.encode()):
                self._clients.pop(key, None)
                self._holders.pop(key, None)
                self._holders[key] = now
                if len(self._holders) > self.max_clients:
                    del self._holders[next(iter(self._holders))]  # the longest ago
                return None
            wrong = (record.wrong if record is not None else 0) + 1
            locked_until = now + self._lock_for(wrong) if wrong % self.tries == 0 else 0.0
            self._clients[key] = _Guessing(wrong, locked_until, now)
            if len(self._clients) > self.max_clients:
                self._shrink(now)
            return 401, "wrong PIN"

    def holds_pin(self, key: str) -> bool:
        """Whether the client ``key`` (``client_key``'s, which the caller has already made
        for its stream's seat) gave the right PIN within ``forget_s`` and has given no wrong
        one since (a phone's event stream cannot carry the PIN: ``EventSource`` sends no
        headers of its own)."""
        now = self.clock()
        with self._lock:
            since = self._holders.get(key)
            return since is not None and now - since < self.forget_s and key not in self._clients

    def _lock_for(self, wrong: int) -> float:
        doublings = min(wrong // self.tries - 1, 64)
        return float(min(self.lock_s * 2**doublings, self.max_lock_s))

    def _shrink(self, now: float) -> None:
        # Forget first whoever is free to guess again and guessed longest ago, so memory
        # stays bounded however many addresses guess; clients still locked go last.
        keep = self.max_clients * 3 // 4
        order = sorted(self._clients.items(),
                       key=lambda kv: (kv[1].locked_until > now, kv[1].locked_until, kv[1].last))
        for key, _ in order[:len(order) - keep]:
            del self._clients[key]


def _duration(seconds: float) -> str:
    seconds = max(1, round(seconds))
    if seconds < 120:
        return f"{seconds} seconds"
    if seconds < 7200:
        return f"{round(seconds / 60)} minutes"
    return f"{round(seconds / 3600)} hours"
