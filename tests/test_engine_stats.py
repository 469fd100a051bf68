"""Players' statistics: results from the stored games' expected reports, hands from a deal
counted by hand (tests/test_engine_review.py)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from test_engine_review import ANN_THREW, DEAL

from engine.events import NewGame
from engine.fold import fold_steps
from engine.game import Game
from engine.review import review_log
from engine.stats import HAND_DISTRIBUTION, MatchLog, compute_stats, match_outcomes, score_races

GAMES = Path(__file__).parent / "games"
NAMES = ["two-players", "three-players", "three-players-bicycle", "four-players",
         "partnership", "muggins"]


def expected_results() -> tuple[Counter[str], Counter[str]]:
    """Games and wins per player, read from the golden replay reports alone."""
    games: Counter[str] = Counter()
    wins: Counter[str] = Counter()
    for name in NAMES:
        report = json.loads((GAMES / f"{name}.expected.json").read_text())
        players = {side["name"]: side["players"] for side in report["sides"]}
        finished = report["match"]["games"] if "match" in report else [report]
        for result in finished:
            for side, members in players.items():
                games.update(members)
                if side == result["winner"]:
                    wins.update(members)
    return games, wins


def test_games_and_wins_match_the_golden_reports() -> None:
    stats = compute_stats(MatchLog((GAMES / f"{n}.jsonl").read_text().splitlines())
                          for n in NAMES)
    games, wins = expected_results()
    assert {p.name: (p.games, p.wins) for p in stats.players} == {
        name: (games[name], wins[name]) for name in games}


def test_a_deal_counted_by_hand() -> None:
    stats = compute_stats([MatchLog([*DEAL, ANN_THREW])])
    ann, bob = stats.players
    assert (ann.deals, ann.hands, ann.hand_points, ann.cribs, ann.crib_points, ann.pegged) == \
        (1, 1, 29, 1, 8, 1)
    assert (bob.deals, bob.hands, bob.hand_points, bob.cribs, bob.pegged) == (1, 1, 11, 0, 4)
    (deal,) = review_log([*DEAL, ANN_THREW])
    assert ann.luck == 29 - deal.players[0].hand_expected
    assert abs(float(ann.lost_to_best) - (20.247606 - 20.116908)) < 2e-6
    assert (ann.judged_throws, bob.judged_throws) == (1, 1)
    data = ann.to_json()
    assert data["best_hands"] == [{"points": 29, "cards": ["5C", "5H", "5S", "JD"],
                                   "starter": "5D"}]
    assert data["hand_scores"] == {"29": 1}
    assert (data["hand_average"], data["crib_average"], data["pegging_average"]) == (29, 8, 1)
    assert bob.to_json()["crib_average"] is None
    assert stats.head_to_head == ()  # nobody has won yet


def test_a_period_counts_only_its_games() -> None:
    lines = (GAMES / "two-players.jsonl").read_text().splitlines()
    both = compute_stats([MatchLog(lines)])
    second = compute_stats([MatchLog(lines, games={2})])
    assert [(p.name, p.games, p.wins) for p in second.players] == [("Ann", 1, 0), ("Bob", 1, 1)]
    assert sum(p.deals for p in second.players) < sum(p.deals for p in both.players)
    assert second.head_to_head == (("Ann", "Bob", 1, 0, 1),)


def test_one_player_and_their_opponents() -> None:
    stats = compute_stats([MatchLog((GAMES / f"{n}.jsonl").read_text().splitlines())
                           for n in ("two-players", "three-players")], player="Bob")
    # Ann v Cid is in the logs but left out.
    assert [(a, b) for a, b, *_ in stats.head_to_head] == [("Ann", "Bob")]


def test_one_player_comes_with_everyone_who_sat_at_their_games() -> None:
    """Bob lost the three-handed game beside Cid (they never met head to head) and won with
    Dan as partners: all of them are in Bob's view, and only games Bob played are counted."""
    logs = [MatchLog((GAMES / f"{n}.jsonl").read_text().splitlines())
            for n in ("three-players", "partnership")]
    everyone = {p.name: p for p in compute_stats(logs).players}
    bob = compute_stats(logs, player="Bob")
    assert [p.name for p in bob.players] == ["Ann", "Bob", "Cid", "Dan"]
    assert all(p == everyone[p.name] for p in bob.players)
    assert [p.name for p in compute_stats(logs[:1], player="Cid").players] == [
        "Ann", "Bob", "Cid"]


def test_outcomes_say_each_losers_result() -> None:
    lines = (GAMES / "three-players.jsonl").read_text().splitlines()
    (outcome,) = match_outcomes(lines)
    report = json.loads((GAMES / "three-players.expected.json").read_text())
    assert outcome.winner == report["winner"]
    assert [side.score for side in outcome.sides] == [s["score"] for s in report["sides"]]


def test_score_race_ends_at_the_final_scores() -> None:
    lines = (GAMES / "partnership.jsonl").read_text().splitlines()
    race = score_races(lines)[1]
    report = json.loads((GAMES / "partnership.expected.json").read_text())
    assert {side: points[-1][1] for side, points in race.items()} == {
        s["name"]: s["score"] for s in report["sides"]}
    for points in race.values():
        assert points[0][1] == 0
        assert [p[1] for p in points] == sorted(p[1] for p in points)


def test_the_shared_fold_numbers_the_games_and_marks_each_end() -> None:
    """The walk that match_outcomes, score_races and review_log share: each new_game starts
    the next game, and the event that finishes one is marked once, as the replay records."""
    lines = (GAMES / "two-players.jsonl").read_text().splitlines()
    starts, ends = [], []
    for step in fold_steps(lines):
        if isinstance(step.event, NewGame):
            starts.append((step.number, step.game))
        if step.ended:
            ends.append((step.game, step.fold.winner, step.fold.phase))
    assert starts == [(n, game) for game, n in enumerate(
        (n for n, line in enumerate(lines) if json.loads(line)["type"] == "new_game"), 1)]
    assert ends == [(game, result.winner, "over")
                    for game, result in enumerate(Game.replay(lines).match, 1)]
    assert len(ends) == 2


def test_the_all_hands_distribution_is_every_show() -> None:
    assert sum(HAND_DISTRIBUTION.values()) == 12_994_800
    assert [s for s, n in HAND_DISTRIBUTION.items() if n == 0] == [19, 25, 26, 27]


def test_each_match_is_replayed_once_for_its_outcomes_and_its_deals(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import engine.stats

    folds: list[int] = []

    def counted(lines):  # type: ignore[no-untyped-def]
        folds.append(1)
        return fold_steps(lines)

    monkeypatch.setattr(engine.stats, "fold_steps", counted)
    logs = [MatchLog((GAMES / f"{n}.jsonl").read_text().splitlines()) for n in NAMES[:2]]
    stats = compute_stats(logs)
    assert len(folds) == 2
    # The same figures as outcomes and review taken from two replays.
    assert sum(p.games for p in stats.players) == sum(
        len(s.players) for log in logs for o in match_outcomes(log.lines) for s in o.sides)
    assert sum(p.deals for p in stats.players) == sum(
        len(d.players) for log in logs for d in review_log(log.lines) if d.starter is not None)
