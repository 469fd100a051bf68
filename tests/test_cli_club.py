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
    (["club", "serve", "--broker", "mqtt://127.0.0.1:9", "--db", "x.sqlite3", "--boards",
      "nowhere"], "boards file 'nowhere' cannot be read: No such file or directory"),
    (["club", "serve", "--broker", "mqtt://127.0.0.1:9", "--db", "x.sqlite3", "--username",
      "club", "--password-file", "nowhere"], "--password-file 'nowhere' cannot be read"),
    (["club", "setup-broker", "--root", ".", "--boards", "table 1"],
     "--boards: board must be a name like"),
    (["club", "setup-broker", "--root", ".", "--boards", "club"],
     "a board cannot be named 'club': that is the server's login"),
    (["club", "setup-broker", "--root", ".", "--reset", "table-9"],
     "--reset 'table-9': no such board"),
    (["club", "setup-broker", "--root", ".", "--listen", "x:y"], "--listen must be [HOST:]PORT"),
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


def _login_holds(passwd: Path, name: str, password: str) -> bool:
    """Whether ``password`` is ``name``'s in a Mosquitto password file (``$7$`` hashes)."""
    import base64
    import hashlib

    for line in passwd.read_text().splitlines():
        user, _, hashed = line.partition(":")
        if user == name:
            _, kind, rounds, salt, digest = hashed.split("$")
            return kind == "7" and hashlib.pbkdf2_hmac(
                "sha512", password.encode(), base64.b64decode(salt), int(rounds)) == \
                base64.b64decode(digest)
    return False


def test_setup_broker_makes_a_login_per_board_once_and_keeps_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "root"
    assert main(["club", "setup-broker", "--root", str(root), "--boards", "table-1,table-2",
                 "--listen", "127.0.0.1:1883"]) == 0
    out = capsys.readouterr().out
    assert 'new login for board \'table-1\'' in out and 'username = "table-2"' in out
    passwd = root / "etc/mosquitto/cribbage-club.passwd"
    first = {line.split(":")[0]: line for line in passwd.read_text().splitlines()}
    assert set(first) == {"table-1", "table-2", "club"}
    shown = dict(zip(["table-1", "table-2"],
                     [line.split('"')[1] for line in out.splitlines()
                      if line.startswith("  password = ")], strict=True))
    assert all(_login_holds(passwd, b, p) for b, p in shown.items())
    server = (root / "etc/cribbage-board/club-password").read_text().strip()
    assert _login_holds(passwd, "club", server) and server not in out
    assert (passwd.stat().st_mode & 0o777) in (0o640, 0o600)
    acl = (root / "etc/mosquitto/cribbage-club.acl").read_text()
    assert "pattern write cribbage/club/%u/event" in acl
    assert "user club\ntopic read cribbage/club/+/event" in acl
    assert "topic write cribbage/club/+/resend" in acl
    conf = (root / "etc/mosquitto/conf.d/cribbage-club.conf").read_text()
    assert "listener 1883 127.0.0.1\nallow_anonymous false\n" in conf
    assert "acl_file /etc/mosquitto/cribbage-club.acl" in conf
    # Again with a third board: the first two keep their passwords, nothing is shown again.
    assert main(["club", "setup-broker", "--root", str(root), "--boards", "table-3",
                 "--remove", "table-2", "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["boards"] == ["table-1", "table-3"] and again["kept"] == ["table-1"]
    assert [n["board"] for n in again["new"]] == ["table-3"] and again["removed"] == ["table-2"]
    now = {line.split(":")[0]: line for line in passwd.read_text().splitlines()}
    assert now["table-1"] == first["table-1"] and now["club"] == first["club"]
    assert "table-2" not in now
    boards = (root / "etc/cribbage-board/club-boards").read_text().splitlines()
    assert [b for b in boards if not b.startswith("#")] == ["table-1", "table-3"]
    assert main(["club", "setup-broker", "--root", str(root), "--reset", "table-1",
                 "--json"]) == 0
    reset = json.loads(capsys.readouterr().out)["new"]
    assert [n["board"] for n in reset] == ["table-1"]
    assert _login_holds(passwd, "table-1", reset[0]["password"])


def test_setup_broker_with_a_certificate_listens_with_tls_and_plainly_on_localhost(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["club", "setup-broker", "--root", str(tmp_path), "--boards", "table-1",
                 "--certfile", "/etc/mosquitto/certs/club.crt", "--keyfile",
                 "/etc/mosquitto/certs/club.key"]) == 0
    assert "broker = \"mqtts://" in capsys.readouterr().out
    conf = (tmp_path / "etc/mosquitto/conf.d/cribbage-club.conf").read_text()
    assert "listener 8883\ncertfile /etc/mosquitto/certs/club.crt\n" \
           "keyfile /etc/mosquitto/certs/club.key\n" in conf
    assert "listener 1883 127.0.0.1\nallow_anonymous false\n" in conf
    assert main(["club", "setup-broker", "--root", str(tmp_path), "--certfile", "x"]) == 2
    assert "--certfile and --keyfile go together" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [
    ["club", "serve", "--broker", "mqtt://127.0.0.1:9", "--db", "{missing}/club.sqlite3",
     "--host", "127.0.0.1", "--port", "0", "--max-seconds", "5"],
    ["club", "round", "start", "--db", "{missing}/club.sqlite3"],
])
def test_a_missing_folder_for_what_a_club_command_writes_is_named_before_any_work(
        argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """As every ``-o`` is (``files.require_folder``): a typo in the folder is refused, naming
    it, not made into a new folder; nothing is served, opened or written first."""
    import socket

    missing = tmp_path / "no-such"
    address = str(tmp_path / "notify.sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(address)
        sock.setblocking(False)
        monkeypatch.setenv("NOTIFY_SOCKET", address)
        assert main([a.format(missing=missing) for a in argv]) == 2
        with pytest.raises(BlockingIOError):
            sock.recv(4096)  # serve never said READY=1 (nor STOPPING=1)
    out, err = capsys.readouterr()
    assert f"no folder {str(missing)!r}" in err and "Errno" not in err, err
    assert err.count("\n") == 1 and out == ""
    assert not missing.exists()
