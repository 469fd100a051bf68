"""Whether the card recogniser can load, found before the camera is opened.

A recogniser that cannot load must not stop the board: ``run`` then leaves the camera
off, says why aloud and on the phone page, and the players enter the cards by hand;
``doctor`` reports the same words. Loading it at the first frame instead (as the
classifier does by itself) would turn the failure into a warning on every frame.

Three ways it fails, each found here:

- a network file is missing (``vision/recognise/models``, or a damaged install);
- onnxruntime crashes the interpreter at import (a wheel built for other CPU
  features, or qemu showing the host's ``/proc/cpuinfo``: issue 54). No ``except``
  catches a SIGSEGV, so the import is tried in a child process first;
- the file does not load in-process (a corrupt file; onnxruntime absent and OpenCV's
  dnn unable to read it). An ``ImportError`` of onnxruntime alone is no failure: the
  classifier then runs the same file through OpenCV's dnn.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

__all__ = ["IMPORT_PROBE", "probe_import", "recogniser_problem"]

#: What the child process runs.
IMPORT_PROBE = "import onnxruntime"


@lru_cache(maxsize=8)  # once per process: doctor and run ask, and the answer cannot change
def probe_import(code: str = IMPORT_PROBE, *, timeout: float = 120.0) -> str | None:
    """Runs ``code`` in a child Python (this one, with this environment). None if it ends
    with 0 or an ImportError (the classifier falls back to OpenCV's dnn); else words that say
    how it died."""
    wrapped = f"try:\n    {code}\nexcept ImportError:\n    pass\n"
    try:
        done = subprocess.run([sys.executable, "-c", wrapped], capture_output=True, text=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return f"onnxruntime did not finish importing in {timeout:.0f} s"
    except OSError as exc:
        return f"cannot start {sys.executable} to try onnxruntime: {exc}"
    if done.returncode == 0:
        return None
    if done.returncode < 0:
        try:
            how = signal.Signals(-done.returncode).name
        except ValueError:
            how = f"signal {-done.returncode}"
        return f"onnxruntime crashes at import ({how})"
    last = (done.stderr.strip().splitlines() or ["no message"])[-1]
    return f"onnxruntime fails at import: {last}"


def recogniser_problem(model_path: str | Path | None = None, *,
                       probe: Callable[[], str | None] = probe_import) -> str | None:
    """Why the card recogniser cannot load, in words, or None when it loads (and is then
    loaded: the first frame does not wait for it)."""
    from vision.recognise import classifier

    path = Path(classifier.MODEL_PATH if model_path is None else model_path)
    if not path.is_file():  # the other opinions are used where they lie beside it
        return f"the card classifier {path} is missing: reinstall cribbage-board"
    crashed = probe()
    if crashed is not None:
        return crashed
    try:
        for network in (path, *classifier.other_opinion_paths(str(path))):
            classifier.load_model(str(network))
    except Exception as exc:  # whatever the runtime raises, the board goes on by hand
        return f"the card classifier {path.name} does not load: {exc}"
    return None
