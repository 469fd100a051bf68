"""The corner-index classifier: weights on disk, batch shapes, preprocessing."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from engine.cards import Card
from vision.recognise.classifier import (
    MODEL_PATH,
    OTHER_OPINIONS_FLOOR,
    RUN_CHUNK,
    PatchScores,
    Runner,
    classify,
    load_model,
    normalise,
    other_opinion_paths,
)
from vision.training.synth import render_index, render_negative


def test_weights_are_committed_and_small() -> None:
    others = other_opinion_paths(str(MODEL_PATH))
    assert [p.name for p in others] == ["corner_index.second.onnx", "corner_index.third.onnx"]
    for weights in (MODEL_PATH, *others):
        assert weights.stat().st_size < 3_000_000


def _softmax_scores(logits: np.ndarray) -> PatchScores:
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    rank, suit = e[:, :14], e[:, 14:]
    return PatchScores(rank / rank.sum(axis=1, keepdims=True),
                       suit / suit.sum(axis=1, keepdims=True))


def test_the_other_networks_reread_only_likely_indices_and_are_averaged_in(tmp_path: Path
                                                                          ) -> None:
    rng = np.random.default_rng(4)
    patches = np.stack([render_index(int(rng.integers(13)), int(rng.integers(4)), rng)
                        for _ in range(40)] + [render_negative(rng) for _ in range(40)])
    batch = normalise(patches)
    second, third = other_opinion_paths(str(MODEL_PATH))
    first = _softmax_scores(load_model(str(MODEL_PATH))(batch))
    others = [_softmax_scores(load_model(str(p))(batch)) for p in (second, third)]
    _, _, is_index = first.best()
    asked = is_index >= OTHER_OPINIONS_FLOOR
    assert 10 < asked.sum() < len(patches) - 10  # both kinds of patch are in the batch
    together = classify(patches)
    mean_rank = (first.rank + others[0].rank + others[1].rank) / 3
    mean_suit = (first.suit + others[0].suit + others[1].suit) / 3
    assert np.allclose(together.rank[asked], mean_rank[asked], atol=1e-5)
    assert np.allclose(together.suit[asked], mean_suit[asked], atol=1e-5)
    assert np.allclose(together.suit[~asked], first.suit[~asked], atol=1e-5)
    # A network tried with one other beside it is averaged with that one.
    shutil.copy(MODEL_PATH, tmp_path / "tried.onnx")
    shutil.copy(second, tmp_path / "tried.second.onnx")
    paired = classify(patches, model_path=str(tmp_path / "tried.onnx"))
    assert np.allclose(paired.rank[asked], (first.rank[asked] + others[0].rank[asked]) / 2,
                       atol=1e-5)
    # A network tried on its own, with none beside it, is read alone.
    alone = tmp_path / "alone.onnx"
    shutil.copy(MODEL_PATH, alone)
    assert other_opinion_paths(str(alone)) == ()
    single = classify(patches, model_path=str(alone))
    assert np.allclose(single.rank, first.rank, atol=1e-5)


def test_normalise_is_per_patch_and_nchw() -> None:
    x = np.random.default_rng(0).integers(0, 255, (5, 32, 32, 3), dtype=np.uint8)
    y = normalise(x)
    assert y.shape == (5, 3, 32, 32) and y.dtype == np.float32
    assert np.allclose(y.reshape(5, -1).mean(axis=1), 0, atol=1e-4)
    bright = normalise(np.clip(x.astype(int) + 40, 0, 255).astype(np.uint8))
    assert np.abs(bright - y).mean() < 0.25


def test_normalise_matches_its_definition_in_double_precision() -> None:
    # A flat patch (no spread) and a two-level one test the edges of the contrast term.
    rng = np.random.default_rng(3)
    x = rng.integers(0, 256, (9, 32, 32, 3), dtype=np.uint8)
    x[0] = 77
    x[1] = np.where(rng.random((32, 32, 1)) < 0.5, 0, 255).astype(np.uint8)
    f = x.astype(np.float64)
    mean = f.mean(axis=(1, 2, 3), keepdims=True)
    std = f.std(axis=(1, 2, 3), keepdims=True)
    expected = ((f - mean) / (std + 8.0)).transpose(0, 3, 1, 2)
    y = normalise(x)
    assert y.flags.c_contiguous and np.allclose(y, expected, rtol=0, atol=1e-5)
    assert normalise(x[:0]).shape == (0, 3, 32, 32)


def test_classify_batches_and_empty() -> None:
    x = np.random.default_rng(1).integers(0, 255, (7, 32, 32, 3), dtype=np.uint8)
    s = classify(x)
    assert s.rank.shape == (7, 14) and s.suit.shape == (7, 5)
    assert np.allclose(s.rank.sum(axis=1), 1, atol=1e-4)
    assert classify(x[:0]).rank.shape == (0, 14)


def test_best_combines_heads() -> None:
    rank = np.zeros((2, 14), np.float32)
    suit = np.zeros((2, 5), np.float32)
    rank[0, 11], suit[0, 2] = 0.9, 0.8  # queen, hearts
    rank[1, 13], suit[1, 1] = 0.9, 0.9  # not an index
    cards, conf, is_index = PatchScores(rank, suit).best()
    assert cards == [Card.parse("QH"), None]
    assert conf[0] == pytest.approx(0.72)
    assert is_index[1] == pytest.approx(0.1)


def test_missing_weights_is_an_os_error(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(OSError, match="not found"):
        classify(np.zeros((1, 32, 32, 3), np.uint8), model_path=str(tmp_path / "none.onnx"))


def test_onnxruntime_and_opencv_dnn_agree() -> None:
    pytest.importorskip("onnxruntime")
    from vision.recognise.classifier import _opencv_runner, load_model, normalise

    rng = np.random.default_rng(0)
    batch = normalise(rng.integers(0, 256, (7, 32, 32, 3), dtype=np.uint8))
    fast = load_model(str(MODEL_PATH))(batch)
    slow = _opencv_runner(str(MODEL_PATH))(batch)
    assert fast.shape == slow.shape == (7, 19)
    assert np.allclose(fast, slow, atol=1e-3)


def test_a_large_batch_runs_in_chunks_with_the_scores_one_run_gives() -> None:
    """A grained table's tile can give thousands of candidates; the network sees them at most
    RUN_CHUNK at a time (its activations grow with the batch), and each patch scores as in
    one run."""
    runner = load_model()
    seen: list[int] = []

    def logits(batch: np.ndarray) -> np.ndarray:
        seen.append(len(batch))
        return runner.logits(batch)

    counted = Runner(runner.path, logits, runner.both)
    rng = np.random.default_rng(0)
    batch = normalise(rng.integers(0, 256, (1000, 32, 32, 3), np.uint8))
    assert np.array_equal(counted(batch), runner.logits(batch))
    # 512 patches' activations are about 35 MB of the first network's; 3,037 were 230 MB.
    assert max(seen) <= min(RUN_CHUNK, 512) and sum(seen) == len(batch)
    if runner.both is not None:
        z, e = runner.outputs(batch)
        whole_z, whole_e = runner.both(batch)
        assert np.array_equal(z, whole_z) and np.array_equal(e, whole_e)
