"""The camera's eye keeps no full-size frame (issue 62: a Pi Zero 2 W's peak memory): the loop's
feed hands it the frame scaled down to the phone picture's width, and only when the eye will
next look, and the picture the phone gets is the one the full frame gives."""

from __future__ import annotations

import gc
import time
import weakref
from typing import Any

import cv2
import numpy as np
import pytest
from test_firmware_web_eye import PLAYERS, Seen, Table

from engine.game import Game
from firmware.device.eye_snapshot import EyeFeed
from firmware.web.camera_eye import CameraEye, EyeTable, EyeView
from firmware.web.eye_picture import PHONE_WIDTH, draw_eye, for_phone, picture_size
from vision.live.tracker import CardTracker
from vision.live.zones import TableZones, Zone

#: The default ``[camera] size``, as the device reads it.
CAMERA = (2304, 1296)
GAME = Game.replay([{"type": "new_game", "players": list(PLAYERS)}])


class Big:
    """The drawn table as a 2304x1296 camera sees it: the frame and every outline scaled."""

    def __init__(self, drawn: Table) -> None:
        k = CAMERA[0] / drawn.image.shape[1]
        self.image = cv2.resize(drawn.image, CAMERA, interpolation=cv2.INTER_CUBIC)
        self.outline = {zone: tuple((x * k, y * k) for x, y in o)
                        for zone, o in drawn.outline.items()}
        self.zones = TableZones(tuple(Zone(z.name, tuple((x * k, y * k) for x, y in z.polygon))
                                      for z in drawn.zones.zones))


@pytest.fixture(scope="module")
def big() -> Big:
    return Big(Table())


def seen(big: Big) -> tuple[CardTracker, list[Seen]]:
    """A tracker that has placed Ann's 7C and the starter's QH, and Bob's card seen unread."""
    tracker = CardTracker(frame_size=CAMERA, zones=big.zones)
    detections = [Seen("7C", big.outline["Ann"]), Seen("QH", big.outline["starter"]),
                  Seen(None, big.outline["Bob"])]
    for k in range(4):
        tracker.update(float(k), detections)
    return tracker, detections


def fed(eye: CameraEye, big: Big, image: Any | None = None, *, at: float = 4.0,
        rev: str = "1.1", feed: EyeFeed | None = None) -> EyeFeed:
    """``feed`` (a new one for ``eye`` by default) after the loop offered it one frame."""
    tracker, detections = seen(big)
    feed = feed or EyeFeed(eye)
    feed.offer(big.image if image is None else image, at, detections, tracker, big.zones, GAME,
               rev, seats=PLAYERS, players=PLAYERS)
    return feed


def test_the_eye_holds_no_full_size_frame_once_the_loop_drops_it(big: Big) -> None:
    eye = CameraEye()
    frame = big.image.copy()  # the loop's frame: a new array per camera frame
    gone = weakref.ref(frame)
    fed(eye, big, frame)
    del frame
    gc.collect()
    assert gone() is None, "the eye keeps the loop's full-size frame alive"
    view = eye._offered
    assert view is not None
    assert view.image.shape == (540, PHONE_WIDTH, 3)  # the picture's own size
    assert view.size == CAMERA  # the outlines stay in the camera's pixels


def test_the_picture_is_the_one_the_full_frame_gives(big: Big) -> None:
    eye = CameraEye()
    fed(eye, big)
    view = eye._offered
    assert view is not None and view.frame == CAMERA
    whole = EyeView(big.image, view.at, view.cards, view.unread, view.zones, view.table,
                    view.at_start)
    jpeg, data = draw_eye(view)
    jpeg_whole, data_whole = draw_eye(whole)
    assert data == data_whole and data["frame"] == list(CAMERA) and data["size"] == [960, 540]
    assert sorted(c["card"] for c in data["cards"]) == ["7C", "QH"] and len(data["unread"]) == 1
    assert jpeg == jpeg_whole


def test_a_frame_no_wider_than_the_picture_is_kept_as_it_is() -> None:
    image = np.zeros((480, 640, 3), np.uint8)
    assert for_phone(image) == (image, None)
    assert picture_size((640, 480)) == (640, 480) and picture_size((1280, 720)) == (960, 540)


def test_while_the_eye_looks_on_its_thread_the_feed_hands_over_one_frame_a_look(
        big: Big) -> None:
    taken: list[EyeView] = []

    class Taking(CameraEye):
        def offer(self, view: EyeView) -> None:
            taken.append(view)
            super().offer(view)

    eye = Taking(interval_s=600.0, draw=lambda view: (b"", {}))  # no look falls due here
    tracker, detections = seen(big)
    eye.start()
    try:
        assert eye.wants  # none yet
        feed = EyeFeed(eye)
        for k in range(20):  # the loop's frames: the first is handed over, then nothing
            feed.offer(big.image, 4.0 + k, detections, tracker, big.zones, GAME, "1.1",
                       seats=PLAYERS, players=PLAYERS)
            assert not eye.wants
        assert [view.at for view in taken] == [4.0]
        # What the board holds changed (the game's revision; a card read): handed over once.
        for k in range(5):
            feed.offer(big.image, 30.0 + k, detections, tracker, big.zones, GAME, "1.2",
                       seats=PLAYERS, players=PLAYERS)
        tracker.update(40.0, detections[:1])
        for k in range(5):
            feed.offer(big.image, 40.0 + k, detections[:1], tracker, big.zones, GAME, "1.2",
                       seats=PLAYERS, players=PLAYERS)
        assert [view.at for view in taken] == [4.0, 30.0, 40.0]
    finally:
        eye.close()
    assert eye.wants  # no thread: a look by hand takes the newest


def test_the_eyes_thread_asks_for_a_frame_at_each_look_and_draws_it(big: Big) -> None:
    drawn: list[EyeView] = []

    def draw(view: EyeView) -> tuple[bytes, dict[str, Any]]:
        drawn.append(view)
        return b"jpeg", {}

    eye = CameraEye(interval_s=0.01, draw=draw)
    eye.start()
    try:
        tracker, detections = seen(big)
        feed = EyeFeed(eye)
        # Polls the loop's side; the bound only keeps a broken eye from hanging the suite
        # (the assertion below then fails), it times nothing.
        for k in range(3000):
            if eye.latest is not None:
                break
            feed.offer(big.image, 5.0 + k, detections, tracker, big.zones, GAME, "1.1",
                       seats=PLAYERS, players=PLAYERS)
            time.sleep(0.002)
    finally:
        eye.close()
    assert eye.latest is not None and drawn
    assert all(view.image.shape[1] == PHONE_WIDTH and view.size == CAMERA for view in drawn)


def test_an_offered_view_keeps_the_frames_size_for_its_outlines() -> None:
    small = np.zeros((540, 960, 3), np.uint8)
    assert EyeView(small, 0.0, (), (), frame=CAMERA).size == CAMERA
    assert EyeView(small, 0.0, (), ()).size == (960, 540)
    assert EyeView(small, 0.0, (), (), None, EyeTable()).frame is None
