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
cards on a play mat, a card box. Its readings are remembered as *table art*. Art that
names a card (a print) swallows whatever is later read in the same place (a real card
laid exactly on a printed one is missed: a missing card can be entered by hand, a wrong
one would be scored); art that names none (the face-down deck, the crib, a card box)
swallows only readings that name none either, so the starter turned face up on top of
the deck, or the crib turned over where it lay, is read. The one exception is what the
game itself says lies on the table (``on_table``): a device restarted mid-deal sees the
starter and the cards laid so far, and those are cards, kept like any other reading, so
the places where players lay their cards never turn into blind spots for the rest of
the night.

Readings are given in the settled table's pixels: when the whole view shifts (the camera
knocked: ``ChangeWatcher``'s registration), every card and piece of art keeps its place
on the table, and the tracker sees no card move, come or go. The camera's focus is
measured here, every frame the meter asks for (``vision.recognise.focus.FocusMeter.frame``),
round one card on the table after another, at the cards' scale: the recogniser sees only
crops, and only when something changed, so its calls cannot time the meter.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

import cv2
import numpy as np
import numpy.typing as npt

from engine.cards import Card
from vision.live.frames import REREADS, SURE, combine, sure
from vision.live.sources import Frame, default_watch_size, watch_image
from vision.live.tracker import Seen, long_side
from vision.live.zones import centroid
from vision.recognise.detection import Detection, index_centres
from vision.recognise.focus import FocusMeter
from vision.recognise.frames import check_frame
from vision.recognise.whole_cards import CARD_SIZES

__all__ = ["WatchSettings", "Region", "ChangeWatcher", "StreamReader", "Box",
           "WindowedRecognise", "INDEX_MARGIN"]

Image = npt.NDArray[np.uint8]
Box = tuple[int, int, int, int]  # x0, y0, x1, y1 in pixels, x1 and y1 excluded
Point = tuple[float, float]
Corners = tuple[Point, Point, Point, Point]
#: A box of more frame pixels than this (a 1280x720 frame's; the whole table of a 2304x1296
#: camera when it settles) is read in tiles of at most ``TILE_CARDS`` card lengths each way,
#: grown by ``TILE_MARGIN`` card lengths (``_tiles``).
TILE_ABOVE_PX = 1280 * 720
TILE_CARDS = 5.0
TILE_MARGIN = 0.65
#: Index pairs are searched only in a read's core (the changed cells grown by a quarter card)
#: grown by this many card lengths; outlines in the whole box (``StreamReader._look``).
INDEX_MARGIN = 0.2


class Recognise(Protocol):
    """Reads a full-resolution BGR image (a crop of a frame) whose cards are ``card_px`` tall:
    ``vision.recognise.detection.CameraRecogniser``."""

    def __call__(self, image: Image, *, card_px: float | None = None) -> Sequence[Seen]: ...


class WindowedRecognise(Protocol):
    """A ``Recognise`` that may confine its search for indices to ``index_window`` (crop
    pixels) and says so (``reads_index_window``): ``CameraRecogniser``."""

    reads_index_window: bool

    def __call__(self, image: Image, *, card_px: float | None = None,
                 index_window: Box | None = None) -> Sequence[Seen]: ...


@dataclass(frozen=True, slots=True)
class WatchSettings:
    """What counts as movement and as change, in the watch stream's grey levels.

    A cell is ``cell`` watch pixels square and its level is the mean grey change over it,
    which averages the sensor's noise away: a card laid, or a hand, moves a cell by tens of
    levels; noise by one or two. A change of the light over the whole view (a lamp's flicker,
    the camera's exposure: a white card moves by several levels) is divided out first, by the
    median ratio of the cells to the frame compared with.
    """

    cell: int = 8
    motion_level: float = 6.0  # mean change from the frame before: the cell is moving
    change_level: float = 10.0  # mean change from the settled table: the cell has changed
    still_frames: int = 3  # frames without movement before a change is read (hand gone)
    card_fraction: float = 0.125  # a card's long side as a share of the frame's height
    # A still change this large (share of the cells) is first tried as the whole view
    # shifted (a bumped camera, a nudged table): ``ChangeWatcher._register``, 3-4 ms for a
    # 576x324 watch image. A card laid changes under 1% of them; a knock moving the deck and
    # two cards, several per cent.
    shift_cells: float = 0.03

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

    A bumped camera (or a nudged table) changes the whole view at once: every card's
    outline moves. Before such a change is read, the view is registered against the settled
    table (phase correlation of the two watch images). When one shift explains it (at most
    half the changed cells still differ once the settled table is moved by it, and nine in
    ten of the cells the shift would change did change: a card laid at the end of a row of
    like cards matches the row moved by one card, but the row's first card did not go),
    the settled table is moved by it, ``offset`` (watch pixels, since the first settled
    table) grows by it, and only what the shift does not explain is read. What the shift
    brings into view at an edge joins the settled table unread: it was there, out of view.

    >>> watcher = ChangeWatcher((576, 324))
    """

    def __init__(self, size: tuple[int, int], *, settings: WatchSettings | None = None) -> None:
        self.size = size
        self.settings = settings or WatchSettings()
        cell = self.settings.cell
        self._grid = (max(1, size[0] // cell), max(1, size[1] // cell))
        self._reference: npt.NDArray[np.float32] | None = None  # the settled table, per cell
        self._table: Image | None = None  # the settled table, in watch pixels
        self._previous: npt.NDArray[np.float32] | None = None
        self._moved = np.full((self._grid[1], self._grid[0]), -1_000_000, np.int64)
        self._count = 0
        self.offset: Point = (0.0, 0.0)  # the view's shift since the first settled table
        self.shifts = 0  # how many times the whole view was found shifted
        self._window: npt.NDArray[Any] | None = None  # phase correlation's taper

    def update(self, watch: Image) -> list[Region]:
        """One frame's grey watch image; the regions that changed and are now still."""
        if watch.ndim != 2 or (watch.shape[1], watch.shape[0]) != self.size:
            raise ValueError(f"ChangeWatcher expects a grey {self.size[0]}x{self.size[1]} "
                             f"watch image, got shape {watch.shape}")
        cells = cv2.resize(watch, self._grid, interpolation=cv2.INTER_AREA).astype(np.float32)
        self._count += 1
        previous, self._previous = self._previous, cells
        if previous is not None:
            lit = cells / _gain(cells, previous)  # in the previous frame's light
            self._moved[np.abs(lit - previous) > self.settings.motion_level] = self._count
        still = self._count - self._moved >= self.settings.still_frames
        if self._reference is None:
            if previous is None or not still.all():
                return []
            self._reference = cells.copy()
            self._table = watch.copy()
            return [Region((0, 0, *self.size), whole=True)]
        cells = cells / _gain(cells, self._reference)  # in the settled table's light
        changed = np.abs(cells - self._reference) > self.settings.change_level
        if not changed.any():
            return []
        if still.all() and changed.sum() >= max(4, self.settings.shift_cells * changed.size):
            changed = self._register(watch, cells, changed)
            if not changed.any():
                return []
        return self._settled(changed, still, cells, self._reference, watch)

    def _register(self, watch: Image, cells: npt.NDArray[np.float32],
                  changed: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
        """The changed cells once the settled table is moved by the view's shift, where one
        shift explains the change (the class's docstring); else ``changed`` as it was."""
        assert self._table is not None and self._reference is not None
        table = self._table.astype(np.float32)
        if self._window is None:
            self._window = cv2.createHanningWindow((self.size[0], self.size[1]), cv2.CV_32F)
        (dx, dy), _ = cv2.phaseCorrelate(table, watch.astype(np.float32), self._window)
        if math.hypot(dx, dy) < 1.0 or abs(dx) > self.size[0] / 4 or abs(dy) > self.size[1] / 4:
            return changed
        move = np.array([[1, 0, dx], [0, 1, dy]], np.float32)
        moved = cv2.warpAffine(self._table, move, self.size, flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        inside = cv2.warpAffine(np.full_like(self._table, 255), move, self.size,
                                flags=cv2.INTER_NEAREST, borderValue=0)
        # What the shift brought into view at an edge was there before, out of sight.
        table_now: Image = np.where(inside > 0, moved, watch).astype(np.uint8)
        reference = cv2.resize(table_now, self._grid, interpolation=cv2.INTER_AREA).astype(
            np.float32)
        covered = cv2.resize(inside, self._grid, interpolation=cv2.INTER_AREA) >= 255
        level = self.settings.change_level
        after = (np.abs(cells - reference) > level) & covered
        # The shift must explain the change (little left once the table is moved by it), and
        # the change must be the shift's: every part of the table it would change changed.
        # A card laid beside another one can match the other under a shift; the other card,
        # which the shift would move too, did not change.
        predicted = (np.abs(self._reference - reference) > level) & covered
        if (not predicted.any() or after.sum() > 0.5 * (changed & covered).sum()
                or (predicted & changed).sum() < 0.9 * predicted.sum()):
            return changed
        reference[~covered] = cells[~covered]
        self._table, self._reference = table_now, reference
        self.offset = (self.offset[0] + dx, self.offset[1] + dy)
        self.shifts += 1
        still_changed: npt.NDArray[np.bool_] = np.abs(cells - reference) > \
            self.settings.change_level
        return still_changed

    def _settled(self, changed: npt.NDArray[np.bool_], still: npt.NDArray[np.bool_],
                 cells: npt.NDArray[np.float32], reference: npt.NDArray[np.float32],
                 watch: Image) -> list[Region]:
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
            if self._table is not None:  # the settled table's pixels, for registration
                px0, py0 = self._pixel(x, y)
                px1, py1 = self._pixel(x + w, y + h)
                self._table[py0:py1, px0:px1] = watch[py0:py1, px0:px1]
            regions.append(Region((x * cell, y * cell, min(self.size[0], (x + w) * cell),
                                   min(self.size[1], (y + h) * cell))))
        return regions

    def moving(self, box: Box) -> bool:
        """Whether anything moved in the last frame within ``box`` (watch pixels)."""
        gx, gy = self._grid
        x0, y0 = int(box[0] * gx / self.size[0]), int(box[1] * gy / self.size[1])
        x1 = max(x0 + 1, math.ceil(box[2] * gx / self.size[0]))
        y1 = max(y0 + 1, math.ceil(box[3] * gy / self.size[1]))
        return bool((self._moved[y0:y1, x0:x1] == self._count).any())

    def _pixel(self, gx: int, gy: int) -> tuple[int, int]:
        """A cell corner in watch pixels (a cell is ``size / grid`` pixels, not always
        exactly ``cell``)."""
        return (round(gx * self.size[0] / self._grid[0]),
                round(gy * self.size[1] / self._grid[1]))


@dataclass(slots=True)
class _Pending:
    """A region read once with unsure readings, read again in the next still frames
    (``vision.live.frames``): its boxes in frame pixels, the view's shift count when it was
    read, each unsure card's readings so far, how many more frames it is read in, the
    pixels last read there, and the earlier readings that stand in its unsure cards' places
    meanwhile (the combined readings replace these, and only these: ``_report``)."""

    core: Box
    box: Box
    shifts: int
    readings: list[list[Seen]]
    left: int
    pixels: Image
    kept: list[Seen] = field(default_factory=list)


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
        self._at_start: tuple[Seen, ...] | None = None
        # Reading over several frames (``vision.live.frames``): a reading below ``sure`` is
        # read again in up to ``rereads`` more still frames and the readings combined.
        self.sure = SURE
        self.rereads = REREADS
        self._pending: list[_Pending] = []
        # Where the recogniser can (``WindowedRecognise``), indices are searched only within
        # ``index_margin`` card lengths of a read's core (``_look``); None: the whole box.
        self.index_margin: float | None = INDEX_MARGIN

    @property
    def focus(self) -> FocusMeter | None:
        """The recogniser's focus meter (``CameraRecogniser``'s), which this reader hands
        every whole frame (``FocusMeter.frame``); None for a recogniser without one."""
        meter = getattr(self.recognise, "focus", None)
        return meter if isinstance(meter, FocusMeter) else None

    @property
    def offset(self) -> Point:
        """How far the view has shifted since the table first settled, in frame pixels
        (readings are given without it: in the first settled table's pixels)."""
        ox, oy = self.watcher.offset
        return (ox * self.frame_size[0] / self.watch_size[0],
                oy * self.frame_size[1] / self.watch_size[1])

    @property
    def art(self) -> tuple[Seen, ...]:
        """The table's own readings (printed cards, a card box): never reported."""
        return tuple(self._reading.art)

    @property
    def at_start(self) -> tuple[Seen, ...] | None:
        """The cards read on the table when it first settled and taken for its art (a card
        printed on the mat, or a real card that lay there before the board started: the
        reader cannot tell them apart, so the players are told: ``firmware.table.words``);
        None until the table has settled. Cards the game says lie there (``on_table``) are
        not among them."""
        return self._at_start

    def __call__(self, frame: Frame) -> list[Seen]:
        image = frame.image
        check_frame(image, "StreamReader")
        if (image.shape[1], image.shape[0]) != self.frame_size:
            raise ValueError(f"StreamReader expects {self.frame_size[0]}x{self.frame_size[1]} "
                             f"frames ([camera] size), got {image.shape[1]}x{image.shape[0]}")
        watch = frame.watch if frame.watch is not None else watch_image(image, self.watch_size)
        meter = self.focus
        if meter is not None:
            # Where to measure is worked out only on the frames the meter measures.
            meter.frame(self._focus_view(image, meter) if meter.due else image,
                        card_px=self.card_px)
        regions = self.watcher.update(watch)
        self._read_again(image, regions)
        for region in regions:
            self._read(image, region)
        return list(self._reading.cards)

    def _focus_view(self, image: Image, meter: FocusMeter) -> Image:
        """Where the meter measures this frame: round the cards read so far, one after
        another (a card's index and edges are where focus shows, and a card-sized crop
        costs a millisecond where the whole 2304x1296 frame costs thirty), else the whole
        frame."""
        known = self._reading.cards + self._reading.art
        if not known:
            return image
        seen = known[(meter.frames // meter.every) % len(known)]
        ox, oy = self.offset
        xs = [p[0] + ox for p in seen.corners]
        ys = [p[1] + oy for p in seen.corners]
        grow = self.card_px / 4
        x0, y0, x1, y1 = self._clip((int(min(xs) - grow), int(min(ys) - grow),
                                     math.ceil(max(xs) + grow), math.ceil(max(ys) + grow)))
        return image if x1 - x0 < 8 or y1 - y0 < 8 else image[y0:y1, x0:x1]

    def _read(self, image: Image, region: Region) -> None:
        core, box = self._boxes(region)
        found = self._look(image, core, box)
        core_on_table = self._on_table(core)
        reading = self._reading
        if region.whole and self.learn_art:
            known = set(self.on_table()) if self.on_table is not None else set()
            reading.art = [s for s in found if s.card not in known]
            reading.cards = [s for s in found if s.card in known]
            self._at_start = tuple(s for s in reading.art if s.card is not None)
            return
        if region.whole:
            self._at_start = ()
        # Art is the table's for good: a hand resting on the mat hides it for a while, and
        # when the hand goes it is the same print, not cards laid.
        found = [s for s in found if not any(self._swallows(a, s) for a in reading.art)]
        unsure = [s for s in found if not sure(s, threshold=self.sure)]
        kept: list[Seen] = []
        if unsure and self.rereads > 0 and not region.whole:
            # Held back until read in the next still frames too (``_read_again``); what was
            # read there before stands meanwhile, so the tracker loses no card for a frame.
            x0, y0, x1, y1 = box
            found = [s for s in found if sure(s, threshold=self.sure)]
            # An earlier reading of a card read sure now is that card's, not an unsure one's.
            now = {s.card for s in found}
            kept = [s for s in reading.cards if s.card not in now
                    and any(self._same_place(s, u) for u in unsure)]
            self._pending.append(_Pending(core, box, self.watcher.shifts,
                                          [[s] for s in unsure], self.rereads,
                                          image[y0:y1, x0:x1].copy(), kept))
        reading.cards = [s for s in reading.cards
                         if not _inside(centroid(s.corners), core_on_table)] + kept + found

    def _read_again(self, image: Image, regions: Sequence[Region]) -> None:
        """Reads the regions held back for unsure readings once more, in still frames only (a
        hand back over one waits: if it leaves the table changed, the region is read afresh),
        and reports each once it is sure or read ``rereads`` more times, or at once when the
        view shifted or the frame repeats the last one read there (a replayed still, the demo's
        camera: the same pixels read the same, no new evidence)."""
        fresh = [self._boxes(r)[0] for r in regions]
        for pending in list(self._pending):
            self._pending.remove(pending)
            if any(_overlap(pending.core, core) for core in fresh):
                continue  # read afresh this frame: the new reading replaces these
            if self.watcher.moving(self._watch_box(pending.core)):
                self._pending.append(pending)  # a hand over it: read again once it is still
                continue
            x0, y0, x1, y1 = pending.box
            if (self.watcher.shifts != pending.shifts
                    or np.array_equal(image[y0:y1, x0:x1], pending.pixels)):
                self._report(pending)
                continue
            pending.pixels = image[y0:y1, x0:x1].copy()
            found = self._look(image, pending.core, pending.box)
            for readings in pending.readings:
                at = centroid(readings[0].corners)
                near = [s for s in found
                        if math.dist(centroid(s.corners), at) <= self.card_px / 3]
                if near:
                    readings.append(min(near, key=lambda s: math.dist(centroid(s.corners), at)))
            pending.left -= 1
            if pending.left <= 0 or all(sure(combine(r), threshold=self.sure)
                                        for r in pending.readings):
                self._report(pending)
            else:
                self._pending.append(pending)

    def _report(self, pending: _Pending) -> None:
        """A held-back region's readings, each combined over its frames, in place of what was
        read there before (``_Pending.kept``). Not in place of every reading near them: a
        fanned hand's cards lie a fifth of a card apart, and a card read sure beside an unsure
        neighbour was dropped when the neighbour was reported (the EPFL dev loop at 1280x720
        lost 3 of 163 cards so)."""
        combined: list[Seen] = [combine(readings) for readings in pending.readings]
        self._reading.cards = [s for s in self._reading.cards
                               if not any(s is k for k in pending.kept)] + combined

    def _same_place(self, a: Seen, b: Seen) -> bool:
        """Whether two readings lie in one card's place (their centres a third of a card apart)."""
        return math.dist(centroid(a.corners), centroid(b.corners)) <= self.card_px / 3

    def _watch_box(self, box: Box) -> Box:
        sx = self.frame_size[0] / self.watch_size[0]
        sy = self.frame_size[1] / self.watch_size[1]
        return (int(box[0] / sx), int(box[1] / sy), math.ceil(box[2] / sx),
                math.ceil(box[3] / sy))

    def _look(self, image: Image, core: Box, box: Box) -> list[Seen]:
        """The card-sized readings in ``box`` (frame pixels) centred in ``core``, in the
        settled table's pixels. A box larger than ``TILE_ABOVE_PX`` is read tile by tile
        (``_tiles``), so the recogniser's working images never span a whole large frame."""
        found: list[Seen] = []
        named: list[set[Card]] = []  # each of ``found``'s: every card its tile read
        window = self._index_window(core)
        for tile_core, tile in _tiles(core, box, self.card_px):
            earlier = len(found)  # readings of one tile are all kept (a fanned pair: two)
            inside, every = self._look_once(image, tile_core, tile, window)
            cards = {s.card for s in every if s.card is not None}
            for seen in inside:
                twin = next((i for i in range(earlier) if self._same_place(found[i], seen)
                             and not _two_cards(found[i], seen, (named[i], cards))), None)
                if twin is None:
                    found.append(seen)
                    named.append(cards)
                elif seen.confidence > found[twin].confidence:
                    found[twin] = seen  # one card read from two tiles: the surer reading
        self.reads += 1
        self.pixels_read += (box[2] - box[0]) * (box[3] - box[1])
        return found

    def _index_window(self, core: Box) -> Box | None:
        """Where ``_look`` searches for index pairs (frame pixels); None: all of the box.

        A card laid or taken changes the whole of its outline, so its indices lie in the
        changed cells: the core (those grown by a quarter card) grown by ``index_margin`` of
        a card. A card read before whose centre lies in the core is read again too, though the
        change may not have touched it (the next card of a pegging pile): the window reaches
        round its indices as well (without that the demo's game lost two cards to the board).
        """
        # Asked on each read: the demo and tests hand the reader another recogniser later.
        if self.index_margin is None or \
                getattr(self.recognise, "reads_index_window", False) is not True:
            return None
        grow = math.ceil(self.index_margin * self.card_px)
        x0, y0, x1, y1 = core[0] - grow, core[1] - grow, core[2] + grow, core[3] + grow
        near = self._on_table(core)
        ox, oy = self.offset
        known = self._reading.cards + [r[0] for p in self._pending for r in p.readings]
        for seen in known:
            if not _inside(centroid(seen.corners), near):
                continue
            for cx, cy in index_centres(seen.corners)[0]:
                x0, y0 = min(x0, math.floor(cx + ox) - grow), min(y0, math.floor(cy + oy) - grow)
                x1, y1 = max(x1, math.ceil(cx + ox) + grow), max(y1, math.ceil(cy + oy) + grow)
        return self._clip((x0, y0, x1, y1))

    def _look_once(self, image: Image, core: Box, box: Box, window: Box | None = None
                   ) -> tuple[list[Seen], list[Seen]]:
        """``_look`` in one call of the recogniser: the readings centred in ``core``, and all
        it read in ``box`` (which cards the crop holds: ``_two_cards``). Indices are searched
        only within ``window`` (frame pixels) where it leaves out part of ``box``."""
        x0, y0, x1, y1 = box
        crop = image[y0:y1, x0:x1]
        inner = None if window is None else (max(window[0], x0) - x0, max(window[1], y0) - y0,
                                             min(window[2], x1) - x0, min(window[3], y1) - y0)
        if inner is not None and (inner == (0, 0, x1 - x0, y1 - y0)
                                  or inner[2] - inner[0] < 2 or inner[3] - inner[1] < 2):
            inner = None  # all of the box (or a tile that misses it: searched as before)
        if inner is None:
            seen_here = self.recognise(crop, card_px=self.card_px)
        else:
            windowed = cast(WindowedRecognise, self.recognise)
            seen_here = windowed(crop, card_px=self.card_px, index_window=inner)
        # Frame pixels to the settled table's: the view may have shifted since.
        ox, oy = self.offset
        found = [_shift(seen, x0 - ox, y0 - oy) for seen in seen_here]
        core_on_table = self._on_table(core)
        return [seen for seen in found if _inside(centroid(seen.corners), core_on_table)
                and self._physical(seen)], found

    def _on_table(self, box: Box) -> tuple[float, float, float, float]:
        """A box in frame pixels, in the settled table's pixels (the view's shift taken off)."""
        ox, oy = self.offset
        return (box[0] - ox, box[1] - oy, box[2] - ox, box[3] - oy)

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

    def _swallows(self, art: Seen, seen: Seen) -> bool:
        """Whether a piece of the table's art hides ``seen``: it lies in the same place (a
        third of a card) and the art names a card (a print), or neither names one (the
        deck's back read again). A card named on unnamed art is a card laid on it."""
        if art.card is None and seen.card is not None:
            return False
        return math.dist(centroid(art.corners), centroid(seen.corners)) <= self.card_px / 3


def _gain(cells: npt.NDArray[np.float32], before: npt.NDArray[np.float32]) -> float:
    """How much brighter the whole view is than ``before`` (the median of the cells' ratios):
    a lamp's flicker, a cloud, the camera's exposure. A hand or a card changes a part of the
    view and moves the median little; light changes all of it and is no movement."""
    lit = before > 16
    if not lit.any():
        return 1.0
    return float(np.clip(np.median(cells[lit] / before[lit]), 0.5, 2.0))


def _tiles(core: Box, box: Box, card_px: float) -> list[tuple[Box, Box]]:
    """``(core, box)`` cut into tiles whose cores are at most ``TILE_CARDS`` cards each way and
    share out ``core``, each box its core grown by ``TILE_MARGIN`` of a card (within ``box``).

    Every card centred in ``core`` is centred in one tile's core and lies whole in its box (a
    card turned 45 degrees reaches 0.61 of its length from its centre); a card cut by a tile's
    box edge has its visible part's centre outside that tile's core, so it is read in its own
    tile only. Why: the recogniser's working images (the crop scaled to the cards' size, its
    channels and component labels) grow with the pixels read at once, and the whole
    2304x1296 frame read in one piece when the table settles took about 90 MB at once, more
    than a 512 MB Pi Zero 2 W can spare beside its system (``benchmarks/device/rss.py``).
    A box of at most ``TILE_ABOVE_PX`` pixels (every changed region of a card or two, the
    whole of a 1280x720 frame) is read as it is.
    """
    if (box[2] - box[0]) * (box[3] - box[1]) <= TILE_ABOVE_PX:
        return [(core, box)]
    span = TILE_CARDS * card_px
    nx = max(1, math.ceil((core[2] - core[0]) / span))
    ny = max(1, math.ceil((core[3] - core[1]) / span))
    if nx == 1 and ny == 1:
        return [(core, box)]
    margin = math.ceil(TILE_MARGIN * card_px)
    xs = [core[0] + (core[2] - core[0]) * i // nx for i in range(nx + 1)]
    ys = [core[1] + (core[3] - core[1]) * j // ny for j in range(ny + 1)]
    tiles = []
    for j in range(ny):
        for i in range(nx):
            tile_core = (xs[i], ys[j], xs[i + 1], ys[j + 1])
            tiles.append((tile_core, (max(box[0], xs[i] - margin), max(box[1], ys[j] - margin),
                                      min(box[2], xs[i + 1] + margin),
                                      min(box[3], ys[j + 1] + margin))))
    return tiles


def _two_cards(a: Seen, b: Seen, tiles: tuple[set[Card], set[Card]]) -> bool:
    """Whether readings ``a`` and ``b`` from two tiles, a third of a card apart, are two cards
    (a fanned pair across the tiles' seam, which one tile read both of) rather than one card
    read in both tiles, the same or two ways (neither tile read both names). ``tiles``:
    the cards each tile read. The merge of the two as one card lost QS of EPFL's test
    train_01 at 2304x1296, under 3S fanned over it."""
    return (a.card is not None and b.card is not None and a.card != b.card
            and any(a.card in read and b.card in read for read in tiles))


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _inside(point: Point, box: tuple[float, float, float, float]) -> bool:
    return box[0] <= point[0] < box[2] and box[1] <= point[1] < box[3]


def _shift(seen: Seen, dx: float, dy: float) -> Seen:
    c = seen.corners
    corners: Corners = ((c[0][0] + dx, c[0][1] + dy), (c[1][0] + dx, c[1][1] + dy),
                        (c[2][0] + dx, c[2][1] + dy), (c[3][0] + dx, c[3][1] + dy))
    return Detection(seen.card, corners, seen.confidence,
                     tuple(getattr(seen, "alternatives", ())))
