"""Light ink is searched on dark cards, not in a light table's paler grain (issue 62, item 4).

Where the card height is known (the device) and the dark-ink pass found grain (faint ink
dense, off the unread card outlines), light ink there must also lie ``BRIGHT_PAPER_SHARE`` of
its paper's level above that paper: gold on a black card (paper 40) clears it by far, the
paler streaks of a birch table (60 over paper at 140) do not, and their blobs cost the laid
queen's read a quarter of its time. Elsewhere (a dark card's sliver by a white table) the
fixed floor stands."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

import vision.recognise.candidates as candidates_module
from vision.recognise.candidates import (
    BRIGHT_PAPER_SHARE,
    GlyphLimits,
    find_candidates,
    find_glyphs,
    grain_mask,
    reading,
)

EVERYWHERE = np.full((400, 400), 255, np.uint8)


def channel(paper: int, ink: int) -> np.ndarray:
    """A brightest-channel patch of ``paper`` with a glyph-sized ring and blob of ``ink``."""
    img = np.full((400, 400), paper, np.uint8)
    cv2.circle(img, (150, 200), 9, ink, 3)  # a rank's "0"
    cv2.circle(img, (150, 228), 7, ink, -1)  # a suit below it
    return img


def device_limits() -> GlyphLimits:
    return reading((400, 400), card_px=180.0).limits  # read at its own size


def light(paper: int, ink: int, gate: np.ndarray | None, limits: GlyphLimits | None = None
          ) -> int:
    return len(find_glyphs(channel(paper, ink), bright=True, limits=limits or device_limits(),
                           light_gate=gate).areas)


def test_the_device_reads_light_ink_on_a_dark_card_even_in_grain() -> None:
    assert device_limits().bright_paper_share == BRIGHT_PAPER_SHARE > 0
    assert light(40, 160, EVERYWHERE) == 2


def test_the_device_takes_pale_grain_on_a_light_table_for_no_light_ink() -> None:
    assert device_limits().min_contrast < 60  # the fixed floor alone would take it
    assert light(140, 200, EVERYWHERE) == 0


def test_outside_the_grain_the_fixed_floor_stands() -> None:
    assert light(140, 200, None) == 2
    assert light(140, 200, np.zeros((400, 400), np.uint8)) == 2
    photo = reading((400, 400)).limits  # a photo of unknown geometry: never in proportion
    assert photo.bright_paper_share == 0 and light(140, 200, EVERYWHERE, photo) == 2


def test_dark_ink_is_not_held_to_its_papers_level() -> None:
    # 60 under paper at 140: dark ink on a light card, found as without the light-ink rule.
    dark = 255 - channel(115, 55)
    got = find_glyphs(dark, bright=False, limits=device_limits(), light_gate=EVERYWHERE)
    want = find_glyphs(dark, bright=False,
                       limits=dataclasses.replace(device_limits(), bright_paper_share=0.0))
    assert len(got.areas) >= 2
    assert np.array_equal(got.boxes, want.boxes)


def test_the_grain_mask_covers_dense_points_only() -> None:
    rng = np.random.default_rng(0)
    dense = rng.uniform(0, 100, (60, 2))  # 60 in a 100 px square: 6,000 a million pixels
    sparse = np.array([[350.0, 350.0]])
    mask = grain_mask(np.concatenate([dense, sparse]), (400, 400), 60.0)
    assert mask is not None and mask.shape == (400, 400)
    assert mask[50, 50] == 255 and mask[350, 350] == 0
    assert grain_mask(sparse, (400, 400), 60.0) is None  # nothing dense: no grain
    assert grain_mask(np.zeros((0, 2)), (400, 400), 60.0) is None


def test_the_device_gates_light_ink_where_the_dark_pass_found_grain(monkeypatch) -> None:
    """find_candidates hands the dark pass's grain, less the unread outlines, to the light."""
    gates: list[np.ndarray | None] = []
    find = candidates_module.find_glyphs

    def spy(channel: np.ndarray, **kw: object) -> candidates_module.Glyphs:
        if kw["bright"]:
            gates.append(kw.get("light_gate"))  # type: ignore[arg-type]
        got = find(channel, **kw)  # type: ignore[arg-type]
        if not kw["bright"]:  # grain over the left half
            grain = np.zeros(channel.shape, np.uint8)
            grain[:, : channel.shape[1] // 2] = 255
            got = dataclasses.replace(got, grain=grain)
        return got

    monkeypatch.setattr(candidates_module, "find_glyphs", spy)
    image = np.full((300, 400, 3), 200, np.uint8)
    outline = np.array([[10.0, 10.0], [60.0, 10.0], [60.0, 80.0], [10.0, 80.0]])
    find_candidates(image, card_px=100.0, faint_within=[outline])
    (gate,) = gates
    assert gate is not None
    h, w = gate.shape
    assert gate[h // 2, w // 4] == 255 and gate[h // 2, 3 * w // 4] == 0
    assert gate[int(40 * h / 300), int(30 * w / 400)] == 0  # inside the unread outline
    gates.clear()
    find_candidates(image, card_px=100.0)  # no outlines told: no gate
    assert gates == [None]

