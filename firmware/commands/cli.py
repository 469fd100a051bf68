"""The ``cribbage-board`` console script: one subcommand per job, each a module of
``firmware.commands`` with a ``register(subparsers)``.

Bad input exits with status 2 and one line on stderr (CONTRACT.md); a handler
signals that by raising ``UsageError`` or any ``ValueError`` (every engine error
is one), so no handler prints half an answer and then fails.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import pkgutil
import sys
import textwrap
from collections.abc import Sequence
from typing import Any

import firmware.commands

__all__ = ["main", "UsageError", "print_json"]

EXIT_BAD_INPUT = 2


class UsageError(ValueError):
    """Bad input from the command line: exit 2 with this message."""


def print_json(obj: Any) -> None:
    """Prints exactly one JSON object on stdout, as every ``--json`` promises."""
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Keeps a path like /etc/cribbage-board/config.toml whole when a help line wraps."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)
    def error(self, message: str) -> None:  # type: ignore[override]
        # argparse prints usage over several lines; the contract wants one line.
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(EXIT_BAD_INPUT)


DESCRIPTION = """\
Keeps score for real cribbage games: a camera reads the cards laid, the rules
engine counts the pegging and the show, and an LED pegboard (or its simulator)
shows the pegs. The commands below also score hands, replay stored games and
teach the card reader a deck."""

EXAMPLES = """examples:
  cribbage-board demo                          a whole simulated game on this computer
  cribbage-board demo --web 8080               the same, watched on the phone page
  cribbage-board score 5H 5C 5S JD --starter 5D
  cribbage-board replay game.jsonl --json
  cribbage-board board game.jsonl -o board.png
  cribbage-board run --config /etc/cribbage-board/config.toml
  cribbage-board history

Each command has its own --help. Bad input exits with status 2 and one line on stderr."""


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("cribbage-board")
    except PackageNotFoundError:
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="cribbage-board", description=DESCRIPTION, epilog=EXAMPLES)
    parser.add_argument("--version", action="version", version=f"cribbage-board {version()}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser,
                                metavar="COMMAND", title="commands")
    for info in sorted(pkgutil.iter_modules(firmware.commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"firmware.commands.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(sub)
    # A command's own --help starts with the line the list above gives it.
    for action in sub._choices_actions:
        command = sub.choices[action.dest]
        if command.description is None and action.help:
            command.description = action.help[0].upper() + action.help[1:] + "."
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code = int(args.handler(args) or 0)
        sys.stdout.flush()  # here, where a reader gone away is caught, not at exit
        return code
    except BrokenPipeError:
        # The reader stopped reading (`advise ... | head -1`): what it wanted it has. As
        # Python's signal docs advise, stdout goes to devnull so the flush at exit is quiet.
        _stdout_to_devnull()
        return 0
    except (UsageError, ValueError, OSError) as exc:
        message = " ".join(str(exc).split()) or type(exc).__name__
        log_line = getattr(exc, "event", None)
        if getattr(args, "json", False) and isinstance(log_line, int):
            # A rejected event log: the JSON names the line, as CONTRACT.md asks of replay.
            print_json({"error": {"event": log_line, "rule": getattr(exc, "rule", None),
                                  "message": message}})
        if isinstance(log_line, int) and getattr(args, "log", None) is not None:
            message = f"{args.log}: {message}"
        sys.stderr.write(f"cribbage-board {args.command}: {message}\n")
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130


def _stdout_to_devnull() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real stdout (a test's capture): nothing to flush
        pass


if __name__ == "__main__":
    raise SystemExit(main())
