"""The show: hands and cribs counted item by item (RULES.md section 1 and the rule sheets)."""

from __future__ import annotations

import doctest
import itertools
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import engine.show
from engine.cards import DECK, Card, Rank, Suit, format_cards, parse_cards
from engine.errors import EngineError
from engine.show import (
    RANK_TABLE_SIZE,
    ScoreItem,
    ShowError,
    ShowScore,
    flush_points,
    number_word,
    parse_show,
    rank_points,
    rank_points_table,
    rank_table_index,
    score_show,
    show_total,
)


def show(text: str, *, crib: bool = False, crib_four_flush: bool = False) -> ShowScore:
    hand, starter = parse_show(text)
    return score_show(hand, starter, crib=crib, crib_four_flush=crib_four_flush)


def breakdown(score: ShowScore) -> tuple[int, int, int, int, int, int]:
    return (score.total, score.fifteens, score.pairs, score.runs, score.flush, score.nobs)


def items_of(score: ShowScore, kind: str) -> list[str]:
    return [format_cards(item.cards) for item in score.items if item.kind == kind]


# --- worked examples from RULES.md section 1 and shared/rule-sheets ------------------------


def test_seven_seven_eight_nine_with_a_queen_is_twelve() -> None:
    # 2-4-players-partnership-match.txt: "The Queen start card is of no help, and the hand pegs 12"
    score = show("7H 7C 8D 9S | QH")
    assert breakdown(score) == (12, 4, 2, 6, 0, 0)
    assert items_of(score, "fifteen") == ["7C 8D", "7H 8D"]
    assert items_of(score, "pair") == ["7C 7H"]
    assert items_of(score, "run") == ["7C 8D 9S", "7H 8D 9S"]
    assert score.words() == "fifteen two, fifteen four, and a double run of three is twelve"


def test_four_four_five_six_with_a_queen_is_fourteen() -> None:
    # 2-players-board-history.txt: "fifteen 2, fifteen 4, fifteen 6 and a double run for 8 makes 14"
    score = show("4S 4H 5C 6D | QH")
    assert breakdown(score) == (14, 6, 2, 6, 0, 0)
    assert items_of(score, "fifteen") == ["5C QH", "4H 5C 6D", "4S 5C 6D"]
    assert score.words() == (
        "fifteen two, fifteen four, fifteen six, and a double run of three is fourteen"
    )


def test_twenty_nine() -> None:
    score = show("5H 5C 5S JD | 5D")
    assert breakdown(score) == (29, 16, 12, 0, 0, 1)
    assert items_of(score, "fifteen") == [
        "5C JD", "5D JD", "5H JD", "5S JD", "5C 5D 5H", "5C 5D 5S", "5C 5H 5S", "5D 5H 5S",
    ]
    assert len(items_of(score, "pair")) == 6
    assert score.items[-1] == ScoreItem("nobs", (Card.parse("JD"),), 1)
    assert score.words() == (
        "fifteen two, fifteen four, fifteen six, fifteen eight, fifteen ten, fifteen twelve, "
        "fifteen fourteen, fifteen sixteen, double pair royal is twenty-eight, "
        "and his nobs is twenty-nine"
    )


@pytest.mark.parametrize(
    "text",
    ["5H 5C 5S 5D | JH", "5H 5C 5S JH | 5D", "5H 5C 5S 5D | KC", "5H 5C 10S 5D | 5S"],
)
def test_twenty_eight(text: str) -> None:
    # A starter jack is his heels (the dealer's 2 in the play), never his nobs: 28, not 29.
    score = show(text)
    assert breakdown(score) == (28, 16, 12, 0, 0, 0)


@pytest.mark.parametrize(
    "text",
    [
        "7H 7C 7S 7D | AH", "3H 3C 3S 3D | 9H", "6H 6C 6S 6D | 3H", "4H 4C 4S 4D | 7H",
        "4H 4C 5S 5D | 6H", "4H 4C 5S 6D | 6H", "4H 5C 5S 6D | 6H", "6H 7C 7S 8D | 8H",
        "7H 7C 8S 8D | 9H",
    ],
)
def test_the_nine_twenty_fours(text: str) -> None:
    assert show(text).total == 24


def test_the_nine_twenty_fours_are_all_the_rank_patterns_scoring_twenty_four() -> None:
    patterns = [
        ranks
        for ranks in itertools.combinations_with_replacement(range(1, 14), 5)
        if ranks[0] != ranks[4] and rank_points(ranks) == 24
    ]
    assert patterns == [
        (1, 7, 7, 7, 7), (3, 3, 3, 3, 9), (3, 6, 6, 6, 6), (4, 4, 4, 4, 7), (4, 4, 5, 5, 6),
        (4, 4, 5, 6, 6), (4, 5, 5, 6, 6), (6, 7, 7, 8, 8), (7, 7, 8, 8, 9),
    ]


def test_nine_six_five_four_four_is_fourteen() -> None:
    score = show("9S 6H 5C 4D | 4S")
    assert breakdown(score) == (14, 6, 2, 6, 0, 0)
    assert items_of(score, "fifteen") == ["6H 9S", "4D 5C 6H", "4S 5C 6H"]


def test_ace_ace_six_seven_eight_is_thirteen_or_seventeen_as_a_flush() -> None:
    score = show("AH AC 6D 7S | 8S")
    assert breakdown(score) == (13, 8, 2, 3, 0, 0)
    assert items_of(score, "fifteen") == ["7S 8S", "AC 6D 8S", "AH 6D 8S", "AC AH 6D 7S"]
    assert score.words() == (
        "fifteen two, fifteen four, fifteen six, fifteen eight, a run of three is eleven, "
        "and a pair is thirteen"
    )
    flush = show("AH 6H 7H 8H | AC")
    assert breakdown(flush) == (17, 8, 2, 3, 4, 0)
    assert items_of(flush, "flush") == ["AH 6H 7H 8H"]
    assert flush.words().endswith("a pair is thirteen, and a flush of four is seventeen")


def test_crib_four_six_jack_queen_of_one_suit_with_the_five_cut_is_fifteen() -> None:
    score = show("4H 6H JH QH | 5H", crib=True)
    assert breakdown(score) == (15, 6, 0, 3, 5, 1)
    assert items_of(score, "flush") == ["4H 5H 6H JH QH"]
    assert score.words() == (
        "fifteen two, fifteen four, fifteen six, a run of three is nine, "
        "a flush of five is fourteen, and his nobs is fifteen"
    )


def test_quadruple_run_six_six_seven_seven_eight() -> None:
    # The muggins sheet's "16" leaves out the fifteens (7-8 twice): the hand is 20.
    score = show("6H 6C 7S 7D | 8H")
    assert score.pairs + score.runs == 16
    assert breakdown(score) == (20, 4, 4, 12, 0, 0)
    assert items_of(score, "run") == ["6C 7D 8H", "6C 7S 8H", "6H 7D 8H", "6H 7S 8H"]
    assert score.words() == "fifteen two, fifteen four, and a double double run of three is twenty"


def test_double_run_of_four_five_six_seven_eight_eight() -> None:
    # The muggins sheet says 10 without the fifteens; the hand is 14.
    score = show("5S 6H 7C 8D | 8S")
    assert score.pairs + score.runs == 10
    assert breakdown(score) == (14, 4, 2, 8, 0, 0)
    assert items_of(score, "run") == ["5S 6H 7C 8D", "5S 6H 7C 8S"]
    assert score.words() == "fifteen two, fifteen four, and a double run of four is fourteen"


def test_triple_run_four_four_four_five_six() -> None:
    # The muggins sheet says 15 without the fifteens; the hand is 21.
    score = show("4S 4H 4C 5D | 6S")
    assert score.pairs + score.runs == 15
    assert breakdown(score) == (21, 6, 6, 9, 0, 0)
    assert len(items_of(score, "pair")) == 3
    assert score.words() == (
        "fifteen two, fifteen four, fifteen six, and a triple run of three is twenty-one"
    )


def test_only_the_longest_run_counts() -> None:
    score = show("3C 4D 5H 6S | KS")
    assert items_of(score, "run") == ["3C 4D 5H 6S"]
    assert score.runs == 4
    assert show("AC 2D 3H 4S | 5S").runs == 5


def test_ace_is_low_only() -> None:
    assert show("QC KD AH 5S | 9S").runs == 0
    assert show("AC 2D 3H 8S | 9S").runs == 3


def test_court_cards_do_not_pair_with_each_other_or_a_ten() -> None:
    score = show("10C JD QH KS | 2S")
    assert score.pairs == 0
    assert items_of(score, "run") == ["10C JD QH KS"]


# --- flush and nobs --------------------------------------------------------------------------


def test_hand_four_flush_but_no_crib_four_flush() -> None:
    assert show("2H 4H 6H 8H | QS").flush == 4
    assert show("2H 4H 6H 8H | QH").flush == 5
    assert show("2H 4H 6H 8H | QS", crib=True).flush == 0
    assert show("2H 4H 6H 8H | QH", crib=True).flush == 5
    assert items_of(show("2H 4H 6H 8H | QH", crib=True), "flush") == ["2H 4H 6H 8H QH"]


def test_crib_four_flush_house_rule() -> None:
    score = show("2H 4H 6H 8H | QS", crib=True, crib_four_flush=True)
    assert score.flush == 4
    assert items_of(score, "flush") == ["2H 4H 6H 8H"]
    assert show("2H 4H 6H 8H | QH", crib=True, crib_four_flush=True).flush == 5
    # The house rule is about the crib; a hand already counts four.
    assert show("2H 4H 6H 8H | QS", crib_four_flush=True).flush == 4


def test_three_hand_cards_and_the_starter_are_no_flush() -> None:
    assert show("2H 4H 6H 8S | QH").flush == 0
    assert show("2H 4H 6H 8S | QH", crib=True, crib_four_flush=True).flush == 0


def test_his_nobs_is_a_hand_jack_of_the_starters_suit() -> None:
    assert items_of(show("JH 2C 4D 8S | 9H"), "nobs") == ["JH"]
    assert show("JH 2C 4D 8S | 9S").nobs == 0
    assert show("JH 2C 4D 8S | 9H", crib=True).nobs == 1


def test_a_starter_jack_never_scores_nobs() -> None:
    score = show("AH 3C 7D 9S | JH")
    assert score.nobs == 0
    assert score.total == 0
    assert show("JH JC 8D 9S | JS").nobs == 0


def test_flush_points_reads_suits() -> None:
    hearts = [Suit.HEARTS] * 4
    assert flush_points(hearts, Suit.SPADES) == 4
    assert flush_points(hearts, Suit.HEARTS) == 5
    assert flush_points(hearts, Suit.SPADES, crib=True) == 0
    assert flush_points(hearts, Suit.SPADES, crib=True, crib_four_flush=True) == 4
    assert flush_points([*hearts[:3], Suit.CLUBS], Suit.HEARTS) == 0
    with pytest.raises(ShowError, match="four hand suits, got 3"):
        flush_points(hearts[:3], Suit.HEARTS)


# --- words and items -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("2H 4C 6D 8S | QS", "no points"),
        ("2D KC 7S 5H | 9H", "fifteen two"),
        ("3D QH 9H 9C | JD", "a pair is two"),
        ("5H 10C 5D 4S | 8S", "fifteen two, fifteen four, and a pair is six"),
        ("7H 7C 8D 8S | KS", "fifteen two, fifteen four, fifteen six, fifteen eight, "
                             "and two pairs is twelve"),
        ("3H 3C 3D 9S | 9H", "fifteen two, fifteen four, fifteen six, fifteen eight, "
                             "fifteen ten, fifteen twelve, pair royal is eighteen, "
                             "and a pair is twenty"),
        ("2H 2C 2D 2S | KH", "double pair royal is twelve"),
        ("JC 10S QH 3C | 7D", "a run of three is three"),
        ("10C 3S KD JC | 7C", "his nobs is one"),
        ("2H 4H 6H 8H | QS", "a flush of four is four"),
    ],
)
def test_words(text: str, words: str) -> None:
    assert show(text).words() == words


def test_a_zero_hand_says_no_points() -> None:
    score = show("2H 4C 6D 8S | QS")
    assert score.total == 0
    assert score.items == ()
    assert "nineteen" not in score.words()


def test_item_words() -> None:
    words = [item.words() for item in show("4H 6H JH QH | 5H", crib=True).items]
    assert words == [
        "fifteen", "fifteen", "fifteen", "a run of three", "a flush of five", "his nobs",
    ]
    assert show("5H 10C 5D 4S | 8S").items[-1].words() == "a pair of fives"
    assert show("6H 6C AD 3S | 8S").items[-1].words() == "a pair of sixes"


def test_number_words() -> None:
    assert [number_word(n) for n in (0, 15, 21, 29)] == [
        "zero", "fifteen", "twenty-one", "twenty-nine",
    ]
    with pytest.raises(ValueError, match="30"):
        number_word(30)


def test_to_json_is_the_contract_shape() -> None:
    score = show("5H 10D 4C 6S | 9S")
    assert score.to_json() == {
        "total": 9, "fifteens": 6, "pairs": 0, "runs": 3, "flush": 0, "nobs": 0, "items": [
            {"kind": "fifteen", "cards": ["5H", "10D"], "points": 2},
            {"kind": "fifteen", "cards": ["6S", "9S"], "points": 2},
            {"kind": "fifteen", "cards": ["4C", "5H", "6S"], "points": 2},
            {"kind": "run", "cards": ["4C", "5H", "6S"], "points": 3},
        ],
    }


def test_parse_show() -> None:
    hand, starter = parse_show("5h 5c 5s jd | 5d")
    assert hand == parse_cards("5H 5C 5S JD") and starter == Card.parse("5D")
    with pytest.raises(ShowError, match="'5H 5C 5S JD'"):
        parse_show("5H 5C 5S JD")
    with pytest.raises(ShowError, match="got '5H 5C 5S | JD 5D'"):
        parse_show("5H 5C 5S | JD 5D")


# --- validation ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "starter", "message"),
    [
        ("5H 5C 5S", "5D", "four cards and the starter, got 3 cards: 5H 5C 5S | 5D"),
        ("5H 5C 5S JD 2C", "5D", "got 5 cards: 5H 5C 5S JD 2C | 5D"),
        ("5H 5C 5H JD", "5D", "5H is in the hand twice: 5H 5C 5H JD | 5D"),
        ("5H 5C 5S JD", "JD", "the starter JD is also in the hand: 5H 5C 5S JD | JD"),
    ],
)
def test_bad_shows_raise_a_typed_error_quoting_the_cards(
    hand: str, starter: str, message: str
) -> None:
    for scorer in (score_show, show_total):
        with pytest.raises(ShowError) as caught:
            scorer(parse_cards(hand), Card.parse(starter))
        assert message in str(caught.value)
        assert isinstance(caught.value, EngineError) and isinstance(caught.value, ValueError)


def test_not_a_card_is_a_typed_error() -> None:
    hand = [*parse_cards("5H 5C 5S"), "JD"]
    with pytest.raises(ShowError, match=r"not a card: 'JD' in the show 5H 5C 5S 'JD' \| 5D"):
        score_show(hand, Card.parse("5D"))  # type: ignore[arg-type]
    with pytest.raises(ShowError, match="not a card: None"):
        show_total(parse_cards("5H 5C 5S JD"), None)  # type: ignore[arg-type]


def test_any_sequence_of_equal_cards_is_accepted() -> None:
    # Cards built directly (not the interned DECK objects) and non-list sequences.
    hand = (Card(Rank.FIVE, Suit.HEARTS), Card(Rank.FIVE, Suit.CLUBS),
            Card(Rank.FIVE, Suit.SPADES), Card(Rank.JACK, Suit.DIAMONDS))
    assert score_show(hand, Card(Rank.FIVE, Suit.DIAMONDS)).total == 29
    assert show_total(iter(hand), Card(Rank.FIVE, Suit.DIAMONDS)) == 29  # type: ignore[arg-type]


def test_rank_points_rejects_bad_ranks() -> None:
    with pytest.raises(ShowError, match="five ranks"):
        rank_points([1, 2, 3, 4])
    with pytest.raises(ShowError, match="five ranks"):
        rank_points([0, 2, 3, 4, 5])
    with pytest.raises(ShowError, match="five cards of rank 5"):
        rank_points([5, 5, 5, 5, 5])


def test_rank_points_table() -> None:
    table = rank_points_table()
    assert len(table) == RANK_TABLE_SIZE
    assert sum(1 for points in table if points >= 0) == 6175
    assert table[rank_table_index([5, 5, 5, 5, 11])] == 28
    assert table[rank_table_index([2, 4, 6, 8, 12])] == 0
    assert table[rank_table_index([5, 5, 5, 5, 5])] == -1


# --- properties ------------------------------------------------------------------------------

five_cards = st.lists(st.sampled_from(DECK), min_size=5, max_size=5, unique=True)
rules = st.fixed_dictionaries({"crib": st.booleans(), "crib_four_flush": st.booleans()})


def reference_breakdown(hand: list[Card], starter: Card, *, crib: bool,
                        crib_four_flush: bool) -> tuple[int, int, int, int, int]:
    """The rules read literally, as slowly as they are written."""
    cards = [*hand, starter]
    fifteens = 2 * sum(
        1 for size in range(2, 6) for subset in itertools.combinations(cards, size)
        if sum(card.value for card in subset) == 15
    )
    pairs = 2 * sum(1 for a, b in itertools.combinations(cards, 2) if a.rank == b.rank)
    runs = 0
    for size in (5, 4, 3):
        for subset in itertools.combinations(cards, size):
            ranks = sorted(card.rank for card in subset)
            if all(b - a == 1 for a, b in itertools.pairwise(ranks)):
                runs += size
        if runs:
            break
    flush = 0
    if len({card.suit for card in hand}) == 1:
        if starter.suit == hand[0].suit:
            flush = 5
        elif not crib or crib_four_flush:
            flush = 4
    nobs = sum(1 for card in hand if card.rank == Rank.JACK and card.suit == starter.suit)
    return fifteens, pairs, runs, flush, nobs


@given(five_cards, rules)
def test_matches_the_rules_read_literally(cards: list[Card], rules: dict[str, bool]) -> None:
    score = score_show(cards[:4], cards[4], **rules)
    expected = reference_breakdown(cards[:4], cards[4], **rules)
    assert breakdown(score)[1:] == expected


@given(five_cards, rules, st.data())
def test_hand_order_does_not_matter(cards: list[Card], rules: dict[str, bool],
                                    data: st.DataObject) -> None:
    hand = data.draw(st.permutations(cards[:4]))
    assert score_show(hand, cards[4], **rules) == score_show(cards[:4], cards[4], **rules)


@given(five_cards, rules)
def test_total_is_the_sum_of_the_items_and_of_the_kinds(cards: list[Card],
                                                        rules: dict[str, bool]) -> None:
    score = score_show(cards[:4], cards[4], **rules)
    assert score.total == sum(item.points for item in score.items)
    assert score.total == score.fifteens + score.pairs + score.runs + score.flush + score.nobs
    assert 0 <= score.total <= 29 and score.total not in (19, 25, 26, 27)
    points = {"fifteen": 2, "pair": 2, "nobs": 1}
    for item in score.items:
        assert item.points == points.get(item.kind, len(item.cards))
        assert set(item.cards) <= {*cards}


@given(five_cards, rules)
def test_show_total_agrees_with_score_show(cards: list[Card], rules: dict[str, bool]) -> None:
    assert show_total(cards[:4], cards[4], **rules) == score_show(cards[:4], cards[4],
                                                                  **rules).total


@given(five_cards, rules, st.permutations(list(Suit)))
def test_relabelling_suits_changes_nothing(cards: list[Card], rules: dict[str, bool],
                                           suits: list[Suit]) -> None:
    relabel = dict(zip(Suit, suits, strict=True))
    moved = [Card(card.rank, relabel[card.suit]) for card in cards]
    before = score_show(cards[:4], cards[4], **rules)
    after = score_show(moved[:4], moved[4], **rules)
    assert breakdown(after) == breakdown(before)
    assert Counter((i.kind, i.points, tuple(c.rank for c in i.cards)) for i in after.items) == (
        Counter((i.kind, i.points, tuple(c.rank for c in i.cards)) for i in before.items)
    )


@given(five_cards)
def test_a_crib_differs_from_a_hand_only_by_a_four_flush(cards: list[Card]) -> None:
    hand = score_show(cards[:4], cards[4])
    crib = score_show(cards[:4], cards[4], crib=True)
    assert hand.total - crib.total in (0, 4)
    assert [i for i in hand.items if i.kind != "flush"] == [
        i for i in crib.items if i.kind != "flush"
    ]


# --- the module itself ---------------------------------------------------------------------


def test_doctests() -> None:
    result = doctest.testmod(engine.show)
    assert result.attempted >= 15 and result.failed == 0


def test_the_show_imports_only_the_standard_library() -> None:
    code = (
        "import sys, engine.show; "
        "heavy = {'numpy', 'cv2', 'gpiozero', 'vision', 'hardware', 'firmware'}; "
        "heavy &= set(sys.modules); "
        "print(sorted(heavy))"
    )
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True,
                          text=True, timeout=60, check=True)
    assert done.stdout.strip() == "[]"
