"""The house's rooms and the imports allowed between them, held against the code.

Each room's ``__init__`` docstring says what it is for and what it may import; this is the
same table, so the picture stays true: a new arrow between rooms is a decision made here,
not an accident found later. Imports inside functions count too (the commands import
lazily). The engine's own purity (standard library only) is ``test_engine_purity.py``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: room -> the other rooms it may import. A module belongs to the longest room named here
#: that its dotted name starts with.
ALLOWED: dict[str, frozenset[str]] = {
    "engine": frozenset(),
    "hardware": frozenset({"engine"}),
    "vision.recognise": frozenset({"engine"}),
    "vision.live": frozenset({"engine", "vision.recognise"}),
    "vision.measure": frozenset({"engine", "vision.recognise"}),
    "vision.drawn": frozenset({"engine", "vision.recognise", "vision.live"}),
    "vision.training": frozenset({"engine", "vision.recognise", "vision.live", "vision.drawn",
                                  "vision.measure"}),
    "firmware.store": frozenset({"engine"}),
    "firmware.table": frozenset({"engine", "vision.live"}),
    "firmware.web": frozenset({"engine", "hardware", "vision.live", "firmware.store",
                                 "firmware.table"}),
    "firmware.club": frozenset({"engine", "firmware.store", "firmware.web"}),
    "firmware.device": frozenset({"engine", "hardware", "vision.recognise", "vision.live",
                                  "firmware.store", "firmware.table", "firmware.web",
                                  "firmware.club"}),
    "firmware.doctor": frozenset({"engine", "hardware", "vision.recognise", "vision.live",
                                  "firmware.device", "firmware.store"}),
    "firmware.demo": frozenset({"engine", "hardware", "vision.recognise", "vision.live",
                                "vision.drawn", "firmware.store", "firmware.table",
                                "firmware.web", "firmware.device"}),
    "firmware.commands": frozenset({"engine", "hardware", "vision.recognise", "vision.live",
                                    "vision.drawn", "vision.measure", "vision.training",
                                    "firmware.store", "firmware.table", "firmware.web",
                                    "firmware.club", "firmware.device", "firmware.doctor",
                                    "firmware.demo"}),
}
#: Package roots that hold only their rooms (and an ``__init__``), no loose modules.
PACKAGES = ("engine", "hardware", "vision", "firmware")


def room_of(module: str) -> str | None:
    rooms = [room for room in ALLOWED if module == room or module.startswith(room + ".")]
    return max(rooms, key=len) if rooms else None


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported(path: Path) -> Iterator[tuple[int, str]]:
    """(line, module) for every import of one of our packages, at any depth of the file."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        for name in names:
            if name.split(".")[0] in PACKAGES:
                yield node.lineno, name


def sources() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


def test_every_module_lives_in_a_room() -> None:
    loose = [module_name(p) for p in sources()
             if room_of(module_name(p)) is None and p.name != "__init__.py"]
    assert not loose, f"modules outside every room: {loose}"


@pytest.mark.parametrize("room", sorted(ALLOWED))
def test_room_imports_only_what_it_may(room: str) -> None:
    wrong = []
    for path in sources():
        if room_of(module_name(path)) != room:
            continue
        for line, name in imported(path):
            # "from firmware.device import logs" names a room's module, not a room attribute.
            target = room_of(name)
            if target is None:  # a package root itself ("import firmware.commands" is a room)
                continue
            if target != room and target not in ALLOWED[room]:
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {name} ({target})")
    assert not wrong, f"{room} may import only {sorted(ALLOWED[room])}:\n" + "\n".join(wrong)


@pytest.mark.parametrize("room", sorted(r for r in ALLOWED if "." in r))
def test_each_room_says_what_it_is_for(room: str) -> None:
    init = ROOT / room.replace(".", "/") / "__init__.py"
    doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
    assert doc and len(doc.split()) >= 20, f"{init.relative_to(ROOT)} needs its paragraph"
