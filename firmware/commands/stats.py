"""``cribbage-board stats`` and ``review``: the coach's numbers from the event store.

Both read the store read-only, so they are safe while the device is running.
"""

from __future__ import annotations

import argparse
from typing import Any

from firmware.commands.cli import print_json
from firmware.commands.history import add_store_option, store_path


def register(subparsers: Any) -> None:
    stats = subparsers.add_parser(
        "stats", help="each player's statistics: wins, skunks, hands, cribs, pegging, luck",
        description="Each player's statistics from the event store, and head to head.",
        epilog="example: cribbage-board stats --player Ann --since 2026-11-01")
    stats.add_argument("--player", metavar="NAME", help="only this player and their opponents")
    stats.add_argument("--since", metavar="DATE", help="games begun on or after (2026-11-01)")
    stats.add_argument("--until", metavar="DATE", help="games begun before")
    add_store_option(stats)
    stats.add_argument("--json", action="store_true", help="print one JSON object")
    stats.set_defaults(handler=run_stats)
    review = subparsers.add_parser(
        "review", help="a match deal by deal: what was kept, its worth against the best throw",
        description="Reviews a stored match deal by deal: each kept hand, what it scored and "
                    "what it was expected to score, the throw against the best discard (where "
                    "the throw is known), and the pegging made and given.",
        epilog="example: cribbage-board review --match 3")
    review.add_argument("--match", type=int, default=None, metavar="ID",
                        help="the match id (`history` lists them; default: the current one)")
    add_store_option(review)
    review.add_argument("--json", action="store_true", help="print one JSON object")
    review.set_defaults(handler=run_review)


def run_stats(args: argparse.Namespace) -> int:
    from firmware.store.coach import parse_moment, read_stats

    since = None if args.since is None else parse_moment(args.since, what="--since")
    until = None if args.until is None else parse_moment(args.until, what="--until")
    stats = read_stats(store_path(args.store, args.config), player=args.player, since=since,
                       until=until)
    if args.json:
        print_json(stats)
        return 0
    lines = []
    for p in stats["players"]:
        lines.append(f"{p['name']}: {p['games']} games, {p['wins']} won, skunks "
                     f"{p['skunks_given']} given and {p['skunks_taken']} taken")
        lines.append(f"  per deal: hand {_avg(p['hand_average'])}, crib "
                     f"{_avg(p['crib_average'])} (as dealer), pegging "
                     f"{_avg(p['pegging_average'])}; luck {_signed(p['luck_per_hand'])} "
                     "a hand against the kept cards' expectation")
        if p["lost_to_best_per_throw"] is not None:
            lines.append(f"  throws: {p['lost_to_best_per_throw']:.2f} points a deal given "
                         "away against the best discard")
        if p["best_hands"]:
            best = "; ".join(f"{h['points']} ({' '.join(h['cards'])} | {h['starter']})"
                             for h in p["best_hands"])
            lines.append(f"  best hands: {best}")
    for h in stats["head_to_head"]:
        a, b = h["players"]
        lines.append(f"{a} v {b}: {h['wins'][a]}-{h['wins'][b]} in {h['games']} games")
    print("\n".join(lines) or "no finished deals in the store")
    return 0


def run_review(args: argparse.Namespace) -> int:
    from firmware.store.coach import read_review

    review = read_review(store_path(args.store, args.config), match=args.match)
    if args.json:
        print_json(review)
        return 0
    lines = [f"match {review['match']}"]
    for deal in review["deals"]:
        lines.append(f"game {deal['game']}, deal {deal['deal']}: {deal['dealer']} deals, "
                     f"starter {deal['starter'] or '-'}"
                     + ("" if deal["crib_points"] is None else
                        f", crib {' '.join(deal['crib'])} scored {deal['crib_points']}"))
        for p in deal["players"]:
            kept = " ".join(p["kept"]) if p["kept"] else "(not all laid)"
            shown = "not counted" if p["shown"] is None else f"scored {p['shown']}"
            line = (f"  {p['player']}: kept {kept}, {shown}"
                    + ("" if p["hand_expected"] is None else
                       f" (expected {p['hand_expected']:.2f})")
                    + f"; pegged {p['pegged']}, gave {p['pegging_given']}")
            if p["choice"] is not None:
                best = p["best"]
                line += (f"; threw {' '.join(p['thrown'])}: net {p['choice']['net']:.2f} "
                         f"against {best['net']:.2f} for keeping {' '.join(best['keep'])}")
            lines.append(line)
    print("\n".join(lines))
    return 0


def _avg(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _signed(value: float | None) -> str:
    return "-" if value is None else f"{value:+.2f}"
