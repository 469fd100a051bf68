"""``cribbage-board advise``: ranks every discard of a dealt hand by exact expected points."""

from __future__ import annotations

import argparse
from typing import Any

from engine.advise import rank_discards
from engine.cards import format_cards, parse_cards
from firmware.commands.cli import print_json


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "advise",
        help="rank every discard of a dealt hand by expected points",
        description=(
            "Ranks every way to throw to the crib by the kept hand's expected show points "
            "over every starter, plus (dealer) or minus (pone) the crib's expected points "
            "over every way the unseen cards can fill it. Exact, not sampled."
        ),
        epilog="example: cribbage-board advise 5H 5C 5S JD QH 2C --pone",
    )
    parser.add_argument("cards", nargs="+", metavar="CARD",
                        help="the dealt hand: 6 cards for 2 players, 5 for 3 or 4")
    seat = parser.add_mutually_exclusive_group(required=True)
    seat.add_argument("--dealer", action="store_true", help="the crib is yours")
    seat.add_argument("--pone", action="store_true", help="the crib is your opponent's")
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=2,
                        help="players at the table (default 2)")
    parser.add_argument("--crib-four-flush", action="store_true",
                        help="house rule: four crib cards of one suit score a flush of four")
    parser.add_argument("--top", type=int, default=None, metavar="N",
                        help="print only the N best discards (text output)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    dealt = parse_cards(args.cards)
    options = rank_discards(dealt, dealer=args.dealer, players=args.players,
                            crib_four_flush=args.crib_four_flush)
    seat = "dealer" if args.dealer else "pone"
    if args.json:
        print_json({"players": args.players, "seat": seat,
                    "options": [option.to_json() for option in options]})
        return 0
    if args.top is not None and args.top < 1:
        raise ValueError(f"--top must be 1 or more, got {args.top}")
    crib_sign = "+" if args.dealer else "-"
    lines = [f"{format_cards(dealt)}: {seat}, {args.players} players; "
             f"net = hand {crib_sign} crib, each averaged over every unseen card",
             f"  {'keep':<14} {'throw':<8} {'hand':>6} {'crib':>6} {'net':>6}"]
    for option in options[:args.top]:
        lines.append(f"  {format_cards(option.keep):<14} {format_cards(option.discard):<8} "
                     f"{float(option.hand):>6.2f} {float(option.crib):>6.2f} "
                     f"{float(option.net):>6.2f}")
    print("\n".join(lines))
    return 0
