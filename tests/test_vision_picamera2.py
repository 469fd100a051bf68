"""The camera configuration the device builds, judged by picamera2's own rules.

``tests/picamera2_fake.py`` refuses what picamera2 0.3.38 refuses and picks sensor modes
as it does, for a Camera Module 3 (imx708) on a Pi 4 (VC4 ISP) and a Pi 5 (PiSP); its
autofocus controls behave as picamera2 and libcamera's Raspberry Pi IPA do (the facts and their
sources: docs/interfaces/picamera2-libcamera.md), and its lens blurs what it draws by how far
it is from the table, so a focus set wrongly shows.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import cv2
import numpy as np
import pytest
from picamera2_fake import AF_CONTINUOUS, AF_MANUAL, IMX708_ARRAY, PISP, VC4, FakePicamera2

from vision.live.sources import Picamera2Source, SourceError, full_view_mode

HEART = (1900, 1000, 2300, 1400)  # x0, y0, x1, y1 in sensor pixels: red ink
CLUB = (2500, 1000, 2900, 1400)  # black ink


def card_table(width: int, height: int) -> np.ndarray:
    """A dark cloth with a white card carrying a red and a black pip (RGB)."""
    image = np.full((height, width, 3), (30, 90, 40), np.uint8)
    image[900:1500, 1800:3000] = 245
    image[HEART[1]:HEART[3], HEART[0]:HEART[2]] = (210, 20, 30)
    image[CLUB[1]:CLUB[3], CLUB[0]:CLUB[2]] = (15, 15, 15)
    return image


def open_source(camera: FakePicamera2, **options: Any) -> Picamera2Source:
    return Picamera2Source(camera_factory=lambda: camera, **options)


@contextmanager
def running(camera: FakePicamera2, **options: Any) -> Iterator[Picamera2Source]:
    """The device's source over ``camera``, closed after."""
    source = open_source(camera, **options)
    try:
        yield source
    finally:
        source.close()


@pytest.mark.parametrize("platform", [VC4, PISP])
@pytest.mark.parametrize("size", [(2304, 1296), (1280, 720)])
def test_the_device_configuration_is_valid_and_sees_the_whole_sensor(
        platform: str, size: tuple[int, int]) -> None:
    camera = FakePicamera2(platform)
    source = open_source(camera, size=size)
    try:
        assert camera.camera_config is not None
        assert camera.camera_config["main"] == {"format": "RGB888", "size": size,
                                                "preserve_ar": True}
        assert camera.camera_config["lores"]["format"] == "YUV420"
        # The binned full-view mode, never the 1536x864 centre crop picamera2 picks
        # by itself for 1280x720.
        assert camera.sensor_mode is not None and camera.sensor_mode["size"] == (2304, 1296)
        assert camera.sensor_mode["crop_limits"] == (0, 0, *IMX708_ARRAY)
        assert camera.modes_read == 1
    finally:
        source.close()


def test_picamera2_left_to_itself_would_crop_1280x720() -> None:
    """The rule the source works around, as picamera2 applies it."""
    camera = FakePicamera2()
    camera.configure(camera.create_preview_configuration(
        main={"format": "RGB888", "size": (1280, 720)}))
    assert camera.sensor_mode is not None and camera.sensor_mode["size"] == (1536, 864)


def test_full_view_mode_for_each_size() -> None:
    camera = FakePicamera2()
    assert full_view_mode(camera, (1280, 720)) == {"output_size": (2304, 1296), "bit_depth": 10}
    assert full_view_mode(camera, (2304, 1296)) == {"output_size": (2304, 1296), "bit_depth": 10}
    assert full_view_mode(camera, (3840, 2160)) == {"output_size": (4608, 2592), "bit_depth": 10}

    class Usb:
        sensor_modes = [{"format": "MJPEG"}]
        camera_properties: dict[str, Any] = {}

    assert full_view_mode(Usb(), (1280, 720)) is None


def test_rgb888_is_read_as_bgr_so_red_stays_red() -> None:
    camera = FakePicamera2(scene=card_table)
    source = open_source(camera, size=(2304, 1296))
    try:
        frame = source.read(timeout=5)
        assert frame is not None and frame.image.shape == (1296, 2304, 3)
        # The 2304x1296 mode bins 2x2: sensor pixel (x, y) is frame pixel (x/2, y/2).
        hsv = cv2.cvtColor(frame.image, cv2.COLOR_BGR2HSV)
        heart = hsv[(HEART[1] + HEART[3]) // 4, (HEART[0] + HEART[2]) // 4]
        club = hsv[(CLUB[1] + CLUB[3]) // 4, (CLUB[0] + CLUB[2]) // 4]
        assert heart[0] <= 10 or heart[0] >= 170, f"hearts' ink reads as hue {heart[0]}"
        assert heart[1] > 150 and club[2] < 40
        b, g, r = frame.image[(HEART[1] + HEART[3]) // 4, (HEART[0] + HEART[2]) // 4]
        assert r > 150 and b < 60
    finally:
        source.close()


def test_the_watch_image_is_the_luminance_plane_at_the_configured_size() -> None:
    camera = FakePicamera2(scene=card_table)
    # Odd sides: picamera2 rounds them down to even; the source reads back what it got.
    source = open_source(camera, size=(2304, 1296), watch=(577, 325))
    try:
        frame = source.read(timeout=5)
        assert frame is not None and frame.watch is not None
        assert frame.watch.shape == (324, 576)
        expected = cv2.cvtColor(cv2.resize(card_table(*IMX708_ARRAY), (576, 324),
                                           interpolation=cv2.INTER_AREA), cv2.COLOR_RGB2GRAY)
        assert np.array_equal(frame.watch, expected)  # no chroma rows, no stride padding
    finally:
        source.close()


def test_a_watch_larger_than_the_frame_is_refused_before_the_camera_opens() -> None:
    camera = FakePicamera2()
    with pytest.raises(SourceError, match=r"watch \(640, 480\) is larger than size \(320, 240\)"):
        open_source(camera, size=(320, 240), watch=(640, 480))
    assert camera.camera_config is None


@pytest.mark.parametrize(("streams", "message"), [
    ({"main": {"format": "RGB888", "size": (1280, 720)},
      "lores": {"format": "RGB888", "size": (320, 180)}}, "lores stream must be YUV"),
    ({"main": {"format": "RGB888", "size": (640, 360)},
      "lores": {"format": "YUV420", "size": (1280, 720)}}, "may not exceed main"),
    ({"main": {"format": "RGB24", "size": (640, 360)}}, "Bad format RGB24"),
])
def test_the_fake_refuses_what_picamera2_refuses_on_a_pi4(
        streams: dict[str, Any], message: str) -> None:
    camera = FakePicamera2(VC4)
    with pytest.raises(RuntimeError, match=message):
        camera.configure(camera.create_preview_configuration(**streams))


def test_the_fake_takes_rgb_lores_on_a_pi5_and_refuses_bad_keys() -> None:
    camera = FakePicamera2(PISP)
    camera.configure(camera.create_preview_configuration(
        main={"format": "RGB888", "size": (1280, 720)},
        lores={"format": "RGB888", "size": (320, 180)}))
    with pytest.raises(ValueError, match="Bad key 'fps'"):
        camera.create_preview_configuration(main={"fps": 30})
    with pytest.raises(RuntimeError, match="Unexpected keys"):
        camera.configure({**camera.create_preview_configuration(), "sensor": {"mode": 1}})


# -- the controls and the Camera Module 3's lens ------------------------------------------------


def test_the_fake_lists_controls_as_picamera2_does_with_and_without_a_lens() -> None:
    cm3, hq = FakePicamera2(), FakePicamera2(autofocus=False)
    assert cm3.camera_controls["LensPosition"] == (0.0, 15.0, 1.0)  # imx708's lens map
    assert cm3.camera_controls["AfMode"] == (0, 2, 0)
    assert "AfMode" not in hq.camera_controls and "LensPosition" not in hq.camera_controls
    hq.configure(hq.create_preview_configuration())
    hq.start()
    with pytest.raises(RuntimeError, match="Control AfMode is not advertied by libcamera"):
        hq.autofocus_cycle()
    assert "LensPosition" not in hq.capture_metadata()


@pytest.mark.parametrize(("controls", "message"), [
    ({"LensPos": 1.0}, "Control LensPos is not advertied by libcamera"),
    ({"FocusDistance": 0.9}, "Control FocusDistance is not advertied by libcamera"),
    ({"AfMode": 0.0}, "Unable to cast"),
])
def test_the_fake_refuses_what_picamera2_and_libcamera_refuse(
        controls: dict[str, Any], message: str) -> None:
    camera = FakePicamera2()
    with pytest.raises(RuntimeError, match=message):
        camera.set_controls(controls)


def started(camera: FakePicamera2) -> FakePicamera2:
    camera.configure(camera.create_preview_configuration())
    camera.start()
    return camera


def test_lens_position_is_dioptres_clamped_to_the_lens_and_obeyed_only_in_manual() -> None:
    camera = started(FakePicamera2(table_m=0.9))
    assert camera.lens == 1.0 and camera.af_mode == AF_MANUAL  # libcamera's start position
    camera.set_controls({"AfMode": AF_MANUAL, "LensPosition": 90.0})  # centimetres, by mistake
    assert camera.lens == 15.0  # clamped, not refused: focused at 6.7 cm
    assert camera.defocus_px > 100
    camera.set_controls({"AfMode": AF_CONTINUOUS})
    camera.set_controls({"LensPosition": 1.0 / 0.9})  # ignored outside manual mode
    assert camera.lens == 15.0
    camera.capture_metadata()  # continuous AF moves the lens by itself
    assert camera.lens == pytest.approx(1 / 0.9)
    camera.set_controls({"AfMode": 7})  # "AF mode 7 not recognised": ignored
    assert camera.af_mode == AF_CONTINUOUS


def test_af_trigger_scans_only_in_auto_mode() -> None:
    camera = started(FakePicamera2(table_m=0.8))
    camera.set_controls({"AfTrigger": 0})  # manual mode: ignored
    assert camera.capture_metadata()["AfState"] == 0 and camera.lens == 1.0
    assert camera.autofocus_cycle() is True
    assert camera.lens == pytest.approx(1.25) and camera.af_mode == 1
    blank = started(FakePicamera2(focusable=False))
    assert blank.autofocus_cycle() is False and blank.capture_metadata()["AfState"] == 3


def test_a_known_mount_sets_manual_focus_in_dioptres() -> None:
    camera = FakePicamera2(table_m=0.9)
    with running(camera, size=(1280, 720), mount_cm=90) as source:
        assert camera.af_mode == AF_MANUAL
        assert camera.lens == pytest.approx(1 / 0.9)  # not 90, not 0.9
        assert camera.defocus_px < 0.01
        assert camera.controls_log == [{"AfMode": 0, "LensPosition": pytest.approx(1 / 0.9)}]
        assert source.focus.kind == "manual" and source.focus.distance_m == pytest.approx(0.9)
        assert "0.90 m" in source.focus.words and "turn the lens" not in source.focus.words
        assert source.lens is source


def test_a_mount_nearer_than_the_lens_focuses_is_clamped_and_said() -> None:
    camera = FakePicamera2(table_m=0.05)
    with running(camera, mount_cm=5) as source:
        assert camera.lens == 15.0 and source.focus.clamped
        assert "the nearest the lens focuses" in source.focus.words


def test_without_a_mount_height_autofocus_runs_once_then_holds() -> None:
    camera = FakePicamera2(table_m=0.85)
    with running(camera, size=(1280, 720)) as source:
        assert source.focus.kind == "autofocus"
        assert source.focus.distance_m == pytest.approx(0.85)
        assert camera.af_mode == AF_MANUAL  # held: nothing moves the lens while cards are laid
        assert [c.get("AfMode") for c in camera.controls_log] == [1, 0]
        assert "autofocus found the table at 0.85 m" in source.focus.words


def test_refocus_runs_on_the_camera_thread_and_finds_a_moved_table() -> None:
    camera = FakePicamera2(table_m=0.9)
    with running(camera, mount_cm=90) as source:
        camera.table_m = 0.75  # the arm was lowered
        said = source.refocus()
        assert said.startswith("refocusing the camera: one autofocus scan, then held")
        assert "it was at 0.90 m" in said
        for _ in range(20):
            if source.read(timeout=1.0) is not None and source.focus.kind == "autofocus":
                break
        assert source.focus.distance_m == pytest.approx(0.75)
        assert camera.af_mode == AF_MANUAL and camera.defocus_px < 0.01


def test_a_camera_without_autofocus_is_left_alone_and_says_turn_the_lens() -> None:
    camera = FakePicamera2(autofocus=False)
    with running(camera, mount_cm=90) as source:
        assert camera.controls_log == []
        assert source.focus.kind == "fixed" and source.lens is None
        assert "turn the lens" in source.focus.words


def test_a_mount_height_that_is_no_height_is_refused_before_the_camera_opens() -> None:
    camera = FakePicamera2()
    with pytest.raises(SourceError, match="mount_cm must be the lens's height"):
        open_source(camera, mount_cm=-90)
    assert camera.camera_config is None


def test_doctor_camera_says_the_focus_set() -> None:
    from firmware.doctor.walk import measure_camera

    lines: list[str] = []
    with running(FakePicamera2(table_m=0.9), mount_cm=90) as source:
        assert measure_camera(source, lambda image: [], say=lines.append) == (1280, 720)
    assert lines[1].startswith("camera: focus: set for the mount, 0.90 m (LensPosition 1.11")


def test_autofocus_waits_for_the_hand_to_leave_the_table() -> None:
    camera = FakePicamera2(table_m=0.9)
    camera.hand_frames = 6  # someone still laying a card as the board starts
    with running(camera) as source:
        assert camera.scanned_at and camera.scanned_at[0] > 6
        camera.table_m, camera.hand_frames = 0.8, 10
        scanned = len(camera.scanned_at)
        start = camera.frames
        source.refocus()
        for _ in range(40):
            source.read(timeout=1.0)
            if len(camera.scanned_at) > scanned:
                break
        assert camera.scanned_at[-1] > start + 10  # not while the hand moved
        assert source.focus.distance_m == pytest.approx(0.8)


def test_run_says_the_focus_it_set(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from firmware.commands.run import open_parts
    from firmware.device import recogniser_probe
    from firmware.device.config import load_device_config
    from vision.live import sources

    camera = FakePicamera2(table_m=0.9)
    monkeypatch.setitem(sources.SOURCES, "picamera2",
                        lambda **options: Picamera2Source(camera_factory=lambda: camera,
                                                          **options))
    monkeypatch.setattr(recogniser_probe, "recogniser_problem", lambda: None)
    config = tmp_path / "config.toml"
    config.write_text('[camera]\nsource = "picamera2"\nsize = [1280, 720]\nmount_cm = 90\n')
    parts = open_parts(load_device_config(config), clock=lambda: 0.0)
    try:
        assert "camera: focus: set for the mount, 0.90 m (LensPosition 1.11 dioptres), from " \
               "[camera] mount_cm = 90" in parts.lines
    finally:
        parts.close()
