"""firmware.commands.progress: a long command's progress, one rewritten line on a terminal."""

from __future__ import annotations

import io

from firmware.commands.progress import Progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_file_gets_a_line_every_tenth_of_the_way() -> None:
    stream = io.StringIO()
    progress = Progress("vision eval", stream=stream)
    for done in range(1, 101):
        progress(done, 100, f"{done}.jpg")
    progress.done()
    lines = stream.getvalue().splitlines()
    assert lines[0] == "vision eval: 1/100 1.jpg" and lines[-1] == "vision eval: 100/100 100.jpg"
    assert len(lines) == 11


def test_a_terminal_gets_one_line_rewritten_in_place() -> None:
    stream = Terminal()
    progress = Progress("vision teach", stream=stream)
    progress(1, 2, "read hearts-long-name.jpg")
    progress(2, 2, "52 patches")
    progress.done()
    text = stream.getvalue()
    assert text.count("\n") == 1 and text.endswith("\n")
    first, second = text[1:-1].split("\r")
    assert first == "vision teach: 1/2 read hearts-long-name.jpg"
    assert second.rstrip() == "vision teach: 2/2 52 patches" and len(second) == len(first)
