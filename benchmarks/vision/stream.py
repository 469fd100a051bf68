"""The two-resolution camera at real sizes: still-table cost, changed-region reads, latency.

Frames are ``epfl-iapr2022-poker-3000`` table photos cut to 2304x1296 (the Camera Module 3's
full view: real cards about 230 px long), the watch stream a quarter of that (576x324),
given beside each frame as picamera2's ``lores`` gives it, read by ``StreamReader`` over a
``CameraRecogniser`` as ``firmware/commands/run.py`` wires them. A card is laid by a hand that
moves over the table for a few frames and goes; the card is a real one cut from another
photo of the set.

- ``still_ms``: ``StreamReader`` on a table where nothing moves (per frame; target <= 2 ms);
  ``watch_copy_ms``: shrinking a frame to the watch stream, which OpenCV and replay sources
  pay on their camera thread (picamera2's ``lores`` costs nothing);
- ``region_ms``: the frame on which a laid card's region is read (target <= 30 ms), with
  the share spent in the recogniser and the pixels read;
- ``laid_to_led_ms``: from the first frame without the hand to the LED frame pushed, by
  running the frames at 30 fps through a loop that takes as long as the measured work
  (a slow frame makes the loop skip frames, as the camera's newest-frame-only grabber does),
  then ``benchmarks/device/loop_latency.py``'s CardAppeared-to-LED time (the device's tracker
  reports a card on its first reading when it reads by regions).
  ``pi4`` repeats it with the work scaled as a Pi 4 would do it: the recogniser 5x,
  the rest 3.5x (target <= 200 ms).

OpenCV runs on one thread, as the recogniser's networks do. ``cpu`` times the work by the
thread's CPU time instead of the wall clock: on a machine shared with other work the wall
clock counts their turns too.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from benchmarks.common import p95
from benchmarks.device.loop_latency import latency
from vision.live.motion import StreamReader, WatchSettings
from vision.live.reading import DEVICE_TRACKER
from vision.live.sources import Frame, watch_image
from vision.live.zones import centroid
from vision.measure.datasets import datasets_root
from vision.recognise.detection import CameraRecogniser, recognise
from vision.recognise.imagefile import read_image

__all__ = ["FULL", "WATCH", "laid_cards"]

FULL = (2304, 1296)
WATCH = (576, 324)
FPS = 30.0
PI4_CPU, PI4_NET = 3.5, 5.0
TABLES = ("train_01.jpg", "train_06.jpg", "train_10.jpg")
CARDS_FROM = "train_03.jpg"
PLACES = [(150, 450), (1850, 300), (1800, 800), (200, 950)]
Clock = Callable[[], float]


def load(path: Path) -> np.ndarray:
    """A photo scaled to 2304 px wide and cut to the camera's 2304x1296 about its middle."""
    photo = read_image(path)
    height = round(photo.shape[0] * FULL[0] / photo.shape[1])
    wide = cv2.resize(photo, (FULL[0], height), interpolation=cv2.INTER_AREA)
    top = (height - FULL[1]) // 2
    return np.ascontiguousarray(wide[top:top + FULL[1]])


def card_crops(image: np.ndarray) -> list[tuple[Any, np.ndarray, np.ndarray]]:
    """Real cards cut from a photo: each read card's pixels and outline mask, with its name."""
    crops = []
    for seen in recognise(image):
        if seen.card is None:
            continue
        outline = np.array(seen.corners, np.float32)
        x0, y0 = np.maximum(outline.min(0).astype(int), 0)
        x1, y1 = np.minimum(outline.max(0).astype(int) + 1, FULL)
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(mask, np.round(outline - (x0, y0)).astype(np.int32), 255)
        crops.append((seen.card, image[y0:y1, x0:x1].copy(), mask))
    return crops


class Timed:
    """The recogniser, timed by ``clock``: the work a Pi does 5x slower."""

    def __init__(self, recognise: Any, clock: Clock) -> None:
        self.recognise, self.clock, self.spent = recognise, clock, 0.0
        # Confines the index search as the device's recogniser does (``StreamReader``).
        self.reads_index_window = getattr(recognise, "reads_index_window", False)

    def __call__(self, image: np.ndarray, *, card_px: float | None = None,
                 index_window: tuple[int, int, int, int] | None = None) -> Any:
        began = self.clock()
        try:
            if index_window is None:
                return self.recognise(image, card_px=card_px)
            return self.recognise(image, card_px=card_px, index_window=index_window)
        finally:
            self.spent += self.clock() - began


def scene(table: np.ndarray, card: tuple[np.ndarray, np.ndarray], at: tuple[int, int],
          hand_x: int | None) -> np.ndarray:
    """The table with the card laid at ``at`` (its own outline only), and a hand over it."""
    image = table.copy()
    pixels, mask = card
    x, y = at
    h, w = mask.shape
    np.copyto(image[y:y + h, x:x + w], pixels, where=mask[:, :, None] > 0)
    if hand_x is not None:
        cv2.ellipse(image, (hand_x, at[1] + 100), (260, 160), 0, 0, 360, (110, 140, 190), -1)
    return image


def lay(table: np.ndarray, name: Any, card: tuple[np.ndarray, np.ndarray],
        at: tuple[int, int], *, pi: bool, appear_frames: int, to_led_s: float,
        clock: Clock, still_frames: int = 3) -> dict[str, Any]:
    """One card laid by a hand, the loop simulated at 30 fps with the measured work."""
    centre = (at[0] + card[1].shape[1] / 2, at[1] + card[1].shape[0] / 2)
    timed = Timed(CameraRecogniser(), clock)
    reader = StreamReader(timed, frame_size=FULL, learn_art=False,
                          settings=WatchSettings(still_frames=still_frames))
    empty = watch_image(table, WATCH)
    for i in range(6):
        reader(Frame(table, i / FPS, i, empty))
    for k in range(4):
        hand = scene(table, card, at, at[0] + 600 - 150 * k)
        reader(Frame(hand, (6 + k) / FPS, 6 + k, watch_image(hand, WATCH)))
    laid = scene(table, card, at, None)
    laid_watch = watch_image(laid, WATCH)
    gone = 10 / FPS  # the first frame without the hand
    now, reads_before, index, settled_frames, region_s, net_s = gone, reader.reads, 10, 0, 0.0, 0.0
    region_px = 0
    found = False
    while now - gone < 2.0:
        index = max(index, int(np.ceil(now * FPS - 1e-9)))
        now = max(now, index / FPS)
        before_net, pixels_before = timed.spent, reader.pixels_read
        began = clock()
        seen = reader(Frame(laid, index / FPS, index, laid_watch))
        work = clock() - began
        net = timed.spent - before_net
        if reader.reads > reads_before and region_s == 0.0:
            region_s, net_s, region_px = work, net, reader.pixels_read - pixels_before
        scaled = (net * PI4_NET + (work - net) * PI4_CPU) if pi else work
        now += scaled
        index += 1
        found = found or any(s.card == name and math.dist(centroid(s.corners), centre)
                             < 0.5 * max(card[1].shape) for s in seen)
        settled_frames = settled_frames + 1 if found else 0
        if settled_frames >= appear_frames:
            break
    total = now - gone + to_led_s * (PI4_CPU if pi else 1.0)
    return {"laid_to_led_ms": total * 1000, "region_ms": region_s * 1000,
            "recogniser_ms": net_s * 1000, "region_pixels": region_px,
            "read": found, "reads": reader.reads - reads_before}


def laid_cards(*, frames: int = 300, cpu: bool = False, still_frames: int = 3
               ) -> dict[str, Any]:
    """The still table (``frames`` frames), then four real cards laid, here and as a Pi 4."""
    clock: Clock = time.thread_time if cpu else time.perf_counter
    cv2.setNumThreads(1)
    root = datasets_root()
    folder = None if root is None else root / "epfl-iapr2022-poker-3000"
    if folder is None or not folder.is_dir():
        raise SystemExit("live_path laid-cards: ../shared/datasets/epfl-iapr2022-poker-3000 "
                         "is missing")
    tables = [load(folder / name) for name in TABLES]
    cards = card_crops(load(folder / CARDS_FROM))[:4]

    # A still table: the watch stream given beside the frame (picamera2's lores).
    reader = StreamReader(CameraRecogniser(), frame_size=FULL)
    watch = watch_image(tables[0], WATCH)
    for i in range(6):
        reader(Frame(tables[0], i / FPS, i, watch))
    reads = reader.reads
    still = []
    for i in range(frames):
        began = clock()
        reader(Frame(tables[0], i / FPS, i, watch))
        still.append(clock() - began)
    copies = []
    for _ in range(30):
        began = clock()
        watch_image(tables[0], WATCH)
        copies.append(clock() - began)

    to_led = latency(2, 3, None)["median_ms"] / 1000
    appear = DEVICE_TRACKER.appear_frames  # the device's tracker behind a StreamReader
    laid_here, laid_pi = [], []
    for k, (name, crop, mask) in enumerate(cards):
        table = tables[k % len(tables)]
        at = PLACES[k % len(PLACES)]
        laid_here.append(dict(lay(table, name, (crop, mask), at, pi=False, appear_frames=appear,
                                  to_led_s=to_led, clock=clock, still_frames=still_frames),
                              card=str(name)))
        laid_pi.append(lay(table, name, (crop, mask), at, pi=True, appear_frames=appear,
                           to_led_s=to_led, clock=clock, still_frames=still_frames))

    return {
        "frame": f"{FULL[0]}x{FULL[1]}", "watch": f"{WATCH[0]}x{WATCH[1]}",
        "clock": "thread CPU" if cpu else "wall",
        "still_ms": {"median": round(statistics.median(still) * 1000, 3),
                     "mean": round(statistics.fmean(still) * 1000, 3),  # with the focus meter
                     "p95": round(p95(still) * 1000, 3),
                     "reads_while_still": reader.reads - reads},
        "watch_copy_ms": round(statistics.median(copies) * 1000, 2),
        "cards_laid": [{k: (round(v, 1) if isinstance(v, float) else v) for k, v in r.items()}
                       for r in laid_here],
        "region_ms_median": round(statistics.median(r["region_ms"] for r in laid_here), 1),
        "laid_to_led_ms_median": round(statistics.median(r["laid_to_led_ms"]
                                                         for r in laid_here), 1),
        "pi4": {"still_ms": round(statistics.median(still) * 1000 * PI4_CPU, 2),
                "region_ms_median": round(statistics.median(
                    r["recogniser_ms"] * PI4_NET + (r["region_ms"] - r["recogniser_ms"]) * PI4_CPU
                    for r in laid_here), 1),
                "laid_to_led_ms_median": round(statistics.median(
                    r["laid_to_led_ms"] for r in laid_pi), 1),
                "laid_to_led_ms_max": round(max(r["laid_to_led_ms"] for r in laid_pi), 1)},
        "card_to_led_ms": round(to_led * 1000, 2),
    }
