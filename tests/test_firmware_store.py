"""firmware.store.eventstore: durable events, exact resume, honest undo, and recovery from
damage."""

from __future__ import annotations

import json
import os
import random
import selectors
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from storekit import Clock, events_pages

from engine.game import Game
from engine.records import LogError
from engine.simulate import simulate_game, simulate_match
from firmware.store.copy import copy_path
from firmware.store.eventstore import EventStore, StoreDamagedError, StoreError

PLAYERS = ["Ann", "Bob"]


@pytest.fixture(scope="module")
def match_log() -> list[dict]:
    return simulate_match(random.Random(3), PLAYERS, games=2)


def fill(path: Path, events: list[dict]) -> EventStore:
    store = EventStore.open(path, clock=Clock())
    for event in events:
        store.append(event)
    return store


def mid_count(events: list[dict]) -> int:
    """The index just after a card laid on a non-zero count, so a resume lands mid-count."""
    game = Game()
    for i, event in enumerate(events):
        game.apply(event)
        if game.phase == "play" and game.count and i > len(events) // 3:
            return i + 1
    raise AssertionError("no mid-count position")


def test_append_then_reopen_replays_the_same_log_and_game(tmp_path: Path, match_log) -> None:
    path = tmp_path / "events.sqlite3"
    store = fill(path, match_log)
    before = store.game.to_json()
    store.close()
    with EventStore.open(path) as again:
        assert again.recovery is None
        assert [json.loads(line) for line in again.lines] == match_log
        assert again.game.to_json() == before == Game.replay(match_log).to_json()
        assert [e.id for e in again.events()] == list(range(1, len(match_log) + 1))


def test_lines_are_the_contract_jsonl_text(tmp_path: Path) -> None:
    with EventStore.open(tmp_path / "s.db", clock=Clock()) as store:
        store.append('{"type":"new_game","players":["Ann","Bob"],"rules":{"target":61}}')
        store.append({"type": "deal", "dealer": "Ann", "camera_frame": 12})
        assert store.lines == (
            '{"type": "new_game", "players": ["Ann", "Bob"], "rules": {"target": 61}}',
            '{"type": "deal", "dealer": "Ann"}',
        )
        stamps = [e.at for e in store.events()]
        assert stamps == [1_700_000_001.0, 1_700_000_002.0]


def test_resume_mid_count_gives_the_exact_state(tmp_path: Path, match_log) -> None:
    cut = mid_count(match_log)
    store = fill(tmp_path / "s.db", match_log[:cut])
    before = store.game
    assert before.phase == "play" and before.count > 0
    snapshot = (before.to_json(), before.count, before.pile, before.turn, before.next)
    store.close()
    with EventStore.open(tmp_path / "s.db") as again:
        game = again.game
        assert (game.to_json(), game.count, game.pile, game.turn, game.next) == snapshot
        for event in match_log[cut:]:
            again.append(event)
        assert again.game.to_json() == Game.replay(match_log).to_json()


def test_append_returns_what_the_event_pegged(tmp_path: Path) -> None:
    with EventStore.open(tmp_path / "s.db", clock=Clock()) as store:
        first = store.append({"type": "new_game", "players": PLAYERS})
        store.append({"type": "deal", "dealer": "Ann"})
        heels = store.append({"type": "starter", "card": "JH"})
        assert (first.id, first.match, first.number, first.pegged) == (1, 1, 0, ())
        assert [(p.side, p.points, p.reason) for p in heels.pegged] == [("Ann", 2, "his_heels")]
        assert heels.number == 2 and heels.id == 3


def test_a_rejected_event_is_not_stored_and_changes_nothing(tmp_path: Path, match_log) -> None:
    path = tmp_path / "s.db"
    store = fill(path, match_log[:8])
    before = store.game.to_json()
    laid = next(e for e in match_log[:8] if e["type"] == "play")
    with pytest.raises(LogError) as info:
        store.append(laid)  # the same card laid twice
    assert info.value.event == 8
    with pytest.raises(LogError, match="unknown event type 'peg'"):
        store.append({"type": "peg"})
    assert store.game.to_json() == before
    assert store.last_id == 8
    store.append(match_log[8])  # and the game carries on
    store.close()
    with EventStore.open(path) as again:
        assert [json.loads(line) for line in again.lines] == match_log[:9]


def test_undo_takes_back_the_last_event_durably_and_keeps_it_in_history(
        tmp_path: Path, match_log) -> None:
    path = tmp_path / "s.db"
    store = fill(path, match_log[:20])
    after_19 = Game.replay(match_log[:19]).to_json()
    undone = store.undo()
    assert json.loads(undone.line) == match_log[19] and undone.undone_at is not None
    assert store.game.to_json() == after_19
    store.append(match_log[19])
    store.undo()
    store.close()
    with EventStore.open(path) as again:
        assert again.game.to_json() == after_19
        assert len(again.lines) == 19
        history = list(again.events(include_undone=True))
        assert [e.id for e in history if e.undone_at is not None] == [20, 21]
        assert again.last_id == 21
        again.append(match_log[19])
        assert again.last_id == 22


def test_undo_with_nothing_to_undo_is_a_clear_error(tmp_path: Path) -> None:
    with EventStore.open(tmp_path / "s.db") as store, pytest.raises(StoreError, match="nothing"):
        store.undo()


def test_undoing_the_winning_event_takes_the_game_out_of_history(
        tmp_path: Path, match_log) -> None:
    one_game = simulate_game(random.Random(5), PLAYERS)
    with fill(tmp_path / "s.db", one_game) as store:
        assert [len(m.games) for m in store.matches()] == [1]
        store.undo()
        assert store.matches()[0].games == ()
        assert store.game.winner is None


def test_history_counts_games_skunks_and_match_points(tmp_path: Path, match_log) -> None:
    path = tmp_path / "s.db"
    with fill(path, match_log) as store:
        expected = Game.replay(match_log)
        other = simulate_game(random.Random(9), ["Cat", "Dan", "Eve"])
        with pytest.raises(LogError):
            store.append(other[0])  # new players: not the next game of this match
        started = store.start_match(other[0])
        assert started.match == 2 and started.number == 0
        for event in other[1:]:
            store.append(event)
    with EventStore.open(path, readonly=True) as reader:
        first, second = reader.matches()
    assert [(g.winner, g.result) for g in first.games] == \
        [(g.winner, g.result) for g in expected.match]
    assert first.points == expected.match_points
    assert first.players == ("Ann", "Bob") and first.events == len(match_log)
    assert second.players == ("Cat", "Dan", "Eve")
    assert set(second.points) == {"Cat", "Dan", "Eve"} and sum(second.points.values()) >= 1
    assert first.to_json()["skunks"] == sum(g.result != "win" for g in expected.match)


def test_a_second_writer_is_refused_rather_than_interleaved(tmp_path: Path, match_log) -> None:
    path = tmp_path / "s.db"
    one = fill(path, match_log[:3])
    two = EventStore.open(path)
    one.append(match_log[3])
    with pytest.raises(StoreError, match="written by another process"):
        two.append(match_log[3])
    one.close()
    two.close()


def test_a_corrupt_last_record_is_detected_and_the_rest_kept(tmp_path: Path, match_log) -> None:
    path = tmp_path / "s.db"
    fill(path, match_log[:30]).close()
    with sqlite3.connect(path) as conn:  # a torn record: text changed, checksum not
        conn.execute("UPDATE events SET line = substr(line, 1, 10) WHERE id = 30")
    conn.close()
    original = path.read_bytes()
    with pytest.raises(StoreDamagedError, match="at event id 30: checksum mismatch"):
        EventStore.open(path, readonly=True)
    copy_path(path).unlink()  # both copies damaged: only then is a row lost
    with EventStore.open(path, clock=Clock()) as store:
        report = store.recovery
        assert report is not None
        assert (report.kept, report.damaged_at, report.reason) == (29, 30, "checksum mismatch")
        assert report.moved_to.read_bytes() == original  # moved aside, never written
        assert "kept 29 of 30 events and lost event 30 (match 1 game 1: checksum mismatch)" \
            in str(report)
        assert [(e.id, e.where, e.why) for e in report.lost] == [(30, ((1, 1),),
                                                                  "checksum mismatch")]
        assert store.game.to_json() == Game.replay(match_log[:29]).to_json()
        store.append(match_log[29])
    with EventStore.open(path) as again:
        assert again.recovery is None and len(again.lines) == 30


def test_a_file_that_is_not_a_store_is_moved_aside(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    path.write_bytes(b"this is not SQLite, it is a shopping list\n" * 200)
    with EventStore.open(path, clock=Clock()) as store:
        assert store.recovery is not None and store.recovery.kept == 0
        assert store.lines == ()
        assert store.recovery.moved_to.read_bytes().startswith(b"this is not SQLite")


def leaf_ranges(path: Path) -> tuple[int, list[tuple[int, int]]]:
    """The events table's root page and, in key order, (page number, rows) of each leaf."""
    pages = events_pages(path)
    root = pages[0][0]
    return root, [(page, cells) for page, kind, cells in pages if kind == "leaf"]


def test_a_truncated_store_keeps_every_readable_event_and_reports_the_rest(
        tmp_path: Path, match_log) -> None:
    intact = tmp_path / "intact.db"
    fill(intact, match_log).close()
    data = intact.read_bytes()
    mark = (tmp_path / "intact.db-mark").read_bytes()
    page = 4096
    root, leaves = leaf_ranges(intact)
    assert len(leaves) >= 4  # the game spans several pages, so cuts land between events
    cuts = sorted({len(data) - 1, len(data) - page // 2, *range(page, len(data), 2900)})
    kept_by_cut = []
    for cut in cuts:
        folder = tmp_path / f"cut{cut}"
        folder.mkdir()
        (folder / "s.db").write_bytes(data[:cut])
        (folder / "s.db-mark").write_bytes(mark)
        with EventStore.open(folder / "s.db", clock=Clock()) as store:
            kept = [json.loads(line) for line in store.lines]
            kept_ids = [e.id for e in store.events()]
            report = store.recovery
            assert store.lost() == (report.lost if report else ())
        if not data[cut:].strip(b"\0"):  # only zero bytes lost: SQLite reads them back as 0
            assert report is None and kept == match_log
            continue
        assert report is not None, f"damage at byte {cut} went unnoticed"
        assert kept == [match_log[i - 1] for i in kept_ids]  # each where it was, none doubled
        lost_ids = [e.id for e in report.lost]
        aside = [e.id for e in report.set_aside]  # kept, out of the game: a row before is lost
        assert sorted(kept_ids + lost_ids + aside) == list(range(1, len(match_log) + 1)), cut
        assert report.kept == len(kept_ids) + len(aside) and report.damaged_at == min(lost_ids)
        assert f"kept {report.kept} of {len(match_log)} events and lost event" in str(report)
        # Every event on a leaf page wholly before the cut survives (when the table's root
        # page does too); none survives past the first leaf page that lies wholly after it.
        before = after = 0
        intact_so_far = cut >= root * page
        for number, cells in leaves:
            intact_so_far = intact_so_far and number * page <= cut
            before += cells if intact_so_far else 0
        for number, cells in leaves:
            if (number - 1) * page >= cut:
                break
            after += cells
        assert before <= report.kept <= after, (cut, report)
        kept_by_cut.append(report.kept)
    assert kept_by_cut == sorted(kept_by_cut)
    assert kept_by_cut[0] < kept_by_cut[-1]


def test_a_truncated_wal_keeps_every_commit_before_the_cut(tmp_path: Path) -> None:
    events = simulate_game(random.Random(11), PLAYERS)
    live = tmp_path / "live"
    live.mkdir()
    store = EventStore.open(live / "s.db", clock=Clock())
    wal = live / "s.db-wal"
    ends = []
    for event in events:
        store.append(event)
        ends.append(wal.stat().st_size)  # where this event's commit ends in the WAL
    assert ends == sorted(ends) and ends[0] > 0  # no checkpoint moved frames meanwhile
    db, log = (live / "s.db").read_bytes(), wal.read_bytes()  # a power cut, as the disk saw it
    store.close()
    rng = random.Random(4)
    for cut in sorted(rng.sample(range(32, len(log)), 12)) + [len(log)]:
        folder = tmp_path / f"wal{cut}"
        folder.mkdir()
        (folder / "s.db").write_bytes(db)
        (folder / "s.db-wal").write_bytes(log[:cut])
        with EventStore.open(folder / "s.db", clock=Clock()) as again:
            expected = sum(end <= cut for end in ends)
            assert [json.loads(line) for line in again.lines] == events[:expected], cut
            assert again.game.to_json() == Game.replay(events[:expected]).to_json()


# -- crash test: SIGKILL a writer at random moments ---------------------------------------------

CHILD = textwrap.dedent("""
    import json, random, sys
    from engine.simulate import simulate_match
    from firmware.store.eventstore import EventStore

    path, seed = sys.argv[1], int(sys.argv[2])
    log = simulate_match(random.Random(seed), ["Ann", "Bob"], games=2)
    store = EventStore.open(path)
    done = [json.loads(line) for line in store.lines]
    if done != log[:len(done)]:
        print("DIVERGED", len(done), flush=True)
        sys.exit(3)
    for event in log[len(done):]:
        appended = store.append(event)
        print(appended.id, flush=True)
    print("DONE", flush=True)
""")


def test_sigkill_at_random_moments_loses_and_doubles_nothing(tmp_path: Path) -> None:
    seed = 21
    full = simulate_match(random.Random(seed), PLAYERS, games=2)
    path = tmp_path / "s.db"
    rng = random.Random(2024)
    acked: list[int] = []
    kills = 0
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)}
    while True:
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(path), str(seed)],
                                 stdout=subprocess.PIPE, text=True, env=env)
        assert child.stdout is not None
        kill_after = rng.randint(0, 30) if kills < 12 else None
        seen = 0
        finished = False
        with selectors.DefaultSelector() as selector:
            selector.register(child.stdout, selectors.EVENT_READ)
            while kill_after is None or seen < kill_after:
                assert selector.select(timeout=30), "the writer stopped answering"
                line = child.stdout.readline().strip()
                if line == "DONE" or not line:
                    finished = line == "DONE"
                    break
                assert not line.startswith("DIVERGED"), line
                acked.append(int(line))
                seen += 1
        if finished:
            child.wait(timeout=30)
            break
        child.send_signal(signal.SIGKILL)  # mid-commit, mid-replay or mid-start: anywhere
        child.wait(timeout=30)
        child.stdout.close()
        kills += 1
    child.stdout.close()
    assert child.returncode == 0 and kills == 12
    assert acked == sorted(set(acked))  # each acknowledged once, in order
    with EventStore.open(path) as store:
        assert store.recovery is None
        stored = list(store.events(include_undone=True))
        by_id = {e.id: e for e in stored}
        assert all(i in by_id for i in acked)  # nothing acknowledged was lost
        assert [json.loads(e.line) for e in stored] == full  # nothing lost or doubled
        assert store.game.to_json() == Game.replay(full).to_json()
        assert [(g.winner, g.result) for g in store.matches()[0].games] == \
            [(g.winner, g.result) for g in Game.replay(full).match]


def test_readonly_store_refuses_writes_and_missing_files(tmp_path: Path, match_log) -> None:
    with pytest.raises(StoreError, match="no event store at"):
        EventStore.open(tmp_path / "nothing.db", readonly=True)
    fill(tmp_path / "s.db", match_log[:2]).close()
    with EventStore.open(tmp_path / "s.db", readonly=True) as reader, \
            pytest.raises(StoreError, match="read-only"):
        reader.append(match_log[2])


def test_a_store_from_a_newer_version_is_refused(tmp_path: Path) -> None:
    """Newer is a number above this program's and a schema it does not know (a number alone
    may be a flipped bit: tests/test_firmware_store_mishaps.py)."""
    path = tmp_path / "s.db"
    EventStore.open(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE seats (id INTEGER PRIMARY KEY)")
        conn.execute("PRAGMA user_version = 99")
    conn.close()
    with pytest.raises(StoreError, match="newer version"):
        EventStore.open(path)
    assert not list(tmp_path.glob("*.damaged-*"))


def test_an_unopenable_store_is_an_error_not_damage(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    path.mkdir()
    (path / "x").write_text("keeps the folder non-empty")
    with pytest.raises(StoreError, match="is a folder, not a file"):
        EventStore.open(path)
    assert path.is_dir() and not list(tmp_path.glob("*.damaged-*"))  # nothing moved aside


def test_undo_reports_when_the_event_was_stored(tmp_path: Path) -> None:
    with EventStore.open(tmp_path / "s.db", clock=Clock(0.0)) as store:
        store.append({"type": "new_game", "players": PLAYERS})
        undone = store.undo()
    assert (undone.id, undone.at, undone.undone_at) == (1, 1.0, 2.0)


# -- damage the repair must survive and report (issue 42 items 4-7) -----------------------------

def two_matches(path: Path) -> tuple[list[dict], list[dict]]:
    """A store holding a whole game of Ann v Bob (match 1) and of Cat, Dan, Eve (match 2)."""
    first = simulate_game(random.Random(5), PLAYERS)
    second = simulate_game(random.Random(9), ["Cat", "Dan", "Eve"])
    with fill(path, first) as store:
        store.start_match(second[0])
        for event in second[1:]:
            store.append(event)
    return first, second


def test_a_row_whose_text_is_not_utf8_is_damage_and_the_device_starts(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    first, second = two_matches(path)
    with sqlite3.connect(path) as conn:  # one bad byte inside event 40's text
        conn.execute("UPDATE events SET line = CAST(CAST(substr(line, 1, 20) AS BLOB) "
                     "|| x'ff' || CAST(substr(line, 22) AS BLOB) AS TEXT) WHERE id = 40")
    conn.close()
    with pytest.raises(StoreDamagedError, match="at event id 40: its text is not UTF-8"):
        EventStore.open(path, readonly=True)
    copy_path(path).unlink()  # both copies damaged: only then is a row lost
    with EventStore.open(path, clock=Clock()) as store:
        report = store.recovery
        assert report is not None and report.lost[0].id == 40
        assert (report.lost[0].where, report.lost[0].why) == (((1, 1),), "its text is not UTF-8")
        assert [json.loads(line) for line in store.lines] == second  # match 2 whole
        assert store.game.to_json() == Game.replay(second).to_json()


def test_one_bad_row_loses_only_the_rows_that_no_longer_fold(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    first, second = two_matches(path)
    total = len(first) + len(second)
    with sqlite3.connect(path) as conn:  # a flipped bit: text changed, checksum not
        conn.execute("UPDATE events SET line = replace(line, 'play', 'pla') WHERE id = "
                     "(SELECT min(id) FROM events WHERE line LIKE '%\"play\"%')")
        bad = conn.execute("SELECT id FROM events WHERE line LIKE '%\"pla\"%'").fetchone()[0]
    conn.close()
    copy_path(path).unlink()  # both copies damaged: only then is a row lost
    with EventStore.open(path, clock=Clock()) as store:
        report = store.recovery
        assert report is not None and report.damaged_at == bad
        kept = {e.id: json.loads(e.line) for m in (1, 2)
                for e in store.events(m, include_undone=True)}
        live = {e.id for m in (1, 2) for e in store.events(m)}
        lost = {e.id: e for e in report.lost}
        aside = {e.id: e for e in report.set_aside}
        assert sorted([*kept, *lost]) == list(range(1, total + 1))  # each kept or reported
        assert all(kept[i] == (first + second)[i - 1] for i in kept)  # nothing changed
        assert list(lost) == [bad]
        assert lost[bad].why == "checksum mismatch" and lost[bad].where == ((1, 1),)
        # the rows of its game that no longer fold stay in the store, out of the game
        assert aside and all(e.why.startswith("the engine refuses it") for e in aside.values())
        assert set(aside) == set(kept) - live
        assert set(range(1, bad)) <= live  # every row before it
        assert set(range(len(first) + 1, total + 1)) <= live  # the other match whole
        assert len(live) > len(second) + bad  # and the rows of match 1 that still fold
        assert report.kept == len(kept) and store.lost() == report.lost
        words = str(report)
        assert f"kept {len(kept)} of {total} events and lost event {bad} (match 1 game 1: " \
               "checksum mismatch)" in words
    with EventStore.open(path) as again:  # the repaired store opens clean, ids stay taken
        assert again.recovery is None and again.lost() == report.lost
        assert again.last_id == total


def snapshots(folder: Path, events: list[dict]) -> list[tuple[bytes, bytes, bytes]]:
    """(db, -wal, mark) as a power cut would leave them after each acknowledged append."""
    store = EventStore.open(folder / "s.db", clock=Clock())
    store._conn.execute("PRAGMA wal_autocheckpoint = 0")  # the WAL holds every commit
    out = []
    for event in events:
        store.append(event)
        out.append(tuple((folder / name).read_bytes()
                         for name in ("s.db", "s.db-wal", "s.db-mark")))
    store.close()
    return out  # type: ignore[return-value]


def reopen(folder: Path, db: bytes, wal: bytes | None, mark: bytes) -> EventStore:
    folder.mkdir()
    (folder / "s.db").write_bytes(db)
    (folder / "s.db-mark").write_bytes(mark)
    if wal is not None:
        (folder / "s.db-wal").write_bytes(wal)
    return EventStore.open(folder / "s.db", clock=Clock())


def test_damage_inside_the_wal_is_reported_not_taken_for_a_torn_write(tmp_path: Path) -> None:
    events = simulate_game(random.Random(11), PLAYERS)
    live = tmp_path / "live"
    live.mkdir()
    states = snapshots(live, events)
    db, wal, mark = states[-1]
    frame = 24 + 4096
    middle = 32 + (len(wal) - 32) // frame // 2 * frame + 24 + 100  # page data of a frame
    flipped = bytearray(wal)
    flipped[middle] ^= 0x10
    with reopen(tmp_path / "flipped", db, bytes(flipped), mark) as store:
        # SQLite stops at the bad frame; the frames after it are read page by page, and
        # every row in them whose checksum holds is kept (the flipped byte is in no row).
        assert store.recovery is not None and store.recovery.lost == ()
        assert store.lines == tuple(json.dumps(e) for e in events)
    for name, log in (("cut", wal[:middle]), ("gone", None)):
        with reopen(tmp_path / name, db, log, mark) as store:
            report = store.recovery
            assert report is not None, name
            kept = len(store.lines)
            assert kept < len(events), name
            assert store.lines == tuple(json.dumps(e) for e in events[:kept]), name
            assert [e.id for e in report.lost] == list(range(kept + 1, len(events) + 1)), name
            assert report.reason == (f"event id {kept + 1}-{len(events)} acknowledged but not "
                                     "in the store")
            assert {e.why for e in report.lost} == {"acknowledged but not in the store (its -wal "
                                                   "was damaged, cut or lost)"}, name
            assert f"lost events {kept + 1}-{len(events)} (match 1" \
                in str(report)


def test_a_write_torn_by_a_crash_is_not_a_loss(tmp_path: Path) -> None:
    events = simulate_game(random.Random(11), PLAYERS)[:40]
    live = tmp_path / "live"
    live.mkdir()
    states = snapshots(live, events)
    (db, _, mark), (_, wal, _) = states[-2], states[-1]  # mark of 39, 40's commit half written
    previous = len(states[-2][1])
    for cut in (previous + 24, previous + 2000, len(wal) - 1):
        with reopen(tmp_path / f"torn{cut}", db, wal[:cut], mark) as store:
            assert store.recovery is None
            assert [json.loads(line) for line in store.lines] == events[:39]


def test_an_undo_lost_from_the_wal_is_reported(tmp_path: Path) -> None:
    events = simulate_game(random.Random(11), PLAYERS)[:20]
    folder = tmp_path / "live"
    folder.mkdir()
    store = EventStore.open(folder / "s.db", clock=Clock())
    store._conn.execute("PRAGMA wal_autocheckpoint = 0")
    for event in events:
        store.append(event)
    before = (folder / "s.db-wal").stat().st_size
    store.undo()
    db, wal, mark = ((folder / n).read_bytes() for n in ("s.db", "s.db-wal", "s.db-mark"))
    store.close()
    with reopen(tmp_path / "cut", db, wal[:before], mark) as again:
        assert again.recovery is not None
        assert again.recovery.reason == "1 acknowledged undo(s) not in the store"


def test_the_store_commits_in_wal_mode_with_synchronous_full(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    fill(path, simulate_game(random.Random(5), PLAYERS)[:10]).close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE events SET line = 'x' WHERE id = 10")
    conn.close()
    for store in (EventStore.open(tmp_path / "new.db"), EventStore.open(path, clock=Clock())):
        with store:
            pragmas = [store._conn.execute(f"PRAGMA {p}").fetchone()[0]
                       for p in ("journal_mode", "synchronous")]
            assert pragmas == ["wal", 2]  # 2: FULL, an fsync at every commit


def test_damage_only_quick_check_sees_is_repaired_and_nothing_lost(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    events = simulate_game(random.Random(5), PLAYERS)
    fill(path, events).close()
    with sqlite3.connect(path) as conn:
        root = conn.execute("SELECT rootpage FROM sqlite_master "
                            "WHERE name = 'events_by_match'").fetchone()[0]
    conn.close()
    data = bytearray(path.read_bytes())
    data[(root - 1) * 4096 + 3:(root - 1) * 4096 + 5] = b"\x0f\xff"  # the index's cell count:
    # the table's rows are untouched, so only SQLite's own check sees it
    path.write_bytes(bytes(data))
    with EventStore.open(path, clock=Clock()) as store:
        assert store.recovery is not None
        assert store.recovery.reason.startswith("SQLite quick_check")
        assert store.recovery.lost == () and f"kept all {len(events)} events" in \
            str(store.recovery)
        assert [json.loads(e.line) for e in store.events()] == events


def test_a_repair_fsyncs_the_folder_after_renaming_the_fresh_store_in(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import firmware.store.repair as store_module
    path = tmp_path / "s.db"
    fill(path, simulate_game(random.Random(5), PLAYERS)[:10]).close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE events SET line = 'x' WHERE id = 10")
    conn.close()
    seen: list[tuple[str, str]] = []
    real_rename, real_fsync_dir = os.rename, store_module.fsync_dir
    monkeypatch.setattr(os, "rename", lambda a, b: (seen.append(("rename", str(b))),
                                                    real_rename(a, b))[1])
    monkeypatch.setattr(store_module, "fsync_dir", lambda d: (seen.append(("fsync", str(d))),
                                                              real_fsync_dir(d))[1])
    EventStore.open(path, clock=Clock()).close()
    last_rename = max(i for i, item in enumerate(seen) if item == ("rename", str(path)))
    assert ("fsync", str(tmp_path)) in seen[last_rename:]


def test_the_mark_is_flushed_at_game_ends_and_now_and_then_not_at_every_append(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    events = simulate_game(random.Random(5), PLAYERS)
    synced: list[int] = []
    real = os.fdatasync
    monkeypatch.setattr(os, "fdatasync", lambda fd: (synced.append(fd), real(fd))[1])
    store = EventStore.open(tmp_path / "s.db", clock=Clock())
    opened = len(synced)
    mark = store._mark._fd  # type: ignore[union-attr]  # noqa: SLF001 - the mark's flushes
    for event in events[:-1]:
        store.append(event)
    assert synced[opened:].count(mark) == (len(events) - 1) // 16
    store.append(events[-1])  # the game ends: its last event is flushed at once
    assert synced[opened:].count(mark) == (len(events) - 1) // 16 + 1
    store.close()


@pytest.mark.slow
def test_random_damage_always_starts_and_loses_nothing_silently() -> None:
    """The quick mode of benchmarks/store/damage.py (which runs 1,000 trials)."""
    from benchscripts import load_benchmark

    store_damage = load_benchmark("store/damage")
    tally, failures = store_damage.run(24, seed=7)
    assert failures == []
    assert (tally.starts, tally.silent, tally.changed) == (24, 0, 0)
    # The trials did damage something, and the second copy kept every row (issue 60).
    assert tally.repaired > 0 and tally.reported == 0
    assert tally.kept + tally.reported == tally.rows


def test_rows_after_an_unreadable_page_are_kept(tmp_path: Path, match_log) -> None:
    path = tmp_path / "s.db"
    fill(path, match_log).close()
    _, leaves = leaf_ranges(path)
    page, cells = leaves[1]  # the second leaf of events: rows after it lie on later leaves
    data = bytearray(path.read_bytes())
    data[(page - 1) * 4096:page * 4096] = b"\xff" * 4096
    path.write_bytes(bytes(data))
    with EventStore.open(path, clock=Clock()) as store:
        report = store.recovery
        assert report is not None
        after = sum(c for _, c in leaves[2:])
        kept_ids = {e.id for e in store.events(include_undone=True)}
        assert set(range(len(match_log) - after + 1, len(match_log) + 1)) & kept_ids
        assert sorted([*kept_ids, *(e.id for e in report.lost)]) == \
            list(range(1, len(match_log) + 1))


def test_a_row_whose_checksum_holds_but_the_engine_refuses_is_damage(tmp_path: Path) -> None:
    from firmware.store.mark import mark_path
    from firmware.store.schema import row_crc

    path = tmp_path / "s.db"
    events = simulate_game(random.Random(5), PLAYERS)[:12]
    fill(path, events).close()
    forged = json.dumps({"type": "deal", "dealer": "Ann"})  # a deal in the middle of the play
    with sqlite3.connect(path) as conn:
        match, at = conn.execute("SELECT match, at FROM events WHERE id = 12").fetchone()
        conn.execute("UPDATE events SET line = ?, crc = ? WHERE id = 12",
                     (forged, row_crc(12, match, at, forged)))
    conn.close()
    mark_path(path).unlink()  # so only the replay can tell: the mark would see the new crc
    copy_path(path).unlink()  # and the chain cannot go back to the second copy
    with EventStore.open(path, clock=Clock()) as store:
        assert store.recovery is not None and store.recovery.lost == ()
        assert [aside.id for aside in store.recovery.set_aside] == [12]  # kept, out of play
        assert [json.loads(line) for line in store.lines] == events[:11]


def test_a_row_forged_with_its_checksum_goes_back_to_the_second_copy(tmp_path: Path) -> None:
    """The same forged row with its second copy intact: the chain breaks at it, the copy's
    chain holds, so the copy wins and the forged row is gone (issue 60 item 3)."""
    from firmware.store.schema import row_crc

    path = tmp_path / "s.db"
    events = simulate_game(random.Random(5), PLAYERS)[:12]
    fill(path, events).close()
    forged = json.dumps({"type": "deal", "dealer": "Ann"})
    with sqlite3.connect(path) as conn:
        match, at = conn.execute("SELECT match, at FROM events WHERE id = 12").fetchone()
        conn.execute("UPDATE events SET line = ?, crc = ? WHERE id = 12",
                     (forged, row_crc(12, match, at, forged)))
    conn.close()
    with EventStore.open(path, clock=Clock()) as store:
        assert store.recovery is not None and store.recovery.changed is not None
        assert "event id 12 was changed" in store.recovery.words()
        assert [json.loads(line) for line in store.lines] == events


def test_a_damaged_game_result_in_history_is_rebuilt_from_the_events(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    events = simulate_game(random.Random(5), PLAYERS)
    fill(path, events).close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE games SET result = 'bogus', winner = 'Zed'")
    conn.close()
    with EventStore.open(path, clock=Clock()) as store:  # rebuilt in place: no file moved
        assert store.recovery is None and "rebuilt" in " ".join(store.notes)
        (match,) = store.matches()
        truth = Game.replay(events)
        assert [(g.winner, g.result) for g in match.games] == [(truth.winner, truth.result)]
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT winner, result FROM games").fetchall() == \
            [(truth.winner, truth.result)]
    conn.close()


def test_a_recovery_is_said_to_the_table_in_words(tmp_path: Path) -> None:
    from firmware.store.eventstore import LostEvent, Recovery

    kept_all = Recovery(tmp_path / "e", tmp_path / "e.damaged", 40, None, "torn -wal")
    assert kept_all.words().endswith("repaired: every event was kept.")
    lost = (LostEvent(41, ((2, 1),), "missing"), LostEvent(42, ((2, 1),), "missing"))
    said = Recovery(tmp_path / "e", tmp_path / "e.damaged", 40, 41, "checksum", lost).words()
    assert "2 events of match 2 game 1 could not be kept" in said
