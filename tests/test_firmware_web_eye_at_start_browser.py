"""Cards that lay on the table when the board started, on the camera's eye in a real browser
(issue 61): outlined as "at start", and the panel's words say how to count them, never
"0 cards read" alone over cards in plain view."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sync_api = pytest.importorskip("playwright.sync_api")
if not Path("/usr/bin/chromium").exists():
    pytest.skip("no /usr/bin/chromium (apt install chromium)", allow_module_level=True)

from test_firmware_web_browser import Shots  # noqa: E402
from test_firmware_web_eye import Table  # noqa: E402
from webrig import PIN, Device, served  # noqa: E402

from engine.cards import Card  # noqa: E402
from firmware.device.eye_snapshot import eye_table  # noqa: E402
from firmware.web.camera_eye import CameraEye, EyeView  # noqa: E402
from firmware.web.snapshot import revision  # noqa: E402

pytestmark = pytest.mark.slow
expect = sync_api.expect
PLAYERS = ("Ann", "Bob")


@pytest.fixture
def board(tmp_path: Path) -> Iterator[tuple[Device, CameraEye, str]]:
    device = Device(tmp_path / "events.sqlite3", PLAYERS, tracks=2)
    eye = CameraEye()
    with served(device, eye=eye) as url:
        yield device, eye, url


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
