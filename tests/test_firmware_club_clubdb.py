"""firmware.club.clubdb and firmware.club.outbox: a board's rows refolded by the club server.

No broker here: the rows go straight from a real event store's outbox into the club
database, so every rule about repeats, gaps, forgeries, undo and recovery is tested on
its own (tests/test_firmware_club_broker.py runs the same through Mosquitto).
"""

from __future__ import annotations

import dataclasses
import json
import random
from itertools import count
from pathlib import Path

import pytest

from engine.simulate import simulate_game
from firmware.club.clubdb import ClubDB, ClubDBError
from firmware.club.messages import EventMessage
from firmware.club.outbox import Outbox, OutboxRow
from firmware.store.eventstore import EventStore
from firmware.store.schema import row_crc


def fake_clock(start: float = 1000.0):  # type: ignore[no-untyped-def]
    ticks = count()
    return lambda: start + next(ticks) * 0.5


def played(path: Path, seed: int, players: tuple[str, ...] = ("Ann", "Bob"),
           *, upto: int | None = None, start: float = 1000.0) -> EventStore:
    """A store of one game; ``start``: its clock's first reading (two boards' rows at the
    same moments would be one store copied, which the club refuses)."""
    store = EventStore.open(path, clock=fake_clock(start))
    events = simulate_game(random.Random(seed), players, {"target": 121})
    for event in events[:upto]:
        store.append(event)
    return store


def rows(path: Path, board: str) -> list[EventMessage]:
    outbox = Outbox(path, board=board)
    try:
        pending = outbox.pending(limit=100_000)
        assert pending.store is not None
        return [EventMessage.of(board, pending.store, r) for r in pending.rows]
    finally:
        outbox.close()


def forged(row: EventMessage, **changes: object) -> EventMessage:
    """``row`` with ``changes``, its checksum made again as anyone can (no secret needed)."""
    made = dataclasses.replace(row, **changes)  # type: ignore[arg-type]
    return dataclasses.replace(made, crc=row_crc(made.id, made.match, made.at, made.line))


def ingest(db: ClubDB, messages: list[EventMessage]) -> list[str]:
    with db.batch():
        return [db.ingest(m).status for m in messages]


def expected_games(store: EventStore) -> list[tuple[str, str, list[int]]]:
    return [(g.winner, g.result, list(g.scores)) for m in store.matches() for g in m.games]


@pytest.fixture
def db(tmp_path: Path):  # type: ignore[no-untyped-def]
    club = ClubDB(tmp_path / "club.sqlite3", clock=fake_clock(5000.0))
    yield club
    club.close()


def test_a_whole_game_is_counted_as_the_engine_replays_the_store(tmp_path: Path,
                                                                  db: ClubDB) -> None:
    store = played(tmp_path / "t1.sqlite3", seed=3)
    sent = rows(store.path, "table-1")
    assert set(ingest(db, sent)) == {"kept"}
    games = db.games()
    assert [(g.winner, g.result, list(g.scores)) for g in games] == expected_games(store)
    before = db.report()
    assert ingest(db, sent) == ["repeat"] * len(sent)  # sent twice: nothing changes
    assert db.report()["standings"] == before["standings"]
    assert len(db.games()) == 1
    # The board renamed: the same store's rows under the new name change only the name.
    renamed = [dataclasses.replace(m, board="table-one") for m in sent]
    assert ingest(db, renamed) == ["repeat"] * len(sent)
    assert [b["board"] for b in db.boards()] == ["table-one"] and len(db.games()) == 1


def test_two_boards_with_the_same_row_ids_never_collide(tmp_path: Path, db: ClubDB) -> None:
    one = played(tmp_path / "a.sqlite3", seed=5)
    two = played(tmp_path / "b.sqlite3", seed=5, start=1000.25)  # the same rows and ids
    ingest(db, rows(one.path, "table-1") + rows(two.path, "table-2"))
    games = db.games()
    assert len(games) == 2 and {g.board for g in games} == {"table-1", "table-2"}
    ann = next(r for r in db.report()["standings"] if r["name"] == "Ann")
    assert ann["games"] == 2


def test_a_row_past_a_gap_is_not_kept_and_names_where_to_resend_from(tmp_path: Path,
                                                                     db: ClubDB) -> None:
    store = played(tmp_path / "t.sqlite3", seed=1, upto=10)
    sent = rows(store.path, "t")
    with db.batch():
        assert db.ingest(sent[0]).status == "kept"
        gap = db.ingest(sent[2])
    assert (gap.status, gap.resend_from) == ("gap", 2)
    assert db.last_id(sent[0].store) == 1
    assert ingest(db, sent[1:]) == ["kept"] * 9


def test_rows_that_do_not_fold_are_refused_with_the_engines_reason(tmp_path: Path,
                                                                    db: ClubDB) -> None:
    store = played(tmp_path / "t.sqlite3", seed=2, upto=12)
    sent = rows(store.path, "t")
    ingest(db, sent)
    before = db.report()
    # A forged next row: the first play's card laid again.
    first_play = next(json.loads(m.line) for m in sent if '"play"' in m.line)
    again = forged(sent[-1], id=13, line=json.dumps(first_play))
    with db.batch():
        outcome = db.ingest(again)
    assert outcome.status == "refused" and "the engine refuses it" in outcome.reason
    assert "row 13: the engine refuses it" in db.refusals()[-1]["reason"]
    assert db.last_id(again.store) == 12 and db.report()["standings"] == before["standings"]
    # A row for an older match once a newer one began is refused too.
    later = forged(sent[0], id=13, match=2)
    older = forged(sent[1], id=14, match=1)
    with db.batch():
        assert db.ingest(later).status == "kept"
        refused = db.ingest(older)
    assert refused.reason == "a row for match 1 after match 2 began"


def test_an_undone_ending_takes_the_game_back_and_its_replay_counts_once(tmp_path: Path,
                                                                          db: ClubDB) -> None:
    path = tmp_path / "t.sqlite3"
    store = played(path, seed=4)
    outbox = Outbox(path, board="t")
    first = outbox.pending(limit=10_000)
    outbox.mark_sent(first.rows)
    ending = store.lines[-1]
    store.undo()
    undone = outbox.pending()
    assert [r.undone for r in undone.rows] == [True]  # the undo goes out, nothing else
    def to_message(row: OutboxRow) -> EventMessage:
        return EventMessage.of("t", first.store or "", row)

    ingest(db, [to_message(r) for r in first.rows])
    assert len(db.games()) == 1
    ingest(db, [to_message(r) for r in undone.rows])
    assert db.games() == []
    outbox.mark_sent(undone.rows)
    store.append(ending)
    again = outbox.pending()
    assert [(r.id, r.undone) for r in again.rows] == [(store.last_id, False)]
    ingest(db, [to_message(r) for r in again.rows])
    assert [(g.winner, list(g.scores)) for g in db.games()] == \
        [(w, s) for w, _, s in expected_games(store)]
    outbox.close()


def test_rows_that_contradict_what_is_held_are_refused_and_change_nothing(
        tmp_path: Path, db: ClubDB) -> None:
    """Issue 51: no board sends these, so each is someone else speaking for it."""
    store = played(tmp_path / "t.sqlite3", seed=6, upto=30)
    sent = rows(store.path, "t")
    ingest(db, sent)
    before = (db.report()["standings"], db.match_lines(sent[0].store, 1))
    cases = [
        # A changed row under a held id (its checksum made again: no secret needed).
        (forged(sent[20], at=sent[20].at + 60), "differs from the row held under its id"),
        # The checksum not the row's: a new row and a held one.
        (dataclasses.replace(sent[20], crc=sent[20].crc ^ 1), "checksum mismatch"),
        (dataclasses.replace(store_next_row(store, sent), crc=1), "checksum mismatch"),
        # An earlier row undone while later rows are live.
        (dataclasses.replace(sent[10], undone=True), "undone out of order: row 12 after it"),
    ]
    for row, reason in cases:
        with db.batch():
            outcome = db.ingest(row)
        assert outcome.status == "refused" and reason in outcome.reason, outcome
        assert reason in db.refusals()[-1]["reason"]
    assert (db.report()["standings"], db.match_lines(sent[0].store, 1)) == before
    assert db.last_id(sent[0].store) == 30
    # The newest row undone is what a board does; sent live again it is refused.
    assert ingest(db, [dataclasses.replace(sent[29], undone=True)]) == ["kept"]
    with db.batch():
        again = db.ingest(sent[29])
    assert again.status == "refused" and "an undo is never taken back" in again.reason
    assert db.match_lines(sent[0].store, 1) == [m.line for m in sent[:29]]


def store_next_row(store: EventStore, sent: list[EventMessage]) -> EventMessage:
    """The row a board would send next: a legal event, id one past what is held."""
    events = simulate_game(random.Random(6), ("Ann", "Bob"), {"target": 121})
    line = json.dumps(events[len(sent)])
    return forged(sent[-1], id=len(sent) + 1, line=line)


def test_an_undo_into_a_finished_match_is_refused(tmp_path: Path, db: ClubDB) -> None:
    path = tmp_path / "t.sqlite3"
    store = played(path, seed=4)
    store.start_match(simulate_game(random.Random(5), ("Cy", "Di"), {"target": 121})[0])
    sent = rows(path, "t")
    ingest(db, sent)
    assert len(db.games()) == 1
    ending = next(m for m in reversed(sent) if m.match == 1)
    with db.batch():
        outcome = db.ingest(dataclasses.replace(ending, undone=True))
    assert outcome.status == "refused"
    assert outcome.reason == "undone out of order: its match 1 ended when match 2 began"
    assert len(db.games()) == 1


def test_a_known_board_cannot_write_to_another_boards_store(tmp_path: Path) -> None:
    db = ClubDB(tmp_path / "club.sqlite3", known_boards=frozenset({"table-1", "table-2"}))
    try:
        store = played(tmp_path / "t.sqlite3", seed=4)
        sent = rows(store.path, "table-1")
        ingest(db, sent)
        assert len(db.games()) == 1
        # table-2's own topic, table-1's store: its newest row undone, checksum and all.
        hijack = dataclasses.replace(sent[-1], board="table-2", undone=True)
        with db.batch():
            outcome = db.ingest(hijack)
        assert outcome.status == "refused"
        assert f"store {sent[0].store} belongs to board 'table-1': board 'table-2' cannot" \
            in outcome.reason
        assert len(db.games()) == 1 and db.owner(sent[0].store) == "table-1"
        # A board the club no longer knows (renamed) hands its store on.
        renamed = ClubDB(tmp_path / "club.sqlite3", known_boards=frozenset({"table-one"}))
        try:
            assert ingest(renamed, [dataclasses.replace(m, board="table-one")
                                    for m in sent]) == ["repeat"] * len(sent)
            assert renamed.owner(sent[0].store) == "table-one"
        finally:
            renamed.close()
    finally:
        db.close()


def test_rounds_say_which_games_belong_to_them(tmp_path: Path, db: ClubDB) -> None:
    first = db.start_round("Round 1")
    ingest(db, rows(played(tmp_path / "a.sqlite3", seed=7).path, "a"))
    db.close_round()
    ingest(db, rows(played(tmp_path / "b.sqlite3", seed=8, start=3000.0).path, "b"))
    second = db.start_round()
    assert second.name == "round 2" and db.open_round() == second
    assert [g.round for g in db.games()] == [first.id, None]
    assert sum(r["games"] for r in db.report(rounds=[first.id])["standings"]) == 2
    db.close_round()
    with pytest.raises(ClubDBError, match="no round is open"):
        db.close_round()


def test_the_outbox_survives_a_restart_and_rewinds_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite3"
    store = played(path, seed=9, upto=20)
    outbox = Outbox(path, board="t")
    batch = outbox.pending(limit=8)
    assert [r.id for r in batch.rows] == list(range(1, 9)) and batch.more
    outbox.mark_sent(batch.rows)
    name = batch.store
    outbox.close()
    reopened = Outbox(path, board="renamed")  # a renamed board keeps its store's id
    rest = reopened.pending(limit=100)
    assert [r.id for r in rest.rows] == list(range(9, 21)) and rest.store == name
    reopened.rewind(5)
    assert [r.id for r in reopened.pending(limit=100).rows][:2] == [5, 6]
    reopened.close()
    store.close()


def test_the_cursor_is_written_at_most_once_a_second_and_on_close(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite3"
    played(path, seed=9, upto=6).close()
    now = [0.0]
    outbox = Outbox(path, board="t", persist_s=1.0, clock=lambda: now[0])

    def written() -> int:
        reader = Outbox(path, board="t")
        try:
            return len(reader.pending(limit=100).rows)
        finally:
            reader._conn.close()  # a reader only: nothing of its own to write

    rows_ = outbox.pending(limit=2).rows
    outbox.mark_sent(rows_)            # the first write goes out at once
    assert written() == 4
    outbox.mark_sent(outbox.pending(limit=2).rows)
    assert written() == 4              # within the second: kept in memory, sent again if lost
    now[0] = 1.5
    outbox.persist_if_due()
    assert written() == 2
    outbox.mark_sent(outbox.pending(limit=2).rows)
    outbox.close()                     # closing writes what is left
    assert written() == 0


def damage_row(path: Path, row_id: int) -> None:
    """Cuts one row's line short on the card: its checksum no longer holds. The store's
    second copy, where it keeps one (issue 60), goes too: the row is lost for good."""
    import importlib
    import sqlite3

    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE events SET line = substr(line, 1, 10) WHERE id = ?", (row_id,))
    conn.close()
    try:
        copy_path = importlib.import_module("firmware.store.copy").copy_path
    except (ImportError, AttributeError):
        return
    Path(copy_path(path)).unlink(missing_ok=True)


def test_a_row_a_store_repair_lost_stops_counting_and_leaves_no_gap(tmp_path: Path,
                                                                     db: ClubDB) -> None:
    path = tmp_path / "t.sqlite3"
    events = simulate_game(random.Random(10), ("Ann", "Bob"), {"target": 121})
    store = played(path, seed=10, upto=30)
    store.close()
    ingest(db, rows(path, "t"))
    damage_row(path, 30)  # row 30 goes bad on the card
    repaired = EventStore.open(path, clock=fake_clock(2000.0))
    assert repaired.recovery is not None and [e.id for e in repaired.recovery.lost] == [30]
    repaired.append(events[29])  # the players lay that card again: row 31
    sent = rows(path, "t")       # the repair kept no outbox: everything goes again
    assert [(m.id, m.lost) for m in sent[-2:]] == [(30, True), (31, False)]
    assert ingest(db, sent) == ["repeat"] * 29 + ["kept", "kept"]
    assert db.match_lines(sent[0].store, 1) == list(repaired.lines)
    assert db.last_id(sent[0].store) == 31
    repaired.close()


def test_a_board_renamed_before_its_store_is_repaired_is_still_one_store(
        tmp_path: Path, db: ClubDB) -> None:
    path = tmp_path / "t.sqlite3"
    played(path, seed=10).close()
    first = rows(path, "table-1")
    assert set(ingest(db, first)) == {"kept"} and len(db.games()) == 1
    damage_row(path, len(first))  # the game's last row goes bad on the card
    repaired = EventStore.open(path, clock=fake_clock(2000.0))
    assert repaired.recovery is not None
    again = rows(path, "table-one")  # renamed meanwhile: the repair kept no outbox
    assert {m.store for m in again} == {first[0].store}
    # The game was counted: its last row, lost on the card, stays the club's (issue 60).
    assert ingest(db, again) == ["repeat"] * (len(first) - 1) + ["refused"]
    assert len(db.boards()) == 1 and len(db.games()) == 1 and len(db.flags()) == 1
    repaired.close()


def test_a_store_that_lost_its_first_row_keeps_its_id_and_a_new_store_makes_its_own(
        tmp_path: Path, db: ClubDB) -> None:
    path = tmp_path / "t.sqlite3"
    played(path, seed=11, upto=12).close()
    first = rows(path, "table-1")
    damage_row(path, 1)
    repaired = EventStore.open(path, clock=fake_clock(2000.0))
    assert repaired.recovery is not None and repaired.recovery.lost[0].id == 1
    again = rows(path, "table-one")
    assert {m.store for m in again} == {first[0].store}
    # nothing of the match folds without its new_game: lost, or kept set aside (undone)
    assert all(m.lost or m.undone for m in again)
    repaired.close()
    # The store thrown away and a new one begun beside the damaged copy: its own id.
    for leftover in tmp_path.glob("t.sqlite3*"):
        if ".damaged-" not in leftover.name:
            leftover.unlink()
    with EventStore.open(path, clock=fake_clock(3000.0)) as fresh:
        for event in simulate_game(random.Random(12), ("Ann", "Bob"), {"target": 121})[:5]:
            fresh.append(event)
    assert {m.store for m in rows(path, "table-1")} != {first[0].store}


def test_undos_of_rows_the_broker_may_have_passed_on_go_newest_first(tmp_path: Path,
                                                                       db: ClubDB) -> None:
    """Row 11 reached the server but its acknowledgement never came back; then 11 and 10
    were undone. The undo of 10 must not reach the server before 11's."""
    path = tmp_path / "t.sqlite3"
    store = played(path, seed=4, upto=11)
    outbox = Outbox(path, board="t")
    first = outbox.pending(limit=10)
    outbox.mark_sent(first.rows)
    eleventh = outbox.pending(limit=10)
    outbox.mark_attempted(eleventh.rows)  # handed to the broker, never acknowledged
    sid = first.store or ""
    ingest(db, [EventMessage.of("t", sid, r) for r in first.rows + eleventh.rows])
    store.undo()
    store.undo()
    again = outbox.pending()
    assert [(r.id, r.undone) for r in again.rows][:2] == [(11, True), (10, True)]
    assert set(ingest(db, [EventMessage.of("t", sid, r) for r in again.rows])) <= \
        {"kept", "repeat"}
    assert db.match_lines(sid, 1) == list(store.lines)
    outbox.close()
