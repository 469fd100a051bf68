"""A recogniser that cannot load leaves the board scoring by hand (issue 54): ``run`` says the
camera is off and why (aloud, on the page, in its lines), ``doctor`` reports it, nothing exits.

The failures are simulated the way they happen: the network file missing, and an
onnxruntime that crashes the interpreter at import (a fake package on PYTHONPATH that
kills its own process with SIGSEGV, as the real wheel did under qemu) or raises."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from firmware.commands.cli import main
from firmware.device.loop import DeviceLoop
from firmware.device.recogniser_probe import probe_import, recogniser_problem
from firmware.doctor.checks import System, check_loaded
from firmware.store.eventstore import EventStore
from firmware.table.flow import Feedback, TableFlow
from firmware.web.hub import Hub
from hardware.layout import per_side_tracks
from hardware.render import Renderer
from hardware.strips.simulator import SimulatorStrip

REPO = Path(__file__).resolve().parent.parent
CRASH = "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n"


def replay_config(tmp_path: Path) -> Path:
    import cv2
    import numpy as np

    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "000.png"), np.zeros((48, 64, 3), np.uint8))
    config = tmp_path / "config.toml"
    config.write_text('[camera]\nsource = "replay"\npath = "frames"\nsize = [64, 48]\n')
    return config


def with_fake_onnxruntime(tmp_path: Path, body: str, *args: str
                          ) -> subprocess.CompletedProcess[str]:
    """Runs ``cribbage-board ARGS`` in a fresh interpreter whose onnxruntime is ``body``."""
    fake = tmp_path / "fake" / "onnxruntime"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text(body)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(fake.parent), str(REPO)])}
    return subprocess.run(
        [sys.executable, "-c", "import sys; from firmware.commands.cli import main; "
                               "sys.exit(main(sys.argv[1:]))", *args],
        capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)


def test_run_with_a_missing_model_goes_on_by_hand_and_says_why(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from vision.recognise import classifier

    missing = tmp_path / "models" / "corner_index.onnx"
    monkeypatch.setattr(classifier, "MODEL_PATH", missing)
    config = replay_config(tmp_path)
    assert main(["run", "--config", str(config), "--store", str(tmp_path / "e.db"),
                 "--max-seconds", "0.2"]) == 0
    out = capsys.readouterr().out
    assert (f"camera: off (the card classifier {missing} is missing: reinstall "
            "cribbage-board): buttons and manual entry only") in out
    assert f"warning: Camera off: the card classifier {missing} is missing" in out
    assert "stopping (done)" in out


def test_run_survives_an_onnxruntime_that_crashes_at_import(tmp_path: Path) -> None:
    """The old run imported onnxruntime in its own process at the first card, and died."""
    config = replay_config(tmp_path)
    done = with_fake_onnxruntime(tmp_path, CRASH, "run", "--config", str(config), "--store",
                                 str(tmp_path / "e.db"), "--max-seconds", "0.5")
    assert done.returncode == 0, done.stdout + done.stderr
    assert ("camera: off (onnxruntime crashes at import (SIGSEGV)): buttons and manual entry "
            "only") in done.stdout
    assert "Camera off: onnxruntime crashes at import (SIGSEGV). Enter the cards by hand." \
        in done.stdout


def test_doctor_reports_it_without_stopping_the_unit(tmp_path: Path) -> None:
    config = replay_config(tmp_path)
    done = with_fake_onnxruntime(tmp_path, "raise RuntimeError('Illegal instruction in "
                                           "MlasInit')\n", "doctor", "--config", str(config))
    assert done.returncode == 0, done.stdout + done.stderr  # a note: the service still starts
    assert ("warning: camera: off: onnxruntime fails at import: RuntimeError: Illegal instruction "
            "in MlasInit; the board runs with the cards entered by hand") in done.stdout


def test_an_onnxruntime_that_is_absent_is_no_failure(tmp_path: Path) -> None:
    """The classifier runs the same network through OpenCV's dnn then: the camera stays on."""
    assert probe_import("import onnxruntime_that_is_not_there") is None
    config = replay_config(tmp_path)
    done = with_fake_onnxruntime(tmp_path, "raise ImportError('no wheel for this CPU')\n",
                                 "run", "--config", str(config), "--store",
                                 str(tmp_path / "e.db"), "--once")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "camera: replay" in done.stdout and "Camera off" not in done.stdout


def test_a_corrupt_model_is_found_before_the_first_frame(tmp_path: Path) -> None:
    broken = tmp_path / "corner_index.onnx"
    broken.write_bytes(b"not a network")
    problem = recogniser_problem(broken, probe=lambda: None)
    assert problem is not None and problem.startswith(
        "the card classifier corner_index.onnx does not load: ")
    assert recogniser_problem(probe=lambda: None) is None  # the committed networks load


def test_doctor_check_names_the_problem_only_for_a_configured_camera(tmp_path: Path) -> None:
    from firmware.device.config import load_device_config

    config = load_device_config(replay_config(tmp_path))
    off = [str(f) for f in check_loaded(config, system=System(recogniser=lambda: "why"))]
    assert "note: camera: off: why; the board runs with the cards entered by hand" in off
    on = [str(f) for f in check_loaded(config, system=System(recogniser=lambda: None))]
    assert not [line for line in on if "camera: off" in line]
    plain = tmp_path / "plain.toml"
    plain.write_text("")
    asked: list[str] = []

    def recogniser() -> str:
        asked.append("asked")
        return "why"

    check_loaded(load_device_config(plain), system=System(recogniser=recogniser))
    assert asked == []  # no camera: the recogniser is not even tried


class Voice:
    """Records what is said."""

    def __init__(self) -> None:
        self.said: list[str] = []

    def say(self, text: str) -> bool:
        self.said.append(text)
        return True

    def pump(self) -> None:
        pass

    def close(self) -> None:
        pass


def test_the_loop_says_it_aloud_and_on_the_page(tmp_path: Path) -> None:
    layout = per_side_tracks(3)
    voice = Voice()
    hub = Hub()
    heard: list[Feedback] = []
    with EventStore.open(tmp_path / "e.db") as store:
        loop: Any = DeviceLoop(store=store, flow=TableFlow(("Ann", "Bob"), {}),
                               strip=SimulatorStrip(layout), renderer=Renderer(layout),
                               voice=voice,  # type: ignore[arg-type]
                               hub=hub, on_feedback=heard.append,
                               camera_off="onnxruntime crashes at import (SIGSEGV)")
        loop.start()
        words = "Camera off: onnxruntime crashes at import (SIGSEGV). Enter the cards by hand."
        assert voice.said == [words]
        snapshot = hub.latest
        assert snapshot is not None
        data = snapshot.data()
        assert {"kind": "say", "text": words} in data["feedback"]
        assert data["camera"] is False
        loop.step()  # and it goes on
