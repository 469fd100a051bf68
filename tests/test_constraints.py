"""constraints/ and the package's markers: a Bookworm Pi never pulls numpy 2 over apt's 1.24."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).parent.parent
PI_BOOKWORM = {"platform_machine": "aarch64", "python_version": "3.11"}
PI_TRIXIE = {"platform_machine": "aarch64", "python_version": "3.13"}
LAPTOP = {"platform_machine": "x86_64", "python_version": "3.11"}


def requirements(env: dict[str, str], extra: str | None = None) -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    found = [Requirement(r) for r in project["dependencies"]]
    if extra is not None:
        found += [Requirement(r) for r in project["optional-dependencies"][extra]]
    return [r for r in found if r.marker is None or r.marker.evaluate({**env, "extra": ""})]


def allows(env: dict[str, str], name: str, version: str, extra: str | None = None) -> bool:
    return all(Version(version) in r.specifier for r in requirements(env, extra)
               if r.name == name)


def pins(release: str) -> dict[str, str]:
    lines = (ROOT / "constraints" / f"{release}.txt").read_text().splitlines()
    return dict(line.split("==") for line in lines if line.strip() and not line.startswith("#"))


def test_a_bookworm_pi_keeps_apts_numpy_and_an_opencv_built_for_it() -> None:
    assert not allows(PI_BOOKWORM, "numpy", "2.0.0")
    assert not allows(PI_BOOKWORM, "opencv-python-headless", "4.12.0.88")
    assert allows(PI_BOOKWORM, "numpy", "1.24.2")
    assert allows(PI_BOOKWORM, "opencv-python-headless", "4.11.0.86")


@pytest.mark.parametrize("env", [LAPTOP, PI_TRIXIE])
def test_elsewhere_the_newest_versions_stay_allowed(env: dict[str, str]) -> None:
    assert allows(env, "numpy", "2.4.6") and allows(env, "opencv-python-headless", "5.0.0.93")


@pytest.mark.parametrize(("release", "env"), [("bookworm", PI_BOOKWORM), ("trixie", PI_TRIXIE)])
def test_each_constraints_file_fits_the_package(release: str, env: dict[str, str]) -> None:
    pinned = pins(release)
    assert {"numpy", "opencv-python-headless", "onnxruntime", "matplotlib"} <= set(pinned)
    for name, version in pinned.items():
        assert allows(env, name, version, extra="test"), (release, name, version)


def test_install_sh_picks_constraints_by_the_release_codename() -> None:
    script = (ROOT / "systemd/install.sh").read_text()
    assert '"$src/constraints/$codename.txt"' in script
    assert pins("bookworm")["numpy"] == "1.24.2"  # Debian 12's python3-numpy
