"""Files the device replaces whole: the old one stays until the new one is complete and checked."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from firmware.store.files import NotAFileError, replace_file


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


def test_a_fifo_or_a_folder_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    fifo = tmp_path / "board.png"
    os.mkfifo(fifo)
    with pytest.raises(NotAFileError, match="board.png' is a FIFO, not a file"):
        replace_file(fifo, b"png")
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    (tmp_path / "dir.png").mkdir()
    with pytest.raises(NotAFileError, match="dir.png' is a folder, not a file"):
        replace_file(tmp_path / "dir.png", b"png")
    link = tmp_path / "link.png"
    link.symlink_to(fifo)
    with pytest.raises(NotAFileError, match="link.png' is a FIFO"):
        replace_file(link, b"png")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["board.png", "dir.png", "link.png"]


def test_a_symlink_is_followed_and_stays_a_link(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    real = tmp_path / "real" / "config.toml"
    real.write_text("old\n")
    link = tmp_path / "config.toml"
    link.symlink_to(real)
    replace_file(link, b"new\n")
    assert link.is_symlink() and real.read_text() == "new\n"
    assert [p.name for p in (tmp_path / "real").iterdir()] == ["config.toml"]


@pytest.fixture
def umask_027() -> Iterator[None]:
    before = os.umask(0o027)
    yield
    os.umask(before)


def test_a_new_file_gets_what_the_umask_allows_and_an_old_one_keeps_its_mode(
        tmp_path: Path, umask_027: None) -> None:
    fresh = tmp_path / "fresh.png"
    replace_file(fresh, b"png")
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o640
    kept = tmp_path / "kept.toml"
    kept.write_text("old\n")
    kept.chmod(0o604)
    replace_file(kept, b"new\n")
    assert stat.S_IMODE(kept.stat().st_mode) == 0o604


def test_a_missing_folder_is_named_in_words(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as missing:
        replace_file(tmp_path / "absent" / "photo.png", b"png")
    assert str(missing.value) == (f"cannot write {str(tmp_path / 'absent' / 'photo.png')!r}: "
                                  f"no folder {str(tmp_path / 'absent')!r}")
    (tmp_path / "plain").write_text("x")
    with pytest.raises(NotADirectoryError, match="plain' is a file, not a folder"):
        replace_file(tmp_path / "plain" / "photo.png", b"png")
