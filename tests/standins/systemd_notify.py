"""The service manager's end of ``$NOTIFY_SOCKET``, as systemd's code behaves.

- ``src/core/manager.c`` ``manager_dispatch_notify_fd`` (and ``notify-recv.c`` in newer
  releases): one ``recvmsg`` into ``NOTIFY_BUFFER_MAX`` = ``PIPE_BUF`` (4096) bytes; a
  longer datagram has ``MSG_TRUNC`` set and is ignored whole ("Got overly long
  notification datagram, ignoring."); a datagram without ``SCM_CREDENTIALS`` is
  ignored; with ``NotifyAccess=main`` one from another pid is ignored.
- ``src/core/service.c`` ``service_notify_message``: newline-separated ``KEY=VALUE``
  assignments; ``READY=1``, ``STATUS=``, ``WATCHDOG=1``, ``EXTEND_TIMEOUT_USEC=`` (a
  decimal microsecond count, ``safe_atou64``), ``STOPPING=1``.
- systemd.service(5) ``WatchdogSec=``: the watchdog is active once start-up is
  complete (after READY=1); before that ``TimeoutStartSec=`` applies, and
  ``EXTEND_TIMEOUT_USEC`` is what holds it off (sd_notify(3)).
- ``src/libsystemd/sd-daemon/sd-daemon.c``: ``$NOTIFY_SOCKET`` must begin with ``/``
  (a path) or ``@`` (Linux's abstract namespace, the ``@`` read as a NUL byte).
"""

from __future__ import annotations

import os
import socket
import struct
from dataclasses import dataclass, field

__all__ = ["NOTIFY_BUFFER_MAX", "ServiceManager"]

NOTIFY_BUFFER_MAX = 4096  # PIPE_BUF


@dataclass
class ServiceManager:
    """A bound notify socket and what the manager made of each datagram.

    ``address`` is what ``$NOTIFY_SOCKET`` should say; ``main_pid`` the pid that
    ``NotifyAccess=main`` accepts (this test process by default).
    """

    address: str
    main_pid: int = field(default_factory=os.getpid)
    accepted: list[dict[str, str]] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        bind = "\0" + self.address[1:] if self.address.startswith("@") else self.address
        self.sock.bind(bind)
        self.sock.settimeout(5)

    def receive(self) -> dict[str, str] | None:
        """Takes one datagram; returns its assignments, or None when systemd ignores it."""
        data, ancillary, flags, _ = self.sock.recvmsg(
            NOTIFY_BUFFER_MAX, socket.CMSG_SPACE(struct.calcsize("3i")))
        if flags & socket.MSG_TRUNC:
            self.ignored.append("Got overly long notification datagram, ignoring.")
            return None
        creds = [d for level, kind, d in ancillary
                 if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS]
        if not creds:
            self.ignored.append("Got notification datagram lacking credential information")
            return None
        pid, _, _ = struct.unpack("3i", creds[0][:struct.calcsize("3i")])
        if pid != self.main_pid:
            self.ignored.append(f"Got notification message from PID {pid}, but reception "
                                "only permitted for main PID")
            return None
        fields: dict[str, str] = {}
        for line in data.decode("utf-8", "replace").split("\n"):
            key, sep, value = line.partition("=")
            if sep:
                fields[key] = value
        self.accepted.append(fields)
        return fields

    def extend_usec(self, fields: dict[str, str]) -> int:
        """``EXTEND_TIMEOUT_USEC`` as ``safe_atou64`` reads it (ValueError when it would not)."""
        value = fields["EXTEND_TIMEOUT_USEC"]
        if not value.isdigit():
            raise ValueError(f"Failed to parse EXTEND_TIMEOUT_USEC={value!r}, ignoring.")
        return int(value)

    def close(self) -> None:
        self.sock.close()
