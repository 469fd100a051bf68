"""firmware.store: what a host does to a store (issue 60, item 2): a flipped write-version
byte or ``user_version`` bit, a read-only file, a second ``run``, a huge ``lost`` id, and a
long repair under systemd. Each leaves a board that starts and takes the next change."""

from __future__ import annotations

import json
import os
import random
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from storekit import Clock, copy_store, kept, three_matches

from engine.simulate import simulate_game
from firmware.commands.cli import main
from firmware.store.eventstore import SCHEMA_VERSION, EventStore, StoreError
from firmware.store.mark import mark_path

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    folder = tmp_path_factory.mktemp("mishaps")
    return folder, three_matches(folder, seed=11)



def takes_a_change(store: EventStore) -> int:
    """Starts a fresh match and plays its first two events: the board's next changes."""
    game = simulate_game(random.Random(99), ["Ann", "Bob"])
    first = store.start_match(game[0]).id
    assert store.append(game[1]).id == first + 1
    return first


def poke(path: Path, offset: int, data: bytes) -> None:
    with open(path, "r+b") as file:
        file.seek(offset)
        file.write(data)


@pytest.mark.parametrize("bit", range(8))
def test_a_flipped_bit_in_the_write_version_byte_takes_the_next_change(
        pristine: tuple[Path, dict], tmp_path: Path, bit: int) -> None:
    path = copy_store(pristine, tmp_path / "s")
    value = path.read_bytes()[18] ^ (1 << bit)
    poke(path, 18, bytes([value]))
    with EventStore.open(path, clock=Clock()) as store:
        assert kept(store) == pristine[1]
        assert takes_a_change(store) == max(pristine[1]) + 1
    assert path.read_bytes()[18] in (1, 2)


@pytest.mark.parametrize("bit", range(32))
def test_a_flipped_user_version_bit_is_read_as_the_schema_it_has(
        pristine: tuple[Path, dict], tmp_path: Path, bit: int) -> None:
    """The schema's text says which version a store is; a version number that disagrees with
    it is damage to the number, put right, never a "newer version" refusal."""
    path = copy_store(pristine, tmp_path / "s")
    with sqlite3.connect(path) as conn:
        undos = conn.execute("SELECT count(*) FROM undos").fetchone()[0]
    conn.close()
    number = int.from_bytes(path.read_bytes()[60:64], "big") ^ (1 << bit)
    poke(path, 60, number.to_bytes(4, "big"))
    with EventStore.open(path, clock=Clock()) as store:
        assert store.recovery is None or not store.recovery.lost
        assert kept(store) == pristine[1]
        takes_a_change(store)
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert conn.execute("SELECT count(*) FROM undos").fetchone()[0] == undos
    conn.close()


def test_a_store_of_a_newer_schema_is_still_refused(pristine: tuple[Path, dict],
                                                     tmp_path: Path) -> None:
    path = copy_store(pristine, tmp_path / "s")
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE seats (id INTEGER PRIMARY KEY)")
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(StoreError, match="newer version"):
        EventStore.open(path, clock=Clock())


_AS_NOBODY = """
import sys
from firmware.store.eventstore import EventStore, StoreError
try:
    EventStore.open(sys.argv[1]).close()
except StoreError as exc:
    print(exc)
    raise SystemExit(3)
"""


def test_a_read_only_store_file_is_refused_at_open_naming_the_file(
        pristine: tuple[Path, dict]) -> None:
    """Run as a user who owns the folder but not the file's write bit (root writes anyway,
    so as root the test runs the open as nobody, in a folder nobody can reach)."""
    with tempfile.TemporaryDirectory(dir="/tmp") as folder:
        os.chmod(folder, 0o755)
        read_only_store(pristine, Path(folder))


def read_only_store(pristine: tuple[Path, dict], tmp_path: Path) -> None:
    path = copy_store(pristine, tmp_path / "s")
    path.chmod(0o444)
    user, python = None, sys.executable
    if os.geteuid() == 0:  # the venv's interpreter may lie where nobody cannot read it
        user, python = 65534, shutil.which("python3", path="/usr/bin") or sys.executable
        for place in (tmp_path, path.parent):
            os.chown(place, 65534, 65534)
        for file in path.parent.iterdir():
            os.chown(file, 65534, 65534)
        tmp_path.chmod(0o755)
    done = subprocess.run([python, "-c", _AS_NOBODY, str(path)], cwd=REPO,
                          capture_output=True, text=True, user=user, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, check=False)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "read-only" in done.stdout and str(path) in done.stdout


def test_doctor_checks_the_store_file_not_only_its_folder(tmp_path: Path) -> None:
    from firmware.device.config import load_device_config
    from firmware.doctor.checks import System, check_loaded

    store = tmp_path / "events.sqlite3"
    store.write_bytes(b"")
    config_file = tmp_path / "device.toml"
    config_file.write_text(f'[store]\npath = "{store}"\n')
    config = load_device_config(config_file)
    system = System(writable=lambda p: p != store)
    faults = [f for f in check_loaded(config, system=system) if f.level == "fault"]
    assert any("store" in str(f) and "read-only for user" in str(f) and
               f"sudo chmod u+w {store}" in str(f) for f in faults), faults


def test_the_units_start_check_lets_a_read_only_store_through_and_doctor_does_not(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``run`` serves a store it cannot write read-only and says so; the unit's
    ``ExecStartPre`` (``doctor --before-start``) must let it come up, while ``doctor`` by
    hand keeps failing with the fix."""
    import firmware.doctor.checks as checks

    store = tmp_path / "events.sqlite3"
    store.write_bytes(b"")
    config_file = tmp_path / "device.toml"
    config_file.write_text(f'[store]\npath = "{store}"\n')
    real_access = os.access
    monkeypatch.setattr(checks.os, "access",
                        lambda p, mode: Path(p) != store and real_access(p, mode))
    assert main(["doctor", "--config", str(config_file), "--json"]) == 2
    assert "read-only for user" in capsys.readouterr().out
    assert main(["doctor", "--before-start", "--config", str(config_file), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] and any("serves it read-only" in n for n in report["notes"]), report
    unit = (REPO / "systemd" / "cribbage-board.service").read_text()
    assert "cribbage-board doctor --before-start --config" in unit


def test_a_second_run_on_one_store_is_refused_naming_the_first(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from firmware.store.lock import hold

    store = tmp_path / "events.sqlite3"
    assert main(["run", "--store", str(store), "--once"]) == 0
    capsys.readouterr()
    with hold(store):  # the first run, as it holds the store while it runs
        assert main(["run", "--store", str(store), "--once"]) == 2
        said = capsys.readouterr()
        lines = [line for line in (said.out + said.err).splitlines() if "pid" in line]
        assert len(lines) == 1 and f"pid {os.getpid()}" in lines[0], said
    assert main(["run", "--store", str(store), "--once"]) == 0  # the first one stopped


def test_the_lock_is_let_go_when_its_process_dies(tmp_path: Path) -> None:
    from firmware.store.lock import StoreInUse, hold

    store = tmp_path / "events.sqlite3"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from firmware.store.lock import hold\n"
         "with hold(sys.argv[1]):\n print('held', flush=True); time.sleep(60)", str(store)],
        cwd=REPO, stdout=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(StoreInUse, match=f"pid {holder.pid}"), hold(store):
            pass
    finally:
        holder.kill()
        holder.wait()
    with hold(store):
        pass


@pytest.mark.parametrize("lost_id", ["huge", "far"])
def test_a_lost_id_no_mark_vouches_for_is_damage_not_a_next_id(
        pristine: tuple[Path, dict], tmp_path: Path, lost_id: str) -> None:
    path = copy_store(pristine, tmp_path / "s")
    last = max(pristine[1])
    bogus = 2**63 - 1 if lost_id == "huge" else last + 100_000
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO lost VALUES (?, '[[1, 1]]', 'missing', 1.0)", (bogus,))
    conn.close()
    with EventStore.open(path, clock=Clock()) as store:
        assert kept(store) == pristine[1]
        assert not (store.recovery and store.recovery.lost)
        assert bogus not in {e.id for e in store.lost()}
        assert takes_a_change(store) == last + 1


def test_a_lost_id_is_checked_without_a_mark_too(pristine: tuple[Path, dict],
                                                  tmp_path: Path) -> None:
    path = copy_store(pristine, tmp_path / "s")
    mark_path(path).unlink()
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO lost VALUES (?, '[[1, 1]]', 'missing', 1.0)", (2**63 - 1,))
    conn.close()
    with EventStore.open(path, clock=Clock()) as store:
        assert takes_a_change(store) == max(pristine[1]) + 1


def test_a_repair_keeps_telling_systemd_to_wait(pristine: tuple[Path, dict],
                                                tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    path = copy_store(pristine, tmp_path / "s")
    data = bytearray(path.read_bytes())
    data[-100] ^= 0x10  # a row in the last page: a repair
    path.write_bytes(bytes(data))
    sock_path = tmp_path / "n.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(str(sock_path))
        sock.settimeout(5)
        monkeypatch.setenv("NOTIFY_SOCKET", str(sock_path))
        assert main(["run", "--store", str(path), "--once"]) == 0
        said = []
        sock.settimeout(0.2)
        try:
            while True:
                said.append(sock.recv(4096).decode())
        except TimeoutError:
            pass
    assert "damaged" in capsys.readouterr().out
    extends = [i for i, text in enumerate(said) if text.startswith("EXTEND_TIMEOUT_USEC=")]
    ready = next(i for i, text in enumerate(said) if text.startswith("READY=1"))
    assert extends and extends[0] < ready, said


def test_a_damaged_row_is_restored_from_the_second_copy(pristine: tuple[Path, dict],
                                                        tmp_path: Path) -> None:
    """Issue 60 item 1: a row damaged in the store is taken from its copy, nothing set aside;
    the copy damaged instead is rewritten from the store, once the damaged copy is kept aside
    (untouched, as a damaged store is kept) and the journal's note names where."""
    path = copy_store(pristine, tmp_path / "s")
    middle = sorted(pristine[1])[len(pristine[1]) // 3]
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE events SET line = substr(line, 1, 10) WHERE id = ?", (middle,))
    conn.close()
    with EventStore.open(path, clock=Clock()) as store:
        assert store.recovery is not None and store.recovery.damaged_at == middle
        assert store.recovery.lost == () and store.recovery.set_aside == ()
        assert kept(store) == pristine[1]
    path = copy_store(pristine, tmp_path / "c")
    from firmware.store.copy import copy_path

    data = bytearray(copy_path(path).read_bytes())
    data[len(data) // 2] ^= 0x08
    copy_path(path).write_bytes(bytes(data))
    with EventStore.open(path, clock=Clock()) as store:
        assert store.recovery is None and kept(store) == pristine[1]
        said = " ".join(store.notes)
    [aside] = path.parent.glob("s.db-copy.damaged-*")
    assert aside.read_bytes() == bytes(data)
    assert "second copy" in said and str(aside) in said, said
    with EventStore.open(path, clock=Clock()) as store:
        assert not store.notes


def test_a_copy_that_cannot_be_written_is_said_and_put_right_at_the_next_open(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """A failing card under the second copy does not refuse the event (SQLite holds it), but
    it is said at once, and the next open rewrites the copy from the store."""
    import errno

    from firmware.store import copy as copy_module

    events = simulate_game(random.Random(3), ["Ann", "Bob"])[:6]
    path = tmp_path / "events.sqlite3"
    with EventStore.open(path, clock=Clock()) as store:
        for event in events[:5]:
            store.append(event)

        def failing(self: object, line: bytes) -> int:
            raise OSError(errno.EIO, "Input/output error")

        monkeypatch.setattr(copy_module.CopyFile, "_write", failing)
        with caplog.at_level("WARNING", logger="firmware.store.eventstore"):
            store.append(events[5])
        monkeypatch.undo()
        assert "second copy could not be written (Input/output error)" in caplog.text
    with EventStore.open(path, clock=Clock()) as store:
        assert len(list(store.events(1))) == 6
        assert store.recovery is None and any("second copy" in n for n in store.notes), \
            store.notes
    copy_lines = copy_module.copy_path(path).read_bytes().splitlines()
    assert len(copy_lines) >= 6


def test_a_copy_that_cannot_be_opened_at_start_leaves_a_board_that_takes_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A second copy this user cannot write (made by root, say) no longer stops the board
    starting: the events are kept in the store alone, and the store's words say so."""
    import errno

    from firmware.store import copy as copy_module

    events = simulate_game(random.Random(3), ["Ann", "Bob"])[:4]
    path = tmp_path / "events.sqlite3"
    with EventStore.open(path, clock=Clock()) as store:
        store.append(events[0])
        assert store.copy_trouble is None

    def refused(cls: object, where: Path) -> object:
        raise PermissionError(errno.EACCES, "Permission denied")

    with monkeypatch.context() as patch:
        patch.setattr(copy_module.CopyFile, "open", classmethod(refused))
        with EventStore.open(path, clock=Clock()) as store:
            words = store.copy_trouble or ""
            assert "second copy could not be written (Permission denied)" in words
            assert str(copy_module.copy_path(path)) in words and "store alone" in words
            store.append(events[1])
    with EventStore.open(path, clock=Clock()) as store:  # put right: the copy rewritten
        assert store.recovery is None and store.copy_trouble is None
        assert len(store.lines) == 2


def test_the_board_says_once_that_its_copy_fell_behind(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Not only the journal: aloud and on the page (the loop's feedback), once however many
    events then go without their copy."""
    import errno

    from webrig import TableRig, scripted_game

    from firmware.store import copy as copy_module

    truth, steps = scripted_game()
    store = EventStore.open(tmp_path / "events.sqlite3", clock=Clock())
    store.append(truth[0])
    table = TableRig(store)

    def failing(self: object, line: bytes) -> int:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(copy_module.CopyFile, "_write", failing)
    table.play(steps[:6])  # the cut and the deal: several events, none with its copy
    assert len(store.lines) > 2
    said = table.said
    told = [f for f in said if "second copy" in f.text]
    assert [f.kind for f in told] == ["say"] and "store alone" in told[0].text, said
    store.close()


def test_doctor_names_a_second_copy_the_board_cannot_write(tmp_path: Path) -> None:
    from firmware.doctor.checks import System, check
    from firmware.store.copy import copy_path

    store = tmp_path / "events.sqlite3"
    with EventStore.open(store, clock=Clock()):
        pass
    config_file = tmp_path / "device.toml"
    config_file.write_text(f'[store]\npath = "{store}"\n')
    copy = copy_path(store)
    findings = check(config_file, system=System(writable=lambda p: Path(p) != copy))
    about = [f for f in findings if "second copy" in f.text]
    assert len(about) == 1 and about[0].level == "fault" and about[0].starts_anyway, findings
    assert str(copy) in about[0].text and "store alone" in about[0].text
    assert about[0].starts_as == "keeps each event in the store alone"  # not "read-only"
