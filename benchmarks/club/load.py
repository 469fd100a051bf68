"""Club night under load: many boards publishing whole games at once to one club server.

- load: ``--boards`` boards (default 50) each store a simulated game as fast as their
  stores commit (one durable SQLite commit per event, as on the device), every board
  with its own ``ClubPublisher`` thread and MQTT connection, into a real Mosquitto
  broker and a ``cribbage-board club serve`` subprocess. Reports rows per second
  end to end and the commit-to-standings delay of every row: from the board's
  ``append`` returning to the first standings the page streams (``/api/events``)
  that hold it (target: under 1 s at 50 boards);
- memory: VmRSS of a child process before and after starting ``--boards``
  publishers and publishing a stored game each, per board (target: under 5 MB);
- card to LED: ``benchmarks/device/loop_latency.py``'s latency of a 2-player game with and
  without a publisher beside the loop, runs interleaved (target: no measurable
  difference).

Needs ``mosquitto`` (apt); prints numbers, asserts nothing; ``--json`` prints one object.
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
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

MEMORY_CHILD = """
import json, sys, time
from pathlib import Path
from firmware.club.publisher import ClubPublisher
from firmware.club.settings import ClubConfig, parse_broker

def rss():
    for line in open('/proc/self/status'):
        if line.startswith('VmRSS'):
            return int(line.split()[1]) / 1024

url, folder, boards, last = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
import paho.mqtt.client, engine.game  # what one publisher needs loaded, counted once
before = rss()
found = [ClubPublisher(folder / f"board-{i}.sqlite3",
                       ClubConfig(broker=parse_broker(url), board=f"mem-{i}"))
         for i in range(boards)]
for p in found:
    p.start()
deadline = time.monotonic() + 120
for p in found:
    p.flush(last, timeout_s=max(deadline - time.monotonic(), 0.1))
after = rss()
sent = sum(p.sent for p in found)
for p in found:
    p.stop()
print(json.dumps({"before_mb": before, "after_mb": after, "sent": sent}))
"""


def cpu_seconds(pid: int) -> float:
    """User and system CPU a process has used (Linux), to report the server's cost a row."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[int(share * (len(ordered) - 1))]


BOARDS_CHILD = """
import json, random, sys, threading, time
from pathlib import Path
from engine.simulate import simulate_game
from firmware.club.publisher import ClubPublisher
from firmware.club.settings import ClubConfig, parse_broker
from firmware.store.eventstore import EventStore

url, folder, first, count = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
pace, name = float(sys.argv[5]), sys.argv[6]
seeds = range(first, first + count)
games = {i: simulate_game(random.Random(i), (f"Player {2 * i}", f"Player {2 * i + 1}"),
                          {"target": 121}) for i in seeds}
stores = {i: EventStore.open(folder / f"{name}-{i}.sqlite3") for i in seeds}
publishers = {i: ClubPublisher(stores[i].path, ClubConfig(broker=parse_broker(url),
                                                          board=f"{name}-{i}"))
              for i in seeds}
for p in publishers.values():
    p.start()
deadline = time.monotonic() + 30
while not all(p.connected for p in publishers.values()) and time.monotonic() < deadline:
    time.sleep(0.05)
print("ready", flush=True)
sys.stdin.readline()
committed = []

def play(i):
    for event in games[i]:
        appended = stores[i].append(event)
        committed.append((f"{name}-{i}", appended.id, time.time()))
        publishers[i].wake()  # as the device's page hub does after each commit
        if pace:
            time.sleep(pace)

began = time.time()
threads = [threading.Thread(target=play, args=(i,)) for i in seeds]
for t in threads:
    t.start()
for t in threads:
    t.join()
stored = time.time() - began
for i, p in publishers.items():
    p.flush(stores[i].last_id, timeout_s=60)
    p.stop()
print(json.dumps({"committed": committed, "stored_s": stored}), flush=True)
"""


def load(url: str, folder: Path, boards: int, port: int, processes: int,
         pace: float = 0.0) -> dict[str, Any]:
    """Boards store games at full speed in ``processes`` children (a board has a machine of
    its own; one process for all would starve the page's reader here); the page's event
    stream, read in this process, says when each row shows."""
    import httpx

    from engine.simulate import simulate_game

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    server = subprocess.Popen(
        [sys.executable, "-m", "firmware.commands.cli", "club", "serve", "--broker", url, "--db",
         str(folder / "club.sqlite3"), "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT, stdout=subprocess.PIPE, text=True, env=env)
    assert server.stdout is not None
    while not (line := server.stdout.readline()).startswith("club server:"):  # log lines first
        if not line:
            raise RuntimeError(f"club serve ended before it served (exit {server.wait()})")
    # Its log (resend requests) goes on to stdout: read it, so a full pipe never blocks it.
    threading.Thread(target=server.stdout.read, daemon=True).start()
    cpu_ready = cpu_seconds(server.pid)
    shown: dict[tuple[str, int], float] = {}
    held: dict[str, int] = {}
    lag: list[float] = []  # the server publishing a snapshot to this process reading it
    total = sum(len(simulate_game(random.Random(i), (f"Player {2 * i}", f"Player {2 * i + 1}"),
                                  {"target": 121})) for i in range(boards))
    done = threading.Event()

    def watch() -> None:
        with httpx.stream("GET", f"http://127.0.0.1:{port}/api/events", timeout=None) as page:
            for line in page.iter_lines():
                if not line.startswith("data: "):
                    continue
                now = time.time()
                data = json.loads(line[6:])
                if shown:  # not the snapshot of the server's start, older than the stream
                    lag.append(now - data["updated_at"])
                for board in data["boards"]:
                    for row in range(held.get(board["board"], 0) + 1, board["rows"] + 1):
                        shown[(board["board"], row)] = now
                    held[board["board"]] = max(held.get(board["board"], 0), board["rows"])
                if len(shown) >= total:
                    done.set()
                    return

    threading.Thread(target=watch, daemon=True).start()
    share = -(-boards // processes)
    children = [subprocess.Popen([sys.executable, "-c", BOARDS_CHILD, url, str(folder),
                                  str(first), str(min(share, boards - first)), str(pace),
                                  "paced" if pace else "live"],
                                 cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 text=True, env=env)
                for first in range(0, boards, share)]
    for child in children:
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    began = time.time()
    for child in children:
        assert child.stdin is not None
        child.stdin.write("go\n")
        child.stdin.flush()
    committed: dict[tuple[str, int], float] = {}
    stored_s = 0.0
    for child in children:
        out, _ = child.communicate(timeout=300)
        found = json.loads(out.strip().splitlines()[-1])
        committed.update({(b, i): t for b, i, t in found["committed"]})
        stored_s = max(stored_s, found["stored_s"])
    finished = done.wait(120)
    ended = max(shown.values()) if shown else time.time()
    server_cpu = cpu_seconds(server.pid) - cpu_ready
    server.terminate()
    server.wait(timeout=20)
    delays = [shown[k] - committed[k] for k in committed if k in shown]
    return {"boards": boards, "processes": len(children), "pace_s": pace, "rows": total,
            "rows_shown": len(delays), "complete": finished,
            "store_seconds": round(stored_s, 2),
            "rows_per_s_stored": round(total / stored_s, 1),
            "rows_per_s_end_to_end": round(total / (ended - began), 1),
            "delay_median_s": round(statistics.median(delays), 3) if delays else None,
            "delay_p95_s": round(percentile(delays, 0.95), 3) if delays else None,
            "delay_max_s": round(max(delays), 3) if delays else None,
            "server_cpu_us_per_row": round(server_cpu / total * 1e6),
            "server_to_page_median_s": round(statistics.median(lag), 3) if lag else None,
            "server_to_page_max_s": round(max(lag), 3) if lag else None}


def memory(url: str, folder: Path, boards: int) -> dict[str, Any]:
    """RSS a child adds by publishing ``boards`` stored games, one publisher each."""
    from engine.simulate import simulate_game
    from firmware.store.eventstore import EventStore

    game = simulate_game(random.Random(1), ("Ann", "Bob"), {"target": 121})
    for i in range(boards):
        with EventStore.open(folder / f"board-{i}.sqlite3") as store:
            for event in game:
                store.append(event)
    out = subprocess.run([sys.executable, "-c", MEMORY_CHILD, url, str(folder), str(boards),
                          str(len(game))], cwd=ROOT, capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-2000:])
    found = json.loads(out.stdout.strip().splitlines()[-1])
    return {"boards": boards, "rss_before_mb": round(found["before_mb"], 1),
            "rss_after_mb": round(found["after_mb"], 1),
            "rows_sent": found["sent"], "rows_expected": boards * len(game),
            "mb_per_board": round((found["after_mb"] - found["before_mb"]) / boards, 2)}


def card_to_led(url: str, runs: int) -> dict[str, Any]:
    from benchmarks.device.loop_latency import latency
    from firmware.club.publisher import ClubPublisher
    from firmware.club.settings import ClubConfig, parse_broker

    def beside(path: Path) -> Any:
        found = ClubPublisher(path, ClubConfig(broker=parse_broker(url), board="latency"),
                              poll_s=0.05)
        found.start()
        return found.stop

    plain: list[float] = []
    published: list[float] = []
    for _ in range(runs):
        plain.append(latency(2, 3, None)["median_ms"])
        published.append(latency(2, 3, None, beside=beside)["median_ms"])
    return {"runs": runs, "median_ms_without": round(statistics.median(plain), 2),
            "median_ms_with_publisher": round(statistics.median(published), 2),
            "each_without": plain, "each_with": published}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=50)
    parser.add_argument("--processes", type=int, default=5,
                        help="child processes the boards are spread over")
    parser.add_argument("--pace", type=float, default=0.05,
                        help="the paced run's seconds between a board's events (the full-speed "
                             "run waits for nothing)")
    parser.add_argument("--latency-runs", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    from mqttbroker import MosquittoBroker, free_port

    with tempfile.TemporaryDirectory(prefix="club-load-") as tmp:
        folder = Path(tmp)
        (folder / "paced").mkdir()
        broker = MosquittoBroker(folder)
        broker.start()
        try:
            report = {"load": load(broker.url, folder, args.boards, free_port(),
                                   args.processes),
                      "load_paced": load(broker.url, folder / "paced", args.boards,
                                         free_port(), args.processes, args.pace),
                      "memory": memory(broker.url, folder, args.boards),
                      "card_to_led": card_to_led(broker.url, args.latency_runs)}
        finally:
            broker.stop()
    if args.json:
        print(json.dumps(report))
        return
    for name, values in report.items():
        print(f"{name}: " + ", ".join(f"{k} {v}" for k, v in values.items()))
    print("targets: commit to standings < 1 s at 50 boards; < 5 MB per board; "
          "card to LED unchanged")


if __name__ == "__main__":
    main()
