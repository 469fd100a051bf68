"""Reads the table only where it changed: the device's two-resolution way of watching.

Reading a whole full-resolution frame costs tens of milliseconds on a Pi; a table where
nothing moves should cost almost nothing. So ``ChangeWatcher`` compares each frame's
small grey ``watch`` image, cell by cell, with the one before (is anything moving?) and
with the settled table (has anything changed?). A region that changed and has stopped
moving for ``still_frames`` frames (the hand has gone) is handed on, once; a hand that
passes over and leaves the table as it was changes nothing, so nothing is read.

``StreamReader`` reads those regions from the full-resolution frame, padded to whole
cards, and keeps every other card's last reading, so the tracker still gets the full set
of detections each frame (a card taken away is a change too: its region is read empty).
What lies still in view when the reader starts is the table, not a laid card: printed
cards on a play mat, a card box. Its readings are remembered as *table art* and nothing
read in the same place is ever reported (a real card laid exactly on a printed one is
missed: a missing card can be entered by hand, a wrong one would be scored). The one
exception is what the game itself says lies on the table (``on_table``): a device
restarted mid-deal sees the starter and the cards laid so far, and those are cards,
kept like any other reading, so the places where players lay their cards never turn
into blind spots for the rest of the night.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import cv2
import numpy as np
import numpy.typing as npt

from engine.cards import Card
from vision.live.sources import Frame, default_watch_size, watch_image
from vision.live.tracker import Seen, long_side
from vision.live.zones import centroid
from vision.recognise.detection import Detection
from vision.recognise.frames import check_frame
from vision.recognise.whole_cards import CARD_SIZES

__all__ = ["WatchSettings", "Region", "ChangeWatcher", "StreamReader", "Box"]

Image = npt.NDArray[np.uint8]
Box = tuple[int, int, int, int]  # x0, y0, x1, y1 in pixels, x1 and y1 excluded
Point = tuple[float, float]
Corners = tuple[Point, Point, Point, Point]


class Recognise(Protocol):
    """Reads a full-resolution BGR image (a crop of a frame) whose cards are ``card_px`` tall:
    ``vision.recognise.detection.CameraRecogniser``."""

    def __call__(self, image: Image, *, card_px: float | None = None) -> Sequence[Seen]: ...


@dataclass(frozen=True, slots=True)
class WatchSettings:
    """What counts as movement and as change, in the watch stream's grey levels.

    A cell is ``cell`` watch pixels square and its level is the mean grey change over it,
    which averages the sensor's noise away: a card laid, or a hand, moves a cell by tens of
    levels; noise and a flicker of light by one or two.
    """

    cell: int = 8
    motion_level: float = 6.0  # mean change from the frame before: the cell is moving
    change_level: float = 10.0  # mean change from the settled table: the cell has changed
    still_frames: int = 3  # frames without movement before a change is read (hand gone)
    card_fraction: float = 0.125  # a card's long side as a share of the frame's height

    def __post_init__(self) -> None:
        if self.cell < 1 or self.still_frames < 1:
            raise ValueError(f"cell and still_frames must be at least 1: {self!r}")
        if not (self.motion_level > 0 and self.change_level > 0):
            raise ValueError(f"motion_level and change_level must be positive: {self!r}")
        if not 0 < self.card_fraction <= 1:
            raise ValueError(f"card_fraction must be a share of the frame, not "
                             f"{self.card_fraction!r}")


@dataclass(frozen=True, slots=True)
class Region:
    """A part of the watch image to read again, in watch pixels; ``whole`` for the first
    reading of the table, when there was no settled table to compare with."""

    box: Box
    whole: bool = False


class ChangeWatcher:
    """Follows the watch stream; ``update`` says which regions to read now (usually none).

    >>> watcher = ChangeWatcher((576, 324))
    """

    def __init__(self, size: tuple[int, int], *, settings: WatchSettings | None = None) -> None:
        self.size = size
        self.settings = settings or WatchSettings()
        cell = self.settings.cell
        self._grid = (max(1, size[0] // cell), max(1, size[1] // cell))
        self._reference: npt.NDArray[np.float32] | None = None  # the settled table, per cell
        self._previous: npt.NDArray[np.float32] | None = None
        self._moved = np.full((self._grid[1], self._grid[0]), -1_000_000, np.int64)
        self._count = 0

    def update(self, watch: Image) -> list[Region]:
        """One frame's grey watch image; the regions that changed and are now still."""
        if watch.ndim != 2 or (watch.shape[1], watch.shape[0]) != self.size:
            raise ValueError(f"ChangeWatcher expects a grey {self.size[0]}x{self.size[1]} "
                             f"watch image, got shape {watch.shape}")
        cells = cv2.resize(watch, self._grid, interpolation=cv2.INTER_AREA).astype(np.float32)
        self._count += 1
        previous, self._previous = self._previous, cells
        if previous is not None:
            self._moved[np.abs(cells - previous) > self.settings.motion_level] = self._count
        still = self._count - self._moved >= self.settings.still_frames
        if self._reference is None:
            if previous is None or not still.all():
                return []
            self._reference = cells.copy()
            return [Region((0, 0, *self.size), whole=True)]
        changed = np.abs(cells - self._reference) > self.settings.change_level
        if not changed.any():
            return []
        return self._settled(changed, still, cells, self._reference)

    def _settled(self, changed: npt.NDArray[np.bool_], still: npt.NDArray[np.bool_],
                 cells: npt.NDArray[np.float32], reference: npt.NDArray[np.float32]
                 ) -> list[Region]:
        """The changed areas with no movement in or next to them, settled into the table."""
        grown = cv2.dilate(changed.astype(np.uint8), np.ones((3, 3), np.uint8))
        count, labels, stats, _ = cv2.connectedComponentsWithStats(grown, connectivity=8)
        cell = self.settings.cell
        regions: list[Region] = []
        for label in range(1, count):
            x, y, w, h = (int(v) for v in stats[label, :4])
            area = labels[y:y + h, x:x + w] == label
            if not still[y:y + h, x:x + w][area].all():
                continue
            reference[y:y + h, x:x + w][area] = cells[y:y + h, x:x + w][area]
            regions.append(Region((x * cell, y * cell, min(self.size[0], (x + w) * cell),
                                   min(self.size[1], (y + h) * cell))))
        return regions


@dataclass(slots=True)
class _Reading:
    """What ``StreamReader`` knows: the settled detections, and the table's own art."""

    cards: list[Seen] = field(default_factory=list)
    art: list[Seen] = field(default_factory=list)


class StreamReader:
    """``reader(frame) -> detections``: the full set for every frame, read where it changed.

    ``recognise`` reads a full-resolution BGR image
    (``vision.recognise.detection.CameraRecogniser``);
    it is called on padded crops of the changed regions only, and once on the whole frame
    when the table first settles, which is when the table's art is learnt. Each call is told
    the expected card height (``card_px``: the calibrated one where given, else the
    settings' ``card_fraction`` of the frame's height), so a crop is read at the cards'
    scale, whatever its own size. ``on_table`` names the cards the game has on the table
    (the device's store), which are never taken for art. ``reads`` and ``pixels_read``
    count the work, for tests and benchmarks.
    """

    def __init__(self, recognise: Recognise, *, frame_size: tuple[int, int],
                 watch_size: tuple[int, int] | None = None,
                 settings: WatchSettings | None = None, learn_art: bool = True,
                 on_table: Callable[[], Collection[Card]] | None = None,
                 card_px: float | None = None) -> None:
        if card_px is not None and not card_px > 0:
            raise ValueError(f"card_px must be a card's long side in pixels, not {card_px!r}")
        self.recognise = recognise
        self.frame_size = frame_size
        self.watch_size = watch_size or default_watch_size(frame_size)
        self.watcher = ChangeWatcher(self.watch_size, settings=settings)
        self.card_px = (self.watcher.settings.card_fraction * frame_size[1] if card_px is None
                        else card_px)
        self.learn_art = learn_art
        self.on_table = on_table
        self.reads = 0
        self.pixels_read = 0
        self._reading = _Reading()

    @property
    def art(self) -> tuple[Seen, ...]:
        """The table's own readings (printed cards, a card box): never reported."""
        return tuple(self._reading.art)

    def __call__(self, frame: Frame) -> list[Seen]:
        image = frame.image
        check_frame(image, "StreamReader")
        if (image.shape[1], image.shape[0]) != self.frame_size:
            raise ValueError(f"StreamReader expects {self.frame_size[0]}x{self.frame_size[1]} "
                             f"frames ([camera] size), got {image.shape[1]}x{image.shape[0]}")
        watch = frame.watch if frame.watch is not None else watch_image(image, self.watch_size)
        for region in self.watcher.update(watch):
            self._read(image, region)
        return list(self._reading.cards)

    def _read(self, image: Image, region: Region) -> None:
        core, box = self._boxes(region)
        x0, y0, x1, y1 = box
        crop = image[y0:y1, x0:x1]
        found = [_shift(seen, x0, y0) for seen in self.recognise(crop, card_px=self.card_px)]
        self.reads += 1
        self.pixels_read += (x1 - x0) * (y1 - y0)
        found = [seen for seen in found if _inside(centroid(seen.corners), core)
                 and self._physical(seen)]
        reading = self._reading
        if region.whole and self.learn_art:
            known = set(self.on_table()) if self.on_table is not None else set()
            reading.art = [s for s in found if s.card not in known]
            reading.cards = [s for s in found if s.card in known]
            return
        # Art is the table's for good: a hand resting on the mat hides it for a while, and
        # when the hand goes it is the same print, not cards laid.
        found = [s for s in found if not any(self._same_place(a, s) for a in reading.art)]
        reading.cards = [s for s in reading.cards
                         if not _inside(centroid(s.corners), core)] + found

    def _boxes(self, region: Region) -> tuple[Box, Box]:
        """The changed region in frame pixels grown by a quarter card (the cards it changed:
        their centres lie in it), and that grown by half a card (those cards whole).

        The read costs its pixels, so the margins are no wider than a card needs: a card
        laid or taken changes the whole of its own outline, and one moved a little changes
        the cells round its centre.
        """
        sx = self.frame_size[0] / self.watch_size[0]
        sy = self.frame_size[1] / self.watch_size[1]
        x0, y0, x1, y1 = region.box
        if region.whole:
            return (0, 0, *self.frame_size), (0, 0, *self.frame_size)
        quarter, half = math.ceil(self.card_px / 4), math.ceil(self.card_px / 2)
        core = self._clip((int(x0 * sx) - quarter, int(y0 * sy) - quarter,
                           math.ceil(x1 * sx) + quarter, math.ceil(y1 * sy) + quarter))
        box = self._clip((core[0] - half, core[1] - half, core[2] + half, core[3] + half))
        return core, box

    def _clip(self, box: Box) -> Box:
        w, h = self.frame_size
        return (max(0, box[0]), max(0, box[1]), min(w, box[2]), min(h, box[3]))

    def _physical(self, seen: Seen) -> bool:
        """Whether a reading has the size of a card lying on this table (an outline
        between half and twice a card's expected length, the range the recogniser searches:
        ``vision.recognise.whole_cards.CARD_SIZES``): a card's index alone, or a picture card's face
        read as a small card, is no card laid."""
        low, high = CARD_SIZES
        return low * self.card_px <= long_side(seen.corners) <= high * self.card_px

    def _same_place(self, art: Seen, seen: Seen) -> bool:
        """Whether ``seen`` lies where a piece of the table's art lies (a third of a card)."""
        return math.dist(centroid(art.corners), centroid(seen.corners)) <= self.card_px / 3


def _inside(point: Point, box: Box) -> bool:
    return box[0] <= point[0] < box[2] and box[1] <= point[1] < box[3]


def _shift(seen: Seen, dx: int, dy: int) -> Seen:
    c = seen.corners
    corners: Corners = ((c[0][0] + dx, c[0][1] + dy), (c[1][0] + dx, c[1][1] + dy),
                        (c[2][0] + dx, c[2][1] + dy), (c[3][0] + dx, c[3][1] + dy))
    return Detection(seen.card, corners, seen.confidence)
