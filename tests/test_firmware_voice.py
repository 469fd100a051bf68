"""Spoken counts (firmware/device/voice.py): one sentence at a time, never raising into the loop."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from firmware.device.config import VoiceConfig
from firmware.device.voice import Voice, VoiceUnavailableError, _popen


class FakeProcess:
    def __init__(self) -> None:
        self.done = False
        self.killed = False

    def poll(self) -> int | None:
        return 0 if self.done else None

    def kill(self) -> None:
        self.killed = True


class FakeRunner:
    def __init__(self, fail: bool = False) -> None:
        self.commands: list[list[str]] = []
        self.processes: list[FakeProcess] = []
        self.fail = fail

    def __call__(self, command: Sequence[str]) -> FakeProcess:
        if self.fail:
            raise OSError("exec format error")
        self.commands.append(list(command))
        self.processes.append(FakeProcess())
        return self.processes[-1]


def found(name: str) -> str | None:
    return f"/usr/bin/{name}"


def test_off_by_default_and_silent() -> None:
    runner = FakeRunner()
    voice = Voice(runner=runner, which=found)
    assert not voice.say("fifteen two") and runner.commands == []
    assert voice.describe() == "voice: off ([voice] enabled = false)"


def test_speaks_one_sentence_at_a_time_in_order() -> None:
    runner = FakeRunner()
    voice = Voice.from_config(VoiceConfig(enabled=True, words_per_minute=200), runner=runner,
                              which=found)
    assert voice.say("Bob: fifteen two")
    voice.say("Ann's hand:   a pair is two")
    assert runner.commands == [["/usr/bin/espeak-ng", "-v", "en", "-s", "200",
                                "Bob: fifteen two"]]
    voice.pump()
    assert len(runner.commands) == 1  # still speaking: not waited for, not interrupted
    runner.processes[0].done = True
    voice.pump()
    assert runner.commands[1][-1] == "Ann's hand: a pair is two"


def test_a_backlog_drops_the_oldest_counts() -> None:
    runner = FakeRunner()
    voice = Voice(enabled=True, runner=runner, which=found, backlog=2)
    for n in range(5):
        voice.say(f"count {n}")
    runner.processes[0].done = True
    voice.pump()
    assert [c[-1] for c in runner.commands] == ["count 0", "count 3"]


def test_a_failing_program_silences_the_voice_instead_of_raising() -> None:
    voice = Voice(enabled=True, runner=FakeRunner(fail=True), which=found)
    voice.say("fifteen two")
    assert voice.problem is not None and "exec format error" in voice.problem
    assert not voice.say("fifteen four")


def test_enabled_without_espeak_is_a_named_error_for_run() -> None:
    voice = Voice(enabled=True, which=lambda name: None)
    assert "not installed" in voice.describe()
    with pytest.raises(VoiceUnavailableError, match="'espeak-ng' is not installed"):
        voice.check()


def test_close_stops_speaking() -> None:
    runner = FakeRunner()
    voice = Voice(enabled=True, runner=runner, which=found)
    voice.say("go")
    voice.close()
    assert runner.processes[0].killed


def test_espeak_errors_are_logged_not_discarded(tmp_path: Path,
                                                caplog: pytest.LogCaptureFixture) -> None:
    program = tmp_path / "espeak-ng"
    program.write_text("#!/bin/sh\necho 'ALSA lib pcm.c: cannot open device /dev/snd/pcmC0D0p: "
                       "Permission denied' >&2\nexit 1\n")
    program.chmod(0o755)
    started: list[Any] = []

    def runner(command: Sequence[str]) -> Any:
        started.append(_popen(command))
        return started[-1]

    voice = Voice(enabled=True, runner=runner, which=lambda name: str(program))
    caplog.set_level(logging.INFO, logger="firmware")
    assert voice.say("fifteen two")
    assert started[0].wait(timeout=30) == 1
    voice.pump()
    assert [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING] == [
        "voice: 'espeak-ng' exited with status 1: ALSA lib pcm.c: cannot open device "
        "/dev/snd/pcmC0D0p: Permission denied"]
