"""``cribbage-board board FILE.jsonl -o OUT.png``: draw the pegboard after a stored game.

The picture is what the LED simulator shows after the log's last event, so
it checks a layout (with ``--led-numbers``, each row's LED numbers are in the
margin) as well as a game.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.words import scores_words
from firmware.commands.cli import UsageError, print_json

if TYPE_CHECKING:
    from engine.game import Game
    from hardware.layout import Layout

LAYOUT_KINDS = ("per_side", "shared", "serpentine")
LAYOUT_WORDS = {"per_side": "a track per side", "shared": "one shared track",
                "serpentine": "a serpentine board"}
PICTURE_SUFFIXES = (".png", ".jpg", ".jpeg")
# Tracks a layout gets when neither the config nor the game asks for more:
# the common 3-track board, and a 2-track wooden-style serpentine.
DEFAULT_TRACKS = {"per_side": 3, "serpentine": 2}


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "board", help="draw the LED pegboard after a stored game's last event, as a picture"
    )
    parser.add_argument("log", type=Path, help="event log, one JSON object per line")
    parser.add_argument("-o", "--output", type=Path, required=True,
                        help="picture to write: .png, or .jpg/.jpeg for a JPEG")
    parser.add_argument(
        "--layout",
        choices=LAYOUT_KINDS,
        help="LED layout (default: the config's [board.layout], else per_side)",
    )
    parser.add_argument("--config", type=Path, help="TOML config file with a [board] table")
    parser.add_argument("--terminal", action="store_true", help="also print the board as text")
    parser.add_argument("--led-numbers", action="store_true",
                        help="write each row's first and last LED index in the margins "
                             "(for checking the wiring)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=run)


def board_title(name: str, game: Game, layout: Layout) -> str:
    """The picture's heading, in the players' words: the scores and what comes next."""
    return (f"{name}: {scores_words(game.sides)}; {game.next} "
            f"({LAYOUT_WORDS[layout.kind]}, {layout.n_leds} LEDs)")


def run(args: argparse.Namespace) -> int:
    if args.output.suffix.lower() not in PICTURE_SUFFIXES:
        raise UsageError(f"cannot write {str(args.output)!r}: name a .png, .jpg or .jpeg file")
    from firmware.commands.gamelog import load_game
    from firmware.store.files import replace_file
    from hardware.config import BoardConfig, read_toml
    from hardware.layout import Layout
    from hardware.state import board_state_from_game
    from hardware.strips.simulator import SimulatorStrip

    document: dict[str, Any] = {}
    if args.config is not None:
        try:
            document = read_toml(args.config)
        except OSError as exc:
            raise UsageError(f"cannot read config {args.config}: {exc.strerror or exc}") from None
    config = BoardConfig.from_config(document)
    game = load_game(args.log)
    if not game.sides:
        raise UsageError(f"{args.log} has no new_game event: no sides to draw")
    state = board_state_from_game(game)

    layout = config.layout
    configured = "layout" in document.get("board", {})
    if args.layout is not None or not configured:
        kind = args.layout or "per_side"
        table: dict[str, Any] = {"kind": kind}
        if kind in DEFAULT_TRACKS:
            table["tracks"] = max(DEFAULT_TRACKS[kind], len(state.sides))
        layout = Layout.from_config(table)

    from dataclasses import replace

    renderer = replace(config.renderer(), layout=layout)
    simulator = SimulatorStrip(layout)
    simulator.show(renderer(state))
    title = board_title(args.log.name, game, layout)
    # Through replace_file: never over a FIFO or a device, the umask kept, on disk once said.
    replace_file(args.output, simulator.picture_bytes(
        state, jpeg=args.output.suffix.lower() != ".png", palette=config.palette, title=title,
        led_numbers=args.led_numbers))

    if args.json:
        print_json(
            {
                "png": str(args.output),
                "layout": {"kind": layout.kind, **layout.options, "n_leds": layout.n_leds},
                "lit": int(simulator.frame.any(axis=1).sum()),
                "sides": [
                    {"name": s.name, "pegs": [s.front, s.back], "track": layout.track_for_side(i)}
                    for i, s in enumerate(state.sides)
                ],
                "winner": game.winner,
            }
        )
    else:
        if args.terminal:
            print(simulator.to_terminal(colour=sys.stdout.isatty()))
        print(f"wrote {args.output}")
    return 0
