"""firmware.device.config: the device's TOML file, its defaults, and errors that name the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware.device.config import (
    DeviceConfigError,
    default_store_path,
    load_device_config,
    parse_device_config,
)

EXAMPLE = Path(__file__).parent.parent / "firmware" / "config.example.toml"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return path


def test_no_file_gives_defaults_that_run_on_a_laptop() -> None:
    config = load_device_config(None, environ={"HOME": "/home/ann"})
    assert config.players == ("Player 1", "Player 2")
    assert config.rules.target == 121 and config.rules_json == {}
    assert config.board.backend == "simulator"
    assert config.camera.source == "opencv" and config.camera.options() == \
        {"device": 0, "size": (1280, 720), "watch": (320, 180)}
    assert config.store.path == Path("/home/ann/.local/share/cribbage-board/events.sqlite3")
    assert config.voice.enabled is False
    assert config.zones.seats == () and config.zones.crib is None


def test_the_shipped_example_loads(tmp_path: Path) -> None:
    config = load_device_config(EXAMPLE, environ={"STATE_DIRECTORY": "/var/lib/cribbage-board"})
    assert config.source == EXAMPLE
    assert config.players == ("Ann", "Bob")
    assert config.camera.source == "picamera2" and config.camera.options() == \
        {"size": (2304, 1296), "watch": (576, 324)}
    assert len(config.zones.seats) == 2 and config.zones.starter is not None
    assert config.buttons.pins["go"] == 17
    assert config.store.path == Path("/var/lib/cribbage-board/events.sqlite3")
    assert config.new_game_event() == {"type": "new_game", "players": ["Ann", "Bob"],
                                       "rules": {"target": 121, "muggins": False}}


def test_store_path_follows_xdg_and_is_relative_to_the_file(tmp_path: Path) -> None:
    assert default_store_path({"XDG_DATA_HOME": "/data", "HOME": "/h"}) == \
        Path("/data/cribbage-board/events.sqlite3")
    config = load_device_config(write(tmp_path, '[store]\npath = "games/e.db"\n'))
    assert config.store.path == tmp_path / "games" / "e.db"


def test_rules_and_players_reach_the_engine(tmp_path: Path) -> None:
    config = load_device_config(write(tmp_path, (
        '[game]\nplayers = ["Ann", "Bob", "Cat", "Dan"]\n'
        '[rules]\ntarget = 61\npartnership = true\n')))
    assert config.rules.partnership and config.rules.skunk == 31


@pytest.mark.parametrize(("text", "message"), [
    ('[rules]\ntagret = 121\n', "config.toml: [rules] unknown rules key 'tagret'"),
    ('[rules]\ntarget = 100\n', "config.toml: [rules] rules.target must be 121 or 61, not 100"),
    ('[rules]\npartnership = true\n', "[rules] rules.partnership needs four players, not 2"),
    ('[camra]\nsource = "opencv"\n', "config.toml: unknown table [camra]"),
    ('[game]\nplayers = ["Ann"]\n', "[game] players must be a list of 2 to 4 names"),
    ('[game]\nplayers = ["Ann", "Ann"]\n', "[game] players names someone twice"),
    # The same rule as the phone page's and the flow's (firmware.table.names): a player named after
    # an area would have every card they lay taken for it; "&" joins partners' names.
    ('[game]\nplayers = ["crib", "Bob"]\n',
     "config.toml: [game] players[0]: 'crib' is kept for the board's own use (the crib's area)"),
    ('[game]\nplayers = ["Ann", "Starter"]\n', "players[1]: 'Starter' is kept for the board's"),
    ('[game]\nplayers = ["Ann & Cid", "Bob"]\n',
     "[game] players[0]: 'Ann & Cid' is kept for the board's own use (\"&\" joins partners'"),
    ('[game]\nplayers = ["Ann", "ann"]\n', "[game] players names someone twice"),
    ('[game]\nplayrs = ["Ann", "Bob"]\n', "[game] unknown key 'playrs'"),
    ('[board]\nbrightnes = 1\n', "config.toml: [board] unknown board key 'brightnes'"),
    ('[buttons]\ngo = 99\n', "config.toml: [buttons] "),
    ('[camera]\nsource = "webcam"\n', "[camera] source must be one of picamera2, opencv, "
                                      "replay, not 'webcam'"),
    ('[camera]\nsource = "picamera2"\ndevice = 0\n',
     "[camera] key 'device' does not apply to source 'picamera2'"),
    ('[camera]\nsource = "replay"\n', "[camera] source 'replay' needs path"),
    ('[camera]\nsize = [640]\n', "[camera] size must be [width, height] in pixels, not [640]"),
    ('[camera]\nzoom = 2\n', "[camera] unknown key 'zoom'"),
    ('[camera]\nwatch = "small"\n', "[camera] watch must be [width, height] in pixels "
                                    "(the small stream watched for movement), not 'small'"),
    ('[camera]\nsize = [2304, 1296]\nwatch = [4608, 2592]\n',
     "[camera] watch 4608x2592 is larger than size 2304x1296: it is the small stream, "
     "e.g. [576, 324]"),
    ('[camera]\nsize = [2304, 1296]\nwatch = [640, 480]\n',
     "[camera] watch 640x480 does not have the shape of size 2304x1296: it must be the same "
     "view shrunk, e.g. [576, 324]"),
    ('[zones]\nseats = [[[0, 0], [10, 0], [10, 10]]]\n',
     "[zones] seats needs one polygon per player (2, in [game] players order), got 1"),
    ('[zones]\ncrib = [[0, 0], [10, 0]]\n', "[zones] crib must be a polygon of at least 3"),
    ('[zones]\ncrib = [[0, 0], [10, 0], [5000, 10]]\n',
     "[zones] crib: point [5000, 10] lies outside the 1280x720 camera frame"),
    ('[zones]\nstarter = [[0, 0], [10, 10], [20, 20]]\n', "[zones] starter encloses no area"),
    ('[zones]\ncard_px = 900\n', "[zones] card_px must be a card's long side in frame pixels, "
     "10 to 720 (the frame's height), not 900"),
    ('[zones]\ncard_px = "big"\n', "[zones] card_px must be a card's long side"),
    ('[store]\npath = 3\n', "[store] path must be a file name, not 3"),
    ('[voice]\nenabled = "yes"\n', "[voice] enabled must be true or false, not 'yes'"),
    ('[voice]\nwords_per_minute = 1000\n', "[voice] words_per_minute must be 80 to 450"),
    ('rules = 3\n', "config.toml: rules must be a table ([rules]), not 3"),
])
def test_bad_config_names_the_file_table_and_key(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(DeviceConfigError) as info:
        load_device_config(write(tmp_path, text))
    assert message in str(info.value)
    assert isinstance(info.value, ValueError)


def test_bad_toml_and_missing_file_are_clear(tmp_path: Path) -> None:
    with pytest.raises(DeviceConfigError, match="is not valid TOML"):
        load_device_config(write(tmp_path, "[rules\n"))
    with pytest.raises(DeviceConfigError, match="cannot read config .*nope.toml"):
        load_device_config(tmp_path / "nope.toml")


def test_replay_camera_path_is_relative_to_the_config(tmp_path: Path) -> None:
    config = parse_device_config({"camera": {"source": "replay", "path": "frames", "loop": True}},
                                 base=tmp_path)
    assert config.camera.options() == {"fps": 30.0, "loop": True, "path": tmp_path / "frames",
                                       "size": (1280, 720), "watch": (320, 180)}


def test_config_values_are_frozen() -> None:
    config = load_device_config(None)
    with pytest.raises(AttributeError):
        config.players = ("X", "Y")  # type: ignore[misc]


def test_config_records_which_tables_the_file_holds(tmp_path) -> None:
    from firmware.device.config import load_device_config

    path = tmp_path / "c.toml"
    path.write_text('[camera]\nsource = "opencv"\n[board.strip]\nbackend = "simulator"\n')
    config = load_device_config(path)
    assert {"camera", "board", "board.strip"} <= config.configured
    assert "buttons" not in config.configured
    assert load_device_config(None).configured == frozenset()


# -- what spans tables, and the store's path on this file system -------------------------------


@pytest.mark.parametrize(("path", "said"), [
    ("/tmp", "is a folder: name a file inside it, like '/tmp/events.sqlite3'"),
    ("a\x00b.sqlite3", "contains a NUL character"),
    ("/etc/hostname/ev.sqlite3", "cannot be made: '/etc/hostname' is a file, not a folder"),
    ("/etc/hostname/deeper/ev.sqlite3", "cannot be made: '/etc/hostname' is a file"),
    ("/dev/null", "lies under /dev, the kernel's own folder"),
    ("/dev/shm/../null", "lies under /dev"),
    ("/proc/self/ev.sqlite3", "lies under /proc"),
    ("/sys/kernel/ev.sqlite3", "lies under /sys"),
])
def test_a_store_path_that_cannot_hold_a_store_is_said_in_words(path: str, said: str) -> None:
    from firmware.device.config_checks import store_path_problem

    problem = store_path_problem(Path(path))
    assert problem is not None and said in problem
    assert "Errno" not in problem


def test_a_store_path_that_can_be_made_or_is_a_file_passes(tmp_path: Path) -> None:
    from firmware.device.config_checks import store_path_problem

    (tmp_path / "e.sqlite3").write_bytes(b"")
    assert store_path_problem(tmp_path / "e.sqlite3") is None
    assert store_path_problem(tmp_path / "new" / "deeper" / "e.sqlite3") is None
    (tmp_path / "gone").symlink_to(tmp_path / "nowhere")
    assert "dangling" in str(store_path_problem(tmp_path / "gone"))


def test_the_strip_holds_its_bus_pins() -> None:
    from firmware.device.config_checks import strip_pins

    assert set(strip_pins("spi", {})) == {7, 8, 9, 10, 11}
    assert strip_pins("spi", {"bus": 1})[20].startswith("the strip's data pin")
    assert strip_pins("ws281x", {}) == {18: "the strip's data pin (PWM)"}
    assert 10 in strip_pins("ws281x", {"pin": 10}) and 12 in strip_pins("ws281x", {"pin": 12})
    assert 18 in strip_pins("pi5_pio", {})
    assert strip_pins("simulator", {}) == {}


@pytest.mark.parametrize(("text", "message"), [
    ('[board.strip]\nbackend = "spi"\n[buttons]\ngo = 11\n',
     "[buttons] go = 11: GPIO11 is SPI0's clock (SCLK) with [board.strip] backend = 'spi'"),
    ('[board.strip]\nbackend = "ws281x"\n[buttons]\nencoder = {a = 5, b = 18}\n',
     "[buttons] encoder.b = 18: GPIO18 is the strip's data pin (PWM)"),
    ('[game]\nplayers = ["Ann", "Bob", "Cat", "Dan"]\n[board.layout]\ntracks = 3\n',
     "[board.layout] tracks = 3 gives 3 peg tracks, but [game] players seats 4 sides"),
    ('[board.layout]\nkind = "per_side"\nholes = 62\n[rules]\ntarget = 121\n',
     "[rules] target = 121 does not fit the board: [board.layout] has its game hole at 61"),
    ('[rules]\ntraget = 61\n', "[rules] unknown rules key 'traget' (known keys: "),
    ('[web]\nprot = 80\n', "[web] unknown key 'prot' (known: allow_public, enabled, host, pin, "
                           "port); did you mean 'port'?"),
    ('[game]\nplayers = ["Ann", "Bob"]\n[gmae]\nplayers = []\n',
     "config.toml: unknown table [gmae] (known: "),
])
def test_faults_across_tables_name_the_key(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(DeviceConfigError) as info:
        load_device_config(write(tmp_path, text))
    assert message in str(info.value)


def test_buttons_on_strip_pins_are_fine_while_the_buttons_are_simulated(tmp_path: Path) -> None:
    # No [buttons] table: the board runs on simulated buttons, whatever pins they default to.
    config = load_device_config(write(tmp_path, '[board.strip]\nbackend = "spi"\nbus = 1\n'))
    assert config.buttons.pins["go"] == 17


def test_a_loaded_config_error_holds_every_fault(tmp_path: Path) -> None:
    with pytest.raises(DeviceConfigError) as info:
        load_device_config(write(tmp_path, '[rules]\ntarget = 3\nskunk = 500\n[voice]\n'
                                           'enabled = 1\n'))
    assert len(info.value.faults) == 3
    assert str(info.value).startswith("3 faults: config.toml: [rules] rules.target must be")


def test_run_refuses_its_config_before_opening_anything(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from firmware.commands.cli import main

    config = write(tmp_path, '[store]\npath = "e.sqlite3"\n[rules]\nmugins = true\n'
                             '[web]\npin = "1"\n')
    assert main(["run", "--config", str(config), "--once"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith("cribbage-board run: 2 faults: ")
    assert "did you mean 'muggins'?" in err and "[web] pin must be" in err
    assert not (tmp_path / "e.sqlite3").exists()
    assert main(["run", "--store", "/tmp", "--once"]) == 2
    assert "--store '/tmp' is a folder" in capsys.readouterr().err
