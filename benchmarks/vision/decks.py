"""The real decks a frame benchmark lays, chosen and dealt the same way by each of them.

``--theme`` names a Debian card theme (or part of its name, or ``all``) and
``--half`` the half of the themes (``facedecks.theme_half``): ``held-out``, the
default, holds decks no model trained with ``train.py`` has met.
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Iterator

import numpy as np

from vision.drawn.scene import SceneSettings, Script, TruthCard, read_truth, write_sequence
from vision.live.sources import ReplaySource
from vision.recognise.classifier import MODEL_PATH
from vision.training.facedecks import FaceDeck, FaceDeckError, face_decks_named


def add_deck_arguments(parser: argparse.ArgumentParser) -> None:
    """``--theme``, ``--half``, ``--seed`` (the deal), ``--model`` and ``--json``."""
    parser.add_argument("--theme", default="all", help="a theme's name (or part of it), or all")
    parser.add_argument("--half", choices=["train", "held-out", "both"], default="held-out")
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--model", default=str(MODEL_PATH), help="corner-index CNN to read with")
    parser.add_argument("--json", action="store_true")


def chosen_decks(args: argparse.Namespace) -> list[FaceDeck]:
    """The decks ``--theme`` and ``--half`` name; a name that matches none ends the run."""
    try:
        return face_decks_named(args.theme, half=None if args.half == "both" else args.half)
    except FaceDeckError as exc:
        raise SystemExit(str(exc)) from None


def deal_frames(deck: FaceDeck, seed: int, *, every: int
                ) -> Iterator[tuple[np.ndarray, list[TruthCard]]]:
    """Every ``every``-th frame of the seed's two-player deal laid with ``deck``, and the
    cards face up in it.

    The deal is written to a temporary folder and replayed through ``ReplaySource``,
    the path the device's replay and the demo read, which is part of what is measured.
    """
    script = Script.two_player_deal(seed)
    settings = SceneSettings(frames_per_step=4, hand_frames=1, faces=deck.face)
    with tempfile.TemporaryDirectory() as folder:
        write_sequence(folder, script, rng=np.random.default_rng(seed), settings=settings)
        truth = read_truth(folder)
        for frame in ReplaySource(folder):
            if frame.index % every == 0:
                yield frame.image, [c for c in truth["frames"][frame.index]["cards"]
                                    if c.face_up]
