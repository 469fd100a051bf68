"""vision.drawn.scene: scripted table frames, their ground truth, and the real pipeline run on
them."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from engine.cards import Card
from engine.simulate import deal_cards
from vision.drawn.scene import (
    CRIB,
    STARTER,
    SceneError,
    SceneRenderer,
    SceneSettings,
    Script,
    TableLayout,
    read_truth,
    write_sequence,
)
from vision.live.sources import ReplaySource
from vision.live.tracker import CardAppeared, CardTracker

PLAYERS = ("Ann", "Bob")
QUICK = SceneSettings(frames_per_step=2, hand_frames=1)


def script(seed: int, players: tuple[str, ...] = PLAYERS) -> Script:
    rng = random.Random(seed)
    return Script.from_deal(deal_cards(rng, len(players), 0), players, rng)


def test_script_lays_every_card_where_the_table_does() -> None:
    rng = random.Random(5)
    deal = deal_cards(rng, 2, 1)
    s = Script.from_deal(deal, PLAYERS, rng)
    labels = [step.label for step in s.steps]
    assert labels[0] == "cut" and labels[1] == f"starter {deal.starter}"
    assert s.steps[1].face_up()[deal.starter].zone == STARTER
    plays = [step for step in s.steps if " plays " in step.label]
    assert len(plays) == 8
    for step in plays:
        seat = PLAYERS.index(step.label.split()[0])
        card = Card.parse(step.label.split()[2])
        assert card in deal.hands[seat]
        assert step.face_up()[card].zone == PLAYERS[seat]
    # Shows in counting order (non-dealer first), then the crib face up.
    assert [lab.split(":")[0] for lab in labels[-3:]] == ["show Ann", "show Bob", "crib"]
    final = s.steps[-1].face_up()
    assert {c for c, p in final.items() if p.zone == CRIB} == set(deal.crib)
    assert all(not p.face_up for p in s.steps[0].cards)
    for step in s.steps:
        named = [p.card for p in step.cards if p.card is not None]
        assert len(named) == len(set(named))


def test_counts_are_turned_face_down_when_they_end() -> None:
    for seed in range(20):
        s = script(seed)
        for i, step in enumerate(s.steps):
            if step.label.startswith("count ends"):
                before = s.steps[i - 1].face_up()
                after = step.face_up()
                assert set(after) == {c for c, p in before.items() if p.zone == STARTER}
                return
    pytest.fail("no deal in 20 ended a count before the last card")


def test_frames_are_deterministic_for_a_seed_and_drawable_in_any_order() -> None:
    s = script(1)
    a = SceneRenderer(s, rng=np.random.default_rng(3), settings=QUICK)
    b = SceneRenderer(s, rng=np.random.default_rng(3), settings=QUICK)
    c = SceneRenderer(s, rng=np.random.default_rng(4), settings=QUICK)
    frame = a.render(7)
    assert frame.image.shape == (720, 1280, 3)
    b.render(2)
    again = b.render(7)
    assert np.array_equal(frame.image, again.image) and frame.truth == again.truth
    assert not np.array_equal(frame.image, c.render(7).image)


@pytest.mark.parametrize("players", [("Ann", "Bob"), ("Ann", "Bob", "Cy"),
                                     ("Ann", "Bob", "Cy", "Di")])
def test_truth_outlines_land_in_their_zones(players: tuple[str, ...]) -> None:
    s = script(2, players)
    renderer = SceneRenderer(s, rng=np.random.default_rng(9), settings=QUICK)
    zones = renderer.zones
    assert set(zones.names) == {*players, STARTER, CRIB}
    for step_no in range(len(s.steps)):
        frame = renderer.render(step_no * QUICK.frames_per_step + 1)  # no hand in this frame
        for truth in frame.truth:
            assert zones.assign(truth.corners) == truth.zone, (frame.label, truth)
            assert all(0 <= x <= 1280 and 0 <= y <= 720 for x, y in truth.corners)
            assert truth.visible > 0.2 or not truth.face_up  # a stack hides its lower cards


def test_a_laying_hand_covers_part_of_the_new_card() -> None:
    s = script(3)
    renderer = SceneRenderer(s, rng=np.random.default_rng(1),
                             settings=SceneSettings(frames_per_step=3, hand_frames=2))
    step = next(i for i, st in enumerate(s.steps) if " plays " in st.label)
    laid = Card.parse(s.steps[step].label.split()[2])
    with_hand = {t.card: t for t in renderer.render(3 * step).truth}[laid]
    without = {t.card: t for t in renderer.render(3 * step + 2).truth}[laid]
    assert with_hand.visible < without.visible == 1.0


def test_write_sequence_replays_with_its_truth(tmp_path: Path) -> None:
    s = script(4)
    write_sequence(tmp_path, s, rng=np.random.default_rng(2), settings=QUICK, frames=[0, 3, 5])
    truth = read_truth(tmp_path)
    frames = list(ReplaySource(tmp_path))
    assert len(frames) == len(truth["frames"]) == 3
    assert [r["frame"] for r in truth["frames"]] == [0, 3, 5]
    assert frames[0].image.shape == (720, 1280, 3)
    assert set(truth["zones"].names) == {"Ann", "Bob", STARTER, CRIB}
    assert all(isinstance(c.card, Card) for r in truth["frames"] for c in r["cards"])


def test_bad_settings_are_named() -> None:
    with pytest.raises(SceneError, match="table must be wood, cloth or random, not 'marble'"):
        SceneSettings(table="marble")
    with pytest.raises(SceneError, match="seats 2 to 4 players, not 5"):
        TableLayout.for_players(5)
    renderer = SceneRenderer(script(0), rng=np.random.default_rng(0), settings=QUICK)
    with pytest.raises(SceneError, match="frame 9999 is outside"):
        renderer.render(9999)


# -- the real recogniser and tracker on a drawn deal -----------------------------------------


def run_pipeline(seed: int) -> tuple[list[tuple[CardAppeared, bool]], int]:
    """Tracker events over a drawn deal, (event, right?), and how many appearances were due."""
    from vision.recognise.detection import recognise

    s = script(seed)
    settings = SceneSettings(frames_per_step=4, hand_frames=1)
    renderer = SceneRenderer(s, rng=np.random.default_rng(seed), settings=settings)
    tracker = CardTracker(frame_size=renderer.size, zones=renderer.zones)
    events = []
    for frame in renderer.frames():
        up = frame.face_up()
        for event in tracker.update(frame.index / 30, recognise(frame.image)):
            if isinstance(event, CardAppeared):
                right = event.card in up and up[event.card].zone == event.zone
                events.append((event, right))
    due, before = 0, {}
    for step in s.steps:
        now = step.face_up()
        due += sum(1 for c, p in now.items() if before.get(c) != p)
        before = now
    return events, due


@pytest.mark.slow
def test_recogniser_and_tracker_follow_a_drawn_deal() -> None:
    events, due = run_pipeline(seed=2)
    wrong = [e for e, right in events if not right]
    assert not wrong, wrong
    recall = sum(right for _, right in events) / due
    # Observed with the committed recogniser on deals drawn by vision.drawn.cardart (seeds 1-6, 21
    # appearances each): recall 0.76-0.90, 0.90 for this seed, never a wrong card. The misses
    # are cards half under the laying hand or deep in a fan. Raise this floor as it improves.
    assert recall >= 0.8, (recall, events)


@pytest.mark.slow
def test_no_spade_is_reported_as_a_club() -> None:
    # Once every drawn spade came out a club (AS->AC, KS->KC); the drawn-scene training
    # patches (vision/training/drawn.py) fixed it.
    events, _ = run_pipeline(seed=4)
    assert all(right for _, right in events)
