"""firmware/device/logs.py: journald priorities under systemd, plain lines elsewhere; the device's
trouble at warning, so ``journalctl -p warning`` shows it."""

from __future__ import annotations

import io
import logging
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from firmware.device.logs import is_journal, priority, setup


@pytest.fixture(autouse=True)
def clean_logger() -> Iterator[None]:
    yield
    logger = logging.getLogger("firmware")
    for handler in [h for h in logger.handlers if h.get_name() == "cribbage-board"]:
        logger.removeHandler(handler)
    logger.setLevel(logging.NOTSET)


def test_priorities_follow_syslog() -> None:
    assert [priority(level) for level in (logging.CRITICAL, logging.ERROR, logging.WARNING,
                                          logging.INFO, logging.DEBUG)] == [2, 3, 4, 6, 7]


def test_under_the_journal_every_line_carries_its_priority() -> None:
    stream = io.StringIO()
    setup(stream=stream, journal=True)
    log = logging.getLogger("firmware.device.loop")
    log.info("fifteen two")
    log.warning("[notice] camera out of focus (blur 3.1 px): turn the lens\nsecond line")
    log.error("store: damaged")
    assert stream.getvalue().splitlines() == [
        "<6>fifteen two",
        "<4>[notice] camera out of focus (blur 3.1 px): turn the lens",
        "<4>second line",
        "<3>store: damaged",
    ]
    # What journalctl -p warning keeps: priority 4 and lower numbers.
    kept = [line for line in stream.getvalue().splitlines() if int(line[1]) <= 4]
    assert len(kept) == 3 and "fifteen two" not in " ".join(kept)


def test_on_a_terminal_lines_are_plain_and_warnings_say_so() -> None:
    stream = io.StringIO()
    setup(stream=stream, journal=False)
    logging.getLogger("firmware.run").info("LEDs: spi (244 LEDs, layout per_side)")
    logging.getLogger("firmware.run").warning("store: recovered 12 events")
    assert stream.getvalue().splitlines() == ["LEDs: spi (244 LEDs, layout per_side)",
                                              "warning: store: recovered 12 events"]


def test_journal_stream_is_believed_only_for_the_stream_it_names(tmp_path: Path) -> None:
    with open(tmp_path / "journal", "w") as stream:
        stat = os.fstat(stream.fileno())
        named = {"JOURNAL_STREAM": f"{stat.st_dev}:{stat.st_ino}"}
        assert is_journal(stream, named)
        assert not is_journal(stream, {})
        with open(tmp_path / "pipe", "w") as other:  # inherited by a pipe: not the journal
            assert not is_journal(other, named)
        assert not is_journal(io.StringIO(), named)
        assert not is_journal(stream, {"JOURNAL_STREAM": "garbage"})
        setup(stream=stream, environ=named)
        logging.getLogger("firmware.device.loop").warning("LED strip unavailable: gone")
    assert (tmp_path / "journal").read_text() == "<4>LED strip unavailable: gone\n"


def test_setup_twice_does_not_double_lines() -> None:
    stream = io.StringIO()
    setup(stream=stream, journal=False)
    setup(stream=stream, journal=False)
    logging.getLogger("firmware").info("once")
    assert stream.getvalue() == "once\n"
