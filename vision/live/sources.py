"""Camera sources behind one small interface, chosen by name: picamera2, OpenCV capture, replay.

A camera that is missing, unplugged or stalls must never hang the device's
loop: live sources read on a background thread and ``read`` waits at most
``timeout`` seconds, returning None for "no frame this time". A source that
cannot start raises ``CameraUnavailableError`` saying what is wrong; nothing
here swaps in another source without being asked (as with gpiozero's pin
factories, the choice is the config's).

picamera2 comes from apt (``python3-picamera2``), not PyPI, and OpenCV's
capture cannot open libcamera sensors (the Pi camera modules), so on a Pi
with a ribbon camera the source is ``picamera2`` and on a USB webcam ``opencv``.
"""

from __future__ import annotations

import importlib
import inspect
import math
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, cast

import numpy as np
import numpy.typing as npt

from vision.live.lens import LensFocus, autofocus_once, focus_for_mount, mount_dioptres

__all__ = [
    "Frame", "FrameSource", "CameraUnavailableError", "SourceError", "open_source", "SOURCES",
    "ReplaySource", "OpenCVSource", "Picamera2Source", "IMAGE_SUFFIXES", "VIDEO_SUFFIXES",
    "default_watch_size", "watch_image", "full_view_mode",
]

Image = npt.NDArray[np.uint8]
# The watch stream is this many times smaller than the full frame unless the config says.
WATCH_DIVISOR = 4
# Autofocus scans a still table: two watch frames in a row whose grey levels differ by less
# than this on average (a hand, or exposure still settling, moves far more); a scan asked for
# waits at most this many frames (3 s at 30 fps) for that, then runs anyway.
STILL_LEVEL = 2.0
STILL_WAIT_FRAMES = 90
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp")
VIDEO_SUFFIXES = (".mp4", ".avi", ".mkv", ".mov", ".mjpeg")


class SourceError(ValueError):
    """A source configuration that cannot work: unknown name, bad option, empty folder."""


class CameraUnavailableError(OSError):
    """A camera that cannot deliver: not installed, not plugged in, gone while running."""

    def __init__(self, source: str, reason: str) -> None:
        super().__init__(f"camera source {source!r} is unavailable: {reason}")
        self.source = source
        self.reason = reason


@dataclass(frozen=True, slots=True, init=False)
class Frame:
    """One BGR frame (OpenCV's order) with the time it was taken, in seconds.

    ``image`` is the full-resolution frame, the one cards are read from. ``watch`` is the
    same view as a small grey image (picamera2's ``lores`` stream, or a downscaled copy),
    cheap enough to compare every frame for movement; None where a source has none, and
    ``watch_image`` makes one. Callers that want one image use ``image``.

    A source whose watch copy is only ever shrunk from ``image`` (a replay) gives its
    ``watch_size`` instead of the copy: ``watch`` makes it on first use, so the readers that
    never look at it (calibrate, the doctor, a loop reading whole frames) pay no shrink.
    """

    image: Image
    at: float
    index: int
    _watch: Image | None = field(repr=False)
    _watch_size: tuple[int, int] | None = field(repr=False)

    def __init__(self, image: Image, at: float, index: int, watch: Image | None = None, *,
                 watch_size: tuple[int, int] | None = None) -> None:
        for name, value in (("image", image), ("at", at), ("index", index), ("_watch", watch),
                            ("_watch_size", watch_size)):
            object.__setattr__(self, name, value)  # frozen: the dataclass's own way in

    @property
    def watch(self) -> Image | None:
        """The small grey copy: the source's, else shrunk now (once) where it gave a size."""
        if self._watch is None and self._watch_size is not None:
            object.__setattr__(self, "_watch", watch_image(self.image, self._watch_size))
        return self._watch


def default_watch_size(size: tuple[int, int]) -> tuple[int, int]:
    """A quarter of ``size`` each way, in even pixels (what camera pipelines accept)."""
    return (max(2, size[0] // WATCH_DIVISOR // 2 * 2), max(2, size[1] // WATCH_DIVISOR // 2 * 2))


def watch_image(image: Image, size: tuple[int, int]) -> Image:
    """The small grey copy of a BGR frame that movement is watched on.

    Shrunk before it is greyed, so the cost is the shrink's (area averaging also takes
    the sensor's noise out, which would otherwise look like movement).
    """
    import cv2

    small = image if (image.shape[1], image.shape[0]) == size else cv2.resize(
        image, size, interpolation=cv2.INTER_AREA)
    return cast(Image, cv2.cvtColor(small, cv2.COLOR_BGR2GRAY))


class FrameSource(Protocol):
    """What the loop needs of a camera."""

    name: str

    def read(self, timeout: float = 0.5) -> Frame | None:
        """The next frame, or None when none came within ``timeout`` seconds."""
        ...

    def close(self) -> None: ...


# -- replay ----------------------------------------------------------------------


class ReplaySource:
    """Frames from a folder of images (in name order) or a video file: demos, tests, benchmarks.

    Timestamps are ``index / fps`` so a replay behaves the same on any machine. Each frame
    comes at ``size`` (the recording's own when None) with its ``watch`` copy at ``watch``
    (a quarter of the frame when None), as a camera's two streams do; the copy is shrunk
    only when a reader asks for it (``Frame.watch``).
    """

    name = "replay"

    def __init__(self, path: str | Path, *, fps: float = 30.0, loop: bool = False,
                 size: tuple[int, int] | None = None,
                 watch: tuple[int, int] | None = None) -> None:
        import cv2

        self.path = Path(path)
        if fps <= 0:
            raise SourceError(f"replay fps must be positive, not {fps!r}")
        self.fps, self.loop, self.size, self.watch = fps, loop, size, watch
        self._cv2 = cv2
        self._index = 0
        self._video: Any = None
        self._files: list[Path] = []
        if self.path.is_dir():
            self._files = sorted(p for p in self.path.iterdir()
                                 if p.suffix.lower() in IMAGE_SUFFIXES)
            if not self._files:
                raise SourceError(f"replay folder {self.path} holds no images "
                                  f"({', '.join(IMAGE_SUFFIXES)})")
        elif self.path.is_file() and self.path.suffix.lower() in VIDEO_SUFFIXES:
            self._video = cv2.VideoCapture(str(self.path))
            if not self._video.isOpened():
                raise SourceError(f"cannot open the video {self.path}")
        else:
            raise SourceError(f"replay needs a folder of images or a video file, not {self.path}")

    @property
    def exhausted(self) -> bool:
        return self._video is None and not self.loop and self._index >= len(self._files)

    def read(self, timeout: float = 0.5) -> Frame | None:
        image = self._next_image()
        if image is None:
            return None
        if self.size is not None and (image.shape[1], image.shape[0]) != self.size:
            image = cast(Image, self._cv2.resize(image, self.size,
                                                 interpolation=self._cv2.INTER_AREA))
        shape = (image.shape[1], image.shape[0])
        frame = Frame(image, self._index / self.fps, self._index,
                      watch_size=self.watch or default_watch_size(shape))
        self._index += 1
        return frame

    def _next_image(self) -> Image | None:
        if self._video is not None:
            ok, image = self._video.read()
            if not ok and self.loop:
                self._video.set(self._cv2.CAP_PROP_POS_FRAMES, 0)
                ok, image = self._video.read()
            return image if ok else None
        if self._index >= len(self._files) and not self.loop:
            return None
        path = self._files[self._index % len(self._files)]
        image = self._cv2.imread(str(path), self._cv2.IMREAD_COLOR)
        if image is None:
            raise SourceError(f"cannot read the image {path}")
        return cast(Image, image)

    def __iter__(self) -> Iterator[Frame]:
        while (frame := self.read()) is not None:
            yield frame

    def close(self) -> None:
        if self._video is not None:
            self._video.release()
            self._video = None


# -- live cameras ----------------------------------------------------------------


class _Grabber:
    """Reads a blocking camera on a daemon thread so a stalled camera cannot hang the loop.

    Only the newest frame is kept: the loop wants what the table looks like now.
    """

    def __init__(self, source: str, grab: Callable[[], tuple[Image, Image] | None],
                 clock: Callable[[], float]) -> None:
        self._source, self._grab, self._clock = source, grab, clock
        self._frames: queue.Queue[tuple[Image, Image, float] | BaseException] = queue.Queue(
            maxsize=1)
        self._stop = threading.Event()
        self._count = 0
        self._thread = threading.Thread(target=self._run, name=f"camera-{source}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        failures = 0
        while not self._stop.is_set():
            try:
                images = self._grab()
            except Exception as exc:  # the camera library's own errors: report, stop
                self._offer(exc)
                return
            if images is None:
                failures += 1
                if failures >= 30:  # a second of nothing at 30 fps: unplugged
                    self._offer(CameraUnavailableError(self._source, "the camera stopped "
                                                       "sending frames (unplugged?)"))
                    return
                time.sleep(0.03)
                continue
            failures = 0
            self._offer((*images, self._clock()))

    def _offer(self, item: tuple[Image, Image, float] | BaseException) -> None:
        try:
            self._frames.get_nowait()
        except queue.Empty:
            pass
        self._frames.put_nowait(item)

    def read(self, timeout: float) -> Frame | None:
        try:
            item = self._frames.get(timeout=timeout)
        except queue.Empty:
            return None
        if isinstance(item, BaseException):
            if isinstance(item, CameraUnavailableError):
                raise item
            raise CameraUnavailableError(self._source, str(item)) from item
        image, watch, at = item
        self._count += 1
        return Frame(image, at, self._count - 1, watch)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=1.0)


class OpenCVSource:
    """A USB (UVC) webcam through OpenCV's V4L2 capture.

    Wiring: plug it into a USB port; ``device`` is its index (0 for
    ``/dev/video0``) or a device path. The Pi's ribbon cameras are libcamera
    devices that OpenCV cannot open: use ``picamera2`` for them.
    """

    name = "opencv"

    def __init__(self, device: int | str = 0, *, size: tuple[int, int] = (1280, 720),
                 watch: tuple[int, int] | None = None,
                 capture_factory: Callable[[int | str], Any] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        import cv2

        factory = capture_factory or cv2.VideoCapture
        self._capture = factory(device)
        if not self._capture.isOpened():
            raise CameraUnavailableError(
                "opencv", f"no camera at {device!r} (is it plugged in, and is the user in the "
                "video group?)")
        self._capture.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
        self._capture.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
        # A webcam has one stream: the watch copy is shrunk from it on the camera's thread.
        self._watch = watch or default_watch_size(size)
        self._grabber = _Grabber("opencv", self._grab, clock)

    def _grab(self) -> tuple[Image, Image] | None:
        ok, image = self._capture.read()
        if not ok:
            return None
        return cast(Image, image), watch_image(cast(Image, image), self._watch)

    def read(self, timeout: float = 0.5) -> Frame | None:
        return self._grabber.read(timeout)

    def close(self) -> None:
        self._grabber.stop()
        self._capture.release()


class Picamera2Source:
    """A Raspberry Pi camera module through picamera2 (libcamera).

    Wiring: the ribbon cable in the CAM port (Pi 5: CAM/DISP 0), contacts
    towards the board's edge on a Pi 4. Install ``sudo apt install
    python3-picamera2`` and make the virtualenv with ``--system-site-packages``
    so it is visible; it is not installable from PyPI.

    Two streams come from the one sensor readout, as picamera2 configures them: ``main``
    at ``size`` (RGB888, read for cards) and ``lores`` at ``watch`` (YUV420, whose
    luminance plane is the grey image watched for movement; a Pi 4's ISP gives ``lores``
    only in YUV, no larger than ``main``). The sensor mode is the smallest that sees the
    sensor's whole width (``full_view_mode``): left to itself picamera2 picks the mode
    nearest ``main``'s size, which for 1280x720 on a Camera Module 3 is its 1536x864
    mode, a centre crop with two thirds of the view. The sizes read back are the ones
    picamera2 configured (it rounds odd sides down). ``tests/picamera2_fake.py`` holds
    picamera2's own rules.

    Focus (``vision.live.lens``): a Camera Module 3's motorised lens is set for the table,
    at ``LensPosition = 100 / mount_cm`` dioptres where the mount height is given, else by one
    autofocus scan at start, held; ``refocus`` asks for a new scan (the focus meter asks when
    the view goes soft), which runs on the camera's thread between frames. Each scan waits
    for a still table (``STILL_LEVEL``; at most ``STILL_WAIT_FRAMES``). A camera that
    lists no ``AfMode`` has no motor: ``focus`` says to turn its lens by hand.
    """

    name = "picamera2"

    def __init__(self, *, size: tuple[int, int] = (1280, 720),
                 watch: tuple[int, int] | None = None, mount_cm: float | None = None,
                 camera_factory: Callable[[], Any] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if mount_cm is not None:
            try:
                mount_dioptres(mount_cm)
            except (TypeError, ValueError):
                raise SourceError(f"camera mount_cm must be the lens's height over the table "
                                  f"in cm, a positive number, not {mount_cm!r}") from None
        self._mount_cm = mount_cm
        self._refocus_asked = threading.Event()
        self._refocus_waited = 0
        self._last_watch: Image | None = None
        if camera_factory is None:
            try:
                module = importlib.import_module("picamera2")
            except ImportError as exc:
                raise CameraUnavailableError(
                    "picamera2", "the picamera2 package is missing: sudo apt install "
                    "python3-picamera2, and make the virtualenv with --system-site-packages"
                ) from exc
            camera_factory = module.Picamera2
        size = (int(size[0]), int(size[1]))
        watch = watch or default_watch_size(size)
        if watch[0] > size[0] or watch[1] > size[1]:
            raise SourceError(f"camera watch {tuple(watch)} is larger than size {size}: "
                              "picamera2's lores stream may not exceed main")
        try:
            self._camera = camera_factory()
            sensor = full_view_mode(self._camera, size)
            # The mode is asked for by the raw stream's size (picamera2 configures a raw
            # stream anyway), which every picamera2 honours; ``sensor=`` is newer.
            config = self._camera.create_preview_configuration(
                main={"format": "RGB888", "size": size},
                lores={"format": "YUV420", "size": (int(watch[0]), int(watch[1]))},
                **({"raw": {"size": sensor["output_size"]}} if sensor else {}))
            self._camera.configure(config)
            configured = getattr(self._camera, "camera_config", None) or config
            lores_w, lores_h = configured["lores"]["size"]
            self._watch = (int(lores_w), int(lores_h))
            # Manual focus is a control sent with the start; autofocus needs frames.
            focus = (focus_for_mount(self._camera, mount_cm) if mount_cm is not None
                     else None)
            self._camera.start()
            if focus is None:
                self._settle()
            self._focus = focus or autofocus_once(self._camera)
        except Exception as exc:  # libcamera reports a missing sensor in many ways
            raise CameraUnavailableError("picamera2", f"the camera did not start: {exc}") from exc
        self._grabber = _Grabber("picamera2", self._grab, clock)

    @property
    def focus(self) -> LensFocus:
        """The focus the source set (``doctor --camera`` and ``calibrate --check`` say it)."""
        return self._focus

    @property
    def lens(self) -> Picamera2Source | None:
        """This source as a ``vision.live.lens.Lens`` where the lens has a motor, else None."""
        return None if self._focus.kind == "fixed" else self

    def refocus(self) -> str:
        """Asks for one autofocus scan, run between frames on the camera's thread and then
        held; says what the board does."""
        self._refocus_asked.set()
        was = self._focus.distance_m
        before = f" (it was at {was:.2f} m)" if was is not None and math.isfinite(was) else ""
        return f"refocusing the camera: one autofocus scan, then held{before}"

    def _grab(self) -> tuple[Image, Image]:
        """Both streams of one request, so the watched and the read frame are one moment.

        picamera2's "RGB888" arrays are laid out B, G, R: OpenCV's order already. A YUV420
        array is the luminance plane (``height`` rows) over the chroma, rows padded to the
        stride: the top-left ``watch`` pixels are the grey image.
        """
        (main, lores), _ = self._camera.capture_arrays(["main", "lores"])
        width, height = self._watch
        watch = np.ascontiguousarray(lores[:height, :width])
        if self._refocus_asked.is_set():
            self._refocus_waited += 1
            if _still(self._last_watch, watch) or self._refocus_waited >= STILL_WAIT_FRAMES:
                self._refocus_asked.clear()
                self._refocus_waited = 0
                self._focus = autofocus_once(self._camera, mount_cm=self._mount_cm)
        self._last_watch = watch
        return main, watch

    def _settle(self) -> None:
        """Reads watch frames until two in a row match (nothing moving, exposure settled),
        at most ``STILL_WAIT_FRAMES``: autofocus then scans the table, not a hand."""
        width, height = self._watch
        last = None
        for _ in range(STILL_WAIT_FRAMES):
            (lores,), _ = self._camera.capture_arrays(["lores"])
            watch = lores[:height, :width]
            if _still(last, watch):
                return
            last = watch

    def read(self, timeout: float = 0.5) -> Frame | None:
        return self._grabber.read(timeout)

    def close(self) -> None:
        self._grabber.stop()
        self._camera.stop()
        self._camera.close()


def _still(previous: Image | None, current: Image) -> bool:
    """Whether nothing moved between two watch frames (``STILL_LEVEL``)."""
    if previous is None or previous.shape != current.shape:
        return False
    change = np.abs(previous.astype(np.int16) - current.astype(np.int16)).mean()
    return bool(change < STILL_LEVEL)


def full_view_mode(camera: Any, size: tuple[int, int]) -> dict[str, Any] | None:
    """picamera2's ``sensor`` choice for ``size``: the smallest mode whose crop spans the
    sensor's whole width and that is at least ``size`` (else the largest such), as
    ``{"output_size", "bit_depth"}``; None where the camera lists no such modes (a USB
    camera), leaving the choice to picamera2. Reading ``sensor_modes`` configures the
    camera once per mode, so it is done once, before the camera starts."""
    try:
        modes = [m for m in camera.sensor_modes
                 if "size" in m and "crop_limits" in m and "bit_depth" in m]
        array = camera.camera_properties.get("PixelArraySize")
    except Exception:  # a camera without modes: picamera2 chooses
        return None
    if not modes:
        return None
    width = array[0] if array else max(m["crop_limits"][2] for m in modes)
    whole = [m for m in modes if m["crop_limits"][2] >= width]
    if not whole:
        return None
    big = [m for m in whole if m["size"][0] >= size[0] and m["size"][1] >= size[1]]
    def area(mode: dict[str, Any]) -> int:
        return int(mode["size"][0] * mode["size"][1])

    mode = min(big, key=area) if big else max(whole, key=area)
    return {"output_size": tuple(mode["size"]), "bit_depth": int(mode["bit_depth"])}


SOURCES: dict[str, Callable[..., FrameSource]] = {
    "replay": ReplaySource,
    "opencv": OpenCVSource,
    "picamera2": Picamera2Source,
}


def open_source(name: str, **options: Any) -> FrameSource:
    """Opens the source called ``name`` with its options (the config's ``[camera]`` table)."""
    factory = SOURCES.get(name)
    if factory is None:
        raise SourceError(f"unknown camera source {name!r}: choose one of "
                          f"{', '.join(sorted(SOURCES))}")
    try:
        inspect.signature(factory).bind(**options)
    except TypeError as exc:
        raise SourceError(f"camera source {name!r}: {exc} (options given: {sorted(options)})"
                          ) from exc
    return factory(**options)
