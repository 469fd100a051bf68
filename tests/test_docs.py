"""The docs (README.md and docs/*.md) hold to the code: every ``cribbage-board ...`` command
they show parses with the real CLI, every link and every repository path they name
resolves, the README stays a first screen, and the pictures are there and current
(issue 63)."""

from __future__ import annotations

import argparse
import importlib.util
import re
import shlex
import struct
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import cv2
import numpy as np
import pytest

from firmware.commands.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
# The docs by reader (docs/interfaces/ is the interfaces' own folder, written alongside).
PAGES = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
READERS = ("playing", "building", "installing", "camera", "club", "engine", "measured")

FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
SPAN = re.compile(r"`([^`\n]+)`")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)|<img [^>]*src=\"([^\"]+)\"")
REPO_PATH = re.compile(r"^[\w.-]+(/[\w.*-]+)+\.(py|md|svg|sh|toml|txt|service|jsonl|rules)$")


def page_id(page: Path) -> str:
    return str(page.relative_to(ROOT))


def commands(text: str) -> list[str]:
    """Every ``cribbage-board ...`` command the text shows: in code spans and in code blocks,
    one a line (a ``\\|`` in a table cell is a ``|``)."""
    found: list[str] = []
    blocks = FENCE.findall(text)
    for block in blocks:
        found += [line.strip() for line in block.splitlines()
                  if line.strip().startswith("cribbage-board ")]
    outside = FENCE.sub("", text)
    found += [span.replace("\\|", "|").strip() for span in SPAN.findall(outside)
              if span.startswith("cribbage-board ")]
    return [re.sub(r"\s+#.*$", "", c) for c in found]


def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def resolve(argv: list[str]) -> tuple[argparse.ArgumentParser, list[str], list[str]]:
    """The parser of the (sub)command ``argv`` names, the command's words, and the rest."""
    parser, words = build_parser(), []
    rest = list(argv)
    while rest and rest[0] in subparsers(parser):
        words.append(rest[0])
        parser = subparsers(parser)[rest.pop(0)]
    return parser, words, rest


SHOWN = sorted({(page_id(p), c) for p in PAGES for c in commands(p.read_text())})
# A usage line (``[--json]``, ``(--dealer | --pone)``, ``PHOTO...``) is checked option by
# option; a command as one would type it is parsed whole.
USAGE = re.compile(r"[\[\]()|]|\.\.\.|…|\b[A-Z]{1,5}\b(?![.\w])")


def test_the_docs_show_commands() -> None:
    assert len(SHOWN) > 40
    assert {page for page, _ in SHOWN} >= {"README.md", "docs/commands.md", "docs/playing.md"}


@pytest.mark.parametrize(("page", "command"), SHOWN)
def test_every_command_the_docs_show_parses(page: str, command: str) -> None:
    argv = shlex.split(command)[1:]
    parser, words, rest = resolve(argv)
    assert parser.prog.endswith(" ".join(["cribbage-board", *words])), command
    options = parser._option_string_actions
    for token in rest:
        option = re.sub(r"[\]\[()]", "", token).split("=")[0]
        if option.startswith("-") and option != "-" and not re.fullmatch(r"-\d+", option):
            assert option in options, f"{page}: `{command}`: {option} is no option of " \
                                      f"`cribbage-board {' '.join(words)}`"
    if USAGE.search(" ".join(rest)) is None and not {"-h", "--help", "--version"} & set(rest):
        try:
            parser.parse_args(rest)
        except SystemExit as exc:
            pytest.fail(f"{page}: `{command}` does not parse (exit {exc.code})")


# The console script as this interpreter runs it (the test's own virtualenv).
CLI = "import sys; from firmware.commands.cli import main; sys.exit(main())"


def test_every_subcommand_the_docs_name_has_its_help() -> None:
    named = {tuple(resolve(shlex.split(c)[1:])[1]) for _, c in SHOWN}
    for words in sorted(named):
        done = subprocess.run([sys.executable, "-c", CLI, *words, "--help"], cwd=ROOT,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0 and "usage:" in done.stdout, (words, done.stderr)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text())
    return {slug(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", text, re.M)}


LINKS = sorted({(page_id(p), a or b) for p in PAGES
                for a, b in LINK.findall(FENCE.sub("", p.read_text()))})


@pytest.mark.parametrize(("page", "target"), LINKS)
def test_every_link_resolves(page: str, target: str) -> None:
    if re.match(r"[a-z]+:", target):
        return  # the web: not checked here
    path, _, anchor = target.partition("#")
    found = (ROOT / page).parent / path if path else ROOT / page
    assert found.exists(), f"{page}: link to {target}: no {found.relative_to(ROOT)}"
    if anchor:
        assert found.suffix == ".md" and anchor in anchors(found), \
            f"{page}: link to {target}: no heading #{anchor}"


# The interface pages (docs/interfaces/) name files of other projects' sources, not ours.
PATHS = sorted({(page_id(p), span) for p in PAGES if p.parent.name != "interfaces"
                for span in SPAN.findall(p.read_text())
                if REPO_PATH.match(span.split()[0]) and "*" not in span})


@pytest.mark.parametrize(("page", "path"), PATHS)
def test_every_repository_file_the_docs_name_exists(page: str, path: str) -> None:
    assert (ROOT / path.split()[0]).exists(), f"{page} names {path}"


def test_the_readme_is_a_first_screen_that_links_every_reader_on() -> None:
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 150
    assert re.search(r"\b20\d\d-\d\d-\d\d\b", text) is None, "a dated diary entry"
    blocks = FENCE.findall(text)
    assert blocks[0].strip() == ("python3 -m venv .venv && .venv/bin/pip install -e . && "
                                 ".venv/bin/cribbage-board demo --out demo")
    assert blocks[1].strip() == ("python3 -m venv .venv && .venv/bin/pip install -e '.[test]'"
                                 " && .venv/bin/pytest")
    assert ".venv/bin/pytest" in (ROOT / ".ci" / "run").read_text()
    for reader in READERS:
        assert f"(docs/{reader}.md)" in text, reader
        assert (DOCS / f"{reader}.md").exists()
    assert "docs/pictures/board.png" in text and "docs/pictures/eye.png" in text


def test_the_measured_page_holds_todays_figures_only() -> None:
    text = (DOCS / "measured.md").read_text()
    assert re.search(r"\b20\d\d-\d\d-\d\d\b", text) is None, "dates belong in git history"
    rows = [line for line in text.splitlines() if line.startswith("| ") and "---" not in line]
    assert all(line.count(" | ") == 3 for line in rows), \
        "one row a target: target | today | command | machine"
    assert any("benchmarks/device/rss.py" in line and "150 MB" in line for line in rows)


# -- the pictures ----------------------------------------------------------------------------


def make_pictures() -> ModuleType:
    """docs/make_pictures.py, loaded as a module (docs/ is no package)."""
    spec = importlib.util.spec_from_file_location("make_pictures", DOCS / "make_pictures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path.name} is no PNG"
    width, height = struct.unpack(">II", head[16:24])
    return width, height


def test_the_board_picture_is_the_one_the_simulator_draws_today(tmp_path: Path) -> None:
    board = make_pictures().board
    kept = cv2.imread(str(DOCS / "pictures" / "board.png"))
    fresh = cv2.imread(str(board(tmp_path / "board.png")))
    assert kept is not None and fresh is not None and kept.shape == fresh.shape, \
        "run: .venv/bin/python docs/make_pictures.py board"
    if int(cv2.__version__.split(".")[0]) < 5:
        return  # OpenCV 4 draws the picture's words as other strokes (1.5-1.8 % of the pixels
        # in tests/test_hardware_strips_simulator.py); the picture is made under OpenCV 5
    off = np.count_nonzero(np.abs(kept.astype(np.int16) - fresh).max(axis=2) > 8)
    assert off / (kept.shape[0] * kept.shape[1]) < 0.002, \
        "the board picture is stale: run .venv/bin/python docs/make_pictures.py board"


def test_the_template_sheet_is_the_one_the_template_writes_today(tmp_path: Path) -> None:
    template = make_pictures().template
    fresh = template(tmp_path / "template-p1.svg").read_text()
    assert (DOCS / "pictures" / "template-p1.svg").read_text() == fresh, \
        "the template's sheet is stale: run .venv/bin/python docs/make_pictures.py template"


def test_the_camera_eye_screenshot_is_a_phone_screen() -> None:
    assert png_size(DOCS / "pictures" / "eye.png") == (390, 844)
