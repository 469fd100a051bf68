"""The Camera Module 3's motorised lens: focused for the mount, and said in words.

A fixed-focus webcam or the HQ camera is focused by hand; the Camera Module 3 (imx708) has a
voice-coil lens that libcamera moves. Left alone it stays where libcamera's start put it
(``LensPosition``'s default, 1.0 dioptre: a metre), never where the table is. So the source
focuses it once, at start, for the mount: ``LensPosition = 100 / mount_cm`` dioptres in manual
mode where the height is known, else one autofocus scan (``Picamera2.autofocus_cycle``) held
in manual mode at the position it found. The focus meter (``focus_watch``) asks for a new
scan when the view goes soft.

The controls' names, units and ranges are libcamera's and picamera2's own
(docs/interfaces/picamera2-libcamera.md says where each is; ``tests/picamera2_fake.py``
behaves so):

- ``AfMode``: int32 enum, Manual 0, Auto 1, Continuous 2 (``control_ids_core.yaml``).
- ``LensPosition``: float, dioptres (1 / metres; 0 is infinity), obeyed only in
  ``AfModeManual`` and clamped by the Raspberry Pi IPA to the lens map (imx708: 0 to 15);
  ``camera_controls["LensPosition"]`` is its (min, max, default).
- A camera without a lens driver lists no ``AfMode`` in ``camera_controls``
  (``ipa_base.cpp``: the AF controls are declared only ``if (lensPresent_)``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal, Protocol

__all__ = ["AF_MODE_MANUAL", "AF_MODE_AUTO", "AF_MODE_CONTINUOUS", "LensFocus", "Lens",
           "has_autofocus", "focus_for_mount", "autofocus_once", "mount_dioptres",
           "TURN_THE_LENS"]

# libcamera control_ids_core.yaml, AfMode's enum values.
AF_MODE_MANUAL, AF_MODE_AUTO, AF_MODE_CONTINUOUS = 0, 1, 2

# What a person does with a lens that has no motor (a webcam, the HQ camera's C/CS lens).
TURN_THE_LENS = "turn the lens until the card corners look crisp"

Kind = Literal["manual", "autofocus", "autofocus failed", "fixed"]


@dataclass(frozen=True, slots=True)
class LensFocus:
    """The focus the board set: how (``kind``), where (``dioptres``, libcamera's
    ``LensPosition``) and for what height (``mount_cm``, where the config gives it).

    ``fixed`` is a lens without a motor: nothing was set, a person focuses it.
    ``clamped`` says the mount asked for a position beyond the lens's range.
    """

    kind: Kind
    dioptres: float | None = None
    mount_cm: float | None = None
    clamped: bool = False

    @property
    def distance_m(self) -> float | None:
        """Where the lens is focused, in metres (inf at 0 dioptres); None when unknown."""
        if self.dioptres is None:
            return None
        return math.inf if self.dioptres <= 0 else 1.0 / self.dioptres

    def _at(self) -> str:
        distance = self.distance_m
        if distance is None:
            return "an unknown distance"
        if math.isinf(distance):
            return "infinity"
        return f"{distance:.2f} m (LensPosition {self.dioptres:.2f} dioptres)"

    @property
    def words(self) -> str:
        """The focus in a sentence, for ``doctor --camera``, ``calibrate --check`` and the log."""
        if self.kind == "fixed":
            return f"focus: the lens has no autofocus motor: {TURN_THE_LENS}"
        if self.kind == "manual":
            beyond = " (the nearest the lens focuses)" if self.clamped else ""
            return (f"focus: set for the mount, {self._at()}{beyond}, from [camera] mount_cm = "
                    f"{self.mount_cm:g}")
        if self.kind == "autofocus":
            return f"focus: autofocus found the table at {self._at()}, held there"
        return (f"focus: autofocus found no sharp position, lens held at {self._at()}: lay a "
                f"few cards in view, or set [camera] mount_cm")

    def to_json(self) -> dict[str, object]:
        """The ``focus`` object of ``calibrate --check --json``."""
        distance = self.distance_m
        return {"kind": self.kind, "lens_position": self.dioptres,
                "distance_m": None if distance is None or math.isinf(distance)
                else round(distance, 3),
                "mount_cm": self.mount_cm, "words": self.words}


class Lens(Protocol):
    """A motorised lens the board can refocus (``Picamera2Source.lens``)."""

    @property
    def focus(self) -> LensFocus: ...

    def refocus(self) -> str:
        """Starts one autofocus scan, then holds it; says what the board is doing."""
        ...


def has_autofocus(camera: Any) -> bool:
    """Whether picamera2 lists ``AfMode`` for this camera (a lens driver is bound)."""
    try:
        return "AfMode" in camera.camera_controls
    except Exception:  # a camera that cannot list its controls has none to set
        return False


def mount_dioptres(mount_cm: float) -> float:
    """``LensPosition`` for a table ``mount_cm`` below the lens: 1 / metres."""
    if not (mount_cm > 0 and math.isfinite(mount_cm)):
        raise ValueError(f"mount height {mount_cm!r} cm: expected a positive number")
    return 100.0 / mount_cm


def focus_for_mount(camera: Any, mount_cm: float) -> LensFocus:
    """Sets manual focus at the mount's distance, clamped to the lens's reported range."""
    if not has_autofocus(camera):
        return LensFocus("fixed", mount_cm=mount_cm)
    low, high, _ = camera.camera_controls["LensPosition"]
    wanted = mount_dioptres(mount_cm)
    position = float(min(max(wanted, float(low)), float(high)))
    camera.set_controls({"AfMode": AF_MODE_MANUAL, "LensPosition": position})
    return LensFocus("manual", position, mount_cm, clamped=position != wanted)


def autofocus_once(camera: Any, *, mount_cm: float | None = None) -> LensFocus:
    """One autofocus scan (the camera running), then manual mode at the position it found,
    so nothing moves the lens while cards are laid. Where picamera2 reports no position the
    lens is left in auto mode, which moves it only when triggered (libcamera's AfModeAuto)."""
    if not has_autofocus(camera):
        return LensFocus("fixed", mount_cm=mount_cm)
    focused = bool(camera.autofocus_cycle())
    position = camera.capture_metadata().get("LensPosition")
    if position is not None:
        position = float(position)
        camera.set_controls({"AfMode": AF_MODE_MANUAL, "LensPosition": position})
    return LensFocus("autofocus" if focused else "autofocus failed", position, mount_cm)
