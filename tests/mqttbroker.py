"""A real Mosquitto broker for the club tests: loopback only, a free port, its own config.

The tests that need it skip, saying why, where ``mosquitto`` is not installed
(``.ci/run`` installs Debian's package). Debian puts it in /usr/sbin, which a
user's PATH may lack, so that folder is searched too.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

__all__ = ["MosquittoBroker", "mosquitto_or_skip", "free_port", "wait_until"]


def _find(name: str) -> str | None:
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/local/sbin")


def mosquitto_or_skip() -> str:
    found = _find("mosquitto")
    if found is None:
        pytest.skip("mosquitto is not installed (apt-get install mosquitto; .ci/run does)")
    return found


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until(predicate: object, *, timeout_s: float, what: str) -> None:
    """Polls ``predicate`` (real processes and a real broker: there is no clock to move),
    bounded by ``timeout_s``; fails naming ``what`` it waited for."""
    deadline = time.monotonic() + timeout_s
    while not predicate():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")
        time.sleep(0.02)


class MosquittoBroker:
    """``start`` / ``kill`` / ``start`` again on the same port; ``stop`` at the end.

    ``users`` (name -> password) turns anonymous access off and writes a password
    file with ``mosquitto_passwd``. ``conf_d`` instead takes the listener and the rules
    from a folder of ``*.conf`` files (``club setup-broker``'s, listening on ``port``).
    With ``conf_d`` its log says everything (``log_type all``): a publish the ACL drops
    is logged only as debug ("Denied PUBLISH"); ``denied`` counts those lines. ``log_all``
    logs everything on a plain broker too.
    """

    def __init__(self, folder: Path, *, users: dict[str, str] | None = None,
                 conf_d: Path | None = None, port: int | None = None,
                 log_all: bool = False) -> None:
        self.binary = mosquitto_or_skip()
        self.folder = folder
        self.port = port if port is not None else free_port()
        self.process: subprocess.Popen[bytes] | None = None
        lines = ["max_inflight_messages 100"]
        if conf_d is None:
            lines += [f"listener {self.port} 127.0.0.1", "max_queued_messages 100000"]
            if log_all:
                lines.append("log_type all")
        else:
            lines += [f"include_dir {conf_d}", "log_type all"]
        if os.geteuid() == 0:
            # Started by root, mosquitto drops to the "mosquitto" user, who cannot read the
            # test's private temporary folder.
            lines.append("user root")
        if users and conf_d is None:
            passwd = _find("mosquitto_passwd")
            if passwd is None:
                pytest.skip("mosquitto_passwd is not installed (Debian's mosquitto has it)")
            password_file = folder / "passwords"
            password_file.touch()
            for name, password in users.items():
                subprocess.run([passwd, "-b", str(password_file), name, password], check=True,
                               capture_output=True, timeout=10)
            os.chmod(password_file, 0o600)
            lines += ["allow_anonymous false", f"password_file {password_file}"]
        elif conf_d is None:
            lines.append("allow_anonymous true")
        self.config = folder / "mosquitto.conf"
        self.config.write_text("\n".join(lines) + "\n")
        self.log = folder / "mosquitto.log"

    def denied(self) -> int:
        """Publishes the broker dropped (the ACL), as its log counts them."""
        return self.log.read_text(errors="replace").count("Denied PUBLISH") \
            if self.log.exists() else 0

    def taken_over(self, client_id: str | None = None) -> int:
        """Sessions a newcomer with the same client id took over (mosquitto closes the old
        connection and says so in its log, src/handle_connect.c)."""
        said = "already connected, closing old connection"
        if client_id is not None:
            said = f"Client {client_id} {said}"
        return self.log.read_text(errors="replace").count(said) if self.log.exists() else 0

    def refused_logins(self) -> int:
        return self.log.read_text(errors="replace").count("not authorised") \
            if self.log.exists() else 0

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self, *, timeout_s: float = 10.0) -> None:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen([self.binary, "-c", str(self.config)],
                                            stdout=log, stderr=subprocess.STDOUT)

        def listening() -> bool:
            assert self.process is not None
            if self.process.poll() is not None:
                raise AssertionError(f"mosquitto exited: {self.log.read_text()[-500:]}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
            except OSError:
                return False
            return True

        wait_until(listening, timeout_s=timeout_s, what=f"mosquitto on port {self.port}")

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(timeout=10)
        self.process = None

    def stop(self) -> None:
        self.kill(signal.SIGTERM)
