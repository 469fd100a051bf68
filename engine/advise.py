"""Discard advice: every way to throw to the crib, ranked by exact expected points.

The hand's value is averaged over every starter the player has not seen. The
crib's is averaged over every starter and every way the unseen cards can fill
the crib (the others' discards and, three-handed, the card dealt to it), all
equally likely, as players reason before the cut. The numbers are exact
fractions, not samples.

Scoring 683,000 cribs one by one per two-player hand is too slow for a Pi, so
the crib is split by linearity of expectation into parts that need far less:

- fifteens, pairs and runs depend on ranks only, so the unseen cards are
  enumerated as multisets of ranks (455 for three cards, 1,820 for four),
  each weighted by how many ways the unseen deck deals it;
- a crib flush needs all five cards of one suit, a count of combinations;
- his nobs needs a crib jack of the starter's suit, a product of two
  probabilities per jack.

>>> from engine.cards import format_cards, parse_cards
>>> best = rank_discards(parse_cards("5H 5C 5S JD QH 2C"), dealer=False)[0]
>>> format_cards(best.keep), format_cards(best.discard), round(float(best.net), 6)
('5C 5H 5S JD', '2C QH', 12.92657)
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb, prod

from engine.cards import DECK, Card, Rank
from engine.errors import EngineError
from engine.play import CARDS_IN_PLAY
from engine.show import pattern_points, rank_pattern, show_total

__all__ = ["AdviceError", "DiscardOption", "rank_discards", "dealt_size", "crib_size_from_deck",
           "hand_expectation"]

CRIB = 4


class AdviceError(EngineError):
    """A hand that cannot be advised on: wrong size for the players, a card twice."""


@dataclass(frozen=True, slots=True)
class DiscardOption:
    """One way to split a dealt hand: what is kept, what goes to the crib, and its worth.

    ``crib`` is the crib's expected points whoever owns it; ``net`` adds it for
    the dealer and takes it away for the pone.
    """

    keep: tuple[Card, ...]
    discard: tuple[Card, ...]
    hand: Fraction
    crib: Fraction
    net: Fraction

    def to_json(self) -> dict[str, object]:
        return {
            "keep": [str(c) for c in self.keep],
            "discard": [str(c) for c in self.discard],
            "hand": round(float(self.hand), 6),
            "crib": round(float(self.crib), 6),
            "net": round(float(self.net), 6),
        }


def dealt_size(players: int) -> int:
    """Cards dealt to each player: six for two, five for three or four."""
    if players not in (2, 3, 4):
        raise AdviceError(f"cribbage is played by 2, 3 or 4 players, not {players!r}")
    return 6 if players == 2 else 5


def crib_size_from_deck(players: int) -> int:
    """Crib cards that come from the unseen deck rather than from the player's own throw."""
    return CRIB - (dealt_size(players) - CARDS_IN_PLAY)


def hand_expectation(kept: Sequence[Card], unseen: Iterable[Card]) -> Fraction:
    """The kept four's show averaged over every starter among ``unseen``."""
    starters = [card for card in unseen if card not in kept]
    return Fraction(sum(show_total(kept, s) for s in starters), len(starters))


def rank_discards(
    dealt: Sequence[Card], *, dealer: bool, players: int = 2, crib_four_flush: bool = False,
) -> tuple[DiscardOption, ...]:
    """Ranks every discard of ``dealt`` by expected net points, best first.

    Ties keep the order of the kept cards, lowest first, so the answer is the
    same on every run.
    """
    size = dealt_size(players)
    hand = tuple(dealt)
    if len(hand) != size:
        raise AdviceError(
            f"{players} players are dealt {size} cards each, got {len(hand)}: "
            f"{' '.join(map(str, hand))}"
        )
    if any(not isinstance(card, Card) for card in hand):
        raise AdviceError(f"not a card in the hand: {hand!r}")
    if len(set(hand)) != len(hand):
        twice = next(c for i, c in enumerate(hand) if c in hand[i + 1:])
        raise AdviceError(f"{twice} is in the hand twice: {' '.join(map(str, hand))}")
    unseen = tuple(card for card in DECK if card not in hand)
    fill = _CribFill(unseen, from_deck=crib_size_from_deck(players))
    options = []
    for keep in itertools.combinations(sorted(hand), CARDS_IN_PLAY):
        discard = tuple(card for card in sorted(hand) if card not in keep)
        hand_points = hand_expectation(keep, unseen)
        crib_points = fill.expected_crib(discard, crib_four_flush=crib_four_flush)
        net = hand_points + crib_points if dealer else hand_points - crib_points
        options.append(DiscardOption(keep, discard, hand_points, crib_points, net))
    options.sort(key=lambda o: (-o.net, [c._key() for c in o.keep]))
    return tuple(options)


class _CribFill:
    """The unseen cards that complete a crib: ``from_deck`` crib cards plus the starter.

    Built once per dealt hand; every discard of that hand shares it.
    """

    def __init__(self, unseen: Sequence[Card], *, from_deck: int) -> None:
        self.unseen = len(unseen)
        self.in_crib = from_deck  # unseen cards that lie in the crib itself
        self.drawn = from_deck + 1  # ... and the starter
        self.ways = comb(self.unseen, self.drawn)
        self.suits = Counter(card.suit for card in unseen)
        self.unseen_jacks = frozenset(c.suit for c in unseen if c.rank is Rank.JACK)
        self.rank_fills = _rank_multisets(Counter(int(card.rank) for card in unseen), self.drawn)

    def expected_crib(self, discard: Sequence[Card], *, crib_four_flush: bool) -> Fraction:
        thrown = rank_pattern([card.rank for card in discard])
        rank_total = sum(ways * pattern_points(thrown + fill) for fill, ways in self.rank_fills)
        return (Fraction(rank_total, self.ways) + self._flush(discard, crib_four_flush)
                + self._nobs(discard))

    def _flush(self, discard: Sequence[Card], crib_four_flush: bool) -> Fraction:
        suit = discard[0].suit
        if any(card.suit is not suit for card in discard):
            return Fraction(0)
        left = self.suits[suit]
        all_five = Fraction(comb(left, self.drawn), comb(self.unseen, self.drawn))
        if not crib_four_flush:
            return 5 * all_five
        four_in_crib = Fraction(comb(left, self.in_crib), comb(self.unseen, self.in_crib))
        # Four crib cards of a suit score 4, and the starter matching them adds 1.
        return 4 * four_in_crib + all_five

    def _nobs(self, discard: Sequence[Card]) -> Fraction:
        total = Fraction(0)
        for card in discard:
            if card.rank is Rank.JACK:
                total += Fraction(self.suits[card.suit], self.unseen)
        for suit in self.unseen_jacks:
            # That jack lies in the crib, and the starter is another card of its suit.
            total += (Fraction(self.in_crib, self.unseen)
                      * Fraction(self.suits[suit] - 1, self.unseen - 1))
        return total


def _rank_multisets(counts: Counter[int], size: int) -> list[tuple[int, int]]:
    """Every multiset of ``size`` ranks the unseen cards can deal (as a ``rank_pattern``),
    with how many ways the unseen cards deal it."""
    fills = []
    for ranks in itertools.combinations_with_replacement(range(1, 14), size):
        ways = prod(comb(counts[rank], n) for rank, n in Counter(ranks).items())
        if ways:
            fills.append((rank_pattern(ranks), ways))
    return fills

