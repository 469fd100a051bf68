"""Pegging: what the card just laid scores with the top of the current count."""

import pytest

from engine.cards import parse_cards
from engine.pegging import count_of, peg_items


def scored(cards: str) -> list[tuple[str, int]]:
    return [(i.reason, i.points) for i in peg_items(parse_cards(cards))]


@pytest.mark.parametrize(
    ("pile", "expected"),
    [
        ("10H 5S", [("fifteen", 2)]),
        ("KH QD 6C 5S", [("thirty_one", 2)]),
        ("KH QD 6C 4S", []),
        ("10H 10S", [("pair", 2)]),
        ("10H JH", []),  # tens pair by rank only
        ("3H 3S 3D", [("pair_royal", 6)]),
        ("2H 2S 2D 2C", [("double_pair_royal", 12)]),
        ("5H 5S 5D", [("fifteen", 2), ("pair_royal", 6)]),
        ("4S 6D 5H", [("fifteen", 2), ("run", 3)]),  # the partnership sheet's 4-6-5 pegs 5
        ("AS 2D 3H 4C 5S", [("fifteen", 2), ("run", 5)]),  # A-2-3-4-5 pegs 7
        ("7C 9D 6H 8S", [("run", 4)]),  # runs in any order
        ("4S 5D 5H 6C 7S", [("run", 3)]),  # only 5-6-7 at the top
        ("3S 4D KH 5C", []),  # an out-of-sequence card breaks the run
        ("KS 8D 7H 6C", [("thirty_one", 2), ("run", 3)]),
        ("KS 8D 7H 5C", []),
        ("10S 10D JH", []),
        ("JS QD KH", [("run", 3)]),
        ("QS KD AH", []),  # the ace is low only
        ("KS 7H 7D 7C", [("thirty_one", 2), ("pair_royal", 6)]),
        ("AS 2S 3S 4S 5S 6S 7S", [("run", 7)]),  # A..7 = 28, runs can reach 7
        ("10S 10H 5D 6C", [("thirty_one", 2)]),
        ("10S 10H 5D 5C", [("pair", 2)]),
        ("10S 5H 6D 10C", [("thirty_one", 2)]),
    ],
)
def test_pegging_points(pile: str, expected: list[tuple[str, int]]) -> None:
    assert scored(pile) == expected


def test_a_double_pair_royal_that_makes_fifteen_pegs_fourteen() -> None:
    # With one for the last card that is the most a single card can peg: 15 (RULES.md 2).
    assert scored("AH 2C 3D 3S 3C 3H") == [("fifteen", 2), ("double_pair_royal", 12)]


def test_runs_do_not_reach_past_a_pair_inside_them() -> None:
    assert scored("6S 7D 8H 8C") == [("pair", 2)]
    assert scored("AS 2D 3H 3C 4D") == []
    assert scored("AS 2D 3H 3C 4D 5S") == [("run", 3)]


def test_count_past_31_is_refused() -> None:
    with pytest.raises(ValueError, match="past 31"):
        peg_items(parse_cards("10S 10H 10D 5C"))
    assert count_of(parse_cards("KS QH 5C")) == 25


def test_words_say_what_was_pegged() -> None:
    words = [i.words() for i in peg_items(parse_cards("4S 6D 5H"))]
    assert words == ["fifteen two", "a run of three"]
