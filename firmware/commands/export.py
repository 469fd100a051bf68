"""``cribbage-board export [--match ID] -o FILE.jsonl``: a stored match as a game log.

Writes CONTRACT.md's JSON Lines event log of one match from the device's store
(read-only, so safe while the device is running), which ``replay`` and ``board``
read. ``-o -`` writes it to stdout.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from firmware.commands.cli import UsageError, print_json
from firmware.commands.history import add_store_option, store_path


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "export", help="write a stored match as a JSON Lines game log (for replay and board)",
        epilog="example: cribbage-board export --match 3 -o match3.jsonl && "
               "cribbage-board replay match3.jsonl")
    parser.add_argument("--match", type=int, default=None, metavar="ID",
                        help="the match id (`history` lists them; default: the current one)")
    parser.add_argument("-o", "--output", type=Path, required=True, metavar="FILE",
                        help="the .jsonl file to write (- for stdout); replaced whole")
    add_store_option(parser)
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object saying what was written")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from firmware.store.export import read_export
    from firmware.store.files import replace_file, require_folder

    exported = read_export(store_path(args.store, args.config), args.match)
    to_stdout = str(args.output) == "-"
    if to_stdout:
        if args.json:
            raise UsageError("--json describes a file written; with -o - the log is the output")
        sys.stdout.write(exported.text)
        return 0
    require_folder(args.output)
    # Through replace_file: never over a FIFO or a device, the umask kept, on disk once said.
    replace_file(args.output, exported.text.encode("utf-8"))
    if args.json:
        print_json({"file": str(args.output), "match": exported.match,
                    "players": list(exported.players), "events": exported.events})
    else:
        print(f"wrote {args.output}: match {exported.match} "
              f"({', '.join(exported.players)}), {exported.events} events")
    return 0
