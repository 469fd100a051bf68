"""recognise_photo(): a photo resized to a square is read widened back; a camera frame is not."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from test_vision_detection import table, three_cards

import vision.recognise.photo as photo_module
from engine.cards import Card
from vision.recognise.detection import Detection, card_outline, recognise
from vision.recognise.photo import recognise_photo
from vision.training.synth import place, render_card

# A fan of ten cards turned upside down, each showing little more than its corner
# index, the way a hand is spread on the table (rank 0..12 = A..K, suit 0..3 = C D H S).
FAN = ((0, 3), (2, 3), (12, 3), (9, 3), (4, 3), (7, 3), (11, 0), (3, 0), (5, 2), (8, 1))
FAN_CARDS = {Card.parse(t) for t in ("AS 3S KS 10S 5S 8S QC 4C 6H 9D".split())}
SQUARE = (720, 720)  # a 16:9 frame resized to a square, as image tools and datasets do


def fan() -> np.ndarray:
    img = table((720, 1280))
    for k, (rank, suit) in enumerate(FAN):
        place(img, render_card(rank, suit), (300 + 32 * k, 360), 180, 0.5)
    return img


def named(detections: list[Detection]) -> dict[Card, Detection]:
    return {d.card: d for d in detections if d.card is not None}


def test_a_fan_squashed_to_a_square_is_read_widened_back() -> None:
    frame = fan()
    squashed = cv2.resize(frame, SQUARE, interpolation=cv2.INTER_AREA)
    assert set(named(recognise(frame))) == FAN_CARDS
    # The squashed indices crowd each other: read as they are, most are lost.
    assert len(named(recognise(squashed))) <= 7
    assert set(named(recognise_photo(squashed))) == FAN_CARDS


def test_widened_readings_are_outlined_in_the_photos_own_pixels() -> None:
    frame = fan()
    squashed = cv2.resize(frame, SQUARE, interpolation=cv2.INTER_AREA)
    in_frame = named(recognise(frame))
    in_photo = named(recognise_photo(squashed))
    x_scale = SQUARE[0] / frame.shape[1]
    for card, d in in_photo.items():
        expected = np.mean(in_frame[card].corners, axis=0) * (x_scale, 1.0)
        assert np.hypot(*(np.mean(d.corners, axis=0) - expected)) < 8, card


def test_a_frame_with_square_pixels_keeps_its_own_reading() -> None:
    img = three_cards()
    assert recognise_photo(img) == recognise(img)


def test_no_aspects_reads_the_photo_once_as_recognise_does() -> None:
    squashed = cv2.resize(fan(), SQUARE, interpolation=cv2.INTER_AREA)
    assert recognise_photo(squashed, aspects=()) == recognise(squashed)


@pytest.mark.parametrize("aspect", [1.0, 0.75, 0.0, -2.0, 5.0])
def test_an_aspect_that_does_not_widen_is_refused(aspect: float) -> None:
    with pytest.raises(ValueError, match="widened"):
        recognise_photo(table((120, 160)), aspects=(aspect,))


def test_not_an_image_is_refused_in_the_callers_name() -> None:
    # The photo's blur is measured before it is read: the error still names recognise_photo.
    with pytest.raises(ValueError, match="^recognise_photo expects a BGR"):
        recognise_photo(np.zeros((10, 10), np.uint8))
    with pytest.raises(ValueError, match="^recognise_photo expects uint8 pixels, got float64"):
        recognise_photo(np.zeros((10, 10, 3)))


# --- Cards every other reading agrees on (recognise stubbed: one reading per photo width) ---

PHOTO_WIDTH = 720


def _at(text: str | None, confidence: float, x: float, scale: float = 1.0) -> Detection:
    """A detection whose top-left index sits at (x, 300) in the photo, as a copy ``scale``
    times wider reports it."""
    outline = card_outline(np.array([x, 300.0]), np.array([0.0, 1.0]), 12.0)
    corners = tuple((float((px + 0.5) * scale - 0.5), float(py)) for px, py in outline)
    return Detection(None if text is None else Card.parse(text), corners,  # type: ignore[arg-type]
                     confidence)


def _read_as(monkeypatch: pytest.MonkeyPatch, base: list[tuple[str | None, float, float]],
             wide: list[tuple[str | None, float, float]],
             wider: list[tuple[str | None, float, float]]) -> list[Detection]:
    """recognise_photo over a photo whose three readings (as is, 4:3, 16:9) are given."""
    by_width = {PHOTO_WIDTH: (base, 1.0), round(PHOTO_WIDTH * 4 / 3): (wide, 4 / 3),
                round(PHOTO_WIDTH * 16 / 9): (wider, 16 / 9)}

    def reading(image: np.ndarray, **_: object) -> list[Detection]:
        found, scale = by_width[image.shape[1]]
        return [_at(t, c, x, scale) for t, c, x in found]

    monkeypatch.setattr(photo_module, "recognise", reading)
    return recognise_photo(np.zeros((400, PHOTO_WIDTH, 3), np.uint8))


def test_a_card_every_widened_reading_names_surely_is_added(monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    # The photo's own reading keeps its cards (no widened one beats it by two cards), but
    # lost the 9D to an unsure index that both widened readings name.
    found = _read_as(monkeypatch,
                     base=[("KS", 0.99, 100), ("10S", 0.98, 300), (None, 0.4, 500)],
                     wide=[("KS", 0.97, 100), ("9D", 0.93, 502)],
                     wider=[("10S", 0.9, 300), ("9D", 0.88, 497)])
    assert {str(d.card) for d in found} == {"KS", "10S", "9D"}
    nine = next(d for d in found if d.card == Card.parse("9D"))
    assert nine.confidence == pytest.approx(0.88)
    assert abs(np.mean(nine.corners, axis=0)[0] - np.mean(_at("9D", 1, 500).corners, axis=0)[0]) < 8


@pytest.mark.parametrize(("wide", "wider"), [
    ([("9D", 0.95, 500)], [("9C", 0.95, 500)]),  # the widened readings disagree
    ([("9D", 0.95, 500)], []),  # one of them does not name it
    ([("9D", 0.95, 500)], [("9D", 0.75, 500)]),  # one is not sure enough
])
def test_a_card_the_widened_readings_do_not_all_name_surely_is_not_added(
        monkeypatch: pytest.MonkeyPatch, wide: list[tuple[str, float, float]],
        wider: list[tuple[str, float, float]]) -> None:
    found = _read_as(monkeypatch, base=[("KS", 0.99, 100), (None, 0.4, 500)],
                     wide=wide, wider=wider)
    assert [str(d.card) for d in found] == ["KS", "None"]


def test_a_card_where_the_chosen_reading_names_another_is_not_added(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The photo's own reading names a 10S where the widened ones read a KS: one of them is
    # wrong, and a wrong card costs more than a missing one, so the photo's own stands.
    found = _read_as(monkeypatch, base=[("AS", 0.99, 100), ("10S", 0.9, 300)],
                     wide=[("KS", 0.95, 305)], wider=[("KS", 0.95, 296)])
    assert {str(d.card) for d in found} == {"AS", "10S"}

