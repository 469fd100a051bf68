"""vision.live.motion: a still table costs no reading; a change is read once, when the hand has
gone; a hand passing over reads nothing; the table's own art is never a laid card."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
import pytest

from engine.cards import Card
from vision.live.motion import ChangeWatcher, Region, StreamReader, WatchSettings
from vision.live.sources import Frame, watch_image
from vision.recognise.detection import Detection

SIZE = (1152, 648)  # the full frame; cards are 56x80, the 1/8 of its height the reader expects
WATCH = (288, 162)
CLOTH = (40, 90, 30)
CARD_W, CARD_H = 56, 80


def table(cards: dict[tuple[int, int], Card], *, hand: tuple[int, int] | None = None,
          seed: int = 0) -> np.ndarray:
    """A green cloth with paper cards (top-left corner -> card), each marked in its middle
    with a blue level that names it, a skin-coloured hand over it, and sensor noise."""
    image = np.full((SIZE[1], SIZE[0], 3), CLOTH, np.uint8)
    for (x, y), card in cards.items():
        cv2.rectangle(image, (x, y), (x + CARD_W - 1, y + CARD_H - 1), (240, 240, 240), -1)
        cv2.rectangle(image, (x + 20, y + 30), (x + 36, y + 50), (card.index * 4, 0, 0), -1)
    if hand is not None:
        cv2.ellipse(image, hand, (90, 60), 0, 0, 360, (120, 150, 200), -1)
    return add_noise(image, seed)


def add_noise(image: np.ndarray, seed: int) -> np.ndarray:
    """A sensor's noise: each pixel off by up to 3 levels."""
    noise = np.random.default_rng(seed).integers(-3, 4, image.shape, dtype=np.int16)
    return np.clip(image + noise, 0, 255).astype(np.uint8)


class MarkReader:
    """A recogniser for ``table``'s cards: every paper rectangle, named by its mark. Counts
    its calls, the crops it was given and the card heights it was told."""

    def __init__(self) -> None:
        self.crops: list[tuple[int, int]] = []
        self.card_px: list[float | None] = []

    def __call__(self, image: np.ndarray, *, card_px: float | None = None) -> list[Detection]:
        self.crops.append((image.shape[1], image.shape[0]))
        self.card_px.append(card_px)
        return [Detection(Card.from_index(round(mark / 4)), corners, 0.99)
                for corners, mark in marked_cards(image)]


Outline = tuple[tuple[float, float], tuple[float, float], tuple[float, float],
                tuple[float, float]]


def marked_cards(image: np.ndarray) -> list[tuple[Outline, float]]:
    """``table``'s whole paper cards in ``image``: each one's outline and the blue level of
    its mark (a card half covered, or cut by the crop's edge, is not read)."""
    paper = cv2.inRange(image, (200, 200, 200), (255, 255, 255))
    count, _, stats, _ = cv2.connectedComponentsWithStats(paper)
    found: list[tuple[Outline, float]] = []
    for label in range(1, count):
        x, y, w, h, _ = (int(v) for v in stats[label])
        if abs(w - CARD_W) > 3 or abs(h - CARD_H) > 3:
            continue
        mark = float(image[y + 32:y + 48, x + 22:x + 34, 0].astype(np.float64).mean())
        found.append((((x, y), (x + w, y), (x + w, y + h), (x, y + h)), mark))
    return found


def frame(image: np.ndarray, index: int) -> Frame:
    return Frame(image, index / 30, index, watch_image(image, WATCH))


def cards_of(detections: Sequence[Detection]) -> list[str]:
    return sorted(str(d.card) for d in detections)


def settle(reader: StreamReader, image: np.ndarray, start: int, frames: int = 6) -> list:
    seen: list = []
    for i in range(start, start + frames):
        seen = reader(frame(add_noise(image, i + 1000), i))
    return seen


AS, KD, FIVE = Card.parse("AS"), Card.parse("KD"), Card.parse("5C")


def test_a_still_table_is_read_once_at_startup_and_then_costs_no_reading() -> None:
    recognise = MarkReader()
    reader = StreamReader(recognise, frame_size=SIZE, learn_art=False)
    laid = table({(300, 200): AS, (700, 400): KD})
    seen = settle(reader, laid, 0, frames=40)
    assert cards_of(seen) == ["AS", "KD"]
    assert recognise.crops == [SIZE]  # one whole-frame read, none for 37 still frames
    assert reader.reads == 1


def test_a_card_laid_is_read_once_in_its_region_when_the_hand_has_gone() -> None:
    recognise = MarkReader()
    reader = StreamReader(recognise, frame_size=SIZE, learn_art=False)
    settle(reader, table({(300, 200): AS}), 0)
    # The hand comes in with the card, moves about for a few frames, and leaves.
    for i, x in enumerate((860, 830, 800, 790)):
        seen = reader(frame(table({(300, 200): AS, (700, 400): KD}, hand=(x, 440), seed=i),
                            10 + i))
        assert cards_of(seen) == ["AS"]  # nothing read while it moves
    seen = settle(reader, table({(300, 200): AS, (700, 400): KD}), 20)
    assert cards_of(seen) == ["AS", "KD"]
    assert len(recognise.crops) == 2  # the startup read and exactly one more
    width, height = recognise.crops[1]
    assert width * height < SIZE[0] * SIZE[1] / 4  # a region, not the frame
    # The whole frame and the region are both read at the cards' scale: an eighth of 648.
    assert recognise.card_px == [81.0, 81.0]
    (kd,) = [d for d in seen if d.card == KD]
    assert kd.corners[0] == (700, 400)  # full-frame pixels, not the crop's


def test_a_hand_passing_over_and_leaving_the_table_as_it_was_reads_nothing() -> None:
    recognise = MarkReader()
    reader = StreamReader(recognise, frame_size=SIZE, learn_art=False)
    cards = {(300, 200): AS, (700, 400): KD}
    settle(reader, table(cards), 0)
    for i, x in enumerate(range(100, 1100, 60)):  # across the table, over both cards
        seen = reader(frame(table(cards, hand=(x, 300), seed=i), 10 + i))
        assert cards_of(seen) == ["AS", "KD"]  # the cards keep their last reading
    seen = settle(reader, table(cards), 40)
    assert cards_of(seen) == ["AS", "KD"]
    assert recognise.crops == [SIZE]


def test_a_hand_that_stops_over_the_table_is_read_and_the_table_is_read_again_after() -> None:
    recognise = MarkReader()
    reader = StreamReader(recognise, frame_size=SIZE, learn_art=False)
    cards = {(300, 200): AS}
    settle(reader, table(cards), 0)
    seen = settle(reader, table(cards, hand=(330, 240)), 10)  # resting on the ace
    assert cards_of(seen) == []
    seen = settle(reader, table(cards), 20)
    assert cards_of(seen) == ["AS"]
    assert len(recognise.crops) == 3


def test_a_card_taken_away_is_a_change_and_leaves_the_reading() -> None:
    recognise = MarkReader()
    reader = StreamReader(recognise, frame_size=SIZE, learn_art=False)
    settle(reader, table({(300, 200): AS, (700, 400): KD, (900, 100): FIVE}), 0)
    seen = settle(reader, table({(300, 200): AS, (900, 100): FIVE}), 10)
    assert cards_of(seen) == ["5C", "AS"]
    assert len(recognise.crops) == 2


def test_what_lies_on_the_table_at_startup_is_art_and_never_reported() -> None:
    recognise = MarkReader()
    reader = StreamReader(recognise, frame_size=SIZE)
    mat = {(100, 100): AS, (200, 100): KD}  # printed on the mat
    seen = settle(reader, table(mat), 0)
    assert seen == [] and cards_of(reader.art) == ["AS", "KD"]
    # A card laid next to the mat's cards is read with them; only it is reported.
    seen = settle(reader, table({**mat, (300, 100): FIVE}), 10)
    assert cards_of(seen) == ["5C"]
    # A hand resting on the mat and leaving reads the mat again: still art.
    settle(reader, table({**mat, (300, 100): FIVE}, hand=(180, 150)), 20)
    seen = settle(reader, table({**mat, (300, 100): FIVE}), 30)
    assert cards_of(seen) == ["5C"] and cards_of(reader.art) == ["AS", "KD"]


def test_after_a_restart_mid_deal_the_cards_the_game_has_laid_are_no_art() -> None:
    """A power cut mid-play: the store says AS and KD lie on the table. They are cards, so
    when they are gathered their place reads empty, and a card laid there next deal shows."""
    recognise = MarkReader()
    reader = StreamReader(recognise, frame_size=SIZE, on_table=lambda: {AS, KD})
    lying = {(100, 100): AS, (200, 100): KD, (400, 300): FIVE}  # 5C: printed on the mat
    seen = settle(reader, table(lying), 0)
    assert cards_of(seen) == ["AS", "KD"] and cards_of(reader.art) == ["5C"]
    seen = settle(reader, table({(400, 300): FIVE}), 10)  # the deal's cards gathered
    assert seen == []
    seen = settle(reader, table({(100, 100): Card.parse("9H"), (400, 300): FIVE}), 20)
    assert cards_of(seen) == ["9H"]


def test_a_reading_that_is_no_card_sized_thing_is_left_out() -> None:
    def tiny(image: np.ndarray, *, card_px: float | None = None) -> list[Detection]:
        return [Detection(AS, ((10, 10), (20, 10), (20, 24), (10, 24)), 0.99)]

    reader = StreamReader(tiny, frame_size=SIZE, learn_art=False)
    assert settle(reader, table({}), 0) == []


def test_a_calibrated_card_size_is_told_to_the_recogniser_and_sizes_a_card() -> None:
    # calibrate measured the cards at 80 px: every read is told so, and a reading of that
    # size is a card; told 200 px (half of that is 100), the same 80 px reading is no card.
    recognise = MarkReader()
    reader = StreamReader(recognise, frame_size=SIZE, learn_art=False, card_px=80.0)
    assert cards_of(settle(reader, table({(300, 200): AS}), 0)) == ["AS"]
    assert recognise.card_px == [80.0]
    far = StreamReader(MarkReader(), frame_size=SIZE, learn_art=False, card_px=200.0)
    assert settle(far, table({(300, 200): AS}), 0) == []
    with pytest.raises(ValueError, match="card_px must be a card's long side in pixels, not 0"):
        StreamReader(MarkReader(), frame_size=SIZE, card_px=0)


def test_the_watcher_waits_for_the_table_to_settle_before_the_first_reading() -> None:
    watcher = ChangeWatcher(WATCH, settings=WatchSettings(still_frames=3))
    moving = [watch_image(table({}, hand=(200 + 80 * i, 300)), WATCH) for i in range(5)]
    assert [watcher.update(w) for w in moving] == [[]] * 5
    still = watch_image(table({}), WATCH)
    got = [watcher.update(still) for _ in range(4)]
    assert got == [[], [], [], [Region((0, 0, *WATCH), whole=True)]]


@pytest.mark.parametrize(("image", "message"), [
    (np.zeros((162, 288, 3), np.uint8), "ChangeWatcher expects a grey 288x162 watch image, "
                                        "got shape (162, 288, 3)"),
    (np.zeros((100, 100), np.uint8), "got shape (100, 100)"),
])
def test_the_watcher_refuses_what_is_no_watch_image(image: np.ndarray, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ChangeWatcher(WATCH).update(image)


def test_the_reader_names_a_frame_of_the_wrong_size() -> None:
    reader = StreamReader(MarkReader(), frame_size=(2304, 1296))
    with pytest.raises(ValueError, match=r"expects 2304x1296 frames \(\[camera\] size\), "
                                         r"got 1152x648"):
        reader(frame(table({}), 0))


# -- with the real recogniser: a mat printed with cards, and a real photo as the "mat" -------

FULL = (2304, 1296)


def paste(image: np.ndarray, card: Card, at: tuple[int, int], height: int) -> np.ndarray:
    """``image`` with ``card`` drawn on it, ``height`` pixels tall, its top-left at ``at``."""
    from vision.drawn.cardart import CardStyle, render_card

    face = render_card(card, height=height, style=CardStyle())
    out = image.copy()
    (x, y), (h, w) = at, face.shape[:2]
    alpha = face[:, :, 3:4].astype(np.float32) / 255
    out[y:y + h, x:x + w] = (face[:, :, :3] * alpha + out[y:y + h, x:x + w] * (1 - alpha)
                             ).astype(np.uint8)
    return out


def printed_mat() -> np.ndarray:
    """A play mat: green felt with five cards printed on it, as large as real ones."""
    mat = np.full((FULL[1], FULL[0], 3), (50, 110, 40), np.uint8)
    for i, name in enumerate(("AH", "KS", "5D", "JC", "10H")):
        mat = paste(mat, Card.parse(name), (300 + 330 * i, 250), 220)
    return mat


def photo_mat() -> np.ndarray:
    """An EPFL-3000 table photo with eleven real cards, cut to the 2304x1296 frame."""
    from vision.measure.datasets import datasets_root

    root = datasets_root()
    path = None if root is None else root / "epfl-iapr2022-poker-3000" / "train_01.jpg"
    if path is None or not path.exists():
        pytest.skip("../shared/datasets/epfl-iapr2022-poker-3000 not present")
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    height = round(image.shape[0] * FULL[0] / image.shape[1])
    image = cv2.resize(image, (FULL[0], height), interpolation=cv2.INTER_AREA)
    top = (height - FULL[1]) // 2
    return np.ascontiguousarray(image[top:top + FULL[1]])


@pytest.mark.slow
@pytest.mark.parametrize(("mat", "laid_at"), [
    (printed_mat, (1000, 800)),  # below the printed row, within a card of the 5D
    (photo_mat, (150, 450)),  # beside the photo's 3S and QS
])
def test_cards_of_the_table_art_are_never_reported_and_a_card_laid_is(
        mat: object, laid_at: tuple[int, int]) -> None:
    from vision.recognise.detection import CameraRecogniser

    table_art = mat()  # type: ignore[operator]
    recognise = CameraRecogniser()
    reader = StreamReader(recognise, frame_size=FULL)

    def show(image: np.ndarray, start: int, frames: int) -> list[list[str]]:
        return [cards_of(reader(Frame(image, i / 30, i, watch_image(image, (576, 324)))))
                for i in range(start, start + frames)]

    assert show(table_art, 0, 5) == [[]] * 5
    assert len(reader.art) >= 5  # the printed (or photographed) cards, read and kept
    # A hand comes over the table, lays the seven of diamonds and goes.
    laid = paste(table_art, Card.parse("7D"), laid_at, 220)
    for i, x in enumerate((1400, 1100, 800, 500)):
        hand = laid.copy()
        cv2.ellipse(hand, (x, 700), (260, 160), 0, 0, 360, (110, 140, 190), -1)
        assert show(hand, 10 + i, 1) == [[]]
    assert show(laid, 20, 6)[-1] == ["7D"]
    assert reader.reads == 2


# -- through the device loop -----------------------------------------------------------------


class FrameList:
    """A camera that sends the given frames, then nothing."""

    name = "scripted"

    def __init__(self, images: list[np.ndarray]) -> None:
        self.frames = [frame(image, i) for i, image in enumerate(images)]

    def read(self, timeout: float = 0.5) -> Frame | None:
        return self.frames.pop(0) if self.frames else None

    def close(self) -> None:
        pass


def test_the_device_loop_reads_where_the_table_changed_and_the_tracker_sees_the_card(
        tmp_path: object) -> None:
    from pathlib import Path

    from firmware.demo.scripted_table import SteppedClock
    from firmware.device.loop import DeviceLoop
    from firmware.store.eventstore import EventStore
    from firmware.table.flow import TableFlow
    from hardware.layout import per_side_tracks
    from hardware.render import Renderer
    from hardware.strips.simulator import SimulatorStrip
    from vision.live.tracker import CardAppeared, CardTracker, TableEvent
    from vision.live.zones import TableZones, Zone

    events: list[TableEvent] = []

    class Recording(CardTracker):
        def update(self, at: float, detections: object) -> list[TableEvent]:
            out = super().update(at, detections)  # type: ignore[arg-type]
            events.extend(out)
            return out

    zones = TableZones((Zone("Ann", ((0, 324), (1152, 324), (1152, 648), (0, 648))),
                        Zone("Bob", ((0, 0), (1152, 0), (1152, 324), (0, 324)))))
    still = [table({(300, 100): AS})] * 8
    hand = [table({(300, 100): AS, (700, 400): KD}, hand=(x, 440), seed=x)
            for x in (900, 860, 820)]
    laid = [table({(300, 100): AS, (700, 400): KD}, seed=i) for i in range(10)]
    recognise = MarkReader()
    clock = SteppedClock()
    layout = per_side_tracks(3)
    store = EventStore.open(Path(str(tmp_path)) / "events.sqlite3", clock=clock)
    loop = DeviceLoop(store=store, flow=TableFlow(("Ann", "Bob")), strip=SimulatorStrip(layout),
                      renderer=Renderer(layout), clock=clock, source=FrameList(still + hand + laid),
                      recognise=recognise, tracker=Recording(frame_size=SIZE, zones=zones),
                      reader=StreamReader(recognise, frame_size=SIZE, learn_art=False))
    loop.start()
    for _ in range(len(still + hand + laid)):
        loop.step()
    store.close()
    appeared = [(str(e.card), e.zone) for e in events if isinstance(e, CardAppeared)]
    assert appeared == [("AS", "Bob"), ("KD", "Ann")]
    assert len(recognise.crops) == 2  # the table at startup, then the one region


def flickered(image: np.ndarray, cards: dict[tuple[int, int], Card], gain: float
              ) -> np.ndarray:
    """``image`` under a light ``gain`` times as bright; the marks that name the cards kept as
    they were (``MarkReader`` reads their level, which a real recogniser does not)."""
    lit = np.clip(image.astype(np.float32) * gain, 0, 255).astype(np.uint8)
    for x, y in cards:
        lit[y + 30:y + 51, x + 20:x + 37] = image[y + 30:y + 51, x + 20:x + 37]
    return lit


def test_a_flicker_of_the_rooms_light_is_no_movement_and_no_change() -> None:
    """A lamp's flicker or the camera's exposure brightens the whole view at once (a white
    card by several levels): divided out, it neither delays a read nor causes one."""
    recognise = MarkReader()
    reader = StreamReader(recognise, frame_size=SIZE, learn_art=False)
    settle(reader, table({(300, 200): AS}), 0)
    cards = {(300, 200): AS, (700, 400): KD}
    laid = table(cards)
    seen: list = []
    for i in range(10, 14):  # every frame 4% brighter or darker than the one before
        seen = reader(frame(flickered(laid, cards, 1.04 if i % 2 else 0.96), i))
    assert cards_of(seen) == ["AS", "KD"]  # read on the third still frame, as in steady light
    reads = reader.reads
    for i in range(20, 30):
        reader(frame(flickered(laid, cards, 1.05 if i % 2 else 0.95), i))
    assert reader.reads == reads


def test_a_card_laid_at_the_end_of_a_row_is_no_shift_of_the_view() -> None:
    """A row of like cards with one more laid at its end matches the row moved by a card;
    the row's first card did not go, so it is a card laid, not a knocked camera (registration
    tried on every still change, however small)."""
    recognise = MarkReader()
    reader = StreamReader(recognise, frame_size=SIZE, learn_art=False,
                          settings=WatchSettings(shift_cells=0.0))
    row = {(100 + 100 * k, 100): card for k, card in enumerate((AS, KD, FIVE))}
    settle(reader, table(row), 0)
    more = {**row, (400, 100): Card.parse("9H")}
    seen = settle(reader, table(more), 10)
    assert reader.watcher.shifts == 0 and reader.offset == (0.0, 0.0)
    assert cards_of(seen) == ["5C", "9H", "AS", "KD"]


def test_the_whole_view_shifted_keeps_every_reading_in_the_tables_pixels() -> None:
    recognise = MarkReader()
    reader = StreamReader(recognise, frame_size=SIZE, learn_art=False)
    lay = {(200, 150): AS, (700, 420): KD, (900, 120): FIVE}
    before = settle(reader, table(lay), 0)
    moved = settle(reader, table({(x - 48, y + 24): c for (x, y), c in lay.items()}), 10)
    assert reader.watcher.shifts == 1 and reader.reads == 1
    assert reader.offset == pytest.approx((-48, 24), abs=2)
    assert [d.corners for d in moved] == [d.corners for d in before]
