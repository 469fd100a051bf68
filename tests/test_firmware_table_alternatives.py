"""Game-aware reading (firmware/table/alternatives.py): a card the game rules out resolved with
the recogniser's runners-up, in the table flow."""

from __future__ import annotations

from typing import Any

from engine.cards import Card
from engine.game import Game
from firmware.table.alternatives import CLOSE_SHARE, resolve_play
from firmware.table.flow import Feedback, Outcome, TableFlow
from vision.live.tracker import CardAppeared, ZoneComplete

START: list[dict[str, Any]] = [
    {"type": "new_game", "players": ["Ann", "Bob"]},
    {"type": "deal", "dealer": "Ann"},
    {"type": "starter", "card": "JH"},
]


def game(*plays: tuple[str, str]) -> Game:
    """Ann deals, JH is the starter, and ``plays`` (player, card) are laid."""
    return Game.replay(START + [{"type": "play", "player": p, "card": c} for p, c in plays])


def seen(card: str, zone: str, confidence: float, *alternatives: tuple[str, float]
         ) -> CardAppeared:
    return CardAppeared(Card.parse(card), zone, (), 1.0, confidence,
                        tuple((Card.parse(c), p) for c, p in alternatives))


def play(player: str, card: str) -> tuple[dict[str, Any], ...]:
    return ({"type": "play", "player": player, "card": card},)


def test_a_card_already_laid_by_another_is_read_as_its_close_runner_up_saying_so() -> None:
    out = TableFlow(["Ann", "Bob"]).handle(
        seen("6H", "Ann", 0.7, ("6D", 0.25), ("8H", 0.02)), game(("Bob", "6H")))
    assert out == Outcome(events=play("Ann", "6D"), feedback=(Feedback(
        "notice", "read as six of hearts; six of hearts is already laid (Bob played it this "
                  "deal): taking six of diamonds"),))


def test_the_starter_read_in_a_hand_is_read_as_its_runner_up() -> None:
    out = TableFlow(["Ann", "Bob"]).handle(seen("JH", "Bob", 0.8, ("JD", 0.2)), game())
    assert out.events == play("Bob", "JD")
    assert out.feedback[0].text == "read as jack of hearts; jack of hearts is the starter: " \
                                   "taking jack of diamonds"


def test_a_card_past_31_for_a_player_not_due_to_lead_is_read_as_one_that_fits() -> None:
    # Count 25, Ann to play: Bob's 9 would make 34; his 6 makes 31 (Ann could not go).
    now = game(("Bob", "10S"), ("Ann", "KH"), ("Bob", "5C"))
    out = TableFlow(["Ann", "Bob"]).handle(seen("9C", "Bob", 0.6, ("6C", 0.3)), now)
    assert out.events == play("Bob", "6C")
    assert out.feedback[0].text == ("read as nine of clubs; nine of clubs would take the count "
                                    "of 25 past 31: taking six of clubs")


def test_a_reading_the_game_allows_is_never_overridden() -> None:
    out = TableFlow(["Ann", "Bob"]).handle(seen("7C", "Ann", 0.5, ("6D", 0.45)),
                                           game(("Bob", "6H")))
    assert out == Outcome(events=play("Ann", "7C"))


def test_no_close_runner_up_asks_naming_the_choices_and_scores_nothing() -> None:
    # 0.05 is under a fifth of 0.95: the reading was clear, the card may really be 6H moved.
    assert 0.05 < CLOSE_SHARE * 0.95
    out = TableFlow(["Ann", "Bob"]).handle(seen("6H", "Ann", 0.95, ("6D", 0.05)),
                                           game(("Bob", "6H")))
    assert out.events == ()
    assert out.feedback == (Feedback(
        "flash", "read as six of hearts, but six of hearts is already laid (Bob played it this "
                 "deal): is it six of diamonds? Lift it and lay it again, or type it on the "
                 "phone"),)


def test_no_runner_up_the_game_allows_asks_and_never_invents_a_card() -> None:
    # The only runner-up is the starter: nothing else is taken, however likely 6D may seem.
    out = TableFlow(["Ann", "Bob"]).handle(seen("6H", "Ann", 0.7, ("JH", 0.3)),
                                           game(("Bob", "6H")))
    assert out.events == ()
    assert out.feedback == (Feedback(
        "flash", "read as six of hearts, but six of hearts is already laid (Bob played it this "
                 "deal), and no other reading fits: lift it and lay it again, or type it on "
                 "the phone"),)


def test_two_close_runners_up_the_game_allows_are_a_question_unless_one_leads_clearly() -> None:
    now = game(("Bob", "6H"))
    out = TableFlow(["Ann", "Bob"]).handle(
        seen("6H", "Ann", 0.5, ("6D", 0.25), ("6C", 0.2)), now)
    assert out.events == ()
    assert "is it six of diamonds or six of clubs?" in out.feedback[0].text
    out = TableFlow(["Ann", "Bob"]).handle(
        seen("6H", "Ann", 0.5, ("6D", 0.3), ("6C", 0.12)), now)
    assert out.events == play("Ann", "6D")


def test_the_runner_up_taken_is_no_news_when_the_same_reading_comes_again() -> None:
    flow = TableFlow(["Ann", "Bob"])
    now = game(("Bob", "6H"))
    first = flow.handle(seen("6H", "Ann", 0.7, ("6D", 0.25)), now)
    now.apply(first.events[0])
    assert flow.handle(seen("6H", "Ann", 0.7, ("6D", 0.25)), now) == Outcome()


def test_a_card_seen_again_where_its_player_laid_it_is_no_news_whatever_its_runners_up() -> None:
    out = TableFlow(["Ann", "Bob"]).handle(seen("6H", "Bob", 0.7, ("6D", 0.25)),
                                           game(("Bob", "6H")))
    assert out == Outcome()


def test_a_rule_about_the_player_not_the_card_chooses_nothing() -> None:
    # Bob has just laid: it is Ann's turn at a count of 6, for every card alike.
    now = game(("Bob", "6H"))
    choice = resolve_play(Card.parse("7C"), 0.6, ((Card.parse("7D"), 0.3),), "Bob", now)
    assert choice.card == Card.parse("7C") and choice.words == ""


def test_a_reading_without_runners_up_takes_the_flows_old_way() -> None:
    out = TableFlow(["Ann", "Bob"]).handle(seen("6H", "Ann", 0.7), game(("Bob", "6H")))
    assert out.events == ()
    assert out.feedback[0].kind == "notice"
    assert "already laid" in out.feedback[0].text


def test_the_show_counts_the_runner_up_taken_in_its_players_hand_only() -> None:
    # Bob laid 6H; Ann's 6D was read as 6H and taken as 6D. In the show the tracker still
    # names Ann's card 6H: her hand holds 6D, and Bob's own 6H stays 6H.
    flow = TableFlow(["Ann", "Bob"])
    now = game(("Bob", "6H"))
    for event in flow.handle(seen("6H", "Ann", 0.7, ("6D", 0.25)), now).events:
        now.apply(event)
    for p, c in (("Bob", "2C"), ("Ann", "3C"), ("Bob", "4S"), ("Ann", "5D"), ("Bob", "5C"),
                 ("Ann", "AS")):
        now.apply({"type": "play", "player": p, "card": c})
    bob = flow.handle(ZoneComplete("Bob", cards("6H 2C 4S 5C"), 5.0), now)
    assert bob.events == ({"type": "show", "player": "Bob", "cards": ["6H", "2C", "4S", "5C"]},)
    now.apply(bob.events[0])
    ann = flow.handle(ZoneComplete("Ann", cards("6H 3C 5D AS"), 6.0), now)
    assert ann.events == ({"type": "show", "player": "Ann", "cards": ["6D", "3C", "5D", "AS"]},)


def cards(text: str) -> tuple[Card, ...]:
    return tuple(Card.parse(c) for c in text.split())
