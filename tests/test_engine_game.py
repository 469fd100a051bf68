"""The game fold: whole deals point by point, game end, skunks, matches, muggins and variants."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from logdsl import log, pegged, play, scores

from engine.cards import parse_cards
from engine.errors import GameOverError
from engine.game import Game, LogError
from engine.show import score_show

# Two players, Ann deals; every kind of play score and two inferred goes.
DEAL_2P = (
    "new Ann Bob",
    "deal Ann",
    "starter JH",  # 2: his heels, Ann 2
    "play Bob 5S",
    "play Ann 10H",  # 4: fifteen, Ann 2
    "play Bob 5H",
    "play Ann 6C",  # count 26: Bob (KD JC) and Ann (9C 7D) cannot play
    "play Bob KD",  # 7: the count closed first: go, Ann 1; Bob leads the next count
    "play Ann 9C",
    "play Bob JC",  # count 29, Bob's last card
    "play Ann 7D",  # 10: go for Bob; Ann's 7D is the last card, Ann 1
    "show Bob 5S 5H KD JC",  # 11: 16
    "show Ann 10H 6C 9C 7D",  # 12: 5
    "crib 2C 3C 9D KH",  # 13: 4
)
POINTS_2P = [
    (2, "Ann", 2, "his_heels"), (4, "Ann", 2, "fifteen"), (7, "Ann", 1, "go"),
    (10, "Bob", 1, "go"), (10, "Ann", 1, "last_card"), (11, "Bob", 16, "hand"),
    (12, "Ann", 5, "hand"), (13, "Ann", 4, "crib"),
]


def test_two_player_deal_point_by_point() -> None:
    game = play(*DEAL_2P)
    assert pegged(game) == POINTS_2P
    assert scores(game) == [15, 17]
    assert [side.pegs for side in game.sides] == [(15, 11), (17, 1)]
    assert game.phase == "deal" and game.turn == "Bob" and game.next == "the deal (Bob deals)"


def test_explicit_go_events_agree_with_inferred_goes() -> None:
    lines = list(DEAL_2P)
    lines[7:7] = ["go Bob", "go Ann"]  # Ann's own go closes the count: she laid the last card
    lines[12:12] = ["go Ann"]  # Bob has no cards left, so Ann's go closes the count
    game = play(*lines)
    assert scores(game) == [15, 17]
    gos = [(e, side, reason) for e, side, _, reason in pegged(game) if reason == "go"]
    assert gos == [(8, "Ann", "go"), (12, "Bob", "go")]


def test_show_points_carry_the_count_in_words() -> None:
    game = play(*DEAL_2P)
    bob = next(p for p in game.points if p.reason == "hand" and p.side == "Bob")
    assert bob.words.endswith("is sixteen")
    assert bob.words.startswith("fifteen two, fifteen four")


# Three players, Ann deals, Bob leads; the dealer's left counts first and the dealer last.
DEAL_3P = (
    "new Ann Bob Cid",
    "deal Ann",
    "starter 2C",
    "play Bob 10H",
    "play Cid 10S",  # 4: pair, Cid 2
    "play Ann 5D",  # 25: Bob (9C 8H 7S) and Cid (9S 8C 7H) cannot play; Ann continues
    "play Ann 6D",  # 6: 31, Ann 2; Bob leads
    "play Bob 9C",
    "play Cid 9S",  # 8: pair, Cid 2
    "play Ann KC",  # 28: nobody can play
    "play Bob 8H",  # 10: go, Ann 1
    "play Cid 8C",  # 11: pair, Cid 2
    "play Ann QH",  # 26, Ann is out of cards
    "play Bob 7S",  # 13: go, Ann 1
    "play Cid 7H",  # 14: pair 2 and the last card 1 for Cid
    "show Bob 10H 9C 8H 7S",
    "show Cid 10S 9S 8C 7H",
    "show Ann 5D 6D KC QH",
    "crib 4H 4D AC 3S",
)


def test_three_player_deal_point_by_point() -> None:
    game = play(*DEAL_3P)
    starter = parse_cards("2C")[0]
    show = [score_show(parse_cards(h), starter).total
            for h in ("10H 9C 8H 7S", "10S 9S 8C 7H", "5D 6D KC QH")]
    crib = score_show(parse_cards("4H 4D AC 3S"), starter, crib=True).total
    assert pegged(game) == [
        (4, "Cid", 2, "pair"), (6, "Ann", 2, "thirty_one"), (8, "Cid", 2, "pair"),
        (10, "Ann", 1, "go"), (11, "Cid", 2, "pair"), (13, "Ann", 1, "go"),
        (14, "Cid", 2, "pair"), (14, "Cid", 1, "last_card"),
        (15, "Bob", show[0], "hand"), (16, "Cid", show[1], "hand"),
        (17, "Ann", show[2], "hand"), (18, "Ann", crib, "crib"),
    ]
    assert game.turn == "Bob"  # the deal passes to the left


def test_three_hand_reading_stops_the_last_player() -> None:
    rules = {"last_player_continues": False}
    with pytest.raises(LogError) as info:
        play(*DEAL_3P[:7], rules=rules)
    assert info.value.rule == "out_of_turn" and info.value.event == 6
    game = play(*DEAL_3P[:6], "play Bob 9C", rules=rules)
    assert pegged(game) == [(4, "Cid", 2, "pair"), (6, "Ann", 1, "go")]
    assert game.count == 9


def test_last_player_continues_has_no_effect_with_two_players() -> None:
    assert scores(play(*DEAL_2P, rules={"last_player_continues": False})) == [15, 17]


# Four players in partnership: Ann & Cid against Bob & Dan; Ann deals, Bob leads.
DEAL_4P = (
    "new Ann Bob Cid Dan",
    "deal Ann",
    "starter 2S",
    "play Bob 7H",
    "play Cid 8D",  # 4: fifteen, Ann & Cid 2
    "play Dan 9S",  # 5: run of three, Bob & Dan 3
    "play Ann 6C",  # 6: run of four, Ann & Cid 4; count 30, nobody can play
    "play Bob KH",  # 7: go for Ann
    "play Cid KD",  # 8: pair
    "play Dan 5S",  # 25: nobody can play
    "play Ann 10S",  # 10: go for Dan; Ann leads
    "play Bob QC",
    "play Cid 9H",  # 29
    "play Dan 10D",  # 13: go for Cid; Dan leads
    "play Ann JH",
    "play Bob JC",  # 15: pair for Bob & Dan; 30
    "play Cid 7C",  # 16: go for Bob
    "play Dan 8S",  # 17: fifteen
    "play Ann QH",  # 18: last card
    "show Bob 7H KH QC JC",
    "show Cid 8D KD 9H 7C",
    "show Dan 9S 5S 10D 8S",
    "show Ann 6C 10S JH QH",
    "crib 2H 3D 4C 5C",
)


def test_partnership_deal_point_by_point() -> None:
    game = play(*DEAL_4P, rules={"partnership": True})
    ac, bd = "Ann & Cid", "Bob & Dan"
    assert [s.players for s in game.sides] == [("Ann", "Cid"), ("Bob", "Dan")]
    assert pegged(game)[:11] == [
        (4, ac, 2, "fifteen"), (5, bd, 3, "run"), (6, ac, 4, "run"), (7, ac, 1, "go"),
        (8, ac, 2, "pair"), (10, bd, 1, "go"), (13, ac, 1, "go"), (15, bd, 2, "pair"),
        (16, bd, 1, "go"), (17, bd, 2, "fifteen"), (18, ac, 1, "last_card"),
    ]
    assert [p.player for p in game.points[:4]] == ["Cid", "Dan", "Ann", "Ann"]
    shows = [(p.event, p.side) for p in game.points[11:]]
    assert shows == [(19, bd), (20, ac), (21, bd), (22, ac), (23, ac)]


def test_four_players_each_on_their_own_line() -> None:
    game = play(*DEAL_4P)
    assert [s.name for s in game.sides] == ["Ann", "Bob", "Cid", "Dan"]
    assert pegged(game)[1] == (5, "Dan", 3, "run")


# -- game end, skunks, match ---------------------------------------------------


def test_game_ends_mid_pegging_and_nothing_after_counts() -> None:
    game = play("new Ann Bob", "adjust Ann 117", "deal Ann", "starter JH", "play Bob 5S",
                "play Ann 10H")
    assert game.winner == "Ann" and game.phase == "over"
    assert game.sides[0].score == 121 and game.sides[0].pegs == (121, 119)
    with pytest.raises(LogError) as info:
        game.apply({"type": "play", "player": "Bob", "card": "5H"})
    assert info.value.rule == "game_over" and isinstance(info.value.__cause__, GameOverError)


def test_his_heels_can_win_before_a_card_is_played() -> None:
    game = play("new Ann Bob", "adjust Ann 119", "deal Ann", "starter JD")
    assert game.winner == "Ann" and game.result == "double_skunk"


def test_pone_going_out_on_the_show_stops_the_count() -> None:
    lines = ["new Ann Bob", "adjust Bob 110", "adjust Ann 60", *DEAL_2P[1:12]]
    game = play(*lines)
    assert game.winner == "Bob" and game.sides[1].score == 121
    assert pegged(game)[-1] == (len(lines) - 1, "Bob", 10, "hand")  # 111 + 16, capped at 121
    assert game.sides[0].score == 66 and game.result == "skunk"
    with pytest.raises(LogError, match="game is over"):
        game.apply({"type": "show", "player": "Ann", "cards": ["10H", "6C", "9C", "7D"]})


@pytest.mark.parametrize(
    ("loser", "rules", "result"),
    [(90, {}, "skunk"), (91, {}, "win"), (60, {}, "double_skunk"), (61, {}, "skunk"),
     (60, {"skunk": None, "double_skunk": None}, "win"), (30, {"target": 61}, "skunk"),
     (31, {"target": 61}, "win")],
)
def test_skunks_are_judged_on_the_losers_score(loser: int, rules: dict, result: str) -> None:
    target = rules.get("target", 121)
    game = play("new Ann Bob", "deal Ann", f"adjust Ann {loser}", f"adjust Bob {target + 5}",
                rules=rules)
    assert game.winner == "Bob" and game.result == result
    assert game.sides[1].score == target


def test_several_losers_each_carry_their_result() -> None:
    game = play("new Ann Bob Cid", "deal Ann", "adjust Bob 95", "adjust Cid 50", "adjust Ann 121")
    report = game.to_json()
    assert report["result"] == "double_skunk" and report["winner"] == "Ann"
    assert [s.get("result") for s in report["sides"]] == [None, "win", "double_skunk"]


def test_match_play_loser_deals_next_and_game_values_count() -> None:
    game = play(
        "new Ann Bob", "deal Ann", "adjust Bob 121",  # Ann has 0: double skunk, worth 4
        "new Ann Bob", "deal", "adjust Bob 95", "adjust Ann 121",  # plain win, worth 1
    )
    report = game.to_json()
    assert report["match"] == {
        "games": [{"winner": "Bob", "result": "double_skunk"}, {"winner": "Ann", "result": "win"}],
        "points": {"Ann": 1, "Bob": 4},
    }
    assert report["points"] == [
        {"event": 5, "side": "Bob", "points": 95, "reason": "adjust", "player": "Bob",
         "words": "adjusted by 95"},
        {"event": 6, "side": "Ann", "points": 121, "reason": "adjust", "player": "Ann",
         "words": "adjusted by 121"},
    ]
    game = play("new Ann Bob", "deal Ann", "adjust Bob 121", "new Ann Bob", "deal")
    assert game.dealer == "Ann"  # the loser of the last game deals
    with pytest.raises(LogError, match="it is Ann's deal"):
        play("new Ann Bob", "deal Ann", "adjust Bob 121", "new Ann Bob", "deal Bob")


def test_match_game_values_come_from_each_game() -> None:
    events = log("new Ann Bob", "deal Ann", "adjust Bob 121", rules={"game_values": [1, 3, 5]})
    events += log("new Ann Bob", "deal", "adjust Ann 121", rules={"game_values": [2, 2, 2]})
    assert Game.replay(events).match_points == {"Ann": 2, "Bob": 5}


def test_next_game_needs_the_same_players_in_the_same_order() -> None:
    with pytest.raises(LogError, match="same players in the same order"):
        play("new Ann Bob", "deal Ann", "adjust Bob 121", "new Bob Ann")
    with pytest.raises(LogError) as info:
        play("new Ann Bob", "deal Ann", "new Ann Bob")
    assert info.value.rule == "game_in_progress"


# -- muggins -------------------------------------------------------------------

MUGGINS = {"muggins": True}


def test_muggins_claims_peg_the_lesser_and_the_caller_takes_the_rest() -> None:
    game = play(
        "new Ann Bob", "deal Ann", "starter 5C",
        "play Bob 10H", "claim Bob 0",
        "play Ann 5H", "claim Ann 1", "muggins Bob",  # Ann missed 1 of her fifteen two
        "play Bob 5D",  # pair for Bob, never claimed: pegs nothing
        "play Ann 5S", "claim Ann 9",  # pair royal: the over-claim is cut to 6
        rules=MUGGINS,
    )
    assert pegged(game) == [(6, "Ann", 1, "fifteen"), (7, "Bob", 1, "muggins"),
                            (10, "Ann", 6, "pair_royal")]
    with pytest.raises(LogError) as info:
        game.apply({"type": "muggins", "player": "Bob"})
    assert info.value.rule == "muggins_nothing_missed"
    assert scores(game) == [7, 1]


def test_muggins_counts_only_the_holes_the_claimant_could_have_pegged() -> None:
    lines = ["new Ann Bob", "adjust Bob 115", *DEAL_2P[1:12], "claim Bob 2", "muggins Ann"]
    game = play(*lines, rules=MUGGINS)
    assert scores(game) == [2 + 4, 117]  # his heels is pegged without a claim; 16 - 2 capped at 4


def test_muggins_errors() -> None:
    with pytest.raises(LogError) as info:
        play("new Ann Bob", "deal Ann", "starter 5C", "play Bob 10H", "claim Ann 2",
             rules=MUGGINS)
    assert info.value.rule == "claim_out_of_place"
    with pytest.raises(LogError) as info:
        play("new Ann Bob", "deal Ann", "starter 5C", "play Bob 10H", "claim Bob 0")
    assert info.value.rule == "no_muggins"
    with pytest.raises(LogError) as info:
        play("new Ann Bob Cid Dan", "deal Ann", "starter 5C", "play Bob 10H", "play Cid 5H",
             "claim Cid 0", "muggins Ann", rules={"muggins": True, "partnership": True})
    assert info.value.rule == "muggins_own_side"
    with pytest.raises(LogError) as info:
        play("new Ann Bob", "deal Ann", "starter 5C", "muggins Bob", rules=MUGGINS)
    assert info.value.rule == "muggins_out_of_place"


def test_his_heels_can_be_mugged_only_under_muggins_heels() -> None:
    both = {"muggins": True, "muggins_heels": True}
    assert scores(play("new Ann Bob", "deal Ann", "starter JH", rules=MUGGINS)) == [2, 0]
    assert scores(play("new Ann Bob", "deal Ann", "starter JH", "play Bob 5S", rules=both)) \
        == [0, 0]
    game = play("new Ann Bob", "deal Ann", "starter JH", "claim Ann 1", "muggins Bob", rules=both)
    assert scores(game) == [1, 1]


# -- house variants ------------------------------------------------------------


def test_dealer_bonus_pegs_for_the_dealer_every_deal() -> None:
    game = play(*DEAL_2P, "deal", rules={"dealer_bonus": 3})
    assert scores(game) == [15 + 3, 17 + 3]
    assert pegged(game)[0] == (1, "Ann", 3, "dealer_bonus")


def test_early_double_skunk_ends_a_121_game_at_61_before_31() -> None:
    rules = {"early_double_skunk": True}
    game = play("new Ann Bob", "deal Ann", "adjust Bob 30", "adjust Ann 63", rules=rules)
    assert (game.winner, game.result, scores(game)) == ("Ann", "double_skunk", [63, 30])
    game = play("new Ann Bob", "deal Ann", "adjust Bob 31", "adjust Ann 63", rules=rules)
    assert game.winner is None
    assert play("new Ann Bob", "deal Ann", "adjust Ann 63").winner is None


STINK_DEAL = ("new Ann Bob", "adjust Bob 120", "deal Ann", "starter 2C", "play Bob 10H",
              "play Ann 9S", "play Bob 6C", "play Ann 7D")


def test_stink_hole_refuses_the_go_to_a_side_one_short() -> None:
    game = play(*STINK_DEAL, rules={"stink_hole": True})
    assert game.winner is None and scores(game) == [0, 120] and game.count == 7
    game = play(*STINK_DEAL)
    assert game.winner == "Bob" and pegged(game)[-1] == (7, "Bob", 1, "go")


def test_stink_hole_still_lets_thirty_one_peg_out_but_not_his_heels() -> None:
    rules = {"stink_hole": True}
    game = play("new Ann Bob", "adjust Bob 120", "deal Ann", "starter 2C", "play Bob 10H",
                "play Ann KS", "play Bob 5C", "play Bob 6D", rules=rules)
    assert game.winner == "Bob"
    assert scores(play("new Ann Bob", "adjust Ann 120", "deal Ann", "starter JC",
                       rules=rules)) == [120, 0]


def test_crib_four_flush_variant() -> None:
    deal = [*DEAL_2P[:13], "crib 2D 4D 6D 8D"]
    plain = play(*deal)
    house = play(*deal, rules={"crib_four_flush": True})
    assert scores(house) == [scores(plain)[0] + 4, scores(plain)[1]]
    assert pegged(house)[-1] == (13, "Ann", 4, "crib")


# -- illegal events: typed errors naming the rule, nothing changed ---------------


@pytest.mark.parametrize(
    ("bad", "at", "rule", "message"),
    [
        ("play Ann 5S", 3, "out_of_turn", "Bob leads the play"),
        ("play Bob 5D", 4, "out_of_turn", "at a count of 5 every card fits"),
        ("play Ann 5S", 4, "card_laid_twice", "5S has already been laid"),
        ("play Ann JH", 4, "starter_laid", "JH is the starter"),
        ("go Ann", 4, "impossible_go", "every card fits a count of 21 or less"),
        ("play Bob KD", 6, "out_of_turn", "it is Ann's turn"),
        ("play Ann KS", 7, "count_over_31", "not due to lead the next count: Bob is"),
        ("go Ann", 7, "out_of_turn", "it is Bob's turn"),
        ("play Ann 4D", 8, "renege", "would have fitted the count of 26"),
        ("show Ann 10H 6C 9C 7D", 11, "counting_order", "Bob counts next"),
        ("show Bob 5S 5H KD", 11, "show_card_count", "must be 4 cards"),
        ("show Bob 5S 5H KD JC JH", 11, "show_card_count", "not 5"),
        ("show Bob 5S 5H KD QC", 11, "show_cards", "laid 5S 5H KD JC"),
        ("crib 2C 3C 9D 5S", 13, "crib_cards", "5S, laid in the play"),
        ("crib 2C 3C 9D JH", 13, "starter_shown", "includes the starter JH"),
        ("play Bob 2D", 11, "play_over", "the play is over"),
        ("starter 5D", 3, "out_of_order", "waiting for Bob to lead the play"),
        ("play Eve 5D", 3, "unknown_player", "unknown player 'Eve'"),
        ("deal Ann", 14, "wrong_dealer", "it is Bob's deal"),
    ],
)
def test_illegal_events_name_the_rule_and_change_nothing(
    bad: str, at: int, rule: str, message: str
) -> None:
    from logdsl import ev

    game = play(*DEAL_2P[:at])
    before = json.dumps(game.to_json())
    with pytest.raises(LogError) as info:
        game.apply(ev(bad))
    assert info.value.rule == rule
    assert info.value.event == at
    assert message in str(info.value)
    assert isinstance(info.value, ValueError)
    assert json.dumps(game.to_json()) == before
    if at < len(DEAL_2P):
        game.apply(ev(DEAL_2P[at]))  # the right event still goes through


def test_reneging_after_an_explicit_go_is_caught_on_the_later_card() -> None:
    with pytest.raises(LogError) as info:
        play("new Ann Bob", "deal Ann", "starter 3C", "play Bob KD", "play Ann KS",
             "play Bob 5H", "go Ann", "play Bob 4D", "play Ann 2D")
    assert info.value.rule == "renege" and "count of 25" in str(info.value)


@pytest.mark.parametrize(
    ("line", "rule", "message"),
    [
        ('{"type": "deal", "dealer": "Ann"}', "no_game", "must start with a new_game"),
        ('{"type": "shuffle"}', "malformed_event", "unknown event type 'shuffle'"),
        ("not json", "malformed_event", "not valid JSON"),
        ('["play"]', "malformed_event", "must be a JSON object"),
        ('{"type": "new_game", "players": ["Ann"]}', "malformed_event", "2, 3 or 4 players"),
        ('{"type": "new_game", "players": ["Ann", "Ann"]}', "malformed_event", "twice"),
        ('{"type": "new_game", "players": ["A", "B"], "rules": {"x": 1}}', "bad_rules",
         "unknown rules key 'x'"),
    ],
)
def test_malformed_lines_are_typed_errors(line: str, rule: str, message: str) -> None:
    with pytest.raises(LogError) as info:
        Game.replay([line])
    assert info.value.rule == rule and message in str(info.value)
    assert str(info.value).startswith("line 1 (event 0)")


def test_bad_card_tokens_and_missing_fields_in_events() -> None:
    with pytest.raises(LogError) as info:
        play("new Ann Bob", "deal Ann", "starter 1H")
    assert info.value.rule == "bad_card" and "'1H'" in str(info.value)
    with pytest.raises(LogError, match="needs 'card'"):
        Game.replay(log("new Ann Bob", "deal Ann") + [{"type": "starter"}])
    with pytest.raises(LogError, match="first deal must name its dealer"):
        play("new Ann Bob", "deal")


def test_blank_lines_keep_the_line_numbers() -> None:
    lines = [json.dumps(e) for e in log(*DEAL_2P[:5])]
    lines.insert(2, "")
    game = Game.replay(lines)
    assert pegged(game) == [(3, "Ann", 2, "his_heels"), (5, "Ann", 2, "fifteen")]


def test_adjust_cannot_take_a_side_below_zero() -> None:
    with pytest.raises(LogError) as info:
        play("new Ann Bob", "deal Ann", "adjust Bob -2")
    assert info.value.rule == "adjust_below_zero"
    game = play("new Ann Bob", "deal Ann", "adjust Bob 5", "adjust Bob -2 miscount")
    assert game.sides[1].pegs == (3, 5) and game.points[-1].reason == "miscount"


def test_the_next_field_says_what_the_engine_waits_for() -> None:
    assert Game().next == "a new game"
    assert play("new Ann Bob").next == (
        "the cut for the first deal (each player lays a card: the lowest deals)")
    assert play(*DEAL_2P[:3]).next == "Bob to lead the play"
    assert play(*DEAL_2P[:5]).next == "Bob to play or go (count 15)"
    assert play(*DEAL_2P[:7]).next == "Bob to play or go (count 26)"
    assert play(*DEAL_2P[:11]).next == "Bob's show"
    assert play(*DEAL_2P[:13]).next == "the crib (Ann's)"
    assert "a claim from Ann" in play(*DEAL_2P[:5], rules=MUGGINS).next


def test_one_event_scoring_for_two_players_takes_a_claim_from_each() -> None:
    # Ann's 7D closes the count (Bob's go) and is the last card (Ann's one for last).
    lines = [*DEAL_2P[:11], "claim Ann 0", "muggins Bob", "claim Bob 1"]
    game = play(*lines, rules=MUGGINS)
    assert game.awaiting_claim == ()
    assert pegged(game)[-2:] == [(12, "Bob", 1, "muggins"), (13, "Bob", 1, "go")]
    with pytest.raises(LogError) as info:
        game.apply({"type": "claim", "player": "Bob", "points": 1})
    assert info.value.rule == "claim_out_of_place"


def test_a_finished_game_keeps_each_sides_own_result() -> None:
    """Each losing side is judged on its own score; the match keeps those judgements (the club
    standings read them rather than judging again)."""
    game = Game.replay(open(Path(__file__).parent / "games" / "three-players.jsonl"))
    (finished,) = game.match
    assert finished.results == tuple(side.result if side.name != game.winner else None
                                     for side in game.sides)
    assert finished.results.count(None) == 1
