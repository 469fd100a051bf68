"""The device's log lines, with levels the journal keeps.

Under systemd a unit's stdout is a stream to journald, which reads a ``<N>``
prefix on each line as that line's priority (sd-daemon(3)), so
``journalctl -u cribbage-board -p warning`` shows the device's trouble (camera
out of focus, store recovered, strip unavailable) without the play-by-play.
Elsewhere the lines are plain, as they always were. systemd says a stream is
the journal by ``JOURNAL_STREAM=device:inode``; the prefix is written only when
the stream really is that one, not merely inherited by a pipe.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import IO

__all__ = ["JournalFormatter", "priority", "is_journal", "setup", "detach", "attached", "LOGGER"]

#: The device program's logger; modules log under it (``firmware.device.loop``, ...).
LOGGER = "firmware"


def priority(level: int) -> int:
    """syslog's priority for a logging level: 3 err, 4 warning, 5 notice, 6 info, 7 debug."""
    if level >= logging.CRITICAL:
        return 2
    if level >= logging.ERROR:
        return 3
    if level >= logging.WARNING:
        return 4
    if level >= logging.INFO:
        return 6
    return 7


class JournalFormatter(logging.Formatter):
    """Prefixes every line of a record with its priority, continuation lines too."""

    def format(self, record: logging.LogRecord) -> str:
        prefix = f"<{priority(record.levelno)}>"
        return "\n".join(prefix + line for line in super().format(record).splitlines())


def is_journal(stream: IO[str], environ: Mapping[str, str] | None = None) -> bool:
    """True when ``stream`` is the journald stream systemd named in ``JOURNAL_STREAM``."""
    env = os.environ if environ is None else environ
    named = env.get("JOURNAL_STREAM", "")
    if not named:
        return False
    try:
        device, inode = (int(part) for part in named.split(":"))
        stat = os.fstat(stream.fileno())
    except (ValueError, OSError, AttributeError):
        return False
    return (stat.st_dev, stat.st_ino) == (device, inode)


class _Plain(logging.Formatter):
    """Info as the bare line; warnings and worse say so, since nothing else marks them."""

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        return line if record.levelno < logging.WARNING else \
            f"{record.levelname.lower()}: {line}"


class _Stdout(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stdout`` is at each line, as ``print`` did (pytest's capture
    swaps it per test)."""

    @property
    def stream(self) -> IO[str]:
        return sys.stdout

    @stream.setter
    def stream(self, value: IO[str]) -> None:
        pass


def setup(*, stream: IO[str] | None = None, environ: Mapping[str, str] | None = None,
          level: int = logging.INFO, journal: bool | None = None) -> logging.Handler:
    """Sends the device's log (``firmware`` and below) to ``stream`` (default: stdout).

    ``journal`` forces the prefixes on or off; None asks ``is_journal``. Calling it
    again replaces the handler, so repeated ``main()`` calls do not double every line.
    """
    on_journal = is_journal(sys.stdout if stream is None else stream, environ) \
        if journal is None else journal
    handler: logging.Handler = _Stdout() if stream is None else logging.StreamHandler(stream)
    handler.setFormatter(JournalFormatter("%(message)s") if on_journal
                         else _Plain("%(message)s"))
    handler.set_name("cribbage-board")
    logger = logging.getLogger(LOGGER)
    for old in [h for h in logger.handlers if h.get_name() == "cribbage-board"]:
        logger.removeHandler(old)
    logger.addHandler(handler)
    logger.setLevel(level)
    return handler


def detach(handler: logging.Handler) -> None:
    """Takes back what ``setup`` added, when a command ends (tests run many in one process)."""
    logger = logging.getLogger(LOGGER)
    logger.removeHandler(handler)
    if not any(h.get_name() == "cribbage-board" for h in logger.handlers):
        logger.setLevel(logging.NOTSET)


@contextmanager
def attached() -> Iterator[None]:
    """The device's log sent to stdout (``setup``) for the length of one command."""
    handler = setup()
    try:
        yield
    finally:
        detach(handler)
