"""Progress of a long command on stderr, so ``--json`` stdout stays one JSON object.

On a terminal one line is rewritten in place; into a file or a pipe (a log,
a CI job) a line is written every tenth of the way, so the log shows it moving
without a line per image.
"""

from __future__ import annotations

import sys
from typing import TextIO

__all__ = ["Progress"]


class Progress:
    """``progress(done, total, what)``: ``label: done/total what``. Call ``done()`` at the end."""

    def __init__(self, label: str, *, stream: TextIO | None = None) -> None:
        self.label = label
        self.stream = sys.stderr if stream is None else stream
        self._live = self.stream.isatty()
        self._last_tenth = -1
        self._width = 0

    def __call__(self, done: int, total: int, what: str = "") -> None:
        text = f"{self.label}: {done}/{total}" + (f" {what}" if what else "")
        if self._live:
            self.stream.write("\r" + text.ljust(self._width))
            self._width = max(self._width, len(text))
        else:
            tenth = 10 * done // total if total else 10
            if tenth == self._last_tenth:
                return
            self._last_tenth = tenth
            self.stream.write(text + "\n")
        self.stream.flush()

    def done(self) -> None:
        """Ends the live line, so what follows starts on its own."""
        if self._live and self._width:
            self.stream.write("\n")
            self.stream.flush()
            self._width = 0
