"""Names candidate index patches with a small CNN (ONNX).

The network runs through onnxruntime, which is about four times faster than
OpenCV's dnn module on these small batched convolutions (measured: 300 patches
in 14 ms against 52 ms on one core); where onnxruntime has no wheel, OpenCV's
dnn runs the same file and gives the same scores.

The network has two heads over one trunk: rank (13 ranks + "not an index") and
suit (4 suits + "not an index"), so a deck's rank glyphs and suit symbols are
learnt separately and combine freely. Weights: ``vision/models/corner_index.onnx``,
trained by ``python -m vision.training.train``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from engine.cards import Card, Rank, Suit

__all__ = ["MODEL_PATH", "PatchScores", "normalise", "classify", "load_model", "RANKS", "SUITS"]

MODEL_PATH = Path(__file__).resolve().parent / "models" / "corner_index.onnx"
RANKS = tuple(Rank)
SUITS = (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)
NOT_INDEX_RANK = len(RANKS)
NOT_INDEX_SUIT = len(SUITS)


@dataclass(frozen=True, slots=True)
class PatchScores:
    """Per-patch softmax outputs: ``rank`` (n, 14), ``suit`` (n, 5); last column: not an index."""

    rank: np.ndarray
    suit: np.ndarray

    def best(self) -> tuple[list[Card | None], np.ndarray, np.ndarray]:
        """Returns each patch's most likely card (None when either head says "not an index"),
        the card's probability (rank x suit), and the probability that it is an index at all.
        """
        r = self.rank.argmax(axis=1)
        s = self.suit.argmax(axis=1)
        conf = self.rank[np.arange(len(r)), r] * self.suit[np.arange(len(s)), s]
        is_index = (1.0 - self.rank[:, NOT_INDEX_RANK]) * (1.0 - self.suit[:, NOT_INDEX_SUIT])
        cards: list[Card | None] = []
        for ri, si in zip(r.tolist(), s.tolist(), strict=True):
            if ri == NOT_INDEX_RANK or si == NOT_INDEX_SUIT:
                cards.append(None)
            else:
                cards.append(Card(RANKS[ri], SUITS[si]))
        return cards, conf.astype(np.float32), is_index.astype(np.float32)


def normalise(patches: np.ndarray) -> np.ndarray:
    """BGR uint8 (n, h, w, 3) -> float32 NCHW, each patch zero-mean and unit-contrast."""
    x = patches.astype(np.float32)
    flat = x.reshape(x.shape[0], -1)
    mean = flat.mean(axis=1)
    std = flat.std(axis=1)
    x = (x - mean[:, None, None, None]) / (std[:, None, None, None] + 8.0)
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2))


Runner = Callable[[np.ndarray], np.ndarray]


@lru_cache(maxsize=4)
def load_model(path: str = str(MODEL_PATH)) -> Runner:
    """Loads the ONNX classifier once per process; a missing file is an ``OSError``.

    Returns a function from a float32 NCHW batch to its (n, 19) logits.
    """
    if not Path(path).is_file():
        raise OSError(f"card classifier weights not found: {path}")
    try:
        import onnxruntime  # type: ignore[import-untyped]
    except ImportError:
        return _opencv_runner(path)
    options = onnxruntime.SessionOptions()
    # One core for the recogniser: the loop, the camera thread and the web page share the Pi.
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name

    def run(batch: np.ndarray) -> np.ndarray:
        return np.asarray(session.run(None, {name: batch})[0])

    return run


def _opencv_runner(path: str) -> Runner:
    net = cv2.dnn.readNetFromONNX(path)
    net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
    net.setPreferableTarget(cv2.dnn.DNN_TARGET_CPU)

    def run(batch: np.ndarray) -> np.ndarray:
        net.setInput(batch)
        return np.asarray(net.forward())

    return run


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def classify(patches: np.ndarray, *, model_path: str = str(MODEL_PATH)) -> PatchScores:
    """Scores a batch of upright index patches (n, 32, 32, 3) uint8."""
    n = patches.shape[0]
    if n == 0:
        return PatchScores(np.zeros((0, 14), np.float32), np.zeros((0, 5), np.float32))
    logits = load_model(model_path)(normalise(patches)).reshape(n, -1)
    return PatchScores(_softmax(logits[:, :14]), _softmax(logits[:, 14:19]))
