"""Table events beside the contract's: a misread card corrected, a misdeal, the match's length."""

from __future__ import annotations

import pytest
from logdsl import log, pegged, play, scores
from test_engine_game import DEAL_2P, POINTS_2P

from engine.game import Game, LogError
from engine.rules import Rules

# -- correct -----------------------------------------------------------------------------


def test_a_corrected_card_refolds_the_deal_and_says_what_changed() -> None:
    # DEAL_2P's Ann laid 10H on Bob's 5S for fifteen two; it was really the 9H.
    game = play(*DEAL_2P[:6], "correct 10H 9H")
    assert pegged(game) == [(2, "Ann", 2, "his_heels")]  # no fifteen for 5 + 9
    fix = game.last_correction
    assert fix is not None and fix.lines == (4,)
    assert [(p.side, p.points, p.words) for p in fix.gone] == [("Ann", 2, "fifteen two")]
    assert [s.score for s in fix.before] == [4, 0] and [s.score for s in fix.after] == [2, 0]
    assert game.count == 19 and str(game.pile[1]) == "9H"


def test_a_correction_reads_the_card_right_in_the_show_of_that_deal_too() -> None:
    game = play(*DEAL_2P[:12], "correct 5H 4H")
    assert game.next == "Ann's show"
    game.apply({"type": "show", "player": "Ann", "cards": ["10H", "6C", "9C", "7D"]})
    game = play(*DEAL_2P[:12], "correct 5S 4S")
    fix = game.last_correction
    assert fix is not None and fix.lines == (3, 11)  # Bob's play and Bob's show
    assert scores(game)[1] < dict((p[0], p[2]) for p in POINTS_2P)[11]


def test_a_correction_that_breaks_the_rules_changes_nothing() -> None:
    game = play(*DEAL_2P[:6])
    with pytest.raises(LogError) as info:
        game.apply({"type": "correct", "was": "5H", "card": "5S"})  # Bob laid 5S already
    assert info.value.rule == "correct_refused"
    assert "5H cannot be read as 5S: then line 6 breaks the rules" in str(info.value)
    assert scores(game) == [4, 0] and game.last_correction is None
    with pytest.raises(LogError, match="no QD was read in this game"):
        game.apply({"type": "correct", "was": "QD", "card": "KD"})
    with pytest.raises(LogError, match="must name another card than 5H"):
        game.apply({"type": "correct", "was": "5H", "card": "5h"})


def test_a_finished_game_is_put_right_with_undo() -> None:
    game = play("new Ann Bob", "adjust Ann 117", "deal Ann", "starter JH", "play Bob 5S",
                "play Ann 10H")
    with pytest.raises(LogError, match="put right with undo"):
        game.apply({"type": "correct", "was": "10H", "card": "9H"})


def test_corrections_stack_and_replay_from_the_log() -> None:
    events = log(*DEAL_2P[:6], "correct 10H 9H", "correct 9H 8H")
    game = Game.replay(events)
    assert str(game.pile[1]) == "8H" and scores(game) == [2, 0]
    assert game.last_correction is not None and game.last_correction.lines == (4,)
    game.apply({"type": "play", "player": "Ann", "card": "2C"})  # 5 + 8 + 5 + 2 = 20
    assert game.last_correction is None


# -- misdeal -----------------------------------------------------------------------------


def test_a_misdeal_is_redealt_by_the_same_dealer_with_the_acc_penalty() -> None:
    game = play("new Ann Bob", "deal Ann", "misdeal")
    assert game.dealer == "Ann" and game.next == "the starter card"
    assert [(p.side, p.points, p.words) for p in game.points] == [
        ("Bob", 2, "2 for Ann's misdeal")]
    game = play("new Ann Bob", "deal Ann", "misdeal", rules={"misdeal_penalty": 0})
    assert scores(game) == [0, 0] and game.dealer == "Ann"


def test_a_misdeal_is_called_before_the_cut() -> None:
    with pytest.raises(LogError, match="a misdeal is called after the deal and before the cut"):
        play("new Ann Bob", "deal Ann", "starter 2C", "misdeal")


# -- the match's length ---------------------------------------------------------------------


def test_best_of_three_has_match_point_and_a_winner() -> None:
    events = log("new Ann Bob", "deal Ann", "adjust Bob 100", "adjust Ann 121",
                 rules={"best_of": 3})
    game = Game.replay(events)
    assert game.match_point == ("Ann",) and game.match_winner is None
    events += log("new Ann Bob", "deal", "adjust Bob 100", "adjust Ann 121",
                  rules={"best_of": 3})
    game = Game.replay(events)
    assert game.match_winner == "Ann" and game.match_point == ()
    assert game.to_json()["match"]["winner"] == "Ann"
    with pytest.raises(LogError, match=r"the match is over \(Ann won it\)"):
        game.apply({"type": "new_game", "players": ["Ann", "Bob"], "rules": {"best_of": 3}})


def test_first_to_match_points_counts_skunks() -> None:
    game = play("new Ann Bob", "deal Ann", "adjust Bob 80", "adjust Ann 121",
                rules={"first_to": 3})
    assert game.match_points == {"Ann": 2, "Bob": 0} and game.match_point == ("Ann",)
    assert game.to_json()["match"] == {"games": [{"winner": "Ann", "result": "skunk"}],
                                       "points": {"Ann": 2, "Bob": 0}, "winner": None}


@pytest.mark.parametrize(("rules", "message"), [
    ({"best_of": 2}, "rules.best_of must be an odd number of games"),
    ({"first_to": 0}, "rules.first_to must be a number of match points"),
    ({"best_of": 3, "first_to": 5}, "best_of 3 games or first_to 5 points, not both"),
    ({"misdeal_penalty": -1}, "rules.misdeal_penalty must be a number of points"),
])
def test_bad_match_rules_are_refused_in_words(rules: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Rules.from_json(rules)


def test_a_correction_reads_the_card_right_in_a_recorded_discard_too() -> None:
    events = log(*DEAL_2P[:14])
    events.append({"type": "discard", "player": "Ann", "cards": ["2C", "3C"]})
    events.append({"type": "correct", "was": "3C", "card": "4C"})
    game = Game.replay(events)
    fix = game.last_correction
    assert fix is not None and fix.lines == (13, 14)  # the crib and Ann's throw
    assert [(p.reason, p.points) for p in fix.gone] == [("crib", 4)]
    assert [(p.reason, p.points, p.words) for p in fix.added] == [("crib", 2, "fifteen two")]
