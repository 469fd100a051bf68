"""TableFlow's table events: a misread card corrected, a misdeal, the match's length."""

from __future__ import annotations

from test_firmware_table import dealt, game_near_the_end, texts

from engine.cards import Card
from firmware.table.flow import CorrectCard


def test_a_card_corrected_on_the_phone_says_every_score_that_changed() -> None:
    table = dealt()  # Ann deals, starter 2D: Bob leads
    table.lay("5S", "Bob")
    table.lay("10H", "Ann")  # fifteen two for Ann
    said = table.do(CorrectCard(Card.parse("10H"), Card.parse("9H"), 0.0))
    assert table.log[-1] == {"type": "correct", "was": "10H", "card": "9H"}
    assert texts(said, "say") == [
        "corrected: the ten of hearts is the nine of hearts; no longer Ann 2, fifteen two; "
        "Ann 2 to 0"]
    assert texts(said, "notice") == texts(said, "say")
    assert table.game.count == 14


def test_the_buttons_correct_the_last_card_with_the_next_card_read() -> None:
    table = dealt()
    table.lay("5S", "Bob")
    table.lay("9H", "Ann")
    said = table.press("correct")
    assert texts(said) == ["correcting the nine of hearts: lay or type the card it really is"]
    said = table.lay("10H", "Ann")
    assert table.log[-1] == {"type": "correct", "was": "9H", "card": "10H"}
    assert "now Ann 2, fifteen two; Ann 0 to 2" in texts(said, "say")[0]
    table.lay("5H", "Bob")  # the next card is play again
    assert table.log[-1] == {"type": "play", "player": "Bob", "card": "5H"}


def test_a_correction_the_rules_refuse_flashes_and_changes_nothing() -> None:
    table = dealt()
    table.lay("5S", "Bob")
    table.lay("10H", "Ann")
    said = table.do(CorrectCard(Card.parse("10H"), Card.parse("5S"), 0.0))
    assert [f.kind for f in said] == ["flash"]
    assert "10H cannot be read as 5S" in said[0].text and table.log[-1]["type"] == "play"


def test_a_misdeal_is_redealt_by_the_same_dealer_and_said() -> None:
    table = dealt(starter="2D")
    table.press("undo")  # back before the starter: the deal is out
    said = table.press("misdeal")
    assert table.log[-1] == {"type": "misdeal"}
    assert texts(said, "say") == ["misdeal: Ann deals again; Bob pegs 2"]
    said = table.press("misdeal")  # twice is fine: another redeal
    table.lay("3D", "starter")
    said = table.press("misdeal")
    assert [f.kind for f in said] == ["flash"]
    assert said[0].text.startswith("no misdeal now: it is called after a deal and before its "
                                   "starter is cut; now Bob to lead")


def test_match_point_and_the_match_winner_are_announced() -> None:
    table = game_near_the_end()  # Bob wins a 61 game with a skunk (worth 2)
    assert "match point" not in " ".join(texts(table.feedback))
    table = game_near_the_end({"first_to": 3})
    assert texts(table.feedback, "say")[-1] == "match point for Bob"
    table = game_near_the_end({"first_to": 2})
    celebrate = texts(table.feedback, "celebrate")[-1]
    assert celebrate.endswith("; Bob wins the match (Ann 0, Bob 2)")
    table.press("confirm")  # the match is won: a fresh match, not a next game
    assert table.types() == ["new_game"]



def test_after_an_undo_the_buttons_correct_the_card_now_last() -> None:
    table = dealt(starter="2D")
    table.lay("5S", "Bob")
    table.lay("9H", "Ann")
    table.press("undo")
    assert texts(table.press("correct")) == [
        "correcting the five of spades: lay or type the card it really is"]
    table.lay("4S", "Bob")
    assert table.log[-1] == {"type": "correct", "was": "5S", "card": "4S"}
