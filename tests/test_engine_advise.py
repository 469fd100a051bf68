"""Discard advice: checked card for card against a brute force that scores every crib."""

from __future__ import annotations

import itertools
import json
import random
from fractions import Fraction

import pytest

from engine.advise import AdviceError, DiscardOption, rank_discards
from engine.cards import DECK, Card, parse_cards
from engine.show import show_total


def brute_force(dealt: tuple[Card, ...], option: DiscardOption, *, players: int,
                crib_four_flush: bool = False) -> tuple[Fraction, Fraction]:
    """Scores the kept hand with every starter and every whole crib, one by one."""
    unseen = [card for card in DECK if card not in dealt]
    hand = Fraction(sum(show_total(option.keep, s) for s in unseen), len(unseen))
    from_deck = 4 - len(option.discard)
    total = count = 0
    for fill in itertools.combinations(unseen, from_deck):
        crib = option.discard + fill
        for starter in unseen:
            if starter in fill:
                continue
            total += show_total(crib, starter, crib=True, crib_four_flush=crib_four_flush)
            count += 1
    return hand, Fraction(total, count)


def option_for(options: tuple[DiscardOption, ...], keep: str) -> DiscardOption:
    wanted = set(parse_cards(keep))
    return next(o for o in options if set(o.keep) == wanted)


def test_contract_example_numbers() -> None:
    options = rank_discards(parse_cards("5H 5C 5S JD QH 2C"), dealer=True)
    assert option_for(options, "5C 5H 5S JD").to_json() == {
        "keep": ["5C", "5H", "5S", "JD"], "discard": ["2C", "QH"],
        "hand": 16.521739, "crib": 3.595169, "net": 20.116908}


def test_pone_keeps_three_fives_and_the_jack() -> None:
    best = rank_discards(parse_cards("5H 5C 5S JD QH 2C"), dealer=False)[0]
    assert [str(c) for c in best.keep] == ["5C", "5H", "5S", "JD"]
    assert [str(c) for c in best.discard] == ["2C", "QH"]


def test_every_discard_listed_best_first_in_canonical_order() -> None:
    options = rank_discards(parse_cards("KS 2D 9C 9H AS 7D"), dealer=False)
    assert len(options) == 15
    assert len({o.discard for o in options}) == 15
    assert [o.net for o in options] == sorted((o.net for o in options), reverse=True)
    for option in options:
        assert list(option.keep) == sorted(option.keep)
        assert list(option.discard) == sorted(option.discard)
        assert option.net == option.hand - option.crib
    assert len(rank_discards(parse_cards("KS 2D 9C 9H AS"), dealer=True, players=3)) == 5


@pytest.mark.parametrize("seed", [3, 17])
def test_two_players_against_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    dealt = tuple(rng.sample(DECK, 6))
    options = rank_discards(dealt, dealer=bool(seed % 2))
    for option in rng.sample(options, 3):
        assert (option.hand, option.crib) == brute_force(dealt, option, players=2)


def test_crib_flush_and_nobs_against_brute_force() -> None:
    # Suited throws with a jack: the crib's flush and nobs parts are exercised.
    dealt = parse_cards("JH 4H 9C 9D 2S KS")
    options = rank_discards(dealt, dealer=True)
    option = option_for(options, "9C 9D 2S KS")
    assert (option.hand, option.crib) == brute_force(dealt, option, players=2)
    house = option_for(rank_discards(dealt, dealer=True, crib_four_flush=True), "9C 9D 2S KS")
    assert house.crib > option.crib
    assert (house.hand, house.crib) == brute_force(dealt, house, players=2,
                                                   crib_four_flush=True)


@pytest.mark.slow
@pytest.mark.parametrize("players", [3, 4])
def test_three_and_four_players_against_brute_force(players: int) -> None:
    rng = random.Random(players)
    dealt = tuple(rng.sample(DECK, 5))
    options = rank_discards(dealt, dealer=False, players=players)
    option = options[0]
    assert (option.hand, option.crib) == brute_force(dealt, option, players=players)


def test_three_and_four_players_fill_the_crib_the_same_way() -> None:
    dealt = parse_cards("5H 6H 7C JS QD")
    assert rank_discards(dealt, dealer=True, players=3) == rank_discards(
        dealt, dealer=True, players=4)


@pytest.mark.parametrize(("cards", "players", "message"), [
    ("5H 5C 5S JD QH", 2, "2 players are dealt 6 cards each, got 5"),
    ("5H 5C 5S JD QH 2C", 3, "3 players are dealt 5 cards each, got 6"),
    ("5H 5C 5S JD 5H 2C", 2, "5H is in the hand twice"),
    ("5H 5C 5S JD QH 2C", 5, "played by 2, 3 or 4 players, not 5"),
])
def test_bad_hands_are_refused_in_words(cards: str, players: int, message: str) -> None:
    with pytest.raises(AdviceError, match=message):
        rank_discards(parse_cards(cards), dealer=True, players=players)


def test_cli_json_is_the_contract_shape(capsys: pytest.CaptureFixture[str]) -> None:
    from firmware.commands.cli import main

    assert main(["advise", "5H", "5C", "5S", "JD", "QH", "2C", "--pone", "--json"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and out.count("\n") == 1
    data = json.loads(out)
    assert (data["players"], data["seat"], len(data["options"])) == (2, "pone", 15)
    assert data["options"][0] == {"keep": ["5C", "5H", "5S", "JD"], "discard": ["2C", "QH"],
                                  "hand": 16.521739, "crib": 3.595169, "net": 12.92657}


def test_cli_text_ranks_best_first_and_refuses_a_wrong_count(
        capsys: pytest.CaptureFixture[str]) -> None:
    from firmware.commands.cli import main

    assert main(["advise", "5H", "5C", "5S", "JD", "QH", "2C", "--dealer", "--top", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("5H 5C 5S JD QH 2C: dealer, 2 players")
    assert lines[2].split()[:6] == ["5C", "5H", "5S", "QH", "2C", "JD"]
    assert len(lines) == 4
    assert main(["advise", "5H", "5C", "5S", "JD", "QH", "2C", "--dealer", "--players", "3"]) == 2
    assert capsys.readouterr().err == (
        "cribbage-board advise: 3 players are dealt 5 cards each, got 6: 5H 5C 5S JD QH 2C\n")


def test_doctests() -> None:
    import doctest

    import engine.advise

    result = doctest.testmod(engine.advise)
    assert result.attempted > 0 and result.failed == 0
