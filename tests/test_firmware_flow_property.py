"""Random whole games through the table flow and the event store: none sticks, none is lost.

``tests/flowgames.py`` plays them as players would (2 to 4 players, partnership, 61 and
121, the camera's facts and typed cards, UNDO, restarts and kills at random points, new
matches). The quick mode here plays a few dozen games; ``CRIBBAGE_LONG=1`` plays 10,000
(``benchmarks/device/flow_games.py`` prints the same figures with timings).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from flowgames import Tally, play_games

LONG = os.environ.get("CRIBBAGE_LONG") == "1"


@pytest.fixture
def folder() -> Iterator[Path]:
    """In memory where the system has it: each event is fsynced, and a disk shared with the
    other tests makes that the slow part."""
    shm = Path("/dev/shm")
    with tempfile.TemporaryDirectory(dir=shm if shm.is_dir() else None) as name:
        yield Path(name)


def assert_clean(tally: Tally, games: int) -> None:
    assert tally.games == games, tally.problems
    figures = tally.figures()
    assert {k: figures[k] for k in ("stuck", "lost", "silent", "misscored")} == {
        "stuck": 0, "lost": 0, "silent": 0, "misscored": 0}, tally.problems


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_whole_games_all_end_with_the_engines_scores(folder: Path, seed: int) -> None:
    tally = play_games(folder, games=6, seed=seed, per_store=3)
    assert_clean(tally, 6)
    # The games exercised what they are meant to: both kinds of entry, undo, restarts.
    assert tally.seen and tally.typed and tally.undos and tally.restarts


@pytest.mark.slow
def test_an_old_starter_cut_again_and_restarts_every_few_acts_never_stick(folder: Path) -> None:
    tally = play_games(folder, games=6, seed=7, per_store=3, restart=0.08, kill=0.02,
                       undo=0.05)
    assert_clean(tally, 6)


@pytest.mark.slow
def test_the_store_where_the_long_run_once_stored_a_starter_nobody_cut_plays_clean(
        folder: Path) -> None:
    # Store 106 of seed 42: restarted at a game's end, the board saw the old starter again,
    # offered it as cut again, and the CONFIRM for the next game stored it as a new starter.
    tally = play_games(folder, games=1060, seed=42, first_store=106)
    assert_clean(tally, 10)
    assert tally.restarts


@pytest.mark.skipif(not LONG, reason="the long mode: CRIBBAGE_LONG=1")
def test_ten_thousand_random_games(folder: Path) -> None:
    tally = play_games(folder, games=10_000, seed=42)
    assert_clean(tally, 10_000)
