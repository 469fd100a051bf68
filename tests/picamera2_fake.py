"""A stand-in for picamera2's ``Picamera2`` that refuses what picamera2 0.3.38 refuses.

picamera2 needs libcamera (apt, a Pi), so tests use this. Its rules are copied from
picamera2 0.3.38's source (PyPI sdist, ``picamera2/picamera2.py``), not from ours:

- ``create_preview_configuration``: stream keys are only format, size, stride,
  preserve_ar (else ValueError); sizes are rounded down to even
  (``align_stream(optimal=False)``); lores defaults to YUV420 at main's size; raw
  defaults to the sensor format at main's size.
- ``check_camera_config``: each stream a dict with a str format that is YUV or RGB,
  a ``(w, h)`` tuple size with even sides; lores no larger than main; on a Pi 4
  (VC4) lores must be YUV; ``sensor`` takes only bit_depth and output_size.
- ``_make_libcamera_config``: the sensor mode is the one ``score_mode`` likes best for
  the sensor's ``output_size``, else raw's size (which defaults to main's).
- ``request.py``: an "RGB888" array is laid out B, G, R (its PIL mode is "BGR");
  a YUV420 array is ``(h * 3 / 2, stride)``, the luminance plane first.

The Camera Module 3 (imx708) modes are the ones picamera2's ``sensor_modes`` lists for it.

Controls and the motorised lens (docs/interfaces/picamera2-libcamera.md lists each fact with
its source):

- ``camera_controls``: ``{name: (min, max, default)}`` from libcamera's ``ControlInfo``
  (picamera2.py ``camera_controls``); an enum's min and max are its first and last value and
  its default the first where none is given (libcamera ``controls.cpp``,
  ``ControlInfo(Span<const ControlValue> values, def)``). The AF controls and
  ``LensPosition`` are listed only for a camera with a lens driver (``ipa_base.cpp``
  ``configure``: ``if (lensPresent_) ctrlMap.merge(ipaAfControls)``), ``LensPosition``'s
  range being the tuning file's lens map (``af.cpp`` ``getLensLimits``; imx708.json
  ``"map": [0.0, 445, 15.0, 925]``, default ``ranges.normal.default`` 1.0).
- ``set_controls``: a name the camera does not list raises
  ``RuntimeError("Control X is not advertied by libcamera")`` (picamera2 ``controls.py``
  ``Controls.__setattr__``, its spelling); a float for an int32 control (the Af enums) cannot
  be cast (libcamera ``py_helpers.cpp`` ``pyToControlValue``: ``ob.cast<int32_t>()``, which
  pybind11 refuses for a float) and raises ``RuntimeError``.
- What the Raspberry Pi IPA does with them (``ipa_base.cpp`` ``applyControls``, ``af.cpp``):
  ``AfMode`` first, an unknown value logged and ignored; ``LensPosition`` obeyed only in
  ``AfModeManual`` and clamped to the lens map, never refused; ``AfTrigger`` start scans
  only in ``AfModeAuto`` and is ignored in manual and continuous; continuous mode moves the
  lens by itself. Controls set before ``start`` apply at start; at the first start without a
  position the lens goes to the default (``IpaBase::start``).
- ``autofocus_cycle``: ``set_controls({"AfMode": Auto, "AfTrigger": Start})`` then waits for
  ``AfState`` Scanning, then Focused, Failed or Idle; True when Focused (picamera2.py
  ``autofocus_cycle``). ``AfState``: Idle 0, Scanning 1, Focused 2, Failed 3
  (``control_ids_core.yaml``).

The lens is drawn: a frame is blurred by how far ``LensPosition`` is from the table's
distance (``table_m``), so a lens focused wrongly gives soft frames.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import cv2
import numpy as np

VC4, PISP = "VC4", "PISP"
YUV = {"NV21", "NV12", "YUV420", "YVU420", "YVYU", "YUYV", "UYVY", "VYUY"}
RGB = {"BGR888", "RGB888", "XBGR8888", "XRGB8888", "RGB161616", "BGR161616"}
IMX708_ARRAY = (4608, 2592)
IMX708_MODES: tuple[dict[str, Any], ...] = (
    {"format": "SRGGB10_CSI2P", "bit_depth": 10, "size": (1536, 864), "fps": 120.13,
     "crop_limits": (768, 432, 3072, 1728)},
    {"format": "SRGGB10_CSI2P", "bit_depth": 10, "size": (2304, 1296), "fps": 56.03,
     "crop_limits": (0, 0, 4608, 2592)},
    {"format": "SRGGB10_CSI2P", "bit_depth": 10, "size": (4608, 2592), "fps": 14.35,
     "crop_limits": (0, 0, 4608, 2592)},
)
Scene = Callable[[int, int], np.ndarray]

# libcamera control_ids_core.yaml: AfMode, AfTrigger and AfState values.
AF_MANUAL, AF_AUTO, AF_CONTINUOUS = 0, 1, 2
AF_TRIGGER_START, AF_TRIGGER_CANCEL = 0, 1
AF_IDLE, AF_SCANNING, AF_FOCUSED, AF_FAILED = 0, 1, 2, 3
# imx708.json's rpi.af lens map spans 0 to 15 dioptres; ranges.normal.default is 1.0.
IMX708_LENS = (0.0, 15.0, 1.0)
# ipa_base.cpp's ipaControls / ipaColourControls (a few) and ipaAfControls: (min, max, default).
BASE_CONTROLS: dict[str, tuple[Any, Any, Any]] = {
    "AeEnable": (False, True, None), "AwbEnable": (False, True, None),
    "Brightness": (-1.0, 1.0, 0.0), "Contrast": (0.0, 32.0, 1.0),
    "Saturation": (0.0, 32.0, 1.0), "Sharpness": (0.0, 16.0, 1.0),
    "ColourGains": (0.0, 32.0, None),
}
AF_CONTROLS: dict[str, tuple[Any, Any, Any]] = {
    "AfMode": (0, 2, 0), "AfRange": (0, 2, 0), "AfSpeed": (0, 1, 0), "AfMetering": (0, 1, 0),
    "AfTrigger": (0, 1, 0), "AfPause": (0, 2, 0), "LensPosition": IMX708_LENS,
}
INT_CONTROLS = frozenset({"AfMode", "AfRange", "AfSpeed", "AfMetering", "AfTrigger", "AfPause"})
# How soft a frame is per dioptre the lens is off the table: Gaussian sigma in sensor pixels
# (a lens set for 1 m over a table at 0.8 m, 0.25 dioptres off, blurs by 2 sensor pixels).
BLUR_PX_PER_DIOPTRE = 8.0


def plain_scene(width: int, height: int) -> np.ndarray:
    """A dark green cloth (RGB)."""
    return np.full((height, width, 3), (30, 90, 40), np.uint8)


class FakePicamera2:
    """``Picamera2()`` for a Camera Module 3 on a Pi 4 (``VC4``) or Pi 5 (``PISP``).

    ``scene(width, height)`` gives what the lens sees as an RGB image; ``sensor_mode`` is
    the mode the last ``configure`` chose, ``camera_config`` the configuration it took.
    """

    sensor_format = "SRGGB10_CSI2P"

    def __init__(self, platform: str = VC4, scene: Scene = plain_scene, *,
                 autofocus: bool = True, table_m: float = 0.9, focusable: bool = True) -> None:
        self.platform = platform
        self.scene = scene
        # The lens: a motor (a Camera Module 3) or none (an HQ or fixed-focus camera); the
        # table's distance, which autofocus finds unless the view has nothing to focus on.
        self.autofocus = autofocus
        self.table_m = table_m
        self.focusable = focusable
        self.af_mode = AF_MANUAL
        self.af_state = AF_IDLE
        self.lens: float | None = None  # LensPosition, dioptres; None until the first start
        self.controls_log: list[dict[str, Any]] = []
        # A hand moving over the table for this many more frames; the frames autofocus ran at.
        self.hand_frames = 0
        self.frames = 0
        self.scanned_at: list[int] = []
        self._pending: dict[str, Any] = {}
        self._ever_started = False
        self.camera_config: dict[str, Any] | None = None
        self.sensor_mode: dict[str, Any] | None = None
        self.started = False
        self.closed = False
        self.modes_read = 0
        self._views: dict[tuple[int, ...], np.ndarray] = {}

    @property
    def camera_properties(self) -> dict[str, Any]:
        return {"Model": "imx708", "PixelArraySize": IMX708_ARRAY, "ColorFilterArrangement": 0}

    @property
    def camera_controls(self) -> dict[str, tuple[Any, Any, Any]]:
        return {**BASE_CONTROLS, **(AF_CONTROLS if self.autofocus else {})}

    # -- controls.py: set_controls; ipa_base.cpp applyControls; af.cpp ----------------

    def set_controls(self, controls: dict[str, Any]) -> None:
        known = self.camera_controls
        for name, value in controls.items():
            if name not in known:
                raise RuntimeError(f"Control {name} is not advertied by libcamera")
            if name in INT_CONTROLS and isinstance(value, float):
                raise RuntimeError("Unable to cast Python instance of type <class 'float'> to "
                                   "C++ type 'int'")
        self.controls_log.append(dict(controls))
        if self.started:
            self._apply(controls)
        else:  # picamera2 hands them to camera.start()
            self._pending.update(controls)

    def _apply(self, controls: dict[str, Any]) -> None:
        if "AfMode" in controls and controls["AfMode"] in (AF_MANUAL, AF_AUTO, AF_CONTINUOUS):
            self.af_mode = int(controls["AfMode"])  # else: "AF mode N not recognised", ignored
            self.af_state = AF_IDLE
            if self.af_mode == AF_CONTINUOUS:
                self.af_state = AF_SCANNING
        if "LensPosition" in controls and self.af_mode == AF_MANUAL:
            low, high, _ = IMX708_LENS
            self.lens = min(max(float(controls["LensPosition"]), low), high)
        if controls.get("AfTrigger") == AF_TRIGGER_START and self.af_mode == AF_AUTO \
                and self.af_state != AF_SCANNING:
            self.af_state = AF_SCANNING

    def _next_frame(self) -> None:
        """A frame passes: a scan under way ends, on the table or failed."""
        if self.af_state == AF_SCANNING:
            if self.focusable:
                self.lens, self.af_state = 1.0 / self.table_m, AF_FOCUSED
            else:
                self.af_state = AF_FAILED

    def capture_metadata(self) -> dict[str, Any]:
        if not self.started:
            raise RuntimeError("Camera is not running")  # picamera2 would wait for ever
        self._next_frame()
        if not self.autofocus:
            return {"SensorTimestamp": 0}
        return {"SensorTimestamp": 0, "AfState": self.af_state, "AfPauseState": 0,
                "LensPosition": self.lens}

    def autofocus_cycle(self, wait: bool | None = None, signal_function: Any = None) -> bool:
        self.set_controls({"AfMode": AF_AUTO, "AfTrigger": AF_TRIGGER_START})
        if not self.started:
            raise RuntimeError("Camera is not running")  # picamera2 would wait for ever
        self.scanned_at.append(self.frames)
        states = [self.af_state]
        self._next_frame()
        states.append(self.af_state)
        assert states[0] == AF_SCANNING, "the scan never started"
        return states[-1] == AF_FOCUSED

    @property
    def sensor_modes(self) -> list[dict[str, Any]]:
        if self.started:
            raise RuntimeError("Camera must be stopped before configuring")
        self.modes_read += 1  # the real one configures the camera once per mode
        return [dict(mode) for mode in IMX708_MODES]

    # -- picamera2.py: create_preview_configuration, align_stream --------------------

    @staticmethod
    def _stream(initial: dict[str, Any], updates: dict[str, Any] | None,
                ignore: tuple[str, ...] = ()) -> dict[str, Any] | None:
        if updates is None:
            return None
        valid = ("format", "size", "stride", "preserve_ar")
        for key, value in updates.items():
            if key in valid:
                initial[key] = value
            elif key not in ignore:
                raise ValueError(f"Bad key {key!r}: valid stream configuration keys are {valid}")
        return initial

    @staticmethod
    def _align(stream: dict[str, Any]) -> None:
        width, height = stream["size"]
        stream["size"] = (width - width % 2, height - height % 2)

    def create_preview_configuration(self, main: dict[str, Any] | None = None,
                                     lores: dict[str, Any] | None = None,
                                     raw: dict[str, Any] | None = None,
                                     sensor: dict[str, Any] | None = None,
                                     **others: Any) -> dict[str, Any]:
        if others:
            raise TypeError(f"unexpected arguments {sorted(others)}")
        main_stream = self._stream({"format": "XBGR8888", "size": (640, 480),
                                    "preserve_ar": True}, main or {})
        assert main_stream is not None
        self._align(main_stream)
        lores_stream = self._stream({"format": "YUV420", "size": main_stream["size"],
                                     "preserve_ar": False}, lores)
        if lores_stream is not None:
            self._align(lores_stream)
        raw_stream = self._stream({"format": self.sensor_format, "size": main_stream["size"]},
                                  raw or {}, ("bit_depth", "crop_limits", "fps", "unpacked"))
        return {"use_case": "preview", "transform": "identity", "colour_space": "sycc",
                "buffer_count": 4, "queue": True, "main": main_stream, "lores": lores_stream,
                "raw": raw_stream, "controls": {}, "sensor": sensor or {}}

    # -- picamera2.py: check_stream_config, check_camera_config ----------------------

    def _check_stream(self, stream: object, name: str) -> None:
        if type(stream) is not dict:
            raise RuntimeError(name + " stream should be a dictionary")
        for key in ("format", "size"):
            if key not in stream:
                raise RuntimeError(f"{key} not found in {name} stream")
        fmt = stream["format"]
        if type(fmt) is not str:
            raise RuntimeError("format in " + name + " stream should be a string")
        if name == "raw":
            if not fmt.startswith("S"):
                raise RuntimeError("Unrecognised raw format " + fmt)
        elif fmt not in YUV and fmt not in RGB and fmt != "MJPEG":
            raise RuntimeError("Bad format " + fmt + " in stream " + name)
        size = stream["size"]
        if type(size) is not tuple or len(size) != 2:
            raise RuntimeError("size in " + name + " stream should be (width, height)")
        if size[0] % 2 or size[1] % 2:
            raise RuntimeError("width and height should be even")

    def _check_config(self, config: dict[str, Any]) -> None:
        for name in ("colour_space", "transform", "main", "lores", "raw"):
            if name not in config:
                raise RuntimeError(f"{name!r} key expected in camera configuration")
        if config.get("sensor"):
            bad = set(config["sensor"]) - {"bit_depth", "output_size"}
            if bad:
                raise RuntimeError(f"Unexpected keys {bad} in sensor configuration")
        self._check_stream(config["main"], "main")
        if config["lores"] is not None:
            self._check_stream(config["lores"], "lores")
            main_w, main_h = config["main"]["size"]
            lores_w, lores_h = config["lores"]["size"]
            if lores_w > main_w or lores_h > main_h:
                raise RuntimeError("lores stream dimensions may not exceed main stream")
            if self.platform == VC4 and config["lores"]["format"] not in YUV:
                raise RuntimeError("lores stream must be YUV")
        if config["raw"] is not None:
            self._check_stream(config["raw"], "raw")

    # -- picamera2.py: _make_libcamera_config's choice of sensor mode ----------------

    def _choose_mode(self, config: dict[str, Any]) -> dict[str, Any]:
        sensor = config.get("sensor") or {}
        bit_depth = sensor.get("bit_depth") or 10
        if sensor.get("output_size") is not None:
            output_size = sensor["output_size"]
        elif config.get("raw") is not None and "size" in config["raw"]:
            output_size = config["raw"]["size"]
        else:
            output_size = config["main"]["size"]

        def score(mode: dict[str, Any]) -> float:
            def score_format(desired: float, actual: float) -> float:
                diff = desired - actual
                return -diff / 4 if diff < 0 else diff * 2

            width, height = mode["size"]
            value = score_format(output_size[0], width) + score_format(output_size[1], height)
            value += 1500 * score_format(output_size[0] / output_size[1], width / height)
            return float(value + 500 * abs(bit_depth - mode["bit_depth"]))

        return min(IMX708_MODES, key=score)

    def configure(self, config: dict[str, Any]) -> None:
        if self.started:
            raise RuntimeError("Camera must be stopped before configuring")
        config = dict(config)
        self._check_config(config)
        self.sensor_mode = self._choose_mode(config)
        self.camera_config = config

    def start(self) -> None:
        if self.camera_config is None:
            raise RuntimeError("Camera has not been configured")
        self.started = True
        if self.autofocus:
            if not self._ever_started and "LensPosition" not in self._pending:
                self.lens = IMX708_LENS[2]  # IpaBase::start: the default position, once
            self._ever_started = True
            self._apply(self._pending)
        self._pending = {}

    # -- request.py: the arrays ------------------------------------------------------

    def _view(self, width: int, height: int) -> np.ndarray:
        """What the sensor mode sees, scaled to a stream's size (RGB); drawn once per size."""
        assert self.sensor_mode is not None
        x, y, w, h = self.sensor_mode["crop_limits"]
        sigma = self.defocus_px * width / w
        key = (x, y, w, h, width, height, round(sigma, 2))
        if key not in self._views:
            full = self.scene(*IMX708_ARRAY)
            view = cv2.resize(full[y:y + h, x:x + w], (width, height),
                              interpolation=cv2.INTER_AREA)
            self._views[key] = view if sigma < 0.3 else cv2.GaussianBlur(view, (0, 0), sigma)
        return self._views[key]

    @property
    def defocus_px(self) -> float:
        """How soft the lens draws the table, as a blur in sensor pixels (0: in focus)."""
        if not self.autofocus or self.lens is None:
            return 0.0
        return BLUR_PX_PER_DIOPTRE * abs(self.lens - 1.0 / self.table_m)

    def capture_arrays(self, names: list[str]) -> tuple[list[np.ndarray], dict[str, Any]]:
        if not self.started or self.camera_config is None:
            raise RuntimeError("Camera is not running")
        time.sleep(0.02)  # a frame's time: the source's reading thread waits for each
        self._next_frame()
        self.frames += 1
        hand = self.hand_frames > 0
        self.hand_frames -= hand
        arrays = []
        for name in names:
            stream = self.camera_config[name]
            width, height = stream["size"]
            rgb = self._view(width, height)
            if hand:  # a bright hand-sized block, somewhere new each frame
                rgb = rgb.copy()
                x = (self.frames * width // 7) % (width // 2)
                rgb[height // 4:height // 2, x:x + width // 6] = (230, 190, 170)
            if stream["format"] == "RGB888":  # "RGB888" is B, G, R in memory
                arrays.append(np.ascontiguousarray(rgb[..., ::-1]))
            elif stream["format"] == "YUV420":
                stride = -(-width // 64) * 64
                array = np.full((height * 3 // 2, stride), 128, np.uint8)
                array[:height, :width] = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
                arrays.append(array)
            else:
                raise AssertionError(f"the fake does not draw {stream['format']}")
        return arrays, {}

    def stop(self) -> None:
        self.started = False

    def close(self) -> None:
        self.closed = True
