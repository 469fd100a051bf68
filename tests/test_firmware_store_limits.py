"""The store and its neighbours at their limits (issue 51, items 4-6): a full card, a
settings file nested too deeply, store paths no file can live at, a log line with no end,
and numbers and names no table makes."""

from __future__ import annotations

import json
import random
import warnings
from pathlib import Path
from typing import Any

import pytest
from storekit import Clock

from engine.game import Game
from engine.records import LogError
from engine.simulate import simulate_game
from firmware.store.eventstore import EventStore, StorageFull, StoreError


def fill_until_full(store: EventStore, events: list[dict[str, Any]]) -> int:
    """Appends ``events`` until the card is full; returns how many were acknowledged."""
    pages = store._conn.execute("PRAGMA page_count").fetchone()[0]
    store._conn.execute(f"PRAGMA max_page_count = {pages}")  # the card is full from here
    for n, event in enumerate(events):
        try:
            store.append(event)
        except StorageFull as exc:
            assert str(exc).startswith("storage full") and "nothing was stored" in str(exc)
            return n
    raise AssertionError("the card never filled")


def test_a_full_card_stores_nothing_half_and_takes_events_again_when_there_is_room(
        tmp_path: Path) -> None:
    events = simulate_game(random.Random(1), ["Ann", "Bob"])
    store = EventStore.open(tmp_path / "s.db", clock=Clock())
    store.append(events[0])
    acknowledged = 1 + fill_until_full(store, events[1:])
    assert len(store.lines) == acknowledged  # the refused event left no trace
    assert store.game.to_json() == Game.replay(events[:acknowledged]).to_json()
    with pytest.raises(StorageFull):
        store.undo()
    assert len(store.lines) == acknowledged
    store._conn.execute("PRAGMA max_page_count = 1000000")  # space freed: no restart
    store.append(events[acknowledged])
    store.close()
    with EventStore.open(tmp_path / "s.db", clock=Clock()) as again:
        assert again.recovery is None
        assert [json.loads(line) for line in again.lines] == events[:acknowledged + 1]


def test_the_page_answers_507_on_a_full_card_and_the_board_goes_on(tmp_path: Path) -> None:
    pytest.importorskip("httpx")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
        from starlette.testclient import TestClient
    from webrig import PIN, Device, scripted_game

    from firmware.web.server import create_app

    device = Device(tmp_path / "events.sqlite3")
    device.start()
    _, steps = scripted_game()
    device.play(steps[:12])
    device.run_thread()
    client = TestClient(create_app(device.hub, pin=PIN), client=("127.0.0.1", 50000),
                        base_url="http://192.168.1.5:8080")
    count = 0

    def adjust() -> tuple[int, dict[str, Any]]:
        nonlocal count
        count += 1
        body = {"action": "adjust", "player": "Ann", "points": 1,
                "rev": device.state()["rev"], "nonce": f"full-{count:04d}"}
        reply = client.post("/api/action", json=body, headers={"X-Pin": PIN})
        return reply.status_code, reply.json()

    try:
        with device.lock:
            pages = device.store._conn.execute("PRAGMA page_count").fetchone()[0]
            device.store._conn.execute(f"PRAGMA max_page_count = {pages}")
        answers = [adjust() for _ in range(80)]
        codes = [code for code, _ in answers]
        assert set(codes) <= {200, 507} and 507 in codes  # never a 500
        refused = next(body for code, body in answers if code == 507)
        assert refused["error"].startswith("storage full")
        stored = device.lines()
        assert sum(json.loads(line)["type"] == "adjust" for line in stored) == codes.count(200)
        assert any(f.text.startswith("storage full") for f in device.said)  # said aloud
        with device.lock:
            device.store._conn.execute("PRAGMA max_page_count = 1000000")
        assert adjust()[0] == 200  # space freed: taken again, no restart
    finally:
        client.close()
        device.close()


def test_a_settings_file_nested_too_deeply_is_a_warning(tmp_path: Path) -> None:
    from firmware.web.inputs import TableSettings
    from firmware.web.settings import SettingsFile

    config = TableSettings(("Ann", "Bob"), {}, ((0, 114, 178), (230, 159, 0)))
    path = tmp_path / "events.settings.json"
    for text in ("[" * 100_000, "[" * 60_000, "{\"a\": " * 30_000):
        path.write_text(text)
        settings = SettingsFile(path, config)
        assert settings.load() is None  # before: RecursionError at every start
        assert settings.problem is not None and str(path) in settings.problem


@pytest.mark.parametrize("where", ["/dev/null", "/proc/self/ev.sqlite3", "/sys/ev.sqlite3",
                                   "/dev/zero"])
def test_a_store_path_no_file_can_live_at_is_a_clear_error(where: str) -> None:
    for readonly in (False, True):
        with pytest.raises(StoreError, match=repr(where).replace("/", "/")) as caught:
            EventStore.open(where, readonly=readonly)
        assert "unable to open" not in str(caught.value)  # SQLite's words name no path


def test_a_store_path_inside_a_file_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "hostname").write_text("pi\n")
    with pytest.raises(StoreError, match="is a file, not a folder"):
        EventStore.open(tmp_path / "hostname" / "ev.sqlite3")


def test_replay_reads_a_line_with_no_end_in_bounded_memory(tmp_path: Path) -> None:
    from firmware.commands.gamelog import MAX_LINE, load_game

    if Path("/dev/zero").exists():
        with pytest.raises(LogError, match="line 1 .*longer than"):
            load_game(Path("/dev/zero"))  # before: grew to gigabytes
    events = simulate_game(random.Random(2), ["Ann", "Bob"])[:3]
    log = tmp_path / "long.jsonl"
    log.write_bytes("\n".join(json.dumps(e) for e in events).encode() + b"\n"
                    + b" " * (MAX_LINE + 10) + b"\n")
    with pytest.raises(LogError, match="line 4 .*longer than") as caught:
        load_game(log)
    assert caught.value.event == 3
    fine = tmp_path / "fine.jsonl"
    fine.write_text("\r\n".join(json.dumps(e) for e in events) + "\r\n")
    assert load_game(fine).to_json() == Game.replay(events).to_json()


@pytest.mark.parametrize(("event", "words"), [
    ({"type": "new_game", "players": ["Ann", "Bob"], "rules": {"best_of": 10**30 + 1}},
     "best_of"),
    ({"type": "new_game", "players": ["Ann", "Bob"], "rules": {"first_to": 10**40}},
     "first_to"),
    ({"type": "new_game", "players": ["Ann", "Bob"], "rules": {"game_values": [10**20, 1, 1]}},
     "game_values"),
    ({"type": "new_game", "players": ["A" * 100_000, "Bob"]}, "at most 64 characters"),
])
def test_numbers_and_names_no_table_makes_are_refused_at_the_log(
        tmp_path: Path, event: dict[str, Any], words: str) -> None:
    with EventStore.open(tmp_path / "s.db", clock=Clock()) as store:
        with pytest.raises(LogError, match=words) as caught:
            store.append(event)
        assert len(str(caught.value)) < 400  # the refusal names the value, cut short
        assert store.last_id == 0


def test_an_adjust_of_huge_points_or_text_is_refused(tmp_path: Path) -> None:
    events = simulate_game(random.Random(2), ["Ann", "Bob"])[:3]
    with EventStore.open(tmp_path / "s.db", clock=Clock()) as store:
        for event in events:
            store.append(event)
        for bad, words in (({"points": 10**20}, "adjust.points"),
                           ({"points": 2, "reason": "x" * 10_000}, "adjust.reason"),
                           ({"points": 2, "player": "B" * 100_000}, "adjust.player")):
            with pytest.raises(LogError, match=words):
                store.append({"type": "adjust", "player": "Ann", **bad})
        store.append({"type": "adjust", "player": "Ann", "points": 2, "reason": "miscount"})
        assert store.last_id == 4
