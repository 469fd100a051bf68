"""Camera sources: replay from files, OpenCV capture, picamera2; never a hang, a clear error."""

from __future__ import annotations

import threading
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.sources import (
    CameraUnavailableError,
    OpenCVSource,
    Picamera2Source,
    ReplaySource,
    SourceError,
    open_source,
)


def write_images(folder: Path, count: int) -> None:
    folder.mkdir()
    for i in range(count):
        image = np.full((72, 128, 3), i * 20, np.uint8)
        cv2.imwrite(str(folder / f"frame_{i:03d}.png"), image)


def test_replay_folder_in_name_order_with_steady_timestamps(tmp_path: Path) -> None:
    write_images(tmp_path / "frames", 4)
    source = open_source("replay", path=tmp_path / "frames", fps=10)
    frames = list(source)
    assert [f.index for f in frames] == [0, 1, 2, 3]
    assert [f.at for f in frames] == pytest.approx([0, 0.1, 0.2, 0.3])
    assert [int(f.image[0, 0, 0]) for f in frames] == [0, 20, 40, 60]
    assert source.read() is None and source.exhausted


def test_replay_loops_and_resizes(tmp_path: Path) -> None:
    write_images(tmp_path / "frames", 2)
    source = ReplaySource(tmp_path / "frames", loop=True, size=(64, 36))
    frames = [source.read() for _ in range(5)]
    assert all(f is not None and f.image.shape == (36, 64, 3) for f in frames)


def test_replay_video_file(tmp_path: Path) -> None:
    path = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 30, (128, 72))
    for i in range(6):
        writer.write(np.full((72, 128, 3), i * 30, np.uint8))
    writer.release()
    assert len(list(ReplaySource(path))) == 6


@pytest.mark.parametrize(
    ("name", "options", "message"),
    [("replay", {"path": "/nonexistent"}, "folder of images or a video"),
     ("webcam", {}, "unknown camera source 'webcam'"),
     ("replay", {"path": ".", "colour": True}, "options given: \\['colour', 'path'\\]")],
)
def test_bad_source_configs_are_clear_errors(name: str, options: dict, message: str) -> None:
    with pytest.raises(SourceError, match=message):
        open_source(name, **options)


def test_an_empty_replay_folder_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="holds no images"):
        ReplaySource(tmp_path)


class FakeCapture:
    """Stands in for cv2.VideoCapture: frames until ``unplug`` is set, then nothing."""

    def __init__(self, *, opened: bool = True, stall: threading.Event | None = None) -> None:
        self.opened, self.stall = opened, stall
        self.unplugged = threading.Event()

    def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
        return self.opened

    def set(self, prop: int, value: float) -> bool:
        return True

    def read(self) -> tuple[bool, np.ndarray | None]:
        if self.stall is not None:
            self.stall.wait(5)  # a driver that blocks
        if self.unplugged.is_set():
            return False, None
        return True, np.zeros((72, 128, 3), np.uint8)

    def release(self) -> None:
        pass


def test_missing_usb_camera_is_a_clear_error() -> None:
    with pytest.raises(CameraUnavailableError, match="no camera at 7"):
        OpenCVSource(7, capture_factory=lambda device: FakeCapture(opened=False))


def test_a_stalled_camera_does_not_hang_the_reader() -> None:
    stall = threading.Event()
    source = OpenCVSource(0, capture_factory=lambda device: FakeCapture(stall=stall))
    try:
        assert source.read(timeout=0.05) is None
    finally:
        stall.set()
        source.close()


def test_an_unplugged_camera_raises_on_read() -> None:
    capture = FakeCapture()
    source = OpenCVSource(0, capture_factory=lambda device: capture)
    try:
        assert source.read(timeout=2) is not None
        capture.unplugged.set()
        with pytest.raises(CameraUnavailableError, match="stopped sending frames"):
            for _ in range(100):
                source.read(timeout=0.2)
    finally:
        source.close()


class FakePicamera2:
    def __init__(self) -> None:
        self.config: dict | None = None

    def create_preview_configuration(self, main: dict) -> dict:
        return {"main": main}

    def configure(self, config: dict) -> None:
        self.config = config

    def start(self) -> None:
        pass

    def capture_array(self) -> np.ndarray:
        return np.zeros((720, 1280, 3), np.uint8)

    def stop(self) -> None:
        pass

    def close(self) -> None:
        pass


def test_picamera2_source_configures_rgb888_and_reads() -> None:
    camera = FakePicamera2()
    source = Picamera2Source(camera_factory=lambda: camera)
    try:
        frame = source.read(timeout=2)
        assert frame is not None and frame.image.shape == (720, 1280, 3)
        assert camera.config == {"main": {"format": "RGB888", "size": (1280, 720)}}
    finally:
        source.close()


def test_picamera2_missing_names_the_apt_package() -> None:
    try:
        import picamera2  # noqa: F401
    except ImportError:
        with pytest.raises(CameraUnavailableError, match="apt install python3-picamera2"):
            Picamera2Source()
    else:  # pragma: no cover - only on a Pi
        pytest.skip("picamera2 is installed here")
