"""recognise_photo(): a photo resized to a square is read widened back; a camera frame is not."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from test_vision_detection import table, three_cards

from engine.cards import Card
from vision.detection import Detection, recognise
from vision.photo import recognise_photo
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


def test_not_an_image_is_refused() -> None:
    with pytest.raises(ValueError, match="BGR"):
        recognise_photo(np.zeros((10, 10), np.uint8))
