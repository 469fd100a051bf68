"""Deliberate breaks of the event store, each of which its tests must catch.

    python benchmarks/store/mutations.py [--only NAME] [--json]

Each break is one small edit to the store (firmware/store/eventstore.py, repair.py, schema.py
or mark.py). For each, the script copies the working tree to a temporary folder, applies the
edit there and runs tests/test_firmware_store.py and tests/test_firmware_store_mark.py against
the copy (stopping at the first failure). A break whose tests still pass went unnoticed: the
script lists it and exits 1.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STORE, MARK = "firmware/store/eventstore.py", "firmware/store/mark.py"
REPAIR, SCHEMA = "firmware/store/repair.py", "firmware/store/schema.py"

# (name, file, text as it is, text broken)
BREAKS: list[tuple[str, str, str, str]] = [
    ("synchronous=OFF", SCHEMA, 'PRAGMA synchronous=FULL', 'PRAGMA synchronous=OFF'),
    ("synchronous=NORMAL", SCHEMA, 'PRAGMA synchronous=FULL', 'PRAGMA synchronous=NORMAL'),
    ("rollback journal", SCHEMA, 'PRAGMA journal_mode=WAL', 'PRAGMA journal_mode=DELETE'),
    ("quick_check skipped", REPAIR, 'check = conn.execute("PRAGMA quick_check").fetchall()',
     'check = [(b"ok",)]'),
    ("no folder fsync after repair", REPAIR, "    fsync_dir(path.parent)\n    lost = salvaged",
     "    lost = salvaged"),
    ("checksum not checked", REPAIR, "if row_crc(event_id, match, at, line) != crc:", "if False:"),
    ("UTF-8 not checked", REPAIR, "        raw.decode()\n    except", "        pass\n    except"),
    ("schema text not checked", REPAIR,
     "        if name in found and found[name] != sql:", "        if False:"),
    ("salvage stops at the first bad row", REPAIR,
     "                    else:\n                        scan.bad.setdefault(row.id, problem)",
     "                    else:\n                        break"),
    ("salvage keeps a row the engine refuses in the game", REPAIR,
     "                undone[event_id] = now\n", "\n"),
    ("salvage reads no pages itself", REPAIR,
     "    for rowid, values in cells(path, wal if wal.exists() else None):",
     "    for rowid, values in []:"),
    ("a flipped rowid is not put right", REPAIR, "    _rowids_put_right(scan, unmatched)\n",
     "\n"),
    ("a damaged row's id is believed", REPAIR,
     "    while scan.known + 1 in scan.bad:", "    for _ in ():"),
    ("salvage stops at an unreadable page", REPAIR,
     "            except (sqlite3.DatabaseError, UnicodeDecodeError, ValueError):\n"
     "                after += 1",
     "            except (sqlite3.DatabaseError, UnicodeDecodeError, ValueError):\n"
     "                break"),
    ("lost rows not reported", REPAIR, "        lost.append(LostEvent(event_id, where, why))\n",
     "        pass\n"),
    ("mark not compared", REPAIR, "    if mark is None:\n        return\n    last = max(",
     "    if True:\n        return\n    last = max("),
    ("undo chain not compared", REPAIR,
     "        if undo_chain(undos[:mark.undone]) != mark.undo_chain:", "        if False:"),
    ("extra undos not counted", REPAIR, "        if undone > mark.undone + 1:",
     "        if False:"),
    ("undo not marked", STORE, "        self._acknowledge(Mark(ack.last_id, ack.crc, ack.match, "
     "len(self._undos),", "        self._acknowledge(Mark(ack.last_id, ack.crc, ack.match, "
     "len(self._undos) - 1,"),
    ("undo rows not checksummed", REPAIR,
     "    return Undo(undo_id, event, at, crc) if undo_crc(undo_id, event, at) == crc else None",
     "    return Undo(undo_id, event, at, crc)"),
    ("undone_at trusted over the undo rows", REPAIR,
     "                    rows, stale = _undone_by(rows, undos)", "                    pass"),
    ("history digest not compared", STORE,
     "            if stored is not None and digest(stored[0]) == stored[1]:",
     "            if stored is not None:"),
    ("mark not written after a commit", STORE,
     "            try:\n                self._mark.write(mark, durable=durable)",
     "            try:\n                pass"),
    ("mark flushed at every commit", STORE, "durable = durable or self._unsynced >= _SYNC_EVERY",
     "durable = True"),
    ("mark never flushed", MARK, "        if durable:\n            os.fdatasync(self._fd)",
     "        pass"),
    ("mark slots not checksummed", MARK, "    if zlib.crc32(body) != crc:\n        return None",
     "    pass"),
    ("replay of the current match skipped", REPAIR,
     "    _check_replay(rows)\n    return Loaded(", "    return Loaded("),
    ("ids of lost events reused", STORE, "self._last_id = max([0, *lost, *(r.id for r in rows)])",
     "self._last_id = max([0, *(r.id for r in rows)])"),
    ("a full card is not StorageFull", SCHEMA,
     "    if code is not None and code & 0xFF == sqlite3.SQLITE_FULL:", "    if False:"),
    ("store paths not checked", STORE, "        _check_place(path)\n", "\n"),
]


def run_one(name: str, file: str, old: str, new: str) -> tuple[bool, str]:
    """(caught, first failing test or why the break could not be applied)."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "tree"
        shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(
            ".git", ".venv", "__pycache__", "*.egg-info", "demo"))
        target = copy / file
        text = target.read_text()
        if text.count(old) != 1:
            return False, f"cannot apply: {old!r} occurs {text.count(old)} times in {file}"
        target.write_text(text.replace(old, new))
        env = {**os.environ, "PYTHONPATH": str(copy)}
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "tests/test_firmware_store.py",
             "tests/test_firmware_store_mark.py", "tests/test_firmware_store_damage.py",
             "tests/test_firmware_store_limits.py", "-x", "-q", "-p", "no:cacheprovider"],
            cwd=copy, env=env, capture_output=True, text=True)
        failed = [line for line in done.stdout.splitlines() if line.startswith("FAILED")]
        return done.returncode != 0, failed[0] if failed else done.stdout.strip()[-200:]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = []
    for name, file, old, new in BREAKS:
        if args.only and args.only != name:
            continue
        caught, detail = run_one(name, file, old, new)
        results.append({"break": name, "caught": caught, "by": detail})
        if not args.json:
            print(f"{'caught' if caught else 'MISSED'}  {name}: {detail}", flush=True)
    missed = [r["break"] for r in results if not r["caught"]]
    if args.json:
        print(json.dumps({"breaks": len(results), "missed": missed, "results": results}))
    else:
        print(f"{len(results) - len(missed)} of {len(results)} breaks caught")
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
