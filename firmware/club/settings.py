"""``[club]``: which MQTT broker the board publishes to, under which name.

The broker is a URL (``mqtt://host:1883``, or ``mqtts://host:8883`` for TLS) so one
string says host, port and whether to encrypt; a URL that names a path, a query or
credentials is refused, because the credentials belong in their own keys.

The club's broker (``cribbage-board club setup-broker``) gives each board a login named
as the board and lets it write only its own topics, so ``username`` must be ``board``:
another name would have every row dropped by the broker while the board, at MQTT
3.1.1, hears each acknowledged. The password comes from ``password`` or, better (the
config is readable by all), ``password_file``; it is never printed or logged.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

__all__ = ["Broker", "ClubConfig", "ClubConfigError", "parse_broker", "parse_club",
           "check_board_name", "check_topic_prefix", "read_boards", "read_secret", "board_lines",
           "TOPIC_PREFIX"]

TOPIC_PREFIX = "cribbage/club"
_BOARD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_KEYS = {"broker", "board", "username", "password", "password_file", "tls", "ca_file",
         "topic_prefix", "enabled"}


class ClubConfigError(ValueError):
    """A ``[club]`` table or broker URL the board cannot publish with."""


@dataclass(frozen=True)
class Broker:
    """Where the broker listens; ``tls`` from the ``mqtts`` scheme (or ``tls = true``)."""

    host: str
    port: int
    tls: bool = False

    def __str__(self) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://{self.host}:{self.port}"


@dataclass(frozen=True)
class ClubConfig:
    """``[club]``: the broker, this board's name on it, and how to log in."""

    broker: Broker
    board: str
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    ca_file: Path | None = None
    topic_prefix: str = TOPIC_PREFIX
    enabled: bool = True


def parse_broker(url: str) -> Broker:
    """``mqtt://host[:port]`` or ``mqtts://host[:port]`` (ports default to 1883 and 8883)."""
    if not isinstance(url, str) or not url.strip():
        raise ClubConfigError(f"broker must be a URL like \"mqtt://192.168.1.20:1883\", "
                              f"not {url!r}")
    parts = urlsplit(url.strip())
    if parts.scheme not in ("mqtt", "mqtts"):
        raise ClubConfigError(f"broker URL must start mqtt:// or mqtts://, not {url!r}")
    if parts.username is not None or parts.password is not None:
        raise ClubConfigError(f"broker URL {url!r} holds credentials: put them in username "
                              "and password instead")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ClubConfigError(f"broker URL {url!r} must name only a host and a port")
    try:
        port = parts.port
    except ValueError:
        raise ClubConfigError(f"broker URL {url!r} has a bad port") from None
    if not parts.hostname:
        raise ClubConfigError(f"broker URL {url!r} names no host")
    tls = parts.scheme == "mqtts"
    return Broker(parts.hostname, port if port else (8883 if tls else 1883), tls)


def check_board_name(name: Any) -> str:
    """A board's name is one MQTT topic level: letters, digits, ``_ . -``, 1 to 64 long."""
    if not isinstance(name, str) or not _BOARD.fullmatch(name):
        raise ClubConfigError(f"board must be a name like \"table-7\" (letters, digits, "
                              f"_ . -, up to 64), not {name!r}")
    return name


def check_topic_prefix(prefix: Any, *, what: str = "topic_prefix") -> str:
    """A topic prefix without its outer slashes; MQTT's wildcards (``+``, ``#``) and NUL
    would make every board's topics something else."""
    if not isinstance(prefix, str) or not prefix.strip("/") or any(c in prefix for c in "+#\0"):
        raise ClubConfigError(f"{what} must be topic levels like \"cribbage/club\", "
                              f"not {prefix!r}")
    return prefix.strip("/")


def parse_club(data: Mapping[str, Any], *, base: Path) -> ClubConfig:
    """Checks a ``[club]`` table; ``base`` anchors a relative ``ca_file`` and
    ``password_file`` (read now: ``run`` and ``doctor`` refuse the same table)."""
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise ClubConfigError(f"unknown key {unknown[0]!r} (known: {', '.join(sorted(_KEYS))})")
    if "broker" not in data or "board" not in data:
        raise ClubConfigError("needs broker (like \"mqtt://192.168.1.20:1883\") and board "
                              "(this table's name, like \"table-7\")")
    broker = parse_broker(data["broker"])
    for key in ("tls", "enabled"):
        if key in data and not isinstance(data[key], bool):
            raise ClubConfigError(f"{key} must be true or false, not {data[key]!r}")
    if data.get("tls"):
        broker = Broker(broker.host, broker.port, True)
    values: dict[str, Any] = {}
    for key in ("username", "password", "password_file", "ca_file"):
        if key in data and (not isinstance(data[key], str) or not data[key]):
            what = "a file name" if key.endswith("_file") else "a non-empty string"
            raise ClubConfigError(f"{key} must be {what}, not {data[key]!r}")
    if "password" in data and "password_file" in data:
        raise ClubConfigError("give password or password_file, not both")
    if "username" in data:
        values["username"] = data["username"]
    if "password" in data:
        values["password"] = data["password"]
    elif "password_file" in data:
        values["password"] = read_secret(_file(base, data["password_file"], "password_file"),
                                         what="password_file")
    if ("username" in values) != ("password" in values):
        raise ClubConfigError("username and password go together (password or "
                              "password_file): give both or neither")
    board = check_board_name(data["board"])
    if values.get("username", board) != board:
        raise ClubConfigError(f"username must be the board's name {board!r}, not "
                              f"{values['username']!r}: the club's broker lets a board write "
                              "only its own topics, and drops the rest unheard")
    if "ca_file" in data:
        values["ca_file"] = base / data["ca_file"]  # checked by firmware.device.config
        broker = Broker(broker.host, broker.port, True)
    if "topic_prefix" in data:
        values["topic_prefix"] = check_topic_prefix(data["topic_prefix"])
    return ClubConfig(broker=broker, board=board, enabled=data.get("enabled", True), **values)


def _file(base: Path, name: str, key: str) -> Path:
    """``base / name``, which must be a readable file; the error names the key and the path."""
    if "\0" in name:
        raise ClubConfigError(f"{key} {name!r} contains a NUL character, which no file name "
                              "may hold")
    path = base / name
    try:
        found = path.is_file()
    except OSError as exc:
        raise ClubConfigError(f"{key} {str(path)!r}: {exc.strerror or exc}") from None
    if not found:
        raise ClubConfigError(f"{key} {str(path)!r}: no such file")
    return path


def read_secret(path: Path, *, what: str) -> str:
    """A password kept in a file (its first line); the error names ``what`` and the file,
    never the content."""
    text = _read_text(path, what=what)
    secret = text.splitlines()[0].strip() if text.strip() else ""
    if not secret:
        raise ClubConfigError(f"{what} {str(path)!r} is empty")
    return secret


def read_boards(path: Path) -> frozenset[str]:
    """The club's boards, one name a line (``#`` starts a comment): ``club serve --boards``,
    as ``club setup-broker`` writes it. Errors name the file and the line."""
    names = set()
    for number, name in board_lines(_read_text(path, what="boards file")):
        try:
            names.add(check_board_name(name))
        except ClubConfigError as exc:
            raise ClubConfigError(f"{str(path)!r}, line {number}: {exc}") from None
    return frozenset(names)


def board_lines(text: str) -> list[tuple[int, str]]:
    """``(line number, name)`` of each name in a boards file (``#`` starts a comment), unchecked:
    the one reading of the format, for ``read_boards`` and ``club setup-broker``."""
    return [(number, name) for number, name in
            ((n, line.split("#", 1)[0].strip()) for n, line in enumerate(text.splitlines(), 1))
            if name]


def _read_text(path: Path, *, what: str) -> str:
    """``path``'s text; the error names ``what`` and the file, never the content."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ClubConfigError(f"{what} {str(path)!r} cannot be read: "
                              f"{getattr(exc, 'strerror', None) or type(exc).__name__}") from None
