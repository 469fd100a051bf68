"""The paper level under each pixel (``candidates._paper_level``), shrunk by whole 4x4 blocks:
OpenCV's fast path (0.13 against 0.56 ms for a laid card's region, twice a read; issue 62,
item 4, the Pi 4's budget)."""

from __future__ import annotations

import cv2
import numpy as np


def test_the_paper_level_is_the_same_however_many_pixels_past_whole_blocks_a_region_has(
) -> None:
    """Shrunk by whole 4x4 blocks (OpenCV's fast path), each small pixel is its block: a
    region one to three pixels wider or taller than whole blocks gets the same level on the
    pixels it shares with the blocks' frame, where a drifting shrink moved it."""
    from vision.recognise.candidates import _paper_level

    rng = np.random.default_rng(3)
    whole = cv2.GaussianBlur(rng.integers(0, 255, (400, 600), dtype=np.uint8), (0, 0), 6)
    for cut in ((399, 597), (397, 599), (398, 598)):
        part = np.ascontiguousarray(whole[: cut[0], : cut[1]])
        # The same blocks: what lies past the last whole block is replicated either way.
        padded = cv2.copyMakeBorder(part, 0, 400 - cut[0], 0, 600 - cut[1],
                                    cv2.BORDER_REPLICATE)
        for bright in (False, True):
            level = _paper_level(part, 31, bright=bright)
            assert level.shape == part.shape
            assert np.array_equal(level, _paper_level(padded, 31, bright=bright)[: cut[0],
                                                                                  : cut[1]])
