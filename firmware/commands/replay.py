"""``cribbage-board replay FILE.jsonl [--json]``: fold a game's event log through the engine."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from engine.words import result_words
from firmware.commands.cli import print_json


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "replay", help="score a stored game's event log (JSON Lines) and print the result"
    )
    parser.add_argument("log", type=Path, help="event log, one JSON object per line")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from firmware.commands.gamelog import load_game

    game = load_game(args.log)
    if args.json:
        print_json(game.to_json())
    else:
        print(describe(game.to_json()))
    return 0


def describe(report: dict[str, Any]) -> str:
    """The replay as a person reads it: each score, then the sides and what comes next."""
    lines = [
        f"line {p['event'] + 1:>4}  {p['side']:<12} {p['points']:<+4} "
        f"{p.get('words') or p['reason']}"
        for p in report["points"]
    ]
    lines.append("")
    for side in report["sides"]:
        front, back = side["pegs"]
        result = (f"  ({result_words(side['result'])})"
                  if side.get("result") not in (None, "win") else "")
        lines.append(f"{side['name']:<12} {side['score']:>3}  pegs {front}/{back}{result}")
    if report["winner"] is not None:
        lines.append(f"winner: {report['winner']} ({result_words(report['result'])})")
    if "match" in report:
        points = ", ".join(f"{name} {n}" for name, n in report["match"]["points"].items())
        lines.append(f"match: {len(report['match']['games'])} games finished; {points}"
                     + (f"; {report['match']['winner']} won the match"
                        if report["match"].get("winner") else ""))
    lines.append(f"next: {report['next']}")
    return "\n".join(lines)
