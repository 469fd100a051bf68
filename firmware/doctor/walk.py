"""The doctor's hands-on checks: one LED walked along each track, each button asked for,
one camera frame measured.

Each takes the opened part and a ``say`` for its lines, and the clock and the sleep
it waits with, so tests run them on the simulator, gpiozero's mock pins and a
replayed frame without waiting.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from hardware.buttons import ButtonSpec
from hardware.layout import Layout
from hardware.strip import LedStrip

__all__ = ["walk_leds", "ask_buttons", "measure_camera", "WALK_COLOUR"]

Say = Callable[[str], None]
#: A dim white: visible on every colour order, and far inside any supply's budget.
WALK_COLOUR = (48, 48, 48)


def walk_leds(strip: LedStrip, layout: Layout, *, say: Say, sleep: Callable[[float], None],
              step_s: float = 0.03) -> None:
    """Lights one LED at a time along each track, start hole to game hole, then darkens all.

    A dark LED in the walk is a bad LED or joint; where it stops, the chain is broken.
    """
    for track in range(layout.tracks):
        leds = [layout.led(track, hole) for hole in range(layout.holes)]
        say(f"track {track + 1}: walking LED {leds[0]} to LED {leds[-1]} "
            f"({layout.holes} holes): watch for a dark or wrong-coloured hole")
        for led in leds:
            frame = np.zeros((strip.n, 3), dtype=np.uint8)
            frame[led] = WALK_COLOUR
            strip.show(frame)
            sleep(step_s)
    strip.show(np.zeros((strip.n, 3), dtype=np.uint8))
    say("LEDs: walk done, strip dark")


def ask_buttons(panel: Any, specs: Sequence[ButtonSpec], *, say: Say,
                clock: Callable[[], float], sleep: Callable[[float], None],
                timeout_s: float = 10.0, poll_s: float = 0.01) -> dict[str, bool]:
    """Asks for each button in turn and says whether it came; returns name -> pressed.

    A press of another button while one is asked for is said too: two wires swapped.
    """
    answered: dict[str, bool] = {}
    for spec in specs:
        say(f"press {spec.name.upper()} (GPIO{spec.pin}) within {timeout_s:g} s")
        deadline = clock() + timeout_s
        answered[spec.name] = False
        while clock() < deadline and not answered[spec.name]:
            for event in panel.poll():
                if event.name == spec.name:
                    answered[spec.name] = True
                elif event.kind != "turn":
                    say(f"  got {event.name.upper()} instead: are the wires of "
                        f"{spec.name.upper()} and {event.name.upper()} swapped?")
            if not answered[spec.name]:
                sleep(poll_s)
        say(f"  {spec.name.upper()}: " + ("pressed" if answered[spec.name] else
                                          f"no press in {timeout_s:g} s: check its wire to "
                                          f"GPIO{spec.pin} and GND"))
    return answered


def measure_camera(source: Any, recognise: Callable[[Any], Sequence[Any]], *, say: Say,
                   tries: int = 20) -> tuple[int, int] | None:
    """Grabs one frame, says its size and each card's size in pixels; returns the frame size.

    A card's size is ``calibrate --check``'s (``vision.live.camera_check.card_size``), so the
    doctor and the calibration never disagree on what a card measures.
    """
    # Only this check reads cards: the LED walk and the buttons need not load the recogniser.
    from vision.live.camera_check import card_size

    frame = None
    for _ in range(tries):
        frame = source.read(timeout=0.5)
        if frame is not None:
            break
    if frame is None:
        say(f"camera: no frame in {tries} tries")
        return None
    height, width = frame.image.shape[:2]
    say(f"camera: frame {width}x{height}")
    focus = getattr(source, "focus", None)  # what a motorised lens was set to (vision.live.lens)
    if focus is not None:
        say(f"camera: {focus.words}")
    detections = recognise(frame.image)
    if not detections:
        say("camera: no card in view: lay a few face up under the camera and run it again")
        return (width, height)
    for found in detections:
        across, down = card_size(found.corners)
        name = str(found.card) if found.card is not None else "unreadable card"
        say(f"  {name}: {across:.0f} x {down:.0f} px")
    return (width, height)
