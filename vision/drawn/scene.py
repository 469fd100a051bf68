"""Camera frames of a scripted cribbage deal, with ground truth, for tests and benchmarks.

Nobody can photograph thousands of deals with the answer written beside each
frame, so the end-to-end tests film a table that is drawn: a wood or cloth
table under a lamp, seen by a camera a little off top-down, cards from
``vision.drawn.cardart`` laid where people lay them, hands reaching in as a card is
laid, drifting light, blur, noise and glare. Each frame comes with the truth
(every card's zone, face and outline in frame pixels) and the zones as
``TableZones``, so recognition and tracking can be scored exactly.

Table customs drawn here (one choice where tables differ):

* The deck lies face down in the starter area with the starter face up on it;
  the crib lies face down in its own area until it is counted.
* Each player lays pegging cards in front of themselves, overlapping like a
  fan, each card facing its player. When a count ends (31, or a go that
  nobody can answer) the cards of that count are turned face down where they
  lie, as many players do to keep the current count readable; the tracker
  reports them as removed.
* After the play everyone gathers their cards; in counting order each player
  spreads their hand face up in their area, and they stay there; then the
  dealer spreads the crib face up in the crib area.

Everything random comes from the ``rng`` given: the same seed draws the same
frames, and any frame can be drawn on its own (its randomness is keyed by its
index), so a benchmark and a test agree on frame 37.

The scene is cut by job: ``scene_layout`` (where the seats and areas lie), ``scene_placement``
(the script: which card lies where, step by step) and ``scene_render`` (drawing the frames
and their truth). This module gathers them under one name and writes and reads sequences.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from engine.cards import Card
from vision.drawn.scene_layout import SceneError, Seat, TableLayout
from vision.drawn.scene_placement import Placed, Script, Step
from vision.drawn.scene_render import (
    SceneFrame,
    SceneRenderer,
    SceneSettings,
    TruthCard,
    corners_of,
)
from vision.live.zones import CRIB, STARTER, TableZones, default_markers

__all__ = [
    "SceneError", "Placed", "Step", "Seat", "TableLayout", "Script", "SceneSettings",
    "TruthCard", "SceneFrame", "SceneRenderer", "write_sequence", "read_truth",
    "default_markers", "STARTER", "CRIB",
]


# -- files -----------------------------------------------------------------------------------


def write_sequence(folder: str | Path, script: Script, *, rng: np.random.Generator,
                   settings: SceneSettings | None = None, image_format: str = "jpg",
                   frames: Sequence[int] | None = None) -> Path:
    """Writes ``frame_00000.jpg``... and ``truth.json`` for ``vision.live.sources.ReplaySource``.

    ``frames`` picks which frame numbers to write (all by default); files are
    numbered consecutively either way, and ``truth.json`` names each file's source frame.
    """
    if image_format not in ("jpg", "png"):
        raise SceneError(f"image_format must be jpg or png, not {image_format!r}")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    renderer = SceneRenderer(script, rng=rng, settings=settings)
    chosen = list(range(renderer.frame_count)) if frames is None else list(frames)
    params = [cv2.IMWRITE_JPEG_QUALITY, 92] if image_format == "jpg" else []
    records = []
    for n, index in enumerate(chosen):
        frame = renderer.render(index)
        name = f"frame_{n:05d}.{image_format}"
        if not cv2.imwrite(str(folder / name), frame.image, params):
            raise OSError(f"could not write {folder / name}")
        records.append({"file": name, "frame": index, "step": frame.step, "label": frame.label,
                        "cards": [_truth_json(t) for t in frame.truth]})
    document = {
        "size": list(renderer.size), "players": list(script.players),
        "frames_per_step": renderer.settings.frames_per_step,
        "zones": renderer.zones.to_config(), "frames": records,
    }
    (folder / "truth.json").write_text(json.dumps(document, indent=1))
    return folder / "truth.json"


def _truth_json(t: TruthCard) -> dict[str, Any]:
    return {"card": str(t.card), "zone": t.zone, "face_up": t.face_up,
            "corners": [list(p) for p in t.corners], "visible": t.visible}


def read_truth(folder: str | Path) -> dict[str, Any]:
    """Reads ``truth.json`` back, with cards as ``Card`` and zones as ``TableZones``."""
    document: dict[str, Any] = json.loads((Path(folder) / "truth.json").read_text())
    document["zones"] = TableZones.from_config(document["zones"])
    for record in document["frames"]:
        record["cards"] = [TruthCard(Card.parse(c["card"]), c["zone"], c["face_up"],
                                     corners_of(np.array(c["corners"])), c["visible"])
                           for c in record["cards"]]
    return document
