"""The dev/test split and the labels reader."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.cards import Card
from vision.measure.datasets import (
    TEST_PERCENT,
    datasets_root,
    held_out_names,
    in_validation_fold,
    load_labels,
    split_of,
)


def test_split_is_by_file_name_alone_and_stable() -> None:
    names = [f"img_{i}.jpg" for i in range(22)]
    assert split_of("img_3.jpg", names) == split_of("/elsewhere/img_3.jpg", names)
    test = held_out_names(names)
    assert len(test) == 7 == -(-22 * TEST_PERCENT // 100)
    assert test == held_out_names(list(reversed(names)))


def test_load_labels_reads_sets_and_boxes(tmp_path: Path) -> None:
    (tmp_path / "labels.json").write_text(
        json.dumps(
            {
                "images": [
                    {
                        "file": "a.jpg",
                        "cards": ["QH", "10s"],
                        "corner_boxes": [{"card": "QH", "box": [1, 2, 3, 4]}],
                    },
                ]
            }
        )
    )
    (item,) = load_labels(tmp_path)
    assert item.cards == {Card.parse("QH"), Card.parse("10S")}
    assert item.corner_boxes == ((Card.parse("QH"), (1.0, 2.0, 3.0, 4.0)),)
    assert item.path == tmp_path / "a.jpg"


def test_load_labels_rejects_bad_card_naming_it(tmp_path: Path) -> None:
    (tmp_path / "labels.json").write_text(
        json.dumps({"images": [{"file": "a.jpg", "cards": ["1X"]}]})
    )
    with pytest.raises(ValueError, match="1X"):
        load_labels(tmp_path)


def test_load_labels_rejects_bad_json(tmp_path: Path) -> None:
    (tmp_path / "labels.json").write_text("{nope")
    with pytest.raises(ValueError, match="not valid JSON"):
        load_labels(tmp_path)


def test_split_filters_images(tmp_path: Path) -> None:
    names = [f"p{i}.jpg" for i in range(40)]
    (tmp_path / "labels.json").write_text(
        json.dumps({"images": [{"file": n, "cards": ["AS"]} for n in names]})
    )
    test = {i.path.name for i in load_labels(tmp_path, split="test")}
    dev = {i.path.name for i in load_labels(tmp_path, split="dev")}
    assert test.isdisjoint(dev) and test | dev == set(names)


def test_dev_is_cut_into_fit_and_a_validation_fold_by_name_alone(tmp_path: Path) -> None:
    names = [f"p{i}.jpg" for i in range(400)]
    (tmp_path / "labels.json").write_text(
        json.dumps({"images": [{"file": n, "cards": ["AS"]} for n in names]})
    )
    part = {split: {i.path.name for i in load_labels(tmp_path, split=split)}
            for split in ("dev", "test", "fit", "val")}
    assert part["fit"].isdisjoint(part["val"]) and part["fit"] | part["val"] == part["dev"]
    assert part["val"].isdisjoint(part["test"])
    assert 0.18 < len(part["val"]) / len(part["dev"]) < 0.32  # about a quarter of dev
    assert all(in_validation_fold(n) == in_validation_fold(f"/elsewhere/{n}") for n in names)
    assert {n for n in part["dev"] if in_validation_fold(n)} == part["val"]


def test_datasets_root_honours_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CRIBBAGE_DATASETS", str(tmp_path))
    assert datasets_root() == tmp_path
    monkeypatch.setenv("CRIBBAGE_DATASETS", str(tmp_path / "missing"))
    assert datasets_root() is None


@pytest.mark.parametrize("labels, message", [
    ('{"images": [{"file": ' + "[" * 2000 + "]" * 2000 + ', "cards": []}]}',
     "nested more than 32 levels deep"),
    ('{"images": [{"file": 7, "cards": ["5H"]}]}', "every image entry needs a 'file'"),
    ('{"images": [{"file": ["a.jpg"], "cards": ["5H"]}]}', "every image entry needs a 'file'"),
    ('{"images": [{"file": "../../etc/passwd", "cards": ["5H"]}]}',
     "'file' must name a photo inside the folder, not '../../etc/passwd'"),
    ('{"images": [{"file": "/etc/passwd", "cards": ["5H"]}]}',
     "'file' must name a photo inside the folder, not '/etc/passwd'"),
    ('{"images": [{"file": "sub\\\\..\\\\..\\\\x.jpg", "cards": ["5H"]}]}',
     "'file' must name a photo inside the folder"),
])
def test_load_labels_refuses_entries_that_leave_the_folder_or_are_not_names(
        tmp_path: Path, labels: str, message: str) -> None:
    (tmp_path / "labels.json").write_text(labels)
    with pytest.raises(ValueError, match=message):
        load_labels(tmp_path)


def test_vision_eval_on_a_label_outside_the_folder_is_one_line(tmp_path: Path,
                                                                capsys) -> None:
    from firmware.commands.cli import main

    (tmp_path / "labels.json").write_text(
        '{"images": [{"file": "../../etc/passwd", "cards": ["5H"]}]}')
    assert main(["vision", "eval", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "must name a photo inside the folder" in err
