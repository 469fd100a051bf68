"""``cribbage-board run`` and ``cribbage-board demo`` smoke tests."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from firmware.commands.cli import main
from firmware.store.eventstore import EventStore


def test_run_says_what_is_simulated_and_resumes_the_store(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "events.sqlite3"
    assert main(["run", "--store", str(store), "--max-seconds", "0.2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "LEDs: simulator (no [board.strip] backend configured)"
    assert out[1].startswith("camera: none")
    assert out[2].startswith("buttons: simulated")
    assert out[3].startswith("voice: off")
    assert any(line.startswith("ready in ") for line in out)
    assert out[-1].startswith("stopping (done)")
    with EventStore.open(store) as reopened:
        assert [json.loads(line)["type"] for line in reopened.lines] == ["new_game"]
    assert main(["run", "--store", str(store), "--once"]) == 0
    out = capsys.readouterr().out
    assert "resumed" in out and "1 events" in out


def test_run_reads_the_installed_config_when_none_is_given(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    import firmware.commands.run as command

    installed = tmp_path / "config.toml"
    installed.write_text('[rules]\ntagret = 121\n')
    monkeypatch.setattr(command, "DEFAULT_CONFIG", installed)
    assert main(["run", "--store", str(tmp_path / "e.db"), "--once"]) == 2
    assert "unknown rules key 'tagret'" in capsys.readouterr().err


def test_run_with_a_configured_backend_that_cannot_start_is_an_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[board.strip]\nbackend = "pi5_pio"\n')
    assert main(["run", "--config", str(config), "--store", str(tmp_path / "e.db"),
                 "--once"]) == 2
    captured = capsys.readouterr()
    assert "pi5_pio" in captured.err and "LEDs: simulator" not in captured.out


def test_run_with_a_replay_camera_says_so(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    import cv2
    import numpy as np

    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "000.png"), np.zeros((48, 64, 3), np.uint8))
    config = tmp_path / "config.toml"
    config.write_text('[camera]\nsource = "replay"\npath = "frames"\nsize = [64, 48]\n')
    assert main(["run", "--config", str(config), "--store", str(tmp_path / "e.db"),
                 "--once"]) == 0
    out = capsys.readouterr().out
    assert f"camera: replay {frames}" in out and "zones NOT calibrated" in out
    assert "cards read at 6 px (not measured: an eighth of the frame)" in out
    # calibrate measured the cards: the reader reads at their scale.
    config.write_text(config.read_text() + "[zones]\ncard_px = 20.5\n")
    assert main(["run", "--config", str(config), "--store", str(tmp_path / "e.db"),
                 "--once"]) == 0
    assert "cards read at 20 px)" in capsys.readouterr().out


def test_demo_plays_a_whole_game_and_writes_pictures(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "demo"
    # The scripted camera: the flow and the pictures (tests/test_firmware_demo_vision.py
    # films whole games through the recogniser).
    assert main(["demo", "--players", "3", "--seed", "4", "--out", str(out), "--camera",
                 "scripted", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["camera"] == "scripted" and "scripted" in report["vision"]
    assert report["finished"] and report["winner"] in ("Ann", "Bob", "Cat")
    assert report["rejected"] == []
    assert max(s["score"] for s in report["sides"]) == 121
    assert [Path(p).name for p in report["pictures"]][-1] == "03-final.png"
    assert all(Path(p).stat().st_size > 1000 for p in report["pictures"])


def test_demo_prints_the_count_as_it_goes(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--seed", "1", "--out", str(tmp_path), "--camera", "scripted",
                 "--max-seconds", "30"]) == 0
    out = capsys.readouterr().out
    assert "'s hand: fifteen two" in out and "'s crib: " in out and " wins" in out


def test_demo_frames_need_the_vision_camera(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--camera", "scripted", "--frames", str(tmp_path / "f"),
                 "--out", str(tmp_path)]) == 2
    assert "--frames needs --camera vision" in capsys.readouterr().err


def test_demo_quiet_prints_only_the_result(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--seed", "4", "--out", str(tmp_path), "--camera", "scripted",
                 "--quiet"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 and " wins" in out[0] and ": Ann " in out[0]


def test_demo_prints_a_running_score_after_each_deal(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--seed", "4", "--out", str(tmp_path), "--camera", "scripted"]) == 0
    out = capsys.readouterr().out
    assert "after deal 1: Ann " in out and ", Bob " in out and "after deal 2: " in out


def test_demo_four_players_are_singles_unless_partners(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--players", "4", "--seed", "4", "--out", str(tmp_path),
                 "--camera", "scripted", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [s["name"] for s in report["sides"]] == ["Ann", "Bob", "Cat", "Dan"]
    assert main(["demo", "--players", "4", "--partnership", "--seed", "4", "--out",
                 str(tmp_path), "--camera", "scripted", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [s["name"] for s in report["sides"]] == ["Ann & Cat", "Bob & Dan"]
    assert main(["demo", "--players", "3", "--partnership", "--out", str(tmp_path)]) == 2
    assert "--partnership needs --players 4, not 3" in capsys.readouterr().err


def test_demo_web_listens_on_this_computer_unless_told(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from firmware.commands.cli import build_parser

    args = build_parser().parse_args(["demo", "--web", "8080"])
    assert args.host == "127.0.0.1"
    assert main(["demo", "--host", "0.0.0.0", "--out", str(tmp_path)]) == 2
    assert "give --web PORT too" in capsys.readouterr().err
    assert main(["demo", "--web", "0", "--host", "nowhere", "--out", str(tmp_path)]) == 2
    assert "host must be an IP address" in capsys.readouterr().err


def test_run_on_a_terminal_takes_the_buttons_from_the_keyboard(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    import sys
    import termios

    master, slave = os.openpty()
    stream = os.fdopen(slave, "r")
    try:
        before = termios.tcgetattr(slave)
        monkeypatch.setattr(sys, "stdin", stream)
        assert main(["run", "--store", str(tmp_path / "e.db"), "--once"]) == 0
        out = capsys.readouterr().out
        assert "buttons: this keyboard (no [buttons] table); keys: g GO, m MUGGINS" in out
        assert termios.tcgetattr(slave) == before
    finally:
        stream.close()
        os.close(master)


@pytest.mark.parametrize(("args", "message"), [
    (["--resolution", "1280by720"], "--resolution must be WIDTHxHEIGHT, not '1280by720'"),
    (["--resolution", "9000x720"], "--resolution must be 160x120 to 4608x2592, not '9000x720'"),
    (["--camera-height", "12"], "--camera-height must be 0.2 to 5 metres, not 12.0"),
])
def test_demo_refuses_a_camera_no_table_has_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str],
        message: str) -> None:
    assert main(["demo", "--out", str(tmp_path), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_recovered_store_is_said_at_warning_and_with_its_priority_under_the_journal(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    store = tmp_path / "events.sqlite3"
    store.write_bytes(b"this is not SQLite, it is a shopping list\n" * 200)
    assert main(["run", "--store", str(store), "--once"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line for line in out if line.startswith("warning: store: ")], out
    # Under systemd, stdout is the journal stream that JOURNAL_STREAM names: lines carry
    # their priority, and journalctl -p warning keeps the <4> ones.
    store.write_bytes(b"not a store either\n" * 200)
    journal = tmp_path / "journal"
    with open(journal, "w") as stream:
        stat = os.fstat(stream.fileno())
        monkeypatch.setenv("JOURNAL_STREAM", f"{stat.st_dev}:{stat.st_ino}")
        monkeypatch.setattr("sys.stdout", stream)
        assert main(["run", "--store", str(store), "--once"]) == 0
    lines = journal.read_text().splitlines()
    warnings = [line for line in lines if line.startswith("<4>")]
    assert len(warnings) == 1 and warnings[0].startswith("<4>store: "), lines
    assert "<6>LEDs: simulator (no [board.strip] backend configured)" in lines


def test_run_restarted_mid_deal_tells_the_camera_which_cards_lie_on_the_table(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After a power cut the starter and the laid cards are in view: the reader must take them
    for cards, not for the table's printed art (vision.live.motion)."""
    import random

    import cv2
    import numpy as np

    import firmware.commands.run as command
    from engine.simulate import simulate_game
    from firmware.table.flow import cards_on_table

    events = simulate_game(random.Random(5), ("Ann", "Bob"), {"target": 121})
    upto = [i for i, e in enumerate(events) if e["type"] == "play"][3] + 1
    path = tmp_path / "e.db"
    with EventStore.open(path) as store:
        for event in events[:upto]:
            store.append(event)
        expected = cards_on_table(store.game)
    assert len(expected) == 5  # the starter and four cards laid
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "000.png"), np.zeros((48, 64, 3), np.uint8))
    config = tmp_path / "config.toml"
    config.write_text('[game]\nplayers = ["Ann", "Bob"]\n[camera]\nsource = "replay"\n'
                      'path = "frames"\nsize = [64, 48]\n')
    opened: list = []
    real = command.open_parts
    monkeypatch.setattr(command, "open_parts",
                        lambda *a, **k: opened.append(real(*a, **k)) or opened[-1])
    assert main(["run", "--config", str(config), "--store", str(path), "--once"]) == 0
    assert opened[0].reader.on_table() == expected


def test_a_full_card_at_start_exits_1_so_systemd_tries_again(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """2 is the unit's RestartPreventExitStatus (a bad config): a full card is no fault of
    the config, and the board must come back by itself once space is freed."""
    from firmware.store.schema import StorageFull

    store = tmp_path / "events.sqlite3"
    assert main(["run", "--store", str(store), "--once"]) == 0
    capsys.readouterr()

    def full(*args: object, **kwargs: object) -> EventStore:
        raise StorageFull("database or disk is full")

    with monkeypatch.context() as patch:
        patch.setattr(EventStore, "open", full)
        assert main(["run", "--store", str(store), "--once"]) == 1
    said = capsys.readouterr()
    assert "storage full" in said.out + said.err
    assert main(["run", "--store", str(store), "--once"]) == 0  # space freed: it starts
