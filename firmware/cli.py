"""The ``cribbage-board`` console script.

Bad input exits with status 2 and one line on stderr (CONTRACT.md); a handler
signals that by raising ``UsageError`` or any ``ValueError`` (every engine error
is one), so no handler prints half an answer and then fails.
"""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import sys
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


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        # argparse prints usage over several lines; the contract wants one line.
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(EXIT_BAD_INPUT)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="cribbage-board", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for info in sorted(pkgutil.iter_modules(firmware.commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"firmware.commands.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
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


if __name__ == "__main__":
    raise SystemExit(main())
