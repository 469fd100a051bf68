"""Fuzzes ``cribbage-board replay`` with mutated game logs: target 0 tracebacks, 0 hangs.

    python benchmarks/engine/replay_fuzz.py [--json] [--cases 10000] [--seed 0] [--limit-s 10]

Each case takes one of ``tests/games/*.jsonl``, applies one to three random
mutations (byte flips, lines dropped, doubled or swapped, a JSON value
replaced, a value nested thousands deep, an integer of thousands of digits,
bytes that are not UTF-8), writes it to a file and runs the command line's own
``main(["replay", FILE])`` in this process, with and without ``--json``. A
case passes when it exits 0, or exits 2 with exactly one line on stderr (and,
with ``--json``, at most one JSON object on stdout). Anything else that
escapes ``main`` is a traceback; a case still running after ``--limit-s``
seconds (a SIGALRM) is a hang.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any

from engine.jsontext import loads

GAMES = Path(__file__).resolve().parents[2] / "tests" / "games"


class Hang(BaseException):
    """A case ran past its time limit (a BaseException, so no handler swallows it)."""


class Tally:
    """What the cases came to (a plain class: tests load this script without a module entry,
    which dataclasses need)."""

    def __init__(self) -> None:
        self.cases = 0
        self.outcomes: Counter[str] = Counter()
        self.mutations: Counter[str] = Counter()
        self.examples: list[dict[str, Any]] = []
        self.slowest_s = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"cases": self.cases, "ok": self.outcomes["ok"],
                "refused": self.outcomes["refused"], "tracebacks": self.outcomes["traceback"],
                "hangs": self.outcomes["hang"], "bad_output": self.outcomes["bad_output"],
                "slowest_s": round(self.slowest_s, 3), "mutations": dict(self.mutations),
                "examples": self.examples}


# ---- mutations: each takes and returns the log's bytes ----------------------------------

def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def flip_bytes(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        if out:
            out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
    return bytes(out)


def drop_line(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    del lines[rng.randrange(len(lines))]
    return b"\n".join(lines)


def dupe_line(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    i = rng.randrange(len(lines))
    lines.insert(rng.randrange(len(lines) + 1), lines[i])
    return b"\n".join(lines)


def swap_lines(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return b"\n".join(lines)


def _deep(rng: random.Random) -> Any:
    depth = rng.choice([50, 900, 1100, 5000, 50_000])
    opener, closer = rng.choice([("[", "]"), ('{"a":', "}")])
    return _Raw(opener * depth + "0" + closer * depth)


class _Raw(str):
    """JSON text spliced in as it stands (nesting too deep to build as values)."""


_VALUES: list[Callable[[random.Random], Any]] = [
    lambda r: None, lambda r: True, lambda r: 0, lambda r: -1, lambda r: 2**70,
    lambda r: 1.5, lambda r: float("nan"), lambda r: "", lambda r: " ",
    lambda r: r.choice(["5H", "10S", "JD", "1H", "5X", "crib", "starter", "AH"]),
    lambda r: r.choice(["new_game", "deal", "starter", "play", "go", "show", "crib", "claim",
                        "muggins", "adjust"]),
    lambda r: [], lambda r: {}, lambda r: ["5H"] * r.randint(0, 6), lambda r: "x" * 10_000,
    lambda r: {"target": r.choice([61, 121, 0, None, "121"])}, lambda r: ["Ann", "Ann"],
    lambda r: _Raw("9" * r.choice([4299, 4301, 20_000])), _deep,
]


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _paths(item, (*path, i))


def _dumps(value: Any) -> str:
    if isinstance(value, _Raw):
        return str(value)
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(k)}:{_dumps(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_dumps(v) for v in value) + "]"
    return json.dumps(value)


def mutate_value(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    candidates = [i for i, line in enumerate(lines) if line.strip().startswith(b"{")]
    if not candidates:
        return flip_bytes(data, rng)
    i = rng.choice(candidates)
    try:  # a line an earlier mutation nested deep is left to the other mutations
        event = loads(lines[i], max_depth=50)
    except ValueError:
        return flip_bytes(data, rng)
    new = rng.choice(_VALUES)(rng)
    path = rng.choice(list(_paths(event)))
    if not path:
        event = new
    else:
        parent = event
        for key in path[:-1]:
            parent = parent[key]
        if isinstance(parent, dict) and rng.random() < 0.2:
            parent[rng.choice(["type", "rules", "players", "card", "cards", "points", "x"])] = new
        else:
            parent[path[-1]] = new
    lines[i] = _dumps(event).encode("utf-8")
    return b"\n".join(lines)


def nest_line(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    lines.insert(rng.randrange(len(lines) + 1), str(_deep(rng)).encode())
    return b"\n".join(lines)


def huge_int(data: bytes, rng: random.Random) -> bytes:
    digits = "9" * rng.choice([4300, 4301, 10_000, 100_000])
    event = rng.choice(['{"type": "claim", "player": "Ann", "points": %s}',
                        '{"type": "adjust", "player": "Bob", "points": -%s}',
                        '{"type": "new_game", "players": ["Ann", "Bob"], '
                        '"rules": {"target": %s}}'])
    lines = _lines(data)
    lines.insert(rng.randrange(len(lines) + 1), (event % digits).encode())
    return b"\n".join(lines)


def bad_utf8(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    junk = rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\x00",
                       b"\xef\xbb\xbf"])
    at = rng.randrange(len(out) + 1)
    out[at:at] = junk
    return bytes(out)


MUTATIONS: dict[str, Callable[[bytes, random.Random], bytes]] = {
    "flip_bytes": flip_bytes, "drop_line": drop_line, "dupe_line": dupe_line,
    "swap_lines": swap_lines, "mutate_value": mutate_value, "nest_line": nest_line,
    "huge_int": huge_int, "bad_utf8": bad_utf8,
}


# ---- running a case --------------------------------------------------------------------

def _alarm(signum: int, frame: FrameType | None) -> None:
    raise Hang()


def run_case(path: Path, *, as_json: bool, limit_s: float) -> tuple[str, str]:
    """The outcome (``ok``, ``refused``, ``traceback``, ``hang``, ``bad_output``) and why."""
    from firmware.commands.cli import main

    out, err = io.StringIO(), io.StringIO()
    argv = ["replay", str(path)] + (["--json"] if as_json else [])
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, limit_s)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(argv)
    except Hang:
        return "hang", f"still running after {limit_s} s"
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else 1
    except BaseException as exc:  # noqa: BLE001 - counting what escapes is the point
        return "traceback", f"{type(exc).__name__}: {str(exc)[:200]}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    lines = err.getvalue().splitlines()
    if status == 0 and not lines:
        return "ok", ""
    if status == 2 and len(lines) == 1:
        printed = out.getvalue().splitlines()
        if not as_json and not printed or as_json and len(printed) <= 1:
            return "refused", lines[0][:200]
    return "bad_output", f"exit {status}, stderr {err.getvalue()[:200]!r}"


def fuzz(*, cases: int, seed: int = 0, limit_s: float = 10.0,
         folder: Path | None = None) -> Tally:
    """Runs ``cases`` mutated logs through ``replay`` and tallies what happened."""
    rng = random.Random(seed)
    originals = [p.read_bytes() for p in sorted((folder or GAMES).glob("*.jsonl"))]
    tally = Tally()
    with tempfile.TemporaryDirectory(prefix="replay-fuzz-") as tmp:
        path = Path(tmp) / "game.jsonl"
        for case in range(cases):
            data = rng.choice(originals)
            names = [rng.choice(list(MUTATIONS)) for _ in range(rng.choice([1, 1, 2, 3]))]
            for name in names:
                data = MUTATIONS[name](data, rng)
                tally.mutations[name] += 1
            path.write_bytes(data)
            start = time.perf_counter()
            outcome, why = run_case(path, as_json=case % 2 == 1, limit_s=limit_s)
            tally.slowest_s = max(tally.slowest_s, time.perf_counter() - start)
            tally.cases += 1
            tally.outcomes[outcome] += 1
            if outcome not in ("ok", "refused") and len(tally.examples) < 20:
                tally.examples.append({"case": case, "mutations": names, "outcome": outcome,
                                       "why": why})
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--limit-s", type=float, default=10.0)
    args = parser.parse_args()
    start = time.perf_counter()
    result = fuzz(cases=args.cases, seed=args.seed, limit_s=args.limit_s).to_json()
    result["seconds"] = round(time.perf_counter() - start, 1)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")
    sys.exit(1 if result["tracebacks"] or result["hangs"] or result["bad_output"] else 0)


if __name__ == "__main__":
    main()
