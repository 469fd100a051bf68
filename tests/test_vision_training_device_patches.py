"""vision.training.device_patches: dev photos made into device frames, and labelled through
the one affine that made each frame."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from engine.cards import Card
from vision.measure.datasets import LabelledImage, datasets_root, load_labels
from vision.measure.photo_scale import card_height, widening
from vision.recognise.classifier import RANKS, SUITS
from vision.training.device_patches import (
    CARD_ROWS,
    DEVICE_SIZES,
    device_frame,
    harvest_device_boxes,
    harvest_device_sets,
)

ROBOFLOW = "roboflow-cardcounterml"
EPFL = "epfl-iapr2022-poker"


def marked_photo() -> tuple[np.ndarray, tuple[int, int]]:
    photo = np.full((600, 900, 3), 120, np.uint8)
    at = (700, 150)
    cv2.circle(photo, at, 6, (255, 255, 255), -1)
    return photo, at


@pytest.mark.parametrize(("widen", "scale", "angle", "size"), [
    (1.0, 0.5, 0.0, (1280, 720)), (1.0, 0.35, 33.0, (1280, 720)),
    (16 / 9, 0.8, -120.0, (2304, 1296)), (1.0, 1.3, 90.0, (2304, 1296))])
def test_the_frame_maps_back_to_the_photos_pixels(widen: float, scale: float, angle: float,
                                                   size: tuple[int, int]) -> None:
    photo, at = marked_photo()
    frame = device_frame(photo, widen=widen, scale=scale, angle=angle, size=size,
                         rng=np.random.default_rng(1))
    assert frame.image.shape == (size[1], size[0], 3) and frame.image.dtype == np.uint8
    grey = cv2.GaussianBlur(cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY), (0, 0), 3)
    y, x = np.unravel_index(int(np.argmax(grey)), grey.shape)
    back = frame.to_photo @ np.array([x, y, 1.0])
    # Within the mark's radius (and a pixel of the frame, as scaled back).
    assert np.hypot(*(back - at)) <= 6 + 1.5 / scale
    # The device is told the card height it expects of its frame, never the photo's.
    assert frame.card_px == pytest.approx(0.125 * size[1])


def test_the_light_and_camera_vary_but_the_table_stays_the_photos_own() -> None:
    photo, _ = marked_photo()
    frames = [device_frame(photo, widen=1.0, scale=0.5, angle=0.0, size=(1280, 720),
                           rng=np.random.default_rng(seed)).image for seed in range(6)]
    levels = [float(np.median(f)) for f in frames]
    assert max(levels) - min(levels) > 20  # exposure varies
    # The frame past the photo is the photo's own border colour, as lit, not black.
    assert all(np.median(f[:40, :40]) > 40 for f in frames)


def dataset(name: str) -> list[LabelledImage]:
    root = datasets_root()
    if root is None or not (root / name).is_dir():
        pytest.skip("shared datasets not found")
    return load_labels(root / name, split="fit")


@pytest.mark.slow
def test_roboflow_boxes_label_device_patches_with_their_own_cards() -> None:
    items = [i for i in dataset(ROBOFLOW) if i.corner_boxes][:3]
    x, r, s, g = harvest_device_boxes(items, ROBOFLOW, frames=2, seed=5)
    assert x.shape[1:] == (32, 32, 3) and len(x) == len(r) == len(s) == len(g)
    index = r < 13
    assert index.sum() >= 10 and (~index).sum() >= 10
    assert np.all(g[~index] == -1) and np.all(g[index] >= 0)
    # Each labelled index is a card of its own photo (box ids count 2 frames of each photo).
    for k in np.nonzero(index)[0]:
        photo = 0
        first = 0
        while g[k] >= first + 2 * len(items[photo].corner_boxes):
            first += 2 * len(items[photo].corner_boxes)
            photo += 1
        assert Card(RANKS[r[k]], SUITS[s[k]]) in items[photo].cards
    # Seeded: the same frames, the same patches.
    again = harvest_device_boxes(items, ROBOFLOW, frames=2, seed=5)
    assert np.array_equal(again[0], x) and np.array_equal(again[1], r)


@pytest.mark.slow
def test_epfl_sets_give_each_patch_its_photo() -> None:
    items = dataset(EPFL)[:2]
    x, owner, sets = harvest_device_sets(items, EPFL, frames=2, seed=5)
    assert len(x) == len(owner) > 0 and set(owner.tolist()) <= {0, 1}
    assert sets == [i.cards for i in items]


def test_cards_are_as_tall_as_the_device_makes_them() -> None:
    # The frame sizes and card heights the harvest draws from are the device's.
    assert (1280, 720) in DEVICE_SIZES and (2304, 1296) in DEVICE_SIZES
    assert CARD_ROWS[0] <= 60 and CARD_ROWS[1] >= 90
    square = np.zeros((640, 640, 3), np.uint8)
    assert widening(square, "WIN_20240627.jpg") == pytest.approx(1138 / 640)
    assert widening(square, "IMG_7768.jpg") == 1.0
    items = dataset(EPFL)
    assert card_height(items[0], (1000, 1500, 3), EPFL) == pytest.approx(140.5)
