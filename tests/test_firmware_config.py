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
