"""Tells the players when the camera's lens is out of focus, and when it is sharp again.

A lens that drifts or is knocked out of focus makes the board stop seeing cards without a
word: blurred by 2 pixels the EPFL dev photos read 40 of 163 cards, by 3 pixels none
(vision/training/README.md, "Out-of-focus frames sharpened back"). A soft frame is
sharpened back (``vision.recognise.focus``), but past ``SHARPEN_BELOW`` the recogniser reads frames
as they are, so that is where the players are told to turn the lens. The recogniser already
measures the blur now and then (``vision.recognise.focus.FocusMeter``); this only watches its
measure.

A camera with a motorised lens (the Camera Module 3: ``vision.live.lens``) is never turned
by hand: once the view has been soft for as many measures, the watch asks the lens for one
autofocus scan (once per soft spell, and again if it goes on to be out of focus), and what
the players hear says what the board did.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from vision.live.lens import TURN_THE_LENS, Lens
from vision.recognise.focus import SHARPEN_BELOW, FocusMeter, sharpens

__all__ = ["FocusState", "FocusWatch", "focus_state"]

FocusState = Literal["unknown", "sharp", "soft", "out of focus"]


def focus_state(sigma: float) -> FocusState:
    """What one blur measure (``vision.recognise.focus.blur_sigma``) says of the lens.

    0.0 is a frame with no edge to measure (a bare table, a dark room): it says nothing.
    "soft" frames are sharpened before they are read and still read most cards.
    """
    if sigma <= 0.0:
        return "unknown"
    if sigma >= SHARPEN_BELOW:
        return "out of focus"
    return "soft" if sharpens(sigma) else "sharp"


@dataclass
class FocusWatch:
    """Says "camera out of focus" once ``readings`` measures in a row find it so, and "in
    focus again" once as many find it not; a measure of nothing changes nothing.

    One measure is not enough: a camera being knocked, or a hand passing just under the
    lens, blurs a frame or two of an otherwise sharp camera. At the meter's default of one
    measure every 30 frames, 3 readings are about 3 seconds at 30 fps.

    ``lens``: the camera's motorised lens (``Picamera2Source.lens``), refocused instead of
    telling anyone to turn it; None for a lens turned by hand.
    """

    readings: int = 3
    lens: Lens | None = None

    def __post_init__(self) -> None:
        if self.readings < 1:
            raise ValueError(f"a focus watch needs 1 reading or more, got {self.readings}")
        self._seen = 0
        self._streak = 0
        self._out = False
        self._last: FocusState = "unknown"
        self._soft = 0  # measures in a row not sharp
        self._refocused = False  # a scan asked for in this soft spell

    @property
    def state(self) -> FocusState:
        """"out of focus" once said (until said otherwise), else the latest measure's state."""
        return "out of focus" if self._out else self._last

    def update(self, meter: FocusMeter) -> str | None:
        """What to tell the players, if anything, after the meter's latest measure."""
        if meter.measurements == self._seen:
            return None  # no new measure since the last frame
        self._seen = meter.measurements
        sigma = meter.sigma
        state = focus_state(sigma)
        if state == "unknown":
            return None
        if state != "out of focus":
            self._last = state
        asked = self._refocus_when_soft(state)  # what the lens is doing, if asked just now
        soft = f"camera {state} (blur {sigma:.1f} px): {asked}" if asked else None
        if (state == "out of focus") == self._out:
            self._streak = 0
            return soft
        self._streak += 1
        if self._streak < self.readings:
            return soft
        self._out, self._streak = not self._out, 0
        if self._out:
            # A lens with a motor scans again (unless it was asked this very measure).
            done = asked or (self.lens.refocus() if self.lens is not None else TURN_THE_LENS)
            return (f"camera out of focus (blur {sigma:.1f} px): {done}; until then cards may "
                    "go unseen: enter them by hand")
        if self.lens is not None:
            return f"camera in focus again ({self.lens.focus.words})"
        return "camera in focus again"

    def _refocus_when_soft(self, state: FocusState) -> str | None:
        """Asks a motorised lens for one scan once ``readings`` measures in a row are soft or
        worse (a sharp measure ends the spell), and gives the lens's words for it."""
        if self.lens is None:
            return None
        if state == "sharp":
            self._soft, self._refocused = 0, False
            return None
        self._soft += 1
        if self._soft < self.readings or self._refocused:
            return None
        self._refocused = True
        return self.lens.refocus()
