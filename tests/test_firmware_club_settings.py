"""firmware.club.settings and the config's [club] table: broker URLs, board names, credentials."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware.club.messages import EventMessage, MessageError, NowMessage, parse_topic
from firmware.club.settings import Broker, ClubConfigError, parse_broker
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
                    'username = "t7"\npassword = "pw"\nca_file = "ca.crt"\n')
    club = load_device_config(path).club
    assert club is not None and club.board == "table-7" and club.username == "t7"
    assert club.broker == Broker("10.0.0.5", 1883, True)  # a CA file means TLS
    assert club.ca_file == tmp_path / "ca.crt"
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
