"""What the camera's eye (``firmware.web.camera_eye``) costs the device loop: card-to-LED latency
and the loop's turn, with the eye off, on (a look a second, as ``run`` has it), and on with a
picture drawn and encoded ``--stress`` times a second beside it (the eye draws one a second at
most: this is twenty times its worst).

Each run plays the same simulated games through the real loop, store, flow and renderer as
``loop_latency.py`` does, but its camera hands over a drawn 1280x720 table with four cards
the tracker has placed, so the eye has real frames to scale, mark and encode. The loop runs
flat out on a stepped clock (no waiting for frames), which is the worst case for sharing the
interpreter with the eye's thread: on the device it waits for the camera most of the time.

Prints numbers; asserts nothing. ``--json`` prints one object.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def drawn_table() -> tuple[Any, Any, tuple[Any, ...]]:
    """A drawn 1280x720 table: its image, its zones and its four cards as the tracker places
    them (card, zone, outline)."""
    import numpy as np

    from vision.drawn.scene import SceneRenderer, SceneSettings, Script
    from vision.live.zones import TableZones

    script = Script.calibration(("Ann", "Bob"), random.Random(3))
    frame = SceneRenderer(script, rng=np.random.default_rng(3),
                          settings=SceneSettings(frames_per_step=1, hand_frames=0)).render(0)
    zones = TableZones.from_markers((1280, 720), {t.zone: t.corners for t in frame.truth})
    placed = tuple((t.card, t.zone, tuple(t.corners)) for t in frame.truth)
    return frame.image, zones, placed


def run(games: int, seed: int, eye_on: bool, stress: float = 0.0) -> dict[str, Any]:
    """``games`` simulated games through the loop, with the eye off or on; ``stress`` pictures
    a second drawn beside it."""
    import threading

    from benchmarks.common import p95
    from benchmarks.device.card_to_led import CardToLed, TimedStrip, TimedTracker
    from engine.simulate import simulate_game
    from firmware.demo.scripted_table import BlankCamera, SteppedClock, table_script
    from firmware.device.loop import DeviceLoop
    from firmware.store.eventstore import EventStore
    from firmware.table.flow import TableFlow
    from firmware.web.camera_eye import CameraEye, EyeView
    from firmware.web.eye_picture import draw_eye
    from hardware.layout import per_side_tracks
    from hardware.render import Renderer

    image, zones, placed = drawn_table()
    names = ("Ann", "Bob")
    watch = CardToLed(names)
    turns: list[float] = []

    class PlacingTracker(TimedTracker):
        @property
        def placed(self) -> tuple[Any, ...]:
            return placed

    drawn: list[float] = []
    sizes: list[int] = []

    def timed_draw(view: Any) -> Any:
        began = time.perf_counter()
        out = draw_eye(view)
        drawn.append(time.perf_counter() - began)
        sizes.append(len(out[0]))
        return out

    eye = None
    if eye_on:
        eye = CameraEye(interval_s=1.0, draw=timed_draw)
        eye.start()
    stop = threading.Event()
    if stress:
        still = EyeView(image, 0.0, placed, (), zones)

        def busy() -> None:
            while not stop.wait(1.0 / stress):
                timed_draw(still)

        beside = threading.Thread(target=busy, daemon=True)
        beside.start()
    layout = per_side_tracks(2)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for game in range(games):
                rng = random.Random(seed + game)
                script = table_script(simulate_game(rng, names, {}), rng=rng)
                clock = SteppedClock()
                store = EventStore.open(Path(tmp) / f"events{game}.sqlite3", clock=clock)
                camera = BlankCamera(clock)
                camera.image = image
                tracker = PlacingTracker(watch)
                tracker.zones = zones
                loop = DeviceLoop(store=store, flow=TableFlow(names),
                                  strip=TimedStrip(layout, watch), renderer=Renderer(layout),
                                  clock=clock, source=camera,
                                  recognise=lambda image: [], tracker=tracker, eye=eye)
                loop.start()
                for step in script:
                    if step.press is None:
                        tracker.push(step.seen)
                    began = time.perf_counter()
                    loop.step()
                    turns.append(time.perf_counter() - began)
                store.close()
    finally:
        stop.set()
        if eye is not None:
            eye.close()
    ms = sorted(s * 1000 for s in watch.samples)
    turn_ms = sorted(t * 1000 for t in turns)
    return {"eye": "off" if not eye_on else "on" if not stress else f"+{stress:g} pictures/s",
            "cards": len(ms), "median_ms": round(statistics.median(ms), 3),
            "p95_ms": round(p95(ms), 3), "max_ms": round(ms[-1], 2),
            "turns": len(turn_ms), "turn_median_ms": round(statistics.median(turn_ms), 3),
            "turn_p95_ms": round(p95(turn_ms), 3),
            "pictures": len(drawn),
            "draw_median_ms": round(statistics.median(drawn) * 1000, 1) if drawn else None,
            "jpeg_kb": round(statistics.median(sizes) / 1024, 1) if sizes else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3, help="simulated games per run (3)")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--stress", type=float, default=20.0,
                        help="pictures a second drawn beside the loop in the stressed run (20)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    run(1, args.seed + 1000, False)  # warm: imports, the store's first open
    results = [run(args.games, args.seed, on, stress) for on, stress in
               ((False, 0.0), (True, 0.0), (True, args.stress), (False, 0.0))]
    if args.json:
        print(json.dumps({"games": args.games, "runs": results}))
        return
    for r in results:
        drawn = (f"; {r['pictures']} pictures, {r['draw_median_ms']} ms each, "
                 f"{r['jpeg_kb']} kB" if r["pictures"] else "")
        print(f"eye {r['eye']:>12}: card to LED median {r['median_ms']} ms, p95 {r['p95_ms']} "
              f"ms ({r['cards']} cards); loop turn median {r['turn_median_ms']} ms, p95 "
              f"{r['turn_p95_ms']} ms ({r['turns']} turns){drawn}")


if __name__ == "__main__":
    main()
