"""Labelled card photos in the CONTRACT.md dataset format, and their dev/test split.

The split is by image and is decided by a hash of the file name alone, so it is
stable across machines and never depends on the labels. Recognition never sees
any of this: only the evaluation and the training scripts read labels.

Dev is further cut into ``fit`` and a validation fold ``val`` (about a quarter
of dev, again by a hash of the name). A model trained on dev reads dev's own
photos far better than new ones, so dev scores say little; a model trained on
``fit`` alone (``vision.training.train --fit-only``) measured on ``val`` is the
honest dev measure, and tuning on it keeps the test split untouched.
"""

from __future__ import annotations

import hashlib
import math
import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Literal

from engine.cards import Card
from vision.measure.errata import ERRATA_PATH, Erratum, apply_errata, json_list, read_errata

__all__ = [
    "LabelledImage",
    "Split",
    "TEST_PERCENT",
    "datasets_root",
    "load_labels",
    "split_of",
    "held_out_names",
    "in_validation_fold",
]

Split = Literal["dev", "test", "all", "fit", "val"]
TEST_PERCENT = 30
DATASETS_ENV = "CRIBBAGE_DATASETS"
# A dev image is in the validation fold when its salted name hash starts with one of these
# (4 of 16 hex digits: a quarter of dev). Salted so the fold does not follow the test ranking.
VALIDATION_SALT = "val:"
VALIDATION_DIGITS = "0123"


@dataclass(frozen=True, slots=True)
class LabelledImage:
    """One photo: its path, the set of face-up cards, and corner-index boxes where known;
    ``erratum`` the project's correction of its cards where one applied (``errata``)."""

    path: Path
    cards: frozenset[Card]
    corner_boxes: tuple[tuple[Card, tuple[float, float, float, float]], ...] = ()
    erratum: Erratum | None = None


def _hash(file_name: str) -> str:
    return hashlib.sha1(Path(file_name).name.encode("utf-8")).hexdigest()


def held_out_names(file_names: list[str]) -> frozenset[str]:
    """Returns the test part of one dataset: sort its base names by sha1 hex digest, take the
    first ``ceil(TEST_PERCENT % of n)``.

    Ranking (rather than thresholding each hash) gives every dataset, even a
    22-image one, its full share of test images.
    """
    names = sorted({Path(n).name for n in file_names}, key=lambda n: (_hash(n), n))
    k = math.ceil(len(names) * TEST_PERCENT / 100)
    return frozenset(names[:k])


def in_validation_fold(file_name: str) -> bool:
    """Whether a (dev) image belongs to the validation fold, by its base name alone."""
    digest = hashlib.sha1((VALIDATION_SALT + Path(file_name).name).encode("utf-8")).hexdigest()
    return digest[0] in VALIDATION_DIGITS


def _in_split(name: str, is_test: bool, split: Split) -> bool:
    if split == "all":
        return True
    if split == "test" or is_test:
        return split == "test" and is_test
    return split == "dev" or in_validation_fold(name) == (split == "val")


def split_of(file_name: str, dataset: list[str]) -> Literal["dev", "test"]:
    """Returns which part of ``dataset`` (all its file names) an image belongs to."""
    return "test" if Path(file_name).name in held_out_names(dataset) else "dev"


def datasets_root() -> Path | None:
    """Finds ``../shared/datasets`` beside the repository (or ``$CRIBBAGE_DATASETS``)."""
    env = os.environ.get(DATASETS_ENV)
    if env:
        path = Path(env)
        return path if path.is_dir() else None
    path = Path(__file__).resolve().parents[2].parent / "shared" / "datasets"
    return path if path.is_dir() else None


def _check_file(labels_path: Path, entry: object) -> None:
    """Each entry names a photo inside the folder: a relative path that stays there (no
    ``..`` out of it, no absolute path), so an eval reads only the dataset's own files."""
    name = entry.get("file") if isinstance(entry, dict) else None
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"{labels_path}: every image entry needs a 'file' naming a photo, "
                         f"not {str(entry)[:80]}")
    relative = PurePosixPath(name.replace("\\", "/"))
    if relative.is_absolute() or PureWindowsPath(name).drive or ".." in relative.parts:
        raise ValueError(f"{labels_path}: 'file' must name a photo inside the folder, "
                         f"not {name!r}")


def load_labels(directory: Path, *, split: Split = "all",
                errata: Path | None = ERRATA_PATH) -> list[LabelledImage]:
    """Reads ``DIR/labels.json``; a bad card token or a missing key is a ``ValueError``.

    The ``errata`` file's corrections for this dataset (the folder's name) are applied to
    the cards (``vision.measure.errata``; None applies none)."""
    labels_path = Path(directory) / "labels.json"
    images = json_list(labels_path, "images")
    out: list[LabelledImage] = []
    for entry in images:
        _check_file(labels_path, entry)
    test = held_out_names([entry["file"] for entry in images])
    labelled: dict[str, frozenset[Card]] = {}
    for entry in images:
        try:
            labelled[entry["file"]] = frozenset(Card.parse(c) for c in entry["cards"])
        except (KeyError, TypeError) as exc:
            raise ValueError(
                f"{labels_path}: image entry without 'file' and 'cards': {entry!r}"
            ) from exc
    corrected = apply_errata(Path(directory).name, labelled,
                             read_errata(errata) if errata is not None else ())
    for entry in images:
        name = entry["file"]
        cards, erratum = corrected.get(name, (labelled[name], None))
        if not _in_split(name, name in test, split):
            continue
        boxes = tuple(
            (Card.parse(b["card"]), tuple(float(v) for v in b["box"]))
            for b in entry.get("corner_boxes", ())
        )
        out.append(LabelledImage(Path(directory) / name, cards, boxes,  # type: ignore[arg-type]
                                 erratum))
    return out
