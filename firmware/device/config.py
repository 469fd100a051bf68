"""The device's one TOML file: players, rules, board, buttons, camera, zones, store, voice, web,
club.

Every table is optional and the defaults run on a laptop with no file at all
(simulated LED strip, OpenCV webcam, store under the XDG data directory, no
voice, the phone page on port 8080 with a PIN made up at each start). The
``[board]`` and ``[buttons]`` tables belong to ``hardware.config`` and
``hardware.buttons``; the ``[rules]`` table is CONTRACT.md's rules block,
checked by the engine. This module only adds the tables they do not know and
puts the file's name and the table in front of every error, so a typo reads
``config.toml: [rules] unknown rules key 'tagret' ...``.

See ``firmware/config.example.toml`` for every key.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from engine.rules import Rules
from firmware.club.settings import ClubConfig, ClubConfigError, parse_club
from firmware.table.names import PlayerNameError, player_names
from hardware.buttons import ButtonConfig, ButtonConfigError
from hardware.config import BoardConfig, ConfigError, read_toml

__all__ = [
    "DeviceConfig", "CameraConfig", "ZonesConfig", "StoreConfig", "VoiceConfig", "WebConfig",
    "DeviceConfigError", "load_device_config", "default_store_path", "CAMERA_SOURCES",
    "config_problems",
]

CAMERA_SOURCES = ("picamera2", "opencv", "replay")
# Which [camera] keys each source takes: the keyword arguments of vision.live.sources.open_source.
_CAMERA_KEYS = {
    "picamera2": {"size", "watch"},
    "opencv": {"size", "watch", "device"},
    "replay": {"size", "watch", "path", "fps", "loop"},
}
# How far the watch stream's shape may differ from the frame's (rounding to even pixels):
# zones are drawn in frame pixels and must land on the same table in the watch stream.
_WATCH_SHAPE_TOLERANCE = 0.02
_TABLES = ("game", "rules", "board", "buttons", "camera", "zones", "store", "voice", "web",
           "club")
# The tables each table is checked against (rules count the players; zones need both the
# players and the camera's frame size).
_NEEDS = {"rules": ("game",), "zones": ("game", "camera")}
Point = tuple[float, float]
Polygon = tuple[Point, ...]


class DeviceConfigError(ConfigError):
    """A config file the device cannot run with; the message names the file, table and key."""


@dataclass(frozen=True)
class CameraConfig:
    """``[camera]``: which ``vision.live.sources`` backend and its options.

    ``size`` is the full-resolution frame cards are read from (and the pixels ``[zones]``
    are drawn in); ``watch`` the small stream watched for movement, the same view
    shrunk (None: a quarter of ``size`` each way).
    """

    source: str = "opencv"
    size: tuple[int, int] = (1280, 720)
    watch: tuple[int, int] | None = None
    device: int | str = 0
    path: Path | None = None
    fps: float = 30.0
    loop: bool = False
    # A taught deck (``cribbage-board vision teach``), for every source; None: the plain model.
    deck: Path | None = None

    def options(self) -> dict[str, Any]:
        """The keyword arguments for ``vision.live.sources.open_source(self.source, ...)``."""
        everything: dict[str, Any] = {"size": self.size, "watch": self.watch_size,
                                      "device": self.device,
                                      "path": self.path, "fps": self.fps, "loop": self.loop}
        return {key: everything[key] for key in sorted(_CAMERA_KEYS[self.source])}

    @property
    def watch_size(self) -> tuple[int, int]:
        """The watch stream's size: the configured one, else a quarter of ``size``."""
        from vision.live.sources import default_watch_size

        return self.watch or default_watch_size(self.size)


@dataclass(frozen=True)
class ZonesConfig:
    """``[zones]``: where things lie on the table, in frame pixels.

    ``seats`` holds one polygon per player in seating order (the cards a
    player lays land there); ``starter`` and ``crib`` are the areas for the
    cut card and the crib. None means "not calibrated yet". ``card_px`` is a card's long
    side where cards lie, measured by ``calibrate`` from the marker cards: the reader
    reads at that scale (None: an eighth of the frame's height).
    """

    seats: tuple[Polygon, ...] = ()
    starter: Polygon | None = None
    crib: Polygon | None = None
    card_px: float | None = None


@dataclass(frozen=True)
class StoreConfig:
    """``[store]``: where the event store lives."""

    path: Path


@dataclass(frozen=True)
class VoiceConfig:
    """``[voice]``: spoken scores through espeak-ng (off unless asked for)."""

    enabled: bool = False
    command: str = "espeak-ng"
    voice: str = "en"
    words_per_minute: int = 160


@dataclass(frozen=True)
class WebConfig:
    """``[web]``: the phone page (``firmware.web``).

    ``host`` is the address to listen on: ``0.0.0.0`` (every interface; only
    clients from local networks are served), one of the Pi's own addresses,
    or ``localhost``. A public address is refused unless ``allow_public``.
    ``port`` 0 takes any free port (it is printed). ``pin`` (4 to 8 digits)
    guards every change; None makes up one of 6 digits at each start and prints it.
    Viewing needs no PIN.
    """

    enabled: bool = True
    host: str = "0.0.0.0"
    port: int = 8080
    pin: str | None = None
    allow_public: bool = False


@dataclass(frozen=True)
class DeviceConfig:
    """The whole config file, checked."""

    players: tuple[str, ...]
    rules_json: Mapping[str, Any]
    rules: Rules
    board: BoardConfig
    camera: CameraConfig
    zones: ZonesConfig
    store: StoreConfig
    voice: VoiceConfig
    web: WebConfig = WebConfig()
    # [club]: the MQTT broker this board publishes its games to (None: it keeps them to itself).
    club: ClubConfig | None = None
    source: Path | None = None
    # The tables the file itself holds (e.g. "camera", "board.strip"): what the user asked
    # for, as opposed to a default, so the device can refuse to fall back silently.
    configured: frozenset[str] = frozenset()

    @property
    def buttons(self) -> ButtonConfig:
        return self.board.buttons

    def new_game_event(self) -> dict[str, Any]:
        """The ``new_game`` event that starts a match with these players and rules."""
        return {"type": "new_game", "players": list(self.players), "rules": dict(self.rules_json)}


def default_store_path(environ: Mapping[str, str] | None = None) -> Path:
    """``$STATE_DIRECTORY`` under systemd (``StateDirectory=``), else the XDG data directory."""
    env = os.environ if environ is None else environ
    if env.get("STATE_DIRECTORY"):
        # systemd may list several directories separated by colons; the first is ours.
        return Path(env["STATE_DIRECTORY"].split(":")[0]) / "events.sqlite3"
    data = env.get("XDG_DATA_HOME") or str(Path(env.get("HOME") or Path.home()) / ".local/share")
    return Path(data) / "cribbage-board" / "events.sqlite3"


def load_device_config(path: Path | str | None = None, *,
                       environ: Mapping[str, str] | None = None) -> DeviceConfig:
    """Reads and checks the config file; None means every default."""
    if path is None:
        return parse_device_config({}, name="defaults", base=Path.cwd(), environ=environ)
    path = Path(path)
    try:
        document = read_toml(path)
    except OSError as exc:
        raise DeviceConfigError(f"cannot read config {str(path)!r}: {exc.strerror or exc}") \
            from None
    except ConfigError as exc:
        raise DeviceConfigError(str(exc)) from None
    config = parse_device_config(document, name=path.name, base=path.parent, environ=environ)
    return replace(config, source=path)


def config_problems(path: Path | str, *,
                    environ: Mapping[str, str] | None = None) -> list[str]:
    """Every fault of a config file, one message per table, where loading stops at the first.

    Each table is checked alone (with the tables it needs), so a typo in ``[web]`` does
    not hide one in ``[camera]``; a table whose needs are broken is not checked twice.
    """
    path = Path(path)
    try:
        document = read_toml(path)
    except OSError as exc:
        return [f"cannot read config {str(path)!r}: {exc.strerror or exc}"]
    except ConfigError as exc:
        return [str(exc)]
    problems: list[str] = []
    broken: set[str] = set()
    for key in [*(t for t in _TABLES if t in document), *(t for t in document
                                                          if t not in _TABLES)]:
        needs = _NEEDS.get(key, ())
        if broken & set(needs):
            continue
        part = {k: document[k] for k in (*needs, key) if k in document}
        try:
            parse_device_config(part, name=path.name, base=path.parent, environ=environ)
        except DeviceConfigError as exc:
            problems.append(str(exc))
            broken.add(key)
    return problems


def parse_device_config(document: Mapping[str, Any], *, name: str = "config.toml",
                        base: Path | None = None,
                        environ: Mapping[str, str] | None = None) -> DeviceConfig:
    """Checks a parsed TOML document. ``base`` anchors relative paths (the file's folder)."""
    base = Path.cwd() if base is None else base
    unknown = sorted(set(document) - set(_TABLES))
    if unknown:
        raise DeviceConfigError(f"{name}: unknown table [{unknown[0]}] "
                                f"(known: {', '.join(_TABLES)})")

    def table(key: str) -> Mapping[str, Any]:
        value = document.get(key, {})
        if not isinstance(value, Mapping):
            raise DeviceConfigError(f"{name}: {key} must be a table ([{key}]), not {value!r}")
        return value

    players = _players(name, table("game"))
    rules_json = dict(table("rules"))
    try:
        rules = Rules.from_json(rules_json, players=len(players))
    except ValueError as exc:
        raise DeviceConfigError(f"{name}: [rules] {exc}") from None
    try:
        board = BoardConfig.from_config({k: document[k] for k in ("board", "buttons")
                                         if k in document})
    except ValueError as exc:
        where = "buttons" if isinstance(exc, ButtonConfigError) else "board"
        raise DeviceConfigError(f"{name}: [{where}] {exc}") from None
    camera = _camera(name, table("camera"), base)
    return DeviceConfig(
        players=players,
        rules_json=rules_json,
        rules=rules,
        board=board,
        camera=camera,
        zones=_zones(name, table("zones"), len(players), camera.size),
        store=_store(name, table("store"), base, environ),
        voice=_voice(name, table("voice")),
        web=_web(name, table("web")),
        club=_club(name, table("club"), base) if "club" in document else None,
        configured=frozenset(document) | frozenset(
            f"board.{key}" for key in table("board") if isinstance(table("board")[key], Mapping)),
    )


# -- tables ----------------------------------------------------------------------------------


def _check_keys(name: str, where: str, data: Mapping[str, Any], known: set[str]) -> None:
    unknown = sorted(set(data) - known)
    if unknown:
        raise DeviceConfigError(f"{name}: [{where}] unknown key {unknown[0]!r} "
                                f"(known: {', '.join(sorted(known))})")


def _players(name: str, data: Mapping[str, Any]) -> tuple[str, ...]:
    _check_keys(name, "game", data, {"players"})
    players = data.get("players", ["Player 1", "Player 2"])
    if not isinstance(players, list):
        raise DeviceConfigError(f"{name}: [game] players must be a list of 2 to 4 names, "
                                f"not {players!r}")
    try:
        return player_names(players)
    except PlayerNameError as exc:
        raise DeviceConfigError(f"{name}: [game] {exc}") from None


def _size(name: str, where: str, value: Any) -> tuple[int, int]:
    if (not isinstance(value, list) or len(value) != 2
            or not all(type(v) is int and v > 0 for v in value)):
        raise DeviceConfigError(f"{name}: [{where}] size must be [width, height] in pixels, "
                                f"not {value!r}")
    return (value[0], value[1])


def _watch(name: str, value: Any, size: tuple[int, int]) -> tuple[int, int]:
    """The watch stream: smaller than the frame and of its shape, so zones hold on both."""
    if (not isinstance(value, list) or len(value) != 2
            or not all(type(v) is int and v > 0 for v in value)):
        raise DeviceConfigError(f"{name}: [camera] watch must be [width, height] in pixels "
                                f"(the small stream watched for movement), not {value!r}")
    width, height = value
    if width > size[0] or height > size[1]:
        raise DeviceConfigError(f"{name}: [camera] watch {width}x{height} is larger than size "
                                f"{size[0]}x{size[1]}: it is the small stream, e.g. "
                                f"[{size[0] // 4}, {size[1] // 4}]")
    if abs(width / height / (size[0] / size[1]) - 1) > _WATCH_SHAPE_TOLERANCE:
        raise DeviceConfigError(f"{name}: [camera] watch {width}x{height} does not have the "
                                f"shape of size {size[0]}x{size[1]}: it must be the same view "
                                f"shrunk, e.g. [{size[0] // 4}, {size[1] // 4}]")
    return (width, height)


def _camera(name: str, data: Mapping[str, Any], base: Path) -> CameraConfig:
    source = data.get("source", "opencv")
    if source not in CAMERA_SOURCES:
        raise DeviceConfigError(f"{name}: [camera] source must be one of "
                                f"{', '.join(CAMERA_SOURCES)}, not {source!r}")
    allowed = _CAMERA_KEYS[source]
    _check_keys(name, "camera", data, {"source", "deck", *set().union(*_CAMERA_KEYS.values())})
    for key in sorted(set(data) - {"source", "deck"} - allowed):
        raise DeviceConfigError(f"{name}: [camera] key {key!r} does not apply to source "
                                f"{source!r} (it takes: {', '.join(sorted(allowed))})")
    values: dict[str, Any] = {"source": source}
    if "size" in data:
        values["size"] = _size(name, "camera", data["size"])
    if "watch" in data:
        values["watch"] = _watch(name, data["watch"], values.get("size", CameraConfig.size))
    if "device" in data:
        device = data["device"]
        if not (type(device) is int and device >= 0) and not (isinstance(device, str) and device):
            raise DeviceConfigError(f"{name}: [camera] device must be an index like 0 or a path "
                                    f"like \"/dev/video0\", not {device!r}")
        values["device"] = device
    if source == "replay":
        folder = data.get("path")
        if not isinstance(folder, str) or not folder:
            raise DeviceConfigError(f"{name}: [camera] source 'replay' needs path, a folder of "
                                    f"images or a video file, not {folder!r}")
        values["path"] = base / folder
    if "fps" in data:
        fps = data["fps"]
        if isinstance(fps, bool) or not isinstance(fps, int | float) or not fps > 0:
            raise DeviceConfigError(f"{name}: [camera] fps must be a positive number, "
                                    f"not {fps!r}")
        values["fps"] = float(fps)
    if "loop" in data:
        values["loop"] = _flag(name, "camera", "loop", data["loop"])
    if "deck" in data:
        deck = data["deck"]
        if not isinstance(deck, str) or not deck:
            raise DeviceConfigError(f"{name}: [camera] deck must be the path of a deck profile "
                                    f"(cribbage-board vision teach), not {deck!r}")
        values["deck"] = base / deck
    return CameraConfig(**values)


def _polygon(name: str, where: str, value: Any, size: tuple[int, int]) -> Polygon:
    if not isinstance(value, list) or len(value) < 3:
        raise DeviceConfigError(f"{name}: [zones] {where} must be a polygon of at least 3 "
                                f"[x, y] points, not {value!r}")
    points: list[Point] = []
    for point in value:
        if (not isinstance(point, list) or len(point) != 2 or any(
                isinstance(v, bool) or not isinstance(v, int | float) for v in point)):
            raise DeviceConfigError(f"{name}: [zones] {where}: {point!r} is not an [x, y] point")
        x, y = float(point[0]), float(point[1])
        if not (0 <= x <= size[0] and 0 <= y <= size[1]):
            raise DeviceConfigError(f"{name}: [zones] {where}: point {point!r} lies outside the "
                                    f"{size[0]}x{size[1]} camera frame")
        points.append((x, y))
    area = sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(points, points[1:] + points[:1],
                                                             strict=True)) / 2
    if math.isclose(area, 0.0, abs_tol=1e-9):
        raise DeviceConfigError(f"{name}: [zones] {where} encloses no area: {value!r}")
    return tuple(points)


def _zones(name: str, data: Mapping[str, Any], players: int,
           size: tuple[int, int]) -> ZonesConfig:
    _check_keys(name, "zones", data, {"seats", "starter", "crib", "card_px"})
    seats: tuple[Polygon, ...] = ()
    if "seats" in data:
        raw = data["seats"]
        if not isinstance(raw, list) or len(raw) != players:
            count = len(raw) if isinstance(raw, list) else raw
            raise DeviceConfigError(f"{name}: [zones] seats needs one polygon per player "
                                    f"({players}, in [game] players order), got {count!r}")
        seats = tuple(_polygon(name, f"seats[{i}]", p, size) for i, p in enumerate(raw))
    card_px = data.get("card_px")
    if card_px is not None and (isinstance(card_px, bool) or not isinstance(card_px, int | float)
                                or not 10 <= card_px <= size[1]):
        raise DeviceConfigError(f"{name}: [zones] card_px must be a card's long side in frame "
                                f"pixels, 10 to {size[1]} (the frame's height), not {card_px!r}")
    return ZonesConfig(
        seats=seats,
        starter=_polygon(name, "starter", data["starter"], size) if "starter" in data else None,
        crib=_polygon(name, "crib", data["crib"], size) if "crib" in data else None,
        card_px=None if card_px is None else float(card_px),
    )


def _store(name: str, data: Mapping[str, Any], base: Path,
           environ: Mapping[str, str] | None) -> StoreConfig:
    _check_keys(name, "store", data, {"path"})
    if "path" not in data:
        return StoreConfig(default_store_path(environ))
    raw = data["path"]
    if not isinstance(raw, str) or not raw:
        raise DeviceConfigError(f"{name}: [store] path must be a file name, not {raw!r}")
    return StoreConfig(base / Path(raw).expanduser())


def _voice(name: str, data: Mapping[str, Any]) -> VoiceConfig:
    _check_keys(name, "voice", data, {"enabled", "command", "voice", "words_per_minute"})
    values: dict[str, Any] = {}
    if "enabled" in data:
        values["enabled"] = _flag(name, "voice", "enabled", data["enabled"])
    for key in ("command", "voice"):
        if key in data:
            if not isinstance(data[key], str) or not data[key].strip():
                raise DeviceConfigError(f"{name}: [voice] {key} must be a name, "
                                        f"not {data[key]!r}")
            values[key] = data[key]
    if "words_per_minute" in data:
        wpm = data["words_per_minute"]
        if type(wpm) is not int or not 80 <= wpm <= 450:
            raise DeviceConfigError(f"{name}: [voice] words_per_minute must be 80 to 450 "
                                    f"(espeak-ng's range), not {wpm!r}")
        values["words_per_minute"] = wpm
    return VoiceConfig(**values)


def _web(name: str, data: Mapping[str, Any]) -> WebConfig:
    from firmware.web.address import HostError, check_host
    from firmware.web.pins import is_pin

    _check_keys(name, "web", data, {"enabled", "host", "port", "pin", "allow_public"})
    values: dict[str, Any] = {}
    for key in ("enabled", "allow_public"):
        if key in data:
            values[key] = _flag(name, "web", key, data[key])
    if "port" in data:
        port = data["port"]
        if type(port) is not int or not 0 <= port <= 65535:
            raise DeviceConfigError(f"{name}: [web] port must be a port number from 1 to "
                                    f"65535 (0: any free port), not {port!r}")
        values["port"] = port
    if "pin" in data:
        pin = data["pin"]
        if not is_pin(pin):
            raise DeviceConfigError(f"{name}: [web] pin must be a string of 4 to 8 digits "
                                    f"like \"4821\", not {pin!r}")
        values["pin"] = pin
    if "host" in data:
        host = data["host"]
        if not isinstance(host, str):
            raise DeviceConfigError(f"{name}: [web] host must be an address like \"0.0.0.0\", "
                                    f"not {host!r}")
        try:
            values["host"] = check_host(host, allow_public=values.get("allow_public", False))
        except HostError as exc:
            raise DeviceConfigError(f"{name}: [web] {exc}") from None
    return WebConfig(**values)


def _club(name: str, data: Mapping[str, Any], base: Path) -> ClubConfig:
    try:
        return parse_club(data, base=base)
    except ClubConfigError as exc:
        raise DeviceConfigError(f"{name}: [club] {exc}") from None


def _flag(name: str, where: str, key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise DeviceConfigError(f"{name}: [{where}] {key} must be true or false, not {value!r}")
    return value
