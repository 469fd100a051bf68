"""Peak memory (RSS) of the device program, for what a 512 MB Pi Zero 2 W can run.

Runs ``cribbage-board run`` for a while in a fresh interpreter per setup and reads
that process's peak RSS (``ru_maxrss``, which counts every page it touched):

- ``page``: the loop, the store, the simulated strip and the phone page; no camera.
- ``page+vision``: the same with a replayed camera at the default ``[camera] size``,
  2304x1296 (a drawn table with three cards in view) read by the recogniser, as a
  camera-equipped board runs: the figure a Pi Zero 2 W's 512 MB must hold (target 150 MB).
- ``page+vision-720``: the same camera at 1280x720, the low-resolution case.

    .venv/bin/python benchmarks/device/rss.py [--seconds 20] [--setup NAME] [--json]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

#: Each setup's camera size (None: no camera). 2304x1296 is ``[camera] size``'s default.
SETUPS: dict[str, tuple[int, int] | None] = {
    "page": None, "page+vision": (2304, 1296), "page+vision-720": (1280, 720)}


def _table(setup: str) -> Path:
    """A folder with the setup's config (and its camera's replayed frame): made here, in the
    parent, so the measured child holds only what ``run`` itself loads, not the drawing."""
    import cv2
    import numpy as np

    from vision.training.synth import place, render_card

    folder = Path(tempfile.mkdtemp(prefix="device-rss-"))
    config = ['[web]\nhost = "127.0.0.1"\nport = 0\npin = "4821"\n']
    size = SETUPS[setup]
    if size is not None:
        # The same table at every size: drawn at 1280x720 and scaled, as a camera's view is.
        scale = size[1] / 720
        frame = np.full((size[1], size[0], 3), (60, 110, 40), np.uint8)
        for k, (rank, suit) in enumerate(((4, 2), (8, 0), (10, 1))):
            place(frame, render_card(rank, suit), (round(320 * (k + 1) * scale),
                                                   round(360 * scale)), 20 * k, 0.6 * scale)
        (folder / "frames").mkdir()
        cv2.imwrite(str(folder / "frames" / "0.png"), frame)
        config.append(f'[camera]\nsource = "replay"\npath = "frames"\n'
                      f'size = [{size[0]}, {size[1]}]\nfps = 30\nloop = true\n')
    (folder / "config.toml").write_text("".join(config))
    return folder


def _child(setup: str, folder: Path, seconds: float) -> None:
    from firmware.commands.cli import main

    status = main(["run", "--config", str(folder / "config.toml"), "--store",
                   str(folder / "events.sqlite3"), "--max-seconds", str(seconds)])
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"setup": setup, "status": status, "peak_rss_mb": round(peak_kb / 1024, 1)}),
          file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--setup", choices=SETUPS, action="append",
                        help="measure only this setup (repeatable; default: all)")
    parser.add_argument("--child", choices=SETUPS, help=argparse.SUPPRESS)
    parser.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child, args.folder, args.seconds)
        return
    results = []
    for setup in args.setup or SETUPS:
        done = subprocess.run([sys.executable, __file__, "--child", setup, "--folder",
                               str(_table(setup)), "--seconds", str(args.seconds)],
                              capture_output=True, text=True, check=True)
        results.append(json.loads(done.stderr.strip().splitlines()[-1]))
    if args.json:
        print(json.dumps(results))
    else:
        for row in results:
            print(f"{row['setup']:16} peak RSS {row['peak_rss_mb']:6.1f} MB")


if __name__ == "__main__":
    main()
