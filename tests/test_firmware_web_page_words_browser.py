"""The phone page's words and tap targets in a real headless Chromium at 390 px: the coach
never prints "null", two matches of the same players are told apart, a deal in progress is
said in a player's words, and every card button is a 44 px target with each suit on its own
rows. Skips without Playwright or /usr/bin/chromium."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_engine_review import DEAL
from test_firmware_coach import stored

# Skips this module too where Playwright or Debian's chromium is missing.
from test_firmware_web_browser import Shots, expect
from webrig import Device, served

pytestmark = pytest.mark.slow


@pytest.fixture
def board(tmp_path: Path) -> Iterator[tuple[Device, str]]:
    """Two matches of Ann and Bob: the first with one deal shown and no game finished, the
    second a deal in progress (played, nothing shown yet)."""
    path = stored(tmp_path / "events.sqlite3", [DEAL, DEAL[:8]],
                  at=[1.80e9 + 60 * k for k in range(40)])
    device = Device(path)
    with served(device, store_path=path) as url:
        yield device, url


def test_the_page_never_prints_null_and_tells_matches_apart(
        board: tuple[Device, str], page: Any, tmp_path: Path) -> None:
    _, url = board
    shots = Shots(tmp_path)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(url)
    expect(page.locator("#link")).to_have_text("live")
    lines = page.locator("#history li")
    expect(lines).to_have_count(2)
    first, second = lines.nth(0).inner_text(), lines.nth(1).inner_text()
    assert first != second
    assert first.startswith("Match 2 · ") and second.startswith("Match 1 · ")
    assert "no game finished" in first

    page.locator("#coach-box summary").click()
    expect(page.locator("#coach-stats h3")).to_have_text(["Best hands"])  # no head to head yet
    expect(page.locator("#coach-review li").first).to_contain_text("pegged")
    shots(page, "words-01-coach")
    text = page.locator("main").inner_text()
    assert "null" not in text and "None" not in text and "undefined" not in text
    review = page.locator("#coach-review").inner_text()
    assert "not all laid" not in review and "scored not counted" not in review
    assert "hand not shown yet" in review or "not counted yet" in review


def test_every_card_button_is_a_44_px_target_and_each_suit_starts_its_own_row(
        board: tuple[Device, str], page: Any) -> None:
    _, url = board
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(url)
    page.locator("#manual-box summary").click()
    page.locator("#coach-box summary").click()
    expect(page.locator("#coach-throw button[data-card]").first).to_be_visible()
    for deck in ("#deck", "#coach-throw .deck"):
        boxes = page.eval_on_selector_all(
            f"{deck} button[data-card]",
            "bs => bs.map(b => { const r = b.getBoundingClientRect();"
            " return [b.dataset.card, r.width, r.height, r.top]; })")
        assert boxes, deck
        assert min(w for _, w, _, _ in boxes) >= 44 and min(h for _, _, h, _ in boxes) >= 44
        rows: dict[float, set[str]] = {}
        for card, _, _, top in boxes:
            rows.setdefault(round(top), set()).add(card[-1])
        assert all(len(suits) == 1 for suits in rows.values()), (deck, rows)
    summaries = page.eval_on_selector_all(
        "summary", "ss => ss.map(s => s.getBoundingClientRect().height)")
    assert min(h for h in summaries if h) >= 44  # those shown
