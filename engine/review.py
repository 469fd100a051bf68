"""Hand-by-hand review of a stored match: what each player kept, what it was worth, what it made.

Folded from the same event log the board keeps, so the review can never
disagree with the scores: it reads what the show and the crib counted and
what each player pegged in the play, and puts beside them the coach's
numbers (``engine.advise``): the kept hand's expected show over every
starter the player had not seen, and, where the throw to the crib is known
(a ``discard`` event, or the crib less every other known throw when the
crib holds no card from the pack), the kept cards' expected net against the
best discard.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from engine.advise import DiscardOption, hand_expectation, rank_discards
from engine.cards import DECK, Card
from engine.events import Crib, Deal, Discard, Event, NewGame, Play, Show, Starter
from engine.fold import Step, fold_steps
from engine.show import score_show

__all__ = ["PlayerDeal", "DealReview", "review_log", "review_steps", "PLAY_REASONS"]

#: What the play pegs (``engine.pegging`` reasons); muggins claims join several with "+".
PLAY_REASONS = frozenset({"fifteen", "thirty_one", "pair", "pair_royal", "double_pair_royal",
                          "run", "go", "last_card"})


@dataclass(frozen=True, slots=True)
class PlayerDeal:
    """One player's part of one deal.

    ``kept`` is None when the game ended before the player had laid all four
    cards; ``shown`` is the show's true count (None when the game ended before
    it); ``pegged`` is what the player pegged in the play.
    """

    player: str
    kept: tuple[Card, ...] | None
    thrown: tuple[Card, ...] | None
    shown: int | None
    hand_expected: Fraction | None
    pegged: int
    choice: DiscardOption | None = None
    best: DiscardOption | None = None

    @property
    def lost_to_best(self) -> Fraction | None:
        """Expected points the throw gave away against the best discard (0 for the best)."""
        if self.choice is None or self.best is None:
            return None
        return self.best.net - self.choice.net

    def to_json(self) -> dict[str, Any]:
        def cards(value: Sequence[Card] | None) -> list[str] | None:
            return None if value is None else [str(c) for c in value]

        def number(value: Fraction | None) -> float | None:
            return None if value is None else round(float(value), 6)

        return {
            "player": self.player, "kept": cards(self.kept), "thrown": cards(self.thrown),
            "shown": self.shown, "hand_expected": number(self.hand_expected),
            "pegged": self.pegged,
            "choice": None if self.choice is None else self.choice.to_json(),
            "best": None if self.best is None else self.best.to_json(),
            "lost_to_best": number(self.lost_to_best),
        }


@dataclass(frozen=True, slots=True)
class DealReview:
    """One deal: ``game`` and ``number`` count from 1 within the match and the game."""

    game: int
    number: int
    dealer: str
    starter: Card | None
    players: tuple[PlayerDeal, ...]
    crib: tuple[Card, ...] | None
    crib_points: int | None
    heels: int
    sides: Mapping[str, str]  # player -> side name

    def pegging_given(self, player: str) -> int:
        """What the other sides pegged in this deal's play."""
        side = self.sides[player]
        return sum(p.pegged for p in self.players if self.sides[p.player] != side)

    def to_json(self) -> dict[str, Any]:
        players = []
        for part in self.players:
            row = part.to_json()
            row["pegging_given"] = self.pegging_given(part.player)
            players.append(row)
        return {"game": self.game, "deal": self.number, "dealer": self.dealer,
                "starter": None if self.starter is None else str(self.starter),
                "crib": None if self.crib is None else [str(c) for c in self.crib],
                "crib_points": self.crib_points, "heels": self.heels, "players": players}


@dataclass
class _Deal:
    game: int
    number: int
    dealer: str
    players: tuple[str, ...]
    sides: dict[str, str]
    crib_four_flush: bool
    starter: Card | None = None
    shown: dict[str, tuple[Card, ...]] = field(default_factory=dict)
    thrown: dict[str, tuple[Card, ...]] = field(default_factory=dict)
    laid: dict[str, tuple[Card, ...]] = field(default_factory=dict)
    pegged: dict[str, int] = field(default_factory=dict)
    crib: tuple[Card, ...] | None = None
    heels: int = 0

    def take(self, step: Step) -> None:
        """Notes what one event of this deal shows: a card, a hand, the crib, a throw, or
        what the play and his heels pegged."""
        event = step.event
        if isinstance(event, Starter):
            self.starter = event.card
        elif isinstance(event, Show):
            self.shown[event.player] = event.cards
        elif isinstance(event, Crib):
            self.crib = event.cards
        elif isinstance(event, Discard):
            self.thrown[event.player] = event.cards
        elif isinstance(event, Play):  # only a play lays a card
            self.laid[event.player] = step.fold.laid(event.player)
        for record in step.pegged:
            reasons = set(record.reason.split("+"))
            if reasons <= PLAY_REASONS and record.player is not None:
                self.pegged[record.player] = self.pegged.get(record.player, 0) + record.points
            elif record.reason == "his_heels":
                self.heels += record.points

    def close(self) -> DealReview:
        thrown = self._thrown()
        parts = []
        for player in self.players:
            kept = self.shown.get(player) or self.laid.get(player)
            kept = tuple(sorted(kept)) if kept is not None and len(kept) == 4 else None
            shown = (score_show(self.shown[player], self.starter).total
                     if player in self.shown and self.starter is not None else None)
            choice = best = None
            expected = None
            if kept is not None:
                throw = thrown.get(player)
                if throw is not None:
                    options = rank_discards(kept + throw, dealer=player == self.dealer,
                                            players=len(self.players),
                                            crib_four_flush=self.crib_four_flush)
                    best = options[0]
                    choice = next(o for o in options if set(o.keep) == set(kept))
                    expected = choice.hand
                else:
                    expected = hand_expectation(kept, DECK)
            parts.append(PlayerDeal(player, kept, thrown.get(player), shown, expected,
                                    self.pegged.get(player, 0), choice, best))
        crib_points = (None if self.crib is None or self.starter is None else
                       score_show(self.crib, self.starter, crib=True,
                                  crib_four_flush=self.crib_four_flush).total)
        return DealReview(self.game, self.number, self.dealer, self.starter, tuple(parts),
                          self.crib, crib_points, self.heels, dict(self.sides))

    def _thrown(self) -> dict[str, tuple[Card, ...]]:
        """The recorded throws, and the last one where the crib tells it: with no card from
        the pack in the crib (two or four players), it is the crib less the others'."""
        thrown = dict(self.thrown)
        unknown = [p for p in self.players if p not in thrown]
        if self.crib is not None and len(self.players) != 3 and len(unknown) == 1:
            known = {card for cards in thrown.values() for card in cards}
            thrown[unknown[0]] = tuple(sorted(set(self.crib) - known))
        return thrown


def review_log(lines: Iterable[str | Mapping[str, Any] | Event]) -> tuple[DealReview, ...]:
    """Reviews every deal of a match's event log, in order; a bad log raises ``LogError``."""
    return review_steps(fold_steps(lines))  # a misread card as it was put right


def review_steps(steps: Iterable[Step]) -> tuple[DealReview, ...]:
    """``review_log`` of a replay already running (``fold_steps``), so that a caller that
    also wants the games' outcomes replays the match once."""
    deals: list[DealReview] = []
    current: _Deal | None = None
    numbers = 0
    for step in steps:
        event, game = step.event, step.fold
        if isinstance(event, NewGame | Deal) and current is not None:
            deals.append(current.close())
            current = None
        if isinstance(event, NewGame):
            numbers = 0
        if isinstance(event, Deal):
            numbers += 1
            sides = {p: game.side_of(p).name for p in game.players}
            current = _Deal(step.game, numbers, game.dealer or "", game.players,
                            sides, game.rules.crib_four_flush)
        if current is not None:
            current.take(step)
    if current is not None:
        deals.append(current.close())
    return tuple(deals)
