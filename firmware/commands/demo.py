"""``cribbage-board demo``: a whole game played through the device's loop on a laptop.

``engine.simulate`` deals and plays a legal random game (the truth). By
default (``--camera vision``) a drawn table films it: ``firmware.demo.camera_table``
scripts the cut and every deal with the game's true cards, ``vision.drawn.scene``
draws the frames through a camera model (``vision.drawn.camera_model``: by default
a Camera Module 3 1.0 m over the table at 2304x1296, the example config's ``[camera]
size``, cards 110x154 px; ``--resolution 1280x720`` for the low-resolution case, ``--camera
ideal`` for the crisp drawing), and the real ``DeviceLoop`` reads them as ``run`` does
(``vision.live.reading``: only where the table changed) with the real recogniser and
``CardTracker``, then the real ``TableFlow``, event store,
renderer and LED simulator. When the board misses a card the demo's players
straighten it and, if need be, type it in on the phone page's inputs, and
the report counts how many cards the camera read and how many went in by
hand. The demo prints the count as the board would speak it and writes
pictures of the board at a few moments (``--frames DIR``: camera frames too).

``--camera scripted`` skips the pictures: ``table_script`` turns the log into
what the tracker would report at a real table and a ``ScriptedTracker``
hands those facts to the loop, a quick way to try the flow.

With ``--web PORT`` the phone page serves the game as it is played (a step
every ``--step-seconds``), and stays up after it until Ctrl-C, so the
controls can be tried on a laptop. With a filmed table (``--camera vision`` or ``ideal``)
the page shows the camera's eye too, made as ``run`` makes it (``firmware.web.camera_eye``'s
``CameraEye`` on its own thread, handed each frame read by the loop's
``firmware.device.eye_snapshot.EyeFeed``); its address (``/eye``) is printed with the PIN
(``--pin``, else a new one), which the eye needs.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from engine.words import result_words, scores_words
from firmware.commands.cli import UsageError, print_json
from firmware.demo.scripted_table import ScriptedTable, SteppedClock

__all__ = ["register", "run", "PLAYERS"]

PLAYERS = ("Ann", "Bob", "Cat", "Dan")


def _vision_table(truth: Sequence[Mapping[str, Any]], *, clock: SteppedClock,
                  rng: random.Random, seed: int, frames: Path | None, args: argparse.Namespace
                  ) -> Any:
    """``--camera vision``: the game filmed at a drawn table through a camera model and read
    by the recogniser; ``--camera ideal``: the crisp drawing, no camera model."""
    from firmware.demo.camera_table import VisionTable, demo_scene

    name = "ideal" if args.camera == "ideal" else args.camera_model
    settings = demo_scene(name, size=_resolution(args.resolution), height=args.camera_height)
    return VisionTable(truth, clock=clock, rng=rng, scene_rng=np.random.default_rng(seed),
                       frames_dir=frames, settings=settings)


def _resolution(text: str) -> tuple[int, int]:
    """``WxH`` (e.g. 1280x720) as a frame size."""
    from vision.recognise.frames import frame_size

    try:
        w, h = frame_size(text)
    except ValueError:
        raise UsageError(f"--resolution must be WIDTHxHEIGHT, not {text!r}") from None
    if not (160 <= w <= 4608 and 120 <= h <= 2592):
        raise UsageError(f"--resolution must be 160x120 to 4608x2592, not {text!r}")
    return (w, h)


# -- the command -------------------------------------------------------------------------------


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "demo", help="play a whole simulated game through the device loop and the LED simulator")
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4),
                        help="number of players (4: four singles, or two sides with "
                             "--partnership)")
    parser.add_argument("--partnership", action="store_true",
                        help="with --players 4, play as partners: 1st and 3rd against 2nd "
                             "and 4th")
    parser.add_argument("--seed", type=int, default=1, help="random seed for the cards")
    parser.add_argument("--out", type=Path, default=Path("demo-out"),
                        help="folder for the board pictures (default ./demo-out)")
    parser.add_argument("--store", type=Path,
                        help="event store to write (default: a temporary file)")
    parser.add_argument("--target", type=int, choices=(61, 121), default=121)
    parser.add_argument("--camera", choices=("vision", "ideal", "scripted"), default="vision",
                        help="vision (default): film a drawn table through a camera model (a "
                             "Camera Module 3) and read it with the card recogniser; ideal: "
                             "the crisp drawing with large cards; scripted: hand the loop the "
                             "tracker's facts (fast)")
    parser.add_argument("--camera-model", choices=("camera-module-3", "usb-webcam"),
                        default="camera-module-3",
                        help="with --camera vision, the camera filming the drawn table: a "
                             "Raspberry Pi Camera Module 3 or a USB webcam sending JPEG")
    parser.add_argument("--resolution", default="2304x1296", metavar="WxH",
                        help="with --camera vision, the camera's frame size (default 2304x1296, "
                             "the example config's [camera] size; 1280x720 for the "
                             "low-resolution case)")
    parser.add_argument("--camera-height", type=float, default=1.0, metavar="M",
                        help="with --camera vision, the camera's height over the table in "
                             "metres (default 1.0: cards about 110x154 px at 2304x1296)")
    parser.add_argument("--frames", type=Path, metavar="DIR",
                        help="with --camera vision, keep camera frames with the cards found "
                             "outlined: each deal's crib and every frame a card was missed in")
    parser.add_argument("--max-seconds", type=float,
                        help="stop early after this much wall time (the game may be unfinished)")
    parser.add_argument("--quiet", action="store_true",
                        help="print only the result: the winner and the final scores")
    parser.add_argument("--json", action="store_true", help="print one JSON object at the end")
    parser.add_argument("--web", type=int, metavar="PORT",
                        help="serve the phone page on this port while playing, and after the "
                             "game until Ctrl-C")
    parser.add_argument("--host", default="127.0.0.1",
                        help="with --web, the address to listen on (default 127.0.0.1: this "
                             "computer only; 0.0.0.0 lets phones on the network in)")
    parser.add_argument("--pin", metavar="DIGITS",
                        help="with --web, the PIN for changes and the camera's eye (4 to 8 "
                             "digits; default: a new one, printed)")
    parser.add_argument("--club", type=Path, metavar="CONFIG",
                        help="publish the game to the club broker of this config file's [club] "
                             "table as it is played (its other tables are not used)")
    parser.add_argument("--step-seconds", type=float,
                        help="real seconds between table moments (default 0, or 0.5 with --web)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import time

    from engine.simulate import simulate_game
    from firmware.device.loop import DeviceLoop
    from firmware.store.eventstore import EventStore
    from firmware.store.files import replace_file
    from firmware.table.flow import ButtonAction, Feedback, TableFlow
    from firmware.table.words import next_words
    from firmware.web.hub import Hub
    from hardware.keyboard import keyboard_help, keyboard_if_tty
    from hardware.layout import per_side_tracks
    from hardware.render import Renderer
    from hardware.state import board_state_from_game
    from hardware.strips.simulator import SimulatorStrip

    players = PLAYERS[:args.players]
    rules: dict[str, Any] = {"target": args.target}
    if args.partnership:
        if args.players != 4:
            raise UsageError(f"--partnership needs --players 4, not {args.players}")
        rules["partnership"] = True
    if args.host != "127.0.0.1" and args.web is None:
        raise UsageError("--host is where the phone page listens: give --web PORT too")
    if args.pin is not None:
        from firmware.web.pins import is_pin

        if args.web is None:
            raise UsageError("--pin guards the phone page: give --web PORT too")
        if not is_pin(args.pin):
            raise UsageError(f"--pin must be 4 to 8 digits, not {args.pin!r}")
    if args.web is not None:
        from firmware.web.address import check_host

        check_host(args.host)  # a bad address is refused before the game starts
    if args.frames is not None and args.camera == "scripted":
        raise UsageError("--frames needs --camera vision or ideal")
    _resolution(args.resolution)
    if not 0.2 <= args.camera_height <= 5:
        raise UsageError(f"--camera-height must be 0.2 to 5 metres, not {args.camera_height!r}")
    if args.web is not None and not 0 <= args.web <= 65535:
        raise UsageError(f"--web must be a port number, not {args.web!r}")
    pause = args.step_seconds if args.step_seconds is not None else (
        0.5 if args.web is not None else 0.0)
    if pause < 0:
        raise UsageError(f"--step-seconds must not be negative, not {pause!r}")
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create --out {str(args.out)!r}: {exc.strerror or exc}") from None
    rng = random.Random(args.seed)
    events = simulate_game(rng, players, rules)
    clock = SteppedClock()
    table: Any = (ScriptedTable(events, clock=clock, rng=rng) if args.camera == "scripted" else
                  _vision_table(events, clock=clock, rng=rng, seed=args.seed,
                                frames=args.frames, args=args))

    said: list[str] = []
    rejected: list[str] = []

    def tell(item: Feedback) -> None:
        if item.kind == "flash":
            rejected.append(item.text)
        if item.kind in ("say", "celebrate", "flash", "ask"):
            said.append(item.text)
            if not args.quiet and not args.json:
                print(item.text, flush=True)

    sides = 2 if args.partnership else args.players
    layout = per_side_tracks(max(sides, 2))
    strip = SimulatorStrip(layout)
    renderer = Renderer(layout)
    keyboard = keyboard_if_tty(None if args.json or args.quiet else sys.stdin, clock=clock)
    if args.camera != "scripted" and not args.json and not args.quiet:
        lens = table.camera_model()
        print(f"filming a drawn table with {lens['name']} at {lens['resolution'][0]}x"
              f"{lens['resolution'][1]} (cards {lens['card_px'][0]}x{lens['card_px'][1]} px), "
              "read as `run` reads: only where the table changed", flush=True)
    with tempfile.TemporaryDirectory(prefix="cribbage-demo-") as scratch, keyboard as keys:
        if keys is not None:
            print(keyboard_help(), flush=True)
        store_path = args.store or Path(scratch) / "events.sqlite3"
        store = EventStore.open(store_path, clock=clock)
        if store.game.phase not in ("new_game", "over") and store.lines:
            store.close()
            raise UsageError(f"--store {str(store_path)!r} holds a game in progress; "
                             "give the demo a new file")
        hub = Hub() if args.web is not None else None
        publisher = _club(args.club, store_path, hub)
        eye = _eye(hub, args.camera, pause)
        flow = TableFlow(players, rules)
        loop = DeviceLoop(store=store, flow=flow, strip=strip, renderer=renderer, clock=clock,
                          source=table.camera, recognise=table.recognise, tracker=table.tracker,
                          reader=getattr(table, "reader", None),  # run's reading path
                          rng=random.Random(args.seed), on_feedback=tell, hub=hub, panel=keys,
                          eye=eye)
        if store.game.phase == "over":
            loop.feed([ButtonAction("new_game", at=clock())])
        loop.start()
        page = (_serve(hub, args.host, args.web, quiet=args.json or args.quiet,
                       store_path=Path(store_path), pin=args.pin, eye=eye)
                if hub is not None else None)
        pictures: list[str] = []

        def picture(name: str) -> None:
            loop.settle()  # the strip caught up with the store: the pegs are the legend's
            path = args.out / name
            # As `board` writes its pictures: replaced whole, the umask's permissions (0644).
            replace_file(path, strip.picture_bytes(board_state_from_game(store.game),
                                                   title=f"seed {args.seed}: "
                                                         f"{next_words(store.game)}"))
            pictures.append(str(path))

        began = time.monotonic()
        deals = 0
        halfway = False
        for _ in table.play(loop):
            if pause:
                time.sleep(pause)
            if store.lines and '"type": "crib"' in store.lines[-1] and loop.turns:
                deals_now = sum('"type": "crib"' in line for line in store.lines)
                if deals_now != deals:
                    deals = deals_now
                    if not args.quiet and not args.json:
                        print(f"after deal {deals}: {scores_words(store.game.sides)}",
                              flush=True)
                    if deals == 1:
                        picture("01-first-deal.png")
                    elif not halfway and max(s.score for s in store.game.sides) >= \
                            args.target // 2:
                        halfway = True
                        picture(f"02-halfway-deal-{deals}.png")
            if args.max_seconds is not None and time.monotonic() - began > args.max_seconds:
                break
        picture("03-final.png")
        if page is not None:
            try:
                while args.max_seconds is None or time.monotonic() - began < args.max_seconds:
                    loop.step()  # keeps answering the page: undo, new games, cards by hand
                    time.sleep(0.03)
            except KeyboardInterrupt:
                pass
            finally:
                page.stop()
        if eye is not None:
            eye.close()
        game = store.game
        finished = game.phase == "over"
        report = table.report()
        club = None
        if publisher is not None:
            if not publisher.flush(store.last_id, timeout_s=30.0):
                # stderr: --json prints only its one object on stdout
                print(f"club: the broker has not acknowledged every event "
                      f"({publisher.sent} of {store.last_id})", file=sys.stderr, flush=True)
            publisher.stop()
            club = {"board": publisher.config.board, "sent": publisher.sent}
        result = {"players": list(players), "seed": args.seed, "finished": finished,
                  "winner": game.winner, "result": game.result,
                  "sides": [s.to_json() for s in game.sides], "events": len(store.lines),
                  "rejected": rejected,
                  "pictures": pictures,
                  "camera": table.kind, "vision": table.vision, **report}
        if club is not None:
            result["club"] = club
        store.close()
    if args.json:
        print_json(result)
    elif args.quiet:
        print(result_line(game))
    else:
        if not finished:  # a finished game was announced by the table flow already
            print(result_line(game))
        if report:
            lens = report["camera_model"]
            print(f"camera ({lens['name']} at {lens['resolution'][0]}x{lens['resolution'][1]}, "
                  f"cards {lens['card_px'][0]}x{lens['card_px'][1]} px) "
                  f"read {report['cards_read']} cards, {report['cards_by_hand']} typed "
                  f"in by hand ({report['relaid']} straightened, {report['misreads']} misread); "
                  f"{report['frames']} frames in {report['seconds']} s ({report['fps']} fps)")
        print(f"board pictures: {', '.join(pictures)}")
    return 0 if finished or args.max_seconds is not None else 1


def result_line(game: Any) -> str:
    """The demo's result in one line: who won and how, with the scores."""
    scores = scores_words(game.sides)
    if game.winner is None:
        return f"game unfinished: {scores}"
    how = "" if game.result == "win" else f" with a {result_words(game.result)}"
    return f"{game.winner} wins{how}: {scores}"


def _club(path: Path | None, store_path: Path, hub: Any) -> Any:
    """``--club CONFIG``: publishes the demo's store as a board with that ``[club]`` would,
    woken by the page's hub (``--web``) as the board's is."""
    if path is None:
        return None
    from firmware.club.publisher import start_publisher
    from firmware.device.config import load_device_config

    club = load_device_config(path).club
    if club is None:
        raise UsageError(f"--club {str(path)!r} has no [club] table")
    return start_publisher(store_path, club, hub=hub)


def _eye(hub: Any, camera: str, pause: float) -> Any:
    """The camera's eye for the page (``--web``) of a filmed table, started as ``run`` starts
    it for a board with a camera; None without a page or with ``--camera scripted`` (no
    frames to show). It draws a table that has stayed the same between two of its looks,
    so it looks twice in each ``pause`` between the demo's moments (a real table stays
    still for seconds; ``run``'s eye looks once a second)."""
    if hub is None or camera == "scripted":
        return None
    from firmware.web.camera_eye import CameraEye

    eye = CameraEye(interval_s=min(1.0, max(0.1, pause / 2)))
    eye.start()
    return eye


def _serve(hub: Any, host: str, port: int, *, quiet: bool, store_path: Path,
           pin: str | None = None, eye: Any = None) -> Any:
    from firmware.web.camera_eye import eye_links
    from firmware.web.server import new_pin, serve_page

    pin = pin or new_pin()
    page = serve_page(hub, host=host, port=port, pin=pin, store_path=store_path, eye=eye)
    if not quiet:
        print(f"phone page: {' or '.join(page.urls())} (PIN {pin} for changes)", flush=True)
        if eye is not None:
            print(f"camera's eye: {' or '.join(eye_links(page.host, page.port))} "
                  f"(the same PIN)", flush=True)
    return page
