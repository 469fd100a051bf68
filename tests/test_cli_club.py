"""``cribbage-board club standings | round | publish``: output, JSON and one-line errors."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from engine.simulate import simulate_game
from firmware.club.clubdb import ClubDB
from firmware.club.messages import EventMessage
from firmware.club.outbox import Outbox
from firmware.commands.cli import main
from firmware.store.eventstore import EventStore


@pytest.fixture
def club(tmp_path: Path) -> Path:
    """A club database holding one finished game of table-1 (Ann and Bob)."""
    store = EventStore.open(tmp_path / "t.sqlite3", clock=lambda: 1000.0)
    for event in simulate_game(random.Random(3), ("Ann", "Bob"), {"target": 121}):
        store.append(event)
    outbox = Outbox(store.path, board="table-1")
    pending = outbox.pending(limit=10_000)
    db = ClubDB(tmp_path / "club.sqlite3")
    db.start_round("Round 1")
    with db.batch():
        for r in pending.rows:
            db.ingest(EventMessage.of("table-1", pending.store or "", r))
    db.close()
    outbox.close()
    store.close()
    return tmp_path / "club.sqlite3"


def test_standings_print_a_line_per_player_and_json(club: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["club", "standings", "--db", str(club)]) == 0
    out = capsys.readouterr().out
    assert "player" in out and "1 games; tournament points: win 2, skunk 3" in out
    assert "open round: Round 1" in out
    assert main(["club", "standings", "--db", str(club), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert {r["name"] for r in report["standings"]} == {"Ann", "Bob"}
    assert report["games"][0]["round"] == 1 and report["games"][0]["board"] == "table-1"
    assert sorted(r["tournament_points"] for r in report["standings"]) in ([0, 2], [0, 3])


def test_rounds_start_and_close_from_the_command_line(club: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["club", "round", "close", "--db", str(club)]) == 0
    assert capsys.readouterr().out.strip() == "Round 1 closed"
    assert main(["club", "round", "start", "Semi-final", "--db", str(club), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["name"] == "Semi-final"
    assert main(["club", "standings", "--db", str(club), "--round", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == []


@pytest.mark.parametrize(("args", "message"), [
    (["club", "standings", "--db", "nowhere.sqlite3"], "no club database at 'nowhere.sqlite3'"),
    (["club", "round", "close", "Final", "--db", "x.sqlite3"], "takes no name"),
    (["club", "serve", "--broker", "http://x", "--db", "x.sqlite3"],
     "broker URL must start mqtt:// or mqtts://"),
    (["club", "serve", "--broker", "mqtt://127.0.0.1:9", "--db", "x.sqlite3", "--prefix", "a/+"],
     "--prefix must be topic levels like \"cribbage/club\", not 'a/+'"),
    (["club", "serve", "--broker", "mqtt://127.0.0.1:9", "--db", "x.sqlite3", "--pin",
      "\u0664\u0668\u0662\u0661"], "--pin must be 4 to 8 digits, not '\u0664\u0668\u0662\u0661'"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str], args: list[str],
                                          message: str) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_publish_without_a_broker_says_so_in_one_line(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    store = EventStore.open(tmp_path / "t.sqlite3")
    store.append({"type": "new_game", "players": ["Ann", "Bob"]})
    store.close()
    config = tmp_path / "c.toml"
    config.write_text('[club]\nbroker = "mqtt://127.0.0.1:9"\nboard = "t1"\n')
    assert main(["club", "publish", "--config", str(config), "--store",
                 str(tmp_path / "t.sqlite3"), "--timeout", "0.5"]) == 2
    err = capsys.readouterr().err
    assert "did not acknowledge every row within 0.5 s (0 of 1)" in err
    empty = tmp_path / "none.toml"
    empty.write_text("")
    assert main(["club", "publish", "--config", str(empty)]) == 2
    assert "no [club] table" in capsys.readouterr().err


def test_serve_tells_systemd_when_its_page_is_up_and_when_it_stops(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
        ) -> None:
    """cribbage-club.service is Type=notify: READY=1 once the standings page listens (no
    broker needed for that: the server keeps trying to connect), STOPPING=1 on the way out."""
    import socket

    address = str(tmp_path / "notify.sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(address)
        sock.settimeout(10)
        monkeypatch.setenv("NOTIFY_SOCKET", address)
        code = main(["club", "serve", "--broker", "mqtt://127.0.0.1:9", "--db",
                     str(tmp_path / "club.sqlite3"), "--host", "127.0.0.1", "--port", "0",
                     "--max-seconds", "0.2"])
        said = [sock.recv(4096).decode(), sock.recv(4096).decode()]
    assert code == 0
    assert said[0].startswith("READY=1\nSTATUS=standings at http://127.0.0.1:")
    assert said[1] == "STOPPING=1"
    assert "club server stopping: 0 rows kept, 0 refused" in capsys.readouterr().out
