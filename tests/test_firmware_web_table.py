"""The phone page's table actions over HTTP: a misdeal after any deal, a score adjusted by
hand, a match downloaded as its game log, and what the page is told for each."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("httpx")

import httpx  # noqa: E402

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient  # noqa: E402
from webrig import PIN, Device, scripted_game  # noqa: E402

from engine.game import Game  # noqa: E402
from firmware.demo.scripted_table import Step  # noqa: E402
from firmware.web.server import create_app  # noqa: E402

LOCAL = ("127.0.0.1", 50000)


class Page:
    """A device after its first deal's crib (Bob deals next), and the page's app over it."""

    def __init__(self, path: Path) -> None:
        self.device = Device(path)
        self.device.start()
        _, steps = scripted_game()
        crib = next(i for i, s in enumerate(steps) if s.seen and
                    type(s.seen[0]).__name__ == "ZoneComplete" and s.seen[0].zone == "crib")
        self.device.play(steps[:crib + 1])
        self.device.play([Step()] * 3)
        assert self.device.store.game.phase == "deal"
        self.device.run_thread()
        self.client = TestClient(create_app(self.device.hub, pin=PIN, store_path=path),
                                 client=LOCAL, base_url="http://192.168.1.5:8080")
        self.count = 0

    def act(self, action: str, **fields: Any) -> httpx.Response:
        self.count += 1
        body = {"action": action, "rev": self.device.state()["rev"],
                "nonce": f"table-nonce-{self.count:04d}", **fields}
        reply: httpx.Response = self.client.post("/api/action", json=body,
                                                 headers={"X-Pin": PIN})
        return reply

    def events(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.device.lines()]


@pytest.fixture
def page(tmp_path: Path) -> Iterator[Page]:
    found = Page(tmp_path / "events.sqlite3")
    yield found
    found.client.close()
    found.device.close()


def test_a_misdeal_after_a_whole_deal_is_taken_from_the_page(page: Page) -> None:
    state = page.device.state()
    assert state["misdeal_allowed"] and state["next"] == "the deal (Bob deals)"
    reply = page.act("misdeal")
    assert reply.status_code == 200, reply.text
    assert page.events()[-2:] == [{"type": "deal"}, {"type": "misdeal"}]
    said = [f["text"] for f in reply.json()["feedback"]]
    assert "misdeal: Bob deals again; Ann pegs 2" in said
    state = page.device.wait_for(lambda s: s["phase"] == "starter")
    assert state["misdeal_allowed"]  # again, until the starter is cut


def test_a_score_adjusted_on_the_page_is_stored_said_and_listed(page: Page) -> None:
    before = page.device.store.game.sides[0].score
    reply = page.act("adjust", player="Ann", points=3)
    assert reply.status_code == 200, reply.text
    assert page.events()[-1] == {"type": "adjust", "player": "Ann", "points": 3,
                                 "reason": "by hand"}
    said = [f["text"] for f in reply.json()["feedback"]]
    assert any(t.startswith("Ann pegs 3 by hand; Ann ") for t in said)
    state = page.device.wait_for(lambda s: s["sides"][0]["score"] == before + 3)
    assert state["scores"][0]["points"] == 3 and state["scores"][0]["player"] == "Ann"
    for bad in (0, 30, -30, "3", 2.5):
        refused = page.act("adjust", player="Ann", points=bad)
        assert refused.status_code == 400 and "points must be a whole number" in \
            refused.json()["error"]
    assert page.act("adjust", player="Zed", points=2).status_code == 400
    bob = page.device.store.game.sides[1].score
    assert bob < 29  # the scripted game's first deal
    refused = page.act("adjust", player="Bob", points=-(bob + 1))  # below 0: the engine's
    assert refused.status_code == 422 and "below 0" in refused.json()["error"]
    anonymous = page.client.post("/api/action", json={
        "action": "adjust", "player": "Ann", "points": 2, "rev": page.device.state()["rev"],
        "nonce": "table-nonce-anon"})
    assert anonymous.status_code == 401


def test_the_scores_carry_their_deal_and_dealer_for_the_pages_headings(page: Page) -> None:
    scores = page.device.state()["scores"]
    assert scores and {s["deal"] for s in scores} == {1}
    assert {s["dealer"] for s in scores} == {page.device.store.game.dealer}


def test_the_page_downloads_the_match_as_its_game_log(page: Page) -> None:
    reply = page.client.get("/api/export")
    assert reply.status_code == 200
    assert reply.headers["content-disposition"] == \
        'attachment; filename="cribbage-match-1.jsonl"'
    lines = reply.text.splitlines()
    assert lines == page.device.lines()
    assert Game.replay(lines).sides == page.device.store.game.sides
    assert page.client.get("/api/export?match=7").status_code == 404
    assert page.client.get("/api/export?match=x").status_code == 400


def test_the_open_match_is_described_for_the_new_match_question(page: Page) -> None:
    words = page.device.state()["open_match"]
    assert words.startswith("the open match ends here and stays in the history (0 games "
                            "finished); the game in progress (Ann ")
