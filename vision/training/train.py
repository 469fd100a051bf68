"""Trains the corner-index classifier and writes ``vision/recognise/models/corner_index.onnx``.

Run (training-only dependencies in ``vision/training/requirements.txt``)::

    nice -n 10 /tmp/venv-train/bin/python -m vision.training.train

with Debian's card themes installed for the real-deck scenes (``facedecks.py``;
``--face-scenes 0`` trains without them).

Deterministic: every random choice is seeded. Uses only the DEV split of the
shared datasets (see README.md); the test split is never read here. With
``--fit-only`` it leaves out dev's validation fold too, so that the model can be
measured on photos it never saw (``vision eval --split val``).

Stages: (1) train on synthetic indices plus real "not an index" patches;
(2) that model picks, among the real candidates inside each labelled corner
box, those that read as the labelled card in the upright direction (a box
also holds the upside-down and sideways pairings); (3) train the final model
on synthetic + real patches.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn as nn

from engine.cards import Card
from vision.measure.datasets import Split, datasets_root, load_labels
from vision.recognise.classifier import EMBEDDING_OUTPUT, LOGITS_OUTPUT, MODEL_PATH, normalise
from vision.training.augment import augment
from vision.training.device_patches import harvest_device_boxes, harvest_device_sets
from vision.training.drawn import harvest_scenes
from vision.training.facedecks import FACE_FOLDER, NO_THEMES, load_face_decks
from vision.training.filmed import FilmError, Filming
from vision.training.harvest import card_labels, harvest_boxes, harvest_sets
from vision.training.synth import bundled_typefaces, synth_set

# Share of training patches squashed across a random line (augment.py): the committed CNN's
# recipe since 2026-11-22 (vision/training/README.md, "Squashed frames"); 0 repeats the one before.
STRETCH = 0.5


class IndexNet(nn.Module):
    """Three conv blocks (``width``, 2x, 4x channels), one hidden layer, 14 rank + 5 suit logits."""

    def __init__(self, width: int = 8) -> None:
        super().__init__()
        w = width
        self.trunk = nn.Sequential(
            nn.Conv2d(3, w, 3, padding=1), nn.BatchNorm2d(w), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(w, 2 * w, 3, padding=1), nn.BatchNorm2d(2 * w), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(2 * w, 4 * w, 3, padding=1), nn.BatchNorm2d(4 * w), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(4 * w * 16, 8 * w), nn.ReLU(), nn.Dropout(0.2),
            nn.Linear(8 * w, 19),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.trunk(x)


class _WithEmbedding(nn.Module):
    """Exports ``net`` with two outputs: its logits, and the hidden layer after its ReLU,
    which deck teaching (``vision.recognise.deck``) compares; the logits are the same
    computation."""

    def __init__(self, net: IndexNet) -> None:
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        layers = self.net.trunk
        hidden = layers[:-2](x)  # up to the hidden ReLU; next come Dropout and the last Linear
        return layers[-1](layers[-2](hidden)), hidden


def fit(
    x: np.ndarray, r: np.ndarray, s: np.ndarray, *, epochs: int, seed: int, log: str,
    width: int = 8, stretch: float = STRETCH, filming: Filming | None = None,
) -> IndexNet:
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    net = IndexNet(width)
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    steps = epochs * (len(x) // 256 + 1)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    for epoch in range(epochs):
        net.train()
        order = rng.permutation(len(x))
        total = 0.0
        t0 = time.time()
        for i in range(0, len(x), 256):
            idx = order[i : i + 256]
            xb = torch.from_numpy(normalise(augment(x[idx], rng, stretch, filming)))
            out = net(xb)
            loss = loss_fn(out[:, :14], torch.from_numpy(r[idx])) + loss_fn(
                out[:, 14:], torch.from_numpy(s[idx])
            )
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
        print(f"[{log}] epoch {epoch + 1}/{epochs} loss {total / len(x):.4f} "
              f"({time.time() - t0:.0f}s)", flush=True)
    net.eval()
    return net


def predict(net: IndexNet, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    with torch.no_grad():
        outs = [net(torch.from_numpy(normalise(x[i : i + 1024]))) for i in range(0, len(x), 1024)]
    out = torch.cat(outs)
    return torch.softmax(out[:, :14], 1).numpy(), torch.softmax(out[:, 14:], 1).numpy()


def pseudo_label(
    net: IndexNet, x: np.ndarray, owner: np.ndarray, sets: list[frozenset[Card]]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Names patches of set-labelled photos: the likeliest card of that photo's set, kept
    only when the model is sure it is an index and that card clearly beats the set's others.
    """
    if len(x) == 0:
        z = np.zeros(0, np.int64)
        return x, z, z
    pr, ps = predict(net, x)
    is_index = (1 - pr[:, 13]) * (1 - ps[:, 4])
    keep, rs, ss = [], [], []
    for i in np.nonzero(is_index >= 0.8)[0]:
        labels = [card_labels(c) for c in sets[owner[i]]]
        p = np.array([pr[i, a] * ps[i, b] for a, b in labels])
        order = np.argsort(-p)
        second = p[order[1]] if len(p) > 1 else 0.0
        if p[order[0]] >= 0.25 and p[order[0]] >= 3 * second:
            keep.append(i)
            rs.append(labels[order[0]][0])
            ss.append(labels[order[0]][1])
    return x[keep], np.array(rs, np.int64), np.array(ss, np.int64)


def harvest_all(root: Path, args: argparse.Namespace, t0: float) -> tuple[Any, ...]:
    """Synthetic patches, roboflow dev box patches and EPFL dev set-labelled patches."""
    sx, sr, ss = synth_set(args.synth, args.synth // 2, seed=1 + args.seed,
                           faces=bundled_typefaces(), pip_beside=args.pip_beside)
    print(f"synthetic {len(sx)} ({time.time() - t0:.0f}s)", flush=True)
    part: Split = "fit" if args.fit_only else "dev"
    dev = load_labels(root / "roboflow-cardcounterml", split=part)
    hx, hr, hs, hg = harvest_boxes(dev, turns=args.turns, seed=2 + args.seed)
    print(f"real dev patches {len(hx)}, index {int((hr < 13).sum())} ({time.time() - t0:.0f}s)",
          flush=True)
    epfl = load_labels(root / "epfl-iapr2022-poker", split=part)
    ex, eo, esets = harvest_sets(epfl, turns=args.turns, seed=3 + args.seed)
    print(f"epfl dev patches {len(ex)} ({time.time() - t0:.0f}s)", flush=True)
    return sx, sr, ss, hx, hr, hs, hg, ex, eo, esets


def device_patches(root: Path, args: argparse.Namespace) -> tuple[Any, ...]:
    """The dev photos at the device's geometry (``device_patches.py``), cached by count."""
    part: Split = "fit" if args.fit_only else "dev"
    cached = (args.cache / f"device{args.device_frames}x{args.device_epfl_frames}"
                           f"{'-fit' if args.fit_only else ''}{_seeded(args)}.npz"
              if args.cache else None)
    if cached is not None and cached.is_file():
        return load_cache(cached)[3:]
    rb = "roboflow-cardcounterml"
    hx, hr, hs, hg = harvest_device_boxes(load_labels(root / rb, split=part), rb,
                                          frames=args.device_frames, seed=21 + args.seed)
    epfl = "epfl-iapr2022-poker"
    ex, eo, esets = harvest_device_sets(load_labels(root / epfl, split=part), epfl,
                                        frames=args.device_epfl_frames, seed=22 + args.seed)
    if cached is not None:
        none = np.zeros(0, np.int64)
        save_cache(cached, hx[:0], none, none, hx, hr, hs, hg, ex, eo, esets)
    return hx, hr, hs, hg, ex, eo, esets


def save_cache(path: Path, *arrays: Any) -> None:
    *plain, esets = arrays
    names = ("sx", "sr", "ss", "hx", "hr", "hs", "hg", "ex", "eo")
    sets = np.array([" ".join(sorted(str(c) for c in s)) for s in esets])
    np.savez(path, sets=sets, **dict(zip(names, plain, strict=True)))


def load_cache(path: Path) -> tuple[Any, ...]:
    z = np.load(path)
    esets = [frozenset(Card.parse(c) for c in str(s).split()) for s in z["sets"]]
    return (*(z[k] for k in ("sx", "sr", "ss", "hx", "hr", "hs", "hg", "ex", "eo")), esets)


def _seeded(args: argparse.Namespace) -> str:
    """The cache names' mark of a harvest drawn with other seeds, so that none is reused."""
    return f"-seed{args.seed}" if args.seed else ""


def face_scene_patches(args: argparse.Namespace) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Drawn scenes laid with Debian's card themes: index designs nobody here drew."""
    # "courts": the caches from before foreign court letters were labelled "not an index"
    # hold them as cards, and must not be read again.
    cached = (args.cache / f"faces{args.face_scenes}-{args.face_half}-courts{_seeded(args)}.npz"
              if args.cache else None)
    if cached is not None and cached.is_file():
        z = np.load(cached)
        return z["x"], z["r"], z["s"]
    decks = load_face_decks(args.face_folder, half=args.face_half)
    if not decks:
        raise SystemExit(NO_THEMES)
    print(f"{len(decks)} real decks: {', '.join(d.name for d in decks)}", flush=True)
    fx, fr, fs = harvest_scenes(args.face_scenes, frames=6, seed=11 + args.seed, decks=decks)
    if cached is not None:
        np.savez(cached, x=fx, r=fr, s=fs)
    return fx, fr, fs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=MODEL_PATH)
    ap.add_argument("--synth", type=int, default=20000)
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3, help="re-labelling rounds after stage 1")
    ap.add_argument("--negatives", type=int, default=40000, help="real non-index patches used")
    ap.add_argument("--turns", type=int, default=6, help="extra turned copies of each dev photo")
    ap.add_argument("--width", type=int, default=16, help="channels of the first conv block")
    ap.add_argument("--real-repeats", type=int, default=8,
                    help="times each real index patch is repeated in the later stages")
    ap.add_argument("--drawn", type=int, default=300, help="drawn scenes to harvest (drawn.py)")
    ap.add_argument("--face-scenes", type=int, default=300,
                    help="drawn scenes dealt with the real decks of Debian's card themes "
                         "(facedecks.py; needs them installed); 0 for none")
    ap.add_argument("--face-half", choices=["train", "all"], default="train",
                    help="deal the themes of the training half only (facedecks.theme_half), so "
                         "that vision_pipeline.py --half held-out measures decks never trained "
                         "on; or all of them")
    ap.add_argument("--face-folder", type=Path, default=FACE_FOLDER,
                    help="folder the themes' faces are rendered into, once")
    ap.add_argument("--stretch", type=float, default=STRETCH,
                    help="share of training patches squashed across a random line (augment.py); "
                         "0 repeats the recipe before 2026-11-22")
    ap.add_argument("--pip-beside", type=float, default=0.3,
                    help="share of synthetic indices drawn with a court's big pip beside them "
                         "(0: the recipe of the networks before 2026-11-23)")
    ap.add_argument("--seed", type=int, default=0,
                    help="added to every seed, the harvests' and the trainings' alike: another "
                         "seed gives another network from other patches (the committed "
                         "three: 0, 2000 and 1000)")
    ap.add_argument("--device-frames", type=int, default=0,
                    help="device frames made of each Roboflow dev photo (device_patches.py; "
                         "8 measured on 2026-11-27: no gain on val, README.md); 0 for none, "
                         "the committed networks' recipe")
    ap.add_argument("--device-epfl-frames", type=int, default=0,
                    help="device frames made of each EPFL dev photo (15 photos, ~11 cards "
                         "each; 24 measured with --device-frames 8)")
    ap.add_argument("--film", type=float, default=0.0,
                    help="share of each batch filmed through the calibrated camera at device "
                         "card sizes in place of the augmentation's blur (filmed.py); 0, the "
                         "committed networks' recipe")
    ap.add_argument("--bleach", type=float, default=0.25,
                    help="share of the filmed patches overexposed 1.4-2.8x (red ink bleached)")
    ap.add_argument("--cool", type=float, default=0.25,
                    help="share of the filmed patches cast blue (warmth -0.25 to -0.05)")
    ap.add_argument("--threads", type=int, default=2, help="torch threads")
    ap.add_argument("--cache", type=Path, help="folder to save the harvested patches in, or reuse")
    ap.add_argument("--fit-only", action="store_true",
                    help="train on dev's fit part only, to measure on its val fold "
                         "(vision eval --split val)")
    args = ap.parse_args()
    if not 0.0 <= args.stretch <= 1.0:
        ap.error(f"--stretch is a share of the patches, 0 to 1, got {args.stretch}")
    if not 0.0 <= args.pip_beside <= 1.0:
        ap.error(f"--pip-beside is a share of the synthetic indices, 0 to 1, got {args.pip_beside}")
    if args.device_frames < 0 or args.device_epfl_frames < 0:
        ap.error("--device-frames and --device-epfl-frames count frames: 0 or more")
    if args.threads < 1:
        ap.error(f"--threads must be 1 or more, got {args.threads}")
    try:
        filming = Filming(args.film, args.bleach, args.cool) if args.film else None
    except FilmError as err:
        ap.error(str(err))
    torch.set_num_threads(args.threads)
    root = datasets_root()
    if root is None:
        raise SystemExit("no ../shared/datasets (or $CRIBBAGE_DATASETS): cannot train")
    t0 = time.time()
    # The synthetic indices are cached with the real patches: another pip share, another file.
    pips = f"-pip{args.pip_beside:g}" if args.pip_beside else ""
    real = (args.cache / f"real{'-fit' if args.fit_only else ''}{pips}{_seeded(args)}.npz"
            if args.cache else None)
    if real is not None and real.is_file():
        sx, sr, ss, hx, hr, hs, hg, ex, eo, esets = load_cache(real)
        print(f"patches from {real}", flush=True)
    else:
        sx, sr, ss, hx, hr, hs, hg, ex, eo, esets = harvest_all(root, args, t0)
        if real is not None:
            real.parent.mkdir(parents=True, exist_ok=True)
            save_cache(real, sx, sr, ss, hx, hr, hs, hg, ex, eo, esets)
    if args.device_frames or args.device_epfl_frames:
        dhx, dhr, dhs, dhg, dex, deo, desets = device_patches(root, args)
        print(f"device-geometry patches {len(dhx)}, index {int((dhr < 13).sum())}; "
              f"epfl {len(dex)} ({time.time() - t0:.0f}s)", flush=True)
        # Box ids and photo numbers go on from the photos' as taken.
        dhg = np.where(dhg >= 0, dhg + int(hg.max(initial=-1)) + 1, -1)
        hx, hr, hs = np.concatenate([hx, dhx]), np.concatenate([hr, dhr]), np.concatenate([hs, dhs])
        hg = np.concatenate([hg, dhg])
        ex, eo = np.concatenate([ex, dex]), np.concatenate([eo, deo + len(esets)])
        esets = [*esets, *desets]
    drawn = args.cache / f"drawn{args.drawn}{_seeded(args)}.npz" if args.cache else None
    if drawn is not None and drawn.is_file():
        z = np.load(drawn)
        dx, dr, ds = z["x"], z["r"], z["s"]
    else:
        dx, dr, ds = harvest_scenes(args.drawn, frames=6, seed=7 + args.seed)
        if drawn is not None:
            np.savez(drawn, x=dx, r=dr, s=ds)
    print(f"drawn scene patches {len(dx)}, index {int((dr < 13).sum())} "
          f"({time.time() - t0:.0f}s)", flush=True)
    if args.face_scenes:
        fx, fr, fs = face_scene_patches(args)
        print(f"real-deck scene patches {len(fx)}, index {int((fr < 13).sum())} "
              f"({time.time() - t0:.0f}s)", flush=True)
        dx, dr, ds = np.concatenate([dx, fx]), np.concatenate([dr, fr]), np.concatenate([ds, fs])
    # Drawn patches are exactly labelled: they join the synthetic ones in every stage.
    sx, sr, ss = np.concatenate([sx, dx]), np.concatenate([sr, dr]), np.concatenate([ss, ds])
    neg = hr == 13
    rng = np.random.default_rng(3 + args.seed)
    neg_idx = np.nonzero(neg)[0]
    neg_idx = rng.choice(neg_idx, size=min(len(neg_idx), args.negatives), replace=False)

    # Stage 1: synthetic + real negatives.
    x1 = np.concatenate([sx, hx[neg_idx]])
    net = fit(x1, np.concatenate([sr, hr[neg_idx]]), np.concatenate([ss, hs[neg_idx]]),
              epochs=max(2, args.epochs // 3), seed=4 + args.seed, log="stage 1", width=args.width,
              stretch=args.stretch, filming=filming)

    # Stage 2: keep box candidates that read as their labelled card, upright.
    pos_idx = np.nonzero(~neg)[0]
    last = 1 + args.rounds
    for stage in range(2, last + 1):
        pr, ps = predict(net, hx[pos_idx])
        p_true = pr[np.arange(len(pos_idx)), hr[pos_idx]] * ps[np.arange(len(pos_idx)), hs[pos_idx]]
        # Within each box the upright reading is the one most like its labelled card.
        best = np.zeros(int(hg.max()) + 1)
        np.maximum.at(best, hg[pos_idx], p_true)
        rel = p_true / np.maximum(best[hg[pos_idx]], 1e-9)
        keep = pos_idx[(rel >= 0.5) & (p_true >= (0.002 if stage == 2 else 0.02))]
        print(f"stage {stage}: {len(keep)} of {len(pos_idx)} box candidates kept as indices",
              flush=True)
        # Real indices are rare next to synthetic ones: repeat them.
        rep = np.repeat(keep, args.real_repeats)
        px, pr_, ps_ = pseudo_label(net, ex, eo, esets)
        print(f"stage {stage}: {len(px)} epfl dev patches named within their photo's cards",
              flush=True)
        k = args.real_repeats
        x = np.concatenate([sx, hx[neg_idx], hx[rep], np.repeat(px, k, axis=0)])
        r = np.concatenate([sr, hr[neg_idx], hr[rep], np.repeat(pr_, k)])
        s = np.concatenate([ss, hs[neg_idx], hs[rep], np.repeat(ps_, k)])
        epochs = args.epochs if stage == last else max(2, args.epochs // 2)
        net = fit(x, r, s, epochs=epochs, seed=5 + stage + args.seed, log=f"stage {stage}",
                  width=args.width, stretch=args.stretch, filming=filming)

    args.out.parent.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(1, 3, 32, 32)
    torch.onnx.export(_WithEmbedding(net).eval(), (dummy,), str(args.out), input_names=["patch"],
                      output_names=[LOGITS_OUTPUT, EMBEDDING_OUTPUT],
                      dynamic_axes={"patch": {0: "n"}, LOGITS_OUTPUT: {0: "n"},
                                    EMBEDDING_OUTPUT: {0: "n"}},
                      opset_version=13, dynamo=False)
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes, {time.time() - t0:.0f}s)")


if __name__ == "__main__":
    main()
