"""The phone page's inputs in the table flow and the loop, without HTTP: the loop takes the
hub's requests in its own step and they change the store exactly as the buttons do."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from webrig import Device, scripted_game, starter_step

from engine.cards import Card
from engine.game import Game
from engine.show import score_show
from engine.words import card_words
from firmware.demo.scripted_table import Step
from firmware.table.flow import (
    ButtonAction,
    CorrectCard,
    ManualCard,
    ManualSpread,
    NewMatch,
    TableFlow,
)
from firmware.web.hub import Reply
from firmware.web.snapshot import revision
from vision.live.tracker import CardAppeared


def ask(device: Device, *items: Any, nonce: str, rev: str | None = None) -> Reply:
    """Hands ``items`` to the hub as the page would, lets the loop take one turn, and
    returns the loop's answer."""
    future = device.hub.submit(items, rev=rev or revision(device.store),
                               nonce=nonce)
    device.loop.step()
    return future.result(0)


def types(device: Device) -> list[str]:
    return [json.loads(line)["type"] for line in device.store.lines]


# -- the flow alone ------------------------------------------------------------------------------


def test_new_match_settings_make_the_next_new_game_events() -> None:
    flow = TableFlow(("Ann", "Bob"), {})
    out = flow.handle(NewMatch(("Cat", "Dan", "Eve"), {"target": 61}, 1.0), Game())
    assert out.fresh_match
    assert out.events == ({"type": "new_game", "players": ["Cat", "Dan", "Eve"],
                           "rules": {"target": 61}},)
    assert flow.players == ("Cat", "Dan", "Eve") and flow.new_game_event()["rules"] == \
        {"target": 61}
    assert "the camera has no area for Eve" in out.feedback[0].text


def test_new_match_with_rules_the_engine_refuses_changes_nothing() -> None:
    flow = TableFlow(("Ann", "Bob"), {})
    out = flow.handle(NewMatch(("Cat", "Dan"), {"partnership": True}, 1.0), Game())
    assert out.events == () and out.feedback[0].kind == "flash"
    assert "partnership needs four players" in out.feedback[0].text
    assert flow.players == ("Ann", "Bob")


def test_camera_seat_zones_follow_the_seating_chosen_on_the_phone() -> None:
    flow = TableFlow(("Cat", "Dan"), seats=("Ann", "Bob"))
    game = Game.replay([flow.new_game_event()])
    flow.handle(CardAppeared(Card.parse("9S"), "Ann", (), 0.0), game)  # Cat's seat
    out = flow.handle(CardAppeared(Card.parse("2H"), "Bob", (), 0.0), game)  # Dan's seat
    assert out.events == ({"type": "deal", "dealer": "Dan"},)
    # Cards by hand name players, not camera zones.
    flow = TableFlow(("Bob", "Ann"), seats=("Ann", "Bob"))
    game = Game.replay([flow.new_game_event()])
    flow.handle(ManualCard(Card.parse("9S"), "Ann", 0.0), game)
    out = flow.handle(CardAppeared(Card.parse("2H"), "Ann", (), 0.0), game)  # Bob's seat
    assert out.events == ({"type": "deal", "dealer": "Bob"},)


# -- through the hub and the loop ----------------------------------------------------------------


@pytest.fixture
def device(tmp_path: Path) -> Any:
    found = Device(tmp_path / "events.sqlite3")
    found.start()
    yield found
    found.close()


def test_undo_from_the_page_goes_the_buttons_way(device: Device) -> None:
    truth, steps = scripted_game()
    device.play(steps[:starter_step(steps) + 2])
    assert types(device)[-1] == "play"
    lines = list(device.store.lines)
    reply = ask(device, ButtonAction("undo"), nonce="undo-0001")
    assert reply.status == "done" and reply.changed and reply.rev == revision(device.store)
    assert list(device.store.lines) == lines[:-1]
    undone = [text for _, text in reply.feedback if text.startswith("undone: ")]
    last = json.loads(lines[-1])
    assert undone[0].startswith(f"undone: {last['player']}'s ") and "{" not in undone[0]
    (undo,) = [i for i in device.flow.inputs if isinstance(i, ButtonAction)]
    assert undo.name == "undo" and undo.at > 1000.0  # stamped with the loop's clock
    # The snapshot published in that same turn shows it.
    assert device.state()["rev"] == reply.rev


def test_a_card_corrected_from_the_page_refolds_and_says_the_new_score(device: Device) -> None:
    truth, steps = scripted_game()
    device.play(steps[:starter_step(steps) + 2])
    laid = json.loads(device.store.lines[-1])
    used = {json.loads(line).get("card") for line in device.store.lines}
    right = next(c for c in ("AS", "AH", "AD", "AC", "2S", "2H") if c not in used)
    reply = ask(device, CorrectCard(Card.parse(laid["card"]), Card.parse(right), 0.0),
                nonce="correct-01")
    assert reply.status == "done" and reply.changed
    assert json.loads(device.store.lines[-1]) == {"type": "correct", "was": laid["card"],
                                                  "card": right}
    said = [text for kind, text in reply.feedback if kind == "say"]
    assert said[0].startswith(f"corrected: the {card_words(Card.parse(laid['card']))} is "
                              f"the {card_words(Card.parse(right))}")
    assert str(device.store.game.pile[-1]) == right


def test_a_stale_request_changes_nothing_and_never_reaches_the_flow(device: Device) -> None:
    truth, steps = scripted_game()
    device.play(steps[:starter_step(steps) + 2])
    old = revision(device.store)
    device.play(steps[starter_step(steps) + 2:starter_step(steps) + 3])  # the next card
    lines, seen = list(device.store.lines), len(device.flow.inputs)
    reply = ask(device, ButtonAction("undo"), nonce="undo-0002", rev=old)
    assert reply == Reply("stale", revision(device.store))
    assert list(device.store.lines) == lines
    assert not any(isinstance(i, ButtonAction) and i.name == "undo"
                   for i in device.flow.inputs[seen:])


def test_a_card_by_hand_is_laid_and_an_illegal_one_is_refused(device: Device) -> None:
    truth, steps = scripted_game()
    start = starter_step(steps)
    device.play(steps[:start + 1])
    lead = next(e for e in truth if e["type"] == "play")
    reply = ask(device, ManualCard(Card.parse(lead["card"]), lead["player"], 0.0),
                nonce="card-0001")
    assert reply.changed and json.loads(device.store.lines[-1]) == lead
    lines = list(device.store.lines)
    dealer = next(e["dealer"] for e in truth if e["type"] == "deal")
    unused = next(c for c in ("KH", "KD", "KS", "KC", "QH", "QD") if c not in str(truth[:20]))
    reply = ask(device, ManualCard(Card.parse(unused), dealer, 0.0), nonce="card-0002") \
        if dealer == lead["player"] else \
        ask(device, ManualCard(Card.parse(unused), lead["player"], 0.0), nonce="card-0002")
    assert not reply.changed and reply.refused
    assert list(device.store.lines) == lines


def test_a_hand_spread_by_hand_is_counted(tmp_path: Path) -> None:
    device = Device(tmp_path / "events.sqlite3")
    device.start()
    truth, steps = scripted_game()
    first_show = next(i for i, e in enumerate(truth) if e["type"] == "show")
    shown = truth[first_show]
    # Play up to the first show from the script; then count that hand from the phone.
    upto = next(i for i, s in enumerate(steps) if s.seen and type(s.seen[0]).__name__ ==
                "ZoneComplete")
    device.play(steps[:upto])
    assert device.store.game.phase == "show"
    cards = tuple(sorted(Card.parse(c) for c in shown["cards"]))
    reply = ask(device, ManualSpread(shown["player"], cards, 0.0), nonce="spread-001")
    assert reply.changed and types(device)[-1] == "show"
    assert any("'s hand: " in text for _, text in reply.feedback)
    device.close()


def first_show_worth_points(truth: list[dict[str, Any]]) -> int:
    game = Game()
    for number, event in enumerate(truth):
        game.apply(event)
        if event["type"] == "show" and game.starter is not None and score_show(
                [Card.parse(c) for c in event["cards"]], game.starter).total > 0:
            return number
    raise AssertionError("no show scored")


def test_claims_and_muggins_from_the_page(tmp_path: Path) -> None:
    rules = {"muggins": True}
    truth, steps = scripted_game(rules=rules, seed=5)
    device = Device(tmp_path / "events.sqlite3", rules=rules)
    device.start()
    # The first show worth something: its claim comes from the page, short, and is mugged.
    number = first_show_worth_points(truth)
    event = truth[number]
    claims = [i for i, s in enumerate(steps) if s.press == "claim"]
    spreads = [i for i, s in enumerate(steps) if s.seen and type(s.seen[0]).__name__ ==
               "ZoneComplete"]  # hands and cribs
    show_step = spreads[sum(e["type"] in ("show", "crib") for e in truth[:number])]
    device.play(steps[:show_step + 1])
    for _ in range(400):  # the hand waits for the last claim's muggins window to close
        if types(device)[-1] == "show":
            break
        device.loop.step()
    assert types(device)[-1] == "show" and device.store.game.awaiting_claim == (
        event["player"],)
    reply = ask(device, ButtonAction("claim", 0), nonce="claim-0001")
    assert reply.changed and json.loads(device.store.lines[-1]) == {
        "type": "claim", "player": event["player"], "points": 0}
    reply = ask(device, ButtonAction("muggins"), nonce="mugg-00001")
    assert reply.changed and types(device)[-1] == "muggins"
    assert any(text.startswith("muggins! ") for _, text in reply.feedback)
    assert claims  # the script's own claims were presses, as the page's are
    device.close()


def test_new_match_from_the_page_seats_players_and_recolours_the_pegs(tmp_path: Path) -> None:
    device = Device(tmp_path / "events.sqlite3", seats=("Ann", "Bob"))
    device.start()
    reply = ask(device, NewMatch(("Bob", "Ann", "Cat"), {"target": 61}, 0.0,
                                 ((213, 94, 0), (86, 180, 233), (240, 228, 66))),
                nonce="match-0001")
    assert reply.changed
    assert json.loads(device.store.lines[0]) == {
        "type": "new_game", "players": ["Bob", "Ann", "Cat"], "rules": {"target": 61}}
    assert device.loop.renderer.palette.sides == ((213, 94, 0), (86, 180, 233), (240, 228, 66))
    state = device.state()
    assert [s["colour"] for s in state["sides"]] == ["#d55e00", "#56b4e9", "#f0e442"]
    assert state["board"]["target"] == 61 and state["board"]["skunk"] == 31
    # The camera's "Ann" seat is Bob's now: a cut there is Bob's.
    device.play([Step((CardAppeared(Card.parse("AS"), "Ann", (), 0.0),)),
                 Step((CardAppeared(Card.parse("9H"), "Bob", (), 0.0),))])
    reply = ask(device, ManualCard(Card.parse("KC"), "Cat", 0.0), nonce="cut-cat-01")
    assert reply.changed  # Cat has no camera area: the phone cuts for Cat
    assert json.loads(device.store.lines[-1]) == {"type": "deal", "dealer": "Bob"}
    device.close()


def test_a_request_withdrawn_before_the_loop_took_it_is_never_applied(device: Device) -> None:
    lines = list(device.store.lines)
    future = device.hub.submit([ButtonAction("new_game")], rev=revision(device.store),
                               nonce="gone-00001")
    assert future.cancel()
    device.loop.step()
    assert list(device.store.lines) == lines
