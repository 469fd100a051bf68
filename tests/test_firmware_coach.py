"""The coach from the event store: ``stats`` and ``review``, the page's read-only routes, and
a throw to the crib told through the page."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from test_engine_review import ANN_THREW, DEAL
from webrig import PIN, Device

from firmware.commands.cli import main
from firmware.store.eventstore import EventStore
from firmware.web.server import create_app

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

GAMES = Path(__file__).parent / "games"


def stored(path: Path, matches: Sequence[Sequence[Any]], *, at: Sequence[float] = ()) -> Path:
    """A store holding each match's log, its rows stamped with ``at`` (in order) if given."""
    times = iter(at)
    with EventStore.open(path, clock=lambda: next(times, 1.0e9)) as store:
        for lines in matches:
            store.start_match(lines[0])
            for line in lines[1:]:
                store.append(line)
    return path


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_stats_and_review_of_a_deal_counted_by_hand(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = stored(tmp_path / "s.sqlite3", [[*DEAL, ANN_THREW]])
    code, out, err = cli(capsys, "stats", "--store", str(path), "--json")
    assert (code, err) == (0, "")
    ann, bob = json.loads(out)["players"]
    assert (ann["name"], ann["hand_average"], ann["crib_average"], ann["pegging_average"]) == \
        ("Ann", 29, 8, 1)
    assert (bob["hand_average"], bob["pegging_average"]) == (11, 4)
    code, out, _ = cli(capsys, "stats", "--store", str(path))
    assert "Ann: 0 games, 0 won" in out
    assert "per deal: hand 29.00, crib 8.00 (as dealer), pegging 1.00" in out
    assert "throws: 0.13 points a deal given away against the best discard" in out
    code, out, _ = cli(capsys, "review", "--store", str(path), "--json")
    review = json.loads(out)
    (deal,) = review["deals"]
    assert [p["thrown"] for p in deal["players"]] == [["2C", "QH"], ["KC", "KD"]]
    assert deal["players"][0]["best"]["keep"] == ["5C", "5H", "5S", "QH"]
    code, out, _ = cli(capsys, "review", "--store", str(path))
    assert "Ann: kept 5C 5H 5S JD, scored 29 (expected 16.52); pegged 1, gave 4; threw 2C " \
           "QH: net 20.12 against 20.25 for keeping 5C 5H 5S QH" in out


def test_a_period_counts_the_games_begun_in_it(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    lines = (GAMES / "two-players.jsonl").read_text().splitlines()
    second = next(i for i, line in enumerate(lines) if i and '"new_game"' in line)
    november = datetime(2026, 11, 1).timestamp()
    december = datetime(2026, 12, 1).timestamp()
    times = [november] * second + [december] * (len(lines) - second)
    path = stored(tmp_path / "s.sqlite3", [lines], at=times)
    code, out, _ = cli(capsys, "stats", "--store", str(path), "--since", "2026-11-15", "--json")
    assert [(p["name"], p["games"], p["wins"]) for p in json.loads(out)["players"]] == \
        [("Ann", 1, 0), ("Bob", 1, 1)]
    code, out, _ = cli(capsys, "stats", "--store", str(path), "--until", "2026-11-15", "--json")
    assert [(p["name"], p["games"], p["wins"]) for p in json.loads(out)["players"]] == \
        [("Ann", 1, 1), ("Bob", 1, 0)]


@pytest.mark.parametrize(("argv", "message"), [
    (["stats", "--since", "last week"],
     "--since must be a date like 2026-11-01 or 2026-11-01T19:30, not 'last week'"),
    (["stats", "--player", "Zed"], "no games of 'Zed' in the store"),
    (["review", "--match", "7"], "no match 7 in the store (matches: 1)"),
])
def test_bad_requests_are_one_line_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          argv: list[str], message: str) -> None:
    path = stored(tmp_path / "s.sqlite3", [DEAL])
    code, out, err = cli(capsys, *argv, "--store", str(path))
    assert (code, out) == (2, "")
    assert err == f"cribbage-board {argv[0]}: {message}\n"


@pytest.fixture
def device(tmp_path: Path) -> Iterator[Device]:
    path = stored(tmp_path / "events.sqlite3", [DEAL[:-1]])  # the crib not yet counted
    found = Device(path)
    found.start()
    yield found
    found.close()


def test_the_page_reads_the_coach_and_takes_a_throw(device: Device) -> None:
    app = create_app(device.hub, pin=PIN, store_path=device.store.path)
    client = TestClient(app, client=("127.0.0.1", 5000), base_url="http://127.0.0.1:8080")
    review = client.get("/api/review").json()
    assert [p["thrown"] for p in review["deals"][0]["players"]] == [None, None]
    assert client.get("/api/stats").json()["players"][0]["name"] == "Ann"
    assert client.get("/api/review?match=x").status_code == 400

    assert client.get("/api/stats?since=yesterday").json() == {
        "error": "since must be a date like 2026-11-01 or 2026-11-01T19:30, not 'yesterday'"}
    device.run_thread()

    def throw(cards: list[str], nonce: str) -> Any:
        body = {"action": "discard", "player": "Ann", "cards": cards,
                "rev": device.state()["rev"], "nonce": nonce}
        return client.post("/api/action", json=body, headers={"X-Pin": PIN})

    refused = throw(["5C", "QH"], "nonce-0001")
    assert refused.status_code == 422
    assert "Ann cannot have thrown 5C: it was laid in the play" in refused.json()["error"]
    taken = throw(["2C", "QH"], "nonce-0002")
    assert taken.status_code == 200
    assert any("noted for the review: Ann threw 2C QH to the crib" in f["text"]
               for f in taken.json()["feedback"])
    assert json.loads(device.lines()[-1]) == ANN_THREW
    deal = client.get("/api/review").json()["deals"][0]
    assert deal["players"][0]["choice"]["keep"] == ["5C", "5H", "5S", "JD"]
