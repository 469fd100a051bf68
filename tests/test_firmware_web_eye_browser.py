"""The camera's eye on the phone page, in a real headless Chromium at phone size: tap a card
the board misread and put it right, tap a card it could not read and name it, and find both
in the store as the page's correct and card actions store them.

The table's picture is drawn (``vision.drawn``); the device's loop runs on its own thread with
a scripted tracker, and the test hands the eye what that tracker would have placed. Screenshots
go to the test's tmp dir, and also to ``$CRIBBAGE_SCREENSHOTS`` when it is set. Skips without
Playwright or without ``/usr/bin/chromium``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sync_api = pytest.importorskip("playwright.sync_api")
if not Path("/usr/bin/chromium").exists():
    pytest.skip("no /usr/bin/chromium (apt install chromium)", allow_module_level=True)

from test_firmware_web_browser import Shots  # noqa: E402
from test_firmware_web_eye import Table  # noqa: E402
from webrig import PIN, Device, scripted_game, served, starter_step  # noqa: E402

from engine.cards import Card  # noqa: E402
from firmware.demo.scripted_table import Step  # noqa: E402
from firmware.device.eye_snapshot import eye_table  # noqa: E402
from firmware.web.camera_eye import CameraEye, EyeView  # noqa: E402
from firmware.web.snapshot import revision  # noqa: E402
from vision.live.tracker import CardAppeared  # noqa: E402

pytestmark = pytest.mark.slow
expect = sync_api.expect
PLAYERS = ("Ann", "Bob")


@pytest.fixture
def board(tmp_path: Path) -> Iterator[tuple[Device, CameraEye, str]]:
    device = Device(tmp_path / "events.sqlite3", PLAYERS, tracks=2)
    eye = CameraEye()  # the test looks itself: no thread, no waiting for a second to pass
    with served(device, eye=eye) as url:
        yield device, eye, url


def last(device: Device) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(device.lines()[-1])
    return found


def show(device: Device, eye: CameraEye, drawn: Table, read: dict[str, str],
         unread: tuple[str, ...]) -> None:
    """The eye sees ``drawn`` with ``read`` cards (zone -> card read) and ``unread`` zones'
    cards not read, with the game as the device's store has it now."""
    with device.lock:
        table = eye_table(device.store.game, revision(device.store),
                          seats=PLAYERS, players=device.flow.players)
    cards = tuple((Card.parse(card), zone, drawn.outline[zone]) for zone, card in read.items())
    eye.offer(EyeView(drawn.image, 0.0, cards, tuple(drawn.outline[z] for z in unread),
                      drawn.zones, table))
    eye.look()
    assert eye.look(), "the eye made no picture of a settled table"


def misread_first(device: Device, eye: CameraEye
                  ) -> tuple[str, str, str, str, str, str, Table]:
    """A scripted deal played to its starter, then the first card laid read wrongly and
    stored so, and the eye shown it: the first and second players with the cards they lay,
    the starter, the misreading and the drawn table."""
    truth, steps = scripted_game(PLAYERS, seed=5)
    device.play(steps[:starter_step(steps) + 1])  # the cut, the deal and the starter
    plays = [e for e in truth if e["type"] == "play"]
    (first, first_card), (second, second_card) = [(e["player"], e["card"]) for e in plays[:2]]
    starter = next(e["card"] for e in truth if e["type"] == "starter")
    deal = json.dumps(truth[:next(i for i, e in enumerate(truth) if e["type"] == "crib")])
    misread = next(f"{rank}{suit}" for rank in "A23456789" for suit in "CDHS"
                   if f'"{rank}{suit}"' not in deal)

    # The board reads the first card laid wrongly, and stores that.
    seen = CardAppeared(Card.parse(misread), first, (), device.clock())
    device.play([Step(seen=(seen,))])
    assert last(device) == {"type": "play", "player": first, "card": misread}
    drawn = Table({first: first_card, second: second_card, "starter": starter})
    show(device, eye, drawn, {first: misread, "starter": starter}, ())
    return first, first_card, second, second_card, starter, misread, drawn


def test_tap_a_misread_card_and_an_unread_one_on_the_cameras_view(
        board: tuple[Device, CameraEye, str], page: Any, tmp_path: Path) -> None:
    device, eye, url = board
    shots = Shots(tmp_path)
    (first, first_card, second, second_card, starter, misread,
     drawn) = misread_first(device, eye)

    page.goto(url + "eye")  # the link calibrate and doctor --camera print
    expect(page.locator("#pin-dialog")).to_be_visible()  # the camera's view is private
    page.locator("#pin").fill(PIN)
    page.locator("#pin-ok").click()
    expect(page.locator("#eye-box")).to_have_attribute("open", "")
    expect(page.locator(f"#eye-marks polygon[data-card='{misread}']")).to_have_count(1)
    expect(page.locator("#eye-img")).to_have_js_property("complete", True)
    expect(page.locator("#eye-marks .eye-expected")).to_have_count(1)  # the next card's place
    expect(page.locator("#eye-note")).to_contain_text("2 cards read")
    shots(page, "eye-01-misread")

    # Tap the misread card, then what it really is: the one-step correction.
    page.locator(f"#eye-marks polygon[data-card='{misread}']").click()
    expect(page.locator("#eye-picker")).to_be_visible()
    expect(page.locator("#eye-picker .eye-ask")).to_contain_text(f"in {first}'s area")
    expect(page.locator(f"#eye-picker [data-card='{misread}']")).to_be_disabled()
    page.locator("#eye-picker").scroll_into_view_if_needed()
    shots(page, "eye-02-correcting")
    page.locator(f"#eye-picker [data-card='{first_card}']").click()
    expect(page.locator("#eye-picker")).to_be_hidden()
    assert last(device) == {"type": "correct", "was": misread, "card": first_card}
    expect(page.locator("#pile .cardchip").first).to_have_text(
        first_card[:-1] + {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}[first_card[-1]])

    # The next card lies in the other player's area, but the board cannot read it.
    show(device, eye, drawn, {first: first_card, "starter": starter}, (second,))
    expect(page.locator(f"#eye-marks .eye-unread[data-place='{second}']")).to_have_count(1)
    expect(page.locator("#eye-marks .eye-expected")).to_have_count(0)  # the unread one is it
    page.locator(f"#eye-marks .eye-unread[data-place='{second}']").click()
    expect(page.locator("#eye-picker .eye-ask")).to_have_text(
        f"Name the card in {second}'s area:")
    expect(page.locator(f"#eye-picker [data-card='{first_card}']")).to_be_disabled()  # laid
    page.locator("#eye-card").scroll_into_view_if_needed()
    shots(page, "eye-03-naming")
    page.locator(f"#eye-picker [data-card='{second_card}']").click()
    expect(page.locator("#eye-picker")).to_be_hidden()
    assert last(device) == {"type": "play", "player": second, "card": second_card}
    expect(page.locator("#pile .cardchip")).to_have_count(2)
    assert all(p.stat().st_size > 10_000 for p in shots.taken)


def test_the_view_is_not_shown_without_the_pin(board: tuple[Device, CameraEye, str],
                                               page: Any) -> None:
    device, eye, url = board
    show(device, eye, Table(), {"Ann": "7C"}, ())
    page.goto(url + "eye")
    expect(page.locator("#pin-dialog")).to_be_visible()
    page.locator("#pin-cancel").click()
    expect(page.locator("#eye-note")).to_contain_text(
        "The camera's view needs the board's PIN: with it you see the table")
    expect(page.locator("#eye-img")).to_be_hidden()  # no broken-image icon
    expect(page.locator("#eye-marks polygon")).to_have_count(0)
    assert page.locator("#eye-img").get_attribute("src") is None


def test_after_naming_and_correcting_the_view_shows_what_the_game_holds(
        board: tuple[Device, CameraEye, str], page: Any, tmp_path: Path) -> None:
    """The tracker still holds its old reading and its old doubt; the picture and the words
    show the cards the game now holds (green, named), not "not read" nor the misreading."""
    device, eye, url = board
    shots = Shots(tmp_path)
    (first, first_card, second, second_card, starter, misread,
     drawn) = misread_first(device, eye)
    page.goto(url + "eye")
    page.locator("#pin").fill(PIN)
    page.locator("#pin-ok").click()
    expect(page.locator(f"#eye-marks polygon[data-card='{misread}']")).to_have_count(1)

    # Correct it: the tracker still says the misread card, the game holds the right one.
    page.locator(f"#eye-marks polygon[data-card='{misread}']").click()
    page.locator(f"#eye-picker [data-card='{first_card}']").click()
    expect(page.locator("#toast")).to_contain_text("corrected: ")
    show(device, eye, drawn, {first: misread, "starter": starter}, ())
    expect(page.locator(f"#eye-marks polygon[data-card='{misread}']")).to_have_count(0)
    expect(page.locator(f"#eye-marks .eye-card[data-card='{first_card}']")).to_have_count(1)
    expect(page.locator("#eye-note")).to_contain_text("1 card read, 1 named by hand.")

    # Name the card the camera cannot read: it stays unread to the tracker.
    show(device, eye, drawn, {first: misread, "starter": starter}, (second,))
    expect(page.locator("#eye-marks .eye-unread")).to_have_count(1)
    expect(page.locator("#eye-note")).to_contain_text("1 not read")
    page.locator(f"#eye-marks .eye-unread[data-place='{second}']").click()
    page.locator(f"#eye-picker [data-card='{second_card}']").click()
    expect(page.locator("#toast")).to_have_text(f"{second_card} laid by {second}")
    show(device, eye, drawn, {first: misread, "starter": starter}, (second,))
    expect(page.locator("#eye-marks .eye-unread")).to_have_count(0)
    expect(page.locator(f"#eye-marks .eye-card[data-card='{second_card}']")).to_have_attribute(
        "data-place", second)
    expect(page.locator("#eye-note")).to_have_text(
        "1 card read, 2 named by hand. Tap a card to correct it, an orange or dashed outline "
        "to name it.")
    page.locator("#eye-card").scroll_into_view_if_needed()
    shots(page, "eye-04-named-and-corrected")
    assert eye.latest is not None
    assert {c["card"] for c in eye.latest.data()["cards"] if c["named"]} == {first_card,
                                                                             second_card}


# Cards that lay on the table when the board started (issue 61): outlined as "at start", and the
# panel's words say how to count them, never "0 cards read" alone over cards in plain view.
def test_cards_lying_at_start_are_outlined_and_the_panel_says_how_to_count_them(
        board: tuple[Device, CameraEye, str], page: Any, tmp_path: Path) -> None:
    device, eye, url = board
    drawn = Table()
    with device.lock:
        table = eye_table(device.store.game, revision(device.store), seats=PLAYERS,
                          players=device.flow.players)
    # A bare table at start: the legend has no "at start" entry.
    eye.offer(EyeView(drawn.image, 0.0, (), (), drawn.zones, table))
    eye.look()
    assert eye.look()
    page.goto(url + "eye")
    page.locator("#pin").fill(PIN)
    page.locator("#pin-ok").click()
    expect(page.locator("#eye-note")).to_contain_text("0 cards read.")
    expect(page.locator(".eye-legend .at-start")).to_be_hidden()

    lying = tuple((Card.parse(card), drawn.outline[zone])
                  for zone, card in (("Ann", "7C"), ("Bob", "9D"), ("starter", "QH")))
    eye.offer(EyeView(drawn.image, 0.0, (), (), drawn.zones, table, lying))
    eye.look()
    assert eye.look()
    expect(page.locator("#eye-img")).to_have_js_property("complete", True)
    expect(page.locator("#eye-note")).to_contain_text(
        "0 cards read. 3 cards were on the table at start (7C, 9D, QH): lift them and lay "
        "them again, a little way off, to count them.")
    expect(page.locator(".eye-legend .at-start")).to_be_visible()
    page.locator("#eye-card").scroll_into_view_if_needed()
    Shots(tmp_path)(page, "eye-at-start")
