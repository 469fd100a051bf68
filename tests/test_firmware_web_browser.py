"""The phone page in a real headless Chromium (Debian's, driven by Playwright) on a phone-sized
screen, against a device whose loop runs on its own thread and whose camera is scripted.

Screenshots go to the test's tmp dir, and also to ``$CRIBBAGE_SCREENSHOTS`` when it is set.
Skips without Playwright or without ``/usr/bin/chromium`` (apt package ``chromium``).
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sync_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists():
    pytest.skip("no /usr/bin/chromium (apt install chromium)", allow_module_level=True)

from test_vision_focus import blurred, scene  # noqa: E402
from webrig import PIN, Device, served  # noqa: E402

from engine.simulate import simulate_game  # noqa: E402
from firmware.demo.scripted_table import Step, table_script  # noqa: E402
from vision.recognise.focus import FocusMeter  # noqa: E402

pytestmark = pytest.mark.slow
expect = sync_api.expect


class Shots:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.extra = Path(os.environ["CRIBBAGE_SCREENSHOTS"]) if os.environ.get(
            "CRIBBAGE_SCREENSHOTS") else None
        self.taken: list[Path] = []

    def __call__(self, page: Any, name: str) -> None:
        path = self.folder / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        self.taken.append(path)
        if self.extra is not None:
            self.extra.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, self.extra / path.name)


@pytest.fixture
def table(tmp_path: Path) -> Iterator[tuple[Device, str]]:
    device = Device(tmp_path / "events.sqlite3", ("Player 1", "Player 2"), tracks=2)
    with served(device) as url:
        yield device, url


def last(device: Device) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(device.lines()[-1])
    return found


def test_a_game_on_the_phone_page(table: tuple[Device, str], page: Any, tmp_path: Path) -> None:
    device, url = table
    shots = Shots(tmp_path)
    page.goto(url)
    expect(page.locator("#link")).to_have_text("live")
    expect(page.locator("#next")).to_contain_text("the cut for the first deal")
    expect(page.locator(".side .name")).to_have_text(["Player 1", "Player 2"])
    shots(page, "01-waiting-for-the-cut")

    # New game and settings: other players, a 61-point game; the PIN is asked once.
    page.locator("#settings-box summary").click()
    page.locator("[data-seat='0']").fill("Ann")
    page.locator("[data-seat='1']").fill("Bob")
    page.locator("input[name=target][value='61']").check()
    page.locator("#start-match").click()
    expect(page.locator("#confirm-dialog")).to_be_visible()  # asked, then the PIN
    expect(page.locator("#confirm-text")).to_contain_text("Nothing has been scored in the "
                                                          "open match yet.")
    page.locator("#confirm-ok").click()
    expect(page.locator("#pin-dialog")).to_be_visible()
    page.locator("#pin").fill("0000")
    page.locator("#pin-ok").click()
    expect(page.locator("#pin-error")).to_have_text("wrong PIN")
    page.locator("#pin").fill(PIN)
    page.locator("#pin-ok").click()
    expect(page.locator(".side .name")).to_have_text(["Ann", "Bob"])
    expect(page.locator(".skunk-line")).to_have_text(["31"])  # 61 points: no double skunk
    assert json.loads(device.lines()[0]) == {"type": "new_game", "players": ["Ann", "Bob"],
                                            "rules": {"target": 61}}
    shots(page, "02-new-match-61")

    # The camera sees the cut, the starter and the first cards.
    truth = simulate_game(random.Random(8), ("Ann", "Bob"), {"target": 61})
    steps = table_script(truth, rng=random.Random(8))
    plays = [i for i, s in enumerate(steps) if s.seen and type(s.seen[0]).__name__ ==
             "CardAppeared" and s.seen[0].zone in ("Ann", "Bob")]
    third = plays[2 + 2]  # two cut cards, then the first three cards of the play
    device.play(steps[:third + 1])
    game = device.store.game
    pile = [str(c) for c in game.pile]
    expect(page.locator("#pile .cardchip")).to_have_count(len(pile))
    expect(page.locator("#count")).to_have_text(str(game.count))
    scores = [str(s.score) for s in game.sides]
    expect(page.locator(".side .score")).to_have_text(scores)
    expect(page.locator("#starter .cardchip")).to_have_count(1)
    shots(page, "03-the-play")

    # Undo takes the last card back, through the same path as the UNDO button.
    laid = last(device)
    assert laid["type"] == "play"
    page.locator("#undo").click()
    expect(page.locator("#pile .cardchip")).to_have_count(len(pile) - 1)
    expect(page.locator("#toast")).to_contain_text("undone: ")
    assert last(device)["type"] == "play" and last(device) != laid
    shots(page, "04-undone")

    # The same card entered by hand (the camera "cannot see" it): tap it in the deck.
    page.locator("#manual-box summary").click()
    expect(page.locator(f"#zones [data-zone='{laid['player']}']")).to_have_attribute(
        "aria-checked", "true")
    page.locator(f"#deck [data-card='{laid['card']}']").click()
    expect(page.locator("#pile .cardchip")).to_have_count(len(pile))
    assert last(device) == laid
    shots(page, "05-card-by-hand")

    # A card the table refuses (a second starter) flashes the reason; nothing is stored.
    lines = device.lines()
    page.locator("#zones [data-zone='starter']").click()
    wrong = next(c for c in ("KC", "KD", "KH", "KS") if c not in json.dumps(truth[:40]))
    page.locator(f"#deck [data-card='{wrong}']").click()
    expect(page.locator("#toast")).to_have_class(re.compile("error"))
    expect(page.locator("#toast")).to_contain_text("the starter is already cut")
    assert device.lines() == lines

    # Play on through the first show and crib: every score is listed in words.
    first_crib = next(i for i, s in enumerate(steps) if s.seen and type(s.seen[0]).__name__ ==
                      "ZoneComplete" and s.seen[0].zone == "crib")
    device.play(steps[third + 1:first_crib + 1])
    device.play([Step()] * 3)
    game = device.store.game
    expect(page.locator(".side .score")).to_have_text([str(s.score) for s in game.sides])
    words = [p.words for p in game.points if p.reason == "hand" and p.words]
    assert words
    expect(page.locator("#scores .words").first).to_be_visible()
    listed = page.locator("#scores .words").all_inner_texts()
    assert all(w in listed for w in words), (words, listed)
    shots(page, "06-scores-in-words")

    # The rest of the game, to the winner and the match history.
    device.play(steps[first_crib + 1:])
    device.play([Step()] * 3)
    assert device.store.game.phase == "over"
    expect(page.locator(".badge").filter(has_text="won")).to_have_count(1)
    expect(page.locator("#match")).to_contain_text(f"Game 1: {device.store.game.winner} won")
    shots(page, "07-game-over")

    # The lens knocked out of focus: after three blurred measures the page says so and
    # opens the hand entry; three sharp ones later it is a camera again.
    page.locator("#manual-box").evaluate("box => { box.open = false; }")
    expect(page.locator("#camera-state")).to_have_text("camera on")
    device.loop.recognise = Lens(blurred(scene(), 3.0))
    device.play([Step()] * 3)
    expect(page.locator("#camera-state")).to_have_text("camera out of focus")
    expect(page.locator("#manual-box")).to_have_attribute("open", "")
    expect(page.locator("#status")).to_contain_text("turn the lens")
    shots(page, "08-out-of-focus")
    device.loop.recognise = Lens(scene())
    device.play([Step()] * 3)
    expect(page.locator("#camera-state")).to_have_text("camera on")
    assert all(p.stat().st_size > 10_000 for p in shots.taken)


class Lens:
    """The device's recogniser seeing no card, with its focus meter measuring ``image``
    (the camera's own frames here are blank) on every frame."""

    def __init__(self, image: Any) -> None:
        self.image, self.focus = image, FocusMeter(every=1)

    def __call__(self, frame: Any) -> list[Any]:
        self.focus(self.image)
        return []


@pytest.fixture
def stored_table(tmp_path: Path) -> Iterator[tuple[Device, str]]:
    """Two players with the page reading the store (its downloads)."""
    path = tmp_path / "events.sqlite3"
    device = Device(path, ("Ann", "Bob"), tracks=2)
    with served(device, store_path=path) as url:
        yield device, url


def test_every_deal_misdeal_adjust_download_and_a_new_match_asked(
        stored_table: tuple[Device, str], page: Any, tmp_path: Path) -> None:
    device, url = stored_table
    shots = Shots(tmp_path)
    page.goto(url)
    expect(page.locator("#link")).to_have_text("live")
    # An open match (no best_of, no first_to): nothing under the match but words.
    expect(page.locator("#match")).to_contain_text("No game finished yet.")
    assert "null" not in page.locator("#match").inner_text()
    expect(page.locator("#misdeal")).to_be_disabled()  # nobody has dealt yet

    # The first deal played to its crib: the second deal may be a misdeal too.
    truth = simulate_game(random.Random(8), ("Ann", "Bob"))
    steps = table_script(truth, rng=random.Random(8))
    crib = next(i for i, s in enumerate(steps) if s.seen and type(s.seen[0]).__name__ ==
                "ZoneComplete" and s.seen[0].zone == "crib")
    device.play(steps[:crib + 1])
    device.play([Step()] * 3)
    dealer = device.store.game.turn
    expect(page.locator("#misdeal")).to_be_enabled()
    count = len(device.lines())
    page.locator("#misdeal").click()  # asked once, as a new match is: Cancel stores nothing
    expect(page.locator("#confirm-text")).to_contain_text("Misdeal: ")
    page.locator("#confirm-cancel").click()
    assert len(device.lines()) == count
    page.locator("#misdeal").click()
    expect(page.locator("#confirm-text")).to_contain_text("deals again, and the player on ")
    page.locator("#confirm-ok").click()
    page.locator("#pin").fill(PIN)
    page.locator("#pin-ok").click()
    expect(page.locator("#toast")).to_contain_text(f"misdeal: {dealer} deals again")
    assert [json.loads(line) for line in device.lines()[-2:]] == [{"type": "deal"},
                                                                  {"type": "misdeal"}]
    # The score list: a heading per deal, newest first.
    heads = page.locator("#scores .deal-head")
    expect(heads.first).to_have_text(f"Deal 2 · {dealer} deals")
    expect(heads.last).to_contain_text("Deal 1 · ")

    # A score adjusted by hand: Ann +2, said and listed like every score.
    page.locator("#adjust-box summary").click()
    page.locator("#adjust-who").select_option("Ann")
    page.locator("#adjust-more").click()
    page.locator("#adjust-more").click()
    expect(page.locator("#adjust")).to_have_text("Peg 2")
    page.locator("#adjust").click()
    expect(page.locator("#toast")).to_contain_text("Ann pegs 2 by hand")
    assert json.loads(device.lines()[-1]) == {"type": "adjust", "player": "Ann", "points": 2,
                                              "reason": "by hand"}
    expect(page.locator("#scores li:not(.deal-head)").first).to_contain_text("Ann · by hand")
    shots(page, "11-misdeal-adjust-deal-headings")

    # The match's game log, downloaded from the page: what the store holds.
    with page.expect_download() as waiting:
        page.locator("#export").click()
    download = waiting.value
    saved = tmp_path / download.suggested_filename
    download.save_as(saved)
    assert saved.name == "cribbage-match-1.jsonl"
    assert saved.read_text().splitlines() == device.lines()

    # A new match asks first, saying what becomes of this one; Cancel keeps everything.
    lines = device.lines()
    page.locator("#settings-box summary").click()
    page.locator("#start-match").click()
    expect(page.locator("#confirm-dialog")).to_be_visible()
    expect(page.locator("#confirm-text")).to_contain_text(
        "The open match ends here and stays in the history (0 games finished); the game "
        "in progress (Ann ")
    shots(page, "12-new-match-asked")
    page.locator("#confirm-cancel").click()
    expect(page.locator("#confirm-dialog")).to_be_hidden()
    assert device.lines() == lines
    page.locator("#start-match").click()
    page.locator("#confirm-ok").click()
    expect(page.locator("#next")).to_contain_text("the cut for the first deal")
    assert len(device.lines()) == 1
    assert all(p.stat().st_size > 10_000 for p in shots.taken)
