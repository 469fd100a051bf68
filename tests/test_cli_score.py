"""``cribbage-board score``: the CONTRACT.md JSON, the spoken count, exit 2 on bad cards."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from firmware.commands.cli import main

ROOT = Path(__file__).resolve().parents[1]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["score", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_is_the_contract_shape(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "5H", "5C", "5S", "JD", "--starter", "5D", "--json")
    assert (code, err) == (0, "")
    assert out.count("\n") == 1
    data = json.loads(out)
    assert list(data) == ["total", "fifteens", "pairs", "runs", "flush", "nobs", "items"]
    assert (data["total"], data["fifteens"], data["pairs"], data["runs"], data["flush"],
            data["nobs"]) == (29, 16, 12, 0, 0, 1)
    assert data["items"][0] == {"kind": "fifteen", "cards": ["5C", "JD"], "points": 2}
    assert data["items"][-1] == {"kind": "nobs", "cards": ["JD"], "points": 1}
    assert [item["kind"] for item in data["items"]] == ["fifteen"] * 8 + ["pair"] * 6 + ["nobs"]
    assert sum(item["points"] for item in data["items"]) == 29


def test_cards_in_any_spelling(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "5h", "5♣", "5s", "jd", "--starter", "5D", "--json")
    assert code == 0 and json.loads(out)["total"] == 29


def test_human_output_lists_items_words_and_total(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "4S", "4H", "5C", "6D", "--starter", "QH")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "hand: 4S 4H 5C 6D | QH"
    assert lines[1].split() == ["fifteen", "5C", "QH", "2"]
    assert lines[-2] == (
        "fifteen two, fifteen four, fifteen six, and a double run of three is fourteen"
    )
    assert lines[-1] == "total 14"
    assert len(lines) == 2 + 6 + 1


def test_zero_hand_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "2H", "4C", "6D", "8S", "--starter", "QS")
    assert code == 0
    assert out.splitlines()[-2:] == ["no points", 'total 0 (a "nineteen" hand)']


def test_crib_rules(capsys: pytest.CaptureFixture[str]) -> None:
    hand = ["2H", "4H", "6H", "8H", "--starter", "QS", "--json"]
    assert json.loads(run(capsys, *hand)[1])["flush"] == 4
    assert json.loads(run(capsys, *hand, "--crib")[1])["flush"] == 0
    assert json.loads(run(capsys, *hand, "--crib", "--crib-four-flush")[1])["flush"] == 4
    code, out, _ = run(capsys, "4H", "6H", "JH", "QH", "--starter", "5H", "--crib")
    assert code == 0 and out.startswith("crib: ") and out.splitlines()[-1] == "total 15"


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["5H", "5C", "1D", "JD", "--starter", "5D"], "'1D'"),
        (["5H", "5C", "5S", "JD", "--starter", "5X"], "'5X'"),
        (["5H", "5C", "5S", "--starter", "5D"], "got 3 cards: 5H 5C 5S | 5D"),
        (["5H", "5C", "5S", "5H", "--starter", "5D"], "5H is in the hand twice"),
        (["5H", "5C", "5S", "JD", "--starter", "JD"], "the starter JD is also in the hand"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys: pytest.CaptureFixture[str], argv: list[str],
                                         named: str) -> None:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("cribbage-board score: ")
    assert named in err


def test_missing_starter_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["score", "5H", "5C", "5S", "JD"])
    assert exited.value.code == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_the_console_script_in_a_fresh_process() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "firmware.commands.cli", "score", "5H", "5C", "5S", "JD",
         "--starter", "5D", "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert json.loads(done.stdout)["total"] == 29
    bad = subprocess.run(
        [sys.executable, "-m", "firmware.commands.cli", "score", "5H", "5C", "5S", "ZZ",
         "--starter", "5D"],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
    )
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.strip().endswith("invalid card: 'ZZ' (expected a rank A 2-10 T J Q K and "
                                       "a suit C D H S)")


def test_a_second_starter_is_refused_not_silently_taken(capsys) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["score", "5H", "5C", "5S", "JD", "--starter", "5D", "--starter", "4C"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--starter given twice ('5D' and '4C')" in err


def test_crib_four_flush_without_crib_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "2H", "4H", "6H", "8H", "--starter", "KS",
                         "--crib-four-flush")
    assert code == 2 and out == ""
    assert err == ("cribbage-board score: --crib-four-flush is a crib rule: give --crib too, "
                   "or leave it out for a hand\n")
