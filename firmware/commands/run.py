"""``cribbage-board run [--config FILE] [--store PATH]``: the device program.

Real hardware where the config asks for it, the simulator (or nothing)
where it does not, and it says which before anything else, one line per part
("LEDs: simulator (no [board.strip] backend configured)"). Everything it says
goes through ``logging`` to stdout (``firmware.device.logs``): plain lines on a
terminal, with journald priorities under systemd, the device's trouble at
warning. A part the
config names that cannot start is an error (exit 2, one line), never a quiet
fallback: a board that silently runs on a simulator looks dead at the table.

A store it cannot write (its file or folder read-only for the board's user) is served
read-only: the board shows the game as stored, says once what is wrong and the fix, and
refuses every change with those words until the fault is put right: then it takes changes
again, and says so once (``EventStore.writable_again``, under the store's lock); a second
``run`` on one store is refused at start, naming the first (``firmware.store.lock``).

Under systemd (``Type=notify``) it says READY=1 once the store is replayed
and the board shows the game, pings the watchdog from the loop, and says
STOPPING=1 on SIGTERM or SIGINT before closing the store.

The phone page (``[web]``) runs in the same process: the loop keeps the main
thread, uvicorn serves from a daemon thread, and the two meet only in a
``firmware.web.hub.Hub``. Players, rules and colours chosen on the phone are
kept beside the store (``firmware.web.settings``) and used at the next start
while the config still says what it said when they were chosen.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import signal
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

__all__ = ["register", "run", "Parts", "open_parts", "DEFAULT_CONFIG"]

#: The config the installed service names (systemd/cribbage-board.service); ``run`` without
#: ``--config`` reads it too when it exists, so the board at the table and a player's
#: ``cribbage-board run`` on the Pi agree.
DEFAULT_CONFIG = Path("/etc/cribbage-board/config.toml")

log = logging.getLogger("firmware.run")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "run", help="run the board: watch the table, score, light the pegs")
    parser.add_argument("--config", type=Path,
                        help=f"device config (TOML); default: {DEFAULT_CONFIG} if it exists, "
                             "else every default (simulated LEDs, no camera)")
    parser.add_argument("--store", type=Path, help="event store (default: the config's [store])")
    parser.add_argument("--once", action="store_true",
                        help="start, run one turn of the loop and stop (a smoke test)")
    parser.add_argument("--max-seconds", type=float, help="stop after this many seconds")
    parser.add_argument("--muggins-window", type=float, default=None,
                        help="seconds after a claim in which MUGGINS may be called (default: "
                             "the config's [game] muggins_window_s, else 8)")
    parser.set_defaults(handler=run)


class Parts:
    """What ``run`` opened, and the lines that say what each part is."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.strip: Any = None
        self.source: Any = None
        self.recognise: Any = None
        self.reader: Any = None
        self.tracker: Any = None
        self.panel: Any = None
        self.voice: Any = None
        # Why the camera is off although the config names one (the recogniser cannot load).
        self.camera_off: str | None = None

    def close(self) -> None:
        for part in (self.panel, self.source, self.strip, self.voice):
            if part is not None:
                try:
                    part.close()
                except Exception:  # closing is best effort: the process is ending
                    pass


def open_parts(config: Any, *, clock: Any) -> Parts:
    """Opens the LEDs, the camera, the buttons and the voice the config names."""
    from firmware.device.voice import Voice
    from hardware.buttons import ButtonPanel, make_pin_factory
    from hardware.keyboard import KeyboardPanel, keyboard_help
    from hardware.strips.simulator import SimulatorStrip

    parts = Parts()
    try:
        board = config.board
        if "board.strip" in config.configured:
            parts.strip = board.open_strip()
            how = "configured" if board.backend == "simulator" else f"{parts.strip.n} LEDs"
            parts.lines.append(f"LEDs: {board.backend} ({how}, layout {board.layout.kind})")
        else:
            parts.strip = SimulatorStrip(board.layout)
            parts.lines.append("LEDs: simulator (no [board.strip] backend configured)")

        if "camera" in config.configured:  # a recogniser that cannot load leaves it off
            from firmware.device.recogniser_probe import recogniser_problem

            parts.camera_off = recogniser_problem()
        if "camera" in config.configured and parts.camera_off is None:
            from vision.live.motion import StreamReader
            from vision.live.sources import open_source
            from vision.live.tracker import CardTracker, TrackerSettings
            from vision.recognise.detection import CameraRecogniser

            camera = config.camera
            parts.source = open_source(camera.source, **camera.options())
            profile = None
            if camera.deck is not None:
                from vision.recognise.deck import DeckError, load_profile

                try:
                    profile = load_profile(camera.deck)
                except DeckError as exc:
                    raise ValueError(f"config [camera] deck: {exc}") from None
            parts.recognise = CameraRecogniser(deck=profile)
            # Watch the small stream, read the full frame only where the table changed.
            # Read at the calibrated cards' scale where calibrate measured it.
            card_px = config.zones.card_px
            parts.reader = StreamReader(parts.recognise, frame_size=camera.size,
                                        watch_size=camera.watch_size, card_px=card_px)
            zones = _zones(config)
            # Each change is read once and its reading repeated until the next change, so
            # waiting for repeats would add frames of latency and no evidence.
            parts.tracker = CardTracker(frame_size=camera.size, zones=zones,
                                        settings=TrackerSettings(appear_frames=1))
            where = {"replay": f"replay {camera.path}", "opencv": f"opencv device {camera.device}",
                     "picamera2": "picamera2"}[camera.source]
            calibrated = "zones calibrated" if zones is not None else \
                "zones NOT calibrated: cards are seen but not placed"
            calibrated += f", cards read at {parts.reader.card_px:.0f} px" + (
                "" if card_px is not None else " (not measured: an eighth of the frame)")
            taught = f", taught deck {camera.deck}" if camera.deck is not None else ""
            watch = camera.watch_size
            parts.lines.append(f"camera: {where} ({camera.size[0]}x{camera.size[1]} read where "
                               f"the table changes, watched at {watch[0]}x{watch[1]}, "
                               f"{calibrated}{taught})")
            focus = getattr(parts.source, "focus", None)  # a motorised lens (vision.live.lens)
            if focus is not None:
                parts.lines.append(f"camera: {focus.words}")
        elif parts.camera_off is not None:
            parts.lines.append(f"camera: off ({parts.camera_off}): buttons and manual entry only")
        else:
            parts.lines.append("camera: none (no [camera] table): buttons and manual entry only")

        buttons = config.buttons
        if "buttons" in config.configured:
            parts.panel = ButtonPanel.from_config(buttons, clock=clock)
            pins = ", ".join(f"{k} GPIO{v}" for k, v in buttons.pins.items())
            parts.lines.append(f"buttons: {buttons.pin_factory} ({pins})")
        elif sys.stdin is not None and sys.stdin.isatty():  # a laptop: never a service
            parts.panel = KeyboardPanel(sys.stdin, clock=clock)
            parts.lines.append(f"buttons: this keyboard (no [buttons] table); {keyboard_help()}")
        else:
            parts.panel = ButtonPanel.from_config(buttons, pin_factory=make_pin_factory("mock"),
                                                  clock=clock)
            parts.lines.append("buttons: simulated (gpiozero MockFactory; no [buttons] table)")

        parts.voice = Voice.from_config(config.voice)
        parts.voice.check()
        parts.lines.append(parts.voice.describe())
    except BaseException:
        parts.close()
        raise
    return parts


def _zones(config: Any) -> Any:
    from vision.live.zones import TableZones, Zone

    zones = config.zones
    if not zones.seats:
        return None
    found = [Zone(name, polygon) for name, polygon in zip(config.players, zones.seats,
                                                          strict=True)]
    for name in ("starter", "crib"):
        polygon = getattr(zones, name)
        if polygon is not None:
            found.append(Zone(name, polygon))
    return TableZones(tuple(found))


#: ``run``'s exit when the store cannot open for want of space: a passing fault, so not 2
#: (the unit's RestartPreventExitStatus), and systemd tries again until space is freed.
EXIT_STORAGE_FULL = 1


def run(args: argparse.Namespace) -> int:
    from firmware.device import logs

    with logs.attached():
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    began = time.monotonic()
    from firmware.device.memory import give_back_large_buffers

    give_back_large_buffers()  # frames freed are given back: the Pi Zero 2 W's 512 MB
    from firmware.device.config import load_device_config
    from firmware.device.loop import DeviceLoop
    from firmware.device.notify import Notifier, Watchdog
    from firmware.store.eventstore import EventStore
    from firmware.store.lock import hold
    from firmware.store.schema import StorageFull
    from firmware.table.flow import TableFlow, cards_on_table
    from firmware.web.hub import Hub
    from firmware.web.inputs import TableSettings
    from firmware.web.settings import SettingsFile, settings_path
    from hardware.buttons import Controls

    default = DEFAULT_CONFIG if DEFAULT_CONFIG.exists() else None
    # The one check `doctor` runs too: every fault of the file at once (exit 2), before
    # anything is opened.
    config = load_device_config(args.config if args.config is not None else default)
    if args.max_seconds is not None and args.max_seconds < 0:
        raise ValueError(f"--max-seconds must not be negative, not {args.max_seconds!r}")
    if args.store is not None:
        from firmware.device.config_checks import store_path_problem

        problem = store_path_problem(args.store)
        if problem is not None:
            raise ValueError(f"--store {str(args.store)!r} {problem}")
    clock = time.monotonic
    store_path = args.store or config.store.path
    parts = open_parts(config, clock=clock)
    for line in parts.lines:
        log.info(line)
    notifier = Notifier()
    store = None
    locked = contextlib.ExitStack()
    page: Any = None
    publisher: Any = None
    eye: Any = None
    stop = {"signal": None}

    def on_signal(number: int, frame: Any) -> None:
        stop["signal"] = number  # type: ignore[assignment]

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        locked.enter_context(hold(store_path))  # a second run is refused, naming the first
        try:
            # A store this user cannot write is served read-only, and said (DeviceLoop.start):
            # the board shows the game as stored and refuses each change with the fix.
            store = EventStore.open(store_path, clock=time.time, fallback_readonly=True,
                                    repairing=_repair_timeout(notifier))
        except StorageFull as exc:
            # Not a fault of the config: the card has no room to open (or repair) the store.
            # Exit 1, which systemd restarts (2 it would not), so the board comes back by
            # itself once space is freed; nothing stored has been touched.
            log.error(f"store: storage full: {exc}: free space on the card; the board "
                      "starts again by itself")
            return EXIT_STORAGE_FULL
        if store.recovery is not None:
            log.warning(f"store: {store.recovery}")
        for note in store.notes:  # history rebuilt from the checksummed events
            log.warning(f"store: {note}")
        log.info(f"store: {store_path} ({len(store.lines)} events in the current match"
                 + (", read-only)" if store.readonly else ")"))
        if parts.reader is not None:  # restarted mid-deal: the laid cards are no table art
            replayed = store
            parts.reader.on_table = lambda: cards_on_table(replayed.game)

        buttons = config.buttons
        controls = Controls(long_press=buttons.long_press,
                            max_value=buttons.encoder.max_value if buttons.encoder else 29)
        renderer = config.board.renderer()
        base = TableSettings(config.players, config.rules_json, renderer.palette.sides)
        chosen = SettingsFile(settings_path(Path(store_path)), base)
        layout = renderer.layout
        settings = chosen.load(tracks=layout.tracks, shared=layout.shared,
                               game_hole=layout.game_hole) if config.web.enabled else None
        if chosen.problem:
            log.warning(f"phone settings: {chosen.problem}")
        if settings is not None:
            log.info(f"phone settings: {', '.join(settings.players)} {dict(settings.rules)} "
                     f"(chosen on the phone)")
            if settings.colours:
                renderer = replace(renderer, palette=replace(
                    renderer.palette, sides=settings.colours + renderer.palette.sides[
                        len(settings.colours):]))
        playing = settings or base
        hub = Hub() if config.web.enabled else None
        if hub is not None and parts.source is not None:  # the page's view of the camera
            from firmware.web.camera_eye import CameraEye

            eye = CameraEye()
            eye.start()
        window = (config.muggins_window_s if args.muggins_window is None
                  else args.muggins_window)
        loop = DeviceLoop(store=store, flow=TableFlow(playing.players, playing.rules,
                                                      muggins_window_s=window,
                                                      seats=config.players),
                          strip=parts.strip, renderer=renderer, clock=clock,
                          source=parts.source, recognise=parts.recognise, tracker=parts.tracker,
                          reader=parts.reader,
                          panel=parts.panel, controls=controls, voice=parts.voice,
                          notifier=notifier, watchdog=Watchdog.from_environ(clock=clock),
                          camera_off=parts.camera_off,
                          hub=hub, eye=eye)
        loop.start()
        publisher = _club(config, Path(store_path), hub)
        log.info(f"ready in {time.monotonic() - began:.2f} s: {loop.status()}")
        if hub is not None:
            page = _serve(config, hub, chosen, explicit="web" in config.configured,
                          store_path=Path(store_path), eye=eye)
            if page is not None:
                notifier.status(page.said)
        if args.once:
            loop.step()
        else:
            loop.run(should_stop=lambda: stop["signal"] is not None, max_seconds=args.max_seconds)
        notifier.stopping()
        why = f"signal {stop['signal']}" if stop["signal"] is not None else "done"
        log.info(f"stopping ({why}): {loop.status()}")
    finally:
        if page is not None:
            page.server.stop()
        if eye is not None:
            eye.close()
        if publisher is not None:
            publisher.stop()
        for number, handler in previous.items():
            signal.signal(number, handler)
        parts.close()
        if store is not None:
            store.close()
        locked.close()
    return 0


#: How long each word to systemd during a repair asks it to wait (the unit's start timeout
#: would otherwise kill a long repair mid-way), and how often at most it is said.
REPAIR_WAIT_S = 90
_REPAIR_TELL_S = 10.0


def _repair_timeout(notifier: Any) -> Any:
    """What the store calls while it repairs: EXTEND_TIMEOUT_USEC, at most every
    ``_REPAIR_TELL_S`` seconds, so systemd waits as long as the repair goes on."""
    said = [-_REPAIR_TELL_S]

    def repairing() -> None:
        now = time.monotonic()
        if now - said[0] >= _REPAIR_TELL_S:
            said[0] = now
            notifier.send(EXTEND_TIMEOUT_USEC=REPAIR_WAIT_S * 1_000_000)
    return repairing


def _club(config: Any, store_path: Path, hub: Any) -> Any:
    """Starts publishing the store to the club's broker (``[club]``), on its own thread,
    woken by each of the loop's commits where the page's hub says them."""
    club = config.club
    if club is None or not club.enabled:
        return None
    from firmware.club.publisher import start_publisher

    publisher = start_publisher(store_path, club, hub=hub)
    log.info(publisher.describe())
    return publisher


class _Page:
    """The running phone page and the line that says where it is."""

    def __init__(self, server: Any, said: str) -> None:
        self.server, self.said = server, said


def _serve(config: Any, hub: Any, chosen: Any, *, explicit: bool,
           store_path: Path | None = None, eye: Any = None) -> _Page | None:
    """Starts the phone page. A page the config asks for that cannot start is an error; the
    default page (no ``[web]`` table) on a busy port is only reported."""
    from firmware.web.server import WebServerError, new_pin, serve_page

    web = config.web
    pin = web.pin or new_pin()
    try:
        server = serve_page(hub, host=web.host, port=web.port, pin=pin,
                            allow_public=web.allow_public, on_settings=chosen.save,
                            store_path=store_path, eye=eye)
    except WebServerError as exc:
        if explicit:
            raise
        log.warning(f"phone page: off ({exc}; set [web] port, or enabled = false)")
        return None
    where = " or ".join(server.urls())
    said = f"phone page: {where} (PIN {pin} for changes)"
    log.info(said)
    return _Page(server, said)
