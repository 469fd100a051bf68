"""systemd/: the unit passes systemd-analyze verify with no warnings; install.sh places files."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

SYSTEMD = Path(__file__).parent.parent / "systemd"
UNIT = SYSTEMD / "cribbage-board.service"
INSTALL = SYSTEMD / "install.sh"
EXEC = "/opt/cribbage-board/.venv/bin/cribbage-board"

needs_analyze = pytest.mark.skipif(shutil.which("systemd-analyze") is None,
                                   reason="systemd-analyze is not installed (apt install systemd)")


def unit_keys(text: str) -> dict[str, str]:
    keys = {}
    for line in text.splitlines():
        if "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            keys[key] = value
    return keys


def verify(unit_text: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Runs systemd-analyze verify on a copy whose ExecStart is a stub that exists here
    (verify 252 fails a unit whose ExecStart file is missing)."""
    stub = tmp_path / "bin" / "cribbage-board"
    stub.parent.mkdir(exist_ok=True)
    stub.write_text("#!/bin/sh\nexit 0\n")
    stub.chmod(0o755)
    copy = tmp_path / "cribbage-board.service"
    copy.write_text(unit_text.replace(EXEC, str(stub)))
    return subprocess.run(["systemd-analyze", "verify", str(copy)], capture_output=True,
                          text=True, timeout=60)


def test_unit_says_what_the_device_needs() -> None:
    keys = unit_keys(UNIT.read_text())
    assert keys["Type"] == "notify" and keys["NotifyAccess"] == "main"
    assert keys["WatchdogSec"] == "30"
    assert keys["Restart"] == "on-failure" and keys["RestartSec"] == "3"
    assert keys["User"] == "cribbage" and keys["SupplementaryGroups"] == "gpio video spi"
    assert keys["ExecStart"] == f"{EXEC} run --config /etc/cribbage-board/config.toml"
    assert keys["WorkingDirectory"] == "/var/lib/cribbage-board"
    assert keys["StateDirectory"] == "cribbage-board"  # firmware.config reads $STATE_DIRECTORY
    assert keys["WantedBy"] == "multi-user.target"
    # Anything that would hide or filter /dev breaks GPIO, SPI and the camera.
    for key in ("PrivateDevices", "DevicePolicy", "DeviceAllow", "ProtectClock",
                "ProtectKernelLogs"):
        assert key not in keys


@needs_analyze
def test_unit_verifies_without_warnings(tmp_path: Path) -> None:
    result = verify(UNIT.read_text(), tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # unknown keys only warn (rc 0) in systemd 252


@needs_analyze
def test_verify_would_catch_a_misspelt_key(tmp_path: Path) -> None:
    result = verify(UNIT.read_text().replace("WatchdogSec=", "WatchDogSec="), tmp_path)
    assert "Unknown key 'WatchDogSec'" in result.stderr


def test_install_script_parses() -> None:
    subprocess.run(["bash", "-n", str(INSTALL)], check=True, timeout=30)


def run_install(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(INSTALL), *args], capture_output=True, text=True,
                          timeout=60)


def test_dry_run_lists_every_step_and_changes_nothing(tmp_path: Path) -> None:
    result = run_install("--dry-run", "--with-voice", "--root", str(tmp_path / "r"))
    assert result.returncode == 0, result.stderr
    assert "would install: /etc/cribbage-board/config.toml" in result.stdout
    assert "would install: /etc/systemd/system/cribbage-board.service" in result.stdout
    assert f"would run: systemctl --root={tmp_path / 'r'} enable" in result.stdout
    assert not (tmp_path / "r").exists()
    system = run_install("--dry-run", "--with-voice")
    assert system.returncode == 0, system.stderr
    out = system.stdout
    assert "python3-picamera2" in out and "espeak-ng" in out
    assert "python3 -m venv --system-site-packages /opt/cribbage-board/.venv" in out \
        or "ok: virtualenv" in out
    assert "opencv-python-headless==4.11.0.86" in out and "[pi]" in out
    assert "would run: systemctl enable cribbage-board.service" in out


def test_bad_option_is_refused() -> None:
    result = run_install("--frobnicate")
    assert result.returncode == 2 and "unknown option '--frobnicate'" in result.stderr


@pytest.mark.skipif(shutil.which("systemctl") is None, reason="systemctl is not installed")
def test_install_into_a_root_places_files_and_is_idempotent(tmp_path: Path) -> None:
    root = tmp_path / "root"
    first = run_install("--root", str(root), "--prefix", "/srv/crib", "--user", "crib")
    assert first.returncode == 0, first.stderr
    unit = root / "etc/systemd/system/cribbage-board.service"
    config = root / "etc/cribbage-board/config.toml"
    assert (root / "etc/systemd/system/multi-user.target.wants/cribbage-board.service"
            ).is_symlink()
    keys = unit_keys(unit.read_text())
    assert keys["ExecStart"].startswith("/srv/crib/.venv/bin/cribbage-board run")
    assert keys["User"] == "crib"
    assert config.read_text() == (SYSTEMD.parent / "firmware/config.example.toml").read_text()
    config.write_text("# edited by hand\n")
    second = run_install("--root", str(root), "--prefix", "/srv/crib", "--user", "crib")
    assert second.returncode == 0, second.stderr
    assert "ok: kept existing /etc/cribbage-board/config.toml" in second.stdout
    assert "ok: /etc/systemd/system/cribbage-board.service is up to date" in second.stdout
    assert config.read_text() == "# edited by hand\n"
    if shutil.which("systemd-analyze"):
        installed = unit.read_text().replace("/srv/crib/.venv/bin/cribbage-board", EXEC)
        result = verify(installed, tmp_path)
        assert result.returncode == 0 and result.stderr == "", result.stderr
