"""Files the device replaces whole: the old one stays until the new one is complete and checked."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from firmware.files import replace_file


def test_replace_file_writes_new_content_and_leaves_nothing_beside_it(tmp_path: Path) -> None:
    target = tmp_path / "config.toml"
    target.write_text("old\n")
    replace_file(target, b"new\n", mode=0o640)
    assert target.read_bytes() == b"new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["config.toml"]


def test_a_failed_check_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "config.toml"
    target.write_text("old\n")
    seen: list[bytes] = []

    def refuse(written: Path) -> None:
        seen.append(written.read_bytes())
        raise ValueError("did not read back")

    with pytest.raises(ValueError, match="did not read back"):
        replace_file(target, b"half", check=refuse)
    assert seen == [b"half"]  # the check saw the new bytes, complete, before the rename
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["config.toml"]


def test_a_missing_folder_is_an_error_not_a_stray_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        replace_file(tmp_path / "absent" / "photo.png", b"png")
    assert list(tmp_path.iterdir()) == []
