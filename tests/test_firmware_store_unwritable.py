"""A store the board cannot write (issue 60, item 2): the board serves it read-only and says
so, and every change is refused with the words that name the fault and its fix, never a
500, a traceback, a refusal to start or a stuck board.

Two ways a host takes writing away: the store's file made read-only before the board starts
(``run`` serves it read-only, tested through the real ``run`` and its phone page), and a
write that fails while the board runs (an I/O error, the store's folder removed: tested
through the phone API over the real loop and store). As root (who writes whatever the mode
bits say) the file is made immutable instead (``chattr +i``), and where even that cannot be
done ``os.access`` is told to deny it: the board then opens it read-only all the same.
"""

from __future__ import annotations

import json
import os
import pwd
import random
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from storekit import Clock
from webrig import PIN, Device, TableRig, scripted_game, served

from engine.simulate import simulate_game
from firmware.commands.cli import main
from firmware.store.eventstore import EventStore, StoreUnwritable
from firmware.table.flow import ButtonAction
from firmware.web.snapshot import revision

USER = pwd.getpwuid(os.geteuid()).pw_name
REPO = Path(__file__).resolve().parents[1]


@contextmanager
def read_only(path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``path`` (the store's file or its folder) made read-only for this process, as a host
    does it (see the module)."""
    mode = path.stat().st_mode & 0o777
    path.chmod(0o555 if path.is_dir() else 0o444)
    immutable = False
    if os.geteuid() == 0:
        done = subprocess.run(["chattr", "+i", str(path)], capture_output=True, check=False)
        immutable = done.returncode == 0
        if not immutable:
            real = os.access

            def access(place: Any, mode: int, *args: Any, **kwargs: Any) -> bool:
                if mode & os.W_OK and Path(place) == path:
                    return False
                return real(place, mode, *args, **kwargs)

            monkeypatch.setattr(os, "access", access)
    try:
        yield
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(path)], check=True)
        path.chmod(mode)


def stored(path: Path, events: int = 12) -> str:
    """A store holding the opening of a game; returns its revision."""
    with EventStore.open(path, clock=Clock()) as store:
        for event in simulate_game(random.Random(5), ["Ann", "Bob"])[:events]:
            store.append(event)
        return revision(store)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def call(url: str, body: dict[str, Any] | None = None) -> tuple[int, dict[str, Any]]:
    """One request to the page: its status and JSON (GET, or POST ``body`` with the PIN)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={
        "Content-Type": "application/json", "X-Pin": PIN})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


def new_match(rev: str, nonce: str) -> dict[str, Any]:
    """A phone's change that is stored at once: a new match of new players."""
    return {"action": "new_match", "players": ["Cat", "Dan"], "rules": {}, "rev": rev,
            "nonce": nonce}


@pytest.mark.parametrize("what", ["file", "folder"])
def test_run_serves_a_read_only_store_and_refuses_each_change_with_the_fix(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, what: str) -> None:
    """The file read-only, or its folder (where SQLite cannot make the -wal and -shm files
    it reads a store with, and no lock file can be made)."""
    store = tmp_path / "state" / "events.sqlite3"
    store.parent.mkdir()
    rev = stored(store)
    port = free_port()
    config = tmp_path / "config.toml"
    config.write_text(f'[game]\nplayers = ["Ann", "Bob"]\n[web]\nhost = "127.0.0.1"\n'
                      f'port = {port}\npin = "{PIN}"\n')
    seen: dict[str, Any] = {}

    def phone() -> None:
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(300):
                try:
                    seen["state"] = call(base + "/api/state")
                    break
                except OSError:
                    time.sleep(0.1)
            state = seen["state"][1]
            seen["undo"] = call(base + "/api/action",
                                {"action": "undo", "rev": state["rev"], "nonce": "undo-ro-001"})
            seen["match"] = call(base + "/api/action", new_match(state["rev"], "match-ro-001"))
            seen["after"] = call(base + "/api/state")
        finally:
            os.kill(os.getpid(), signal.SIGTERM)

    thread = threading.Thread(target=phone, daemon=True)
    with read_only(store if what == "file" else store.parent, monkeypatch):
        thread.start()
        code = main(["run", "--config", str(config), "--store", str(store),
                     "--max-seconds", "60"])
    thread.join(10)
    said = capsys.readouterr()
    assert code == 0, said.out + said.err
    status, state = seen["state"]
    assert status == 200 and state["rev"] == rev  # the game as stored
    words = f"is read-only for user {USER}"
    assert words in state["status"] and "chmod u+w" in state["status"], state["status"]
    for change in ("undo", "match"):
        status, answer = seen[change]
        assert status == 409, (change, status, answer)
        assert words in answer["error"] and "keeps changes again once it can write" in answer["error"], answer
    assert seen["after"][0] == 200 and seen["after"][1]["rev"] == rev
    out = said.out.splitlines()
    told = [line for line in out if words in line and "not stored" not in line.lower()]
    assert len(told) == 1, out  # said once at start, then with each refused change
    assert "Traceback" not in said.out + said.err
    assert out[-1].startswith("stopping (signal")
    with EventStore.open(store, readonly=True) as after:
        assert revision(after) == rev


def test_buttons_and_the_camera_on_a_read_only_store_are_refused_aloud(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = tmp_path / "events.sqlite3"
    truth, steps = scripted_game()
    with EventStore.open(store, clock=Clock()) as writing:
        writing.append(truth[0])
    with read_only(store, monkeypatch):
        opened = EventStore.open(store, fallback_readonly=True)
        assert opened.readonly and opened.unwritable is not None
        table = TableRig(opened)
        said = table.said
        assert [f.kind for f in said if USER in f.text] == ["say"]
        table.play(steps[:6])  # the cut and the deal the camera sees
        table.loop.feed([ButtonAction("undo", 0, table.clock())])
        table.loop.step()
        refused = [f for f in said if f.kind == "flash" and "read-only" in f.text]
        assert len(refused) >= 2, said  # the camera's deal and the UNDO button
        assert table.strip.frames_shown > 0 and len(opened.lines) == 1
        opened.close()


class Failing(sqlite3.Connection):
    """A real connection whose writes fail with the error ``fail`` names while it is set,
    as an SD card's do (an I/O error) or a file system the kernel made read-only."""

    fail: str | None = None

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        if Failing.fail is not None and sql.lstrip().upper().startswith(("BEGIN", "INSERT")):
            raise sqlite3.OperationalError(Failing.fail)
        return super().execute(sql, *args)


@pytest.fixture
def failing(monkeypatch: pytest.MonkeyPatch) -> Iterator[type[Failing]]:
    real = sqlite3.connect
    monkeypatch.setattr(sqlite3, "connect",
                        lambda *a, **k: real(*a, **{**k, "factory": Failing}))
    Failing.fail = None
    yield Failing
    Failing.fail = None


@pytest.mark.parametrize("error", ["disk I/O error", "attempt to write a readonly database"])
def test_a_write_failing_mid_game_is_refused_and_the_board_goes_on(
        tmp_path: Path, failing: type[Failing], error: str) -> None:
    device = Device(tmp_path / "events.sqlite3")
    with served(device) as url:
        rev = device.wait_for(lambda s: "cut" in s["next"])["rev"]
        failing.fail = error
        status, answer = call(url + "api/action", new_match(rev, "match-failing-1"))
        assert status == 409, answer
        assert "event store" in answer["error"] and "nothing" in answer["error"], answer
        assert device.error is None and call(url + "api/state")[0] == 200
        failing.fail = None  # the cause is gone: the next change goes on
        status, answer = call(url + "api/action", new_match(rev, "match-failing-2"))
        assert status == 200 and answer["changed"], answer
    assert device.error is None


def test_a_store_removed_while_the_board_runs_is_refused_not_written_into_a_deleted_file(
        tmp_path: Path) -> None:
    """Today SQLite goes on writing into the deleted file: every change acknowledged, and all
    of them gone at the next start. The board says so instead, and keeps the game shown."""
    folder = tmp_path / "state"
    folder.mkdir()
    device = Device(folder / "events.sqlite3")
    with served(device) as url:
        rev = device.wait_for(lambda s: "cut" in s["next"])["rev"]
        shutil.rmtree(folder)
        status, answer = call(url + "api/action", new_match(rev, "match-removed-1"))
        assert status == 409, answer
        assert "removed" in answer["error"] and "restart" in answer["error"], answer
        assert device.error is None
        status, state = call(url + "api/state")
        assert status == 200 and state["rev"] == rev


def test_a_read_only_store_opened_for_serving_names_the_user_and_the_fix(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = tmp_path / "events.sqlite3"
    rev = stored(store)
    with read_only(store, monkeypatch):
        with pytest.raises(StoreUnwritable, match=f"read-only for user {USER}"):
            EventStore.open(store)
        with EventStore.open(store, fallback_readonly=True) as served_store:
            assert revision(served_store) == rev
            words = served_store.unwritable or ""
            assert f"sudo chown {USER} {store}" in words and f"chmod u+w {store}" in words
            with pytest.raises(StoreUnwritable, match="nothing new can be kept"):
                served_store.undo()


_SERVE = """
import sys
from firmware.store.eventstore import EventStore, StoreUnwritable
from firmware.store.lock import hold
with hold(sys.argv[1]), EventStore.open(sys.argv[1], fallback_readonly=True) as store:
    print(len(store.lines), store.unwritable)
    try:
        store.undo()
    except StoreUnwritable as exc:
        print("refused:", exc)
"""


@pytest.mark.parametrize("what", ["file", "folder"])
def test_a_store_its_user_cannot_write_is_read_with_real_permissions(what: str) -> None:
    """The mode bits as the kernel applies them to the board's user (as root: nobody, with
    the system's Python, which needs nothing but the standard library here, in a folder of
    /tmp that nobody can reach)."""
    with tempfile.TemporaryDirectory(dir="/tmp") as top:
        os.chmod(top, 0o755)
        folder = Path(top) / "state"
        folder.mkdir()
        store = folder / "events.sqlite3"
        stored(store)
        user, python, name = None, sys.executable, USER
        if os.geteuid() == 0:
            user, name = 65534, pwd.getpwuid(65534).pw_name
            python = shutil.which("python3", path="/usr/bin") or python
            for place in (folder, *folder.iterdir()):
                os.chown(place, 65534, 65534)
        (store if what == "file" else folder).chmod(0o444 if what == "file" else 0o555)
        try:
            done = subprocess.run([python, "-c", _SERVE, str(store)], cwd=REPO, user=user,
                                  capture_output=True, text=True, timeout=60, check=False,
                                  env={**os.environ, "PYTHONPATH": str(REPO)})
        finally:
            folder.chmod(0o755)
    assert done.returncode == 0, done.stdout + done.stderr
    first, refused = done.stdout.splitlines()
    assert first.startswith(f"12 the event store {str(store)!r} is read-only for user {name}")
    assert refused.startswith("refused: ") and "the board keeps changes again once it can write" in refused


def _served_read_only(store: Path, monkeypatch: pytest.MonkeyPatch) -> EventStore:
    """The store opened as ``run`` opens one its user cannot write; the fault put right as
    this returns (the file writable again)."""
    with monkeypatch.context() as patch, read_only(store, patch):
        opened = EventStore.open(store, clock=Clock(1_800_000_000.0), fallback_readonly=True)
        assert opened.unwritable is not None
        with pytest.raises(StoreUnwritable):
            opened.undo()
    return opened


def test_a_read_only_store_takes_changes_again_once_put_right_under_its_lock(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fault fixed while the board runs (chmod, chown, a remount): the next change is
    kept, with its second copy and chain, as after a restart; no restart needed."""
    from firmware.store.copy import copy_path, intact, read_copy
    from firmware.store.lock import hold

    store = tmp_path / "events.sqlite3"
    stored(store)
    moves = simulate_game(random.Random(5), ["Ann", "Bob"])
    with hold(store):
        served_store = _served_read_only(store, monkeypatch)
        served_store.append(moves[12])
        assert served_store.unwritable is None and not served_store.readonly
        served_store.undo()
        served_store.append(moves[12])
        served_store.append(moves[13])
        served_store.close()
    with EventStore.open(store) as after:
        assert after.recovery is None and not after.notes
        assert len(after.lines) == 14
    copy = read_copy(copy_path(store))
    assert intact(copy) and len(copy.rows) == 15 and len(copy.undos) == 1


def test_a_read_only_store_stays_read_only_where_switching_back_is_not_safe(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the store's lock (a second board may serve it too), or when the store changed
    on the card meanwhile (the game shown is no longer the one stored), the board says to
    restart rather than write over what it has not read."""
    from firmware.store.lock import hold

    store = tmp_path / "events.sqlite3"
    rev = stored(store)
    moves = simulate_game(random.Random(5), ["Ann", "Bob"])
    unlocked = _served_read_only(store, monkeypatch)
    before = unlocked.unwritable
    assert not unlocked.writable_again()
    with pytest.raises(StoreUnwritable, match="holds no lock on it.*restart the board"):
        unlocked.append(moves[12])
    assert unlocked.unwritable != before and unlocked.readonly
    unlocked.close()
    with hold(store):
        stale = _served_read_only(store, monkeypatch)
        with EventStore.open(store) as other:  # written by another hand meanwhile
            other.append(moves[12])
        with pytest.raises(StoreUnwritable, match="changed on the card.*restart the board"):
            stale.append(moves[13])
        assert stale.readonly and revision(stale) == rev
        stale.close()
    with EventStore.open(store) as after:
        assert len(after.lines) == 13 and after.recovery is None


def test_the_board_says_once_that_its_store_takes_changes_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Looked at every few seconds while the board serves the store read-only, so the table
    hears it before the next card, and the page's status is the game's again."""
    from firmware.device.loop import STORE_RECHECK_S
    from firmware.store.lock import hold

    store = tmp_path / "events.sqlite3"
    truth, steps = scripted_game()
    with EventStore.open(store, clock=Clock()) as writing:
        writing.append(truth[0])
    with hold(store):
        with monkeypatch.context() as patch, read_only(store, patch):
            opened = EventStore.open(store, fallback_readonly=True)
            table = TableRig(opened)
            table.loop.step()
        assert opened.unwritable is not None
        said = table.said
        for _ in range(3):
            table.clock.advance(STORE_RECHECK_S)
            table.loop.step()
        back = [f for f in said if "can be written again" in f.text]
        assert [f.kind for f in back] == ["say"], said
        assert opened.unwritable is None
        told = len(said)
        table.play(steps[:6])  # the cut and the deal the camera sees, kept this time
        assert len(opened.lines) > 1 and not any("Not stored" in f.text for f in said[told:])
        opened.close()
    with EventStore.open(store) as after:
        assert after.lines == opened.lines and after.recovery is None
