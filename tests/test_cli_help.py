"""``cribbage-board --help``: what the program is, one line per command, examples, the version."""

from __future__ import annotations

import argparse
import re

import pytest

from firmware.commands.cli import build_parser, main


def test_top_level_help_describes_the_program_and_each_command(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "The ``cribbage-board`` console script" not in out
    assert "Keeps score for real cribbage games" in out
    for command in ("board", "calibrate", "demo", "history", "replay", "run", "score",
                    "vision"):
        assert re.search(rf"^    {command}\s", out, re.MULTILINE), command
    assert "examples:\n  cribbage-board demo " in out


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--version"])
    assert re.fullmatch(r"cribbage-board \d+\.\d+\.\d+\S*\n", capsys.readouterr().out)


def test_run_help_names_the_config_it_reads_by_default(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "Run the board: watch the table" in out
    assert "default: /etc/cribbage-board/config.toml if it exists" in out


def _helps(parser: argparse.ArgumentParser) -> list[str]:
    found = [parser.description or ""]
    for action in parser._actions:
        found.append(action.help or "")
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found += _helps(sub)
    return found


def test_no_help_text_names_an_internal_constant_or_module() -> None:
    for text in _helps(build_parser()):
        assert not re.search(r"(?<!\$)\b[A-Z]{2,}_[A-Z_]+\b", text), text
        assert not re.search(r"\b(engine|vision|hardware|firmware)\.[a-z_]+", text), text
