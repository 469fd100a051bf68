"""Spoken counts through espeak-ng: started, never waited for, never raising into the loop.

The loop must keep polling buttons every 30 ms, so speaking is a child
process the loop only looks at (``pump``) once per turn; one sentence at a
time, so counts do not talk over each other. A backlog of stale counts is
worse than silence, so the queue is short and drops the oldest. Off by
default: a laptop running the tests should not start talking.
"""

from __future__ import annotations

import logging
import shutil
import subprocess
import tempfile
from collections import deque
from collections.abc import Callable, Sequence
from typing import IO, Protocol

from firmware.device.config import VoiceConfig

__all__ = ["Voice", "VoiceUnavailableError", "Speaking", "Runner"]

log = logging.getLogger("firmware.device.voice")


class VoiceUnavailableError(OSError):
    """Voice is enabled in the config but its program cannot run here."""


class Speaking(Protocol):
    """What the voice needs of a started process (``subprocess.Popen`` fits)."""

    def poll(self) -> int | None: ...

    def kill(self) -> None: ...


Runner = Callable[[Sequence[str]], Speaking]


class _Process:
    """espeak-ng running, its error output kept in a file (a pipe nobody reads while it
    speaks could fill and stall it) so a failure is logged rather than lost."""

    def __init__(self, command: Sequence[str]) -> None:
        self._errors: IO[bytes] = tempfile.TemporaryFile()
        try:
            self._process = subprocess.Popen(list(command), stdin=subprocess.DEVNULL,
                                             stdout=subprocess.DEVNULL, stderr=self._errors)
        except BaseException:
            self._errors.close()
            raise

    def poll(self) -> int | None:
        return self._process.poll()

    def wait(self, timeout: float) -> int:
        """Waits for the sentence to end (tests; the loop only polls)."""
        return self._process.wait(timeout)

    def kill(self) -> None:
        self._process.kill()
        self._process.wait()
        self._errors.close()

    def errors(self) -> str:
        """What the program wrote on stderr, once it has ended."""
        self._errors.seek(0)
        text = self._errors.read().decode(errors="replace")
        self._errors.close()
        return " ".join(text.split())


def _popen(command: Sequence[str]) -> Speaking:
    return _Process(command)


class Voice:
    """Says sentences one after another with ``command`` (espeak-ng), or stays silent.

    ``runner`` starts a process (tests pass a fake); ``which`` finds the program.
    ``problem`` holds the last failure, for the status line: speaking is a
    nicety, so a failure silences the voice instead of stopping the game.
    """

    def __init__(self, *, enabled: bool = False, command: str = "espeak-ng", voice: str = "en",
                 words_per_minute: int = 160, runner: Runner | None = None,
                 which: Callable[[str], str | None] = shutil.which, backlog: int = 4) -> None:
        self.enabled = enabled
        self.command = command
        self.voice = voice
        self.words_per_minute = words_per_minute
        self.problem: str | None = None
        self._runner = runner or _popen
        self._program = which(command) if enabled else None
        self._queue: deque[str] = deque(maxlen=backlog)
        self._speaking: Speaking | None = None

    @classmethod
    def from_config(cls, config: VoiceConfig, *, runner: Runner | None = None,
                    which: Callable[[str], str | None] = shutil.which) -> Voice:
        return cls(enabled=config.enabled, command=config.command, voice=config.voice,
                   words_per_minute=config.words_per_minute, runner=runner, which=which)

    @classmethod
    def off(cls) -> Voice:
        return cls(enabled=False)

    @property
    def available(self) -> bool:
        return self.enabled and self._program is not None and self.problem is None

    def check(self) -> None:
        """Raises ``VoiceUnavailableError`` when enabled but the program is missing."""
        if self.enabled and self._program is None:
            raise VoiceUnavailableError(
                f"[voice] is enabled but {self.command!r} is not installed "
                "(apt install espeak-ng, or set [voice] enabled = false)")

    def describe(self) -> str:
        """One line for the start-up banner."""
        if not self.enabled:
            return "voice: off ([voice] enabled = false)"
        if self._program is None:
            return f"voice: unavailable ({self.command!r} not installed)"
        return f"voice: {self._program} ({self.voice}, {self.words_per_minute} wpm)"

    def say(self, text: str) -> bool:
        """Queues ``text``; True when it will be spoken. Starts speaking at once if idle."""
        if not self.available or not text.strip():
            return False
        self._queue.append(" ".join(text.split()))
        self.pump()
        return True

    def pump(self) -> None:
        """Starts the next sentence once the last one is done. Call it every loop turn."""
        if self._speaking is not None:
            try:
                code = self._speaking.poll()
            except OSError:
                code = None
            else:
                if code is None:
                    return
            self._told_errors(self._speaking, code)
            self._speaking = None
        if not self._queue or not self.available:
            return
        text = self._queue.popleft()
        command = [self._program or self.command, "-v", self.voice,
                   "-s", str(self.words_per_minute), text]
        try:
            self._speaking = self._runner(command)
        except (OSError, ValueError, subprocess.SubprocessError) as exc:
            self.problem = f"cannot run {self.command!r}: {exc}"
            log.warning(f"voice: {self.problem}")
            self._queue.clear()

    def _told_errors(self, done: Speaking, code: int | None) -> None:
        """Logs a sentence that failed (no sound card, the audio group missing) with what
        the program said on stderr."""
        errors = getattr(done, "errors", None)
        text = errors() if callable(errors) else ""
        if code:
            log.warning(f"voice: {self.command!r} exited with status {code}"
                        + (f": {text}" if text else ""))
        elif text:
            log.info(f"voice: {self.command!r} said: {text}")

    def close(self) -> None:
        """Stops speaking; what was queued is dropped."""
        self._queue.clear()
        if self._speaking is not None:
            try:
                self._speaking.kill()
            except OSError:
                pass
            self._speaking = None
