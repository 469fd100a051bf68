"""``cribbage-board score``: counts one show (a hand or the crib with the starter)."""

from __future__ import annotations

import argparse
from typing import Any

from engine.cards import Card, format_cards, parse_cards
from engine.show import score_show
from firmware.commands.cli import UsageError, print_json


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "score",
        help="count a hand or the crib with the starter",
        description="Counts the show of four cards and the starter, itemised.",
    )
    # nargs="+" so a wrong count gets the engine's message, which quotes the cards.
    parser.add_argument("cards", nargs="+", metavar="CARD", help="the four hand or crib cards")
    parser.add_argument("--starter", required=True, metavar="CARD", action=_Once,
                        help="the cut card")
    parser.add_argument("--crib", action="store_true", help="count as the crib (5-card flush)")
    parser.add_argument(
        "--crib-four-flush",
        action="store_true",
        help="house rule: with --crib, four crib cards of one suit score a flush of four",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.crib_four_flush and not args.crib:
        raise UsageError("--crib-four-flush is a crib rule: give --crib too, or leave it out "
                         "for a hand")
    hand = parse_cards(args.cards)
    starter = Card.parse(args.starter)
    score = score_show(hand, starter, crib=args.crib, crib_four_flush=args.crib_four_flush)
    if args.json:
        print_json(score.to_json())
        return 0
    lines = [f"{'crib' if args.crib else 'hand'}: {format_cards(hand)} | {starter}"]
    lines += [
        f"  {item.words():<20} {format_cards(item.cards):<16} {item.points:>2}"
        for item in score.items
    ]
    lines.append(score.words())
    nineteen = ' (a "nineteen" hand)' if score.total == 0 else ""
    lines.append(f"total {score.total}{nineteen}")
    print("\n".join(lines))
    return 0


class _Once(argparse.Action):
    """Stores an option that may be given once: a second ``--starter`` is an error, not the
    one that silently counts."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        before = getattr(namespace, self.dest, None)
        if before is not None:
            parser.error(f"{option_string} given twice ({before!r} and {values!r}): "
                         f"a show has one starter")
        setattr(namespace, self.dest, values)
