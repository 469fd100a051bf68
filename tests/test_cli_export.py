"""``cribbage-board export``: a stored match as the game log ``replay`` and ``board`` read;
and the store readers' manners: a reader that stops early, a name typed loosely."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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
        store.append({"type": "adjust", "player": "Cat", "points": 3, "reason": "by hand"})
        store.undo()  # an undone row is not part of the log
    return path


def test_export_writes_the_current_match_and_replay_reads_it_back(
        store_path: Path, logs: Logs, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    _, second = logs
    out = tmp_path / "now.jsonl"
    assert main(["export", "--store", str(store_path), "-o", str(out)]) == 0
    assert "match 2 (Cat, Dan, Eve), 20 events" in capsys.readouterr().out
    lines = out.read_text().splitlines()
    assert [json.loads(line) for line in lines] == [
        json.loads(json.dumps(e)) for e in second[:20]]
    assert main(["replay", str(out), "--json"]) == 0
    replayed = json.loads(capsys.readouterr().out)
    assert replayed == json.loads(json.dumps(Game.replay(second[:20]).to_json()))
    assert main(["board", str(out), "-o", str(tmp_path / "now.png")]) == 0
    assert (tmp_path / "now.png").stat().st_size > 0


def test_export_a_finished_match_by_id_as_json(store_path: Path, logs: Logs, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    first, _ = logs
    out = tmp_path / "one.jsonl"
    assert main(["export", "--store", str(store_path), "--match", "1", "-o", str(out),
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report == {"file": str(out), "match": 1, "players": ["Ann", "Bob"],
                      "events": len(first)}
    game = Game.replay(out.read_text().splitlines())
    assert game.match_points == Game.replay(first).match_points and len(game.match) == 2


def test_export_to_stdout_and_an_unknown_match_is_refused(
        store_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", "--store", str(store_path), "-o", "-"]) == 0
    assert capsys.readouterr().out.count("\n") == 20
    assert main(["export", "--store", str(store_path), "--match", "9", "-o",
                 str(tmp_path / "x.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "no match 9 in the store (matches: 1, 2)" in err
    assert not (tmp_path / "x.jsonl").exists()


def test_stats_finds_a_player_named_with_other_case_and_spaces(
        store_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", "--store", str(store_path), "--player", "Ann", "--json"]) == 0
    exact = json.loads(capsys.readouterr().out)
    assert main(["stats", "--store", str(store_path), "--player", "  aNN ", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == exact
    assert main(["stats", "--store", str(store_path), "--player", "Zed"]) == 2


def _closed_reader(args: list[str]) -> subprocess.CompletedProcess[str]:
    """Runs the command with its stdout a pipe nobody reads any more (as `| head -1` leaves
    it once head has its line)."""
    read, write = os.pipe()
    os.close(read)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])}
    try:
        return subprocess.run([sys.executable, "-m", "firmware.commands.cli", *args],
                              stdout=write, stderr=subprocess.PIPE, text=True, env=env,
                              check=False, timeout=120)
    finally:
        os.close(write)


def test_a_reader_that_stops_early_ends_the_command_quietly(store_path: Path) -> None:
    done = _closed_reader(["advise", "5H", "5C", "5S", "JD", "QH", "2C", "--dealer"])
    assert (done.returncode, done.stderr) == (0, "")
    done = _closed_reader(["stats", "--store", str(store_path)])
    assert (done.returncode, done.stderr) == (0, "")


@pytest.mark.parametrize("command", [["export", "-o", "-"], ["history"], ["stats"], ["review"]])
def test_the_store_readers_read_the_store_of_the_config_run_reads(
        command: list[str], store_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Without --store, each reads the config's [store] (``--config``, as ``run`` does), not
    the XDG default where there is no store."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "nowhere"))
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    config = tmp_path / "config.toml"
    config.write_text(f'[store]\npath = "{store_path}"\n')
    assert main([*command, "--config", str(config)]) == 0, capsys.readouterr().err
    assert "Cat" in capsys.readouterr().out
