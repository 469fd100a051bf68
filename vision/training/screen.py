"""Trains the index screen (``vision/recognise/screen.py``) and writes
``vision/recognise/models/index_screen.npz``.

Run after every new CNN, since the screen learns to pass what that CNN calls
an index::

    PYTHONPATH=. .venv/bin/python -m vision.training.screen

Data: every candidate the candidate stage cuts (unscreened) in the DEV photos
of both shared sets, at their own size and at 1280x720, in drawn deals
(``vision.drawn.scene``) and on tables of synthetic cards, plus synthetic indices
and clutter: decks we have no photo of must pass the screen too. With
``--face-scenes`` it adds deals laid with Debian's card themes
(``facedecks.py``), for a CNN trained on them. The current
CNN labels them: a patch it gives an index probability of at least
``vision.recognise.detection``'s live floor is one to pass. A one-hidden-layer
perceptron is fitted on two thirds of the photos and scenes (by photo), and
the threshold is set on the last third so that ``--keep`` of the patches the
CNN would accept as a winning index pass. Needs only numpy; deterministic.
About a minute on two idle cores (``--cache`` keeps the labelled features).
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from engine.simulate import deal_cards
from vision.drawn.scene import SceneRenderer, SceneSettings, Script
from vision.measure.datasets import datasets_root, load_labels
from vision.recognise.candidates import find_candidates
from vision.recognise.classifier import PatchScores, classify
from vision.recognise.screen import SCREEN_PATH, IndexScreen, screen_features
from vision.training.facedecks import FACE_FOLDER, NO_THEMES, FaceDeck, load_face_decks
from vision.training.synth import bundled_typefaces, place, render_card, synth_set

__all__ = ["teacher_patches", "fit_perceptron", "main"]

# Index probability from which the recogniser considers a candidate at all (detection.py).
LIVE = 0.5
# ... and from which a candidate can win a reading.
WINNING = 0.7


def _frames(root: Path | None, scenes: int, seed: int, decks: Sequence[FaceDeck] = (),
            face_scenes: int = 0) -> Iterator[tuple[int, np.ndarray]]:
    """(group, frame) pairs: dev photos at their own size and at 1280x720, drawn deals (then
    ``face_scenes`` more laid with real ``decks``, as the CNN learnt them), and tables of
    synthetic cards (``synth.render_card``: other fonts than any deck we have)."""
    group = 0
    if root is not None:
        for name in ("roboflow-cardcounterml", "epfl-iapr2022-poker"):
            for item in load_labels(root / name, split="dev"):
                image = cv2.imread(str(item.path))
                if image is None:
                    continue
                yield group, image
                yield group, cv2.resize(image, (1280, 720), interpolation=cv2.INTER_AREA)
                group += 1
    settings = SceneSettings(frames_per_step=3, hand_frames=1)
    for k in range(scenes + (face_scenes if decks else 0)):
        rnd = random.Random(seed * 7919 + k)
        players = ("Ann", "Bob", "Cid", "Dee")[: rnd.choice((2, 3, 4))]
        script = Script.from_deal(deal_cards(rnd, len(players), rnd.randrange(len(players))),
                                  players, rnd)
        scene_settings = settings
        if k >= scenes:  # the real decks' deals come after the drawn ones
            scene_settings = replace(settings, faces=decks[rnd.randrange(len(decks))].face)
        renderer = SceneRenderer(script, rng=np.random.default_rng((seed, k)),
                                 settings=scene_settings)
        for index in np.linspace(0, renderer.frame_count - 1, 4).astype(int):
            yield group, renderer.render(int(index)).image
        group += 1
    rng = np.random.default_rng(seed)
    for _ in range(scenes):
        table = np.empty((720, 1280, 3), np.uint8)
        table[:] = rng.integers(20, 200, 3)
        cv2.add(table, rng.integers(0, 25, table.shape, dtype=np.uint8), dst=table)
        for _ in range(6):
            card = render_card(int(rng.integers(13)), int(rng.integers(4)),
                               seed=int(rng.integers(1 << 30)))
            place(table, card, (float(rng.uniform(150, 1130)), float(rng.uniform(120, 600))),
                  float(rng.uniform(0, 360)), float(rng.uniform(0.2, 0.7)))
        yield group, table
        group += 1


def _patches(root: Path | None, scenes: int, seed: int, decks: Sequence[FaceDeck] = (),
             face_scenes: int = 0) -> Iterator[tuple[int, np.ndarray]]:
    """(group, candidate patches): every candidate of every frame, then synthetic indices
    and clutter (``synth.synth_set``, half in real typefaces as the CNN learnt) in groups of 500."""
    group = 0
    for group, image in _frames(root, scenes, seed, decks, face_scenes):
        cand = find_candidates(image, screen=False)
        if len(cand):
            yield group, cand.patches
    patches, _, _ = synth_set(scenes * 50, scenes * 50, seed, faces=bundled_typefaces())
    for start in range(0, len(patches), 500):
        group += 1
        yield group, patches[start:start + 500]


def teacher_patches(root: Path | None, *, scenes: int, seed: int,
                    decks: Sequence[FaceDeck] = (), face_scenes: int = 0
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Screen features, the CNN's index probability and the photo/scene group of every candidate."""
    feats: list[np.ndarray] = []
    probs: list[np.ndarray] = []
    groups: list[np.ndarray] = []
    for group, patches in _patches(root, scenes, seed, decks, face_scenes):
        scores = classify(patches)
        _, _, is_index = PatchScores(scores.rank, scores.suit).best()
        feats.append(screen_features(patches))
        probs.append(is_index)
        groups.append(np.full(len(patches), group))
    return np.concatenate(feats), np.concatenate(probs), np.concatenate(groups)


def fit_perceptron(x: np.ndarray, y: np.ndarray, *, hidden: int = 32,
                   positive_weight: float = 10.0, decay: float = 1e-4, epochs: int = 15,
                   batch: int = 4096, rate: float = 3e-3, seed: int = 0
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """One hidden ReLU layer, weighted logistic loss, minibatch Adam with L2 decay.

    Returns (hidden weights, hidden bias, output weights, output bias).
    """
    rng = np.random.default_rng(seed)
    d = x.shape[1]
    params = [rng.normal(0, np.sqrt(2.0 / d), (d, hidden)).astype(np.float32),
              np.zeros(hidden, np.float32),
              rng.normal(0, np.sqrt(1.0 / hidden), hidden).astype(np.float32),
              np.zeros(1, np.float32)]
    first = [np.zeros_like(q) for q in params]
    second = [np.zeros_like(q) for q in params]
    t = 0
    for _ in range(epochs):
        order = rng.permutation(len(x))
        for start in range(0, len(order), batch):
            rows = order[start:start + batch]
            xb, yb = x[rows], y[rows]
            sample = np.where(yb > 0.5, positive_weight, 1.0).astype(np.float32)
            sample /= len(rows)
            pre = xb @ params[0] + params[1]
            act = np.maximum(pre, 0)
            z = act @ params[2] + params[3][0]
            err = (1.0 / (1.0 + np.exp(-np.clip(z, -30, 30))) - yb) * sample
            back = np.outer(err, params[2]) * (pre > 0)
            grads = [xb.T @ back + decay * params[0], back.sum(axis=0),
                     act.T @ err + decay * params[2], np.array([err.sum()], np.float32)]
            t += 1
            for q, g, m, v in zip(params, grads, first, second, strict=True):
                m *= 0.9
                m += 0.1 * g
                v *= 0.999
                v += 0.001 * g * g
                q -= (rate * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
                      ).astype(np.float32)
    return params[0], params[1], params[2], float(params[3][0])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=SCREEN_PATH)
    ap.add_argument("--scenes", type=int, default=80, help="drawn deals to add to the photos")
    ap.add_argument("--face-scenes", type=int, default=0,
                    help="deals laid with Debian's card themes (facedecks.py), for a CNN "
                         "trained with them; 0 for none")
    ap.add_argument("--face-half", choices=["train", "all"], default="train",
                    help="with --face-scenes: the themes of the training half only, or all")
    ap.add_argument("--face-folder", type=Path, default=FACE_FOLDER,
                    help="folder the themes' faces are rendered into, once")
    ap.add_argument("--keep", type=float, default=0.998,
                    help="share of held-out winnable indices the threshold must pass")
    ap.add_argument("--hidden", type=int, default=32, help="hidden units of the perceptron")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--cache", type=Path,
                    help=".npz to keep the labelled features in, or to reuse them from")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    if args.cache is not None and args.cache.is_file():
        with np.load(args.cache) as cached:
            x, prob, group = cached["x"], cached["p"], cached["g"]
    else:
        decks = (load_face_decks(args.face_folder, half=args.face_half) if args.face_scenes
                 else [])
        if args.face_scenes and not decks:
            raise SystemExit(NO_THEMES)
        x, prob, group = teacher_patches(datasets_root(), scenes=args.scenes, seed=args.seed,
                                         decks=decks, face_scenes=args.face_scenes)
        if args.cache is not None:
            np.savez(args.cache, x=x, p=prob, g=group)
    held = group % 3 == 0
    w1, b1, w2, b2 = fit_perceptron(x[~held], (prob[~held] >= LIVE).astype(np.float32),
                                    hidden=args.hidden, seed=args.seed)
    score = np.maximum(x @ w1 + b1, 0) @ w2 + b2
    winnable = held & (prob >= WINNING)
    threshold = float(np.quantile(score[winnable], 1.0 - args.keep))
    IndexScreen(w1, b1, w2, b2, threshold).save(args.out)
    passed = score >= threshold
    report = {
        "candidates": int(len(x)), "held_out": int(held.sum()),
        "held_out_dropped": round(float(1 - passed[held].mean()), 4),
        "held_out_live_kept": round(float(passed[held & (prob >= LIVE)].mean()), 4),
        "held_out_winnable_kept": round(float(passed[winnable].mean()), 4),
        "held_out_sure_kept": round(float(passed[held & (prob >= 0.9)].mean()), 4),
        "out": str(args.out),
    }
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
