"""Names candidate index patches with a small CNN (ONNX).

The network runs through onnxruntime, which is about four times faster than
OpenCV's dnn module on these small batched convolutions (measured: 300 patches
in 14 ms against 52 ms on one core); where onnxruntime has no wheel, OpenCV's
dnn runs the same file and gives the same scores.

The network has two heads over one trunk: rank (13 ranks + "not an index") and
suit (4 suits + "not an index"), so a deck's rank glyphs and suit symbols are
learnt separately and combine freely. Weights: ``vision/recognise/models/corner_index.onnx``,
trained by ``python -m vision.training.train``.

Two more networks of the same shape give their opinions on the patches the
first thinks may be indices, and the opinions are averaged: the same recipe,
each trained on a harvest drawn with other seeds (``corner_index.second.onnx``
and ``corner_index.third.onnx`` beside the first). Two trainings rarely
misread the same index the same way, so a reading they share is worth more
than either alone: on decks none saw, the wrong cards of the networks before
fell from 42 to 32 with a second, and a third read 0.4-2 % more cards with
none more wrong (vision/training/README.md). Most candidates are plainly not
indices, so the others read about one patch in seven.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol, cast

import cv2
import numpy as np

from engine.cards import Card, Rank, Suit

__all__ = [
    "MODEL_PATH", "PatchScores", "Runner", "ScoreAdjuster", "normalise", "classify", "embed",
    "load_model", "other_opinion_paths", "RANKS", "SUITS", "LOGITS_OUTPUT", "EMBEDDING_OUTPUT",
    "OTHER_OPINIONS_FLOOR", "RUN_CHUNK", "first_output", "one_core_session", "ranked_cards",
]

MODEL_PATH = Path(__file__).resolve().parent / "models" / "corner_index.onnx"
# Patches the first network gives at least this chance of being an index are read by the
# other networks too (``other_opinion_paths``): one candidate in seven (held-out decks). The
# detector drops readings below 0.7 (``vision.recognise.detection.MIN_INDEX_PROBABILITY``); 0.1
# and 0.5
# read every held-out measure with the same counts as 0.3 (vision/training/README.md), so
# the floor is not a fine tuning, only a cut of the plainly-not-index patches.
OTHER_OPINIONS_FLOOR = 0.3
# The model's outputs: rank + suit logits, and the hidden layer deck teaching compares.
LOGITS_OUTPUT = "logits"
EMBEDDING_OUTPUT = "embedding"
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
        is_index = self.index_probability()
        cards: list[Card | None] = []
        for ri, si in zip(r.tolist(), s.tolist(), strict=True):
            if ri == NOT_INDEX_RANK or si == NOT_INDEX_SUIT:
                cards.append(None)
            else:
                cards.append(Card(RANKS[ri], SUITS[si]))
        return cards, conf.astype(np.float32), is_index.astype(np.float32)

    def index_probability(self) -> np.ndarray:
        """The probability that each patch is an index at all (neither head says it is not)."""
        return (1.0 - self.rank[:, NOT_INDEX_RANK]) * (1.0 - self.suit[:, NOT_INDEX_SUIT])


def ranked_cards(rank: np.ndarray, suit: np.ndarray, *, top: int = 4
                 ) -> tuple[tuple[Card, float], ...]:
    """One patch's ``top`` likeliest cards with their probabilities (rank x suit, the
    not-an-index columns left out), best first: the readings a game-aware reader may choose
    between (``firmware.table.alternatives``) and that several frames' readings combine by."""
    joint = np.outer(rank[:NOT_INDEX_RANK], suit[:NOT_INDEX_SUIT])
    order = np.argsort(-joint, axis=None, kind="stable")[:top]
    n = len(SUITS)
    return tuple((Card(RANKS[int(i) // n], SUITS[int(i) % n]), float(joint.flat[int(i)]))
                 for i in order)


def normalise(patches: np.ndarray) -> np.ndarray:
    """BGR uint8 (n, h, w, 3) -> float32 NCHW, each patch zero-mean and unit-contrast.

    The pixels are reordered while still bytes, and each patch's mean and spread
    come from exact integer-valued sums, in place: a quarter less time than
    float32 arithmetic on a copy (1.2 against 1.6 ms for a frame's 112 patches),
    and the same values to within float32 rounding.
    """
    n, count = patches.shape[0], int(np.prod(patches.shape[1:]))
    x = np.ascontiguousarray(patches.transpose(0, 3, 1, 2)).astype(np.float32)
    flat = x.reshape(n, count)
    mean = patches.reshape(n, count).sum(axis=1, dtype=np.int64) / count
    square = np.einsum("ij,ij->i", flat, flat, dtype=np.float64) / count
    std = np.sqrt(np.maximum(square - mean * mean, 0.0))
    x -= mean.astype(np.float32)[:, None, None, None]
    x /= (std + 8.0).astype(np.float32)[:, None, None, None]
    return x


class ScoreAdjuster(Protocol):
    """Changes a batch's scores in the light of its embeddings (a taught deck:
    ``vision.recognise.deck``)."""

    def adjust(self, patches: np.ndarray, scores: PatchScores, embeddings: np.ndarray
               ) -> PatchScores: ...


# A batch is run in chunks of at most this many patches: a grained table's tile can give
# thousands of candidates, and a network's activations grow with its batch (3,037 patches of
# a wooden table's tile took a read's peak RSS from 170 to 399 MB, past what a Pi Zero 2 W
# can spare); each patch's scores are the same either way.
RUN_CHUNK = 256


@dataclass(frozen=True, slots=True)
class Runner:
    """The loaded network: call it for the (n, 19) logits; ``outputs`` adds the embeddings.

    Logits alone are what recognition without a taught deck needs; the (n, 128)
    hidden layer (``embedding``, after its ReLU) is what deck teaching compares.
    """

    path: str
    logits: Callable[[np.ndarray], np.ndarray]
    both: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]] | None

    def __call__(self, batch: np.ndarray) -> np.ndarray:
        if len(batch) <= RUN_CHUNK:
            return self.logits(batch)
        return np.concatenate([self.logits(part) for part in _chunks(batch)])

    def outputs(self, batch: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Logits (n, 19) and embeddings (n, hidden) of a float32 NCHW batch."""
        both = self.both
        if both is None:
            raise OSError(f"card classifier {self.path} has no {EMBEDDING_OUTPUT!r} output: "
                          f"run python -m vision.training.add_embedding_output on it")
        if len(batch) <= RUN_CHUNK:
            return both(batch)
        parts = [both(part) for part in _chunks(batch)]
        return (np.concatenate([z for z, _ in parts]), np.concatenate([e for _, e in parts]))


def _chunks(batch: np.ndarray) -> list[np.ndarray]:
    return [batch[i:i + RUN_CHUNK] for i in range(0, len(batch), RUN_CHUNK)]


def one_core_session(path: str) -> Any:
    """An onnxruntime session of the network at ``path`` on one core with no memory kept
    between runs; None where onnxruntime has no wheel (OpenCV's dnn runs it then). Every
    network the recogniser runs (the three classifiers, the index finder) opens its session
    here."""
    try:
        import onnxruntime  # type: ignore[import-untyped]
    except ImportError:
        return None
    options = onnxruntime.SessionOptions()
    # One core for the recogniser: the loop, the camera thread and the web page share the Pi.
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    # No memory arena and no memory pattern: each of the three sessions otherwise keeps its
    # largest batch's buffers for good. The recogniser in a process with three networks and
    # cards in view: 128 -> 112 MB RSS, per batch the same time within this machine's noise
    # (benchmarks/device/loop_latency.py; 150 MB is the device's budget).
    options.enable_cpu_mem_arena = False
    options.enable_mem_pattern = False
    return onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"])


@lru_cache(maxsize=4)
def load_model(path: str = str(MODEL_PATH)) -> Runner:
    """Loads the ONNX classifier once per process; a missing file is an ``OSError``."""
    if not Path(path).is_file():
        raise OSError(f"card classifier weights not found: {path}")
    session = one_core_session(path)
    if session is None:
        return _opencv_runner(path)
    name = session.get_inputs()[0].name
    first = session.get_outputs()[0].name

    def logits(batch: np.ndarray) -> np.ndarray:
        return np.asarray(session.run([first], {name: batch})[0])

    def both(batch: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        z, e = session.run([first, EMBEDDING_OUTPUT], {name: batch})
        return np.asarray(z), np.asarray(e)

    has_embedding = EMBEDDING_OUTPUT in {o.name for o in session.get_outputs()}
    return Runner(path, logits, both if has_embedding else None)


def first_output(path: str) -> Callable[[np.ndarray], np.ndarray]:
    """The network at ``path`` as a function from a float32 NCHW batch to its first output,
    opened as the classifiers are (``one_core_session``, else OpenCV's dnn): the index
    finder's one-output network runs this way."""
    session = one_core_session(path)
    if session is None:
        return _opencv_runner(path).logits
    name = session.get_inputs()[0].name
    first = session.get_outputs()[0].name

    def run(batch: np.ndarray) -> np.ndarray:
        return np.asarray(session.run([first], {name: batch})[0])

    return run


def _opencv_runner(path: str) -> Runner:
    net = cv2.dnn.readNetFromONNX(path)
    net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
    net.setPreferableTarget(cv2.dnn.DNN_TARGET_CPU)
    names = list(net.getUnconnectedOutLayersNames())

    def forward(batch: np.ndarray) -> dict[str, np.ndarray]:
        # OpenCV 5's graph engine only runs a two-output model when asked for every output
        # by name; a bare forward() would return just one of them.
        net.setInput(batch)
        return {n: np.asarray(o) for n, o in zip(names, net.forward(names), strict=True)}

    def logits(batch: np.ndarray) -> np.ndarray:
        out = forward(batch)
        return out.get(LOGITS_OUTPUT, out[names[0]])

    def both(batch: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        out = forward(batch)
        return out[LOGITS_OUTPUT], out[EMBEDDING_OUTPUT]

    return Runner(path, logits, both if EMBEDDING_OUTPUT in names else None)


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return cast(np.ndarray, e / e.sum(axis=1, keepdims=True))


def _scores(logits: np.ndarray) -> PatchScores:
    return PatchScores(_softmax(logits[:, :14]), _softmax(logits[:, 14:19]))


def classify(patches: np.ndarray, *, model_path: str = str(MODEL_PATH),
             deck: ScoreAdjuster | None = None) -> PatchScores:
    """Scores a batch of upright index patches (n, 32, 32, 3) uint8.

    The network at ``model_path`` scores every patch; where other networks lie
    beside it (``other_opinion_paths``) the likely indices get the mean of them all.
    With ``deck`` (a taught deck, ``vision.recognise.deck.DeckProfile``) the first network
    also returns its embeddings and the deck adjusts the scores; without one the
    path is exactly the logits-only one.
    """
    n = patches.shape[0]
    if n == 0:
        return PatchScores(np.zeros((0, 14), np.float32), np.zeros((0, 5), np.float32))
    batch = normalise(patches)
    scores, embeddings = _run(batch, model_path, embeddings=deck is not None)
    others = other_opinion_paths(model_path)
    if others:
        scores = _with_other_opinions(scores, batch, [load_model(str(p)) for p in others])
    if deck is None or embeddings is None:
        return scores
    return deck.adjust(patches, scores, embeddings)


def _run(batch: np.ndarray, model_path: str, *, embeddings: bool
         ) -> tuple[PatchScores, np.ndarray | None]:
    """One network's scores of a normalised batch, and its (n, hidden) embeddings if asked:
    without them only the logits output is computed."""
    n = batch.shape[0]
    runner = load_model(model_path)
    if not embeddings:
        return _scores(runner(batch).reshape(n, 19)), None
    logits, hidden = runner.outputs(batch)
    hidden = np.asarray(hidden, np.float32)
    return _scores(logits.reshape(n, 19)), hidden.reshape(n, hidden.shape[-1])


@lru_cache(maxsize=8)
def other_opinion_paths(model_path: str) -> tuple[Path, ...]:
    """``NAME.second.onnx`` and ``NAME.third.onnx`` beside ``NAME.onnx``, those there are.

    A network tried on its own (``--model`` of the benchmarks) has none, so it is
    measured alone; the committed one has its two others beside it.
    """
    first = Path(model_path)
    others = (first.with_name(f"{first.stem}.{n}{first.suffix}") for n in ("second", "third"))
    return tuple(p for p in others if p.is_file())


def _with_other_opinions(scores: PatchScores, batch: np.ndarray, others: list[Runner]
                         ) -> PatchScores:
    asked = np.nonzero(scores.index_probability() >= OTHER_OPINIONS_FLOOR)[0]
    if asked.size == 0:
        return scores
    rank, suit = scores.rank.copy(), scores.suit.copy()
    rank_sum, suit_sum = rank[asked], suit[asked]
    likely = batch[asked]
    for runner in others:
        other = _scores(runner(likely).reshape(asked.size, 19))
        rank_sum = rank_sum + other.rank
        suit_sum = suit_sum + other.suit
    rank[asked] = rank_sum / (1 + len(others))
    suit[asked] = suit_sum / (1 + len(others))
    return PatchScores(rank, suit)


def embed(patches: np.ndarray, *, model_path: str = str(MODEL_PATH)
          ) -> tuple[PatchScores, np.ndarray]:
    """Scores a batch of index patches and returns their (n, hidden) float32 embeddings too.

    The network at ``model_path`` alone: a taught deck is the embeddings of that network,
    and teaching reads the photos with it.
    """
    n = patches.shape[0]
    batch = normalise(patches) if n else np.zeros((0, 3, *patches.shape[1:3]), np.float32)
    scores, embeddings = _run(batch, model_path, embeddings=True)
    assert embeddings is not None
    return scores, embeddings
