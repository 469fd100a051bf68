"""The show: scoring a four-card hand or the crib together with the starter.

``score_show`` itemises every scoring combination the way players count it
(each fifteen, each pair, each run, the flush, his nobs); ``show_total`` gives
the same total without building the items. Both share one table of the
rank-only part (fifteens, pairs and runs), filled lazily per multiset of five
ranks (6,175 of them), so the suit-free work is done once per rank pattern.

>>> hand, starter = parse_show("5H 5C 5S JD | 5D")
>>> score = score_show(hand, starter)
>>> score.total, score.fifteens, score.pairs, score.nobs
(29, 16, 12, 1)
>>> score.words()
'fifteen two, fifteen four, fifteen six, fifteen eight, fifteen ten, fifteen twelve, \
fifteen fourteen, fifteen sixteen, double pair royal is twenty-eight, and his nobs is twenty-nine'
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from engine.cards import DECK, Card, Rank, Suit, parse_cards
from engine.errors import EngineError

__all__ = [
    "ScoreKind",
    "ScoreItem",
    "ShowScore",
    "ShowError",
    "score_show",
    "show_total",
    "parse_show",
    "flush_points",
    "rank_points",
    "rank_pattern",
    "pattern_points",
    "rank_points_table",
    "RANK_TABLE_SIZE",
    "rank_table_index",
    "number_word",
]

ScoreKind = Literal["fifteen", "pair", "run", "flush", "nobs"]


class ShowError(EngineError):
    """A show that cannot be counted: wrong number of cards, a card twice, not a card."""


_NUMBER_WORDS = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
    "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
    "seventeen", "eighteen", "nineteen", "twenty", "twenty-one", "twenty-two",
    "twenty-three", "twenty-four", "twenty-five", "twenty-six", "twenty-seven",
    "twenty-eight", "twenty-nine",
)


def number_word(n: int) -> str:
    """Says a show number (0..29) in words: ``number_word(21) == "twenty-one"``."""
    if not 0 <= n < len(_NUMBER_WORDS):
        raise ValueError(f"no show number {n!r}: a show scores 0 to 29")
    return _NUMBER_WORDS[n]


@dataclass(frozen=True, slots=True)
class ScoreItem:
    """One scoring combination of the show and the points it earns."""

    kind: ScoreKind
    cards: tuple[Card, ...]
    points: int

    def words(self) -> str:
        """Names the combination: "fifteen", "a pair of fives", "a run of three",
        "a flush of four", "his nobs"."""
        if self.kind == "pair":
            return f"a pair of {self.cards[0].rank.plural}"
        if self.kind in ("run", "flush"):
            return f"a {self.kind} of {_NUMBER_WORDS[len(self.cards)]}"
        if self.kind == "nobs":
            return "his nobs"
        return "fifteen"

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind, "cards": [str(c) for c in self.cards], "points": self.points}


_RUN_NAMES = {1: "a run", 2: "a double run", 3: "a triple run", 4: "a double double run"}
_PAIR_NAMES = {1: "a pair", 3: "pair royal", 6: "double pair royal"}


@dataclass(frozen=True, slots=True)
class ShowScore:
    """The itemised count of one show, items in counting order."""

    items: tuple[ScoreItem, ...]

    def _points(self, kind: ScoreKind) -> int:
        return sum(item.points for item in self.items if item.kind == kind)

    @property
    def total(self) -> int:
        return sum(item.points for item in self.items)

    @property
    def fifteens(self) -> int:
        return self._points("fifteen")

    @property
    def pairs(self) -> int:
        return self._points("pair")

    @property
    def runs(self) -> int:
        return self._points("run")

    @property
    def flush(self) -> int:
        return self._points("flush")

    @property
    def nobs(self) -> int:
        return self._points("nobs")

    def to_json(self) -> dict[str, object]:
        """The ``score`` command's JSON object (CONTRACT.md)."""
        return {
            "total": self.total,
            "fifteens": self.fifteens,
            "pairs": self.pairs,
            "runs": self.runs,
            "flush": self.flush,
            "nobs": self.nobs,
            "items": [item.to_json() for item in self.items],
        }

    def words(self) -> str:
        """Counts the show aloud, each phrase with the running total.

        A run says the pairs inside it ("a double run of three" is 8), pairs
        outside a run are said by how many cards share the rank:

        >>> score_show(*parse_show("4S 4H 5C 6D | QH")).words()
        'fifteen two, fifteen four, fifteen six, and a double run of three is fourteen'
        >>> score_show(*parse_show("AH AC 6D 7S | 8S")).words()
        'fifteen two, fifteen four, fifteen six, fifteen eight, a run of three is eleven, \
and a pair is thirteen'
        >>> score_show(*parse_show("2H 4C 6D 8S | QS")).words()
        'no points'
        """
        phrases: list[str] = []
        running = 0
        for item in self.items:
            if item.kind == "fifteen":
                running += item.points
                phrases.append(f"fifteen {_NUMBER_WORDS[running]}")
        pairs = [item for item in self.items if item.kind == "pair"]
        runs = [item for item in self.items if item.kind == "run"]
        if runs:
            run_ranks = {card.rank for item in runs for card in item.cards}
            inside = [item for item in pairs if item.cards[0].rank in run_ranks]
            pairs = [item for item in pairs if item.cards[0].rank not in run_ranks]
            running += sum(item.points for item in runs + inside)
            name = _RUN_NAMES[len(runs)]
            length = _NUMBER_WORDS[len(runs[0].cards)]
            phrases.append(f"{name} of {length} is {_NUMBER_WORDS[running]}")
        pairs_by_rank: dict[Rank, int] = {}
        for item in pairs:
            pairs_by_rank[item.cards[0].rank] = pairs_by_rank.get(item.cards[0].rank, 0) + 1
        if sorted(pairs_by_rank.values()) == [1, 1]:
            running += 4
            phrases.append(f"two pairs is {_NUMBER_WORDS[running]}")
        else:
            for rank in sorted(pairs_by_rank):
                running += 2 * pairs_by_rank[rank]
                phrases.append(f"{_PAIR_NAMES[pairs_by_rank[rank]]} is {_NUMBER_WORDS[running]}")
        for item in self.items:
            if item.kind in ("flush", "nobs"):
                running += item.points
                phrases.append(f"{item.words()} is {_NUMBER_WORDS[running]}")
        if not phrases:
            return "no points"
        if len(phrases) > 1 and not phrases[-1].startswith("fifteen"):
            phrases[-1] = "and " + phrases[-1]
        return ", ".join(phrases)


# --- the rank-only part: fifteens, pairs, runs ---------------------------------------------
#
# Cards are put in a fixed order (rank, then suit) before scoring, so a rank
# pattern's combinations can be stored as positions in that order and reused for
# every hand with the same five ranks, whatever their suits or the hand's order.

_POSITIONS = range(5)
# Every subset of 2..5 of the five cards, smallest first, in the order a count says them.
_SUBSETS: tuple[tuple[int, ...], ...] = tuple(
    subset for size in range(2, 6) for subset in itertools.combinations(_POSITIONS, size)
)
_SUBSET_MASKS = tuple((subset, sum(1 << i for i in subset)) for subset in _SUBSETS)
_PAIRS = tuple(itertools.combinations(_POSITIONS, 2))

_Template = tuple[ScoreKind, Callable[[Sequence[Card]], tuple[Card, ...]], int]


# Picks a combination's cards out of the five in order; every combination has 2+ cards,
# so itemgetter always returns a tuple.
_TAKERS: dict[tuple[int, ...], Callable[[Sequence[Card]], tuple[Card, ...]]] = {
    subset: operator.itemgetter(*subset) for subset in _SUBSETS
}


@dataclass(frozen=True, slots=True)
class _RankPart:
    points: int
    templates: tuple[_Template, ...]


def _score_ranks(ranks: tuple[int, ...]) -> _RankPart:
    """Scores fifteens, pairs and runs of five ranks given in ascending order."""
    sums = [0]  # sums[mask]: the counting value of the cards whose bits are in mask
    for rank in ranks:
        sums += [total + min(rank, 10) for total in sums]
    templates: list[_Template] = [
        ("fifteen", _TAKERS[subset], 2) for subset, mask in _SUBSET_MASKS if sums[mask] == 15
    ]
    for pair in _PAIRS:
        if ranks[pair[0]] == ranks[pair[1]]:
            templates.append(("pair", _TAKERS[pair], 2))
    # A run is one card from each rank of a stretch of three or more consecutive ranks,
    # so 3-4-5-6 is one run of four, never two runs of three; five cards have room for
    # only one such stretch.
    positions_by_rank: dict[int, list[int]] = {}
    for position, rank in enumerate(ranks):
        positions_by_rank.setdefault(rank, []).append(position)
    stretch: list[int] = []
    for rank in positions_by_rank:
        stretch = stretch + [rank] if stretch and stretch[-1] == rank - 1 else [rank]
        if len(stretch) >= 3 and rank + 1 not in positions_by_rank:
            runs = itertools.product(*(positions_by_rank[r] for r in stretch))
            templates.extend(("run", _TAKERS[run], len(stretch)) for run in runs)
            break
    return _RankPart(sum(points for _, _, points in templates), tuple(templates))


# Keyed by the multiset of ranks as a base-5 number whose digit for each rank is how
# many cards have it (the sum of 5**(rank-1) over the cards): order-free, so a lookup
# needs no sort. At most 6,175 entries, one per rank pattern a deck can deal.
_RANK_PARTS: dict[int, _RankPart] = {}


def _rank_part(pattern: int) -> _RankPart:
    part = _RANK_PARTS.get(pattern)
    if part is None:
        ranks = tuple(
            rank for rank in range(1, 14) for _ in range(pattern // 5 ** (rank - 1) % 5)
        )
        part = _RANK_PARTS[pattern] = _score_ranks(ranks)
    return part


def rank_points(ranks: Sequence[int]) -> int:
    """Scores the rank-only part (fifteens, pairs, runs) of five ranks in any order.

    >>> rank_points([Rank.FIVE, Rank.FIVE, Rank.FIVE, Rank.FIVE, Rank.JACK])
    28
    """
    if len(ranks) != 5 or any(not 1 <= r <= 13 for r in ranks):
        raise ShowError(f"rank_points needs five ranks 1..13, got {list(map(int, ranks))}")
    if ranks.count(ranks[0]) == 5:
        raise ShowError(f"no deck holds five cards of rank {int(ranks[0])}")
    return _rank_part(sum(5 ** (int(r) - 1) for r in ranks)).points


def rank_pattern(ranks: Sequence[int]) -> int:
    """Encodes a multiset of ranks as a number that adds: the pattern of a union is the sum.

    Callers that score many five-rank multisets sharing a part (the advice's
    cribs) add the shared part's pattern once instead of rebuilding lists.

    >>> pattern_points(rank_pattern([5, 5, 5]) + rank_pattern([5, 11]))
    28
    """
    return sum(5 ** (int(r) - 1) for r in ranks)


def pattern_points(pattern: int) -> int:
    """Scores the fifteens, pairs and runs of five ranks given as a ``rank_pattern``.

    Unchecked, for hot loops: the pattern must hold five ranks a deck can deal.
    """
    return _rank_part(pattern).points


RANK_TABLE_SIZE = 13**5


def rank_table_index(ranks: Sequence[int]) -> int:
    """Index into ``rank_points_table()`` of five ranks sorted ascending (base 13)."""
    index = 0
    for rank in ranks:
        index = index * 13 + int(rank) - 1
    return index


def rank_points_table() -> list[int]:
    """Tabulates ``rank_points`` for every multiset of five ranks, for array code.

    Entry ``rank_table_index(sorted(ranks))`` holds the fifteens, pairs and runs
    of those five ranks; entries whose ranks are not in ascending order, and
    five of a kind, hold -1.

    >>> table = rank_points_table()
    >>> table[rank_table_index([4, 4, 5, 6, 12])], table[rank_table_index([6, 5, 4, 4, 12])]
    (14, -1)
    """
    table = [-1] * RANK_TABLE_SIZE
    for ranks in itertools.combinations_with_replacement(range(1, 14), 5):
        if ranks[0] != ranks[4]:
            table[rank_table_index(ranks)] = _rank_part(sum(5 ** (r - 1) for r in ranks)).points
    return table


# --- per-card facts, so the hot path never hashes enums twice ------------------------------

_SUIT_ORDER = {suit: i for i, suit in enumerate(Suit)}
# card -> (bit for the duplicate check, rank pattern weight, sort key, suit, is a jack)
_FACTS: dict[Card, tuple[int, int, int, Suit, bool]] = {
    card: (
        1 << card.index,
        5 ** (card.rank - 1),
        card.rank * 4 + _SUIT_ORDER[card.suit],
        card.suit,
        card.rank is Rank.JACK,
    )
    for card in DECK
}


def _facts(hand: Sequence[Card], starter: Card) -> list[tuple[int, int, int, Suit, bool]]:
    if type(hand) is not tuple and type(hand) is not list:
        hand = tuple(hand)
    if len(hand) != 4:
        raise ShowError(
            f"a show is four cards and the starter, got {len(hand)} cards: "
            f"{_describe(hand, starter)}"
        )
    try:
        facts = [_FACTS[hand[0]], _FACTS[hand[1]], _FACTS[hand[2]], _FACTS[hand[3]],
                 _FACTS[starter]]
    except (KeyError, TypeError):
        bad = next(c for c in (*hand, starter) if not _is_card(c))
        raise ShowError(f"not a card: {bad!r} in the show {_describe(hand, starter)}") from None
    bits = facts[0][0] | facts[1][0] | facts[2][0] | facts[3][0]
    if bits.bit_count() != 4:
        twice = next(c for i, c in enumerate(hand) if c in hand[i + 1:])
        raise ShowError(f"{twice} is in the hand twice: {_describe(hand, starter)}")
    if bits & facts[4][0]:
        raise ShowError(f"the starter {starter} is also in the hand: {_describe(hand, starter)}")
    return facts


def _is_card(card: object) -> bool:
    try:
        return card in _FACTS
    except TypeError:  # unhashable
        return False


def _describe(hand: Sequence[object], starter: object) -> str:
    def text(card: object) -> str:
        return str(card) if _is_card(card) else repr(card)

    return " ".join(map(text, hand)) + " | " + text(starter)


def _flush_rule(four_of_a_suit: bool, starter_matches: bool, crib: bool,
                crib_four_flush: bool) -> int:
    if not four_of_a_suit:
        return 0
    if starter_matches:
        return 5
    return 0 if crib and not crib_four_flush else 4


def flush_points(
    hand_suits: Sequence[Suit], starter_suit: Suit, *, crib: bool = False,
    crib_four_flush: bool = False,
) -> int:
    """Scores the flush of a show from its four hand (or crib) suits and the starter's.

    >>> flush_points([Suit.HEARTS] * 4, Suit.SPADES), flush_points([Suit.HEARTS] * 4,
    ...     Suit.SPADES, crib=True), flush_points([Suit.HEARTS] * 4, Suit.HEARTS, crib=True)
    (4, 0, 5)
    """
    if len(hand_suits) != 4:
        raise ShowError(f"a flush is judged on four hand suits, got {len(hand_suits)}")
    four = all(suit is hand_suits[0] for suit in hand_suits)
    return _flush_rule(four, starter_suit is hand_suits[0], crib, crib_four_flush)


def _flush_points(facts: list[tuple[int, int, int, Suit, bool]], crib: bool,
                  crib_four_flush: bool) -> int:
    suit = facts[0][3]
    four = facts[1][3] is suit and facts[2][3] is suit and facts[3][3] is suit
    return _flush_rule(four, facts[4][3] is suit, crib, crib_four_flush)


def score_show(
    hand: Sequence[Card], starter: Card, *, crib: bool = False, crib_four_flush: bool = False
) -> ShowScore:
    """Scores a four-card hand (or the crib, ``crib=True``) with the starter, itemised.

    Items come in counting order (fifteens, pairs, runs, flush, nobs), each
    item's cards in rank then suit order, so the hand's order does not matter.

    A flush needs all four hand cards; three and a matching starter is none.
    The crib's flush needs all five cards unless ``crib_four_flush``:

    >>> score_show(*parse_show("2H 4H 6H 8H | QS")).flush
    4
    >>> score_show(*parse_show("2H 4H 6S 8H | QH")).flush
    0
    >>> score_show(*parse_show("2H 4H 6H 8H | QS"), crib=True).flush
    0
    >>> score_show(*parse_show("2H 4H 6H 8H | QH"), crib=True).flush
    5

    His nobs is a hand jack of the starter's suit; a jack turned up is his
    heels, the dealer's 2 in the play, and no part of the show:

    >>> score_show(*parse_show("JH 2C 4D 8S | 9H")).nobs
    1
    >>> score_show(*parse_show("2H 4C 8D 9S | JH")).nobs
    0

    Only the longest runs count, each combination once:

    >>> [len(i.cards) for i in score_show(*parse_show("3C 4D 5H 6S | KS")).items
    ...  if i.kind == "run"]
    [4]
    """
    facts = _facts(hand, starter)
    part = _rank_part(facts[0][1] + facts[1][1] + facts[2][1] + facts[3][1] + facts[4][1])
    cards = (hand[0], hand[1], hand[2], hand[3], starter)
    keys = [f[2] for f in facts]
    ordered = [cards[i] for i in sorted(_POSITIONS, key=keys.__getitem__)]
    items = [ScoreItem(kind, take(ordered), points) for kind, take, points in part.templates]
    flush = _flush_points(facts, crib, crib_four_flush)
    if flush:
        flushed = ordered if flush == 5 else [c for c in ordered if c is not starter]
        items.append(ScoreItem("flush", tuple(flushed), flush))
    suit = facts[4][3]
    for i in range(4):
        if facts[i][4] and facts[i][3] is suit:
            items.append(ScoreItem("nobs", (hand[i],), 1))
    return ShowScore(tuple(items))


def show_total(
    hand: Sequence[Card], starter: Card, *, crib: bool = False, crib_four_flush: bool = False
) -> int:
    """Scores the same show as ``score_show`` but returns only the total.

    >>> show_total(parse_cards("5H 5C 5S JD"), Card.parse("5D"))
    29
    """
    facts = _facts(hand, starter)
    total = _rank_part(facts[0][1] + facts[1][1] + facts[2][1] + facts[3][1] + facts[4][1]).points
    if facts[0][4] + facts[1][4] + facts[2][4] + facts[3][4]:
        suit = facts[4][3]
        for fact in facts[:4]:
            if fact[4] and fact[3] is suit:
                total += 1
    return total + _flush_points(facts, crib, crib_four_flush)


def parse_show(text: str) -> tuple[tuple[Card, ...], Card]:
    """Parses a show written ``"5H 5C 5S JD | 5D"``: the hand, a bar, the starter.

    >>> parse_show("5h 5c 5s jd | 5d")
    ((Card.parse('5H'), Card.parse('5C'), Card.parse('5S'), Card.parse('JD')), Card.parse('5D'))
    """
    hand_text, bar, starter_text = text.partition("|")
    starters = parse_cards(starter_text)
    if not bar or len(starters) != 1:
        raise ShowError(f"expected a show written like '5H 5C 5S JD | 5D', got {text!r}")
    return parse_cards(hand_text), starters[0]
