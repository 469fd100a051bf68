"""The engine is standard library only: importing it drags in nothing else of ours or others'."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_engine_imports_only_the_standard_library() -> None:
    code = (
        "import sys; before = set(sys.modules);"
        "import engine, engine.game, engine.show, engine.simulate, engine.events;"
        "print(' '.join(sorted({m.split('.')[0] for m in set(sys.modules) - before})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    loaded = set(out.stdout.split())
    assert "engine" in loaded
    assert not loaded & {"cv2", "numpy", "gpiozero", "vision", "hardware", "firmware"}
    foreign = loaded - set(sys.stdlib_module_names) - {"engine"}
    assert not foreign, f"engine imported non-stdlib modules: {sorted(foreign)}"
