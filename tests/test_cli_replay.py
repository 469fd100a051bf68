"""``cribbage-board replay``: the JSON of CONTRACT.md for whole stored games, and its errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_engine_simulate import reference_scores

from firmware.commands.cli import main

GAMES = Path(__file__).parent / "games"
LOGS = sorted(GAMES.glob("*.jsonl"))


def replay_json(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict]:
    code = main(["replay", str(path), "--json"])
    out = capsys.readouterr().out
    assert out.count("\n") == 1  # exactly one JSON object
    return code, json.loads(out)


@pytest.mark.parametrize("path", LOGS, ids=[p.stem for p in LOGS])
def test_whole_games_replay_to_their_golden_report(path: Path, capsys) -> None:
    code, report = replay_json(path, capsys)
    assert code == 0
    expected = json.loads(path.with_suffix("").with_suffix(".expected.json").read_text())
    assert report == expected
    assert set(report) >= {"sides", "points", "winner", "result", "next"}
    for side in report["sides"]:
        assert set(side) >= {"name", "players", "score", "pegs"}
        assert sum(p["points"] for p in report["points"] if p["side"] == side["name"]) \
            == side["score"]


@pytest.mark.parametrize("name", ["four-players", "partnership", "three-players"])
def test_golden_games_agree_with_the_reference_scorer(name: str) -> None:
    events = [json.loads(line) for line in (GAMES / f"{name}.jsonl").read_text().splitlines()]
    expected = json.loads((GAMES / f"{name}.expected.json").read_text())
    scores, winner = reference_scores(events, events[0]["rules"])
    assert [s["score"] for s in expected["sides"]] == scores
    assert expected["winner"] == expected["sides"][winner]["name"]


def test_a_match_reports_every_game(capsys) -> None:
    _, report = replay_json(GAMES / "two-players.jsonl", capsys)
    match = report["match"]
    assert len(match["games"]) == 2 and set(match["points"]) == {"Ann", "Bob"}
    assert sum(match["points"].values()) >= 2


def test_a_broken_log_names_the_line_and_rule(tmp_path: Path, capsys) -> None:
    lines = (GAMES / "two-players.jsonl").read_text().splitlines()[:8]
    lines.append(lines[5])  # the same card laid twice
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    code = main(["replay", str(bad), "--json"])
    captured = capsys.readouterr()
    assert code == 2
    error = json.loads(captured.out)["error"]
    assert error["event"] == 8
    assert "line 9" in error["message"] and "card_laid_twice" in error["message"]
    assert captured.err.count("\n") == 1 and "line 9" in captured.err


def test_human_output_and_missing_file(tmp_path: Path, capsys) -> None:
    assert main(["replay", str(GAMES / "partnership.jsonl")]) == 0
    text = capsys.readouterr().out
    assert "winner: Bob & Dan" in text and "next: game over" in text
    assert main(["replay", str(tmp_path / "nope.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_console_script_runs_as_a_process() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "firmware.commands.cli", "replay",
         str(GAMES / "three-players.jsonl"), "--json"],
        capture_output=True, text=True, check=True, stdin=subprocess.DEVNULL,
    )
    assert json.loads(out.stdout)["winner"] == "Ann"


def _refused(path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """The one line ``replay`` prints on stderr for a log it refuses with exit 2."""
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    return err


@pytest.mark.parametrize("opener, closer", [("[", "]"), ('{"a": ', "}")])
@pytest.mark.parametrize("depth", [40, 900, 1000, 50_000])
def test_a_deeply_nested_line_is_refused_naming_its_line(
        tmp_path: Path, capsys, opener: str, closer: str, depth: int) -> None:
    lines = (GAMES / "two-players.jsonl").read_text().splitlines()[:3]
    lines.append(opener * depth + "0" + closer * depth)
    bad = tmp_path / "deep.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    err = _refused(bad, capsys)
    assert "line 4" in err and "nested more than 32 levels deep" in err
    assert len(err) < 400  # the line is quoted cut short, not 100 kB of brackets


def test_null_rules_in_new_game_are_refused_in_words(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "null.jsonl"
    bad.write_text('{"type": "new_game", "players": ["Ann", "Bob"], "rules": null}\n')
    err = _refused(bad, capsys)
    assert "line 1" in err and "new_game.rules must be an object" in err and "None" in err


def test_an_integer_past_the_digit_limit_names_its_line(tmp_path: Path, capsys) -> None:
    lines = (GAMES / "two-players.jsonl").read_text().splitlines()[:2]
    lines.append('{"type": "adjust", "player": "Ann", "points": ' + "9" * 4301 + "}")
    bad = tmp_path / "huge.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    err = _refused(bad, capsys)
    assert "line 3" in err and "a number with more than 4300 digits" in err
    assert "set_int_max_str_digits" not in err


def test_text_that_is_not_utf8_names_its_line(tmp_path: Path, capsys) -> None:
    lines = (GAMES / "two-players.jsonl").read_bytes().splitlines()[:4]
    lines[2] = lines[2].replace(b"3H", b"3\xffH")
    bad = tmp_path / "latin.jsonl"
    bad.write_bytes(b"\n".join(lines) + b"\n")
    assert main(["replay", str(bad), "--json"]) == 2
    captured = capsys.readouterr()
    assert json.loads(captured.out)["error"]["event"] == 2
    assert "line 3" in captured.err and "not UTF-8 text" in captured.err


def test_a_line_separator_inside_a_name_does_not_split_the_line(tmp_path: Path,
                                                                 capsys) -> None:
    text = (GAMES / "two-players.jsonl").read_text()
    first = text.splitlines()[0]
    renamed = text.replace('"Ann"', '"An\u2028n"')
    assert renamed != text and first.startswith('{"type": "new_game"')
    log = tmp_path / "sep.jsonl"
    log.write_text(renamed, encoding="utf-8")
    code, report = replay_json(log, capsys)
    assert code == 0 and report["sides"][0]["name"] == "An\u2028n"


def test_text_says_results_in_words(tmp_path: Path, capsys) -> None:
    log = tmp_path / "g.jsonl"
    log.write_text('{"type": "new_game", "players": ["Ann", "Bob"]}\n'
                   '{"type": "deal", "dealer": "Ann"}\n'
                   '{"type": "adjust", "player": "Bob", "points": 121}\n')
    assert main(["replay", str(log)]) == 0
    out = capsys.readouterr().out
    assert "winner: Bob (double skunk)" in out and "(double skunk)" in out.splitlines()[2]
    assert "double_skunk" not in out


def test_a_negative_adjustment_prints_with_its_own_sign(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "adjusted.jsonl"
    log.write_text('{"type": "new_game", "players": ["Ann", "Bob"]}\n'
                   '{"type": "adjust", "player": "Ann", "points": 29}\n'
                   '{"type": "adjust", "player": "Ann", "points": -29}\n')
    assert main(["replay", str(log)]) == 0
    out = capsys.readouterr().out
    assert "+-" not in out
    assert " -29 " in out and " +29 " in out
