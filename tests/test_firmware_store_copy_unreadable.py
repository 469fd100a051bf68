"""firmware.store: a second copy that exists but cannot be read as this store's (a folder in
its place, garbage, another store's copy, a flipped bit, no read permission). The board opens
from the store, whose own checks found it whole; says once, in the words the loop says aloud,
that the copy could not be read; keeps what the copy held aside, untouched, before writing a
fresh one; and a copy that merely fell behind is rewritten without leaving a file behind."""

from __future__ import annotations

import os
import random
import sqlite3
from pathlib import Path

import pytest
from storekit import Clock, copy_store, kept, three_matches

from engine.simulate import simulate_game
from firmware.store.copy import copy_path, intact, read_copy
from firmware.store.eventstore import EventStore


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    folder = tmp_path_factory.mktemp("unreadable-copy")
    return folder, three_matches(folder, seed=5)


@pytest.fixture(scope="module")
def stranger(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Another board's store folder (other games, the same event ids): its copy is the
    'different game's log'."""
    folder = tmp_path_factory.mktemp("stranger")
    three_matches(folder, seed=23)
    return copy_path(folder / "s.db")


def kept_aside(path: Path) -> list[Path]:
    return sorted(path.parent.glob(copy_path(path).name + ".damaged-*"))


def opens_whole_and_says_so(path: Path, truth: dict) -> str:
    """Opens the store at ``path``: every row of ``truth`` and no repair, a fresh intact copy
    of them all, a change taken; returns the words the board says of the copy."""
    with EventStore.open(path, clock=Clock()) as store:
        assert store.recovery is None, store.recovery
        assert kept(store) == truth
        words = store.copy_trouble or ""
        game = simulate_game(random.Random(4), ["Ann", "Bob"])
        store.start_match(game[0])
        store.append(game[1])
    fresh = read_copy(copy_path(path))
    assert intact(fresh) and set(truth) < set(fresh.rows), "the fresh copy holds every row"
    with EventStore.open(path, clock=Clock()) as again:  # said once: put right now
        assert again.copy_trouble is None and again.notes == () and again.recovery is None
    return words


def test_a_folder_in_place_of_the_copy_is_kept_aside_and_the_store_opens(
        pristine: tuple[Path, dict], tmp_path: Path) -> None:
    path = copy_store(pristine, tmp_path / "s")
    copy = copy_path(path)
    copy.unlink()
    copy.mkdir()
    (copy / "notes.txt").write_text("someone's file")
    words = opens_whole_and_says_so(path, pristine[1])
    [aside] = kept_aside(path)
    assert (aside / "notes.txt").read_text() == "someone's file", "kept, untouched"
    assert "second copy could not be read" in words and "Is a directory" in words
    assert str(aside) in words, words


@pytest.mark.parametrize("kind", ["garbage", "stranger", "stranger-short", "empty-lines"])
def test_a_copy_that_is_not_this_stores_is_kept_aside_not_taken_in(
        pristine: tuple[Path, dict], stranger: Path, tmp_path: Path, kind: str) -> None:
    """Another store's copy holds rows under this store's ids and beyond: before, opening
    took its later rows into this store as rows 'the store lost' and set aside the rest as
    not fitting the game; garbage was overwritten with only a note in the journal."""
    path = copy_store(pristine, tmp_path / "s")
    if kind == "garbage":
        held = random.Random(1).randbytes(5000)
    elif kind == "empty-lines":
        held = b"\n\n\nnot a copy line\n"
    else:
        held = stranger.read_bytes()
        if kind == "stranger-short":
            held = b"".join(held.splitlines(keepends=True)[:9])
    copy_path(path).write_bytes(held)
    words = opens_whole_and_says_so(path, pristine[1])
    [aside] = kept_aside(path)
    assert aside.read_bytes() == held
    assert "second copy could not be read" in words and str(aside) in words, words
    assert not list(path.parent.glob("s.db.damaged-*")), "the store itself was not repaired"


def test_a_copy_that_only_fell_behind_is_rewritten_without_a_file_kept(
        pristine: tuple[Path, dict], tmp_path: Path) -> None:
    """A copy short of its last lines, or with its last line torn by a power cut, holds
    nothing the store lacks: no file is kept aside for it and nothing is said aloud."""
    path = copy_store(pristine, tmp_path / "s")
    lines = copy_path(path).read_bytes().splitlines(keepends=True)
    copy_path(path).write_bytes(b"".join(lines[:-3]) + lines[-3][:20])
    with EventStore.open(path, clock=Clock()) as store:
        assert store.recovery is None and store.copy_trouble is None
        assert kept(store) == pristine[1]
    assert kept_aside(path) == []
    assert intact(read_copy(copy_path(path)))


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file whatever its mode")
def test_a_copy_this_user_cannot_read_is_kept_aside(pristine: tuple[Path, dict],
                                                    tmp_path: Path) -> None:
    path = copy_store(pristine, tmp_path / "s")
    held = copy_path(path).read_bytes()
    copy_path(path).chmod(0)
    words = opens_whole_and_says_so(path, pristine[1])
    [aside] = kept_aside(path)
    aside.chmod(0o600)
    assert aside.read_bytes() == held
    assert "could not be read (Permission denied)" in words, words


def test_a_damaged_store_beside_an_unreadable_copy_is_repaired_without_it(
        pristine: tuple[Path, dict], tmp_path: Path) -> None:
    """The repair takes nothing from a copy it cannot read, and still opens."""
    path = copy_store(pristine, tmp_path / "s")
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE events SET line = substr(line, 1, 10) WHERE id = 7")
    conn.close()
    copy = copy_path(path)
    copy.unlink()
    copy.mkdir()
    with EventStore.open(path, clock=Clock()) as store:
        assert store.recovery is not None and store.recovery.damaged_at == 7
        assert "could not be read" in (store.copy_trouble or "")
    assert len(kept_aside(path)) == 1 and kept_aside(path)[0].is_dir()


def test_a_copy_that_cannot_be_kept_aside_is_left_alone_and_said(
        pristine: tuple[Path, dict], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the unreadable copy cannot be renamed, it is not written over either: the
    events are kept in the store alone, and the words say so."""
    import errno

    from firmware.store import eventstore

    path = copy_store(pristine, tmp_path / "s")
    garbage = b"\x00\xff" * 300
    copy_path(path).write_bytes(garbage)

    def refused(path: Path, when: float) -> Path:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(eventstore, "keep_aside", refused)
    with EventStore.open(path, clock=Clock()) as store:
        assert kept(store) == pristine[1]
        words = store.copy_trouble or ""
        game = simulate_game(random.Random(4), ["Ann", "Bob"])
        store.start_match(game[0])
    assert copy_path(path).read_bytes() == garbage
    assert "could not be read" in words and "nor kept aside (Input/output error)" in words
    assert "store alone" in words and str(copy_path(path)) in words, words


def test_an_unreadable_store_beside_a_good_copy_opens_from_the_copy(
        pristine: tuple[Path, dict], tmp_path: Path) -> None:
    """The reverse: the store's file is garbage (its -wal gone with it); every row comes back
    from the second copy."""
    path = copy_store(pristine, tmp_path / "s")
    size = path.stat().st_size
    path.write_bytes(random.Random(2).randbytes(size))
    for extra in ("s.db-wal", "s.db-shm"):
        (path.parent / extra).unlink(missing_ok=True)
    with EventStore.open(path, clock=Clock()) as store:
        assert store.recovery is not None and store.recovery.lost == ()
        assert kept(store) == pristine[1]
        assert store.copy_trouble is None
    assert kept_aside(path) == [], "the copy was the good one: nothing of it is lost"


def test_a_folder_in_place_of_the_store_is_refused_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    path.mkdir()
    from firmware.store.eventstore import StoreError

    with pytest.raises(StoreError, match="is a folder, not a file"):
        EventStore.open(path, clock=Clock())


def test_doctor_names_a_second_copy_it_cannot_read(pristine: tuple[Path, dict],
                                                   tmp_path: Path) -> None:
    from firmware.doctor.checks import check

    path = copy_store(pristine, tmp_path / "s")
    config_file = tmp_path / "device.toml"
    config_file.write_text(f'[store]\npath = "{path}"\n')
    assert not [f for f in check(config_file) if "second copy" in f.text]
    copy = copy_path(path)
    copy.write_bytes(b"\x00" * 4096)  # garbage: no line of it is a copy's line
    said_of(check(config_file), copy)
    copy.unlink()
    copy.mkdir()  # a folder in its place
    said_of(check(config_file), copy)


def said_of(findings: list, copy: Path) -> None:
    about = [f for f in findings if "second copy" in f.text]
    assert len(about) == 1 and about[0].level == "fault" and about[0].starts_anyway, about
    assert str(copy) in about[0].text and "could not be read" in about[0].text
    assert "aside" in about[0].starts_as


def test_the_board_says_once_that_its_copy_could_not_be_read(
        pristine: tuple[Path, dict], tmp_path: Path) -> None:
    """Aloud, on the page and in the journal, as a copy that cannot be written is: once,
    at start, however many events follow (each now with its fresh copy)."""
    from webrig import TableRig, scripted_game

    path = copy_store(pristine, tmp_path / "s")
    copy_path(path).unlink()
    copy_path(path).mkdir()
    truth, steps = scripted_game()
    store = EventStore.open(path, clock=Clock())
    store.start_match(truth[0])
    table = TableRig(store)
    table.play(steps[:6])
    told = [f for f in table.said if "second copy" in f.text]
    assert [f.kind for f in told] == ["say"] and "could not be read" in told[0].text, told
    store.close()
    assert intact(read_copy(copy_path(path)))


def test_a_repair_takes_no_row_from_another_stores_copy(
        pristine: tuple[Path, dict], stranger: Path, tmp_path: Path) -> None:
    """A damaged store beside another store's copy: the repair keeps what the store still
    holds and takes none of the stranger's rows as this store's."""
    truth = pristine[1]
    path = copy_store(pristine, tmp_path / "s")
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE events SET line = substr(line, 1, 10) WHERE id = 7")
    conn.close()
    held = stranger.read_bytes()
    copy_path(path).write_bytes(held)
    with EventStore.open(path, clock=Clock()) as store:
        assert store.recovery is not None and store.recovery.damaged_at == 7
        found = kept(store)
    # (Rows after the lost one are set aside: kept, but out of the game.)
    strange = {i: row for i, row in found.items() if truth.get(i, ())[:2] != row[:2]}
    assert found and strange == {}, "every row kept is this store's own"
    assert [p.read_bytes() for p in kept_aside(path)] == [held]
