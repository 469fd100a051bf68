"""Test-wide settings.

Property tests (Hypothesis) draw the same examples on every run, so a landing
never fails on a case no earlier run met; to explore new cases, run with
``HYPOTHESIS_PROFILE=explore`` and keep any failure it finds as an ``@example``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

CHROMIUM = Path("/usr/bin/chromium")

settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))


@pytest.fixture
def page() -> Iterator[Any]:
    """A phone-sized page in Debian's headless Chromium, driven by Playwright; any script
    error on the page fails the test."""
    sync_api = pytest.importorskip("playwright.sync_api")
    if not CHROMIUM.exists():
        pytest.skip("no /usr/bin/chromium (apt install chromium)")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM),
                                             args=["--no-sandbox", "--disable-dev-shm-usage"])
        context = browser.new_context(viewport={"width": 390, "height": 844},
                                      device_scale_factor=2, is_mobile=True, has_touch=True)
        found = context.new_page()
        found.on("dialog", lambda dialog: dialog.accept())  # "start a new match?"
        errors: list[str] = []
        found.on("pageerror", lambda error: errors.append(str(error)))
        yield found
        assert errors == [], errors
        browser.close()
