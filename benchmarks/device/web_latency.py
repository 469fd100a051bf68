"""Phone page latency: from the loop publishing a snapshot to the page in a browser showing it.

A simulated game is laid card by card through a scripted camera into the real
loop (real flow, store and renderer, loop on its own thread, a frame every
~5 ms), with the phone page served by uvicorn from another thread and opened
in headless Chromium (Debian's ``/usr/bin/chromium`` through Playwright). For
every snapshot the loop publishes we note the wall time (and the time the LED
frame of that turn was pushed); the page notes the wall time at which its DOM
took each snapshot's version. Target: the page within 1 s of the LEDs.

Prints numbers; asserts nothing. ``--json`` prints one object.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

WATCH = """
window.seenAt = {};
new MutationObserver(() => {
  const version = document.body.dataset.version;
  if (version && !(version in window.seenAt)) {
    window.seenAt[version] = performance.timeOrigin + performance.now();
  }
}).observe(document, { attributes: true, subtree: true, attributeFilter: ["data-version"] });
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=60, help="table moments to play")
    parser.add_argument("--gap", type=float, default=0.15, help="seconds between moments")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    from engine.simulate import simulate_game
    from firmware.demo.scripted_table import (
        BlankCamera,
        ScriptedTracker,
        SteppedClock,
        table_script,
    )
    from firmware.device.loop import DeviceLoop
    from firmware.store.eventstore import EventStore
    from firmware.table.flow import TableFlow
    from firmware.web.hub import Hub
    from firmware.web.server import WebServer, create_app
    from hardware.layout import per_side_tracks
    from hardware.render import Renderer
    from hardware.strips.simulator import SimulatorStrip

    published: dict[int, float] = {}
    pushed: dict[int, float] = {}
    last_push: list[Any] = [None, 0.0]  # (the loop's turn, wall time in ms)
    turn = [lambda: -1]

    class TimedStrip(SimulatorStrip):
        def show(self, frame: Any) -> None:
            super().show(frame)
            last_push[:] = [turn[0](), time.time() * 1000]

    class PacedCamera(BlankCamera):
        def read(self, timeout: float = 0.5) -> Any:
            time.sleep(0.005)
            return super().read(timeout)

    rng = random.Random(4)
    truth = simulate_game(rng, ("Ann", "Bob"))
    steps = table_script(truth, rng=rng)[:args.cards]
    hub = Hub()

    def note() -> None:
        snapshot = hub.latest
        if snapshot is not None:
            published[snapshot.version] = time.time() * 1000
            if last_push[0] == turn[0]():  # the LEDs changed in this same turn
                pushed[snapshot.version] = last_push[1]

    hub.subscribe(note)
    clock = SteppedClock()
    layout = per_side_tracks(2)
    tracker = ScriptedTracker()
    with tempfile.TemporaryDirectory() as scratch:
        store = EventStore.open(Path(scratch) / "events.sqlite3", clock=clock)
        loop = DeviceLoop(store=store, flow=TableFlow(("Ann", "Bob")), strip=TimedStrip(layout),
                          renderer=Renderer(layout), clock=clock, source=PacedCamera(clock),
                          recognise=lambda image: [], tracker=tracker, hub=hub)
        turn[0] = lambda: loop.turns
        loop.start()
        stop = threading.Event()
        device = threading.Thread(target=lambda: loop.run(should_stop=stop.is_set), daemon=True)
        device.start()
        server = WebServer(create_app(hub, pin="0000"), host="127.0.0.1", port=0, hub=hub)
        server.start()
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium",
                                                 args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 390, "height": 844})
            page.add_init_script(WATCH)
            page.goto(f"http://127.0.0.1:{server.port}/")
            page.wait_for_selector("#link.live")
            first = hub.latest.version if hub.latest else 0
            for step in steps:
                if step.seen:
                    tracker.push(step.seen)
                time.sleep(args.gap)
            time.sleep(1.0)
            seen = {int(k): float(v) for k, v in page.evaluate("window.seenAt").items()}
            browser.close()
        server.stop()
        stop.set()
        device.join(5)
        store.close()

    versions = [v for v in sorted(published) if v > first]
    shown = [v for v in versions if v in seen]
    delays = [seen[v] - published[v] for v in shown]
    from_leds = [seen[v] - pushed[v] for v in shown if v in pushed]
    coalesced = len(versions) - len(shown)

    def summary(values: list[float]) -> dict[str, float]:
        values = sorted(values)
        return {"median_ms": round(statistics.median(values), 1),
                "p95_ms": round(values[max(0, int(len(values) * 0.95) - 1)], 1),
                "max_ms": round(values[-1], 1)}

    result = {"snapshots": len(versions), "shown": len(shown), "coalesced": coalesced,
              "with_led_change": len(from_leds),
              "publish_to_page": summary(delays), "leds_to_page": summary(from_leds)}
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{len(shown)} of {len(versions)} snapshots reached the page "
              f"({coalesced} superseded before sending)")
        for name in ("publish_to_page", "leds_to_page"):
            values = result[name]
            assert isinstance(values, dict)
            print(f"{name}: median {values['median_ms']} ms, p95 {values['p95_ms']} ms, "
                  f"max {values['max_ms']} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
