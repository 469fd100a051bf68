"""TableFlow: what each thing done at the table turns into (firmware/table/flow.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.cards import Card
from engine.game import Game
from firmware.device.loop import apply_outcome
from firmware.store.eventstore import Appended, StoredEvent, StoreError
from firmware.table.flow import (
    ButtonAction,
    Feedback,
    ManualCard,
    ManualSpread,
    NewMatch,
    Outcome,
    TableFlow,
    TableInput,
    Tick,
    UnknownCard,
)
from firmware.table.names import PlayerNameError
from vision.live.tracker import (
    CameraBack,
    CameraLost,
    CardAppeared,
    CardInTwoPlaces,
    CardRemoved,
    ZoneComplete,
)


class MemoryLog:
    """The store's part the loop uses, in memory: the log as the dicts the flow proposed."""

    def __init__(self) -> None:
        self.log: list[dict[str, Any]] = []
        self.game = Game()

    def append(self, event: dict[str, Any]) -> Appended:
        pegged = self.game.apply(event, number=len(self.log))
        self.log.append(event)
        return Appended(len(self.log), 1, len(self.log) - 1, pegged)

    def start_match(self, event: dict[str, Any]) -> Appended:
        self.log, self.game = [], Game()
        return self.append(event)

    def undo(self) -> StoredEvent:
        if not self.log:
            raise StoreError("nothing to undo: the current match has no events")
        line = json.dumps(self.log.pop())
        self.game = Game.replay(self.log)
        return StoredEvent(len(self.log) + 1, 1, line, 0.0, 0.0)


class Table:
    """A flow and a game, stepped by the loop's own ``apply_outcome`` (on a store in memory)."""

    def __init__(self, players: tuple[str, ...] = ("Ann", "Bob"),
                 rules: dict[str, Any] | None = None, *, window: float = 8.0) -> None:
        self.flow = TableFlow(players, rules, muggins_window_s=window)
        self.store = MemoryLog()
        self.now = 0.0
        self.feedback: list[Feedback] = []
        self.undos = 0
        self._run(self.flow.start(self.game))

    @property
    def game(self) -> Game:
        return self.store.game

    @game.setter
    def game(self, game: Game) -> None:  # a test's correction, replayed by hand
        self.store.game = game

    @property
    def log(self) -> list[dict[str, Any]]:
        return self.store.log

    def _run(self, outcome: Outcome) -> list[Feedback]:
        self.undos += outcome.undo
        said = apply_outcome(self.store, self.flow, outcome, self.now)
        self.feedback += said
        return said

    def do(self, item: TableInput) -> list[Feedback]:
        return self._run(self.flow.handle(item, self.game))

    def lay(self, card: str, zone: str) -> list[Feedback]:
        return self.do(CardAppeared(Card.parse(card), zone, (), self.now))

    def press(self, name: str, value: int = 0) -> list[Feedback]:
        return self.do(ButtonAction(name, value, self.now))

    def spread(self, zone: str, cards: str) -> list[Feedback]:
        return self.do(ZoneComplete(zone, tuple(Card.parse(c) for c in cards.split()), self.now))

    def tick(self, seconds: float) -> list[Feedback]:
        self.now += seconds
        return self.do(Tick(self.now))

    def types(self) -> list[str]:
        return [e["type"] for e in self.log]


def texts(feedback: list[Feedback], kind: str | None = None) -> list[str]:
    return [f.text for f in feedback if kind is None or f.kind == kind]


def dealt(players: tuple[str, ...] = ("Ann", "Bob"), rules: dict[str, Any] | None = None,
          *, dealer: str = "Ann", starter: str = "2D", window: float = 8.0) -> Table:
    table = Table(players, rules, window=window)
    table._run(table.flow.handle(ButtonAction("confirm"), table.game))  # no-op in the cut
    low = {p: c for p, c in zip(players, ["9C", "10C", "QC", "KC"], strict=False)}
    low[dealer] = "AC"
    for p in players:
        table.lay(low[p], p)
    for p in players:
        table.do(CardRemoved(Card.parse(low[p]), p, 0.0))
    table.lay(starter, "starter")
    return table


# -- the cut and the starter --------------------------------------------------------------


def test_an_empty_store_starts_a_match_and_waits_for_the_cut() -> None:
    table = Table()
    assert table.types() == ["new_game"]
    assert any("cut for the deal" in t for t in texts(table.feedback, "notice"))


def test_the_lowest_cut_deals_and_the_cut_cards_are_not_play() -> None:
    table = Table(("Ann", "Bob", "Cat"))
    table.lay("7H", "Ann")
    assert table.types() == ["new_game"]
    table.lay("3S", "Bob")
    said = table.lay("JD", "Cat")
    assert table.log[-1] == {"type": "deal", "dealer": "Bob"}
    assert "Bob deals" in texts(said, "say")
    # The cut cards still lie there: seen again (a hand passed over), they are not play.
    table.lay("QH", "starter")
    table.lay("7H", "Ann")
    assert table.types() == ["new_game", "deal", "starter"]


def test_a_cut_card_typed_in_the_play_is_play_even_if_never_seen_gathered() -> None:
    # The camera never read Ann's cut card, so it never reports it picked up; typed in
    # during the play it is what the players say it is: a card laid.
    table = Table()
    table.do(ManualCard(Card.parse("7H"), "Ann", 0.0))
    table.lay("3S", "Bob")
    table.lay("QH", "starter")
    table.lay("7H", "Ann")  # still "lying from the cut" for the camera
    assert table.types() == ["new_game", "deal", "starter"]
    table.do(ManualCard(Card.parse("7H"), "Ann", 1.0))
    assert table.log[-1] == {"type": "play", "player": "Ann", "card": "7H"}


def test_a_card_typed_at_one_matchs_cut_is_cut_again_at_the_next_matchs_cut() -> None:
    # The cut cards stayed "lying" for ever: every match after a few stuck at its cut.
    table = Table()
    table.do(ManualCard(Card.parse("7H"), "Ann", 0.0))
    table.lay("3S", "Bob")  # seen by the camera, never seen gathered
    assert table.log[-1] == {"type": "deal", "dealer": "Bob"}
    table.press("new_game")
    said = table.do(ManualCard(Card.parse("7H"), "Ann", 1.0))
    assert "Ann cuts seven of hearts; waiting for Bob to cut" in texts(said)
    table.lay("3S", "Bob")
    assert table.types() == ["new_game", "deal"] and table.game.dealer == "Bob"


def test_a_cut_card_still_lying_says_so() -> None:
    table = Table()
    table.lay("7H", "Ann")
    table.lay("3S", "Bob")
    table.lay("QH", "starter")
    said = table.lay("7H", "Ann")
    assert said == [Feedback("notice", "seven of hearts was cut for the deal and still lies "
                                       "in Ann's area: gather the cut cards (or type it on "
                                       "the phone if it is play)")]


def test_players_the_flow_cannot_serve_are_refused_by_the_shared_rule() -> None:
    with pytest.raises(PlayerNameError, match="'crib' is kept for the board's own use"):
        TableFlow(("crib", "Bob"))
    table = Table()
    said = table.do(NewMatch(("Ann & Cid", "Bob"), {}, 0.0))
    assert said == [Feedback("flash", "new match refused: players[0]: 'Ann & Cid' is kept for "
                                      "the board's own use (\"&\" joins partners' names, as in "
                                      "\"Ann & Cid\")")]
    assert table.flow.players == ("Ann", "Bob")


def test_a_tie_for_lowest_recuts_between_the_tied_players_aces_low() -> None:
    table = Table(("Ann", "Bob", "Cat"))
    table.lay("4H", "Ann")
    table.lay("4S", "Bob")
    said = table.lay("KD", "Cat")
    assert any("Ann and Bob cut again" in t for t in texts(said))
    assert table.types() == ["new_game"]
    table.lay("9C", "Cat")  # Cat need not cut again
    table.lay("AS", "Bob")
    table.lay("2S", "Ann")
    assert table.log[-1] == {"type": "deal", "dealer": "Bob"}


def test_the_starter_after_a_known_dealer_stores_deal_then_starter_and_his_heels() -> None:
    table = dealt(starter="JH")
    assert table.types() == ["new_game", "deal", "starter"]
    assert [s.score for s in table.game.sides] == [2, 0]
    assert "Ann: two for his heels" in texts(table.feedback, "say")


def test_a_starter_before_the_cut_is_refused_with_a_notice() -> None:
    table = Table()
    said = table.lay("5H", "starter")
    assert table.types() == ["new_game"]
    assert any("own area" in t for t in texts(said))


# -- the play ------------------------------------------------------------------------------


def test_cards_laid_in_each_area_are_played_and_scored() -> None:
    table = dealt()
    table.lay("10S", "Bob")
    said = table.lay("5H", "Ann")
    assert table.log[-2:] == [{"type": "play", "player": "Bob", "card": "10S"},
                              {"type": "play", "player": "Ann", "card": "5H"}]
    assert texts(said, "say") == ["Ann: fifteen two"]
    # The same card seen again (the tracker lost and found it) is not played twice.
    table.lay("5H", "Ann")
    assert len(table.log) == 5


def test_a_card_the_engine_rejects_flashes_and_stores_nothing() -> None:
    table = dealt()
    said = table.lay("10S", "Ann")  # Bob leads, not Ann
    assert table.types() == ["new_game", "deal", "starter"]
    assert [f.kind for f in said] == ["flash"]
    assert "Bob" in said[0].text


def test_a_card_past_31_by_the_player_due_is_a_go_inferred_by_the_engine() -> None:
    table = dealt()
    for card, who in (("KS", "Bob"), ("QS", "Ann"), ("JS", "Bob")):
        table.lay(card, who)
    said = table.lay("9S", "Ann")  # Ann cannot play on 30: Bob gets the go, Ann leads anew
    assert table.log[-1] == {"type": "play", "player": "Ann", "card": "9S"}
    assert "Bob: one for the go" in texts(said, "say")


def test_go_button_sends_go_for_the_player_whose_turn_it_is() -> None:
    table = dealt()
    for card, who in (("KS", "Bob"), ("QS", "Ann"), ("5S", "Bob")):
        table.lay(card, who)
    said = table.press("go")
    assert table.log[-1] == {"type": "go", "player": "Ann"}
    # Bob plays on; the go point comes later, and the table hears that this go scored nothing.
    assert texts(said) == ["Ann: go, no points"] and table.game.turn == "Bob"


def test_go_outside_the_play_is_feedback_not_an_event() -> None:
    table = Table()
    said = table.press("go")
    assert table.types() == ["new_game"] and [f.kind for f in said] == ["flash"]


def test_a_card_laid_twice_says_who_laid_it_and_stores_nothing() -> None:
    table = dealt()
    table.lay("10S", "Bob")
    said = table.do(ManualCard(Card.parse("10S"), "Ann", 0.0))
    assert said == [Feedback("flash", "ten of spades is already laid (Bob played it this deal)")]
    said = table.do(ManualCard(Card.parse("10S"), "Bob", 0.0))  # a second tap on the phone
    assert said == [Feedback("flash", "ten of spades is already laid (Bob played it this deal)")]
    said = table.lay("10S", "Ann")  # the camera sees it carried to another area
    assert said == [Feedback("notice", "ten of spades is already laid (Bob played it this deal)")]
    said = table.lay("2D", "Ann")  # the starter laid as a card
    assert said == [Feedback("notice", "two of diamonds is the starter, not a card in "
                                       "anyone's hand")]
    assert table.types()[-1] == "play" and len(table.log) == 4


def test_every_card_the_flow_will_not_take_gets_one_line_saying_why() -> None:
    table = dealt()
    said = table.do(ManualCard(Card.parse("2D"), "starter", 0.0))
    assert said == [Feedback("flash", "two of diamonds is this deal's starter already")]
    said = table.lay("7S", "crib")
    assert said == [Feedback("notice", "seven of spades in the crib area is not play: the crib is "
                                       "counted after the hands")]
    said = table.do(CardAppeared(Card.parse("7S"), None, (), 0.0))
    assert said == [Feedback("notice", "seven of spades lies outside every area: lay it in "
                                       "your own area")]
    said = table.do(ManualSpread("Ann", tuple(Card.parse(c) for c in "5H 3C 4H 9C".split()),
                                 0.0))
    assert said == [Feedback("notice", "Ann's hand will be counted in the show")]
    table = played()
    said = table.do(ManualCard(Card.parse("QH"), "Ann", 0.0))
    assert said == [Feedback("flash", "Ann's queen of hearts is not play: now Bob's show")]
    said = table.spread("Ann", "5H 3C 4H 9C")
    assert said == [Feedback("notice", "Ann's hand will be counted in its turn: now Bob's show")]
    assert table.types()[-1] == "play"


# -- the show and the crib -----------------------------------------------------------------

PLAY = [("10S", "Bob"), ("5H", "Ann"), ("KS", "Bob"), ("3C", "Ann"), ("AS", "Bob"),
        ("4H", "Ann"), ("6D", "Bob"), ("9C", "Ann")]


def played(players: tuple[str, ...] = ("Ann", "Bob"), rules: dict[str, Any] | None = None,
           **kw: Any) -> Table:
    table = dealt(players, rules, **kw)
    for card, who in PLAY:
        table.lay(card, who)
    assert table.game.phase == "show", table.game.next
    return table


def test_show_by_zone_complete_in_counting_order() -> None:
    table = played()
    # Ann (the dealer) spreads first: she counts after Bob, so her spread waits.
    table.spread("Ann", "5H 3C 4H 9C")
    assert table.types()[-1] == "play"
    said = table.spread("Bob", "10S KS AS 6D")
    assert table.types()[-2:] == ["show", "show"]
    assert table.log[-2]["player"] == "Bob" and table.log[-1]["player"] == "Ann"
    assert texts(said, "say")[0].startswith("Bob's hand: ")
    assert any(t.startswith("Ann's hand: fifteen two") for t in texts(said, "say"))


def test_show_by_confirm_uses_the_cards_laid_in_the_play() -> None:
    table = played()
    table.press("confirm")
    assert table.log[-1] == {"type": "show", "player": "Bob",
                             "cards": ["10S", "KS", "AS", "6D"]}


def test_spreads_remembered_from_the_play_are_counted_when_the_show_starts() -> None:
    table = dealt()
    for card, who in PLAY[:-1]:
        table.lay(card, who)
    table.spread("Bob", "10S KS AS 6D")  # Bob's fourth card landed: his area is complete
    table.lay("9C", "Ann")
    table.spread("Ann", "5H 3C 4H 9C")
    assert table.types()[-3:] == ["play", "show", "show"]


def test_the_crib_is_counted_from_the_crib_area_then_the_next_deal() -> None:
    table = played()
    table.press("confirm")
    table.press("confirm")
    said = table.press("confirm")
    assert any("crib area" in t for t in texts(said))
    said = table.spread("crib", "7C 8C 7H QD")
    assert table.log[-1] == {"type": "crib", "cards": ["7C", "8C", "7H", "QD"]}
    assert texts(said, "say") == ["Ann's crib: fifteen two, fifteen four, and a pair is six"]
    table.lay("2D", "starter")  # the old starter seen again is not a new deal
    assert table.types()[-1] == "crib"
    table.lay("8S", "starter")
    assert table.types()[-2:] == ["deal", "starter"]
    assert table.game.dealer == "Bob"


def test_the_last_starter_picked_up_may_be_the_next_starter() -> None:
    table = played()
    for _ in range(2):
        table.press("confirm")
    table.spread("crib", "7C 8C 7H QD")
    table.do(CardRemoved(Card.parse("2D"), "starter", 0.0))  # the cards are gathered
    table.lay("2D", "starter")  # and after the shuffle the same card is cut
    assert table.types()[-2:] == ["deal", "starter"] and table.game.starter == Card.parse("2D")


def crib_counted() -> Table:
    table = played()  # the starter was 2D
    for _ in range(2):
        table.press("confirm")
    table.spread("crib", "7C 8C 7H QD")
    assert table.game.phase == "deal"
    return table


def test_the_last_starter_typed_as_the_next_starter_is_taken() -> None:
    # Typed by hand the old starter was dropped without a word, and the deal never went on.
    table = crib_counted()
    said = table.do(ManualCard(Card.parse("2D"), "starter", 0.0))
    assert table.types()[-2:] == ["deal", "starter"] and table.game.starter == Card.parse("2D")
    assert table.game.dealer == "Bob" and "Bob deals" not in texts(said)


def test_after_a_restart_the_old_starter_seen_again_is_told_and_confirm_takes_it() -> None:
    table = crib_counted()
    table.flow = TableFlow(("Ann", "Bob"))  # the device restarts on the same store
    table._run(table.flow.start(table.game))
    said = table.lay("2D", "starter")  # after the shuffle the same card is cut
    assert said == [Feedback("notice", "two of diamonds was the starter of the last deal: if "
                                       "it is cut again, press CONFIRM (or lift it and lay it "
                                       "again, or type it on the phone)")]
    assert table.types()[-1] == "crib"
    table.press("confirm")
    assert table.types()[-2:] == ["deal", "starter"] and table.game.starter == Card.parse("2D")


def test_confirm_takes_the_old_starter_only_while_it_is_offered() -> None:
    table = crib_counted()
    table.lay("2D", "starter")  # still lying from the last deal: told, not taken
    table.do(CardRemoved(Card.parse("2D"), "starter", 0.0))
    table.undos = 0
    table.press("undo")  # the crib taken back: the offer goes with it
    table.spread("crib", "7C 8C 7H QD")
    said = table.press("confirm")
    assert table.types()[-1] == "crib" and "waiting for the deal (Bob deals)" in texts(said)


def test_a_game_ended_on_the_starter_takes_the_same_card_as_the_next_games_starter() -> None:
    table = game_near_the_end()  # Bob went out on his heels with JS
    said = table.do(ManualCard(Card.parse("JS"), "starter", 0.0))
    assert table.types()[-3:] == ["new_game", "deal", "starter"], texts(said)
    assert table.game.starter == Card.parse("JS")


def test_a_wrong_spread_is_refused() -> None:
    table = played()
    said = table.spread("Bob", "10S KS AS 7D")
    assert [f.kind for f in said] == ["flash"] and "laid" in said[0].text
    assert table.types()[-1] == "play"


# -- game end, the match -----------------------------------------------------------------------


def game_near_the_end(rules: dict[str, Any] | None = None) -> Table:
    table = played(rules={"target": 61, **(rules or {})})
    table.press("confirm")
    table.press("confirm")
    table.spread("crib", "7C 8C 7H QD")
    # Bob to the edge of the game by a correction, then his heels as dealer ends it.
    table.log.append({"type": "adjust", "player": "Bob", "reason": "test",
                      "points": 59 - table.game.sides[1].score})
    table.game = Game.replay(table.log)
    table.lay("JS", "starter")
    assert table.game.phase == "over"
    return table


def test_game_end_celebrates_and_the_next_game_starts_with_the_loser_dealing() -> None:
    table = game_near_the_end()
    # Bob dealt and went out on his heels: Ann, the loser, deals the next game.
    celebrate = texts(table.feedback, "celebrate")
    assert celebrate and celebrate[-1].startswith("Bob wins with a skunk")
    table.lay("4C", "starter")
    assert table.types()[-3:] == ["new_game", "deal", "starter"]
    assert table.game.dealer == "Ann"


def test_confirm_after_the_game_starts_the_next_game() -> None:
    table = game_near_the_end()
    said = table.press("confirm")
    assert table.types()[-1] == "new_game"
    assert "next game: Ann deals" in texts(said)


# -- muggins ---------------------------------------------------------------------------------


def test_claim_then_muggins_within_the_window_says_what_was_missed() -> None:
    table = dealt(rules={"muggins": True})
    table.lay("10S", "Bob")
    table.lay("5H", "Ann")  # fifteen two for Ann, to be claimed
    said = table.press("claim", 0)
    assert table.log[-1] == {"type": "claim", "player": "Ann", "points": 0}
    assert "Ann pegs 0" in texts(said, "say")
    table.tick(3.0)
    said = table.press("muggins")
    assert table.log[-1] == {"type": "muggins", "player": "Bob"}
    assert any("Bob takes 2" in t and "missed 2" in t for t in texts(said, "say"))
    assert [s.score for s in table.game.sides] == [0, 2]


def test_muggins_after_the_window_is_refused() -> None:
    table = dealt(rules={"muggins": True}, window=5.0)
    table.lay("10S", "Bob")
    table.lay("5H", "Ann")
    table.press("claim", 1)
    said = table.tick(6.0)
    assert "muggins window closed" in texts(said)
    said = table.press("muggins")
    assert [f.kind for f in said] == ["flash"] and table.types()[-1] == "claim"


def test_muggins_when_nothing_was_missed_is_refused_by_the_engine() -> None:
    table = dealt(rules={"muggins": True})
    table.lay("10S", "Bob")
    table.lay("5H", "Ann")
    table.press("claim", 2)
    said = table.press("muggins")
    assert [f.kind for f in said] == ["flash"] and "missed nothing" in said[0].text


def test_muggins_show_waits_for_the_claim_before_the_next_spread_counts() -> None:
    table = played(rules={"muggins": True})
    table.press("claim", 1)  # Ann's last card
    table.tick(10.0)
    table.spread("Ann", "5H 3C 4H 9C")
    table.spread("Bob", "10S KS AS 6D")
    assert table.types()[-1] == "show"  # Bob's; Ann's waits for Bob's claim
    said = table.press("confirm")
    assert "dial your count" in texts(said)[0]
    table.press("claim", 4)
    assert table.types()[-1] == "claim"
    table.tick(10.0)
    assert table.types()[-1] == "show" and table.log[-1]["player"] == "Ann"


def test_claims_in_a_game_without_muggins_are_refused() -> None:
    table = dealt()
    said = table.press("claim", 5)
    assert [f.kind for f in said] == ["flash"] and table.types()[-1] == "starter"


# -- the table's troubles ----------------------------------------------------------------------


def test_unknown_card_asks_to_straighten_it() -> None:
    table = dealt()
    said = table.do(UnknownCard("Bob", 0.0))
    assert said == [Feedback("notice", "straighten the card in Bob's area: I cannot read it")]
    assert table.types()[-1] == "starter"


def test_a_card_in_two_places_asks_and_stores_nothing() -> None:
    table = dealt()
    said = table.do(CardInTwoPlaces(Card.parse("QH"), ("Ann", "crib"), 0.0))
    assert [f.kind for f in said] == ["ask"]
    assert "QH" in said[0].text and "Ann's area" in said[0].text and "crib" in said[0].text


def test_undo_takes_back_the_last_event_and_nothing_before_the_cut() -> None:
    table = dealt()
    table.lay("10S", "Bob")
    said = table.press("undo")
    assert table.undos == 1 and table.types()[-1] == "starter"
    assert texts(said) == ["undone: Bob's ten of spades; now Bob to lead the play"]
    table.press("undo")
    table.press("undo")  # the deal: back to the cut
    assert table.types() == ["new_game"]
    said = table.press("undo")
    assert table.undos == 3 and "nothing to undo" in texts(said)[0]
    table.lay("9D", "Ann")
    table.lay("3D", "Bob")
    assert table.log[-1] == {"type": "deal", "dealer": "Bob"}


def test_camera_lost_switches_to_manual_entry_and_back() -> None:
    table = dealt()
    said = table.do(CameraLost(1.0))
    assert table.flow.manual and said[0].text.startswith("no pictures from the camera: name "
                                                         "each card on the phone page")
    assert "unplugged" not in said[0].text and "manual entry" not in said[0].text
    table.press("claim", 3)  # the dial pegs points by hand while the camera is away
    assert table.log[-1] == {"type": "adjust", "player": "Bob", "points": 3, "reason": "manual"}
    table.do(ManualCard(Card.parse("10S"), "Bob", 1.0))
    assert table.log[-1] == {"type": "play", "player": "Bob", "card": "10S"}
    said = table.do(CameraBack(2.0))
    assert not table.flow.manual and "camera back" in said[0].text


def test_new_game_after_confirmation_starts_a_fresh_match() -> None:
    table = dealt()
    said = table.press("ask_confirm")
    table.press("new_game")
    assert table.types() == ["new_game"]
    assert said and "CONFIRM" in said[0].text


def test_unknown_button_action_is_a_typed_error_quoting_it() -> None:
    with pytest.raises(ValueError, match="'dance'"):
        ButtonAction("dance")


def test_after_a_restart_at_game_end_the_old_starter_seen_again_is_not_the_next_starter() -> None:
    # The fresh tracker reported the last starter where it lay, the board offered it as cut
    # again, and the CONFIRM that starts the next game stored it as a starter nobody cut.
    table = game_near_the_end()  # Bob went out on his heels with JS, still lying there
    table.flow = TableFlow(("Ann", "Bob"))  # the device restarts on the same store
    table._run(table.flow.start(table.game))
    said = table.lay("JS", "starter")  # seen where it lies: told, CONFIRM not armed
    assert texts(said) == ["jack of spades lies in the starter area from the last deal: to cut "
                           "it again for the next game, lift it and lay it again (or type it on "
                           "the phone); CONFIRM starts the next game"]
    said = table.press("confirm")
    assert table.types()[-1] == "new_game" and "next game: Ann deals" in texts(said)
    # Laid again as the new game's starter (its lifting unseen), it is taken.
    table.lay("JS", "starter")
    assert table.types()[-2:] == ["deal", "starter"] and table.game.starter == Card.parse("JS")


def test_after_a_restart_the_old_starter_first_seen_in_the_next_game_is_offered_not_taken() -> None:
    # The fresh tracker's first report came only after CONFIRM started the next game.
    table = game_near_the_end()  # JS, the last starter, still lies in the starter area
    table.flow = TableFlow(("Ann", "Bob"))
    table._run(table.flow.start(table.game))
    table.press("confirm")
    said = table.lay("JS", "starter")
    assert table.types()[-1] == "new_game" and texts(said) == [
        "jack of spades was the starter of the last deal: if it is cut again, press CONFIRM "
        "(or lift it and lay it again, or type it on the phone)"]
    table.press("confirm")
    assert table.types()[-2:] == ["deal", "starter"] and table.game.starter == Card.parse("JS")
