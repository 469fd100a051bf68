"""The camera's eye (``firmware.web.camera_eye``): the snapshot maker, its picture, the loop's
hand-over, and ``/api/eye`` behind the PIN. Frames come from the drawn table."""

from __future__ import annotations

import json
import random
import threading
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from engine.cards import Card
from engine.game import Game
from firmware.device.eye_snapshot import EyeFeed, eye_table
from firmware.web.camera_eye import (
    CameraEye,
    Expected,
    EyeTable,
    EyeView,
    eye_links,
    marks,
    settled_key,
)
from firmware.web.eye_picture import EXPECTED, READ, UNREAD, draw_eye
from vision.drawn.scene import SceneRenderer, SceneSettings, Script
from vision.live.sources import Frame
from vision.live.zones import TableZones

PLAYERS = ("Ann", "Bob")
C = Card.parse


class DrawnCamera:
    """A camera that shows ``image`` in every frame, a tenth of a second apart on ``clock``
    (a ``SteppedClock``), for a ``DeviceLoop`` fed from the drawn table."""

    name = "drawn"

    def __init__(self, image: Any, clock: Any) -> None:
        self.image = image
        self.clock = clock
        self.index = 0

    def read(self, timeout: float = 0.5) -> Frame:
        self.clock.advance(0.1)
        self.index += 1
        return Frame(self.image, self.clock(), self.index)

    def close(self) -> None:
        pass


class Table:
    """A drawn table: Ann's card, Bob's card and the starter, with their true outlines."""

    def __init__(self, cards: dict[str, str] | None = None, seed: int = 3) -> None:
        cards = cards or {"Ann": "7C", "Bob": "9D", "starter": "QH"}
        markers = {zone: C(card) for zone, card in cards.items()}
        script = Script.calibration(PLAYERS, random.Random(seed), markers=markers)
        frame = SceneRenderer(script, rng=np.random.default_rng(seed),
                              settings=SceneSettings(frames_per_step=1, hand_frames=0)).render(0)
        self.image = frame.image
        self.outline = {t.zone: tuple(t.corners) for t in frame.truth}
        crib_centre, _ = script.layout.anchor("crib", PLAYERS)
        x, y = crib_centre
        crib = ((x - 40, y - 56), (x + 40, y - 56), (x + 40, y + 56), (x - 40, y + 56))
        self.zones = TableZones.from_markers((1280, 720), {**self.outline, "crib": crib})

    def view(self, *, read: dict[str, str] | None = None, unread: tuple[str, ...] = (),
             table: EyeTable | None = None, at: float = 0.0) -> EyeView:
        """The view with ``read`` cards (zone -> the card the board read there) and the cards
        in ``unread`` zones seen but not read."""
        read = read if read is not None else {"Ann": "7C", "starter": "QH"}
        cards = tuple((C(card), zone, self.outline[zone]) for zone, card in read.items())
        return EyeView(self.image, at, cards, tuple(self.outline[z] for z in unread), self.zones,
                       table or EyeTable("1.3", (), (), (("Ann", "Ann"), ("Bob", "Bob"))))


@pytest.fixture(scope="module")
def drawn() -> Table:
    return Table()


class Counting:
    """A draw that counts its calls and the threads it ran on."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __call__(self, view: EyeView) -> tuple[bytes, dict[str, Any]]:
        self.calls.append(threading.current_thread().name)
        return b"jpeg", {"cards": [str(card) for card, _, _ in view.cards]}


# -- the snapshot maker ----------------------------------------------------------------------


def test_a_picture_only_once_the_table_has_settled_and_none_while_it_stays_still(
        drawn: Table) -> None:
    draw = Counting()
    eye = CameraEye(draw=draw)
    assert eye.look() is False and eye.latest is None  # nothing offered yet
    eye.offer(drawn.view())
    assert eye.look() is False  # first seen: not settled yet
    assert eye.look() is True  # the same at the next look: settled, drawn
    first = eye.latest
    assert first is not None and first.version == 1 and first.data()["cards"] == ["7C", "QH"]
    for _ in range(20):  # a still table: the loop keeps offering frames, nothing is drawn
        eye.offer(drawn.view())
        assert eye.look() is False
    assert len(draw.calls) == 1 and eye.latest is first
    eye.offer(drawn.view(read={"Ann": "7C", "Bob": "9D", "starter": "QH"}))  # Bob lays a card
    assert eye.look() is False
    assert eye.look() is True
    assert eye.latest is not None and eye.latest.version == 2


def test_at_most_one_picture_per_look_and_none_while_the_table_keeps_changing(
        drawn: Table) -> None:
    draw = Counting()
    eye = CameraEye(draw=draw)
    views = [drawn.view(read={"Ann": "7C"}), drawn.view(read={"Ann": "7C", "Bob": "9D"})]
    for k in range(30):  # a hand moving over the table: a different view at every look
        eye.offer(views[k % 2])
        eye.look()
    assert draw.calls == []
    pictures = 0
    for k in range(30):  # the table changing every second look: settled on every other one
        eye.offer(views[(k // 2) % 2])
        pictures += eye.look()
    assert pictures == len(draw.calls) == 15  # one per settled look, never two in one look


def test_a_card_jittering_by_a_pixel_is_the_same_table_and_a_moved_card_is_not(
        drawn: Table) -> None:
    view = drawn.view()
    card, zone, outline = view.cards[0]
    shaken = tuple((x + 1.5, y - 1.0) for x, y in outline)
    moved = tuple((x + 200, y) for x, y in outline)
    assert settled_key(view) == settled_key(
        EyeView(view.image, 5.0, ((card, zone, shaken), *view.cards[1:]), (), view.zones,
                view.table))
    assert settled_key(view) != settled_key(
        EyeView(view.image, 5.0, ((card, zone, moved), *view.cards[1:]), (), view.zones,
                view.table))


def test_pictures_are_made_on_the_eyes_own_thread_never_the_offering_one(drawn: Table) -> None:
    draw = Counting()
    eye = CameraEye(draw=draw, interval_s=0.01)
    eye.start()
    try:
        for _ in range(200):  # the loop's side: offers only
            eye.offer(drawn.view())
        # Polls for the first picture; the bound only keeps a broken eye from hanging the
        # suite (the assertion below then fails), it times nothing.
        for _ in range(6000):
            if eye.latest is not None:
                break
            time.sleep(0.01)
    finally:
        eye.close()
    assert eye.latest is not None
    assert set(draw.calls) == {"cribbage-eye"}
    assert threading.current_thread().name not in draw.calls


def test_a_drawing_that_fails_is_reported_once_and_does_not_stop_the_eye(drawn: Table) -> None:
    def broken(view: EyeView) -> tuple[bytes, dict[str, Any]]:
        raise ValueError("no JPEG today")

    eye = CameraEye(draw=broken)
    eye.offer(drawn.view())
    eye.look()
    assert eye.look() is False
    assert eye.problem == "cannot draw the camera's view: no JPEG today"
    assert eye.latest is None


def test_the_interval_must_be_positive() -> None:
    with pytest.raises(ValueError, match="interval_s must be positive"):
        CameraEye(interval_s=0)


# -- the picture --------------------------------------------------------------------------------


def decoded(jpeg: bytes) -> np.ndarray:
    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert image is not None
    return image


def near(image: np.ndarray, point: tuple[float, float], colour: tuple[int, int, int],
         radius: int = 2) -> bool:
    """Whether a pixel within ``radius`` of ``point`` has about ``colour`` (JPEG blurs it)."""
    x, y = round(point[0]), round(point[1])
    patch = image[max(0, y - radius):y + radius + 1, max(0, x - radius):x + radius + 1]
    distance = np.abs(patch.astype(int) - np.array(colour)).sum(axis=2)
    return bool((distance < 90).any())


def along(outline: list[list[float]]) -> list[tuple[float, float]]:
    """Points along an outline's sides (a third and two thirds of each)."""
    points = []
    for (x0, y0), (x1, y1) in zip(outline, outline[1:] + outline[:1], strict=True):
        points += [(x0 + (x1 - x0) * t, y0 + (y1 - y0) * t) for t in (1 / 3, 2 / 3)]
    return points


def test_read_cards_are_outlined_and_named_where_the_tracker_has_them(drawn: Table) -> None:
    jpeg, data = draw_eye(drawn.view(), width=960)
    image = decoded(jpeg)
    assert image.shape[:2] == (540, 960) and data["size"] == [960, 540]
    assert [c["card"] for c in data["cards"]] == ["7C", "QH"]
    for card in data["cards"]:
        zone = "Ann" if card["card"] == "7C" else "starter"
        assert card["outline"] == [[round(x * 0.75, 1), round(y * 0.75, 1)]
                                   for x, y in drawn.outline[zone]]
        assert all(near(image, p, READ) for p in along(card["outline"])), card["card"]
        # The label: a filled box of the outline's colour by its card (where exactly is the
        # placement's choice: clear of other labels, indices and cards it cannot outline).
        x0, y0, x1, y1 = card["label"]
        assert near(image, (x0 + 2, (y0 + y1) / 2), READ, radius=1), card["card"]
        xs, ys = [x for x, _ in card["outline"]], [y for _, y in card["outline"]]
        height = max(ys) - min(ys)
        assert (min(xs) - height <= (x0 + x1) / 2 <= max(xs) + height
                and min(ys) - height <= (y0 + y1) / 2 <= max(ys) + height), card


def test_the_name_drawn_is_the_card_read(drawn: Table) -> None:
    right = decoded(draw_eye(drawn.view(read={"Ann": "7C"}))[0]).astype(int)
    wrong = decoded(draw_eye(drawn.view(read={"Ann": "8C"}))[0]).astype(int)
    differs = np.argwhere(np.abs(right - wrong).sum(axis=2) > 60)
    assert len(differs)
    outline = np.array(drawn.outline["Ann"]) * 0.75
    top, left = outline[:, 1].min(), outline[:, 0].min()
    # Only the label differs, and it lies above the card's top edge.
    assert differs[:, 0].max() <= top + 2 and differs[:, 1].min() >= left - 4


def test_unread_cards_zones_and_expected_places_are_drawn(drawn: Table) -> None:
    game = Game.replay([{"type": "new_game", "players": list(PLAYERS)},
                        {"type": "deal", "dealer": "Ann"}, {"type": "starter", "card": "QH"}])
    table = eye_table(game, "1.3", seats=PLAYERS, players=PLAYERS)
    assert table.expected == (Expected("Bob", "next card"),)
    jpeg, data = draw_eye(drawn.view(read={"starter": "QH"}, unread=("Ann",), table=table))
    image = decoded(jpeg)
    assert [u["place"] for u in data["unread"]] == ["Ann"]
    assert all(near(image, p, UNREAD) for p in along(data["unread"][0]["outline"]))
    [want] = data["expected"]
    assert (want["place"], want["what"], want["cards"]) == ("Bob", "next card", 1)
    drawn_dashes = sum(near(image, p, EXPECTED) for p in along(want["outline"]))
    assert drawn_dashes >= 4  # dashed: most of the points along it, not necessarily all
    bob = next(p for p in data["places"] if p["place"] == "Bob")
    assert TableZones.from_config({"Bob": bob["polygon"]}).zones[0].contains(
        tuple(np.mean(want["outline"], axis=0)))
    assert {p["place"] for p in data["places"]} == {"Ann", "Bob", "starter", "crib"}


def test_an_unread_outline_over_a_read_card_is_that_card_and_seats_follow_the_seating(
        drawn: Table) -> None:
    table = EyeTable("2.0", (), (), (("Ann", "Cat"), ("Bob", "Dan")))
    view = drawn.view(read={"Ann": "7C"}, unread=("Ann", "Bob"), table=table)
    found = marks(view)
    assert [(c.card, c.place) for c in found.cards] == [(C("7C"), "Cat")]
    assert [u.place for u in found.unread] == ["Dan"]
    assert {p.zone: p.place for p in found.places}["Bob"] == "Dan"


def test_a_card_named_by_hand_shows_as_the_game_holds_it_and_so_does_a_corrected_one(
        drawn: Table) -> None:
    """Bob's card was not read and Bob named it 9D on the phone; Ann's 7C was misread as 7S
    and corrected: the picture shows both as the game holds them, nothing left in doubt."""
    table = EyeTable("1.9", (), (("Ann", (C("7C"),)), ("Bob", (C("9D"),))),
                     (("Ann", "Ann"), ("Bob", "Bob")), C("QH"))
    view = drawn.view(read={"Ann": "7S", "starter": "QH"}, unread=("Bob",), table=table)
    found = marks(view)
    assert found.unread == ()
    assert sorted((str(c.card), c.place, c.named) for c in found.cards) == [
        ("7C", "Ann", True), ("9D", "Bob", True), ("QH", "starter", False)]
    _, data = draw_eye(view)
    assert data["unread"] == []
    assert {c["card"]: c["named"] for c in data["cards"]} == {"7C": True, "9D": True,
                                                               "QH": False}


def test_labels_of_a_fanned_pair_cover_neither_each_other_nor_a_cards_index(
        drawn: Table) -> None:
    """Two cards fanned in Ann's area, a third over them: each name label stays clear of the
    others and of every card's corner index (its top-left, as the camera sees it)."""
    outline = drawn.outline["Ann"]
    width = max(x for x, _ in outline) - min(x for x, _ in outline)
    fanned = [tuple((x + k * width * 0.3, y + k * 6) for x, y in outline) for k in range(3)]
    view = EyeView(drawn.image, 0.0, tuple((C(card), "Ann", o) for card, o in
                                           zip(("9C", "2S", "JH"), fanned, strict=True)), (),
                   drawn.zones, EyeTable("1.3", (Expected("Ann", "next card"),), (),
                                         (("Ann", "Ann"), ("Bob", "Bob"))))
    _, data = draw_eye(view)
    labels = [c["label"] for c in data["cards"]]
    scale = data["size"][0] / data["frame"][0]

    def overlap(a: list[float], b: list[float]) -> bool:
        return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]

    assert not any(overlap(a, b) for i, a in enumerate(labels) for b in labels[i + 1:])
    for card in data["cards"]:
        xs = [x for x, _ in card["outline"]]
        ys = [y for _, y in card["outline"]]
        index = [min(xs), min(ys), min(xs) + 0.3 * (max(xs) - min(xs)),
                 min(ys) + 0.25 * (max(ys) - min(ys))]
        assert not any(overlap(label, index) for label in labels), (card["card"], scale)


def test_one_blurred_card_found_twice_is_one_unread_card(drawn: Table) -> None:
    outline = drawn.outline["Bob"]
    twice = tuple((x + 6, y + 4) for x, y in outline)
    view = EyeView(drawn.image, 0.0, (), (outline, twice), drawn.zones,
                   EyeTable("1.3", (), (), (("Ann", "Ann"), ("Bob", "Bob"))))
    assert len(marks(view).unread) == 1


def test_expected_places_follow_the_game() -> None:
    events: list[dict[str, Any]] = [{"type": "new_game", "players": list(PLAYERS)}]
    game = Game.replay(events)
    assert eye_table(game, "1", seats=PLAYERS, players=PLAYERS).expected == (
        Expected("Ann", "cut"), Expected("Bob", "cut"))
    events += [{"type": "deal", "dealer": "Ann"}]
    assert eye_table(Game.replay(events), "2", seats=PLAYERS, players=PLAYERS).expected == (
        Expected("starter", "starter"),)
    events += [{"type": "starter", "card": "QH"}]
    for card, player in zip(["5S", "5H", "10D", "JC", "2C", "3C", "4S", "6D"],
                            ["Bob", "Ann"] * 4, strict=True):
        events.append({"type": "play", "player": player, "card": card})
    game = Game.replay(events)
    assert game.phase == "show"
    table = eye_table(game, "3", seats=PLAYERS, players=PLAYERS)
    assert table.expected == (Expected("Bob", "hand", 4),)
    assert dict(table.laid)["Bob"] == (C("5S"), C("10D"), C("2C"), C("4S"))


# -- the loop's hand-over ------------------------------------------------------------------------


class Seen:
    def __init__(self, card: str | None, corners: Any) -> None:
        self.card = C(card) if card else None
        self.corners = corners
        self.confidence = 0.9


def test_the_feed_hands_over_references_and_reads_the_game_once_per_revision(
        drawn: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    from vision.live.tracker import CardTracker

    tracker = CardTracker(frame_size=(1280, 720), zones=drawn.zones)
    detections = [Seen("7C", drawn.outline["Ann"]), Seen(None, drawn.outline["Bob"])]
    for k in range(4):
        tracker.update(float(k), detections)
    eye = CameraEye(draw=Counting())
    feed = EyeFeed(eye)
    game = Game.replay([{"type": "new_game", "players": list(PLAYERS)}])
    read: list[str] = []
    real = eye_table

    def counted(*args: Any, **kwargs: Any) -> EyeTable:
        read.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr("firmware.device.eye_snapshot.eye_table", counted)
    for rev in ("1.1", "1.1", "1.1", "2.2"):
        feed.offer(drawn.image, 4.0, detections, tracker, drawn.zones, game, rev,
                   seats=PLAYERS, players=PLAYERS)
    assert read == ["1.1", "2.2"]
    view = eye._offered
    # The frame scaled to the picture's width (the eye keeps no full-size frame); the outlines
    # stay in the frame's pixels.
    assert view is not None and view.image.shape == (540, 960, 3) and view.size == (1280, 720)
    assert [(card, zone) for card, zone, _ in view.cards] == [(C("7C"), "Ann")]
    assert view.unread == (tuple(drawn.outline["Bob"]),)
    assert view.table.rev == "2.2"


def test_a_tracker_that_places_no_cards_hands_over_none(drawn: Table) -> None:
    eye = CameraEye(draw=Counting())
    game = Game.replay([{"type": "new_game", "players": list(PLAYERS)}])
    EyeFeed(eye).offer(drawn.image, 0.0, [], object(), None, game, "1.1", seats=PLAYERS,
                       players=PLAYERS)
    assert eye._offered is not None and eye._offered.cards == ()


def test_the_device_loop_hands_the_eye_each_frame_it_reads(drawn: Table, tmp_path: Path) -> None:
    from firmware.demo.scripted_table import SteppedClock
    from firmware.device.loop import DeviceLoop
    from firmware.store.eventstore import EventStore
    from firmware.table.flow import TableFlow
    from hardware.layout import per_side_tracks
    from hardware.render import Renderer
    from hardware.strips.simulator import SimulatorStrip
    from vision.live.tracker import CardTracker

    clock = SteppedClock()
    detections = [Seen("7C", drawn.outline["Ann"]), Seen("9D", drawn.outline["Bob"])]
    draw = Counting()
    eye = CameraEye(draw=draw)
    layout = per_side_tracks(2)
    store = EventStore.open(tmp_path / "events.sqlite3", clock=clock)
    loop = DeviceLoop(store=store, flow=TableFlow(PLAYERS), strip=SimulatorStrip(layout),
                      renderer=Renderer(layout), clock=clock,
                      source=DrawnCamera(drawn.image, clock), recognise=lambda image: detections,
                      tracker=CardTracker(frame_size=(1280, 720), zones=drawn.zones), eye=eye)
    try:
        loop.start()
        for _ in range(5):
            loop.step()
        assert draw.calls == []  # the loop only offers
        eye.look()
        assert eye.look() is True
    finally:
        store.close()
    assert eye.latest is not None and sorted(eye.latest.data()["cards"]) == ["7C", "9D"]


# -- links ------------------------------------------------------------------------------------


def test_links_name_the_view_on_the_boards_address() -> None:
    assert eye_links("192.168.1.20", 8080) == ["http://192.168.1.20:8080/eye"]
    assert eye_links("fe80::1", 80) == ["http://[fe80::1]:80/eye"]
    assert eye_links("0.0.0.0", 8080)[-1].endswith(".local:8080/eye")


# -- the API ------------------------------------------------------------------------------------

pytest.importorskip("httpx")
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient  # noqa: E402


@pytest.fixture
def served(drawn: Table) -> Iterator[tuple[CameraEye, Any]]:
    from firmware.web.hub import Hub
    from firmware.web.server import create_app

    eye = CameraEye()
    hub = Hub()
    app = create_app(hub, pin="2468", eye=eye)
    with TestClient(app, client=("192.168.1.30", 50000),
                    base_url="http://192.168.1.5:8080") as client:
        yield eye, client
    hub.close()


def test_the_view_needs_the_pin(served: tuple[CameraEye, Any], drawn: Table) -> None:
    eye, client = served
    eye.offer(drawn.view())
    eye.look()
    eye.look()
    for path in ("/api/eye", "/api/eye.jpg"):
        refused = client.get(path)
        assert refused.status_code == 401
        assert refused.json()["error"] == "the camera's view needs the board's PIN (X-Pin header)"
        assert client.get(path, headers={"X-Pin": "1111"}).status_code in (401, 403)
        assert "image/jpeg" not in refused.headers.get("content-type", "")


def test_the_view_as_json_and_as_a_jpeg(served: tuple[CameraEye, Any], drawn: Table) -> None:
    eye, client = served
    pin = {"X-Pin": "2468"}
    waiting = client.get("/api/eye", headers=pin)
    assert waiting.status_code == 503 and "not shown the table yet" in waiting.json()["error"]
    eye.offer(drawn.view(unread=("Bob",)))
    eye.look()
    eye.look()
    answer = client.get("/api/eye", headers=pin)
    assert answer.status_code == 200
    assert answer.headers["cache-control"] == "no-store, private"
    data = answer.json()
    assert data["version"] == 1 and data["size"] == [960, 540]
    assert [(c["card"], c["place"]) for c in data["cards"]] == [("7C", "Ann"), ("QH", "starter")]
    assert [u["place"] for u in data["unread"]] == ["Bob"]
    assert all(len(c["outline"]) == 4 for c in data["cards"])
    picture = client.get("/api/eye.jpg", headers=pin)
    assert picture.status_code == 200 and picture.headers["content-type"] == "image/jpeg"
    assert picture.content[:2] == b"\xff\xd8" and decoded(picture.content).shape == (540, 960, 3)
    assert client.get("/eye").status_code == 200  # the page, opened on the view


def test_a_board_without_a_camera_says_so_and_strangers_are_refused(drawn: Table) -> None:
    from firmware.web.hub import Hub
    from firmware.web.server import create_app

    hub = Hub()
    with TestClient(create_app(hub, pin="2468"), client=("192.168.1.30", 50000),
                    base_url="http://192.168.1.5:8080") as client:
        answer = client.get("/api/eye", headers={"X-Pin": "2468"})
        assert answer.status_code == 404 and "no camera" in answer.json()["error"]
    eye = CameraEye()
    eye.offer(drawn.view())
    eye.look()
    eye.look()
    with TestClient(create_app(hub, pin="2468", eye=eye), client=("93.184.216.34", 50000),
                    base_url="http://192.168.1.5:8080") as client:
        answer = client.get("/api/eye.jpg", headers={"X-Pin": "2468"})
        assert answer.status_code == 403 and "local network only" in answer.json()["error"]
    hub.close()


@pytest.mark.parametrize("as_json", [False, True])
def test_doctor_camera_links_the_view(tmp_path: Path, drawn: Table, as_json: bool,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    from firmware.commands.cli import main

    folder = tmp_path / "frames"
    folder.mkdir()
    cv2.imwrite(str(folder / "0.png"), drawn.image)
    config = tmp_path / "config.toml"
    config.write_text(f'[store]\npath = "{tmp_path / "e.db"}"\n\n[camera]\nsource = "replay"\n'
                      f'path = "{folder}"\nsize = [1280, 720]\n\n'
                      f'[web]\nhost = "192.168.1.20"\nport = 8099\n')
    assert main(["doctor", "--config", str(config), "--camera", *(["--json"] * as_json)]) == 0
    out = capsys.readouterr().out
    # --json gathers what the check says: the view's link as well as the frame.
    said = json.loads(out)["checks"][0]["said"] if as_json else out.splitlines()
    assert any("camera: frame 1280x720" in line for line in said)
    assert said[-1].endswith(
        "see what the camera sees, while the board runs: http://192.168.1.20:8099/eye")
