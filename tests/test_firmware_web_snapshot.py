"""firmware.web.snapshot: the page's JSON from a game, and the store's revision token."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from logdsl import log, play

from engine.game import Game
from engine.simulate import simulate_game
from firmware.store.eventstore import EventStore
from firmware.web.snapshot import (
    BoardLimits,
    TableView,
    hex_colour,
    match_standing,
    revision,
    side_json,
    table_snapshot,
)

COLOURS = ((0, 114, 178), (230, 159, 0), (0, 158, 115))


def view(game: Game, lines: list[str], **extra: Any) -> TableView:
    values: dict[str, Any] = {
        "game": game, "lines": lines, "rev": "9.9", "players": tuple(game.players) or
        ("Ann", "Bob"), "rules": {}, "colours": COLOURS}
    values.update(extra)
    return TableView(**values)


def lines_of(events: list[dict[str, Any]]) -> list[str]:
    return [json.dumps(e) for e in events]


def test_the_count_the_pegs_and_whose_turn() -> None:
    events = log("new Ann Bob", "deal Ann", "starter JH", "play Bob 5S", "play Ann 10D",
                 "play Bob 5H")
    game = Game.replay(events)
    data = table_snapshot(view(game, lines_of(events), status="Bob: a pair for two"))
    assert data["rev"] == "9.9" and data["phase"] == "play"
    assert data["next"] == "Ann to play or go (count 20)" and data["status"].startswith("Bob")
    assert data["turn"] == "Ann" and data["turn_side"] == 0 and data["dealer"] == "Ann"
    assert data["count"] == 20 and data["pile"] == ["5S", "10D", "5H"]
    assert data["starter"] == "JH" and data["laid"] == {"Ann": ["10D"], "Bob": ["5S", "5H"]}
    assert data["board"]["target"] == 121
    assert (data["board"]["skunk"], data["board"]["double_skunk"]) == (91, 61)
    ann, bob = data["sides"]
    assert (ann["name"], ann["score"], ann["front"], ann["back"]) == ("Ann", 4, 4, 2)
    assert ann["colour"] == "#0072b2" and bob["colour"] == "#e69f00"
    assert (bob["score"], bob["front"], bob["back"]) == (0, 0, 0)
    # Newest first, in words, with the card that made each one.
    assert [(s["player"], s["what"], s["points"], s["words"]) for s in data["scores"]] == [
        ("Ann", "fifteen", 2, "fifteen two"), ("Ann", "his heels", 2, "two for his heels")]
    assert data["scores"][0]["cards"] == ["10D"]


def test_skunk_lines_scale_to_a_61_point_game() -> None:
    game = play("new Ann Bob", "deal Ann", rules={"target": 61})
    board = table_snapshot(view(game, []))["board"]
    assert (board["target"], board["skunk"], board["double_skunk"]) == (61, 31, None)


def test_a_show_is_itemised_in_words_with_its_cards_and_starter() -> None:
    events = simulate_game(random.Random(1), ("Ann", "Bob"), {"target": 121})
    cribs = [i for i, e in enumerate(events) if e["type"] == "crib"]
    # The first crib that scored (the first deal's crib of this game scores nothing).
    shown = next(events[:i + 1] for i in cribs
                 if Game.replay(events[:i + 1]).points[-1].reason == "crib")
    game = Game.replay(shown)
    data = table_snapshot(view(game, lines_of(shown)))
    crib = data["scores"][0]
    assert crib["kind"] == "crib" and crib["what"] == "crib"
    assert sorted(crib["cards"]) == sorted(shown[-1]["cards"])
    starter = [e["card"] for e in shown if e["type"] == "starter"][-1]  # this deal's
    assert crib["starter"] == starter
    assert crib["words"] == "fifteen two, fifteen four" and crib["points"] == 4
    hands = [s for s in data["scores"] if s["kind"] == "show"]
    assert len(hands) >= 2
    for hand in hands:  # each with the starter of its own deal
        its_starter = [e["card"] for e in shown[:hand["event"]] if e["type"] == "starter"][-1]
        assert hand["starter"] == its_starter and len(hand["cards"]) == 4


def test_a_finished_match_game_is_in_the_history_with_its_result() -> None:
    events = simulate_game(random.Random(3), ("Ann", "Bob"), {"target": 61})
    game = Game.replay(events)
    data = table_snapshot(view(game, lines_of(events)))
    assert data["phase"] == "over" and data["winner"] == game.winner
    assert data["winner_side"] == [s.name for s in game.sides].index(game.winner)
    assert data["turn"] is None and data["turn_side"] is None
    (finished,) = data["match"]["games"]
    assert finished["winner"] == game.winner and finished["result"] in ("win", "skunk")
    assert data["match"]["points"][game.winner] >= 1


def test_before_any_game_the_settings_still_draw_a_board() -> None:
    data = table_snapshot(view(Game(), [], players=("Ann", "Bob", "Cat"),
                               rules={"target": 61, "muggins": True},
                               limits=BoardLimits(tracks=3, shared=False, game_hole=121)))
    assert data["phase"] == "new_game" and data["sides"] == [] and data["laid"] == {}
    assert data["board"]["target"] == 61 and data["rules"]["muggins"]
    assert data["settings"] == {"players": ["Ann", "Bob", "Cat"],
                                "rules": {"target": 61, "muggins": True},
                                "colours": ["#0072b2", "#e69f00", "#009e73"]}
    assert data["board"]["limits"] == {"tracks": 3, "shared": False, "game_hole": 121}
    json.dumps(data)  # plain JSON all through


def test_feedback_is_listed_newest_first() -> None:
    data = table_snapshot(view(Game(), [], feedback=(("say", "one"), ("flash", "two"))))
    assert data["feedback"] == [{"kind": "flash", "text": "two"}, {"kind": "say", "text": "one"}]


def test_revision_changes_with_every_append_and_undo_and_never_repeats(tmp_path: Path) -> None:
    store = EventStore.open(tmp_path / "e.db")
    seen = [revision(store)]
    for event in log("new Ann Bob", "deal Ann", "starter JH"):
        store.append(event)
        seen.append(revision(store))
    store.undo()
    seen.append(revision(store))
    store.undo()
    seen.append(revision(store))
    store.append(log("new Ann Bob", "deal Bob")[1])
    seen.append(revision(store))
    store.start_match(log("new Cat Dan")[0])
    seen.append(revision(store))
    assert len(set(seen)) == len(seen), seen
    assert seen[3] == "3.3" and seen[4] == "3.2"
    store.close()


def test_hex_colour() -> None:
    assert hex_colour((0, 114, 178)) == "#0072b2"


def test_the_match_standing_names_its_length_match_point_and_winner() -> None:
    events = simulate_game(random.Random(3), ("Ann", "Bob"), {"target": 61, "best_of": 3})
    game = Game.replay(events)
    match = table_snapshot(view(game, lines_of(events)))["match"]
    assert (match["best_of"], match["first_to"]) == (3, None)
    assert match["match_point"] == [game.winner] and match["winner"] is None
    events = simulate_game(random.Random(3), ("Ann", "Bob"), {"target": 61, "best_of": 1})
    game = Game.replay(events)
    match = table_snapshot(view(game, lines_of(events)))["match"]
    assert match["winner"] == game.winner and match["match_point"] == []


def test_a_side_is_shown_alike_on_the_page_and_to_the_club() -> None:
    from firmware.club.publisher import table_of

    events = log("new Ann Bob", "deal Ann", "starter JH", "play Bob 5S", "play Ann 10D")
    game = Game.replay(events)
    ann = game.sides[0]
    assert side_json(ann) == {"name": "Ann", "players": ["Ann"], "score": 4, "front": 4,
                              "back": 2}
    page = table_snapshot(view(game, lines_of(events)))["sides"]
    # The page's keys start with the club's, in the same order, and add its own after.
    assert [list(s)[:5] for s in page] == [list(side_json(s)) for s in game.sides]
    assert [list(s)[5:] for s in page] == [["colour", "result"]] * 2
    assert table_of(game, 1)["sides"] == [side_json(s) for s in game.sides]


def test_the_match_standing_before_a_game_takes_the_rules_it_is_given() -> None:
    from engine.rules import Rules

    assert match_standing(Game(), Rules(first_to=5)) == {
        "points": {}, "best_of": None, "first_to": 5, "match_point": [], "winner": None}
    events = simulate_game(random.Random(3), ("Ann", "Bob"), {"target": 61, "best_of": 3})
    game = Game.replay(events)
    standing = match_standing(game)
    assert standing == {"points": game.match_points, "best_of": 3, "first_to": None,
                        "match_point": [game.winner], "winner": None}
    assert table_snapshot(view(game, lines_of(events)))["match"] == {
        "games": [{"winner": game.winner, "result": game.result, "value": 1,
                   "scores": list(game.match[0].scores)}], **standing}
