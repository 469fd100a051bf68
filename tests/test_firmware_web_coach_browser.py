"""The coach view in a real headless Chromium at phone size: plots present and labelled, and a
throw to the crib told by tapping cards. Skips without Playwright or /usr/bin/chromium."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_engine_review import DEAL
from test_firmware_coach import stored

# Skips this module too where Playwright or Debian's chromium is missing.
from test_firmware_web_browser import Shots, expect
from webrig import PIN, Device, served

pytestmark = pytest.mark.slow
GAMES = Path(__file__).parent / "games"


@pytest.fixture
def board(tmp_path: Path) -> Iterator[tuple[Device, str]]:
    lines = (GAMES / "two-players.jsonl").read_text().splitlines()
    path = stored(tmp_path / "events.sqlite3", [lines, DEAL[:-1]])
    device = Device(path)
    with served(device, store_path=path) as url:
        yield device, url


def test_the_coach_at_phone_size(board: tuple[Device, str], page: Any, tmp_path: Path) -> None:
    device, url = board
    shots = Shots(tmp_path)
    page.goto(url)
    expect(page.locator("#link")).to_have_text("live")
    page.locator("#coach-box summary").click()
    race = page.locator("#coach-race svg")
    expect(race).to_have_attribute("aria-label", "Score race, game 1")
    expect(race.locator("polyline.race")).to_have_count(2)
    expect(page.locator("#coach-deals svg")).to_have_attribute("aria-label", "Points per deal")
    expect(page.locator("#coach-deals rect.bar")).to_have_count(2)  # one deal, two players
    expect(page.locator("#coach-stats select#coach-player option")).to_have_text(["Ann", "Bob"])
    hands = page.locator("#plot-hands svg")
    shows = sum('"show", "player": "Ann"' in line for line in (GAMES / "two-players.jsonl")
                .read_text().splitlines()) + 1  # and the deal still being played
    expect(hands).to_have_attribute("aria-label", f"Ann's hands ({shows}) against all hands")
    expect(hands.locator(".axis-label")).to_have_text(["hand score", "share of hands"])
    expect(hands.locator("polyline.all-hands")).to_have_count(1)
    expect(page.locator(".stats-table")).to_contain_text("Games won")
    page.locator("#coach-box").scroll_into_view_if_needed()
    shots(page, "coach-01-plots")

    # Ann tells the board what she threw: 2C and QH, then the PIN once.
    page.locator("#coach-throw [data-card='2C']").click()
    page.locator("#coach-throw [data-card='QH']").click()
    page.locator("#throw-save").click()
    page.locator("#pin").fill(PIN)
    page.locator("#pin-ok").click()
    expect(page.locator("#toast")).to_contain_text("noted for the review: Ann threw 2C QH")
    assert json.loads(device.lines()[-1]) == {"type": "discard", "player": "Ann",
                                              "cards": ["2C", "QH"]}
    expect(page.locator("#coach-review")).to_contain_text("net 20.12 against 20.25 best")
    shots(page, "coach-02-throw-reviewed")
