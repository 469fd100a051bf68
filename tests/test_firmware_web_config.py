"""The ``[web]`` config table, the host check, and the phone's settings kept beside the store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from firmware.device.config import (
    DeviceConfigError,
    WebConfig,
    load_device_config,
    parse_device_config,
)
from firmware.web.address import HostError, check_host, is_local_address, is_local_name
from firmware.web.inputs import TableSettings
from firmware.web.settings import SettingsFile, settings_path

EXAMPLE = Path(__file__).parent.parent / "firmware" / "config.example.toml"


def test_defaults_serve_the_page_on_a_laptop() -> None:
    web = load_device_config(None, environ={"HOME": "/home/ann"}).web
    assert web == WebConfig(enabled=True, host="0.0.0.0", port=8080, pin=None,
                            allow_public=False)


def test_the_shipped_example_has_a_web_table() -> None:
    config = load_device_config(EXAMPLE, environ={"STATE_DIRECTORY": "/var/lib/x"})
    assert "web" in config.configured and config.web.enabled and config.web.port == 8080


def test_every_key_is_read(tmp_path: Path) -> None:
    config = parse_device_config({"web": {"enabled": False, "host": "192.168.1.20",
                                          "port": 8123, "pin": "0420"}})
    assert config.web == WebConfig(False, "192.168.1.20", 8123, "0420", False)
    assert parse_device_config({"web": {"host": "localhost"}}).web.host == "127.0.0.1"
    assert parse_device_config({"web": {"host": "::"}}).web.host == "::"
    assert parse_device_config({"web": {"host": "203.0.113.9", "allow_public": True}}
                               ).web.host == "203.0.113.9"


@pytest.mark.parametrize(("table", "message"), [
    ({"prot": 80}, "config.toml: [web] unknown key 'prot'"),
    ({"enabled": "yes"}, "[web] enabled must be true or false, not 'yes'"),
    ({"port": 70000}, "[web] port must be a port number from 1 to 65535 (0: any free port), "
                      "not 70000"),
    ({"port": "8080"}, "not '8080'"),
    ({"pin": 1234}, "[web] pin must be a string of 4 to 8 digits like \"4821\", not 1234"),
    ({"pin": "12"}, "not '12'"),
    ({"pin": "12ab"}, "not '12ab'"),
    ({"host": "8.8.8.8"}, "[web] host '8.8.8.8' is a public address: the phone page is for "
                          "the local network (set allow_public = true to serve it anyway)"),
    ({"host": "cribbage.example.com"}, "[web] host must be an IP address"),
    ({"host": 8080}, "[web] host must be an address like \"0.0.0.0\", not 8080"),
    ({"host": "224.0.0.1"}, "multicast"),
])
def test_bad_values_name_the_key(table: dict[str, object], message: str) -> None:
    with pytest.raises(DeviceConfigError) as caught:
        parse_device_config({"web": table})
    assert message in str(caught.value)


def test_which_addresses_are_local() -> None:
    for address in ("127.0.0.1", "192.168.4.2", "10.1.2.3", "172.20.0.5", "169.254.3.3",
                    "100.64.1.1", "::1", "fe80::1%wlan0", "fd00::5", "::ffff:192.168.1.9"):
        assert is_local_address(address), address
    for address in ("8.8.8.8", "2001:4860:4860::8888", "::ffff:8.8.8.8", "testclient", "",
                    "0.0.0.0"):
        assert not is_local_address(address), address
    assert check_host("0.0.0.0") == "0.0.0.0"
    with pytest.raises(HostError):
        check_host("1.1.1.1")


def test_the_phones_settings_stand_until_the_config_changes(tmp_path: Path) -> None:
    store = tmp_path / "events.sqlite3"
    path = settings_path(store)
    assert path == tmp_path / "events.settings.json"
    config = TableSettings(("Ann", "Bob"), {}, ((0, 114, 178), (230, 159, 0)))
    kept = SettingsFile(path, config)
    assert kept.load() is None and kept.problem is None  # nothing chosen yet
    chosen = TableSettings(("Bob", "Cat", "Dan"), {"target": 61},
                           ((213, 94, 0), (86, 180, 233), (240, 228, 66)))
    kept.save(chosen)
    assert SettingsFile(path, config).load() == chosen
    assert not list(tmp_path.glob("*.part"))
    edited = SettingsFile(path, TableSettings(("Ann", "Eve"), {}, config.colours))
    assert edited.load() is None and "the config wins" in (edited.problem or "")


def test_a_damaged_settings_file_is_ignored_and_said(tmp_path: Path) -> None:
    path = tmp_path / "events.settings.json"
    base = TableSettings(("Ann", "Bob"), {})
    path.write_text("{half")
    kept = SettingsFile(path, base)
    assert kept.load() is None and "cannot read" in (kept.problem or "")
    path.write_text(json.dumps({"base": {"players": ["Ann", "Bob"], "rules": {}, "colours": []},
                                "chosen": {"players": ["Solo"], "rules": {}}}))
    assert kept.load() is None and "players must be a list of 2 to 4" in (kept.problem or "")
    kept.save(TableSettings(("Ann", "Bob", "Cat"), {}))
    assert kept.load(tracks=2) is None  # the board lost a track since
    assert "3 sides need 3 peg tracks" in (kept.problem or "")


def test_which_host_names_are_local() -> None:
    for host in ("192.168.1.5:8080", "[fe80::1]:8080", "localhost:8080", "cribbage",
                 "raspberrypi.local", "RaspberryPi.Local.", "board.home.arpa:80", "10.0.0.2"):
        assert is_local_name(host), host
    for host in ("evil.example.com", "evil.example.com:8080", "1.2.3.4.nip.io", ""):
        assert not is_local_name(host), host
