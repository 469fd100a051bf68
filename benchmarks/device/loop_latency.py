"""Device loop numbers: card-to-LED latency, resident memory of ``run``, start-up to ready.

- latency: from the tracker reporting ``CardAppeared`` to the LED frame being
  pushed, through the real flow, the real store (a durable SQLite commit per
  event) and the real renderer, for every card of a simulated game
  (target: <= 100 ms);
- memory: VmRSS of ``cribbage-board run`` with simulated hardware, read from
  /proc/self/status inside the subprocess just before it exits (target: <= 150 MB), also
  with a replayed camera of blank frames and of real table photos (cards in view, so every
  network the recogniser has is loaded and run);
- start-up: from starting the ``run`` subprocess to its "ready" line (target: <= 3 s).

Prints numbers; asserts nothing. ``--json`` prints one object.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

CHILD = """
import sys, time
from firmware.commands.cli import main
code = main(sys.argv[1:])
status = open('/proc/self/status').read().split('\\n')
rss = [l for l in status if l.startswith(('VmRSS', 'VmHWM'))]
print('MEMORY ' + ' '.join(' '.join(l.split()) for l in rss), flush=True)
sys.exit(code)
"""


def latency(players: int, seed: int, store_dir: str | None, *,
            beside: Any = None) -> dict[str, Any]:
    """``beside(store_path)``, if given, starts something that runs next to the loop over
    its store (benchmarks/club/load.py: the club publisher) and returns how to stop it."""
    from benchmarks.common import p95
    from benchmarks.device.card_to_led import CardToLed, TimedStrip, TimedTracker
    from engine.simulate import simulate_game
    from firmware.demo.scripted_table import BlankCamera, SteppedClock, table_script
    from firmware.device.loop import DeviceLoop
    from firmware.store.eventstore import EventStore
    from firmware.table.flow import TableFlow
    from hardware.layout import per_side_tracks
    from hardware.render import Renderer

    names = ("Ann", "Bob", "Cat", "Dan")[:players]
    rules = {"partnership": True} if players == 4 else {}
    rng = random.Random(seed)
    events = simulate_game(rng, names, rules)
    script = table_script(events, rng=rng)
    watch = CardToLed(names)
    layout = per_side_tracks(3)
    clock = SteppedClock()
    with tempfile.TemporaryDirectory(dir=store_dir) as tmp:
        store = EventStore.open(Path(tmp) / "events.sqlite3", clock=clock)
        stop = beside(store.path) if beside is not None else None
        tracker = TimedTracker(watch)
        loop = DeviceLoop(store=store, flow=TableFlow(names, rules),
                          strip=TimedStrip(layout, watch),
                          renderer=Renderer(layout), clock=clock, source=BlankCamera(clock),
                          recognise=lambda image: [], tracker=tracker)
        loop.start()
        for step in script:
            if step.press is None:
                tracker.push(step.seen)
            loop.step()
        if stop is not None:
            stop()
        store.close()
    ms = sorted(s * 1000 for s in watch.samples)
    return {"cards": len(ms), "median_ms": round(statistics.median(ms), 2),
            "p95_ms": round(p95(ms), 2), "max_ms": round(ms[-1], 2)}


def run_subprocess(extra: list[str], seconds: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-c", CHILD, "run", "--store", f"{tmp}/events.sqlite3",
                   "--max-seconds", str(seconds), *extra]
        began = time.monotonic()
        proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True,
                                env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert proc.stdout is not None
        ready_s = None
        said_ready = None
        memory = ""
        for line in proc.stdout:
            if line.startswith("ready in ") and ready_s is None:
                ready_s = time.monotonic() - began
                said_ready = float(line.split()[2])
            if line.startswith("MEMORY "):
                memory = line
        proc.wait()
    fields = memory.split()
    rss = int(fields[fields.index("VmRSS:") + 1]) / 1024 if "VmRSS:" in fields else None
    peak = int(fields[fields.index("VmHWM:") + 1]) / 1024 if "VmHWM:" in fields else None
    return {"exit": proc.returncode, "spawn_to_ready_s": round(ready_s or -1, 2),
            "handler_to_ready_s": said_ready, "rss_mb": round(rss or -1, 1),
            "peak_rss_mb": round(peak or -1, 1)}


def card_frames(folder: Path) -> bool:
    """Replaces the blank frames in ``folder`` with 1280x720 copies of the EPFL dev photos (a
    table with eleven cards each), where the shared datasets are; False where they are not."""
    import cv2

    from vision.measure.datasets import datasets_root, load_labels

    root = datasets_root()
    if root is None or not (root / "epfl-iapr2022-poker").is_dir():
        return False
    for old in folder.iterdir():
        old.unlink()
    for i, item in enumerate(load_labels(root / "epfl-iapr2022-poker", split="dev")[:5]):
        photo = cv2.imread(str(item.path), cv2.IMREAD_COLOR)
        cv2.imwrite(str(folder / f"{i:03}.png"),
                    cv2.resize(photo, (1280, 720), interpolation=cv2.INTER_AREA))
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--store-dir", help="where the latency run's store lives (default: the "
                        "temp folder; point it at the SD card to count real fsyncs)")
    parser.add_argument("--seconds", type=float, default=2.0, help="how long each run lasts")
    args = parser.parse_args()
    report: dict[str, Any] = {
        "latency_2p": latency(2, 3, args.store_dir),
        "latency_4p": latency(4, 7, args.store_dir),
        "run_simulated": run_subprocess([], args.seconds),
    }
    with tempfile.TemporaryDirectory() as tmp:
        import cv2
        import numpy as np

        frames = Path(tmp) / "frames"
        frames.mkdir()
        for i in range(5):
            cv2.imwrite(str(frames / f"{i:03}.png"), np.full((720, 1280, 3), 40, np.uint8))
        config = Path(tmp) / "config.toml"
        config.write_text('[camera]\nsource = "replay"\npath = "frames"\nloop = true\n')
        report["run_replay_camera_with_recogniser"] = run_subprocess(
            ["--config", str(config)], args.seconds)
        if card_frames(frames):
            # Cards in view: every network the recogniser has is loaded and run.
            report["run_replay_camera_cards_in_view"] = run_subprocess(
                ["--config", str(config)], args.seconds)
    if args.json:
        print(json.dumps(report))
        return
    for name, values in report.items():
        print(f"{name}: " + ", ".join(f"{k} {v}" for k, v in values.items()))
    print("targets: latency <= 100 ms, rss <= 150 MB, start-up to ready <= 3 s")


if __name__ == "__main__":
    main()
