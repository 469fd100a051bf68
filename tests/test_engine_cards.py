"""Cards: the text notation of CONTRACT.md both ways, and the rank/value split."""

import pytest

from engine.cards import DECK, Card, Rank, Suit, format_cards, parse_cards
from engine.errors import CardError


@pytest.mark.parametrize(
    ("text", "canonical"),
    [("AC", "AC"), ("ac", "AC"), ("10s", "10S"), ("TS", "10S"), ("th", "10H"), ("qh", "QH"),
     ("K♠", "KS"), ("2♦", "2D"), ("J♥️", "JH"), (" 5c ", "5C"), ("a♣", "AC")],
)
def test_parse_accepts_every_spelling_and_prints_canonically(text: str, canonical: str) -> None:
    assert str(Card.parse(text)) == canonical


@pytest.mark.parametrize("bad", ["1H", "11C", "5X", "H5", "", "10", "KK", "JOKER", "5HH", "0S"])
def test_parse_rejects_bad_tokens_naming_them(bad: str) -> None:
    with pytest.raises(CardError) as info:
        Card.parse(bad)
    assert repr(bad) in str(info.value)
    assert isinstance(info.value, ValueError)


def test_repr_is_a_constructor_expression() -> None:
    card = Card.parse("10d")
    assert repr(card) == "Card.parse('10D')"
    assert eval(repr(card)) == card


def test_rank_is_the_run_order_and_value_counts_court_cards_ten() -> None:
    assert [int(r) for r in Rank] == list(range(1, 14))
    assert [r.counting_value for r in Rank] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]
    assert Card.parse("KH").value == 10 and Card.parse("AH").value == 1
    assert Card.parse("QS").rank != Card.parse("KS").rank  # tens pair by rank only


def test_deck_is_52_distinct_cards_with_dense_indices() -> None:
    assert len(set(DECK)) == 52
    assert [c.index for c in DECK] == list(range(52))
    assert all(Card.from_index(c.index) is c for c in DECK)
    assert {c.suit for c in DECK} == set(Suit)


def test_cards_are_immutable_values() -> None:
    card = Card.parse("5H")
    assert card == Card(Rank.FIVE, Suit.HEARTS)
    assert hash(card) == hash(Card(Rank.FIVE, Suit.HEARTS))
    with pytest.raises(AttributeError):
        card.rank = Rank.SIX  # type: ignore[misc]


def test_parse_cards_reads_spaces_commas_and_lists() -> None:
    assert format_cards(parse_cards("5h, 5c 5s JD")) == "5H 5C 5S JD"
    assert parse_cards(["th", "ac"]) == (Card.parse("10H"), Card.parse("AC"))
    with pytest.raises(CardError, match="'ZZ'"):
        parse_cards("5H ZZ")


def test_cards_sort_by_rank_then_suit() -> None:
    assert format_cards(sorted(parse_cards("5S 5H KD AC 5C"))) == "AC 5C 5H 5S KD"
