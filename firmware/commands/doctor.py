"""``cribbage-board doctor [--config FILE] [--walk-leds] [--buttons] [--camera] [--all] [--json]``.

First the config and what it asks of this machine (``firmware.doctor.checks``), every
fault in words, without opening anything: the unit runs this as its
``ExecStartPre``, and a fault exits 2, which systemd retries until the unit's
start limit (``RestartPreventExitStatus=`` is matched against the main process
only). Then, only on request and with the service stopped (they open the
strip, the pins and the camera), the hands-on checks of ``firmware.doctor.walk``. ``--all``
asks before each when a person is at the terminal, and never waits on a
stdin that is not one. Exit status: 2 for a config fault, 1 when a hands-on
check fails (a button never pressed, no camera frame), else 0.

The config's faults are ``firmware.device.config``'s: the very list ``run`` refuses the
file with, so what the doctor passes ``run`` starts with. ``--json`` prints one object
(CONTRACT.md's command line) instead of the lines: ``{"config", "ok", "faults", "notes",
"checks"}``, each check ``{"check", "ok", "said"}``; the exit status is the same, and a
fault also says one line on stderr.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from firmware.commands.cli import EXIT_BAD_INPUT, UsageError, print_json
from firmware.commands.run import DEFAULT_CONFIG

__all__ = ["register", "doctor"]

log = logging.getLogger("firmware.doctor.checks")
Say = Callable[[str], None]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "doctor", help="check the config and the Pi's LEDs, buttons and camera")
    parser.add_argument("--config", type=Path, default=DEFAULT_CONFIG,
                        help=f"device config (TOML; default {DEFAULT_CONFIG})")
    parser.add_argument("--walk-leds", action="store_true",
                        help="light one LED at a time along each track")
    parser.add_argument("--buttons", action="store_true", help="ask for each button in turn")
    parser.add_argument("--camera", action="store_true",
                        help="grab a frame; say its size and the cards' size in pixels")
    parser.add_argument("--all", action="store_true",
                        help="all three, asking before each when run at a terminal")
    parser.add_argument("--step-ms", type=float, default=30.0,
                        help="how long each LED of the walk stays lit (default 30)")
    parser.add_argument("--button-timeout", type=float, default=10.0,
                        help="seconds to wait for each button (default 10)")
    parser.add_argument("--before-start", action="store_true",
                        help="the unit's start check: a fault the board runs through (a store "
                             "it cannot write, served read-only) is said as a note, so the "
                             "board comes up and says it to the players")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object: the faults, the notes and each check")
    parser.set_defaults(handler=doctor)


def doctor(args: argparse.Namespace) -> int:
    from firmware.device import logs

    if args.json:  # stdout holds the one JSON object: no log lines there
        return _doctor(args)
    with logs.attached():
        return _doctor(args)


def _doctor(args: argparse.Namespace) -> int:
    from firmware.doctor.checks import Finding, check

    if args.step_ms < 0 or args.button_timeout <= 0:
        raise UsageError(f"--step-ms must not be negative and --button-timeout must be "
                         f"positive, not {args.step_ms!r} and {args.button_timeout!r}")
    findings = check(args.config)
    if args.before_start:
        findings = [Finding("note", f"{f.text} (the board starts and {f.starts_as})")
                    if f.starts_anyway else f for f in findings]
    faults = [f.text for f in findings if f.level == "fault"]
    report: dict[str, Any] = {"config": str(args.config), "ok": not faults, "faults": faults,
                              "notes": [f.text for f in findings if f.level == "note"],
                              "checks": []}
    if not args.json:
        for finding in findings:
            log.log(logging.ERROR if finding.level == "fault" else logging.WARNING,
                    finding.text)
    if faults:
        why = (f"{len(faults)} fault{'s' if len(faults) > 1 else ''} in {str(args.config)!r} "
               f"or what it asks of this machine")
        if not args.json:
            raise UsageError(f"{why} (listed above)")
        print_json(report)
        sys.stderr.write(f"cribbage-board doctor: {why}: {' '.join(faults[0].split())}"
                         f"{' ...' if len(faults) > 1 else ''}\n")
        return EXIT_BAD_INPUT
    if not args.json:
        log.info(f"config OK: {args.config}")

    steps = [("walk the LEDs", _walk, args.walk_leds), ("ask for each button", _buttons,
                                                        args.buttons),
             ("grab a camera frame", _camera, args.camera)]
    ask = args.all and not args.json and sys.stdin is not None and sys.stdin.isatty()
    failed = 0
    if any(chosen or args.all for _, _, chosen in steps):
        from firmware.device.config import load_device_config

        config = load_device_config(args.config)
        for what, step, chosen in steps:
            if not (chosen or args.all):
                continue
            if ask and input(f"{what}? [Y/n] ").strip().lower().startswith("n"):
                continue
            said: list[str] = []
            ok = step(config, args, said.append if args.json else _say)
            report["checks"].append({"check": what, "ok": ok, "said": said})
            failed += not ok
    if args.json:
        report["ok"] = not failed
        print_json(report)
    return 1 if failed else 0


def _say(line: str) -> None:
    log.info(line)


def _walk(config: Any, args: argparse.Namespace, say: Say) -> bool:
    from firmware.doctor.walk import walk_leds

    strip = config.board.open_strip()
    try:
        walk_leds(strip, config.board.layout, say=say, sleep=time.sleep,
                  step_s=args.step_ms / 1000)
    finally:
        strip.close()
    return True


def _buttons(config: Any, args: argparse.Namespace, say: Say) -> bool:
    from firmware.doctor.walk import ask_buttons
    from hardware.buttons import ButtonPanel

    if "buttons" not in config.configured:
        say("buttons: none configured ([buttons] table): nothing to ask for")
        return True
    panel = ButtonPanel.from_config(config.buttons)
    try:
        answered = ask_buttons(panel, config.buttons.specs(), say=say, clock=time.monotonic,
                               sleep=time.sleep, timeout_s=args.button_timeout)
    finally:
        panel.close()
    return all(answered.values())


def _camera(config: Any, args: argparse.Namespace, say: Say) -> bool:
    from firmware.doctor.walk import measure_camera
    from vision.live.sources import open_source
    from vision.recognise.detection import CameraRecogniser

    if "camera" not in config.configured:
        say("camera: none configured ([camera] table): nothing to grab")
        return True
    camera = config.camera
    deck = None
    if camera.deck is not None:
        from vision.recognise.deck import load_profile

        deck = load_profile(camera.deck)
    source = open_source(camera.source, **camera.options())
    try:
        size = measure_camera(source, CameraRecogniser(deck=deck), say=say)
    finally:
        source.close()
    from firmware.commands.calibrate import view_line  # the phone page's view of the camera

    say(view_line(config) or "the phone page is off ([web] enabled = false): no camera view")
    return size is not None
