"""The project's errata to the shared datasets' labels: applied by load_labels, bad ones refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.cards import Card
from vision.measure.datasets import load_labels
from vision.measure.errata import ERRATA_PATH, read_errata


def _dataset(root: Path, name: str = "tablecloth") -> Path:
    folder = root / name
    folder.mkdir()
    (folder / "labels.json").write_text(json.dumps({"images": [
        {"file": "a.jpg", "cards": ["QD", "KH"]},
        {"file": "b.jpg", "cards": ["2C"]},
    ]}))
    return folder


def _errata(root: Path, *entries: object) -> Path:
    path = root / "errata.json"
    path.write_text(json.dumps({"errata": list(entries)}))
    return path


GOOD = {"dataset": "tablecloth", "file": "a.jpg", "add": ["JS"], "remove": ["KH"],
        "reason": "bottom left: a jack of spades shows; the king is the next photo's"}


def test_load_labels_applies_errata_and_says_which(tmp_path: Path) -> None:
    folder = _dataset(tmp_path)
    a, b = load_labels(folder, errata=_errata(tmp_path, GOOD))
    assert a.cards == {Card.parse("QD"), Card.parse("JS")}
    assert a.erratum is not None and a.erratum.reason.startswith("bottom left")
    assert b.cards == {Card.parse("2C")} and b.erratum is None
    plain = load_labels(folder, errata=None)
    assert plain[0].cards == {Card.parse("QD"), Card.parse("KH")}


def test_errata_of_another_dataset_change_nothing(tmp_path: Path) -> None:
    folder = _dataset(tmp_path, "felt")
    (a, _) = load_labels(folder, errata=_errata(tmp_path, GOOD))
    assert a.erratum is None and a.cards == {Card.parse("QD"), Card.parse("KH")}


@pytest.mark.parametrize(("change", "says"), [
    ({"add": ["1X"]}, "1X"),
    ({"reason": ""}, "'reason'"),
    ({"add": [], "remove": []}, "adds and removes no card"),
    ({"add": ["KH"], "remove": ["KH"]}, "both adds and removes"),
    ({"adds": ["JS"]}, "unknown keys"),
    ({"file": "nowhere.jpg"}, "names no such photo"),
    ({"add": ["QD"], "remove": []}, "already say"),
    ({"add": ["JS"], "remove": ["AS"]}, "already say"),
])
def test_bad_erratum_refused_naming_it(tmp_path: Path, change: dict[str, object],
                                        says: str) -> None:
    folder = _dataset(tmp_path)
    path = _errata(tmp_path, {**GOOD, **change})
    with pytest.raises(ValueError, match=says) as caught:
        load_labels(folder, errata=path)
    assert "tablecloth" in str(caught.value)


def test_two_errata_for_one_photo_refused(tmp_path: Path) -> None:
    path = _errata(tmp_path, GOOD, {**GOOD, "add": ["10S"], "remove": []})
    with pytest.raises(ValueError, match="two errata for 'tablecloth' 'a.jpg'"):
        read_errata(path)


def test_the_project_errata_read() -> None:
    errata = read_errata(ERRATA_PATH)
    assert errata and all(e.reason and (e.add or e.remove) for e in errata)
