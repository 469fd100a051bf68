"""The robustness sweep's conditions: each changes a photo as its name says, and a bad name
is refused by name."""

from __future__ import annotations

import numpy as np
import pytest
from benchscripts import load_benchmark

robustness = load_benchmark("vision/robustness")


def grey(level: int) -> np.ndarray:
    return np.full((8, 8, 3), level, np.uint8)


def test_exposure_doubles_the_light_in_linear_terms() -> None:
    assert np.array_equal(robustness.exposure(grey(118), 0.0), grey(118))
    # sRGB 118 is 18.1 % grey; one stop more is 36.2 % (sRGB 162), one less 9.1 % (sRGB 85).
    assert robustness.exposure(grey(118), 1.0)[0, 0, 0] == 162
    assert robustness.exposure(grey(118), -1.0)[0, 0, 0] == 85
    assert robustness.exposure(grey(240), 1.5)[0, 0, 0] == 255  # white paper saturates


def test_a_warm_lamp_casts_orange_and_daylight_none() -> None:
    warm = robustness.temperature(grey(200), 2700.0)[0, 0]
    assert warm[2] > warm[1] == 200 > warm[0]  # B, G, R: red up, blue down, green kept
    day = robustness.temperature(grey(200), robustness.DAYLIGHT_K)[0, 0]
    assert np.array_equal(day, [200, 200, 200])


def test_contrast_halved_pulls_half_way_to_the_mean() -> None:
    image = np.zeros((2, 2, 3), np.uint8)
    image[0] = 200
    image[1] = 100
    out = robustness.contrast(image, 0.5)
    assert out[0, 0, 0] == 175 and out[1, 0, 0] == 125


def test_turned_photo_keeps_every_pixel() -> None:
    image = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3)
    out = robustness.turned(image, 90)
    assert out.shape == (3, 2, 3) and out.flags.c_contiguous
    assert np.array_equal(robustness.turned(out, 270), image)


def test_jpeg_recompression_keeps_the_shape() -> None:
    image = np.random.default_rng(0).integers(0, 255, (16, 24, 3), dtype=np.uint8)
    assert robustness.recompressed(image, 60).shape == image.shape


@pytest.mark.parametrize("text", ["exposure:9", "temperature:100", "turned:45", "jpeg:60.5",
                                  "blur:2", "exposure", "contrast:0"])
def test_a_condition_that_is_not_one_is_refused_by_name(text: str) -> None:
    with pytest.raises(ValueError, match=text.split(":")[0]):
        robustness.parse_condition(text)


def test_the_default_sweep_covers_the_issues_conditions() -> None:
    names = [robustness.parse_condition(c).name for c in robustness.DEFAULT_CONDITIONS]
    assert {"exposure:-1.5", "exposure:1.5", "temperature:2700", "temperature:6500",
            "contrast:0.5", "jpeg:60", "turned:90"} <= set(names)
