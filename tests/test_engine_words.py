"""engine.words: the scores and the match points as the table, the page and the CLI say them."""

from __future__ import annotations

from logdsl import play

from engine.game import Game
from engine.words import fold_name, points_words, scores_words


def test_the_scores_in_seating_order_from_the_sides_or_their_json() -> None:
    game = play("new Ann Bob Cat", "deal Ann", "starter JH")  # two for his heels, to Ann
    assert scores_words(game.sides) == "Ann 2, Bob 0, Cat 0"
    assert scores_words(side.to_json() for side in game.sides) == "Ann 2, Bob 0, Cat 0"
    assert scores_words(()) == ""


def test_match_points_are_said_as_the_scores_are() -> None:
    game = play("new Ann Bob", "deal Ann", "starter JH")
    assert points_words({"Ann": 2, "Bob": 0}) == "Ann 2, Bob 0"
    assert points_words({s.name: s.score for s in game.sides}) == scores_words(game.sides)
    assert points_words(Game().match_points) == ""


def test_a_name_folds_with_case_and_runs_of_spaces_aside() -> None:
    assert fold_name("  aNN   lee ") == fold_name("Ann Lee") == "ann lee"
    assert fold_name("Ann") != fold_name("Anne")
