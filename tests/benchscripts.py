"""The benchmarks are scripts, not an installed package (CI has no ``benchmarks`` on its
path): tests that check a benchmark's own functions import it from the repository root."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"


def load_benchmark(name: str) -> ModuleType:
    """``benchmarks/NAME.py`` as a module, ``NAME`` with its area (``engine/replay_fuzz``,
    ``vision/photos``): imported as ``benchmarks.AREA.NAME`` with the repository root at the
    end of ``sys.path``, so its own imports of ``benchmarks.*`` resolve and nothing the
    installed packages hold is shadowed."""
    if not (BENCHMARKS / f"{name}.py").is_file():
        raise FileNotFoundError(f"no benchmark {BENCHMARKS / name}.py")
    if str(ROOT) not in sys.path:
        sys.path.append(str(ROOT))
    return importlib.import_module("benchmarks." + name.replace("/", "."))
