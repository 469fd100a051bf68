"""TableFlow at every deal: a misdeal after any deal, scores adjusted by hand, the held
UNDO menu, and the table's words where the engine's are written for the log."""

from __future__ import annotations

from test_firmware_table import Table, dealt, game_near_the_end, played, texts

from engine.cards import Card
from engine.game import Game
from firmware.table.flow import (
    AdjustScore,
    ButtonAction,
    CorrectCard,
    misdeal_allowed,
    open_match_words,
)
from firmware.table.words import pegged_words
from vision.live.tracker import CardAppeared


def hold_undo(table: Table) -> str:
    """What the table hears when UNDO is held: the menu of what the buttons do now."""
    return " ".join(texts(table.do(ButtonAction("ask_confirm", subject="new_game")), "say"))


def second_deal() -> Table:
    """Ann dealt the first deal; its show and crib are counted: Bob deals next."""
    table = played()
    table.press("confirm")
    table.press("confirm")
    table.spread("crib", "7C 8C 7H QD")
    assert table.game.phase == "deal" and table.game.turn == "Bob"
    return table


# -- a misdeal on every deal ---------------------------------------------------------------


def test_a_misdeal_after_a_whole_deal_stores_the_deal_then_the_misdeal() -> None:
    table = second_deal()
    assert misdeal_allowed(table.game)
    said = table.press("misdeal")
    assert table.log[-2:] == [{"type": "deal"}, {"type": "misdeal"}]
    assert texts(said, "say") == ["misdeal: Bob deals again; Ann pegs 2"]
    # The replayed log agrees: the pone pegs 2 and Bob still deals.
    replayed = Game.replay(table.log)
    assert replayed.dealer == "Bob" and replayed.points[-1].points == 2
    table.lay("8S", "starter")
    assert table.types()[-1] == "starter" and table.game.dealer == "Bob"


def test_the_old_starter_seen_again_after_a_misdeal_is_offered_not_cut() -> None:
    table = second_deal()
    table.press("misdeal")
    said = table.lay("2D", "starter")  # the last deal's starter, still lying there
    assert table.types()[-1] == "misdeal"
    assert "was the starter of the last deal" in texts(said)[0]
    table.press("confirm")  # it was cut again
    assert table.log[-1] == {"type": "starter", "card": "2D"}


def test_a_misdeal_at_the_start_of_the_next_game() -> None:
    table = game_near_the_end()  # a 61 game Bob won: Ann deals the next
    said = table.press("misdeal")  # before CONFIRM: the next game starts with its misdeal
    assert table.types()[-3:] == ["new_game", "deal", "misdeal"]
    assert "misdeal: Ann deals again; Bob pegs 2" in texts(said, "say")
    table = game_near_the_end()
    table.press("confirm")
    table.press("misdeal")
    assert table.types()[-3:] == ["new_game", "deal", "misdeal"]
    assert [s.score for s in table.game.sides] == [0, 2]


def test_no_misdeal_before_the_first_deal_or_after_the_match_is_won() -> None:
    table = Table()
    assert not misdeal_allowed(table.game)
    said = table.press("misdeal")
    assert table.types() == ["new_game"] and [f.kind for f in said] == ["flash"]
    assert said[0].text.startswith("no misdeal now")
    table = game_near_the_end({"first_to": 2})  # Bob's skunk wins the match
    assert not misdeal_allowed(table.game)
    table.press("misdeal")
    assert table.types()[-1] == "starter"


def test_the_held_undo_menu_offers_a_misdeal_only_when_one_is_allowed() -> None:
    table = Table()
    held = hold_undo(table)
    assert "GO for a misdeal" not in held and "CONFIRM to start a new match" in held
    table = second_deal()
    held = hold_undo(table)
    assert "GO for a misdeal" in held and "UNDO to adjust a score by hand" in held
    table.lay("8S", "starter")
    assert "GO for a misdeal" not in hold_undo(table)


def test_a_new_match_asked_for_says_what_happens_to_the_open_one() -> None:
    table = second_deal()
    held = hold_undo(table)
    assert "the open match ends here and stays in the history (0 games finished)" in held
    assert "the game in progress (" in held and "is left unfinished" in held
    assert open_match_words(Game()) == "no match is open"
    table = game_near_the_end()
    assert "(1 game finished, Ann 0, Bob 2)" in open_match_words(table.game)


# -- a score adjusted by hand ----------------------------------------------------------------


def test_a_score_adjusted_from_the_page_is_stored_said_and_shown() -> None:
    table = dealt()
    said = table.do(AdjustScore("Bob", 3, 0.0))
    assert table.log[-1] == {"type": "adjust", "player": "Bob", "points": 3,
                             "reason": "by hand"}
    assert texts(said, "say") == ["Bob pegs 3 by hand; Ann 0, Bob 3"]
    assert texts(said, "notice") == texts(said, "say")
    said = table.do(AdjustScore("Bob", -2, 0.0))
    assert texts(said, "say") == ["Bob takes back 2 by hand; Ann 0, Bob 1"]


def test_a_hand_adjustment_is_bounded_and_refused_in_words() -> None:
    table = dealt()
    for points in (0, 30, -30):
        said = table.do(AdjustScore("Ann", points, 0.0))
        assert [f.kind for f in said] == ["flash"] and "1 to 29 points" in said[0].text
    said = table.do(AdjustScore("Cid", 2, 0.0))
    assert "Cid is not playing" in said[0].text
    said = table.do(AdjustScore("Ann", -2, 0.0))  # the engine keeps scores at 0 or more
    assert [f.kind for f in said] == ["flash"] and "below 0" in said[0].text
    assert table.types()[-1] == "starter"
    said = game_near_the_end().do(AdjustScore("Ann", 2, 0.0))
    assert "the game is over" in said[0].text


def test_the_buttons_adjust_a_score_go_up_muggins_down_undo_next_player() -> None:
    table = dealt()  # Bob leads
    said = table.press("adjust")
    assert texts(said, "say")[0].startswith("adjusting Bob's score: GO adds a point")
    table.press("go")
    table.press("go")
    table.press("muggins")
    said = table.press("undo")  # the next player: Ann, not an undo
    assert texts(said) == ["adjusting Ann: +1 (CONFIRM pegs it)"] and table.undos == 0
    table.press("confirm")
    assert table.log[-1] == {"type": "adjust", "player": "Ann", "points": 1,
                             "reason": "by hand"}
    said = table.press("muggins")  # the buttons are themselves again
    assert texts(said) == ["muggins is not being played"]


def test_a_card_laid_while_adjusting_leaves_the_adjustment() -> None:
    table = dealt()
    table.press("adjust")
    table.press("go")
    said = table.lay("5S", "Bob")
    assert "adjusting left: nothing pegged" in texts(said)
    assert table.log[-1] == {"type": "play", "player": "Bob", "card": "5S"}
    table.press("adjust")
    said = table.tick(31.0)
    assert "adjusting left: nothing pegged" in texts(said)


# -- the table's words -----------------------------------------------------------------------


def test_after_a_game_the_table_is_told_to_press_confirm_for_the_next_game() -> None:
    table = game_near_the_end()
    assert ("game over (Bob wins): press CONFIRM for the next game of the match, or lay its "
            "starter") in texts(table.feedback, "notice")


def test_after_the_match_is_won_the_table_is_told_a_new_match_starts() -> None:
    table = game_near_the_end({"first_to": 2})
    notice = texts(table.feedback, "notice")[-1]
    assert notice == ("Bob has won the match: press CONFIRM to start a new match (then cut "
                      "for the deal)")
    said = table.lay("4C", "starter")
    assert [f.kind for f in said] == ["flash"] and "new match" in said[0].text
    assert table.types()[-1] == "starter"


def test_a_correction_refused_names_the_rule_not_a_log_line() -> None:
    table = dealt()
    table.lay("5S", "Bob")
    table.lay("10H", "Ann")
    said = table.do(CorrectCard(Card.parse("10H"), Card.parse("5S"), 0.0))
    assert [f.kind for f in said] == ["flash"]
    assert "line" not in said[0].text and "breaks the rules" not in said[0].text
    assert said[0].text.startswith("10H cannot be read as 5S: the play would then break a rule")


def test_a_31_capped_at_the_game_hole_says_what_it_pegged() -> None:
    table = dealt(rules={"target": 61})  # Ann deals, Bob leads
    table.log.append({"type": "adjust", "player": "Bob", "points": 60, "reason": "test"})
    table.game = Game.replay(table.log)
    for card, who in (("5S", "Bob"), ("6H", "Ann"), ("10S", "Bob"), ("9H", "Ann")):
        table.lay(card, who)
    said = table.do(CardAppeared(Card.parse("AS"), "Bob", (), 0.0))
    assert table.game.phase == "over" and table.game.sides[1].score == 61
    assert "Bob: 31, pegs 1 to reach the game hole (61)" in texts(said, "say")
    assert not any("thirty-one for two" in t for t in texts(said))
    # The page lists the score in the same words (firmware.web.snapshot takes them from here).
    last = table.game.points[-1]
    assert (last.points, pegged_words(last, table.game)) == (
        1, "31, pegs 1 to reach the game hole (61)")


# -- the muggins window, a setting ------------------------------------------------------------


def test_the_muggins_window_is_a_checked_setting_of_8_seconds_by_default() -> None:
    import pytest

    from firmware.device.config import DeviceConfigError, parse_device_config

    assert parse_device_config({}).muggins_window_s == 8.0
    assert parse_device_config({"game": {"muggins_window_s": 15}}).muggins_window_s == 15.0
    for bad in (0, -1, 61, "8", True):
        with pytest.raises(DeviceConfigError, match=r"\[game\] muggins_window_s must be a "
                                                    r"number of seconds from 1 to 60"):
            parse_device_config({"game": {"muggins_window_s": bad}})
    window = parse_device_config({"game": {"muggins_window_s": 15}}).muggins_window_s
    table = dealt(rules={"muggins": True}, window=window)
    table.lay("10S", "Bob")
    table.lay("5H", "Ann")  # fifteen two for Ann, to be claimed
    table.press("claim", 0)
    table.tick(12.0)  # past the old fixed 8 s, inside this table's 15
    table.press("muggins")
    assert table.log[-1] == {"type": "muggins", "player": "Bob"}
