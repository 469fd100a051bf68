"""The demo's board pictures: drawn once the strip has caught up with the store (the pegs
are the legend's), and written with the permissions `board` gives its pictures."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import numpy as np
import pytest

from firmware.commands.cli import main
from firmware.demo.scripted_table import SteppedClock
from firmware.device.loop import DeviceLoop
from firmware.store.eventstore import EventStore
from firmware.table.flow import TableFlow
from hardware.layout import per_side_tracks
from hardware.render import Renderer
from hardware.state import board_state_from_game
from hardware.strips.simulator import SimulatorStrip


def test_settle_brings_the_strip_to_the_stores_pegs(tmp_path: Path) -> None:
    clock = SteppedClock()
    layout = per_side_tracks(2)
    strip, renderer = SimulatorStrip(layout), Renderer(layout)
    with EventStore.open(tmp_path / "events.sqlite3", clock=clock) as store:
        loop = DeviceLoop(store=store, flow=TableFlow(("Ann", "Bob")), strip=strip,
                          renderer=renderer, clock=clock)
        loop.start()
        # Scores stored since the loop last drew (the demo's halfway moment: a crib counted).
        store.append({"type": "deal", "dealer": "Ann"})
        store.append({"type": "adjust", "player": "Ann", "points": 60, "reason": "test"})
        store.append({"type": "adjust", "player": "Ann", "points": 6, "reason": "test"})
        settled = np.asarray(renderer(board_state_from_game(store.game)))
        loop.drain()  # what the demo did: the queued frames only, not the new pegs
        assert not np.array_equal(strip.frame, settled)
        loop.settle()
        assert np.array_equal(strip.frame, settled)


def test_the_demos_pictures_get_what_the_umask_allows(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = os.umask(0o022)
    try:
        assert main(["demo", "--seed", "4", "--target", "61", "--out", str(tmp_path),
                     "--camera", "scripted", "--json"]) == 0
    finally:
        os.umask(before)
    pictures = [Path(p) for p in json.loads(capsys.readouterr().out)["pictures"]]
    assert [p.name for p in pictures][0] == "01-first-deal.png" and len(pictures) == 3
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o644 for p in pictures)
    assert not list(tmp_path.glob(".*"))
