"""``cribbage-board doctor``: every config fault in words, what the Pi lacks, hands-on checks."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest
from gpiozero.pins.mock import MockFactory

from firmware.commands.cli import main
from firmware.device.config import config_problems, load_device_config
from firmware.doctor.checks import Finding, System, check, check_loaded
from firmware.doctor.walk import WALK_COLOUR, ask_buttons, measure_camera, walk_leds
from hardware.buttons import ButtonConfig, ButtonPanel
from hardware.layout import per_side_tracks
from vision.live.sources import Frame, ReplaySource
from vision.recognise.detection import CameraRecogniser
from vision.training.synth import place, render_card

CAMERA = '[camera]\nsource = "opencv"\nsize = [640, 480]\n'
ZONES = ('[zones]\nseats = [[[0, 0], [640, 0], [640, 240]], [[0, 240], [640, 240], [640, 480]]]'
         '\n')


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return path


def pi(tmp_path: Path, *, nodes: tuple[str, ...] = (), modules: tuple[str, ...] = (),
       programs: tuple[str, ...] = (), denied: tuple[str, ...] = (), uid: int = 1001,
       bufsiz: int | None = 4096) -> System:
    """A Pi as the doctor sees it: device nodes under tmp_path, modules and programs named."""
    root = tmp_path / "root"
    for node in nodes:
        (root / node.lstrip("/")).parent.mkdir(parents=True, exist_ok=True)
        (root / node.lstrip("/")).touch()
    if bufsiz is not None:
        path = root / "sys/module/spidev/parameters/bufsiz"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{bufsiz}\n")
    # Device nodes are looked for under the root; the store's folder is a real path.
    refused = {root / n.lstrip("/") for n in denied} | {Path(n) for n in denied}
    return System(root=root, have_module=lambda name: name in modules,
                  which=lambda name: f"/usr/bin/{name}" if name in programs else None,
                  writable=lambda p: p not in refused, uid=uid)


def texts(findings: list[Finding], level: str = "fault") -> list[str]:
    return [f.text for f in findings if f.level == level]


# -- the config, table by table --------------------------------------------------------------


@pytest.mark.parametrize(("text", "said"), [
    ("[game\n", "is not valid TOML"),
    ("[gmae]\n", "config.toml: unknown table [gmae] (known: game, rules, board"),
    ('[game]\nplayers = ["Ann"]\n', "[game] players must be a list of 2 to 4 names"),
    ("[rules]\ntagret = 121\n", "[rules] unknown rules key 'tagret'"),
    ("[board]\nbrightness = 2\n", "[board] board.brightness must be between 0 and 1, got 2.0"),
    ("[buttons]\ngo = 99\n", "[buttons]"),
    ('[camera]\nsource = "webcam"\n', "[camera] source must be one of picamera2, opencv, replay"),
    (CAMERA + '[zones]\nstarter = [[0, 0], [700, 0], [0, 10]]\n',
     "[zones] starter: point [700, 0] lies outside the 640x480 camera frame"),
    ("[store]\npath = 7\n", "[store] path must be a file name, not 7"),
    ("[voice]\nwords_per_minute = 900\n", "[voice] words_per_minute must be 80 to 450"),
    ('[web]\npin = "12"\n', "[web] pin must be a string of 4 to 8 digits like \"4821\", not '12'"),
])
def test_each_kind_of_config_fault_is_said_in_words(tmp_path: Path, text: str,
                                                    said: str) -> None:
    problems = config_problems(write(tmp_path, text))
    assert len(problems) == 1
    assert said in problems[0], problems[0]


def test_an_unknown_backend_or_option_is_a_fault(tmp_path: Path) -> None:
    unknown = check(write(tmp_path, '[board.strip]\nbackend = "neopixel"\n'), system=pi(tmp_path))
    assert texts(unknown) == ["LEDs: unknown LED backend 'neopixel': choose one of pi5_pio, "
                              "simulator, spi, ws281x"]
    option = check(write(tmp_path, '[board.strip]\nbackend = "spi"\nspeed = 1\n'),
                   system=pi(tmp_path, nodes=("/dev/spidev0.0",), modules=("spidev",)))
    assert len(texts(option)) == 1
    assert texts(option)[0].startswith("LEDs: LED backend 'spi': got an unexpected keyword "
                                       "argument 'speed'")


def test_every_broken_table_is_said_not_only_the_first(tmp_path: Path) -> None:
    path = write(tmp_path, '[game]\nplayers = ["Ann"]\n[rules]\ntarget = 99\n'
                           '[web]\npin = "12"\n[voice]\nenabled = "yes"\n')
    problems = config_problems(path)
    assert [p.split("]")[0] for p in problems] == ["config.toml: [game", "config.toml: [rules",
                                                   "config.toml: [voice", "config.toml: [web"]
    # [rules] is judged even with [game] broken: only partnership counts the players
    assert "rules.target must be 121 or 61, not 99" in problems[1]


def test_a_missing_config_is_one_fault(tmp_path: Path) -> None:
    assert config_problems(tmp_path / "nope.toml") == [
        f"cannot read config {str(tmp_path / 'nope.toml')!r}: No such file or directory"]


# -- what the config asks of the Pi ---------------------------------------------------------


def test_the_simulator_is_a_note_not_a_fault(tmp_path: Path) -> None:
    findings = check(write(tmp_path, ""), system=pi(tmp_path))
    assert texts(findings) == []
    assert any("backend 'simulator': nothing lights" in t for t in texts(findings, "note"))


def test_spi_without_the_boot_line_the_group_or_the_module(tmp_path: Path) -> None:
    config = write(tmp_path, '[board.strip]\nbackend = "spi"\n')
    assert texts(check(config, system=pi(tmp_path, bufsiz=65536))) == [
        "no /dev/spidev0.0: add dtparam=spi=on to /boot/firmware/config.txt and reboot",
        "LEDs: the Python module spidev is missing: pip install spidev (the 'pi' extra)",
    ]
    denied = pi(tmp_path, nodes=("/dev/spidev0.0",), modules=("spidev",),
                denied=("/dev/spidev0.0",), bufsiz=65536)
    assert texts(check(config, system=denied)) == [
        "cannot write /dev/spidev0.0: add the service user to the group spi"]
    ready = pi(tmp_path, nodes=("/dev/spidev0.0",), modules=("spidev",), bufsiz=65536)
    assert texts(check(config, system=ready)) == []


def test_spi_strip_longer_than_the_buffer(tmp_path: Path) -> None:
    config = write(tmp_path, '[board.layout]\nkind = "per_side"\ntracks = 4\n'
                             '[board.strip]\nbackend = "spi"\n')
    system = pi(tmp_path, nodes=("/dev/spidev0.0",), modules=("spidev",))
    assert texts(check(config, system=system)) == [
        "LEDs: 488 LEDs need 5976 bytes per SPI transfer but spidev.bufsiz is 4096: add "
        "'spidev.bufsiz=65536' to /boot/firmware/cmdline.txt"]


def test_pi5_pio_needs_the_overlay_then_the_udev_rule(tmp_path: Path) -> None:
    config = write(tmp_path, '[board.strip]\nbackend = "pi5_pio"\n')
    assert texts(check(config, system=pi(tmp_path))) == [
        "no /dev/leds0: add dtoverlay=ws2812-pio,gpio=18,num_leds=366 to "
        "/boot/firmware/config.txt and reboot (Pi 5 only)"]
    root_only = pi(tmp_path, nodes=("/dev/leds0",), denied=("/dev/leds0",))
    assert texts(check(config, system=root_only)) == [
        "cannot write /dev/leds0: install systemd/99-cribbage-board-leds.rules (install.sh "
        "--leds pio) and add the service user to the group leds"]


def test_ws281x_pwm_is_refused_to_an_unprivileged_service(tmp_path: Path) -> None:
    config = write(tmp_path, '[board.strip]\nbackend = "ws281x"\n')
    said = texts(check(config, system=pi(tmp_path, modules=("rpi_ws281x",))))
    assert said == ["LEDs: backend 'ws281x' (PWM) needs root and the service runs "
                    "unprivileged: wire the strip to GPIO10 and use backend = \"spi\""]
    assert texts(check(config, system=pi(tmp_path, modules=("rpi_ws281x",), uid=0))) == []


def test_camera_buttons_voice_web_and_store(tmp_path: Path) -> None:
    store = tmp_path / "state" / "events.sqlite3"
    config = write(tmp_path, '[camera]\nsource = "picamera2"\ndeck = "deck.npz"\n'
                             '[buttons]\npin_factory = "lgpio"\n'
                             '[voice]\nenabled = true\n[web]\nport = 80\n'
                             f'[store]\npath = "{store}"\n')
    said = texts(check(config, system=pi(tmp_path, denied=(str(tmp_path),))),)
    assert said == [
        "camera: picamera2 is missing: apt install python3-picamera2, in a venv made with "
        "--system-site-packages (systemd/install.sh does both)",
        f"camera: deck {str(tmp_path / 'deck.npz')!r} does not exist "
        "(cribbage-board vision teach writes one)",
        "buttons: pin_factory 'lgpio' needs the Python module lgpio: apt install python3-lgpio",
        f"store: cannot write {str(store)!r} ({str(tmp_path)!r} is not writable by this user)",
        "voice: 'espeak-ng' is not installed: apt install espeak-ng (systemd/install.sh "
        "--with-voice)",
        "web: port 80 needs root and the service runs unprivileged: use a port from 1024 up, "
        "like 8080",
    ]


def test_a_webcam_not_plugged_in_and_zones_not_calibrated(tmp_path: Path) -> None:
    config = write(tmp_path, CAMERA)
    findings = check(config, system=pi(tmp_path))
    assert texts(findings) == ["camera: no /dev/video0: is the webcam plugged in? (a ribbon "
                               "camera is source = \"picamera2\")"]
    assert any("[zones] not calibrated" in t for t in texts(findings, "note"))
    calibrated = check(write(tmp_path, CAMERA + ZONES),
                       system=pi(tmp_path, nodes=("/dev/video0",)))
    assert not any("zones" in f.text for f in calibrated)


def test_an_installed_pi4_config_is_clean(tmp_path: Path) -> None:
    example = (Path(__file__).parent.parent / "firmware/config.example.toml").read_text()
    config = write(tmp_path, example.replace('backend = "simulator"', 'backend = "spi"'))
    # install.sh raises spidev's buffer (spidev.bufsiz=65536) for a strip past 445 LEDs.
    system = pi(tmp_path, nodes=("/dev/spidev0.0",), modules=("spidev", "picamera2", "lgpio"),
                bufsiz=65536)
    findings = check_loaded(load_device_config(config), system=system)
    assert [f for f in findings if f.level == "fault"] == []


# -- the command -----------------------------------------------------------------------------


def test_cli_exits_2_with_every_fault_listed(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, '[game]\nplayers = ["Ann"]\n[web]\npin = "12"\n')
    assert main(["doctor", "--config", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [
        "error: config.toml: [game] players must be a list of 2 to 4 names, not ['Ann']",
        "error: config.toml: [web] pin must be a string of 4 to 8 digits like \"4821\", "
        "not '12'",
    ]
    assert captured.err == (f"cribbage-board doctor: 2 faults in {str(path)!r} or what it "
                            "asks of this machine (listed above)\n")


def test_cli_clean_config_and_all_without_a_terminal(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path, f'[store]\npath = "{tmp_path / "e.db"}"\n')
    monkeypatch.setattr("sys.stdin", open("/dev/null"))  # noqa: SIM115 - closed by pytest
    assert main(["doctor", "--config", str(path), "--all", "--step-ms", "0"]) == 0
    out = capsys.readouterr().out
    assert f"config OK: {path}" in out
    assert "track 1: walking LED 0 to LED 121 (122 holes)" in out
    assert "buttons: none configured ([buttons] table): nothing to ask for" in out
    assert "camera: none configured ([camera] table): nothing to grab" in out


def test_cli_json_is_one_object_with_every_fault_and_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, '[game]\nplayers = ["Ann"]\n[rules]\nmugins = true\n'
                           '[store]\npath = "/tmp"\n')
    assert main(["doctor", "--config", str(path), "--json"]) == 2
    captured = capsys.readouterr()
    report = json.loads(captured.out)  # exactly one object: no log lines around it
    assert report["ok"] is False and report["config"] == str(path)
    assert [f.split("]")[0] for f in report["faults"]] == [
        "config.toml: [game", "config.toml: [rules", "config.toml: [store"]
    assert report["faults"] == config_problems(path)
    assert report["checks"] == []
    assert len(captured.err.splitlines()) == 1
    assert captured.err.startswith(f"cribbage-board doctor: 3 faults in {str(path)!r}")


def test_cli_json_clean_config_with_its_notes_and_checks(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, f'[store]\npath = "{tmp_path / "e.db"}"\n')
    assert main(["doctor", "--config", str(path), "--json", "--buttons", "--camera"]) == 0
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert (report["ok"], report["faults"]) == (True, [])
    assert any("backend 'simulator'" in note for note in report["notes"])
    assert report["checks"] == [
        {"check": "ask for each button", "ok": True,
         "said": ["buttons: none configured ([buttons] table): nothing to ask for"]},
        {"check": "grab a camera frame", "ok": True,
         "said": ["camera: none configured ([camera] table): nothing to grab"]}]
    assert captured.err == ""


# -- the hands-on checks ---------------------------------------------------------------------


class Recording:
    def __init__(self, n: int) -> None:
        self.n = n
        self.lit: list[list[int]] = []

    def show(self, frame: np.ndarray) -> None:
        assert frame.shape == (self.n, 3)
        self.lit.append([int(i) for i in np.flatnonzero(frame.any(axis=1))])
        if self.lit[-1]:
            assert tuple(frame[self.lit[-1][0]]) == WALK_COLOUR

    def close(self) -> None:
        pass


def test_walk_lights_one_led_at_a_time_along_each_track() -> None:
    layout = per_side_tracks(2, holes=62)
    strip, lines, slept = Recording(layout.n_leds), [], []
    walk_leds(strip, layout, say=lines.append, sleep=slept.append, step_s=0.02)
    assert strip.lit[:-1] == [[layout.led(t, h)] for t in range(2) for h in range(62)]
    assert strip.lit[-1] == []  # dark at the end
    assert slept == [0.02] * 124
    assert lines[0] == ("track 1: walking LED 0 to LED 61 (62 holes): watch for a dark or "
                        "wrong-coloured hole")
    assert lines[-1] == "LEDs: walk done, strip dark"


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    mock = MockFactory()
    yield mock
    mock.reset()


def test_buttons_asked_in_turn_a_swapped_wire_and_a_dead_one(factory: MockFactory) -> None:
    config = ButtonConfig(pin_factory="mock")
    now = [0.0]
    panel = ButtonPanel.from_config(config, pin_factory=factory, clock=lambda: now[0])
    # What the player's finger reaches when asked: MUGGINS is wired to UNDO's pin (22), and
    # UNDO's own button is dead.
    wiring = {"go": 17, "muggins": 22, "undo": None, "confirm": 23}
    lines: list[str] = []
    asked: list[str] = []
    tried: set[str] = set()

    def say(line: str) -> None:
        lines.append(line)
        if line.startswith("press "):
            asked.append(line.split()[1].lower())

    def sleep(seconds: float) -> None:
        name = asked[-1]
        pin = wiring[name]
        if pin is not None and name not in tried:
            tried.add(name)
            factory.pin(pin).drive_low()
            now[0] += 0.05
            factory.pin(pin).drive_high()
        now[0] += seconds

    try:
        answered = ask_buttons(panel, config.specs(), say=say, clock=lambda: now[0],
                               sleep=sleep, timeout_s=1.0, poll_s=0.1)
    finally:
        panel.close()
    assert answered == {"go": True, "muggins": False, "undo": False, "confirm": True}
    assert "press GO (GPIO17) within 1 s" in lines
    assert "  got UNDO instead: are the wires of MUGGINS and UNDO swapped?" in lines
    assert "  UNDO: no press in 1 s: check its wire to GPIO22 and GND" in lines
    assert "  CONFIRM: pressed" in lines


def test_camera_frame_and_card_sizes_through_the_recogniser(tmp_path: Path) -> None:
    frame = np.full((720, 1280, 3), (60, 110, 40), np.uint8)
    place(frame, render_card(4, 2), (640, 360), 0, 0.5)  # a 5H, 350 px tall card at half size
    folder = tmp_path / "frames"
    folder.mkdir()
    cv2.imwrite(str(folder / "0.png"), frame)
    lines: list[str] = []
    size = measure_camera(ReplaySource(folder), CameraRecogniser(), say=lines.append)
    assert size == (1280, 720)
    assert lines[0] == "camera: frame 1280x720"
    name, _, dims = lines[1].strip().partition(": ")
    across, down = (int(v) for v in dims.removesuffix(" px").split(" x "))
    assert name == "5H"
    assert abs(down - 175) <= 8 and abs(across - 125) <= 8, lines[1]


def test_camera_without_a_frame_says_so() -> None:
    class Silent:
        def read(self, timeout: float = 0.5) -> None:
            return None

    lines: list[str] = []
    assert measure_camera(Silent(), lambda image: [], say=lines.append, tries=3) is None
    assert lines == ["camera: no frame in 3 tries"]


def test_camera_sizes_are_calibrate_checks() -> None:
    class Still:
        def read(self, timeout: float = 0.5) -> Frame:
            return Frame(np.zeros((720, 1280, 3), np.uint8), 0.0, 0)

    small = [(10.0, 10.0), (46.0, 10.0), (46.0, 60.0), (10.0, 60.0)]  # 36 x 50 px: unreadable
    lines: list[str] = []
    size = measure_camera(Still(), lambda image: [SimpleNamespace(card=None, corners=small)],
                          say=lines.append)
    assert size == (1280, 720)
    assert lines == ["camera: frame 1280x720", "  unreadable card: 36 x 50 px"]
    lines.clear()
    assert measure_camera(Still(), lambda image: [], say=lines.append) == (1280, 720)
    assert lines == ["camera: frame 1280x720", "camera: no card in view: lay a few face up "
                                               "under the camera and run it again"]
