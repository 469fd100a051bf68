"""One check of a config: ``doctor`` passes exactly the configs ``run`` starts with.

The unit runs ``doctor`` as its ``ExecStartPre``; a config it passes and ``run`` then refuses
restarts the board into the same refusal. So a table of mutations of the shipped example
(and seeded combinations of them) goes through both commands, on this machine as it is,
and their verdicts must agree; where the config itself is at fault both name the same
faults, each naming the file and the key.
"""

from __future__ import annotations

import json
import re
import random
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from firmware.commands.cli import main
from firmware.device.config import config_problems

EXAMPLE = Path(__file__).parent.parent / "firmware" / "config.example.toml"
DELETE = object()
Mutation = tuple[tuple[str, ...], Any]


def base() -> dict[str, Any]:
    """The example as a laptop can run it: no camera (so no zones), mock buttons, the store
    beside the config, the page off."""
    document = tomllib.loads(EXAMPLE.read_text())
    del document["camera"], document["zones"]
    document["buttons"]["pin_factory"] = "mock"
    document["store"] = {"path": "events.sqlite3"}
    document["web"] = {"enabled": False}
    return document


def toml(document: Mapping[str, Any]) -> str:
    """A TOML text for a document of tables, scalars and lists (what the configs hold)."""
    def value(item: Any) -> str:
        if isinstance(item, bool):
            return "true" if item else "false"
        if isinstance(item, list):
            return "[" + ", ".join(value(v) for v in item) + "]"
        if isinstance(item, str):
            return json.dumps(item)  # TOML basic strings take JSON's escapes
        return repr(item)

    lines: list[str] = []

    def table(prefix: str, data: Mapping[str, Any]) -> None:
        scalars = {k: v for k, v in data.items() if not isinstance(v, Mapping)}
        if prefix:
            lines.append(f"[{prefix}]")
        lines.extend(f"{k} = {value(v)}" for k, v in scalars.items())
        for key, sub in data.items():
            if isinstance(sub, Mapping):
                table(f"{prefix}.{key}" if prefix else key, sub)

    scalars = {k: v for k, v in document.items() if not isinstance(v, Mapping)}
    lines.extend(f"{k} = {value(v)}" for k, v in scalars.items())
    table("", {k: v for k, v in document.items() if isinstance(v, Mapping)})
    return "\n".join(lines) + "\n"


def mutate(document: dict[str, Any], mutations: tuple[Mutation, ...]) -> dict[str, Any]:
    for path, new in mutations:
        where = document
        for key in path[:-1]:
            if not isinstance(where.get(key), dict):
                where[key] = {}
            where = where[key]
        if new is DELETE:
            where.pop(path[-1], None)
        else:
            where[path[-1]] = new
    return document


THREE = (("game", "players"), ["Ann", "Bob", "Cat"])
#: Each a config a person could write: sound ones and the faults issue 51 found.
MUTATIONS: dict[str, tuple[Mutation, ...]] = {
    "the example": (),
    "muggins on": ((("rules", "muggins"), True),),
    "a 61 game": ((("rules", "target"), 61),),
    "three players, three tracks": (THREE, (("board", "layout", "tracks"), 3),
                                    (("board", "colours", "sides"), ["blue", "orange", "green"])),
    "three players, a shared track": (THREE, (("board", "layout"), {"kind": "shared"}),
                                      (("board", "colours", "sides"),
                                       ["blue", "orange", "green"])),
    "four partners on two tracks": ((("game", "players"), ["Ann", "Bob", "Cat", "Dan"]),
                                    (("rules", "partnership"), True)),
    "the store in a folder to be made": ((("store", "path"), "games/season/e.sqlite3"),),
    "another go pin": ((("buttons", "go"), 5),),
    "the page on any port": ((("web",), {"enabled": True, "port": 0, "host": "127.0.0.1"}),),
    "voice faster": ((("voice", "words_per_minute"), 200),),
    "three players, two tracks": (THREE, (("board", "layout", "tracks"), 2)),
    "a one-colour palette": ((("board", "colours", "sides"), ["blue"]),),
    "store is /tmp": ((("store", "path"), "/tmp"),),
    "store with a NUL": ((("store", "path"), "ev\x00.sqlite3"),),
    "store under a file": ((("store", "path"), "/etc/hostname/ev.sqlite3"),),
    "store is /dev/null": ((("store", "path"), "/dev/null"),),
    "store under /proc": ((("store", "path"), "/proc/self/ev.sqlite3"),),
    "store under /sys": ((("store", "path"), "/sys/ev.sqlite3"),),
    "a missing ca_file": ((("club",), {"broker": "mqtt://127.0.0.1:9", "board": "t1",
                                       "ca_file": "nope.crt"}),),
    "a button on the SPI data pin": ((("board", "strip", "backend"), "spi"),
                                     (("buttons", "go"), 10)),
    "a button on the PWM data pin": ((("board", "strip", "backend"), "ws281x"),
                                     (("buttons", "undo"), 18)),
    "a mugins typo": ((("rules", "mugins"), True),),
    "a mugins typo and one player": ((("rules", "mugins"), True),
                                     (("game", "players"), ["Ann"])),
    "a bad target": ((("rules", "target"), 100),),
    "partners of two": ((("rules", "partnership"), True),),
    "too bright": ((("board", "brightness"), 2),),
    "too many tracks": ((("board", "layout", "tracks"), 99),),
    "an unknown backend": ((("board", "strip", "backend"), "neopixel"),),
    "a pin off the header": ((("buttons", "go"), 99),),
    "one pin twice": ((("buttons", "muggins"), 17),),
    "a port too high": ((("web",), {"port": 70000}),),
    "a short PIN": ((("web",), {"pin": "12"}),),
    "a public host": ((("web",), {"host": "8.8.8.8"}),),
    "voice yes": ((("voice", "enabled"), "yes"),),
    "a table typo": ((("gmae",), {"players": ["Ann", "Bob"]}),),
    "a webcam source": ((("camera",), {"source": "webcam"}),),
    "zones off the frame": ((("zones",), {"crib": [[0, 0], [5000, 0], [0, 10]]}),),
    "a store path number": ((("store", "path"), 3),),
}


def combinations(count: int, seed: int = 51) -> dict[str, tuple[Mutation, ...]]:
    """Seeded combinations of two or three mutations: faults that meet in one file."""
    rng = random.Random(seed)
    names = sorted(MUTATIONS)
    found = {}
    for _ in range(count):
        chosen = rng.sample(names, rng.randint(2, 3))
        found[" + ".join(chosen)] = tuple(m for name in chosen for m in MUTATIONS[name])
    return found


def verdicts(tmp_path: Path, mutations: tuple[Mutation, ...],
             capsys: pytest.CaptureFixture[str]) -> tuple[int, int, list[str], str]:
    """doctor's and run's exit statuses for one config, the config's faults and run's
    stderr."""
    config = tmp_path / "config.toml"
    config.write_text(toml(mutate(base(), mutations)))
    capsys.readouterr()
    doctor = main(["doctor", "--config", str(config)])
    capsys.readouterr()
    run = main(["run", "--config", str(config), "--once"])
    said = capsys.readouterr().err
    return doctor, run, config_problems(config), said


CASES = {**MUTATIONS, **combinations(16)}


@pytest.mark.parametrize("name", sorted(CASES))
def test_doctor_and_run_agree(name: str, tmp_path: Path,
                              capsys: pytest.CaptureFixture[str]) -> None:
    doctor, run, faults, said = verdicts(tmp_path, CASES[name], capsys)
    assert doctor in (0, 2) and run in (0, 2), (doctor, run, said)
    assert (doctor == 0) == (run == 0), (name, doctor, run, faults, said)
    for fault in faults:  # run refuses with the very faults doctor says, every one
        assert " ".join(fault.split()) in said, (fault, said)
    assert "Traceback" not in said and "[Errno" not in said, said


@pytest.mark.parametrize(("name", "key"), [
    ("three players, two tracks", "[board.layout] tracks = 2"),
    ("a one-colour palette", "[board.colours] sides gives 1 colour"),
    ("store is /tmp", "[store] path '/tmp' is a folder"),
    ("store with a NUL", "[store] path 'ev\\x00.sqlite3' contains a NUL character"),
    ("store under a file", "[store] path '/etc/hostname/ev.sqlite3' cannot be made: "
                           "'/etc/hostname' is a file"),
    ("store is /dev/null", "[store] path '/dev/null' lies under /dev"),
    ("store under /proc", "[store] path '/proc/self/ev.sqlite3' lies under /proc"),
    ("store under /sys", "[store] path '/sys/ev.sqlite3' lies under /sys"),
    ("a missing ca_file", "[club] ca_file"),
    ("a button on the SPI data pin", "[buttons] go = 10: GPIO10 is the strip's data pin"),
    ("a button on the PWM data pin", "[buttons] undo = 18: GPIO18 is the strip's data pin"),
    ("a mugins typo and one player", "[rules] unknown rules key 'mugins'"),
])
def test_the_issue_51_configs_are_refused_by_both_naming_file_and_key(
        name: str, key: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doctor, run, faults, said = verdicts(tmp_path, MUTATIONS[name], capsys)
    assert doctor == run == 2
    assert any(fault.startswith(f"config.toml: {key}") for fault in faults), faults
    assert f"config.toml: {key}" in said


def test_every_fault_of_every_table_is_said(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(toml(mutate(base(), (
        (("game", "players"), ["Ann"]), (("rules", "mugins"), True), (("rules", "target"), 3),
        (("rules", "skunk"), 500), (("web",), {"port": -1, "pin": "1", "hots": "x"}),
        (("voice", "enabled"), "yes"), (("voice", "words_per_minute"), 9),
        (("board", "brightness"), 2), (("board", "layout", "tracks"), 99)))))
    faults = [f.removeprefix("config.toml: ") for f in config_problems(config)]
    starts = [f.split(" (")[0].split(":")[0] for f in faults]
    assert starts == [
        "[game] players must be a list of 2 to 4 names, not ['Ann']",
        "[rules] unknown rules key 'mugins'",
        "[rules] rules.target must be 121 or 61, not 3",
        "[rules] rules.skunk must be a score between 1 and 120 or null, not 500",
        "[board] board.brightness must be between 0 and 1, got 2.0",
        "[board.layout] layout 'per_side'",
        "[voice] enabled must be true or false, not 'yes'",
        "[voice] words_per_minute must be 80 to 450",
        "[web] unknown key 'hots'",
        "[web] port must be a port number from 1 to 65535",
        "[web] pin must be a string of 4 to 8 digits like \"4821\", not '1'",
    ], faults
    assert faults[1].endswith("did you mean 'muggins'?")
    assert faults[8].endswith("did you mean 'host'?")


# -- issue 59: one set of numbers in the guide, the example config, the installer and the code --

ROOT = Path(__file__).parent.parent
WIRING = ROOT / "docs" / "building.md"


def wiring_config_reference() -> dict[str, Any]:
    """The ```toml block under docs/building.md's "Config reference", parsed."""
    text = WIRING.read_text().split("## Config reference", 1)[1]
    return tomllib.loads(text.split("```toml", 1)[1].split("```", 1)[0])


def test_the_guides_config_reference_is_the_config_install_sh_writes_on_a_pi() -> None:
    reference, example = wiring_config_reference(), tomllib.loads(EXAMPLE.read_text())
    # The example runs on a laptop (simulator); install.sh swaps in the Pi's backend, and the
    # guide shows what it writes.
    assert example["board"]["strip"]["backend"] == "simulator"
    assert reference["board"]["strip"]["backend"] == "spi"
    install = (ROOT / "systemd" / "install.sh").read_text()
    assert 's@^backend = \\"simulator\\".*@backend = \\"$backend\\"' in install
    for table in ("board", "buttons"):
        for key, value in example[table].items():
            if not isinstance(value, dict):
                assert reference[table][key] == value, (table, key)
    for table in ("layout", "colours"):
        assert reference["board"][table] == example["board"][table], table


def test_the_guides_brightness_and_power_numbers_are_the_codes() -> None:
    from hardware.config import BoardConfig
    from hardware.layout import per_side_tracks
    from hardware.power import PowerBudget

    reference = wiring_config_reference()
    budget = PowerBudget()
    assert reference["board"]["power"] == {
        "supply_amps": budget.supply_amps, "headroom": budget.headroom,
        "ma_per_channel": budget.ma_per_channel, "idle_ma_per_led": budget.idle_ma_per_led}
    text = " ".join(WIRING.read_text().split())
    installed = tomllib.loads(EXAMPLE.read_text())["board"]["brightness"]
    default = BoardConfig.__dataclass_fields__["brightness"].default
    assert f"installed `brightness = {installed}`" in text
    assert f"{default} when the key is left out" in text
    leds = per_side_tracks(3).n_leds
    amps = leds * (installed * 3 * budget.ma_per_channel + budget.idle_ma_per_led) / 1000
    assert f"{leds} x ({installed} x 60 + 1) mA = **{amps:.1f} A**" in text
    assert "122 holes" in text and "121 holes per track" not in text


def test_the_example_config_names_the_installed_backends_first_and_ws281x_as_root_only(
        ) -> None:
    line = next(x for x in EXAMPLE.read_text().splitlines() if x.startswith("backend"))
    comment = line.split("#", 1)[1]
    named = [w for w in ("spi", "pi5_pio", "simulator", "ws281x") if w in comment]
    order = sorted(named, key=comment.index)
    assert order[:2] == ["spi", "pi5_pio"], comment
    assert order[-1] == "ws281x" and "root" in comment.split("ws281x", 1)[1], comment


def test_the_installer_and_its_readme_cite_only_files_in_the_repository() -> None:
    for doc in (ROOT / "systemd" / "install.sh", ROOT / "systemd" / "README.md"):
        text = doc.read_text()
        for name in set(re.findall(r"[\w./-]*[A-Z][\w-]*\.md\b|PI-NOTES", text)):
            assert name != "PI-NOTES", f"{doc.name} cites PI-NOTES, which is not in the repo"
            candidates = [ROOT / name, doc.parent / name, *ROOT.glob(f"*/{Path(name).name}")]
            assert any(c.exists() for c in candidates), f"{doc.name} cites missing {name}"
