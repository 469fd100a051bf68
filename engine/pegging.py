"""Points for a card laid in the play (pegging), from the cards of the current count alone.

Only the card just laid can score, and only with the cards at the top of the
pile since the count last reset: pairs and runs never reach across a go or a 31.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.cards import Card

__all__ = ["PegItem", "peg_items", "count_of", "PAIR_NAMES"]

PAIR_NAMES = {2: "pair", 3: "pair_royal", 4: "double_pair_royal"}
_PAIR_POINTS = {2: 2, 3: 6, 4: 12}


@dataclass(frozen=True, slots=True)
class PegItem:
    """One scoring item in the play: ``reason`` is fifteen, thirty_one, pair, pair_royal,
    double_pair_royal, run, go or last_card; ``cards`` are the cards that made it."""

    reason: str
    points: int
    cards: tuple[Card, ...] = ()

    def words(self) -> str:
        """The item as players say it ("fifteen two", "a run of four")."""
        if self.reason == "run":
            return f"a run of {_NUMBER_WORDS[len(self.cards)]}"
        if self.reason == "thirty_one":
            return "thirty-one for two"
        if self.reason == "fifteen":
            return "fifteen two"
        if self.reason == "last_card":
            return "one for last" if self.points == 1 else "last card"
        return _FIXED_WORDS.get(self.reason, self.reason.replace("_", " "))


_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight")
_FIXED_WORDS = {
    "pair": "a pair for two",
    "pair_royal": "pair royal for six",
    "double_pair_royal": "double pair royal for twelve",
    "go": "one for the go",
}


def count_of(pile: Sequence[Card]) -> int:
    """The running count of the cards laid since the last reset."""
    return sum(card.value for card in pile)


def peg_items(pile: Sequence[Card]) -> tuple[PegItem, ...]:
    """Scores the last card of ``pile`` (the current count, oldest first).

    Runs count in any order among the top cards, and a card that does not fit
    breaks them (RULES.md section 8):

    >>> [i.points for i in peg_items([Card.parse(c) for c in "4S 5D 5H 6C 7S".split()])]
    [3]
    >>> [(i.reason, i.points) for i in peg_items([Card.parse(c) for c in "5S 5D 5H".split()])]
    [('fifteen', 2), ('pair_royal', 6)]
    """
    if not pile:
        return ()
    items: list[PegItem] = []
    count = count_of(pile)
    if count > 31:
        raise ValueError(f"count {count} is past 31: {' '.join(map(str, pile))}")
    if count == 15:
        items.append(PegItem("fifteen", 2, tuple(pile)))
    elif count == 31:
        items.append(PegItem("thirty_one", 2, tuple(pile)))

    top = pile[-1].rank
    same = 1
    while same < len(pile) and pile[-1 - same].rank == top:
        same += 1
    if same >= 2:
        items.append(PegItem(PAIR_NAMES[same], _PAIR_POINTS[same], tuple(pile[-same:])))
    else:
        run = _longest_run_at_top(pile)
        if run:
            items.append(PegItem("run", run, tuple(pile[-run:])))
    return tuple(items)


def _longest_run_at_top(pile: Sequence[Card]) -> int:
    """Length of the longest run formed by the top k >= 3 cards, or 0.

    A pair at the top rules out every run, so callers only ask when the top two differ.
    """
    best = 0
    ranks: set[int] = set()
    low, high = 14, 0
    for depth, card in enumerate(reversed(pile), start=1):
        rank = int(card.rank)
        if rank in ranks:
            break
        ranks.add(rank)
        low, high = min(low, rank), max(high, rank)
        if depth >= 3 and high - low == depth - 1:
            best = depth
    return best
