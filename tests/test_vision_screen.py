"""The index screen in front of the CNN: what it passes, what it drops, its weights file."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.recognise.candidates import find_candidates
from vision.recognise.classifier import PatchScores, classify
from vision.recognise.screen import IndexScreen, load_screen, screen_features
from vision.training.screen import fit_perceptron
from vision.training.synth import place, render_card, render_index, render_negative

TABLE = (60, 110, 150)


def test_features_ignore_brightness_and_contrast() -> None:
    rng = np.random.default_rng(1)
    patch = render_index(5, 1, rng)[None]
    dim = (patch.astype(np.float32) * 0.6 + 20).astype(np.uint8)
    a, b = screen_features(patch), screen_features(dim)
    assert a.shape == (1, 256)
    assert np.corrcoef(a[0], b[0])[0, 1] > 0.99


def _drawn_index(ink: tuple[int, int, int]) -> np.ndarray:
    patch = np.full((32, 32, 3), 235, np.uint8)
    cv2.putText(patch, "K", (9, 16), cv2.FONT_HERSHEY_SIMPLEX, 0.5, ink, 2)
    cv2.fillPoly(patch, [np.array([[11, 20], [21, 20], [16, 28]], np.int32)], ink)
    return patch


def test_features_see_red_and_black_ink_alike() -> None:
    black, red = _drawn_index((20, 20, 20)), _drawn_index((40, 30, 200))
    a, b = screen_features(black[None]), screen_features(red[None])
    assert np.corrcoef(a[0], b[0])[0, 1] > 0.95


def test_committed_screen_passes_indices_and_drops_most_clutter() -> None:
    rng = np.random.default_rng(3)
    screen = load_screen()
    indices = np.stack([render_index(int(rng.integers(13)), int(rng.integers(4)), rng)
                        for _ in range(300)])
    # Clutter: not the indices printing a letter that is no rank, which only the CNN refuses.
    clutter = np.stack([render_negative(rng, letters=False) for _ in range(300)])
    # Synthetic indices the CNN reads as indices must nearly all reach it.
    scores = classify(indices)
    _, _, is_index = PatchScores(scores.rank, scores.suit).best()
    readable = indices[is_index >= 0.7]
    assert len(readable) > 200
    assert screen.passes(readable).mean() >= 0.97
    assert screen.passes(clutter).mean() <= 0.6


def test_screened_candidates_are_a_subset_and_keep_the_card() -> None:
    img = np.full((720, 1280, 3), TABLE, np.uint8)
    place(img, render_card(5, 2), (640, 360), 20.0, 0.5)
    every = find_candidates(img, screen=False)
    kept = find_candidates(img)
    assert 0 < len(kept) <= len(every)
    pairs = {tuple(np.round(np.r_[r, s], 2))
             for r, s in zip(every.rank_xy, every.suit_xy, strict=True)}
    assert all(tuple(np.round(np.r_[r, s], 2)) in pairs
               for r, s in zip(kept.rank_xy, kept.suit_xy, strict=True))
    scores = classify(kept.patches)
    cards, conf, _ = PatchScores(scores.rank, scores.suit).best()
    assert max(c for card, c in zip(cards, conf, strict=True) if card is not None) > 0.9


def test_weights_round_trip_and_bad_files_are_named(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    screen = IndexScreen(rng.normal(size=(256, 8)).astype(np.float32), np.zeros(8, np.float32),
                         np.ones(8, np.float32), 0.5, -0.25)
    path = tmp_path / "screen.npz"
    screen.save(path)
    again = load_screen(str(path))
    assert np.array_equal(again.hidden_weights, screen.hidden_weights)
    assert (again.out_bias, again.threshold) == (0.5, -0.25)
    patches = rng.integers(0, 256, (5, 32, 32, 3), dtype=np.uint8)
    assert np.allclose(again.scores(patches), screen.scores(patches))
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not numpy")
    with pytest.raises(OSError, match="bad.npz"):
        load_screen(str(bad))
    short = tmp_path / "short.npz"
    IndexScreen(np.zeros((10, 8), np.float32), np.zeros(8, np.float32), np.zeros(8, np.float32),
                0.0, 0.0).save(short)
    with pytest.raises(OSError, match="shapes"):
        load_screen(str(short))
    with pytest.raises(OSError, match="missing.npz"):
        load_screen(str(tmp_path / "missing.npz"))


def test_fit_perceptron_learns_a_set_no_line_separates() -> None:
    rng = np.random.default_rng(4)
    x = rng.normal(size=(2000, 4)).astype(np.float32)
    y = ((x[:, 0] * x[:, 1]) > 0).astype(np.float32)  # XOR of signs
    w1, b1, w2, b2 = fit_perceptron(x, y, hidden=16, positive_weight=1.0, epochs=200,
                                    batch=256, rate=0.01)
    z = np.maximum(x @ w1 + b1, 0) @ w2 + b2
    assert np.mean((z > 0) == (y > 0.5)) > 0.9
