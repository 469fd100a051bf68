"""The project's own corrections to the shared datasets' labels (``errata.json`` here).

The shared datasets are read-only, and a few of their photos show cards their labels leave
out (a queen of clubs at a photo's edge, a jack under a fan): a recogniser that reads them is
counted wrong, and a measure of "never a wrong card" is only as good as its labels. Each
erratum names its dataset (the folder's name), its photo, the cards it adds and removes, and
why, in a line someone can check by looking at the photo. ``load_labels`` applies them and
says on each photo which it applied, so a benchmark can say how many it counted.

A bad erratum is refused, naming it: an unknown card, a card added that the labels already
hold or removed that they lack (the dataset was fixed: the erratum is stale), a photo the
labels do not name, or no reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.cards import Card
from engine.jsontext import JsonTextError, loads

__all__ = ["ERRATA_PATH", "Erratum", "read_errata", "apply_errata", "json_list"]

ERRATA_PATH = Path(__file__).resolve().parent / "errata.json"


@dataclass(frozen=True, slots=True)
class Erratum:
    """One photo's correction: cards to add to its labels and to remove, and why."""

    dataset: str
    file: str
    add: frozenset[Card]
    remove: frozenset[Card]
    reason: str


def _cards(where: str, entry: dict[str, object], key: str) -> frozenset[Card]:
    tokens = entry.get(key, [])
    if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
        raise ValueError(f"{where}: {key!r} must be a list of card names, not {tokens!r}")
    try:
        return frozenset(Card.parse(t) for t in tokens)
    except ValueError as exc:
        raise ValueError(f"{where}: {key!r}: {exc}") from None


def _erratum(path: Path, number: int, entry: object) -> Erratum:
    where = f"{path}: erratum {number}"
    if not isinstance(entry, dict):
        raise ValueError(f"{where}: expected an object, not {entry!r}")
    where = f"{where} ({entry.get('dataset')!r} {entry.get('file')!r})"
    text = {k: entry.get(k) for k in ("dataset", "file", "reason")}
    for key, value in text.items():
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"{where}: needs a non-empty {key!r}, not {value!r}")
    unknown = set(entry) - {"dataset", "file", "reason", "add", "remove"}
    if unknown:
        raise ValueError(f"{where}: unknown keys {sorted(unknown)}")
    add, remove = _cards(where, entry, "add"), _cards(where, entry, "remove")
    if not add and not remove:
        raise ValueError(f"{where}: adds and removes no card")
    if add & remove:
        raise ValueError(f"{where}: both adds and removes {sorted(str(c) for c in add & remove)}")
    return Erratum(str(text["dataset"]), str(text["file"]), add, remove, str(text["reason"]))


def json_list(path: Path, key: str) -> list[Any]:
    """The ``key`` list of the JSON object in ``path`` (a labels or an errata file); bad JSON
    or another shape is a ``ValueError`` naming the file."""
    try:
        data = loads(path.read_text(encoding="utf-8"))
    except JsonTextError as exc:
        raise ValueError(f"{path}: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get(key), list):
        raise ValueError(f"{path}: expected an object with an {key!r} list")
    return list(data[key])


def read_errata(path: Path = ERRATA_PATH) -> tuple[Erratum, ...]:
    """Reads an errata file (``{"errata": [...]}``); a missing file is no errata."""
    if not path.is_file():
        return ()
    out = tuple(_erratum(path, i, e) for i, e in enumerate(json_list(path, "errata"), start=1))
    seen: set[tuple[str, str]] = set()
    for e in out:
        if (e.dataset, e.file) in seen:
            raise ValueError(f"{path}: two errata for {e.dataset!r} {e.file!r}: make them one")
        seen.add((e.dataset, e.file))
    return out


def apply_errata(dataset: str, labels: dict[str, frozenset[Card]],
                 errata: tuple[Erratum, ...]) -> dict[str, tuple[frozenset[Card], Erratum]]:
    """The corrected card sets of ``dataset``'s photos (``labels``: file -> cards), each with
    the erratum that corrected it; an erratum that no longer fits its labels is refused."""
    out: dict[str, tuple[frozenset[Card], Erratum]] = {}
    for e in errata:
        if e.dataset != dataset:
            continue
        where = f"erratum for {e.dataset!r} {e.file!r}"
        if e.file not in labels:
            raise ValueError(f"{where}: the dataset's labels.json names no such photo")
        cards = labels[e.file]
        stale = sorted(str(c) for c in (e.add & cards) | (e.remove - cards))
        if stale:
            raise ValueError(f"{where}: the labels already say {stale} (fixed upstream? "
                             f"drop it from the errata)")
        out[e.file] = ((cards | e.add) - e.remove, e)
    return out
