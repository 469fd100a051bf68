"""Makes ``import lgpio`` (and gpiozero's ``gpiozero.pins.lgpio``) run ``site/lgpio.py``
afresh, so its import-time pipe file is made in the directory a test chose."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

SITE = Path(__file__).parent / "site"


def fresh_lgpio(monkeypatch: pytest.MonkeyPatch) -> None:
    """The next ``import lgpio`` runs the stand-in's import-time code again."""
    monkeypatch.syspath_prepend(str(SITE))
    for name in ("lgpio", "gpiozero.pins.lgpio"):
        monkeypatch.delitem(sys.modules, name, raising=False)
