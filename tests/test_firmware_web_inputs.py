"""firmware.web.inputs: request bodies checked and turned into the flow's table inputs."""

from __future__ import annotations

from typing import Any

import pytest

from engine.cards import Card
from firmware.table.flow import ButtonAction, CorrectCard, ManualCard, ManualSpread, NewMatch
from firmware.web.inputs import InputError, check_settings, parse_change

TABLE: dict[str, Any] = {"players": ["Ann", "Bob"],
                         "board": {"limits": {"tracks": 2, "shared": False, "game_hole": 121}}}


def body(action: str, **fields: Any) -> dict[str, Any]:
    return {"action": action, "rev": "12.9", "nonce": "abcdefgh12", **fields}


@pytest.mark.parametrize("name", ["undo", "go", "confirm", "muggins", "new_game", "misdeal"])
def test_the_buttons_become_button_actions(name: str) -> None:
    change = parse_change(body(name), table=TABLE)
    assert change.items == (ButtonAction(name),)
    assert (change.rev, change.nonce, change.action) == ("12.9", "abcdefgh12", name)


def test_a_claim_is_the_dial_and_confirm() -> None:
    assert parse_change(body("claim", points=12), table=TABLE).items == (
        ButtonAction("claim", 12),)


def test_a_card_by_hand_is_a_manual_card_in_a_players_area_or_the_starter() -> None:
    assert parse_change(body("card", card="10s", zone="Bob"), table=TABLE).items == (
        ManualCard(Card.parse("10S"), "Bob", 0.0),)
    assert parse_change(body("card", card="JH", zone="starter"), table=TABLE).items[0] == \
        ManualCard(Card.parse("JH"), "starter", 0.0)


def test_a_correction_names_the_card_read_and_the_card_it_is() -> None:
    assert parse_change(body("correct", was="5h", card="6H"), table=TABLE).items == (
        CorrectCard(Card.parse("5H"), Card.parse("6H"), 0.0),)


def test_a_spread_is_four_cards_for_a_player_or_the_crib() -> None:
    change = parse_change(body("spread", zone="crib", cards=["KH", "5S", "5C", "JD"]),
                          table=TABLE)
    assert change.items == (ManualSpread("crib", tuple(Card.parse(c) for c in
                                                       ("5C", "5S", "JD", "KH")), 0.0),)


def test_a_new_match_carries_its_settings() -> None:
    change = parse_change(body("new_match", players=["Cat", " Dan  Lee "],
                               rules={"target": 61, "muggins": True},
                               colours=["orange", "#0072B2"]), table=TABLE)
    (item,) = change.items
    assert isinstance(item, NewMatch)
    assert item.players == ("Cat", "Dan Lee") and item.rules == {"target": 61, "muggins": True}
    assert item.colours == ((230, 159, 0), (0, 114, 178))
    assert change.settings is not None and change.settings.players == ("Cat", "Dan Lee")


@pytest.mark.parametrize(("request_body", "message"), [
    ([], "the request must be a JSON object, not a list"),
    ("undo", "the request must be a JSON object, not a string"),
    ({"rev": "1.1", "nonce": "abcdefgh"}, "action must be one of undo, go"),
    (body("dance"), "action must be one of"),
    (body("undo", points=3), "undo: unknown field 'points'"),
    ({"action": "undo", "nonce": "abcdefgh"}, "undo: missing field 'rev'"),
    ({"action": "undo", "rev": "1.1"}, "undo: missing field 'nonce'"),
    (body("undo", rev=7), "rev must be the revision the page shows"),
    (body("undo", rev="latest"), "rev must be the revision the page shows"),
    (body("undo", nonce="short"), "nonce must be a fresh random token"),
    (body("undo", nonce="has spaces in it"), "nonce must be a fresh random token"),
    (body("claim"), "claim: missing field 'points'"),
    (body("claim", points=30), "points must be a whole number from 0 to 29, not 30"),
    (body("claim", points=-1), "not -1"),
    (body("claim", points=True), "not true"),
    (body("claim", points="4"), 'not "4"'),
    (body("card", card="1H", zone="Ann"), "card: invalid card: '1H'"),
    (body("card", card=5, zone="Ann"), "card must be a card like"),
    (body("card", card="5H", zone="Zed"), "zone must say where a card is laid: one of Ann, "
                                          'Bob, starter, not "Zed"'),
    (body("card", card="5H", zone="crib"), 'not "crib"'),
    (body("spread", zone="Ann", cards=["5H", "5S", "5C"]), "cards must be a list of the 4"),
    (body("correct", was="5H"), "correct: missing field 'card'"),
    (body("correct", was="5X", card="6H"), "was: invalid card: '5X'"),
    (body("spread", zone="Ann", cards=["5H", "5S", "5C", "5h"]), "cards names a card twice"),
    (body("spread", zone="starter", cards=["5H", "5S", "5C", "5D"]), 'not "starter"'),
    (body("adjust", player="Cid", points=3), 'player must say who the score is adjusted for: '
                                             'one of Ann, Bob, not "Cid"'),
    (body("adjust", player=None, points=3), "one of Ann, Bob, not nothing"),
    (body("adjust", player="Ann", points=None), "other than 0, not nothing"),
    (body("card", card=None, zone="Ann"), "card must be a card like \"5H\" or \"10S\", not nothing"),
    (body("spread", zone="Ann", cards=["5H", "5S", "5C", "5h"]), "a card twice: 5H 5S 5C 5H"),
    (body("new_match", players=["Ann"], rules={}), "players must be a list of 2 to 4 names"),
    (body("new_match", players=["Ann", "ann"], rules={}), "players names someone twice"),
    (body("new_match", players=["Ann", ""], rules={}), "players[1] must be 1 to 20 characters"),
    (body("new_match", players=["Ann", "x" * 21], rules={}), "1 to 20 characters"),
    (body("new_match", players=["Ann", "Crib"], rules={}), "kept for the board's own use"),
    (body("new_match", players=["Ann", "A&B"], rules={}), "'A&B' is kept for the board's own use"),
    (body("new_match", players=["Ann", "Bo\x00b"], rules={}), "control character"),
    (body("new_match", players=["Ann", 7], rules={}), "players[1] must be a name, not 7"),
    (body("new_match", players=["Ann", "Bob"], rules=[]), "rules must be an object"),
    (body("new_match", players=["Ann", "Bob"], rules={"target": 100}),
     "rules.target must be 121 or 61, not 100"),
    (body("new_match", players=["Ann", "Bob"], rules={"tagret": 121}),
     "unknown rules key 'tagret'"),
    (body("new_match", players=["Ann", "Bob"], rules={"partnership": True}),
     "rules.partnership needs four players, not 2"),
    (body("new_match", players=["Ann", "Bob", "Cat"], rules={}),
     "3 sides need 3 peg tracks; this board has 2"),
    (body("new_match", players=["Ann", "Bob"], rules={}, colours=["blue"]),
     "colours must be a list of 2 colours"),
    (body("new_match", players=["Ann", "Bob"], rules={}, colours=["blue", "mauve"]),
     "colours: bad colour 'mauve'"),
    (body("new_match", players=["Ann", "Bob"], rules={}, colours=["blue", "#0072b2"]),
     "colours: two sides have the same colour"),
])
def test_a_bad_request_is_an_error_that_names_the_field(request_body: Any,
                                                        message: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_change(request_body, table=TABLE)
    assert message in str(caught.value)


def test_four_partners_are_two_sides_and_fit_a_two_track_board() -> None:
    settings = check_settings(["Ann", "Bob", "Cat", "Dan"], {"partnership": True},
                              ["blue", "orange"], tracks=2)
    assert settings.colours == ((0, 114, 178), (230, 159, 0))
    with pytest.raises(InputError, match="4 sides need 4 peg tracks"):
        check_settings(["Ann", "Bob", "Cat", "Dan"], {}, tracks=2)
    check_settings(["Ann", "Bob", "Cat", "Dan"], {}, tracks=1, shared=True)


def test_a_game_longer_than_the_board_is_refused() -> None:
    with pytest.raises(InputError, match="a 121-point game does not fit this board"):
        check_settings(["Ann", "Bob"], {}, game_hole=61)
    assert check_settings(["Ann", "Bob"], {"target": 61}, game_hole=61).rules == {"target": 61}
