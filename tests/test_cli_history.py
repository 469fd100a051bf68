"""``cribbage-board history``: matches, games, skunks, match points and the game in progress."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from storekit import Logs, play_two_matches, two_match_logs

from engine.game import Game
from firmware.commands.cli import main
from firmware.store.eventstore import EventStore


@pytest.fixture(scope="module")
def logs() -> Logs:
    return two_match_logs()


@pytest.fixture
def store_path(tmp_path: Path, logs: Logs) -> Path:
    path = tmp_path / "events.sqlite3"
    with EventStore.open(path) as store:
        play_two_matches(store, logs)
    return path


def history_json(path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["history", "--store", str(path), "--json"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    found: dict[str, Any] = json.loads(out)
    return found


def test_json_lists_each_match_and_the_current_game(store_path: Path, logs: Logs,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    first, second = logs
    report = history_json(store_path, capsys)
    expected = Game.replay(first)
    one, two = report["matches"]
    assert [(g["winner"], g["result"]) for g in one["games"]] == \
        [(g.winner, g.result) for g in expected.match]
    assert one["points"] == expected.match_points
    assert one["skunks"] == sum(g.result != "win" for g in expected.match)
    assert one["players"] == ["Ann", "Bob"] and one["events"] == len(first)
    assert two["games"] == [] and two["points"] == {"Cat": 0, "Dan": 0, "Eve": 0}
    current = report["current"]
    assert current["match"] == 2 and current["events"] == 20
    in_progress = Game.replay(second[:20]).to_json()
    assert {k: current[k] for k in in_progress} == in_progress
    assert current["standing"]["points"] == {"Cat": 0, "Dan": 0, "Eve": 0}


def test_a_second_game_keeps_the_match_id_and_shows_the_standing(
        tmp_path: Path, logs: Logs, capsys: pytest.CaptureFixture[str]) -> None:
    first, _ = logs
    path = tmp_path / "events.sqlite3"
    game = Game.replay(first)
    with EventStore.open(path) as store:
        for event in first:
            store.append(event)
        store.append(first[0])  # a third game of the match begins
    report = history_json(path, capsys)
    current = report["current"]
    assert current["match"] == 1
    assert current["standing"]["games"] == [g.to_json() for g in game.match]
    assert main(["history", "--store", str(path)]) == 0
    out = capsys.readouterr().out
    assert "current game (match 1): Ann 0, Bob 0" in out and "{" not in out
    points = ", ".join(f"{name} {n}" for name, n in game.match_points.items())
    assert f"  match standing: {points} after 2 games" in out
    if any(g.result == "double_skunk" for g in game.match):
        assert "double skunk" in out
    assert "double_skunk" not in out


def test_text_names_winners_and_match_points(store_path: Path, logs: Logs,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["history", "--store", str(store_path)]) == 0
    out = capsys.readouterr().out
    winner = Game.replay(logs[0]).match[0].winner
    assert "match 1: Ann, Bob (2 games finished" in out
    assert f"game 1: {winner} won" in out
    assert "match points: " in out and "current game (match 2): Cat " in out


def test_an_empty_store_has_no_matches(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    EventStore.open(tmp_path / "e.db").close()
    assert history_json(tmp_path / "e.db", capsys) == \
        {"store": str(tmp_path / "e.db"), "matches": [], "current": None}


def test_a_missing_store_exits_2_with_one_line(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["history", "--store", str(tmp_path / "none.db")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no event store at" in err


def test_a_damaged_store_is_reported_not_repaired(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "e.db"
    path.write_bytes(b"garbage" * 1000)
    assert main(["history", "--store", str(path)]) == 2
    assert "is damaged" in capsys.readouterr().err
    assert path.read_bytes() == b"garbage" * 1000 and not list(tmp_path.glob("*.damaged-*"))


def test_default_store_comes_from_the_environment(store_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("STATE_DIRECTORY", str(store_path.parent))
    assert main(["history", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["store"] == str(store_path)
