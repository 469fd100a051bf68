"""The camera's eye with crowded edges (issue 61's walk-through at 390 px): a pegging pile of
four fanned cards at the picture's bottom edge and another at its top edge, as a game's last
deal leaves them. No name label covers another, nor any card's corner index, even where
none of the usual places beside a card is free."""

from __future__ import annotations

import random
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_firmware_web_eye import PLAYERS, Table

from engine.cards import Card
from engine.simulate import simulate_game
from firmware.demo.camera_table import VisionTable, demo_scene
from firmware.demo.scripted_table import SteppedClock
from firmware.device.loop import DeviceLoop
from firmware.store.eventstore import EventStore
from firmware.table.flow import TableFlow
from firmware.web.camera_eye import CameraEye, EyeTable, EyeView
from firmware.web.eye_picture import draw_eye
from hardware.layout import per_side_tracks
from hardware.render import Renderer
from hardware.strips.simulator import SimulatorStrip


@pytest.fixture(scope="module")
def drawn() -> Table:
    return Table()


def overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def fanned(top: float, left: float, step: float, size: tuple[float, float]
           ) -> list[tuple[tuple[float, float], ...]]:
    w, h = size
    return [((left + k * step, top), (left + k * step + w, top),
             (left + k * step + w, top + h), (left + k * step, top + h)) for k in range(4)]


def test_fanned_piles_at_both_edges_keep_every_label_clear(drawn: Table) -> None:
    size = (56.0, 80.0)
    bottom = fanned(720 - 80 - 4, 560, 24, size)  # at the frame's bottom edge
    top = fanned(6, 580, 24, size)  # at its top edge
    names = ["10S", "2C", "3C", "8H", "6S", "9D", "QS", "7C"]
    cards = tuple((Card.parse(n), zone, o) for n, zone, o in
                  zip(names, ["Ann"] * 4 + ["Bob"] * 4, bottom + top, strict=True))
    view = EyeView(drawn.image, 0.0, cards, (), drawn.zones,
                   EyeTable("1.3", (), (), tuple((p, p) for p in PLAYERS)))
    _, data = draw_eye(view)
    labels = [c["label"] for c in data["cards"]]
    clashes = [(data["cards"][i]["card"], data["cards"][j]["card"])
               for i, a in enumerate(labels) for j, b in enumerate(labels) if i < j
               and overlap(a, b)]
    assert clashes == []
    for card in data["cards"]:
        xs = [x for x, _ in card["outline"]]
        ys = [y for _, y in card["outline"]]
        index = [min(xs), min(ys), min(xs) + 0.3 * (max(xs) - min(xs)),
                 min(ys) + 0.25 * (max(ys) - min(ys))]
        covering = [c["card"] for c in data["cards"] if overlap(c["label"], index)]
        assert covering == [], card["card"]
    for label in labels:  # inside the picture
        assert 0 <= label[0] and label[2] <= data["size"][0]
        assert 0 <= label[1] and label[3] <= data["size"][1]
    assert leaders_crossing_labels(data) == []


def every_label(data: dict[str, Any]) -> list[tuple[str, list[float]]]:
    """Every label on the picture, named: the cards', the doubts', the expected places' and
    the zones'."""
    return ([(c["card"], c["label"]) for c in data["cards"]]
            + [("?", u["label"]) for u in data["unread"]]
            + [(f"{e['place']}: {e['what']}?", e["label"]) for e in data["expected"]]
            + [(f"at start: {a['card']}", a["label"]) for a in data["at_start"]]
            + [(p["place"] or p["zone"], p["label"]) for p in data["places"]])


def crosses(segment: list[float], box: list[float]) -> bool:
    """Whether the segment passes through the box's inside (sampled finely: independent of
    the drawing's own clipping)."""
    x0, y0, x1, y1 = segment
    n = max(2, int(abs(x1 - x0) + abs(y1 - y0)))
    return any(box[0] + 0.5 < x0 + (x1 - x0) * k / n < box[2] - 0.5
               and box[1] + 0.5 < y0 + (y1 - y0) * k / n < box[3] - 0.5 for k in range(n + 1))


def leaders_crossing_labels(data: dict[str, Any]) -> list[tuple[list[float], str]]:
    """Each leader line and the label (not its own) it runs through."""
    found = []
    for line in data["leaders"]:
        for name, box in every_label(data):
            ends_on = any(abs(line[0] - x) < 1 or abs(line[1] - y) < 1 for x, y in
                          ((box[0], box[1]), (box[2], box[3]))) and (
                box[0] - 1 <= line[0] <= box[2] + 1 and box[1] - 1 <= line[1] <= box[3] + 1)
            if not ends_on and crosses(line, box):
                found.append((line, name))
    return found


def test_labels_between_fanned_piles_never_have_a_leader_cross_a_label(drawn: Table) -> None:
    """Two piles fanned one above the other, close enough that the upper pile's names must
    go below it, among the lower pile's: a leader line that passes through a name makes that
    name unreadable and says the wrong card."""
    size = (56.0, 80.0)
    upper = fanned(300, 400, 20, size)
    lower = fanned(300 + 80 + 30, 410, 20, size)
    names = ["10S", "2C", "3C", "8H", "6S", "9D", "QS", "7C"]
    cards = tuple((Card.parse(n), "Ann", o) for n, o in
                  zip(names, upper + lower, strict=True))
    view = EyeView(drawn.image, 0.0, cards, (), drawn.zones,
                   EyeTable("1.3", (), (), tuple((p, p) for p in PLAYERS)))
    _, data = draw_eye(view)
    assert data["leaders"], "the crowded piles need leader lines"
    assert leaders_crossing_labels(data) == []


def index_points(corners: Any, scale: tuple[float, float]) -> list[tuple[float, float]]:
    """Points over a card's corner index (the top-left as the card reads upright), in the
    picture's pixels."""
    c = np.asarray(corners, np.float64) * np.asarray(scale)
    return [tuple(c[0] + u * (c[1] - c[0]) + v * (c[3] - c[0]))
            for u in (0.05, 0.12, 0.2) for v in (0.05, 0.15, 0.25)]


#: How many of the game's show moments (a hand or the crib) the drawn-game tests look at.
SHOWS = 8


@pytest.fixture(scope="module")
def shows() -> list[tuple[dict[str, Any], dict[Any, Any]]]:
    """The drawn demo's first shows at 1280x720, as the camera's eye draws them, each with
    the drawn table's true face-up cards (read by the camera or not)."""
    players = ("Ann", "Bob")
    truth = simulate_game(random.Random(4), players, {"target": 61})
    clock = SteppedClock()
    table = VisionTable(truth, clock=clock, rng=random.Random(4),
                        scene_rng=np.random.default_rng(4),
                        settings=demo_scene("camera-module-3", size=(1280, 720)))
    layout = per_side_tracks(2)
    found = []
    with tempfile.TemporaryDirectory() as folder:
        store = EventStore.open(Path(folder) / "events.sqlite3", clock=clock)
        eye = CameraEye()
        loop = DeviceLoop(store=store, flow=TableFlow(players, truth[0]["rules"]),
                          strip=SimulatorStrip(layout), renderer=Renderer(layout), clock=clock,
                          source=table.camera, recognise=table.recognise,
                          tracker=table.tracker, reader=table.reader, eye=eye)
        loop.start()
        for _ in table.play(loop):
            if store.game.phase == "show" and store.game.turn is not None:
                table._watch(loop, table.camera.hold(2))
                eye.look()
                eye.look()
                picture = eye.latest
                assert picture is not None
                found.append((picture.data(), table.camera.last.face_up()))
                if len(found) == SHOWS:
                    break
        store.close()
    return found


def test_the_shows_expected_box_covers_no_fanned_cards_index(
        shows: list[tuple[dict[str, Any], dict[Any, Any]]]) -> None:
    """At the show the hand lies fanned and the camera reads one card of it at most: the
    dashed "Bob: hand?" box went over the others, which the eye knows nothing of."""
    checked = 0
    for data, truth in shows:
        scale = (data["size"][0] / data["frame"][0], data["size"][1] / data["frame"][1])
        for want in data["expected"]:
            xs = [x for x, _ in want["outline"]]
            ys = [y for _, y in want["outline"]]
            for card, seen in truth.items():
                inside = [p for p in index_points(seen.corners, scale)
                          if min(xs) <= p[0] <= max(xs) and min(ys) <= p[1] <= max(ys)]
                assert inside == [], (want["place"], want["what"], str(card))
                checked += 1
    assert checked >= 4


def test_no_leader_crosses_a_label_at_the_shows(
        shows: list[tuple[dict[str, Any], dict[Any, Any]]]) -> None:
    assert [leaders_crossing_labels(data) for data, _ in shows] == [[]] * len(shows)
