"""The drawn table's camera (vision.drawn.camera_model): each effect measured for what it does."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.drawn.camera_model import (
    CAMERA_MODULE_3,
    CameraModel,
    CameraModelError,
    chroma_420,
    colour_cast,
    demosaic,
    falloff,
    jpeg,
    lens_blur,
    mosaic,
    motion_blur,
    moving_layer,
    sensor_noise,
    sharpness,
    uneven_gain,
)
from vision.drawn.scene import SceneRenderer, SceneSettings, Script, TableLayout


def card_image(size: tuple[int, int] = (160, 120)) -> np.ndarray:
    """A white card with a red index and black strokes on green: detail to lose."""
    w, h = size
    img = np.zeros((h, w, 3), np.uint8)
    img[:] = (40, 110, 40)
    cv2.rectangle(img, (20, 10), (w - 20, h - 10), (235, 235, 235), -1)
    cv2.putText(img, "7", (30, 40), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (30, 30, 200), 2)
    cv2.putText(img, "Q", (80, 90), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (20, 20, 20), 2)
    return img


def test_card_size_follows_field_of_view_and_height() -> None:
    # 66 x 41 degrees at 1.0 m: 0.748 m of table over the frame's height.
    w, h = CAMERA_MODULE_3.card_pixels((1280, 720))
    assert (round(w), round(h)) == (61, 86)
    w, h = CAMERA_MODULE_3.card_pixels((2304, 1296))
    assert (round(w), round(h)) == (110, 154)
    low = CameraModel(height=0.5)
    assert low.card_pixels((1280, 720))[1] == pytest.approx(2 * h * 720 / 1296)
    field_w, field_h = CAMERA_MODULE_3.field()
    assert field_w == pytest.approx(2 * math.tan(math.radians(33)), rel=1e-6)
    assert CAMERA_MODULE_3.card_fraction() == pytest.approx(0.0889 / field_h)
    # A hand at 0.5 m/s over a 1/50 s exposure travels 10 mm: about 10 px at 1280x720.
    assert 9 < CAMERA_MODULE_3.smear((1280, 720)) < 10


def test_lens_blur_lowers_sharpness_more_the_wider_it_is() -> None:
    img = card_image().astype(np.float32)
    crisp = sharpness(img)
    soft = sharpness(lens_blur(img, sigma=0.7))
    softer = sharpness(lens_blur(img, sigma=1.5))
    assert softer < 0.5 * soft < 0.5 * crisp
    assert np.array_equal(lens_blur(img, sigma=0.0), img)


def test_jpeg_is_opencvs_and_loses_more_at_lower_quality() -> None:
    img = card_image()
    ok, data = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 70])
    decoded = cv2.imdecode(data, cv2.IMREAD_COLOR)
    assert ok and decoded is not None and np.array_equal(jpeg(img, quality=70), decoded)
    error = {q: float(np.abs(jpeg(img, quality=q).astype(int) - img).mean()) for q in (30, 95)}
    assert error[30] > 2 * error[95] > 0


def test_falloff_darkens_the_corners_by_the_set_share() -> None:
    img = np.full((91, 161, 3), 200, np.float32)
    out = falloff(img, corner=0.2)
    assert out[45, 80, 1] == pytest.approx(200, abs=0.01)
    for y, x in ((0, 0), (0, 160), (90, 0), (90, 160)):
        assert out[y, x, 1] == pytest.approx(160, abs=0.01)


def test_uneven_light_dims_the_far_side_by_the_set_share() -> None:
    gain = uneven_gain((200, 100), amount=0.3, angle=0.0)  # light from the left
    assert gain[50, 0] == pytest.approx(1.0, abs=0.01)
    assert gain[50, 199] == pytest.approx(0.7, abs=0.01)
    assert np.ptp(gain[:, 100]) == pytest.approx(0.0, abs=1e-6)


def test_sensor_noise_is_shot_plus_read_noise() -> None:
    rng = np.random.default_rng(1)
    for level in (20.0, 200.0):
        flat = np.full((200, 200), level, np.float32)
        out = sensor_noise(flat, electrons=10.0, read_noise=2.0, rng=rng)
        assert out.mean() == pytest.approx(level, abs=0.1)
        assert out.std() == pytest.approx(math.sqrt(level / 10 + 4), rel=0.03)
    a = sensor_noise(flat, electrons=10.0, read_noise=2.0, rng=np.random.default_rng(5))
    b = sensor_noise(flat, electrons=10.0, read_noise=2.0, rng=np.random.default_rng(5))
    assert np.array_equal(a, b)


def test_the_mosaic_keeps_one_colour_a_pixel_and_demosaicking_restores_flat_colour() -> None:
    img = np.zeros((8, 8, 3), np.uint8)
    img[:] = (30, 90, 200)
    raw = mosaic(img)
    assert (raw[0, 0], raw[0, 1], raw[1, 0], raw[1, 1]) == (30, 90, 90, 200)
    assert np.array_equal(demosaic(raw)[2:6, 2:6], img[2:6, 2:6])
    # A one-pixel red stroke on white falls between the blue photosites: its blue is guessed
    # from the white beside it (the stroke turns pink) and its green zips up and down.
    card = np.full((20, 20, 3), 235, np.uint8)
    card[:, 9] = (30, 30, 200)
    back = demosaic(mosaic(card))
    assert back[4:16, 9, 0].min() > 150
    assert back[10, 9, 1] == 30 and back[11, 9, 1] > 150


def test_chroma_420_keeps_brightness_and_halves_colour_detail() -> None:
    img = np.full((16, 16, 3), 128, np.uint8)
    img[:, ::2] = (40, 40, 220)  # red and grey columns: colour changes every pixel
    out = chroma_420(img)
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(int)
    assert np.abs(cv2.cvtColor(out, cv2.COLOR_BGR2GRAY).astype(int) - grey).mean() < 12
    def spread(a: np.ndarray) -> float:
        return float(np.ptp(a[..., 2].astype(int)))

    assert spread(out) < 0.7 * spread(img)


def test_colour_cast_warms_or_cools_by_the_set_share() -> None:
    img = np.full((4, 4, 3), 100, np.uint8)
    warm, cool = colour_cast(img, warmth=0.1), colour_cast(img, warmth=-0.1)
    assert warm.dtype == np.uint8
    assert tuple(warm[0, 0]) == (90, 100, 110) and tuple(cool[0, 0]) == (110, 100, 90)


def test_motion_blur_smears_along_its_angle_only() -> None:
    dot = np.zeros((41, 41), np.float32)
    dot[20, 20] = 100
    # Lit means above a thousandth of the dot: on arm64 the rotated kernel keeps ~1e-15
    # where x86 has exact zeros, which no pixel can show.
    across = motion_blur(dot, length=9, angle=0)
    assert np.count_nonzero(across[20] > 0.1) == 9
    assert np.count_nonzero(across[:, 20] > 0.1) == 1
    assert across.sum() == pytest.approx(100, rel=1e-4)
    down = motion_blur(dot, length=9, angle=90)
    assert np.count_nonzero(down[:, 20] > 0.1) == 9


def test_a_moving_hand_smears_while_the_table_under_it_stays_sharp() -> None:
    table = card_image()
    moved = table.copy()
    mask = np.zeros(table.shape[:2], np.uint8)
    cv2.rectangle(mask, (60, 40), (100, 80), 255, -1)
    moved[mask > 0] = (60, 80, 140)
    out = moving_layer(table, moved, mask, length=9, angle=0)
    # Far from the hand nothing changes; inside it the hand stays opaque; its edge blends.
    assert np.array_equal(out[:, :40], table[:, :40])
    assert np.abs(out[60, 80].astype(int) - (60, 80, 140)).max() <= 1
    edge = out[60, 60].astype(int)
    assert not np.array_equal(edge, moved[60, 60]) and not np.array_equal(edge, table[60, 60])


def test_capture_is_repeatable_noisy_and_softer_than_the_drawing() -> None:
    img = cv2.resize(card_image(), (320, 240)).astype(np.float32)
    a = CAMERA_MODULE_3.capture(img, gain=None, rng=np.random.default_rng(2))
    b = CAMERA_MODULE_3.capture(img, gain=None, rng=np.random.default_rng(2))
    assert a.dtype == np.uint8 and a.shape == img.shape and np.array_equal(a, b)
    assert sharpness(a) < sharpness(img)
    other = CAMERA_MODULE_3.capture(img, gain=None, rng=np.random.default_rng(3))
    assert not np.array_equal(a, other)


def test_a_frame_smaller_than_the_sensor_averages_its_noise_away() -> None:
    # Mid grey: sqrt(128 / 20 + 1.2^2) = 2.8 levels a photosite. A 2304x1296 frame is the
    # sensor's binned mode itself (demosaicking spreads the noise a little); a 1280x720
    # frame is scaled down 1.8 times from it, which averages much of the noise away (a
    # perfect scaler by the ratio, 0.56; the calibrated anti-alias filter is lighter).
    spread = {}
    for size in ((1280, 720), (2304, 1296)):
        flat = np.full((size[1], size[0], 3), 128, np.float32)
        frame = CAMERA_MODULE_3.capture(flat, gain=None, rng=np.random.default_rng(3))
        spread[size] = float(frame[..., 1].std())
        # The warm cast: blue down and red up by 6 %.
        assert tuple(frame.mean(axis=(0, 1))) == pytest.approx((120.3, 128, 135.7), abs=1)
    assert 2.0 < spread[(2304, 1296)] < 2.8
    assert 1.0 < spread[(1280, 720)] < 0.75 * spread[(2304, 1296)]
    assert CAMERA_MODULE_3.sensor_mode((1280, 720)) == (2304, 1296)
    assert CAMERA_MODULE_3.sensor_mode((4608, 2592)) == (4608, 2592)


def test_settings_no_camera_has_are_refused_in_words() -> None:
    with pytest.raises(CameraModelError, match="mounting height must be 0.2 to 5 m, not 9"):
        CameraModel(height=9)
    with pytest.raises(CameraModelError, match="jpeg_quality must be 1 to 100, not 0"):
        CameraModel(jpeg_quality=0)
    with pytest.raises(CameraModelError, match="encoding must be rgb, yuv420 or jpeg, not 'png'"):
        CameraModel(encoding="png")
    with pytest.raises(CameraModelError, match="field of view must be 10 to 170 degrees"):
        CameraModel(hfov=5)


def test_the_drawn_table_through_the_camera_has_real_card_sizes() -> None:
    camera = CAMERA_MODULE_3
    script = Script.two_player_deal(3, layout=TableLayout.for_camera(2, camera))
    settings = SceneSettings(frames_per_step=2, hand_frames=1, glare=False, camera=camera)
    frame = SceneRenderer(script, rng=np.random.default_rng(3), settings=settings).render(
        2 * len(script.steps) - 1)
    heights = [math.dist(t.corners[1], t.corners[2]) for t in frame.truth if t.face_up]
    # The camera is a little off top-down: far cards are up to a tenth smaller.
    assert heights and all(86 * 0.88 < h < 86 * 1.06 for h in heights)
    assert 86 * 0.94 < float(np.mean(heights)) < 86 * 1.04
    ideal = SceneRenderer(Script.two_player_deal(3), rng=np.random.default_rng(3),
                          settings=SceneSettings(frames_per_step=2, hand_frames=1)).render(
        2 * len(script.steps) - 1)
    big = [math.dist(t.corners[1], t.corners[2]) for t in ideal.truth if t.face_up]
    assert min(big) > 1.5 * max(heights)
