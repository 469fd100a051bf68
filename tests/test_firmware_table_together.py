"""One settled change holding many cards (issue 61): a whole hand put down at once, or a photo
of a table, is not taken card by card as the cut, the starter and plays with the rest
refused. When a change holds more cards than the game can take in its step, the board asks
and takes none of it; where the game is at a show, a hand spread in one change is that show.
Through the device loop, the tracker's facts scripted (``ScriptedTracker``)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from engine.cards import Card
from engine.simulate import simulate_game
from firmware.demo.scripted_table import BlankCamera, ScriptedTracker, SteppedClock
from firmware.device.loop import DeviceLoop
from firmware.store.eventstore import EventStore
from firmware.table.flow import Feedback, TableFlow
from firmware.table.together import HAND, judge
from hardware.layout import per_side_tracks
from hardware.render import Renderer
from hardware.strips.simulator import SimulatorStrip
from vision.live.tracker import CardAppeared, CardRemoved, ZoneComplete

C = Card.parse
PLAYERS = ("Ann", "Bob")


class Table:
    """The device loop with a scripted tracker: ``lay`` hands it one change's facts."""

    def __init__(self, path: Path, events: list[dict[str, Any]] | None = None) -> None:
        self.clock = SteppedClock()
        self.store = EventStore.open(path, clock=self.clock)
        for k, event in enumerate(events or ()):
            (self.store.start_match if k == 0 else self.store.append)(event)
        layout = per_side_tracks(2)
        self.tracker = ScriptedTracker()
        self.said: list[Feedback] = []
        rules = events[0]["rules"] if events else None
        self.loop = DeviceLoop(store=self.store, flow=TableFlow(PLAYERS, rules),
                               strip=SimulatorStrip(layout), renderer=Renderer(layout),
                               clock=self.clock, source=BlankCamera(self.clock),
                               recognise=lambda image: [], tracker=self.tracker,
                               on_feedback=self.said.append)
        self.loop.start()

    def lay(self, *facts: Any) -> list[Feedback]:
        before = len(self.said)
        self.tracker.push(facts)
        self.loop.step()
        return self.said[before:]

    def close(self) -> None:
        self.store.close()


def laid(zone: str, *cards: str) -> list[CardAppeared]:
    return [CardAppeared(C(card), zone, (), 0.0) for card in cards]


def test_five_cards_at_once_at_the_cut_are_asked_about_and_none_is_taken(tmp_path: Path
                                                                          ) -> None:
    table = Table(tmp_path / "events.sqlite3")
    try:
        said = table.lay(*laid("Ann", "3C", "9H", "KD"), *laid("Bob", "5S", "JC"))
        game = table.store.game
        assert game.phase == "deal" and game.turn is None  # no dealer chosen, no starter
        assert game.starter is None and not any(game.laid(p) for p in PLAYERS)
        asks = [f.text for f in said if f.kind == "ask"]
        assert asks == ["5 cards came at once (3 in Ann's area, 2 in Bob's area), more than "
                        "the board can take in one step: for the cut each player lays one "
                        "card in their own area. Lift them and lay them again one at a time"]
        assert [f for f in said if f.kind == "flash"] == []  # nothing refused card by card
        # Lifted and laid again one at a time, the cut goes on as ever.
        table.lay(*[CardRemoved(c.card, c.zone, 0.0) for c in laid("Ann", "3C", "9H", "KD")
                    + laid("Bob", "5S", "JC")])
        table.lay(*laid("Ann", "3C"))
        said = table.lay(*laid("Bob", "JC"))
        assert table.store.game.dealer == "Ann"
        assert not any(f.kind == "ask" for f in said)
    finally:
        table.close()


def test_one_card_each_at_the_cut_in_one_change_is_still_the_cut(tmp_path: Path) -> None:
    table = Table(tmp_path / "events.sqlite3")
    try:
        said = table.lay(*laid("Ann", "KD"), *laid("Bob", "2S"))
        assert table.store.game.dealer == "Bob"
        assert not any(f.kind == "ask" for f in said)
    finally:
        table.close()


def to_the_show() -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A simulated game's events up to its first show, and that show."""
    truth = simulate_game(random.Random(5), PLAYERS, {"target": 121})
    first = next(k for k, e in enumerate(truth) if e["type"] == "show")
    return truth[:first], truth[first]


def test_a_whole_hand_in_one_change_at_the_show_is_that_show(tmp_path: Path) -> None:
    """The hand's cards were laid in the play; gathered and spread again in one change, with
    a stray card beside them (so the area is never seen complete), they are the show."""
    events, show = to_the_show()
    table = Table(tmp_path / "events.sqlite3", events)
    try:
        player, cards = show["player"], show["cards"]
        assert table.store.game.phase == "show" and table.store.game.turn == player
        table.lay(*[CardRemoved(C(c), player, 0.0) for c in cards])
        said = table.lay(*laid(player, *cards))
        game = table.store.game
        assert game.turn != player or game.phase != "show"  # counted: the next count is due
        assert any(f.kind == "say" and f.text.startswith(f"{player}'s hand: ") for f in said)
        assert not any(f.kind in ("ask", "flash") for f in said)
        # The tracker's ZoneComplete for the same cards in the same frame is no second count.
        size = len(table.store.lines)
        table.lay(ZoneComplete(player, tuple(sorted(C(c) for c in cards)), 0.0))
        assert len(table.store.lines) == size
    finally:
        table.close()


def test_more_than_a_starter_in_one_change_is_asked_about(tmp_path: Path) -> None:
    truth = simulate_game(random.Random(5), PLAYERS, {"target": 121})
    first = next(k for k, e in enumerate(truth) if e["type"] == "starter")
    table = Table(tmp_path / "events.sqlite3", [e for e in truth[:first]
                                                if e["type"] != "deal" or "dealer" in e])
    try:
        phase = table.store.game.phase
        said = table.lay(*laid("starter", "4D"), *laid("Ann", "6C"), *laid("Bob", "8H"))
        assert table.store.game.phase == phase and table.store.game.starter is None
        assert [f.kind for f in said if f.kind in ("ask", "flash")] == ["ask"]
        assert "the starter is one card" in said[-1].text
    finally:
        table.close()


@pytest.mark.parametrize(("new", "phase", "verdict"), [
    ([("AS", "Ann")], "play", "one by one"),
    ([("AS", "Ann"), ("2S", "Bob")], "play", "one by one"),
    ([("AS", "Ann"), ("2S", "Ann")], "play", "ask"),
    ([("AS", "crib"), ("2S", "crib"), ("3S", "crib"), ("4S", "crib")], "play", "spread"),
    ([("AS", "Ann"), ("2S", None)], "play", "ask"),
])
def test_the_play_takes_one_card_per_player_or_the_crib_spread(
        new: list[tuple[str, str | None]], phase: str, verdict: str) -> None:
    from engine.game import Game

    truth = simulate_game(random.Random(5), PLAYERS, {"target": 121})
    first = next(k for k, e in enumerate(truth) if e["type"] == "play")
    game = Game.replay(truth[:first])
    assert game.phase == phase
    found = judge([(C(card), zone) for card, zone in new], game, players=PLAYERS, uncut=())
    got = ("ask" if found.ask else "spread" if found.spreads and len(found.spreads[0][1]) == HAND
           else "one by one" if not found.whole else "?")
    assert got == verdict


def test_one_card_read_twice_in_one_area_is_said_once() -> None:
    """The walk-through's 'I see JD in Bob's area and Bob's area': two places in one area."""
    from engine.game import Game
    from vision.live.tracker import CardInTwoPlaces

    flow = TableFlow(PLAYERS)
    game = Game.replay([flow.new_game_event()])
    said = flow.handle(CardInTwoPlaces(C("JD"), ("Bob", "Bob"), 0.0), game).feedback
    assert [(f.kind, f.text) for f in said] == [
        ("ask", "I see JD twice in Bob's area: which is it? Take the wrong one away")]
    said = flow.handle(CardInTwoPlaces(C("JD"), ("Ann", "starter"), 0.0), game).feedback
    assert said[0].text == ("I see JD in Ann's area and the starter area: which is it? Take "
                            "the wrong one away")
