"""Scores the recogniser on a labelled directory: the ``vision eval`` JSON of CONTRACT.md.

Labels are sets of cards per image (a card shown by two corners is one card);
unknown detections are not cards found. Only this module reads the labels;
the recogniser sees pixels alone. The images are photos, read by ``recognise_photo``
(which also reads them widened back from a square), unless their pixels are said
to be square, as the device camera's are.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from vision.measure.datasets import Split, load_labels
from vision.recognise.classifier import ScoreAdjuster
from vision.recognise.detection import DEFAULT_MIN_CONFIDENCE
from vision.recognise.imagefile import read_image
from vision.recognise.photo import PHOTO_ASPECTS, recognise_photo

__all__ = ["evaluate"]


def _card_key(text: str) -> tuple[int, str]:
    from engine.cards import Card

    card = Card.parse(text)
    return (int(card.rank), card.suit.letter)


def evaluate(
    directory: Path, *, split: Split = "all", min_confidence: float = DEFAULT_MIN_CONFIDENCE,
    deck: ScoreAdjuster | None = None, square_pixels: bool = False,
    progress: Callable[[int, int, str], None] | None = None,
) -> dict[str, Any]:
    """Reads every labelled image and returns the CONTRACT.md eval object.

    ``deck``: a taught deck (``vision.recognise.deck``), to measure what teaching a set's deck buys.
    ``square_pixels``: read each image once, as the device reads its camera's frames.
    ``progress(done, total, file)`` is called after each image (a minute here, several on a Pi).
    """
    aspects = () if square_pixels else PHOTO_ASPECTS
    directory = Path(directory)
    labelled = load_labels(directory, split=split)
    per_image: list[dict[str, Any]] = []
    times: list[float] = []
    n_labelled = n_found = n_right = n_exact = 0
    for done, item in enumerate(labelled, start=1):
        image = read_image(item.path)
        start = time.perf_counter()
        detections = recognise_photo(image, min_confidence=min_confidence, deck=deck,
                                     aspects=aspects)
        times.append((time.perf_counter() - start) * 1000.0)
        found = {d.card for d in detections if d.card is not None}
        expected = sorted((str(c) for c in item.cards), key=_card_key)
        got = sorted((str(c) for c in found), key=_card_key)
        n_labelled += len(item.cards)
        n_found += len(found)
        n_right += len(found & item.cards)
        n_exact += found == item.cards
        per_image.append({"file": item.path.name, "expected": expected, "found": got})
        if progress is not None:
            progress(done, len(labelled), item.path.name)
    n = len(labelled)
    return {
        "images": n,
        "cards_labelled": n_labelled,
        "cards_found": n_found,
        "card_precision": round(n_right / n_found, 4) if n_found else 1.0,
        "card_recall": round(n_right / n_labelled, 4) if n_labelled else 1.0,
        "images_exact": round(n_exact / n, 4) if n else 0.0,
        "ms_per_image_median": round(statistics.median(times), 1) if times else 0.0,
        "per_image": per_image,
    }
