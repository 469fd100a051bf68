"""Whole simulated games: the engine against an independent reference scorer, and go inference.

The simulator deals real random hands and plays by the must-play rule, so
its logs are legal games of every size. The reference below scores them
with brute force and no go inference at all (it is given the go events).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from engine.cards import Card
from engine.game import Game
from engine.show import score_show
from engine.simulate import deal_cards, play_order, simulate_game

TABLES = [
    (["Ann", "Bob"], {}),
    (["Ann", "Bob", "Cid"], {}),
    (["Ann", "Bob", "Cid"], {"last_player_continues": False}),
    (["Ann", "Bob", "Cid", "Dan"], {}),
    (["Ann", "Bob", "Cid", "Dan"], {"partnership": True}),
    (["Ann", "Bob"], {"target": 61}),
    (["Ann", "Bob"], {"muggins": True}),
    (["Ann", "Bob", "Cid"], {"dealer_bonus": 3, "stink_hole": True}),
]


def reference_scores(events: list[dict], rules: dict) -> tuple[list[int], int | None]:
    """Scores a simulated log (with explicit go events) by brute force, ACC rules only."""
    players = events[0]["players"]
    n = len(players)
    partnership = rules.get("partnership", False)
    side_of = [i % 2 for i in range(n)] if partnership else list(range(n))
    target = rules.get("target", 121)
    scores = [0] * (2 if partnership else n)
    winner: int | None = None

    def peg(player: int, points: int) -> None:
        nonlocal winner
        if winner is None:
            side = side_of[player]
            scores[side] = min(target, scores[side] + points)
            if scores[side] == target:
                winner = side

    dealer = 0
    starter: Card | None = None
    pile: list[Card] = []
    last = 0
    laid = 0
    held = [4] * n
    gone: set[int] = set()
    for event in events[1:]:
        kind = event["type"]
        if kind == "deal":
            dealer = players.index(event["dealer"]) if "dealer" in event else (dealer + 1) % n
            pile, laid, held, gone = [], 0, [4] * n, set()
        elif kind == "starter":
            starter = Card.parse(event["card"])
            if starter.rank == 11:
                peg(dealer, 2)
        elif kind == "play":
            card, player = Card.parse(event["card"]), players.index(event["player"])
            if sum(c.value for c in pile) + card.value > 31:
                peg(last, 1)
                pile, gone = [], set()
            pile.append(card)
            laid += 1
            held[player] -= 1
            count = sum(c.value for c in pile)
            points = 2 if count in (15, 31) else 0
            same = next((k for k in range(len(pile), 1, -1)
                         if len({c.rank for c in pile[-k:]}) == 1), 1)
            points += {1: 0, 2: 2, 3: 6, 4: 12}[same]
            for k in range(len(pile), 2, -1):
                ranks = sorted(int(c.rank) for c in pile[-k:])
                if ranks == list(range(ranks[0], ranks[0] + k)):
                    points += k
                    break
            if laid == 4 * n and count != 31:
                points += 1
            peg(player, points)
            last = player
            if count == 31:
                pile, gone = [], set()
            elif laid < 4 * n and all(p in gone for p in range(n) if held[p]):
                # Everyone still holding cards has said go: the go is the player's at once
                # (it can win the game before anybody says go again).
                peg(last, 1)
                pile, gone = [], set()
        elif kind == "go":
            gone.add(players.index(event["player"]))
            if all(p in gone for p in range(n) if held[p]):  # nobody left who can play
                peg(last, 1)
                pile, gone = [], set()
        elif kind in ("show", "crib"):
            assert starter is not None
            cards = [Card.parse(c) for c in event["cards"]]
            scorer = players.index(event["player"]) if kind == "show" else dealer
            peg(scorer, score_show(cards, starter, crib=kind == "crib").total)
    return scores, winner


@pytest.mark.parametrize(("players", "rules"), [t for t in TABLES if set(t[1]) <= {"partnership",
                                                                                   "target"}])
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
@example(seed=3601)  # 2 players: won on a go point scored by a last card nobody can answer
@example(seed=338)  # partners: the same
def test_engine_agrees_with_the_reference_on_whole_games(players, rules, seed) -> None:
    events = simulate_game(random.Random(seed), players, rules, explicit_go=True)
    game = Game.replay(events)
    expected_scores, expected_winner = reference_scores(events, rules)
    assert [s.score for s in game.sides] == expected_scores
    assert game.winner == game.sides[expected_winner].name


@pytest.mark.parametrize(("players", "rules"), TABLES)
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_go_events_are_optional(players, rules, seed) -> None:
    """The engine infers every go from the cards: the logs with and without go events agree."""
    with_go = Game.replay(simulate_game(random.Random(seed), players, rules, explicit_go=True))
    without = Game.replay(simulate_game(random.Random(seed), players, rules))
    assert [s.score for s in with_go.sides] == [s.score for s in without.sides]
    assert with_go.winner == without.winner and with_go.result == without.result
    assert with_go.winner is not None


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.sampled_from([2, 3, 4]))
def test_points_add_up_to_the_scores(seed: int, players: int) -> None:
    names = ["Ann", "Bob", "Cid", "Dan"][:players]
    game = Game.replay(simulate_game(random.Random(seed), names))
    for side in game.sides:
        assert sum(p.points for p in game.points if p.side == side.name) == side.score
        assert 0 <= side.pegs[1] <= side.pegs[0] == side.score
    loser_scores = [s.score for s in game.sides if s.name != game.winner]
    assert max(loser_scores) < 121 and game.result in ("win", "skunk", "double_skunk")


def test_dealt_hands_are_distinct_cards_and_the_play_lays_them_all() -> None:
    rng = random.Random(7)
    for players in (2, 3, 4):
        script = deal_cards(rng, players, dealer=0)
        cards = [c for hand in script.hands for c in hand] + list(script.crib) + [script.starter]
        assert len(cards) == len(set(cards)) == 4 * players + 5
        steps = play_order(script, rng)
        assert sorted(c for kind, _, c in steps if kind == "play") == sorted(
            c for hand in script.hands for c in hand)
