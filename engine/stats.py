"""Each player's statistics over stored matches: results, hands, cribs, pegging and luck.

Pure: it folds match logs (``engine.review`` for the deals, ``engine.fold`` for
the results) and never reads a store itself; the caller picks the matches and,
for a period, the games that count.

Luck is the show's true count less the kept cards' expectation over every
starter the player had not seen, so a player who keeps well but cuts badly
reads below zero, and one who keeps badly is not called unlucky for it (that
is ``lost_to_best``, the expected points a throw gave away where it is known).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from engine.cards import Card
from engine.events import Event, NewGame
from engine.fold import Step, fold_steps
from engine.game import Game
from engine.records import Side
from engine.review import DealReview, review_steps

__all__ = ["HAND_DISTRIBUTION", "GameOutcome", "MatchLog", "PlayerStats", "Stats",
           "match_outcomes", "compute_stats", "score_races"]

#: Every (four-card hand, starter) pair's show under hand rules, counted: 12,994,800 in all.
#: Steven S. Lumetta, "Amusing Cribbage Facts", the table Wikipedia's "Cribbage statistics"
#: quotes; tests/test_engine_show_exhaustive.py scores every show to check it.
HAND_DISTRIBUTION: Mapping[int, int] = {
    0: 1_009_008, 1: 99_792, 2: 2_813_796, 3: 505_008, 4: 2_855_676, 5: 697_508,
    6: 1_800_268, 7: 751_324, 8: 1_137_236, 9: 361_224, 10: 388_740, 11: 51_680,
    12: 317_340, 13: 19_656, 14: 90_100, 15: 9_168, 16: 58_248, 17: 11_196, 18: 2_708,
    19: 0, 20: 8_068, 21: 2_496, 22: 444, 23: 356, 24: 3_680, 25: 0, 26: 0, 27: 0,
    28: 76, 29: 4,
}

Line = str | Mapping[str, Any] | Event


@dataclass(frozen=True, slots=True)
class MatchLog:
    """One match's event log; ``games`` names the games (from 1) that count, None for all."""

    lines: Sequence[Line]
    games: Collection[int] | None = None

    def counts(self, game: int) -> bool:
        return self.games is None or game in self.games


@dataclass(frozen=True, slots=True)
class GameOutcome:
    """A finished game: each side's players, final score and result against it."""

    game: int
    winner: str
    sides: tuple[Side, ...]


@dataclass
class PlayerStats:
    """One player's numbers; averages are per deal the player took part in."""

    name: str
    games: int = 0
    wins: int = 0
    skunks_given: int = 0
    skunks_taken: int = 0
    deals: int = 0
    hands: int = 0
    hand_points: int = 0
    cribs: int = 0
    crib_points: int = 0
    pegged: int = 0
    luck: Fraction = Fraction(0)
    judged_throws: int = 0
    lost_to_best: Fraction = Fraction(0)
    hand_scores: Counter[int] = field(default_factory=Counter)
    best_hands: list[tuple[int, tuple[Card, ...], Card]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        def per(total: float | Fraction, count: int) -> float | None:
            return None if count == 0 else round(float(total) / count, 3)

        return {
            "name": self.name, "games": self.games, "wins": self.wins,
            "skunks_given": self.skunks_given, "skunks_taken": self.skunks_taken,
            "deals": self.deals,
            "hand_average": per(self.hand_points, self.hands),
            "crib_average": per(self.crib_points, self.cribs),
            "pegging_average": per(self.pegged, self.deals),
            "luck_per_hand": per(self.luck, self.hands),
            "lost_to_best_per_throw": per(self.lost_to_best, self.judged_throws),
            "hand_scores": {str(k): v for k, v in sorted(self.hand_scores.items())},
            "best_hands": [{"points": points, "cards": [str(c) for c in cards],
                            "starter": str(starter)}
                           for points, cards, starter in self.best_hands],
        }


@dataclass(frozen=True, slots=True)
class Stats:
    players: tuple[PlayerStats, ...]
    head_to_head: tuple[tuple[str, str, int, int, int], ...]  # a, b, games, a's wins, b's wins

    def to_json(self) -> dict[str, Any]:
        return {
            "players": [p.to_json() for p in self.players],
            "head_to_head": [{"players": [a, b], "games": n, "wins": {a: wa, b: wb}}
                             for a, b, n, wa, wb in self.head_to_head],
            "all_hands": {str(k): v for k, v in HAND_DISTRIBUTION.items()},
        }


def match_outcomes(lines: Iterable[Line]) -> tuple[GameOutcome, ...]:
    """The finished games of one match's log, with each side's result at the end."""
    return tuple(_outcome(step.fold, step.game) for step in fold_steps(lines) if step.ended)


def _outcomes_noted(steps: Iterable[Step], outcomes: list[GameOutcome]) -> Iterator[Step]:
    """``steps`` passed on, each game's outcome noted in ``outcomes`` as it ends: the deal
    review and the results come from one replay of the match."""
    for step in steps:
        if step.ended:
            outcomes.append(_outcome(step.fold, step.game))
        yield step


def _outcome(game: Game, number: int) -> GameOutcome:
    """The game just finished; the winner's result is None, as it lost nothing."""
    winner = game.winner
    assert winner is not None
    return GameOutcome(number, winner, tuple(
        replace(side, result=None if side.name == winner else side.result or "win")
        for side in game.sides))


def compute_stats(matches: Iterable[MatchLog], *, player: str | None = None) -> Stats:
    """Statistics of every player (or of ``player`` and everyone who sat in a finished game
    with them: opponents, partners, and the other losers of a three-handed game)."""
    table: dict[str, PlayerStats] = {}
    meetings: dict[tuple[str, str], list[int]] = {}
    tables: dict[str, set[str]] = {}  # who shared a finished game with whom

    def of(name: str) -> PlayerStats:
        return table.setdefault(name, PlayerStats(name))

    for match in matches:
        outcomes: list[GameOutcome] = []
        deals = review_steps(_outcomes_noted(fold_steps(match.lines), outcomes))
        for outcome in outcomes:
            if match.counts(outcome.game):
                _count_game(outcome, of, meetings)
                seated = {p for side in outcome.sides for p in side.players}
                for person in seated:
                    tables.setdefault(person, set()).update(seated)
        for deal in deals:
            if match.counts(deal.game):
                _count_deal(deal, of)
    keep = set(table) if player is None else {player} | tables.get(player, set())
    players = tuple(table[name] for name in sorted(table) if name in keep)
    head = tuple((a, b, len(wins), wins.count(0), wins.count(1))
                 for (a, b), wins in sorted(meetings.items())
                 if player is None or player in (a, b))
    return Stats(players, head)


def _count_game(outcome: GameOutcome, of: Any, meetings: dict[tuple[str, str], list[int]]
                ) -> None:
    winners = next(s.players for s in outcome.sides if s.name == outcome.winner)
    for side in outcome.sides:
        for person in side.players:
            stats = of(person)
            stats.games += 1
            if side.name == outcome.winner:
                stats.wins += 1
                stats.skunks_given += sum(s.result in ("skunk", "double_skunk")
                                          for s in outcome.sides)
            elif side.result in ("skunk", "double_skunk"):
                stats.skunks_taken += 1
    # Head to head: the winners against each player of each losing side.
    for side in outcome.sides:
        if side.name == outcome.winner:
            continue
        for winner in winners:
            for loser in side.players:
                a, b = sorted((winner, loser))
                meetings.setdefault((a, b), []).append(0 if winner == a else 1)


def _count_deal(deal: DealReview, of: Any) -> None:
    if deal.starter is None:  # dealt but not yet cut: nothing has happened in it
        return
    for part in deal.players:
        stats = of(part.player)
        stats.deals += 1
        stats.pegged += part.pegged
        if part.shown is not None and part.kept is not None:
            stats.hands += 1
            stats.hand_points += part.shown
            stats.hand_scores[part.shown] += 1
            if part.hand_expected is not None:
                stats.luck += part.shown - part.hand_expected
            stats.best_hands.append((part.shown, part.kept, deal.starter))
            stats.best_hands.sort(key=lambda h: -h[0])
            del stats.best_hands[3:]
        if part.lost_to_best is not None:
            stats.judged_throws += 1
            stats.lost_to_best += part.lost_to_best
    if deal.crib_points is not None:
        owner = of(deal.dealer)
        owner.cribs += 1
        owner.crib_points += deal.crib_points


def score_races(lines: Iterable[Line]) -> dict[int, dict[str, list[list[int]]]]:
    """Each side's score after every event that pegged, game by game (from 1) of a match
    log, in one fold: ``{game: {side: [[event, score], ...]}}``, each side starting at
    ``[first event, 0]``."""
    races: dict[int, dict[str, list[list[int]]]] = {}
    race: dict[str, list[list[int]]] = {}
    for step in fold_steps(lines):
        if isinstance(step.event, NewGame):
            race = races[step.game] = {side.name: [[step.number, 0]]
                                       for side in step.fold.sides}
        for record in step.pegged:
            race[record.side].append([step.number, race[record.side][-1][1] + record.points])
    return races
