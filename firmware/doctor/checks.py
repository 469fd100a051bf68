"""What stands between a config file and a lit board, found without starting the device.

``check(path)`` reads the config the way ``cribbage-board run`` would and then
looks at the machine for what each part it names needs (the device node, its
group, the library, the boot setting), so a Pi owner reads every problem at
once, in words, with the line to add, rather than the first one at each start.
Nothing is opened: the strip, camera and buttons stay free for the running
service. What it looks at is a ``System`` that tests replace.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from firmware.device.config import DeviceConfig, config_problems, load_device_config

__all__ = ["Finding", "System", "check", "check_loaded"]

Level = Literal["fault", "note"]


@dataclass(frozen=True)
class Finding:
    """One thing the doctor found: a ``fault`` stops the device, a ``note`` does not.

    ``starts_anyway`` marks a fault the board runs through in a lesser way (a store it
    cannot write is served read-only and says so): ``doctor`` by hand fails on it, but the
    unit's start check (``doctor --before-start``) lets the board come up and say it;
    ``starts_as`` says how it runs then."""

    level: Level
    text: str
    starts_anyway: bool = False
    starts_as: str = "serves it read-only"

    def __str__(self) -> str:
        return f"{self.level}: {self.text}"


def _recogniser_problem() -> str | None:
    from firmware.device.recogniser_probe import recogniser_problem

    return recogniser_problem()


def _have_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


@dataclass(frozen=True)
class System:
    """The machine as the doctor sees it; every field can be replaced in a test.

    ``root`` prefixes every absolute path looked at (``/dev``, ``/sys``).
    """

    root: Path = Path("/")
    have_module: Callable[[str], bool] = _have_module
    which: Callable[[str], str | None] = shutil.which
    writable: Callable[[Path], bool] = field(default=lambda p: os.access(p, os.W_OK))
    uid: int = field(default_factory=os.geteuid)
    # Why the card recogniser cannot load (firmware.device.recogniser_probe), or None.
    recogniser: Callable[[], str | None] = _recogniser_problem

    def path(self, absolute: str) -> Path:
        return self.root / absolute.lstrip("/")


def check(path: Path | str, *, system: System = System(),
          environ: Mapping[str, str] | None = None) -> list[Finding]:
    """Every fault of the config file at ``path`` and of what it asks of this machine."""
    problems = config_problems(path, environ=environ)
    if problems:
        return [Finding("fault", text) for text in problems]
    return check_loaded(load_device_config(path, environ=environ), system=system)


def check_loaded(config: DeviceConfig, *, system: System = System()) -> list[Finding]:
    """What the parts a loaded config names need of this machine."""
    return [*_strip(config, system), *_camera(config, system), *_buttons(config, system),
            *_store(config, system), *_voice(config, system), *_web(config, system)]


# -- parts -----------------------------------------------------------------------------------


def _device(system: System, node: str, *, missing: str, denied: str) -> list[Finding]:
    path = system.path(node)
    if not path.exists():
        return [Finding("fault", f"no {node}: {missing}")]
    if not system.writable(path):
        return [Finding("fault", f"cannot write {node}: {denied}")]
    return []


def _strip(config: DeviceConfig, system: System) -> list[Finding]:
    board = config.board
    options: Mapping[str, Any] = board.strip_options
    backend = board.backend
    if "board.strip" not in config.configured or backend == "simulator":
        return [Finding("note", "LEDs: backend 'simulator': nothing lights; set [board.strip] "
                                "backend = \"spi\" (systemd/install.sh picks it for this Pi)")]
    from hardware.strip import StripError, StripUnavailableError, check_options

    try:
        check_options(backend, board.layout, **options)
    except (StripError, StripUnavailableError) as exc:
        return [Finding("fault", f"LEDs: {exc}")]
    n = board.layout.n_leds
    if backend == "spi":
        from hardware.strips.spi import BUFSIZ_PATH, SPEED_HZ, check_buffer

        node = f"/dev/spidev{options.get('bus', 0)}.{options.get('device', 0)}"
        found = _device(system, node,
                        missing="add dtparam=spi=on to /boot/firmware/config.txt and reboot",
                        denied="add the service user to the group spi")
        if not system.have_module("spidev"):
            found.append(Finding("fault", "LEDs: the Python module spidev is missing: "
                                          "pip install spidev (the 'pi' extra)"))
        try:
            check_buffer(n, speed_hz=options.get("speed_hz", SPEED_HZ),
                         reset_us=options.get("reset_us", 300),
                         bufsiz_path=system.path(str(BUFSIZ_PATH)),
                         order=options.get("order", "GRB"))
        except StripError as exc:
            found.append(Finding("fault", f"LEDs: {exc}"))
        return found
    if backend == "pi5_pio":
        node = str(options.get("device", "/dev/leds0"))
        return _device(system, node,
                       missing=f"add dtoverlay=ws2812-pio,gpio=18,num_leds={n} to "
                               "/boot/firmware/config.txt and reboot (Pi 5 only)",
                       denied="install systemd/99-cribbage-board-leds.rules (install.sh "
                              "--leds pio) and add the service user to the group leds")
    if backend == "ws281x":
        found = []
        if system.uid != 0:
            found.append(Finding("fault", "LEDs: backend 'ws281x' (PWM) needs root and the "
                                          "service runs unprivileged: wire the strip to GPIO10 "
                                          "and use backend = \"spi\""))
        if not system.have_module("rpi_ws281x"):
            found.append(Finding("fault", "LEDs: the Python module rpi_ws281x is missing: "
                                          "pip install rpi-ws281x (the 'pi' extra)"))
        return found
    return []


def _camera(config: DeviceConfig, system: System) -> list[Finding]:
    if "camera" not in config.configured:
        return [Finding("note", "camera: none configured: cards are entered by hand")]
    camera = config.camera
    found: list[Finding] = []
    if camera.source == "picamera2" and not system.have_module("picamera2"):
        found.append(Finding("fault", "camera: picamera2 is missing: apt install "
                                      "python3-picamera2, in a venv made with "
                                      "--system-site-packages (systemd/install.sh does both)"))
    if camera.source == "opencv":
        device = camera.device
        node = f"/dev/video{device}" if isinstance(device, int) else device
        if not system.path(node).exists():
            found.append(Finding("fault", f"camera: no {node}: is the webcam plugged in? "
                                          "(a ribbon camera is source = \"picamera2\")"))
    if camera.source == "replay" and camera.path is not None and not camera.path.exists():
        found.append(Finding("fault", f"camera: replay path {str(camera.path)!r} does not exist"))
    if camera.deck is not None and not camera.deck.is_file():
        found.append(Finding("fault", f"camera: deck {str(camera.deck)!r} does not exist "
                                      "(cribbage-board vision teach writes one)"))
    problem = system.recogniser()
    if problem is not None:  # a note: run goes on by hand, so the unit must still start
        found.append(Finding("note", f"camera: off: {problem}; the board runs with the cards "
                                     "entered by hand"))
    if not config.zones.seats:
        found.append(Finding("note", "camera: [zones] not calibrated: cards are seen but not "
                                     "placed; run cribbage-board calibrate --write"))
    return found


def _buttons(config: DeviceConfig, system: System) -> list[Finding]:
    if "buttons" not in config.configured:
        return [Finding("note", "buttons: none configured: simulated, use the phone page")]
    factory = config.buttons.pin_factory
    module = {"lgpio": "lgpio", "rpigpio": "RPi.GPIO", "pigpio": "pigpio"}.get(factory)
    if module is not None and not system.have_module(module.split(".")[0]):
        return [Finding("fault", f"buttons: pin_factory {factory!r} needs the Python module "
                                 f"{module}: apt install python3-{module.lower().replace('.', '-')}"
                        )]
    return []


def _store(config: DeviceConfig, system: System) -> list[Finding]:
    """A store the board's user cannot write, and the fix. ``run`` serves such a store
    read-only (it shows the game, refuses every change), so the doctor keeps failing on it
    with the words the board says (``firmware.store.eventstore.read_only_words``)."""
    path = config.store.path
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not system.writable(folder):
        return [Finding("fault", f"store: cannot write {str(path)!r} "
                                 f"({str(folder)!r} is not writable by this user)",
                        starts_anyway=path.exists())]
    # The file too: SQLite opens a read-only file without a word.
    if path.exists() and not system.writable(path):
        from firmware.store.eventstore import read_only_words

        return [Finding("fault", f"store: {read_only_words(path, path, uid=system.uid)}",
                        starts_anyway=True)]
    # And its second copy: the board runs without it, each event in the store alone.
    from firmware.store.copy import copy_fault, copy_path

    copy = copy_path(path)
    if copy.exists() and not system.writable(copy):
        from firmware.store.eventstore import copy_trouble_words

        return [Finding("fault", "store: " + copy_trouble_words(copy, "not writable by this "
                                                                      "user"),
                        starts_anyway=True, starts_as="keeps each event in the store alone")]
    why = copy_fault(copy)  # a folder in its place, no read permission, garbage
    if why is not None:
        return [Finding("fault", f"store: the event store's second copy {str(copy)!r} could "
                                 f"not be read ({why})", starts_anyway=True,
                        starts_as="keeps it aside, untouched, and writes a fresh copy")]
    return []


def _voice(config: DeviceConfig, system: System) -> list[Finding]:
    voice = config.voice
    if voice.enabled and system.which(voice.command) is None:
        return [Finding("fault", f"voice: {voice.command!r} is not installed: apt install "
                                 "espeak-ng (systemd/install.sh --with-voice)")]
    return []


def _web(config: DeviceConfig, system: System) -> list[Finding]:
    web = config.web
    if web.enabled and 0 < web.port < 1024 and system.uid != 0:
        return [Finding("fault", f"web: port {web.port} needs root and the service runs "
                                 "unprivileged: use a port from 1024 up, like 8080")]
    return []
