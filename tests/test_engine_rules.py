"""Rules variants: ACC defaults, house options by name, clear errors for the rest."""

import pytest

from engine.errors import RulesError
from engine.rules import Rules


def test_defaults_are_acc_tournament_rules() -> None:
    rules = Rules.from_json({})
    assert (rules.target, rules.skunk, rules.double_skunk) == (121, 91, 61)
    assert rules.game_values == (1, 2, 4)
    assert rules.last_player_continues and not rules.muggins and not rules.stink_hole
    assert rules.dealer_bonus == 0 and not rules.crib_four_flush and not rules.early_double_skunk


def test_sixty_one_point_game_moves_the_lines() -> None:
    rules = Rules.from_json({"target": 61})
    assert (rules.skunk, rules.double_skunk) == (31, None)


def test_every_house_variant_is_a_named_option() -> None:
    rules = Rules.from_json({
        "muggins": True, "muggins_heels": True, "dealer_bonus": 3, "crib_four_flush": True,
        "stink_hole": True, "early_double_skunk": True, "last_player_continues": False,
        "skunk": 90, "double_skunk": None, "game_values": [1, 2, 2],
    }, players=3)
    assert rules.dealer_bonus == 3 and rules.double_skunk is None
    assert rules.early_double_skunk_line == 61
    assert Rules.from_json(rules.to_json(), players=3) == rules


@pytest.mark.parametrize(
    ("data", "players", "message"),
    [
        ({"tagret": 121}, 2, "unknown rules key 'tagret'"),
        ({"target": 100}, 2, "rules.target must be 121 or 61"),
        ({"muggins": "yes"}, 2, "rules.muggins must be true or false"),
        ({"partnership": True}, 3, "partnership needs four players"),
        ({"skunk": 200}, 2, "rules.skunk must be a score"),
        ({"game_values": [1, 2]}, 2, "rules.game_values must be three"),
        ({"dealer_bonus": -1}, 2, "rules.dealer_bonus"),
        ({"muggins_heels": True}, 2, "needs rules.muggins"),
        ({"skunk": 50, "double_skunk": 70}, 2, "must not be above"),
    ],
)
def test_bad_rules_are_rejected_with_the_key_named(data: dict, players: int, message: str) -> None:
    with pytest.raises(RulesError, match=message):
        Rules.from_json(data, players=players)
