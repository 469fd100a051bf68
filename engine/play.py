"""The play of one deal: turns, counts, goes and the last card, inferred from the cards laid.

The engine never sees a hand, only the cards laid. Under the must-play rule
that is enough (RULES.md section 8, item 4): a card that does not fit the
count means the count closed first, a card laid by someone later in the
rotation means the players between could not play, and a passed player who
later lays a card that would have fitted has reneged.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass, field

from engine.cards import Card
from engine.errors import IllegalEventError
from engine.pegging import peg_items

__all__ = ["Award", "PlayRound", "CARDS_IN_PLAY"]

CARDS_IN_PLAY = 4  # every player keeps four cards, whatever the number of players
_NEVER = 0  # "never passed over": no card's value is this small


@dataclass(frozen=True, slots=True)
class Award:
    """Points an event earns for one player (a seat), before muggins decides whether they peg."""

    player: int
    reason: str
    points: int
    words: str = ""


@dataclass(slots=True)
class PlayRound:
    """The state of the play in one deal. ``players`` are names in seat order (clockwise).

    ``last_player_stops`` is the three-hand reading of ``last_player_continues: false``.
    """

    players: tuple[str, ...]
    dealer: int
    starter: Card
    last_player_stops: bool = False
    laid: list[list[Card]] = field(default_factory=list)
    pile: list[Card] = field(default_factory=list)
    count: int = 0
    last: int | None = None
    turn: int | None = None
    gone: set[int] = field(default_factory=set)
    slack: list[int] = field(default_factory=list)
    passed_at: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        n = len(self.players)
        self.last_player_stops = self.last_player_stops and n > 2
        self.laid = [[] for _ in range(n)]
        self.slack = [_NEVER] * n
        self.passed_at = [0] * n
        self.turn = (self.dealer + 1) % n  # the pone leads

    def clone(self) -> PlayRound:
        other = copy.copy(self)
        other.laid = [cards[:] for cards in self.laid]
        other.pile, other.gone = self.pile[:], set(self.gone)
        other.slack, other.passed_at = self.slack[:], self.passed_at[:]
        return other

    @property
    def over(self) -> bool:
        return not self.holders()

    @property
    def started(self) -> bool:
        return any(self.laid)

    def cards_laid(self) -> set[Card]:
        return {card for cards in self.laid for card in cards}

    def holders(self) -> list[int]:
        return [p for p in range(len(self.players)) if len(self.laid[p]) < CARDS_IN_PLAY]

    def candidates(self) -> list[int]:
        """Players who may still lay a card on this count, in seat order."""
        stops = self.last if self.last_player_stops else None
        return [p for p in self.holders() if p not in self.gone and p != stops]

    # -- events ----------------------------------------------------------------

    def lay(self, p: int, card: Card) -> list[Award]:
        """Lays ``card`` for seat ``p`` and returns what it (and any count it closed) earned."""
        name = self.players[p]
        if card == self.starter:
            raise IllegalEventError("starter_laid",
                                    f"{card} is the starter: it cannot be laid by {name}")
        if card in self.cards_laid():
            raise IllegalEventError("card_laid_twice", f"{card} has already been laid this deal")
        if len(self.laid[p]) >= CARDS_IN_PLAY:
            raise IllegalEventError("no_cards_left",
                                    f"{name} has already laid all {CARDS_IN_PLAY} cards")
        awards: list[Award] = []
        if self.pile:
            awards += self._close_or_pass_for(p, card)
        if not self.pile and p != self.turn:
            raise IllegalEventError(
                "out_of_turn",
                f"{name} cannot lead {card}: {self._turn_name()} leads the "
                f"{'next count' if self.started else 'play'}",
            )
        if card.value <= self.slack[p]:
            raise IllegalEventError(
                "renege",
                f"{name} lays {card}, which would have fitted the count of {self.passed_at[p]} "
                f"when {name} was passed over (must play when able)",
            )
        self.pile.append(card)
        self.laid[p].append(card)
        self.count += card.value
        self.last = p
        awards += [Award(p, item.reason, item.points, item.words()) for item in
                   peg_items(self.pile)]
        if self.over:
            if self.count != 31:
                awards.append(Award(p, "last_card", 1, "one for last"))
            self._reset_count(leader=None)
        elif self.count == 31:
            self._reset_count(leader=self._leader_after(p))
        else:
            self._advance_turn(p)
            if self.turn is None:
                awards += self._close_count()
        return awards

    def go(self, p: int) -> list[Award]:
        """A GO from seat ``p``; returns the go point when it leaves nobody able to play."""
        name = self.players[p]
        if len(self.laid[p]) >= CARDS_IN_PLAY:
            raise IllegalEventError("no_cards_left", f"{name} has no cards left to say go with")
        if self.count <= 21:
            raise IllegalEventError(
                "impossible_go",
                f"{name} cannot say go at a count of {self.count}: every card fits a count of 21 "
                "or less",
            )
        if p in self.gone:
            raise IllegalEventError("out_of_turn", f"{name} has already said go on this count")
        if p != self.turn:
            raise IllegalEventError("out_of_turn",
                                    f"{name} cannot say go: it is {self._turn_name()}'s turn")
        self._pass([p])
        self._advance_turn(p)
        return self._close_count() if self.turn is None else []

    # -- internals -------------------------------------------------------------

    def _close_or_pass_for(self, p: int, card: Card) -> list[Award]:
        """Works out, before ``card`` is laid on a running count, who could not play."""
        name = self.players[p]
        candidates = self.candidates()
        if self.count + card.value > 31:
            count = self.count
            self._pass(candidates)
            awards = self._close_count()
            if p != self.turn:
                raise IllegalEventError(
                    "count_over_31",
                    f"{name}'s {card} would take the count of {count} to "
                    f"{count + card.value}, past 31, and {name} is not due to lead the next "
                    f"count: {self._turn_name()} is",
                )
            return awards
        if p in candidates:
            assert self.turn is not None
            order = self._rotation_from(self.turn)
            self._pass_over([q for q in order[: order.index(p)] if q in candidates], name, card)
            return []
        if p not in self.gone:
            # Under the three-hand reading the turn came back to the last player: the count closed.
            self._pass_over(candidates, name, card)
            return self._close_count()
        return []  # a player who already went lays a card that fits: the renege check says so

    def _pass_over(self, passed: list[int], name: str, card: Card) -> None:
        """Passes over ``passed`` so that ``name`` can lay ``card``; only possible past 21."""
        if passed and self.count <= 21:
            raise IllegalEventError(
                "out_of_turn",
                f"{name} cannot lay {card}: it is {self.players[passed[0]]}'s turn, and at a "
                f"count of {self.count} every card fits",
            )
        self._pass(passed)

    def _pass(self, players: Iterable[int]) -> None:
        """Marks players who could not play at this count, for the renege check later."""
        for p in players:
            self.gone.add(p)
            if 31 - self.count > self.slack[p]:
                self.slack[p] = 31 - self.count
                self.passed_at[p] = self.count

    def _advance_turn(self, after: int) -> None:
        """Gives the turn to the next player who may still play; None when nobody can."""
        candidates = set(self.candidates())
        self.turn = next((q for q in self._rotation_from(after + 1) if q in candidates), None)

    def _close_count(self) -> list[Award]:
        """Ends the current count short of 31: the last player pegs one for the go."""
        assert self.last is not None
        last = self.last
        self._reset_count(leader=self._leader_after(last))
        return [Award(last, "go", 1, "one for the go")]

    def _reset_count(self, *, leader: int | None) -> None:
        self.pile.clear()
        self.count = 0
        self.last = None
        self.gone.clear()
        self.turn = leader

    def _leader_after(self, player: int) -> int:
        """Leads the next count: the first player left of ``player`` still holding cards."""
        holders = set(self.holders())
        return next((p for p in self._rotation_from(player + 1) if p in holders), player)

    def _rotation_from(self, start: int) -> list[int]:
        n = len(self.players)
        return [(start + i) % n for i in range(n)]

    def _turn_name(self) -> str:
        return "nobody" if self.turn is None else self.players[self.turn]
