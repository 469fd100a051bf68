"""Peak memory (RSS) of the device program, for what a 512 MB Pi Zero 2 W can run.

Runs ``cribbage-board run`` for a while in a fresh interpreter per setup and reads
that process's peak RSS (``ru_maxrss``, which counts every page it touched):

- ``page``: the loop, the store, the simulated strip and the phone page; no camera.
- ``page+vision``: the same with a replayed 1280x720 camera (a drawn table with three
  cards in view) read by the recogniser, as a camera-equipped board runs.

    .venv/bin/python benchmarks/device/rss.py [--seconds 20] [--json]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

SETUPS = ("page", "page+vision")


def _child(setup: str, seconds: float) -> None:
    import cv2
    import numpy as np

    from firmware.commands.cli import main
    from vision.training.synth import place, render_card

    folder = Path(tempfile.mkdtemp(prefix="device-rss-"))
    config = ['[web]\nhost = "127.0.0.1"\nport = 0\npin = "4821"\n']
    if setup == "page+vision":
        frame = np.full((720, 1280, 3), (60, 110, 40), np.uint8)
        for k, (rank, suit) in enumerate(((4, 2), (8, 0), (10, 1))):
            place(frame, render_card(rank, suit), (320 * (k + 1), 360), 20 * k, 0.6)
        (folder / "frames").mkdir()
        cv2.imwrite(str(folder / "frames" / "0.png"), frame)
        config.append('[camera]\nsource = "replay"\npath = "frames"\nsize = [1280, 720]\n'
                      'fps = 30\nloop = true\n')
    (folder / "config.toml").write_text("".join(config))
    status = main(["run", "--config", str(folder / "config.toml"), "--store",
                   str(folder / "events.sqlite3"), "--max-seconds", str(seconds)])
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"setup": setup, "status": status, "peak_rss_mb": round(peak_kb / 1024, 1)}),
          file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", choices=SETUPS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child, args.seconds)
        return
    results = []
    for setup in SETUPS:
        done = subprocess.run([sys.executable, __file__, "--child", setup, "--seconds",
                               str(args.seconds)], capture_output=True, text=True, check=True)
        results.append(json.loads(done.stderr.strip().splitlines()[-1]))
    if args.json:
        print(json.dumps(results))
    else:
        for row in results:
            print(f"{row['setup']:12} peak RSS {row['peak_rss_mb']:6.1f} MB")


if __name__ == "__main__":
    main()
