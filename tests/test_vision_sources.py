"""Camera sources: replay from files, OpenCV capture, picamera2; never a hang, a clear error."""

from __future__ import annotations

import threading
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.live import sources
from vision.live.sources import (
    CameraUnavailableError,
    OpenCVSource,
    Picamera2Source,
    ReplaySource,
    SourceError,
    open_source,
    watch_image,
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


# picamera2's own rules: tests/test_vision_picamera2.py, with tests/picamera2_fake.py.


def test_picamera2_missing_names_the_apt_package() -> None:
    try:
        import picamera2  # noqa: F401
    except ImportError:
        with pytest.raises(CameraUnavailableError, match="apt install python3-picamera2"):
            Picamera2Source()
    else:  # pragma: no cover - only on a Pi
        pytest.skip("picamera2 is installed here")


def write_table_images(folder: Path, count: int, size: tuple[int, int]) -> None:
    """Hi-res frames of a table: dark cloth with a white card that moves right each frame."""
    folder.mkdir()
    for i in range(count):
        image = np.full((size[1], size[0], 3), (40, 90, 30), np.uint8)
        cv2.rectangle(image, (100 + 200 * i, 300), (260 + 200 * i, 530), (255, 255, 255), -1)
        cv2.imwrite(str(folder / f"table_{i:02d}.png"), image)


def test_replay_of_a_hi_res_folder_gives_the_full_frame_and_a_quarter_watch(
        tmp_path: Path) -> None:
    write_table_images(tmp_path / "hires", 3, (2304, 1296))
    frames = list(open_source("replay", path=tmp_path / "hires"))
    assert [f.image.shape for f in frames] == [(1296, 2304, 3)] * 3
    assert [f.watch.shape for f in frames if f.watch is not None] == [(324, 576)] * 3
    # The same view shrunk: the card's left edge sits a quarter as far in.
    watch = frames[1].watch
    assert watch is not None and int(watch[100, 74]) < 100 < int(watch[100, 78])


def test_replay_of_a_video_gives_both_streams_at_the_configured_sizes(tmp_path: Path) -> None:
    path = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 30, (1920, 1080))
    assert writer.isOpened()
    for i in range(4):
        image = np.full((1080, 1920, 3), (40, 90, 30), np.uint8)
        cv2.rectangle(image, (100 + 200 * i, 300), (260 + 200 * i, 530), (255, 255, 255), -1)
        writer.write(image)
    writer.release()
    source = open_source("replay", path=path, size=(1920, 1080), watch=(480, 270), fps=30)
    frames = list(source)
    source.close()
    assert len(frames) == 4
    assert all(f.image.shape == (1080, 1920, 3) for f in frames)
    assert all(f.watch is not None and f.watch.shape == (270, 480) for f in frames)
    assert [f.at for f in frames] == pytest.approx([0, 1 / 30, 2 / 30, 3 / 30])


def test_replay_shrinks_the_watch_copy_only_when_a_reader_asks_and_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_table_images(tmp_path / "hires", 2, (2304, 1296))
    shrunk: list[tuple[int, int]] = []

    def counted(image: np.ndarray, size: tuple[int, int]) -> np.ndarray:
        shrunk.append(size)
        return watch_image(image, size)

    monkeypatch.setattr(sources, "watch_image", counted)
    frames = list(open_source("replay", path=tmp_path / "hires"))
    assert shrunk == []  # read for cards only: nothing shrunk
    watch = frames[1].watch
    assert frames[1].watch is watch and shrunk == [(576, 324)]
    assert watch is not None and np.array_equal(watch, watch_image(frames[1].image, (576, 324)))
