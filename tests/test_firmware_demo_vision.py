"""Whole games filmed at a drawn table and read by the real recogniser (firmware.demo.camera_table).

Each game is simulated (the truth), filmed by ``vision.drawn.scene_camera`` and played
into the real ``DeviceLoop``; the final scores must be the engine's on the true
cards, whatever the camera missed or misread, because the players straighten or
type in what the board did not read and take back what it scored wrong. Games
are to 61 to keep the suite quick.

One game is filmed as the demo films it, through a Camera Module 3
(``vision.drawn.camera_model``) that sees cards 86 px tall, and its tally is what that
camera really reads. The games that blind or mislead the recogniser on purpose
test the players' answers to it, so they film the crisp drawing
(``--camera ideal``), where the camera itself misses nearly nothing.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine.cards import DECK, Card
from engine.game import Game
from engine.records import LogError
from engine.simulate import simulate_game
from firmware.commands.cli import main
from firmware.demo.camera_table import DEMO_SCENE, IDEAL_SCENE, GameFilm, VisionTable, event_key
from firmware.demo.scripted_table import SteppedClock
from firmware.device.loop import DeviceLoop
from firmware.store.eventstore import EventStore
from firmware.table.flow import Feedback, TableFlow
from hardware.layout import per_side_tracks
from hardware.render import Renderer
from hardware.strips.simulator import SimulatorStrip
from vision.drawn.camera_model import CAMERA_MODULE_3
from vision.drawn.scene import STARTER, SceneSettings

pytestmark = pytest.mark.slow

NAMES = ("Ann", "Bob", "Cat", "Dan")
#: The demo's camera in miniature: 640x360 from a 1152x648 read-out at 0.5 m, where the
#: demo has 1280x720 from 2304x1296 at 1.0 m. Cards are the same 86 px tall and every
#: effect the same in pixels (blur, noise, the 1.8 scale-down); a quarter of the pixels
#: to draw and read. Measured 2026-11-26, seed 2 to 61: 52 cards read, 84 typed in,
#: 2 misreads (the demo's own size: 55 and 81, 1 misread); 2026-11-27, read as `run` reads
#: (``vision.live.reading``): 131 read, 5 typed in, 5 misreads, 2 undone.
REAL_SCENE = replace(DEMO_SCENE, size=(640, 360), camera=replace(
    CAMERA_MODULE_3, height=0.5, sensor_modes=((1152, 648),)))
#: The crisp drawing at 960x540: for games whose faults are put in on purpose.
IDEAL_TEST = replace(IDEAL_SCENE, size=(960, 540))


def truth_game(players: int, seed: int) -> tuple[list[dict[str, Any]], random.Random]:
    rules: dict[str, Any] = {"target": 61}
    if players == 4:
        rules["partnership"] = True
    rng = random.Random(seed)
    return simulate_game(rng, NAMES[:players], rules), rng


class Played:
    """A game played at the drawn table: the table, the store's log, what the board said."""

    def __init__(self, tmp_path: Path, truth: list[dict[str, Any]], rng: random.Random,
                 seed: int, recognise: Callable[[VisionTable], Any] | None = None,
                 settings: SceneSettings = IDEAL_TEST) -> None:
        players = tuple(truth[0]["players"])
        clock = SteppedClock()
        self.table = VisionTable(truth, clock=clock, rng=rng,
                                 scene_rng=np.random.default_rng(seed), settings=settings)
        if recognise is not None:
            self.table.read_with(recognise(self.table))
        self.said: list[Feedback] = []
        store = EventStore.open(tmp_path / "events.sqlite3", clock=clock)
        layout = per_side_tracks(2 if len(players) == 4 else len(players))
        loop = DeviceLoop(store=store, flow=TableFlow(players, truth[0]["rules"]),
                          strip=SimulatorStrip(layout), renderer=Renderer(layout), clock=clock,
                          source=self.table.camera, recognise=self.table.recognise,
                          tracker=self.table.tracker, reader=self.table.reader,
                          on_feedback=self.said.append)
        loop.start()
        for _ in self.table.play(loop):
            pass
        self.lines = list(store.lines)
        self.game = store.game
        store.close()

    def flashes(self) -> list[str]:
        return [f.text for f in self.said if f.kind == "flash"]


def check_scores_are_the_truths(played: Played, truth: Sequence[dict[str, Any]]) -> None:
    true_game = Game.replay(truth)
    assert played.game.phase == "over"
    assert [s.to_json() for s in played.game.sides] == [s.to_json() for s in true_game.sides]
    assert played.game.winner == true_game.winner
    assert [event_key(line) for line in played.lines] == [event_key(e) for e in truth]


def test_the_film_lays_the_logs_cards_in_the_logs_order() -> None:
    truth, rng = truth_game(3, 5)
    film = GameFilm.from_log(truth, rng=rng)
    due = [m for m in film.moments if m.cards]
    # The cut, then one moment per starter, card, show and crib of the log.
    assert len(due) == 1 + sum(e["type"] in ("starter", "play", "show", "crib") for e in truth)
    assert [m.upto for m in due] == sorted(m.upto for m in due)
    assert due[-1].upto == len(truth)
    starters = [m.cards[0][0] for m in due if m.cards[0][1] == STARTER]
    assert starters == [Card.parse(e["card"]) for e in truth if e["type"] == "starter"]
    assert set(film.cut) == set(truth[0]["players"])


def test_cards_the_camera_never_reads_are_straightened_then_typed_in(tmp_path: Path) -> None:
    truth, rng = truth_game(3, 4)
    hidden = {Card.parse(c) for c in ("5H", "JC", "9S", "AD", "QH", "7C")}
    laid = sum(Card.parse(e["card"]) in hidden for e in truth if e["type"] == "play")
    assert laid >= 2  # the seed lays some of them

    def blind(table: VisionTable) -> Any:
        def recognise(image: Any, *, card_px: float | None = None) -> list[Any]:
            return [d for d in table_recognise(image, card_px) if d.card not in hidden]
        return recognise

    played = Played(tmp_path, truth, rng, 4, recognise=blind)
    check_scores_are_the_truths(played, truth)
    tally = played.table.tally
    assert tally.cards_by_hand >= laid and tally.relaid >= tally.cards_by_hand
    assert tally.entries >= laid
    assert tally.cards_read > tally.cards_by_hand


def test_a_misread_card_is_refused_with_a_flash_and_never_scored(tmp_path: Path) -> None:
    truth, rng = truth_game(4, 6)
    step, true_card, wrong = refused_misread(truth)

    def misreading(table: VisionTable) -> Any:
        def recognise(image: Any, *, card_px: float | None = None) -> list[Any]:
            found = table_recognise(image, card_px)
            last = table.camera.last
            if last is None or last.step != step:
                return found
            return [replace(d, card=wrong) if d.card == true_card else d for d in found]
        return recognise

    played = Played(tmp_path, truth, rng, 6, recognise=misreading)
    check_scores_are_the_truths(played, truth)
    assert played.flashes(), "the engine should have refused the misread card"
    assert played.table.tally.misreads >= 1
    # check_scores_are_the_truths compared the stored log with the truth: nothing wrong
    # was stored, so the refused card scored nothing.


def refused_misread(truth: Sequence[dict[str, Any]]) -> tuple[int, Card, Card]:
    """A played card and a misreading of it that the engine refuses, with the film step
    that lays it: (step, true card, wrong card). The wrong card is none of that deal's, so
    it is nowhere else on the table."""
    film = GameFilm.from_log(truth, rng=random.Random(0))
    deal_of = []  # each event's deal number
    for event in truth:
        deal_of.append((deal_of[-1] if deal_of else 0) + (event["type"] == "deal"))
    for moment in film.moments:
        if len(moment.cards) != 1 or moment.cards[0][1] not in truth[0]["players"]:
            continue
        card, player = moment.cards[0]
        at = moment.upto - 1
        assert truth[at]["type"] == "play" and Card.parse(truth[at]["card"]) == card
        in_deal = {Card.parse(c) for e, d in zip(truth, deal_of, strict=True)
                   if d == deal_of[at] for c in [e.get("card"), *e.get("cards", ())] if c}
        for wrong in DECK:
            if wrong in in_deal:
                continue
            try:
                Game.replay(truth[:at]).apply({"type": "play", "player": player,
                                               "card": str(wrong)})
            except LogError:
                return moment.step, card, wrong
    raise AssertionError("no refusable misread in this game")


def table_recognise(image: Any, card_px: float | None) -> list[Any]:
    from vision.recognise.detection import recognise

    return list(recognise(image, card_px=card_px))


def test_a_game_filmed_by_the_demos_camera_scores_the_truth_reading_what_it_can(
        tmp_path: Path) -> None:
    truth, rng = truth_game(2, 2)
    played = Played(tmp_path, truth, rng, 2, settings=REAL_SCENE)
    check_scores_are_the_truths(played, truth)
    tally = played.table.tally
    laid = sum(len(m.cards) for m in played.table.film.moments if m.due)
    assert tally.cards_read + tally.cards_by_hand == laid == 136
    # Cards 86 px tall, soft and noisy, read as `run` reads: the camera reads most (131
    # measured 2026-11-27; 52 on 2026-11-26 reading whole frames with the recogniser then),
    # the players type in the rest, and the few it reads wrong are taken back.
    assert 0.5 * laid < tally.cards_read < laid
    assert tally.misreads <= 5 and tally.undone <= tally.misreads
    assert played.table.report()["camera_model"] == {
        "name": "camera-module-3", "resolution": [640, 360], "card_px": [61, 86],
        "height_m": 0.5}


def test_the_demo_command_plays_two_players_through_vision_to_the_true_scores(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    frames, store = tmp_path / "frames", tmp_path / "events.sqlite3"
    # The crisp drawing keeps this quick; the test above films the demo's own camera.
    assert main(["demo", "--players", "2", "--seed", "2", "--target", "61", "--out",
                 str(tmp_path / "out"), "--frames", str(frames), "--store", str(store),
                 "--camera", "ideal", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["camera"] == "vision" and "StreamReader" in report["vision"]
    assert report["regions_read"] < report["frames"] / 3  # run's reading path
    assert report["camera_model"]["name"] == "ideal"
    assert report["finished"] and report["rejected"] == []
    truth = simulate_game(random.Random(2), NAMES[:2], {"target": 61})
    with EventStore.open(store) as stored:
        assert [event_key(line) for line in stored.lines] == [event_key(e) for e in truth]
    assert report["sides"] == [s.to_json() for s in Game.replay(truth).sides]
    # The crisp drawing's large cards: the camera reads most, and nothing wrong.
    assert report["cards_read"] > 3 * report["cards_by_hand"]
    assert report["misreads"] == 0 and report["undone"] == 0
    assert report["frames"] > 100 and report["fps"] > 0
    assert report["frames_saved"] and all(Path(p).stat().st_size > 10_000
                                          for p in report["frames_saved"])
