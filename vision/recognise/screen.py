"""A cheap screen in front of the CNN: drops candidate patches that cannot be an index.

The candidate stage pairs every glyph-sized blob with its neighbours, so a
1280x720 frame of a table yields a few hundred candidate patches, of which
about one in thirty is a corner index; running the CNN on all of them was a
third of the frame's time. A one-hidden-layer perceptron over the patch's
ink, pooled to 16x16 and standardised, rejects about four in five of them for
the price of two small matrix products. It is trained (``python -m vision.training.screen``) to
pass what the CNN would call an index, and its threshold is set so that
nearly every such patch passes: the CNN, not the screen, decides what a
patch is.

Weights: ``vision/recognise/models/index_screen.npz`` (a few kB).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

__all__ = ["SCREEN_PATH", "IndexScreen", "screen_features", "load_screen"]

SCREEN_PATH = Path(__file__).resolve().parent / "models" / "index_screen.npz"
# Pooled side of the screen's view of a patch.
POOLED = 16
FORMAT = 1


def screen_features(patches: np.ndarray) -> np.ndarray:
    """Patches (n, 32, 32, 3) uint8 -> (n, 256) float32: darkest channel, pooled, standardised.

    The darkest channel keeps black and red ink alike dark on light paper
    (candidates of light-ink decks arrive inverted), so one set of weights
    serves every ink colour.
    """
    n, side = patches.shape[0], patches.shape[1]
    # Elementwise minima and strided sums: numpy's reductions over tiny axes are slow.
    ink = np.minimum(np.minimum(patches[..., 0], patches[..., 1]), patches[..., 2])
    f = side // POOLED
    sums = np.zeros((n, POOLED, POOLED), np.float32)
    for dy in range(f):
        for dx in range(f):
            sums += ink[:, dy::f, dx::f]
    pooled: np.ndarray = sums.reshape(n, -1)
    pooled -= pooled.mean(axis=1, keepdims=True)
    pooled /= pooled.std(axis=1, keepdims=True) + 4.0 * f * f
    return pooled


@dataclass(frozen=True, slots=True)
class IndexScreen:
    """A small perceptron over ``screen_features`` and the score a patch must reach to pass."""

    hidden_weights: np.ndarray  # (256, h) float32
    hidden_bias: np.ndarray  # (h,) float32
    out_weights: np.ndarray  # (h,) float32
    out_bias: float
    threshold: float

    def scores(self, patches: np.ndarray) -> np.ndarray:
        if patches.shape[0] == 0:
            return np.zeros(0, np.float32)
        hidden = np.maximum(screen_features(patches) @ self.hidden_weights + self.hidden_bias, 0)
        scores: np.ndarray = hidden @ self.out_weights + np.float32(self.out_bias)
        return scores

    def passes(self, patches: np.ndarray) -> np.ndarray:
        """Which patches go on to the CNN."""
        return self.scores(patches) >= self.threshold

    def save(self, path: str | Path) -> None:
        np.savez(path, format=np.int64(FORMAT),
                 hidden_weights=self.hidden_weights.astype(np.float32),
                 hidden_bias=self.hidden_bias.astype(np.float32),
                 out_weights=self.out_weights.astype(np.float32),
                 out_bias=np.float32(self.out_bias), threshold=np.float32(self.threshold))


@lru_cache(maxsize=4)
def load_screen(path: str = str(SCREEN_PATH)) -> IndexScreen:
    """Loads the screen once per process; a missing or malformed file is an ``OSError``."""
    try:
        with np.load(path) as data:
            version = int(data["format"])
            w1 = np.asarray(data["hidden_weights"], np.float32)
            b1 = np.asarray(data["hidden_bias"], np.float32)
            w2 = np.asarray(data["out_weights"], np.float32)
            bias, threshold = float(data["out_bias"]), float(data["threshold"])
    except (OSError, KeyError, ValueError) as exc:
        raise OSError(f"index screen weights unreadable: {path}: {exc}") from None
    features = POOLED * POOLED
    if version != FORMAT or w1.ndim != 2 or w1.shape[0] != features \
            or b1.shape != w1.shape[1:] or w2.shape != w1.shape[1:]:
        raise OSError(f"index screen weights {path} are format {version} with shapes "
                      f"{w1.shape}, {b1.shape}, {w2.shape}; this code reads format {FORMAT}, "
                      f"({features}, h), (h,), (h,)")
    return IndexScreen(w1, b1, w2, bias, threshold)
