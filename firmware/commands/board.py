"""``cribbage-board board FILE.jsonl -o OUT.png``: draw the pegboard after a stored game.

The picture is what the LED simulator shows after the log's last event, so
it checks a layout (with ``--led-numbers``, each row's LED numbers are in the
margin) as well as a game. ``board --template -o FILE.svg`` instead writes the
1:1 drilling and cutting template of the layout's board (``hardware.template``).
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
    parser.add_argument("log", type=Path, nargs="?",
                        help="event log, one JSON object per line (not with --template)")
    parser.add_argument("-o", "--output", type=Path, required=True,
                        help="picture to write: .png, or .jpg/.jpeg for a JPEG; .svg with "
                             "--template")
    parser.add_argument("--template", action="store_true",
                        help="write the board's 1:1 drilling and cutting template for the LED "
                             "strip instead (SVG in mm: every hole over its LED)")
    parser.add_argument("--pitch", type=float, metavar="MM",
                        help="with --template: the strip's LED pitch in mm (default 16.667, "
                             "a 60 LED/m strip)")
    parser.add_argument("--paper", choices=("a4", "letter", "plotter"), default="plotter",
                        help="with --template: one 1:1 sheet for a plotter (default), or tiled "
                             "onto A4 or Letter pages with page numbers, overlaps and alignment "
                             "marks, written as OUT-p1.svg, OUT-p2.svg, ... (or, for "
                             "-o OUT.html, every page in one file a browser prints at once)")
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


def read_document(path: Path | None) -> dict[str, Any]:
    """The ``--config`` file's tables (none without one); one that cannot be read is a usage
    error naming it."""
    from hardware.config import read_toml

    if path is None:
        return {}
    try:
        return read_toml(path)
    except OSError as exc:
        raise UsageError(f"cannot read config {path}: {exc.strerror or exc}") from None


def chosen_layout(kind: str | None, document: dict[str, Any], configured: Layout, *,
                  sides: int = 0) -> Layout:
    """``--layout`` (``kind``) if given, else the config's ``[board.layout]`` (``configured``)
    if it has one, else per_side; a chosen kind gets as many tracks as the config's layout
    has (a 3-track config drawn as a serpentine is a 3-track serpentine), else its
    ``DEFAULT_TRACKS``, and at least a track per side of the game."""
    from hardware.layout import Layout

    has_layout = "layout" in document.get("board", {})
    if kind is None and has_layout:
        return configured
    kind = kind or "per_side"
    table: dict[str, Any] = {"kind": kind}
    if kind in DEFAULT_TRACKS:
        tracks = configured.tracks if has_layout and not configured.shared \
            else DEFAULT_TRACKS[kind]
        table["tracks"] = max(tracks, sides)
    return Layout.from_config(table)


def run(args: argparse.Namespace) -> int:
    if args.template:
        return run_template(args)
    if args.log is None:
        raise UsageError("name the game's event log (or give --template for the drilling "
                         "template)")
    if args.pitch is not None or args.paper != "plotter":
        raise UsageError("--pitch and --paper go with --template")
    if args.output.suffix.lower() not in PICTURE_SUFFIXES:
        raise UsageError(f"cannot write {str(args.output)!r}: name a .png, .jpg or .jpeg file")
    from firmware.commands.gamelog import load_game
    from firmware.store.files import replace_file, require_folder
    from hardware.config import BoardConfig
    from hardware.state import board_state_from_game
    from hardware.strips.simulator import SimulatorStrip

    require_folder(args.output)
    document = read_document(args.config)
    config = BoardConfig.from_config(document)
    game = load_game(args.log)
    if not game.sides:
        raise UsageError(f"{args.log} has no new_game event: no sides to draw")
    state = board_state_from_game(game)

    layout = chosen_layout(args.layout, document, config.layout, sides=len(state.sides))

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


def run_template(args: argparse.Namespace) -> int:
    """``board --template -o FILE.svg``: the layout's board as a 1:1 template."""
    if args.log is not None:
        raise UsageError("--template draws the board itself: give no event log")
    suffix = args.output.suffix.lower()
    if suffix == ".html" and args.paper == "plotter":
        raise UsageError(f"cannot write {str(args.output)!r}: a plotter sheet is an .svg file; "
                         "an .html file holds the pages of --paper a4 or --paper letter")
    if suffix not in (".svg", ".html"):
        raise UsageError(f"cannot write {str(args.output)!r}: the template is an .svg file "
                         "(or, with --paper a4 or --paper letter, an .html file holding every "
                         "page)")
    from firmware.store.files import replace_file, require_folder
    from hardware.config import BoardConfig
    from hardware.template import STRIP_PITCH_MM, make_template
    from hardware.template_pages import PAPER_NAMES, printable_html, tile

    require_folder(args.output)  # every page goes beside it
    document = read_document(args.config)
    layout = chosen_layout(args.layout, document, BoardConfig.from_config(document).layout)
    try:
        pitch = STRIP_PITCH_MM if args.pitch is None else args.pitch
        template = make_template(layout, pitch_mm=pitch)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    pages = tile(template, args.paper)
    if suffix == ".html":
        files = [args.output] * len(pages)
        replace_file(args.output, printable_html(pages).encode())
    else:
        files = [args.output] if args.paper == "plotter" else [
            args.output.with_name(f"{args.output.stem}-p{page.number}.svg") for page in pages]
        for path, page in zip(files, pages, strict=True):
            replace_file(path, page.svg.encode())
    report = {
        "svg": str(args.output),
        "layout": {"kind": layout.kind, **layout.options, "n_leds": layout.n_leds},
        "holes": len(template.holes),
        "pitch_mm": round(template.pitch_mm, 3),
        "width_mm": round(template.width_mm, 1),
        "height_mm": round(template.height_mm, 1),
        "pieces": [[p.first_led, p.last_led] for p in template.pieces],
        "controls": [{"name": c.name, "x_mm": round(c.x, 1), "y_mm": round(c.y, 1),
                      "drill_mm": c.diameter_mm} for c in template.controls],
        "paper": args.paper,
        "pages": [{"file": str(path), "row": page.row, "column": page.column}
                  for path, page in zip(files, pages, strict=True)],
    }
    if args.json:
        print_json(report)
        return 0
    board = (f"{report['holes']} holes at {report['pitch_mm']} mm on a "
             f"{report['width_mm']:.0f} x {report['height_mm']:.0f} mm board, the strip cut "
             f"into {len(template.pieces)} pieces, the buttons' holes at its left end")
    if args.paper == "plotter":
        print(f"wrote {args.output}: {board}; print it at 100 % on a plotter (or give "
              "--paper a4 or --paper letter for home printer pages)")
    else:
        where = (f"all in {args.output}" if suffix == ".html"
                 else f"{files[0]} to {files[-1]}")
        print(f"wrote {len(pages)} {PAPER_NAMES[args.paper]} pages, {where}: {board}; print "
              "each at 100 % (actual size), trim the grey frames where pages meet and tape "
              "them with the red marks on each other")
    return 0
