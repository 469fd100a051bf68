"""``cribbage-board history [--store PATH] [--json]``: the matches in the device's event store.

Reads the store read-only, so it is safe while the device is running; a damaged
store is reported (exit 2) and left for the device to repair when it starts.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from engine.game import Game
from engine.words import points_words, result_words, scores_words
from firmware.commands.cli import print_json


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "history", help="list the matches in the event store: games won, skunks, match points")
    add_store_option(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=run)


def add_store_option(parser: argparse.ArgumentParser) -> None:
    """``--store PATH`` and ``--config FILE`` for the commands that read the device's store
    (history, stats, review, export), with the same default and words in each: the store
    ``run`` keeps, from the same config ``run`` reads."""
    parser.add_argument("--store", type=Path, default=None,
                        help="the event store (default: the config's [store] path, else "
                             "$STATE_DIRECTORY or the XDG data directory, "
                             "cribbage-board/events.sqlite3)")
    parser.add_argument("--config", type=Path, default=None,
                        help="device config (TOML) whose [store] to read; default: "
                             "/etc/cribbage-board/config.toml if it exists, as run reads")


def store_path(given: Path | None, config: Path | None = None) -> Path:
    """The ``--store`` given, else the store of the config ``run`` reads (``config``, else
    /etc/cribbage-board/config.toml when it exists), else the device's default place."""
    from firmware.commands.run import DEFAULT_CONFIG
    from firmware.device.config import default_store_path, load_device_config

    if given is not None:
        return given
    if config is None and DEFAULT_CONFIG.exists():
        config = DEFAULT_CONFIG
    if config is None:
        return default_store_path()
    return load_device_config(config).store.path


def run(args: argparse.Namespace) -> int:
    from firmware.store.eventstore import EventStore

    path = store_path(args.store, args.config)
    with EventStore.open(path, readonly=True) as store:
        report = {
            "store": str(path),
            "matches": [match.to_json() for match in store.matches()],
            "current": None if store.match is None or not store.lines else
            _current(store.match, len(store.lines), store.game),
        }
    if args.json:
        print_json(report)
    else:
        print(describe(report))
    return 0


def _current(match: int, events: int, game: Game) -> dict[str, Any]:
    """The game in progress: ``match`` stays the match's id, and the game's own ``match``
    block is ``standing``, with what the page's standing adds to it (match point, and what
    the match is played to) after its keys."""
    from firmware.web.snapshot import match_standing

    report = game.to_json()
    standing = match_standing(game)
    block = report.pop("match", None)
    block = {"games": [], "points": standing["points"]} if block is None else block
    block.update((key, standing[key]) for key in ("match_point", "best_of", "first_to"))
    return {"match": match, "events": events, **report, "standing": block}


def describe(report: dict[str, Any]) -> str:
    """The history as a person reads it: one block per match, then the game in progress."""
    lines = [f"store: {report['store']}"]
    if not report["matches"]:
        lines.append("no matches yet")
    for match in report["matches"]:
        games = match["games"]
        lines.append(f"match {match['id']}: {', '.join(match['players'])} "
                     f"({len(games)} game{'s' if len(games) != 1 else ''} finished, "
                     f"{match['events']} events)")
        for number, game in enumerate(games, start=1):
            result = "" if game["result"] == "win" else f" ({result_words(game['result'])})"
            scores = "-".join(str(s) for s in game["scores"])
            lines.append(f"  game {number}: {game['winner']} won{result}, {scores}")
        lines.append(f"  match points: {points_words(match['points'])}")
    current = report["current"]
    if current is not None:
        lines.append(f"current game (match {current['match']}): "
                     f"{scores_words(current['sides'])}; next: {current['next']}")
        lines.append("  " + _standing(current["standing"]))
    return "\n".join(lines)


def _standing(standing: dict[str, Any]) -> str:
    games = len(standing["games"])
    text = (f"match standing: {points_words(standing['points'])} after {games} "
            f"game{'s' if games != 1 else ''}")
    if standing["best_of"]:
        text += f" (best of {standing['best_of']})"
    elif standing["first_to"]:
        text += f" (first to {standing['first_to']} points)"
    if standing.get("winner"):
        text += f"; {standing['winner']} won the match"
    elif standing["match_point"]:
        text += "; match point for " + " and ".join(standing["match_point"])
    return text
