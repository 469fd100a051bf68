"""firmware.club.settings and the config's [club] table: broker URLs, board names, credentials."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware.club.messages import EventMessage, MessageError, NowMessage, parse_topic
from firmware.club.settings import (
    Broker,
    ClubConfigError,
    parse_broker,
    parse_club,
    read_boards,
)
from firmware.device.config import DeviceConfigError, load_device_config


def test_broker_urls_give_host_port_and_tls() -> None:
    assert parse_broker("mqtt://192.168.1.20") == Broker("192.168.1.20", 1883, False)
    assert parse_broker("mqtts://club.local") == Broker("club.local", 8883, True)
    assert str(parse_broker("mqtt://127.0.0.1:1884/")) == "mqtt://127.0.0.1:1884"


@pytest.mark.parametrize(("url", "message"), [
    ("http://x:1883", "must start mqtt:// or mqtts://"),
    ("mqtt://ann:pw@x", "holds credentials"),
    ("mqtt://x:1883/topic", "must name only a host and a port"),
    ("mqtt://x:99999", "has a bad port"),
    ("mqtt://", "names no host"),
    ("", "must be a URL"),
])
def test_bad_broker_urls_are_refused_by_name(url: str, message: str) -> None:
    with pytest.raises(ClubConfigError, match=message):
        parse_broker(url)


def test_the_club_table_reaches_the_device_config(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[club]\nbroker = "mqtt://10.0.0.5:1883"\nboard = "table-7"\n'
                    'username = "table-7"\npassword = "pw"\n')
    club = load_device_config(path).club
    assert club is not None and club.board == "table-7" and club.username == "table-7"
    assert club.broker == Broker("10.0.0.5", 1883, False)
    # A CA file means TLS (firmware.device.config checks that it holds a certificate).
    with_ca = parse_club({"broker": "mqtt://10.0.0.5:1883", "board": "table-7",
                          "ca_file": "ca.crt"}, base=tmp_path)
    assert with_ca.broker == Broker("10.0.0.5", 1883, True)
    assert with_ca.ca_file == tmp_path / "ca.crt"
    assert load_device_config(None).club is None


@pytest.mark.parametrize(("table", "message"), [
    ('board = "t1"\n', r"\[club\] needs broker"),
    ('broker = "mqtt://x"\nboard = "table 7"\n', r"\[club\] board must be a name"),
    ('broker = "mqtt://x"\nboard = "t"\nusername = "u"\n',
     r"\[club\] username and password go together"),
    ('broker = "mqtt://x"\nboard = "t"\ntls = "yes"\n', r"\[club\] tls must be true or false"),
    ('broker = "mqtt://x"\nboard = "t"\nport = 1\n', r"\[club\] unknown key 'port'"),
    ('broker = "mqtt://x"\nboard = "t"\ntopic_prefix = "a/#"\n',
     r"\[club\] topic_prefix must be"),
])
def test_a_bad_club_table_names_file_table_and_key(tmp_path: Path, table: str,
                                                    message: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[club]\n" + table)
    with pytest.raises(DeviceConfigError, match="config.toml: " + message):
        load_device_config(path)


def test_the_password_comes_from_a_file_and_is_never_shown(tmp_path: Path) -> None:
    (tmp_path / "club-pw").write_text("s3cret-pw\n")
    club = parse_club({"broker": "mqtt://x", "board": "table-7", "username": "table-7",
                       "password_file": "club-pw"}, base=tmp_path)
    assert club.password == "s3cret-pw"
    assert "s3cret" not in repr(club) and "s3cret" not in str(club)


@pytest.mark.parametrize(("extra", "message"), [
    ({"username": "table-8", "password": "pw"},
     "username must be the board's name 'table-7', not 'table-8'"),
    ({"username": "table-7", "password_file": "nope"}, r"password_file '.*nope': no such file"),
    ({"username": "table-7", "password_file": "empty"}, r"password_file '.*empty' is empty"),
    ({"username": "table-7", "password": "a", "password_file": "empty"},
     "give password or password_file, not both"),
    ({"username": "table-7", "password_file": "a\0b"}, "password_file .* contains a NUL character"),
])
def test_credentials_that_cannot_work_are_refused_by_key_and_file(
        tmp_path: Path, extra: dict[str, str], message: str) -> None:
    (tmp_path / "empty").write_text("\n")
    with pytest.raises(ClubConfigError, match=message):
        parse_club({"broker": "mqtt://x", "board": "table-7", **extra}, base=tmp_path)


def test_the_boards_file_names_the_club_and_a_bad_line_by_number(tmp_path: Path) -> None:
    path = tmp_path / "club-boards"
    path.write_text("# the club\ntable-1\n\ntable-2  # by the door\n")
    assert read_boards(path) == frozenset({"table-1", "table-2"})
    path.write_text("table-1\ntable 2\n")
    with pytest.raises(ClubConfigError, match=r"club-boards', line 2: board must be a name"):
        read_boards(path)
    with pytest.raises(ClubConfigError, match=r"boards file '.*nowhere' cannot be read"):
        read_boards(tmp_path / "nowhere")


def test_event_messages_round_trip_and_forgeries_are_refused() -> None:
    row = EventMessage("t1", "abc", 3, 1, 77, 1.5, '{"type": "deal"}', False)
    assert EventMessage.parse(row.payload(), board="t1") == row
    with pytest.raises(MessageError, match="names board 't1' on the topic of board 't2'"):
        EventMessage.parse(row.payload(), board="t2")
    with pytest.raises(MessageError, match="not JSON"):
        EventMessage.parse(b"{nope", board="t1")
    with pytest.raises(MessageError, match="id is missing or of the wrong type: True"):
        EventMessage.parse(row.payload().replace(b'"id":3', b'"id":true'), board="t1")
    now = NowMessage("t1", "abc", 9, {"phase": "play"})
    assert NowMessage.parse(now.payload(), board="t1") == now
    assert parse_topic("cribbage/club", "cribbage/club/t1/event") == ("t1", "event")
    with pytest.raises(MessageError, match="not a club topic"):
        parse_topic("cribbage/club", "cribbage/club/t1/x/event")
