"""``cribbage-board replay FILE.jsonl [--json]``: fold a game's event log through the engine."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from firmware.cli import EXIT_BAD_INPUT, UsageError, print_json


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "replay", help="score a stored game's event log (JSON Lines) and print the result"
    )
    parser.add_argument("log", type=Path, help="event log, one JSON object per line")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from engine.game import Game, LogError

    try:
        text = args.log.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read {args.log}: {exc.strerror or exc}") from None
    try:
        game = Game.replay(text.splitlines())
    except LogError as exc:
        if args.json:
            print_json({"error": {"event": exc.event, "rule": exc.rule, "message": str(exc)}})
        sys.stderr.write(f"cribbage-board replay: {args.log}: {exc}\n")
        return EXIT_BAD_INPUT
    if args.json:
        print_json(game.to_json())
    else:
        print(describe(game.to_json()))
    return 0


def describe(report: dict[str, Any]) -> str:
    """The replay as a person reads it: each score, then the sides and what comes next."""
    lines = [
        f"line {p['event'] + 1:>4}  {p['side']:<12} +{p['points']:<3} "
        f"{p.get('words') or p['reason']}"
        for p in report["points"]
    ]
    lines.append("")
    for side in report["sides"]:
        front, back = side["pegs"]
        result = f"  ({side['result']})" if side.get("result") not in (None, "win") else ""
        lines.append(f"{side['name']:<12} {side['score']:>3}  pegs {front}/{back}{result}")
    if report["winner"] is not None:
        lines.append(f"winner: {report['winner']} ({report['result']})")
    if "match" in report:
        points = ", ".join(f"{name} {n}" for name, n in report["match"]["points"].items())
        lines.append(f"match: {len(report['match']['games'])} games finished; {points}")
    lines.append(f"next: {report['next']}")
    return "\n".join(lines)
