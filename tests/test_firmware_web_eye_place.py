"""The camera eye's bare-table test (``firmware.web.eye_place.Ground``) on the drawn table: it
tells the cards from the cloth without any Lab or Luv conversion (OpenCV builds several MB of
tables for those on first use and keeps them for the process's life, more than a 512 MB Pi
Zero 2 W's budget leaves), and the eye's expected-card box still avoids a card it has no
outline for."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import cv2
import numpy as np
import pytest
from test_firmware_web_eye import PLAYERS, Table

from firmware.web.camera_eye import Expected, EyeTable, EyeView
from firmware.web.eye_picture import draw_eye
from firmware.web.eye_place import Ground

#: Every conversion code to or from Lab or Luv: all of them build the same static tables.
LAB_CODES = frozenset(getattr(cv2, name) for name in dir(cv2) if name.startswith("COLOR_")
                      and ("LAB" in name.upper() or "LUV" in name.upper()))


@pytest.fixture(scope="module")
def drawn() -> Table:
    return Table()


@pytest.fixture
def no_lab(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """cv2.cvtColor refusing any Lab or Luv code (and noting the codes asked for)."""
    real = cv2.cvtColor
    asked: list[int] = []

    def refusing(src: Any, code: int, *args: Any, **kwargs: Any) -> Any:
        asked.append(code)
        if code in LAB_CODES:
            raise AssertionError(f"a Lab/Luv conversion (code {code}) builds OpenCV's tables")
        return real(src, code, *args, **kwargs)

    monkeypatch.setattr(cv2, "cvtColor", refusing)
    yield asked


def bounds(outline: tuple[tuple[float, float], ...]) -> tuple[float, float, float, float]:
    xs, ys = [x for x, _ in outline], [y for _, y in outline]
    return (min(xs), min(ys), max(xs), max(ys))


def test_cards_are_told_from_the_bare_cloth_without_a_lab_conversion(
        drawn: Table, no_lab: list[int]) -> None:
    ground = Ground(drawn.image)
    for zone, outline in drawn.outline.items():
        x0, y0, x1, y1 = bounds(outline)
        inside = (x0 + 12, y0 + 12, x1 - 12, y1 - 12)
        assert ground.share(inside) > 0.5 and not ground.quiet(inside), zone
        index = (x0 + 4, y0 + 4, x0 + 34, y0 + 44)  # the corner's rank and suit
        assert not ground.quiet(index), zone
    for bare in [(900, 300, 1000, 400), (60, 560, 220, 640), (1000, 80, 1200, 200),
                 (760, 430, 900, 470)]:
        assert ground.quiet(bare), bare
    assert ground.share((2000, 2000, 2100, 2100)) == 0.0  # outside the picture: nothing there


def test_a_box_is_judged_in_the_pictures_own_pixels_at_any_size(drawn: Table) -> None:
    """Half the picture, half the boxes: the same verdicts (the judge works on its pixels)."""
    half = cv2.resize(drawn.image, (640, 360), interpolation=cv2.INTER_AREA)
    full, small = Ground(drawn.image), Ground(half)
    for zone, outline in drawn.outline.items():
        x0, y0, x1, y1 = bounds(outline)
        box = (x0 + 12, y0 + 12, x1 - 12, y1 - 12)
        halved = (box[0] / 2, box[1] / 2, box[2] / 2, box[3] / 2)
        assert small.quiet(halved) == full.quiet(box) is False, zone
    assert small.quiet((450, 150, 500, 200)) and full.quiet((900, 300, 1000, 400))


def test_the_expected_box_and_its_label_avoid_a_card_the_eye_has_no_outline_for(
        drawn: Table, no_lab: list[int]) -> None:
    """Bob's card lies in his area but the eye knows nothing of it (not read, not outlined):
    the "Bob: next card?" box, which would sit on it at the area's middle, and its label go
    on the bare cloth beside it, judged with no Lab conversion."""
    table = EyeTable("1.3", (Expected("Bob", "next card"),), (), tuple((p, p) for p in PLAYERS))
    view = EyeView(drawn.image, 0.0, (), (), drawn.zones, table)
    _, data = draw_eye(view)
    [want] = data["expected"]
    scale = data["size"][0] / data["frame"][0]
    card = tuple(v * scale for v in bounds(drawn.outline["Bob"]))
    box = bounds(tuple(tuple(p) for p in want["outline"]))
    label = want["label"]
    for mark in (box, label):
        assert not (mark[0] < card[2] and card[0] < mark[2] and mark[1] < card[3]
                    and card[1] < mark[3]), (mark, card)
    assert not LAB_CODES.intersection(no_lab)


@pytest.mark.parametrize("image", [np.zeros((40, 60), np.uint8),
                                   np.zeros((40, 60, 4), np.uint8),
                                   np.zeros((40, 60, 3), np.float32),
                                   np.zeros((0, 60, 3), np.uint8)])
def test_a_picture_that_is_not_8_bit_bgr_is_refused_by_name(image: np.ndarray) -> None:
    with pytest.raises(ValueError, match="Ground needs an 8-bit BGR picture"):
        Ground(image)
