"""install.sh's steps that change the running system, run for real against stub commands.

Every command that would change this machine (apt-get, groupadd, useradd, usermod,
python3 -m venv, pip, install, systemctl, udevadm) is a stub on PATH that logs its
arguments; ``install`` copies into a fake root instead of /. So the tests see what
install.sh runs and says in a chroot (no systemd as PID 1: SYSTEMD_RUN_DIR absent), on
a booted Pi, and on a Debian without the Raspberry Pi archive (issue 54).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

INSTALL = Path(__file__).resolve().parent.parent / "systemd" / "install.sh"
PI4 = "Raspberry Pi 4 Model B Rev 1.5"

STUBS = {
    "apt-get": 'log apt-get "$@"',
    # apt-cache show PACKAGE succeeds for the packages APT_KNOWS lists.
    "apt-cache": 'log apt-cache "$@"\n'
                 'case " $APT_KNOWS " in *" $2 "*) exit 0 ;; esac\n'
                 'echo "E: No packages found" >&2; exit 100',
    "getent": 'exit 2',
    "groupadd": 'log groupadd "$@"',
    "useradd": 'log useradd "$@"',
    "usermod": 'log usermod "$@"',
    "systemctl": 'log systemctl "$@"',
    "udevadm": 'log udevadm "$@"',
    # Root, and no service user yet.
    "id": 'if [ "$#" = 1 ] && [ "$1" = -u ]; then echo 0; else exit 1; fi',
    # install -D -m 0644 FROM TO: into the fake root.
    "install": 'log install "$@"\nmkdir -p "$FAKE_ROOT$(dirname "$5")" && cp "$4" "$FAKE_ROOT$5"',
    # python3 -m venv DIR makes a venv whose python is this one and whose pip logs.
    "python3": 'if [ "$1" = -m ] && [ "$2" = venv ]; then\n'
               '  log python3 "$@"; for d; do :; done; mkdir -p "$d/bin"\n'
               '  ln -s "$REAL_PYTHON" "$d/bin/python"\n'
               '  printf \'#!/bin/sh\\necho "pip $*" >>"$STUB_LOG"\\n\' >"$d/bin/pip"\n'
               '  chmod +x "$d/bin/pip"\n'
               'else exec "$REAL_PYTHON" "$@"; fi',
}


def run_system(tmp_path: Path, *args: str, booted: bool, apt_knows: str = "python3-picamera2 "
               "python3-lgpio", model: str = PI4) -> tuple[subprocess.CompletedProcess[str],
                                                           list[str]]:
    """install.sh without --root or --dry-run, every changing command a stub; returns the
    result and the commands it ran, in order."""
    stubs = tmp_path / "stubs"
    stubs.mkdir(parents=True)
    log = tmp_path / "commands.log"
    log.touch()
    for name, body in STUBS.items():
        path = stubs / name
        path.write_text('#!/bin/bash\nlog() { echo "$*" >>"$STUB_LOG"; }\n' + body + "\n")
        path.chmod(0o755)
    model_file = tmp_path / "model"
    model_file.write_bytes(model.encode() + b"\0")
    run_dir = tmp_path / "run-systemd-system"
    if booted:
        run_dir.mkdir()
    env = {**os.environ, "PATH": f"{stubs}:{os.environ['PATH']}", "STUB_LOG": str(log),
           "FAKE_ROOT": str(tmp_path / "root"), "REAL_PYTHON": sys.executable,
           "APT_KNOWS": apt_knows, "MODEL_FILE": str(model_file),
           "SYSTEMD_RUN_DIR": str(run_dir)}
    result = subprocess.run(["bash", str(INSTALL), "--prefix", str(tmp_path / "opt"), *args],
                            capture_output=True, text=True, timeout=120, env=env)
    return result, log.read_text().splitlines()


# What install.sh looks at in / before it places it (the stubs place into a fake root).
INSTALLED = ("/etc/cribbage-board/config.toml", "/etc/cribbage-board/club.env",
             "/etc/systemd/system/cribbage-board.service",
             "/etc/systemd/system/cribbage-club.service",
             "/etc/udev/rules.d/99-cribbage-board-leds.rules")


@pytest.fixture(autouse=True)
def _not_on_an_installed_machine() -> None:
    found = [path for path in INSTALLED if Path(path).exists()]
    if found:
        pytest.skip(f"this machine has the board installed: install.sh would see {found[0]}")


def test_in_a_chroot_the_units_are_enabled_offline_and_nothing_is_reloaded(
        tmp_path: Path) -> None:
    # Not --with-club: its broker setup runs the project's own code, which would write the
    # broker's logins into this machine's /etc.
    result, commands = run_system(tmp_path, booted=False)
    assert result.returncode == 0, result.stdout + result.stderr
    systemctl = [c for c in commands if c.startswith("systemctl")]
    assert systemctl == ["systemctl enable cribbage-board.service"]
    out = result.stdout
    assert ("note: systemd is not running here (no " + str(tmp_path / "run-systemd-system") +
            ": a chroot or an image build): enabling offline, no daemon-reload or restart") in out
    assert "at first boot: systemd starts cribbage-board.service" in out
    assert "sudo systemctl start" not in out
    # The unit and the config went into place (the fake root here).
    assert (tmp_path / "root/etc/systemd/system/cribbage-board.service").is_file()


def test_every_step_says_what_it_did(tmp_path: Path) -> None:
    result, commands = run_system(tmp_path, "--with-voice", booted=False)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert ("installed with apt: python3-venv python3-picamera2 python3-lgpio python3-dev "
            "build-essential espeak-ng") in out
    assert "+ groupadd --system gpio" in out and "+ useradd --system" in out
    assert f"installed: cribbage-board[pi] into {tmp_path}/opt/.venv" in out
    assert "installed: /etc/cribbage-board/config.toml" in out
    assert "installed: /etc/systemd/system/cribbage-board.service" in out
    assert commands.index("apt-get update") < next(
        i for i, c in enumerate(commands) if c.startswith("apt-get install"))
    assert any(c.startswith("pip install") and c.endswith("[pi]") for c in commands)


def test_on_a_booted_pi_the_unit_is_reloaded_and_restarted(tmp_path: Path) -> None:
    result, commands = run_system(tmp_path, "--leds", "pio",
                                  model="Raspberry Pi 5 Model B Rev 1.0", booted=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert [c for c in commands if c.startswith(("systemctl", "udevadm"))] == [
        "systemctl daemon-reload", "systemctl enable cribbage-board.service",
        "systemctl try-restart cribbage-board.service", "udevadm control --reload",
        "udevadm trigger --sysname-match=leds[0-9]*"]
    assert "then: sudo systemctl start cribbage-board.service" in result.stdout
    assert "not running here" not in result.stdout


def test_without_the_pi_archive_it_stops_before_installing_and_names_no_apt(
        tmp_path: Path) -> None:
    result, commands = run_system(tmp_path, booted=True, apt_knows="python3-lgpio")
    assert result.returncode == 1
    assert commands[0] == "apt-get update"
    assert not [c for c in commands if c.startswith(("apt-get install", "groupadd", "pip",
                                                     "systemctl", "install"))]
    err = result.stderr
    assert err.startswith("install.sh: apt has no python3-picamera2: this machine's apt sources "
                          "lack the Raspberry Pi archive")
    assert "run again with --no-apt" in err
    assert "no Camera Module through picamera2" in err and "gpiozero's lgpio pins" in err
    # With --no-apt it goes on, and says apt was skipped.
    again, commands = run_system(tmp_path / "again", "--no-apt", booted=True, apt_knows="")
    assert again.returncode == 0, again.stderr
    assert "skip: apt packages (--no-apt)" in again.stdout
    assert not [c for c in commands if c.startswith("apt")]


def test_a_machine_that_is_no_pi_needs_no_pi_archive(tmp_path: Path) -> None:
    result, commands = run_system(tmp_path, booted=True, apt_knows="", model="")
    assert result.returncode == 0, result.stderr
    assert "apt-get install -y --no-install-recommends python3-venv" in commands
    assert not [c for c in commands if c.startswith("apt-cache")]


def test_dry_run_in_a_chroot_says_the_offline_enable(tmp_path: Path) -> None:
    model = tmp_path / "model"
    model.write_bytes(PI4.encode() + b"\0")
    result = subprocess.run(["bash", str(INSTALL), "--dry-run"], capture_output=True, text=True,
                            timeout=60, env={**os.environ, "MODEL_FILE": str(model),
                                             "SYSTEMD_RUN_DIR": str(tmp_path / "absent")})
    assert result.returncode == 0, result.stderr
    assert "would run: systemctl enable cribbage-board.service" in result.stdout
    assert "would run: systemctl daemon-reload" not in result.stdout
    assert "would run: systemctl try-restart" not in result.stdout
