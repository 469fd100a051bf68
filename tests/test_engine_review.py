"""The review of a deal and the ``discard`` event: checked against a deal counted by hand."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from engine.cards import DECK, parse_cards
from engine.game import Game
from engine.records import LogError
from engine.review import PLAY_REASONS, review_log
from engine.show import show_total

GAMES = Path(__file__).parent / "games"

# Ann deals 5H 5C 5S JD QH 2C to herself and keeps the fives and the jack; Bob keeps
# AS 2S 3S 4S and throws KD KC. Counted by hand:
# - the play: A 5 2 5 3 5 4 (25): Bob's 4S makes 3-5-4 a run of three (3) and is the last
#   card of the count (1); Ann's JD leads a new count and is the last card (1);
# - Bob's show A-2-3-4 | 5D: fifteen 2, run of five 5, flush of four 4 = 11;
# - Ann's show 5-5-5-J | 5D: 29; the crib 2C QH KD KC | 5D: three fifteens 6, a pair 2 = 8.
DEAL = [
    {"type": "new_game", "players": ["Ann", "Bob"]},
    {"type": "deal", "dealer": "Ann"},
    {"type": "starter", "card": "5D"},
    *({"type": "play", "player": p, "card": c} for p, c in [
        ("Bob", "AS"), ("Ann", "5C"), ("Bob", "2S"), ("Ann", "5H"), ("Bob", "3S"),
        ("Ann", "5S"), ("Bob", "4S"), ("Ann", "JD")]),
    {"type": "show", "player": "Bob", "cards": ["AS", "2S", "3S", "4S"]},
    {"type": "show", "player": "Ann", "cards": ["5C", "5H", "5S", "JD"]},
    {"type": "crib", "cards": ["2C", "QH", "KD", "KC"]},
]
ANN_THREW = {"type": "discard", "player": "Ann", "cards": ["2C", "QH"]}


def test_a_deal_counted_by_hand() -> None:
    (deal,) = review_log([*DEAL, ANN_THREW])
    ann, bob = deal.players
    assert (deal.game, deal.number, deal.dealer, str(deal.starter)) == (1, 1, "Ann", "5D")
    assert (bob.shown, bob.pegged, deal.pegging_given("Bob")) == (11, 4, 1)
    assert (ann.shown, ann.pegged, deal.pegging_given("Ann")) == (29, 1, 4)
    assert (deal.crib_points, deal.heels) == (8, 0)
    # Bob's throw is the crib less Ann's: two players throw everything in the crib.
    assert [str(c) for c in bob.thrown] == ["KC", "KD"]
    unseen = [c for c in DECK if c not in parse_cards("AS 2S 3S 4S KD KC")]
    assert bob.hand_expected == Fraction(
        sum(show_total(parse_cards("AS 2S 3S 4S"), s) for s in unseen), 46)
    # CONTRACT.md's advise numbers for Ann's choice; the best throws the jack instead.
    assert ann.choice.to_json()["net"] == 20.116908
    assert [str(c) for c in ann.best.keep] == ["5C", "5H", "5S", "QH"]
    assert round(float(ann.lost_to_best), 6) == round(20.247606 - 20.116908, 6)


def test_without_a_discard_the_expectation_is_over_the_cards_not_kept() -> None:
    (deal,) = review_log(DEAL)
    bob = deal.players[1]
    assert bob.thrown is None and bob.choice is None and bob.lost_to_best is None
    others = [c for c in DECK if c not in parse_cards("AS 2S 3S 4S")]
    assert bob.hand_expected == Fraction(
        sum(show_total(parse_cards("AS 2S 3S 4S"), s) for s in others), 48)


@pytest.mark.parametrize(("where", "event", "message"), [
    (2, ANN_THREW, "record it once this deal's starter is cut"),
    (3, {"type": "discard", "player": "Ann", "cards": ["2C"]}, "Ann threw 2 cards"),
    (11, {"type": "discard", "player": "Bob", "cards": ["AS", "KD"]},
     "Bob cannot have thrown AS: it was laid in the play"),
    (11, {"type": "discard", "player": "Bob", "cards": ["5D", "KD"]},
     "Bob cannot have thrown 5D: it is the starter"),
    (14, {"type": "discard", "player": "Bob", "cards": ["9H", "KD"]},
     "Bob cannot have thrown 9H: it is not in the crib"),
])
def test_a_discard_that_cannot_be_is_refused_in_words(where: int, event: dict[str, object],
                                                      message: str) -> None:
    game = Game.replay(DEAL[:where])
    with pytest.raises(LogError, match=message):
        game.apply(event)


def test_a_discard_once_per_player_and_never_against_another_throw() -> None:
    game = Game.replay([*DEAL[:3], ANN_THREW])
    with pytest.raises(LogError, match="Ann's discard this deal is already recorded: 2C QH"):
        game.apply({"type": "discard", "player": "Ann", "cards": ["9H", "9C"]})
    with pytest.raises(LogError, match="Bob cannot have thrown QH: it is Ann's discard"):
        game.apply({"type": "discard", "player": "Bob", "cards": ["QH", "KD"]})
    rest = Game.replay([*DEAL[:3], ANN_THREW, *DEAL[3:-1]])
    with pytest.raises(LogError, match=r"the crib 9C QH KD KC lacks 2C, thrown to it"):
        rest.apply({"type": "crib", "cards": ["9C", "QH", "KD", "KC"]})


def test_a_discard_scores_nothing_and_may_follow_the_end_of_the_game() -> None:
    before = Game.replay(DEAL)
    after = Game.replay([*DEAL, ANN_THREW])
    assert [s.score for s in after.sides] == [s.score for s in before.sides]
    log = [json.loads(line) for line in (GAMES / "two-players.jsonl").read_text().splitlines()]
    game = Game.replay(log)
    assert game.phase == "over"
    game.apply({"type": "discard", "player": "Ann",
                "cards": [c for c in ("3C", "4C", "7H") if c not in map(str, game.pile)][:2]})
    assert game.phase == "over"


@pytest.mark.parametrize("name", ["two-players", "three-players", "four-players",
                                  "partnership"])
def test_review_adds_up_to_the_engines_own_records(name: str) -> None:
    """Each deal's shows and play in the review are what the replay pegged, except that a
    show that wins the game pegs only the holes left: the review keeps its true count."""
    lines = (GAMES / f"{name}.jsonl").read_text().splitlines()
    deals = iter(review_log(lines))
    game = Game()
    deal: dict[tuple[str, str], int] = {}

    def check(pegged: dict[tuple[str, str], int], won: bool) -> None:
        review = next(deals)
        for part in review.players:
            assert part.pegged == pegged.get(("play", part.player), 0)
            hand = pegged.get(("hand", part.player), 0)
            assert part.shown == hand if not won else (part.shown or 0) >= hand

    for line in lines:
        kind = json.loads(line)["type"]
        if kind in ("deal", "new_game") and deal:
            check(deal, won=game.phase == "over")
            deal = {}
        for record in game.apply(line):
            part = ("hand" if record.reason == "hand" else
                    "play" if set(record.reason.split("+")) <= PLAY_REASONS else "other")
            deal[(part, record.player)] = deal.get((part, record.player), 0) + record.points
        if kind == "deal":
            deal[("dealt", "")] = 1
    check(deal, won=True)


def test_a_corrected_card_is_reviewed_as_it_was_put_right() -> None:
    misread = [*DEAL[:2], {"type": "starter", "card": "6D"},
               {"type": "correct", "was": "6D", "card": "5D"}, *DEAL[3:]]
    assert review_log(misread) == review_log(DEAL)
