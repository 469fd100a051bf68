"""firmware.store: edits the row checksums alone do not see (issue 60, item 3). Each test
edits a store as someone with sqlite3 and the program's formulas would, but without
rewriting the chain from the edited row on: the edit is found, named (which row, what kind
of change), and the intact second copy wins."""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
from pathlib import Path

import pytest
from storekit import THREE_MATCHES, Clock, Truth, copy_store, kept, play_with_undos

from engine.simulate import simulate_game
from firmware.store.derived import digest, read_history
from firmware.store.eventstore import EventStore
from firmware.store.mark import Mark, MarkFile, mark_path, read_mark
from firmware.store.schema import SCHEMA_VERSION, row_crc, undo_crc

GOLDEN = Path(__file__).resolve().parent / "golden" / "store-v3"

Pristine = tuple[Path, Truth, tuple[object, ...]]


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Pristine:
    """Three whole matches, an undo in each, closed (checkpointed into the file)."""
    folder = tmp_path_factory.mktemp("chain")
    # ``three_matches``' store, kept open for its history as well as its rows.
    with EventStore.open(folder / "s.db", clock=Clock()) as store:
        play_with_undos(store, random.Random(11), THREE_MATCHES, undo_at=10)
        truth = kept(store)
        history = store.matches()
    return folder, truth, history


def edited(pristine: Pristine, to: Path, *sql: tuple[str, tuple]) -> Path:
    path = copy_store(pristine, to)
    conn = sqlite3.connect(path)
    with conn:
        for statement, values in sql:
            conn.execute(statement, values)
    conn.close()
    return path


def said(store: EventStore) -> str:
    """Everything the store tells the board about how it opened."""
    parts = [*store.notes, *([store.copy_trouble] if store.copy_trouble else [])]
    if store.recovery is not None:
        parts += [str(store.recovery), store.recovery.words()]
    return " ".join(parts)


def row(path: Path, event_id: int) -> tuple[int, str, float]:
    conn = sqlite3.connect(path)
    found = conn.execute("SELECT match, line, at FROM events WHERE id = ?",
                         (event_id,)).fetchone()
    conn.close()
    return found


def test_a_valid_looking_undo_row_is_found_and_dropped(pristine: Pristine, tmp_path: Path) -> None:
    truth = pristine[1]
    last = max(truth)
    conn = sqlite3.connect(pristine[0] / "s.db")
    undos = conn.execute("SELECT count(*) FROM undos").fetchone()[0]
    conn.close()
    at = 1_800_000_000.0
    path = edited(pristine, tmp_path / "s",
                  ("INSERT INTO undos (id, event, at, crc) VALUES (?, ?, ?, ?)",
                   (undos + 1, last, at, undo_crc(undos + 1, last, at))),
                  ("UPDATE events SET undone_at = ? WHERE id = ?", (at, last)))
    with EventStore.open(path, clock=Clock()) as store:
        assert kept(store) == truth
        words = said(store)
    assert f"undo row {undos + 1}" in words and "added" in words


def test_appended_rows_are_found_and_dropped(pristine: Pristine, tmp_path: Path) -> None:
    truth = pristine[1]
    game = simulate_game(random.Random(4), ["Zed", "Yan"])
    at = 1_800_000_000.0
    first = max(truth) + 1
    inserts = [("INSERT INTO events (id, match, line, crc, at) VALUES (?, ?, ?, ?, ?)",
                (first + n, 4, line, row_crc(first + n, 4, at + n, line), at + n))
               for n, line in enumerate(json.dumps(e) for e in game[:3])]
    path = edited(pristine, tmp_path / "s", *inserts)
    with EventStore.open(path, clock=Clock()) as store:
        assert kept(store) == truth
        words = said(store)
    assert f"event id {first}" in words and "added" in words


def test_a_row_edited_with_its_crc_recomputed_is_found_and_put_back(pristine: Pristine,
                                                                    tmp_path: Path) -> None:
    truth = pristine[1]
    match, line, at = row(pristine[0] / "s.db", 7)
    at += 0.5
    path = edited(pristine, tmp_path / "s",
                  ("UPDATE events SET at = ?, crc = ? WHERE id = 7",
                   (at, row_crc(7, match, at, line))))
    with EventStore.open(path, clock=Clock()) as store:
        assert kept(store) == truth
        assert next(e for e in store.events(1) if e.id == 7).at != at
        words = said(store)
    assert "event id 7" in words and "changed" in words


def test_a_row_moved_to_another_match_is_found_and_put_back(pristine: Pristine,
        tmp_path: Path) -> None:
    truth = pristine[1]
    match, line, at = row(pristine[0] / "s.db", 12)
    assert match == 1
    path = edited(pristine, tmp_path / "s",
                  ("UPDATE events SET match = 2, crc = ? WHERE id = 12",
                   (row_crc(12, 2, at, line),)))
    with EventStore.open(path, clock=Clock()) as store:
        assert kept(store) == truth
        words = said(store)
    assert "event id 12" in words and "moved" in words


def test_the_games_table_rewritten_with_its_digest_is_found(pristine: Pristine,
        tmp_path: Path) -> None:
    _, truth, history = pristine
    path = copy_store(pristine, tmp_path / "s")
    conn = sqlite3.connect(path)
    with conn:
        stored, _ = read_history(conn, 1)
        game = stored.games[0]
        loser = next(side for side in stored.sides if side != game.winner)
        conn.execute("UPDATE games SET winner = ? WHERE event = ?", (loser, game.event))
        forged, _ = read_history(conn, 1)
        conn.execute("UPDATE derived SET digest = ? WHERE match = 1", (digest(forged),))
    conn.close()
    with EventStore.open(path, clock=Clock()) as store:
        assert store.matches() == history
        words = said(store)
    assert "match 1" in words and "history" in words


def test_the_last_rows_deleted_with_the_mark_rewritten_are_found(pristine: Pristine,
                                                                 tmp_path: Path) -> None:
    truth = pristine[1]
    last = max(truth)
    path = edited(pristine, tmp_path / "s",
                  ("DELETE FROM events WHERE id > ?", (last - 3,)))
    match, line, at = row(path, last - 3)
    old = read_mark(mark_path(path))
    assert old is not None
    mark = MarkFile.open(mark_path(path))
    mark.write(Mark(last - 3, row_crc(last - 3, match, at, line), match, old.undone,
                    old.undo_chain), durable=True)
    mark.write(Mark(last - 3, row_crc(last - 3, match, at, line), match, old.undone,
                    old.undo_chain), durable=True)
    mark.close()
    with EventStore.open(path, clock=Clock()) as store:
        assert kept(store) == truth
        words = said(store)
    assert f"event id {last - 2}" in words and "deleted" in words


def test_rows_deleted_with_matching_lost_rows_are_found(pristine: Pristine, tmp_path: Path) -> None:
    truth = pristine[1]
    path = edited(pristine, tmp_path / "s",
                  ("DELETE FROM events WHERE id IN (5, 6)", ()),
                  ("INSERT INTO lost (id, place, why, at) VALUES (5, '[[1, 1]]', 'missing', 1.0)",
                   ()),
                  ("INSERT INTO lost (id, place, why, at) VALUES (6, '[[1, 1]]', 'missing', 1.0)",
                   ()))
    with EventStore.open(path, clock=Clock()) as store:
        assert kept(store) == truth
        assert store.lost() == ()
        words = said(store)
    assert "event id 5" in words and "deleted" in words


def test_user_version_2_with_undone_at_set_is_found(pristine: Pristine, tmp_path: Path) -> None:
    truth = pristine[1]
    live = next(i for i, (m, _, undone) in sorted(truth.items()) if m == 1 and not undone
                and i > 20)
    path = edited(pristine, tmp_path / "s",
                  ("UPDATE events SET undone_at = 1800000000.0 WHERE id = ?", (live,)),
                  ("PRAGMA user_version = 2", ()))
    with EventStore.open(path, clock=Clock()) as store:
        assert kept(store) == truth
        words = said(store)
    assert f"event id {live}" in words


def test_an_edited_second_copy_loses_to_the_store(pristine: Pristine, tmp_path: Path) -> None:
    """The copy is checked by the chain too: a copy line edited with its line checksum
    recomputed is the copy's damage, and the store (which agrees with the chain) wins."""
    truth = pristine[1]
    path = copy_store(pristine, tmp_path / "s")
    copy = path.with_name("s.db-copy")
    lines = copy.read_bytes().split(b"\n")
    import zlib
    for n, raw in enumerate(lines):
        fields = json.loads(raw.partition(b" ")[2]) if raw else None
        if fields and fields[0] == "e" and fields[1] == 9:
            fields[3] += 0.5
            fields[5] = row_crc(9, fields[2], fields[3], fields[4])
            text = json.dumps(fields, ensure_ascii=False, separators=(",", ":"))
            lines[n] = f"{zlib.crc32(text.encode()):08x} {text}".encode()
    copy.write_bytes(b"\n".join(lines))
    with EventStore.open(path, clock=Clock()) as store:
        assert kept(store) == truth
        assert store.recovery is None
        words = said(store)
    assert "second copy" in words


def test_a_store_made_before_the_chain_opens_and_is_chained_from_then_on(
        tmp_path: Path) -> None:
    shutil.copytree(GOLDEN, tmp_path / "s")
    path = tmp_path / "s" / "s.db"
    with EventStore.open(path, clock=Clock()) as store:
        before = kept(store)
        assert store.recovery is None
        assert not any("differed" in note for note in store.notes)
        assert len(before) == 62
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        links = conn.execute("SELECT count(*) FROM chain").fetchone()[0]
        undos = conn.execute("SELECT count(*) FROM undos").fetchone()[0]
        conn.execute("UPDATE events SET at = at + 1, crc = 0 WHERE id = 3")
        match, line, at = conn.execute("SELECT match, line, at FROM events WHERE id = 3"
                                       ).fetchone()
        conn.execute("UPDATE events SET crc = ? WHERE id = 3", (row_crc(3, match, at, line),))
    conn.close()
    assert links == 62 + undos
    with EventStore.open(path, clock=Clock()) as store:
        assert kept(store) == before
        assert "event id 3" in said(store)


def test_a_chained_store_takes_appends_undos_and_reopens_silently(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    rng = random.Random(2)
    game = simulate_game(rng, ["Ann", "Bob"])
    with EventStore.open(path, clock=Clock()) as store:
        for event in game[:20]:
            store.append(event)
        store.undo()
        store.append(game[19])
    with EventStore.open(path, clock=Clock()) as store:
        assert store.recovery is None and store.notes == ()
        store.append(game[20])
    with EventStore.open(path, clock=Clock()) as store:
        assert store.recovery is None and store.notes == ()
        assert store.line_count == 21


def test_a_power_cut_that_leaves_the_copy_one_row_ahead_keeps_that_row(tmp_path: Path) -> None:
    """The copy is flushed beside SQLite's commit, so a cut can leave the copy's line on the
    card and not the row (never acknowledged: no LED, no phone saw it). The next open takes
    the row from the copy, as if the commit had landed just before the cut: nothing lost."""
    path = tmp_path / "s.db"
    game = simulate_game(random.Random(6), ["Ann", "Bob"])
    with EventStore.open(path, clock=Clock()) as store:
        for event in game[:15]:
            store.append(event)
        truth = kept(store)
    conn = sqlite3.connect(path)
    with conn:  # the last commit never reached the card: its row and its link are gone
        conn.execute("DELETE FROM events WHERE id = 15")
        conn.execute("DELETE FROM chain WHERE kind = 'e' AND ref = 15")
    conn.close()
    with EventStore.open(path, clock=Clock()) as store:
        assert store.recovery is not None and store.recovery.lost == ()
        assert store.recovery.set_aside == ()
        assert kept(store) == truth
        store.append(game[15])


def test_a_copy_left_behind_does_not_stand_for_the_store(pristine: Pristine,
        tmp_path: Path) -> None:
    """A copy whose own chain holds but that lacks rows the store's chain names (a write to
    it failed) must not replace the store when the store's chain breaks: the repair keeps
    every row whose checksum holds instead."""
    truth = pristine[1]
    match, line, at = row(pristine[0] / "s.db", 7)
    path = edited(pristine, tmp_path / "s",
                  ("UPDATE events SET at = ?, crc = ? WHERE id = 7",
                   (at + 0.5, row_crc(7, match, at + 0.5, line))))
    copy = path.with_name("s.db-copy")
    lines = copy.read_bytes().splitlines(keepends=True)
    copy.write_bytes(b"".join(lines[:-5]))
    with EventStore.open(path, clock=Clock()) as store:
        assert store.recovery is not None and store.recovery.lost == ()
        assert set(kept(store)) == set(truth)


def test_two_rows_swapped_are_found_and_put_back(pristine: Pristine, tmp_path: Path) -> None:
    """A reorder: events 20 and 21 trade their text, each checksummed again."""
    truth = pristine[1]
    m20, l20, at20 = row(pristine[0] / "s.db", 20)
    m21, l21, at21 = row(pristine[0] / "s.db", 21)
    path = edited(pristine, tmp_path / "s",
                  ("UPDATE events SET line = ?, crc = ? WHERE id = 20",
                   (l21, row_crc(20, m20, at20, l21))),
                  ("UPDATE events SET line = ?, crc = ? WHERE id = 21",
                   (l20, row_crc(21, m21, at21, l20))))
    with EventStore.open(path, clock=Clock()) as store:
        assert kept(store) == truth
        assert "event id 20" in said(store)
