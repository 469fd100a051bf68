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
import re
import ssl
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, TypeVar

from engine.rules import Rules
from firmware.club.settings import ClubConfig, ClubConfigError, parse_club
from firmware.device.config_checks import did_you_mean, store_path_problem, strip_pins
from firmware.table.names import PlayerNameError, player_names
from hardware.buttons import BUTTON_NAMES, ButtonConfig, ButtonConfigError
from hardware.config import BoardConfig, ConfigError, read_toml

__all__ = [
    "DeviceConfig", "CameraConfig", "ZonesConfig", "StoreConfig", "VoiceConfig", "WebConfig",
    "DeviceConfigError", "load_device_config", "default_store_path", "CAMERA_SOURCES",
    "config_problems",
]

CAMERA_SOURCES = ("picamera2", "opencv", "replay")
# Which [camera] keys each source takes: the keyword arguments of vision.live.sources.open_source.
_CAMERA_KEYS = {
    "picamera2": {"size", "watch", "mount_cm"},
    "opencv": {"size", "watch", "device"},
    "replay": {"size", "watch", "path", "fps", "loop"},
}
# How far the watch stream's shape may differ from the frame's (rounding to even pixels):
# zones are drawn in frame pixels and must land on the same table in the watch stream.
_WATCH_SHAPE_TOLERANCE = 0.02
_TABLES = ("game", "rules", "board", "buttons", "camera", "zones", "store", "voice", "web",
           "club")
Point = tuple[float, float]
Polygon = tuple[Point, ...]
T = TypeVar("T")


class DeviceConfigError(ConfigError):
    """A config file the device cannot run with: ``faults`` holds every fault found, each
    naming the file, the table and the key; the message is the one fault, or all of them."""

    def __init__(self, faults: str | Sequence[str]) -> None:
        self.faults: tuple[str, ...] = (faults,) if isinstance(faults, str) else tuple(faults)
        many = len(self.faults) > 1
        super().__init__(f"{len(self.faults)} faults: " + "; ".join(self.faults) if many
                         else self.faults[0])


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
    # picamera2: the lens's height over the table, cm; the Camera Module 3 focuses there
    # (vision.live.lens). None: one autofocus scan at start.
    mount_cm: float | None = None
    # A taught deck (``cribbage-board vision teach``), for every source; None: the plain model.
    deck: Path | None = None

    def options(self) -> dict[str, Any]:
        """The keyword arguments for ``vision.live.sources.open_source(self.source, ...)``."""
        everything: dict[str, Any] = {"size": self.size, "watch": self.watch_size,
                                      "device": self.device,
                                      "path": self.path, "fps": self.fps, "loop": self.loop,
                                      "mount_cm": self.mount_cm}
        return {key: everything[key] for key in sorted(_CAMERA_KEYS[self.source])
                if key != "mount_cm" or self.mount_cm is not None}

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
    # [game] muggins_window_s: how long after a claim MUGGINS may be called.
    muggins_window_s: float = 8.0
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
    """Reads and checks the config file; None means every default.

    A file with faults raises one ``DeviceConfigError`` holding every fault (``faults``),
    so ``run`` refuses it at once with all of them and ``doctor`` says the same list.
    """
    if path is None:
        return parse_device_config({}, name="defaults", base=Path.cwd(), environ=environ)
    path = Path(path)
    try:
        document = read_toml(path)
    except OSError as exc:
        raise DeviceConfigError(f"cannot read config {str(path)!r}: {exc.strerror or exc}") \
            from None
    except ValueError as exc:  # not TOML, or a name with a NUL in it
        text = str(exc) if isinstance(exc, ConfigError) else \
            f"cannot read config {str(path)!r}: {exc}"
        raise DeviceConfigError(text) from None
    config = parse_device_config(document, name=path.name, base=path.parent, environ=environ)
    return replace(config, source=path)


def config_problems(path: Path | str, *,
                    environ: Mapping[str, str] | None = None) -> list[str]:
    """Every fault of a config file, each naming the file, the table and the key: the very
    list ``load_device_config`` (and so ``run``) refuses the file with; empty when it loads."""
    try:
        load_device_config(path, environ=environ)
    except DeviceConfigError as exc:
        return list(exc.faults)
    return []


class _Faults:
    """The faults found so far in one file; ``each()`` keeps checking after one."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.found: list[str] = []

    def add(self, where: str | None, text: str) -> None:
        self.found.append(f"{self.name}: [{where}] {text}" if where else f"{self.name}: {text}")

    @contextmanager
    def each(self) -> Iterator[None]:
        """Records a ``DeviceConfigError`` raised inside and goes on with the next check."""
        try:
            yield
        except DeviceConfigError as exc:
            self.found.extend(exc.faults)

    def since(self, count: int) -> bool:
        """Whether a fault was found after the first ``count``."""
        return len(self.found) > count


def parse_device_config(document: Mapping[str, Any], *, name: str = "config.toml",
                        base: Path | None = None,
                        environ: Mapping[str, str] | None = None) -> DeviceConfig:
    """Checks a parsed TOML document. ``base`` anchors relative paths (the file's folder).

    Every table is checked, and every key of it, however many faults come before; a table
    that needs another (``[rules]`` counts the players, ``[zones]`` needs the camera's frame)
    is checked against it when that one is sound. Then what spans tables: a peg track and a
    colour for every side, the game hole, no button on the LED strip's pins, a store path
    and a ``ca_file`` that can be used. All faults raise together.
    """
    base = Path.cwd() if base is None else base
    faults = _Faults(name)
    for key in sorted(set(document) - set(_TABLES)):
        faults.add(None, f"unknown table [{key}] (known: {', '.join(_TABLES)})"
                         f"{did_you_mean(key, _TABLES)}")

    def table(key: str) -> Mapping[str, Any] | None:
        value = document.get(key, {})
        if not isinstance(value, Mapping):
            faults.add(None, f"{key} must be a table ([{key}]), not {value!r}")
            return None
        return value

    def checked(key: str, parse: Callable[[Mapping[str, Any]], T]) -> T | None:
        data = table(key)
        if data is None:
            return None
        count = len(faults.found)
        value = parse(data)
        return None if faults.since(count) else value

    players = checked("game", lambda data: _players(faults, data))
    game = document.get("game")
    raw = game.get("players") if isinstance(game, Mapping) else None
    # [rules] is checked even when [game] is broken: only partnership counts the players.
    count = len(players) if players is not None else (
        len(raw) if isinstance(raw, list) and 2 <= len(raw) <= 4 else 4)
    rules = checked("rules", lambda data: _rules(faults, data, count))
    window = _muggins_window(faults, game) if isinstance(game, Mapping) else 8.0
    board = _board(faults, table("board"), table("buttons"))
    camera = checked("camera", lambda data: _camera(faults, data, base))
    zones = None
    if players is not None and camera is not None:
        seats, size = len(players), camera.size
        zones = checked("zones", lambda data: _zones(faults, data, seats, size))
    store = checked("store", lambda data: _store(faults, data, base, environ))
    voice = checked("voice", lambda data: _voice(faults, data))
    web = checked("web", lambda data: _web(faults, data))
    club = checked("club", lambda data: _club(faults, data, base)) if "club" in document \
        else None
    if players is not None and rules is not None and board is not None:
        _fits(faults, players, rules, board)
    if board is not None and "buttons" in document:  # without [buttons]: simulated buttons
        _pins_free(faults, board)
    if faults.found:
        raise DeviceConfigError(faults.found)
    assert players is not None and rules is not None and board is not None
    assert camera is not None and zones is not None and store is not None
    assert voice is not None and web is not None
    board_table = document.get("board", {})
    return DeviceConfig(
        players=players,
        rules_json=dict(document.get("rules", {})),
        rules=rules,
        board=board,
        camera=camera,
        zones=zones,
        store=store,
        voice=voice,
        web=web,
        muggins_window_s=window,
        club=club,
        configured=frozenset(document) | frozenset(
            f"board.{key}" for key in board_table if isinstance(board_table[key], Mapping)),
    )


# -- tables ----------------------------------------------------------------------------------


def _check_keys(faults: _Faults, where: str, data: Mapping[str, Any], known: set[str]) -> None:
    for key in sorted(set(data) - known):
        faults.add(where, f"unknown key {key!r} (known: {', '.join(sorted(known))})"
                          f"{did_you_mean(key, known)}")


def _fault(faults: _Faults, where: str, text: str) -> DeviceConfigError:
    """The error for one fault, raised inside ``faults.each()``."""
    return DeviceConfigError(f"{faults.name}: [{where}] {text}")


def _players(faults: _Faults, data: Mapping[str, Any]) -> tuple[str, ...]:
    _check_keys(faults, "game", data, {"players", "muggins_window_s"})
    players = data.get("players", ["Player 1", "Player 2"])
    if not isinstance(players, list):
        faults.add("game", f"players must be a list of 2 to 4 names, not {players!r}")
        return ()
    try:
        return player_names(players)
    except PlayerNameError as exc:
        faults.add("game", str(exc))
        return ()


#: The muggins window's bounds: long enough to say "muggins", short enough not to hold
#: the table up (the flow counts a spread hand only once the window closes).
MUGGINS_WINDOW_S = (1.0, 60.0)


def _muggins_window(faults: _Faults, data: Mapping[str, Any]) -> float:
    """``[game] muggins_window_s``: seconds after a claim in which MUGGINS may be called."""
    value = data.get("muggins_window_s", 8.0)
    low, high = MUGGINS_WINDOW_S
    if isinstance(value, bool) or not isinstance(value, int | float) \
            or not low <= value <= high:
        faults.add("game", f"muggins_window_s must be a number of seconds from {low:g} to "
                           f"{high:g} (default 8), not {value!r}")
        return 8.0
    return float(value)


def _rules(faults: _Faults, data: Mapping[str, Any], players: int) -> Rules:
    """CONTRACT.md's rules block, judged by the engine one fault at a time: a key the engine
    refuses is set aside and the rest judged again, so every bad key is said."""
    known = {f.name for f in fields(Rules)}
    for key in sorted(set(data) - known):
        faults.add("rules", f"unknown rules key {key!r} (known keys: "
                            f"{', '.join(sorted(known))}){did_you_mean(key, known)}")
    rest = {key: value for key, value in data.items() if key in known}
    while True:
        try:
            return Rules.from_json(rest, players=players)
        except ValueError as exc:
            faults.add("rules", str(exc))
            named = [key for key in re.findall(r"rules\.(\w+)", str(exc)) if key in rest]
            if not named:
                return Rules()
            del rest[named[0]]


def _board(faults: _Faults, board: Mapping[str, Any] | None,
           buttons: Mapping[str, Any] | None) -> BoardConfig | None:
    """``[board]`` and ``[buttons]`` (``hardware.config``): each key alone, then together
    for what spans keys (a pin given twice, a long press of a button not wired)."""
    if board is None or buttons is None:
        return None
    count = len(faults.found)
    for key, value in board.items():
        where = f"board.{key}" if isinstance(value, Mapping) else "board"
        kind = value.get("kind", "per_side") if key == "layout" and isinstance(value, Mapping) \
            else "per_side"
        if not isinstance(kind, str):
            faults.add(where, f"kind must be a layout's name like \"per_side\", not {kind!r}")
            continue
        try:
            BoardConfig.from_config({"board": {key: value}})
        except ValueError as exc:
            faults.add(where, str(exc))
        except TypeError as exc:  # a list or table where a name or number belongs
            faults.add(where, f"a value of the wrong kind: {exc}")
    wired: dict[str, Any] = {}
    for key, value in sorted(buttons.items(), key=lambda kv: kv[0] not in BUTTON_NAMES):
        if key == "long_press":  # names buttons: judged with them below
            continue
        try:  # a pin alone; anything else beside the pins that were sound alone
            ButtonConfig.from_config({key: value} if key in BUTTON_NAMES
                                     else {**wired, key: value})
        except ValueError as exc:
            faults.add("buttons", str(exc))
        else:
            if key in BUTTON_NAMES:
                wired[key] = value
    if faults.since(count):
        return None
    document = {"board": board, **({"buttons": buttons} if buttons else {})}
    try:
        return BoardConfig.from_config(document)
    except ValueError as exc:
        faults.add("buttons" if isinstance(exc, ButtonConfigError) else "board", str(exc))
        return None


def _fits(faults: _Faults, players: tuple[str, ...], rules: Rules, board: BoardConfig) -> None:
    """The board shows every side: a peg track and a colour each, and the game hole."""
    layout = board.layout
    sides = 2 if rules.partnership else len(players)
    who = f"{sides} sides ({', '.join(players)}{', partners' if rules.partnership else ''})"
    if not layout.shared and sides > layout.tracks:
        faults.add("board.layout", f"tracks = {layout.tracks} gives {layout.tracks} peg "
                                   f"tracks, but [game] players seats {who}: set tracks = "
                                   f"{sides} (the board needs them) or kind = \"shared\"")
    colours = len(board.palette.sides)
    if colours < sides:
        faults.add("board.colours", f"sides gives {colours} colour{'s' * (colours != 1)}, "
                                    f"but [game] players seats {who}: give one colour per "
                                    f"side")
    if rules.target > layout.game_hole:
        faults.add("rules", f"target = {rules.target} does not fit the board: [board.layout] "
                            f"has its game hole at {layout.game_hole}")


def _pins_free(faults: _Faults, board: BoardConfig) -> None:
    """No button on a pin the LED strip holds: it would never be read, or would stop the LEDs."""
    held = strip_pins(board.backend, board.strip_options)
    owners = [(name, pin) for name, pin in board.buttons.pins.items()]
    encoder = board.buttons.encoder
    if encoder is not None:
        owners += [("encoder.a", encoder.a), ("encoder.b", encoder.b)]
    for name, pin in owners:
        if pin in held:
            faults.add("buttons", f"{name} = {pin}: GPIO{pin} is {held[pin]} with [board.strip] "
                                  f"backend = {board.backend!r}: wire the button to a free "
                                  f"pin (docs/building.md)")


def _size(faults: _Faults, where: str, value: Any) -> tuple[int, int]:
    if (not isinstance(value, list) or len(value) != 2
            or not all(type(v) is int and v > 0 for v in value)):
        raise _fault(faults, where, f"size must be [width, height] in pixels, not {value!r}")
    return (value[0], value[1])


def _watch(faults: _Faults, value: Any, size: tuple[int, int]) -> tuple[int, int]:
    """The watch stream: smaller than the frame and of its shape, so zones hold on both."""
    if (not isinstance(value, list) or len(value) != 2
            or not all(type(v) is int and v > 0 for v in value)):
        raise _fault(faults, "camera", f"watch must be [width, height] in pixels (the small "
                                       f"stream watched for movement), not {value!r}")
    width, height = value
    if width > size[0] or height > size[1]:
        raise _fault(faults, "camera", f"watch {width}x{height} is larger than size "
                                       f"{size[0]}x{size[1]}: it is the small stream, e.g. "
                                       f"[{size[0] // 4}, {size[1] // 4}]")
    if abs(width / height / (size[0] / size[1]) - 1) > _WATCH_SHAPE_TOLERANCE:
        raise _fault(faults, "camera", f"watch {width}x{height} does not have the shape of "
                                       f"size {size[0]}x{size[1]}: it must be the same view "
                                       f"shrunk, e.g. [{size[0] // 4}, {size[1] // 4}]")
    return (width, height)


def _camera(faults: _Faults, data: Mapping[str, Any], base: Path) -> CameraConfig:
    source = data.get("source", "opencv")
    every = {"source", "deck", *set().union(*_CAMERA_KEYS.values())}
    _check_keys(faults, "camera", data, every)
    if source not in CAMERA_SOURCES:
        faults.add("camera", f"source must be one of {', '.join(CAMERA_SOURCES)}, "
                             f"not {source!r}")
        source = None
    else:
        allowed = _CAMERA_KEYS[source]
        for key in sorted(set(data) & every - {"source", "deck"} - allowed):
            faults.add("camera", f"key {key!r} does not apply to source {source!r} "
                                 f"(it takes: {', '.join(sorted(allowed))})")
    values: dict[str, Any] = {"source": source or "opencv"}
    if "size" in data:
        with faults.each():
            values["size"] = _size(faults, "camera", data["size"])
    if "watch" in data and ("size" in values or "size" not in data):
        with faults.each():
            values["watch"] = _watch(faults, data["watch"], values.get("size", CameraConfig.size))
    if "device" in data:
        device = data["device"]
        if not (type(device) is int and device >= 0) and not (isinstance(device, str) and device):
            faults.add("camera", f"device must be an index like 0 or a path like "
                                 f"\"/dev/video0\", not {device!r}")
        else:
            values["device"] = device
    if source == "replay":
        folder = data.get("path")
        if not isinstance(folder, str) or not folder or "\x00" in folder:
            faults.add("camera", f"source 'replay' needs path, a folder of images or a video "
                                 f"file, not {folder!r}")
        else:
            values["path"] = base / folder
    if "fps" in data:
        fps = data["fps"]
        if isinstance(fps, bool) or not isinstance(fps, int | float) or not 0 < fps < math.inf:
            faults.add("camera", f"fps must be a positive number, not {fps!r}")
        else:
            values["fps"] = float(fps)
    if "loop" in data:
        with faults.each():
            values["loop"] = _flag(faults, "camera", "loop", data["loop"])
    if "mount_cm" in data:
        mount = data["mount_cm"]
        if isinstance(mount, bool) or not isinstance(mount, int | float) or not 20 <= mount <= 300:
            faults.add("camera", f"mount_cm must be the lens's height over the table in cm, "
                                 f"20 to 300, not {mount!r}")
        else:
            values["mount_cm"] = float(mount)
    if "deck" in data:
        deck = data["deck"]
        if not isinstance(deck, str) or not deck or "\x00" in deck:
            faults.add("camera", f"deck must be the path of a deck profile "
                                 f"(cribbage-board vision teach), not {deck!r}")
        else:
            values["deck"] = base / deck
    return CameraConfig(**values)


def _polygon(faults: _Faults, where: str, value: Any, size: tuple[int, int]) -> Polygon:
    if not isinstance(value, list) or len(value) < 3:
        raise _fault(faults, "zones", f"{where} must be a polygon of at least 3 [x, y] points, "
                                      f"not {value!r}")
    points: list[Point] = []
    for point in value:
        if (not isinstance(point, list) or len(point) != 2 or any(
                isinstance(v, bool) or not isinstance(v, int | float) for v in point)):
            raise _fault(faults, "zones", f"{where}: {point!r} is not an [x, y] point")
        x, y = float(point[0]), float(point[1])
        if not (0 <= x <= size[0] and 0 <= y <= size[1]):
            raise _fault(faults, "zones", f"{where}: point {point!r} lies outside the "
                                          f"{size[0]}x{size[1]} camera frame")
        points.append((x, y))
    area = sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(points, points[1:] + points[:1],
                                                             strict=True)) / 2
    if math.isclose(area, 0.0, abs_tol=1e-9):
        raise _fault(faults, "zones", f"{where} encloses no area: {value!r}")
    return tuple(points)


def _zones(faults: _Faults, data: Mapping[str, Any], players: int,
           size: tuple[int, int]) -> ZonesConfig:
    _check_keys(faults, "zones", data, {"seats", "starter", "crib", "card_px"})
    values: dict[str, Any] = {}
    if "seats" in data:
        raw = data["seats"]
        if not isinstance(raw, list) or len(raw) != players:
            count = len(raw) if isinstance(raw, list) else raw
            faults.add("zones", f"seats needs one polygon per player ({players}, in [game] "
                                f"players order), got {count!r}")
        else:
            seats = []
            for i, polygon in enumerate(raw):
                with faults.each():
                    seats.append(_polygon(faults, f"seats[{i}]", polygon, size))
            values["seats"] = tuple(seats)
    card_px = data.get("card_px")
    if card_px is not None and (isinstance(card_px, bool) or not isinstance(card_px, int | float)
                                or not 10 <= card_px <= size[1]):
        faults.add("zones", f"card_px must be a card's long side in frame pixels, 10 to "
                            f"{size[1]} (the frame's height), not {card_px!r}")
    elif card_px is not None:
        values["card_px"] = float(card_px)
    for key in ("starter", "crib"):
        if key in data:
            with faults.each():
                values[key] = _polygon(faults, key, data[key], size)
    return ZonesConfig(**values)


def _store(faults: _Faults, data: Mapping[str, Any], base: Path,
           environ: Mapping[str, str] | None) -> StoreConfig:
    _check_keys(faults, "store", data, {"path"})
    if "path" not in data:
        return StoreConfig(default_store_path(environ))
    raw = data["path"]
    if not isinstance(raw, str) or not raw:
        faults.add("store", f"path must be a file name, not {raw!r}")
        return StoreConfig(default_store_path(environ))
    try:
        path = base / Path(raw).expanduser()
    except RuntimeError:  # "~nobody/...": a user this machine does not have
        faults.add("store", f"path {raw!r} names a home folder this machine does not have")
        return StoreConfig(default_store_path(environ))
    problem = store_path_problem(path)
    if problem is not None:
        faults.add("store", f"path {raw!r} {problem}")
    return StoreConfig(path)


def _voice(faults: _Faults, data: Mapping[str, Any]) -> VoiceConfig:
    _check_keys(faults, "voice", data, {"enabled", "command", "voice", "words_per_minute"})
    values: dict[str, Any] = {}
    if "enabled" in data:
        with faults.each():
            values["enabled"] = _flag(faults, "voice", "enabled", data["enabled"])
    for key in ("command", "voice"):
        if key in data:
            if not isinstance(data[key], str) or not data[key].strip() or "\x00" in data[key]:
                faults.add("voice", f"{key} must be a name, not {data[key]!r}")
            else:
                values[key] = data[key]
    if "words_per_minute" in data:
        wpm = data["words_per_minute"]
        if type(wpm) is not int or not 80 <= wpm <= 450:
            faults.add("voice", f"words_per_minute must be 80 to 450 (espeak-ng's range), "
                                f"not {wpm!r}")
        else:
            values["words_per_minute"] = wpm
    return VoiceConfig(**values)


def _web(faults: _Faults, data: Mapping[str, Any]) -> WebConfig:
    from firmware.web.address import HostError, check_host
    from firmware.web.pins import is_pin

    _check_keys(faults, "web", data, {"enabled", "host", "port", "pin", "allow_public"})
    values: dict[str, Any] = {}
    for key in ("enabled", "allow_public"):
        if key in data:
            with faults.each():
                values[key] = _flag(faults, "web", key, data[key])
    if "port" in data:
        port = data["port"]
        if type(port) is not int or not 0 <= port <= 65535:
            faults.add("web", f"port must be a port number from 1 to 65535 (0: any free "
                              f"port), not {port!r}")
        else:
            values["port"] = port
    if "pin" in data:
        pin = data["pin"]
        if not is_pin(pin):
            faults.add("web", f"pin must be a string of 4 to 8 digits like \"4821\", "
                              f"not {pin!r}")
        else:
            values["pin"] = pin
    if "host" in data:
        host = data["host"]
        if not isinstance(host, str):
            faults.add("web", f"host must be an address like \"0.0.0.0\", not {host!r}")
        else:
            try:
                values["host"] = check_host(host, allow_public=values.get("allow_public",
                                                                          False))
            except HostError as exc:
                faults.add("web", str(exc))
    return WebConfig(**values)


def _club(faults: _Faults, data: Mapping[str, Any], base: Path) -> ClubConfig | None:
    try:
        club = parse_club(data, base=base)
    except ClubConfigError as exc:
        faults.add("club", str(exc))
        return None
    if club.ca_file is not None:
        problem = _ca_file_problem(club.ca_file)
        if problem is not None:
            faults.add("club", f"ca_file {str(data.get('ca_file'))!r}: {problem}")
    return club


def _ca_file_problem(path: Path) -> str | None:
    """Why the broker's CA file cannot be used, in words (the publisher would fail on it)."""
    if "\x00" in str(path):
        return "contains a NUL character (\\x00), which no file name may hold"
    if not path.exists():
        return f"{str(path)!r} does not exist (the broker's CA certificate, in PEM)"
    if not path.is_file():
        return f"{str(path)!r} is not a file (the broker's CA certificate, in PEM)"
    try:
        ssl.create_default_context(cafile=str(path))
    except (ssl.SSLError, ValueError) as exc:
        return f"{str(path)!r} holds no CA certificate ssl can read ({exc.__class__.__name__})"
    except OSError as exc:
        return f"cannot read {str(path)!r}: {(exc.strerror or str(exc)).lower()}"
    return None


def _flag(faults: _Faults, where: str, key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise _fault(faults, where, f"{key} must be true or false, not {value!r}")
    return value
