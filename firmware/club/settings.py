"""``[club]``: which MQTT broker the board publishes to, under which name.

The broker is a URL (``mqtt://host:1883``, or ``mqtts://host:8883`` for TLS) so one
string says host, port and whether to encrypt; a URL that names a path, a query or
credentials is refused, because the credentials belong in their own keys.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

__all__ = ["Broker", "ClubConfig", "ClubConfigError", "parse_broker", "parse_club",
           "check_board_name", "check_topic_prefix", "TOPIC_PREFIX"]

TOPIC_PREFIX = "cribbage/club"
_BOARD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_KEYS = {"broker", "board", "username", "password", "tls", "ca_file", "topic_prefix",
         "enabled"}


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
    password: str | None = None
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
    """Checks a ``[club]`` table; ``base`` anchors a relative ``ca_file``."""
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
    for key in ("username", "password"):
        if key in data:
            if not isinstance(data[key], str) or not data[key]:
                raise ClubConfigError(f"{key} must be a non-empty string, not {data[key]!r}")
            values[key] = data[key]
    if ("username" in values) != ("password" in values):
        raise ClubConfigError("username and password go together: give both or neither")
    if "ca_file" in data:
        if not isinstance(data["ca_file"], str) or not data["ca_file"]:
            raise ClubConfigError(f"ca_file must be a file name, not {data['ca_file']!r}")
        values["ca_file"] = base / data["ca_file"]
        broker = Broker(broker.host, broker.port, True)
    if "topic_prefix" in data:
        values["topic_prefix"] = check_topic_prefix(data["topic_prefix"])
    return ClubConfig(broker=broker, board=check_board_name(data["board"]),
                      enabled=data.get("enabled", True), **values)
