"""Per-batch jitter of training patches (numpy and OpenCV only, so the tests run without torch).

Real candidates' glyph centroids wander, so their patches turn, scale and shift a
little, and some are out of focus; lighting and the camera change brightness,
colour and noise. Indices are also seen foreshortened: a camera looking at the
table aslant, or a photo resized to a square (the Roboflow set's 640x640 copies
of 16:9 and 4:3 shots), narrows every glyph along one direction of the frame.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.training.filmed import Filming, film_patches

__all__ = ["augment", "squash_map", "SQUASH_RANGE"]

# How far a squashed patch is narrowed across its line: a 16:9 shot resized to a square
# keeps 0.56 of its width; an aslant camera foreshortens less.
SQUASH_RANGE = (0.55, 1.0)


def squash_map(axis: float, factor: float) -> np.ndarray:
    """A patch's 2x2 map squashed by ``factor`` across a line at ``axis`` radians.

    The down direction (rank to suit, the patch's y) is kept unit long, because the
    candidate stage cuts every patch to its rank-to-suit span: only the glyphs' shape
    changes, never the patch's scale along the index.
    """
    c, s = np.cos(axis), np.sin(axis)
    rot = np.array([[c, -s], [s, c]])
    lin: np.ndarray = rot @ np.diag([factor, 1.0]) @ rot.T
    return lin / float(np.hypot(*lin[:, 1]))


def augment(x: np.ndarray, rng: np.random.Generator, stretch: float = 0.0,
            filming: Filming | None = None) -> np.ndarray:
    """Jittered copies of the uint8 patches ``x`` (n, h, w, 3); a ``stretch`` share squashed.

    With ``filming`` (``filmed.py``) a share of them is first filmed through the calibrated
    camera at a device card size, in place of the Gaussian blur, which those then skip.
    """
    n: int = x.shape[0]
    out = np.empty_like(x)
    angle = rng.normal(0, 6, n)
    scale = rng.uniform(0.88, 1.12, n)
    shift = rng.normal(0, 1.0, (n, 2))
    blur = rng.random(n) < 0.2
    squashes: dict[int, np.ndarray] = {}
    if stretch:  # drawn only when asked for, so that a training without it repeats the ones before
        chosen = rng.random(n) < stretch
        axis, factor = rng.uniform(0, np.pi, n), rng.uniform(*SQUASH_RANGE, n)
        squashes = {i: squash_map(axis[i], factor[i]) for i in np.nonzero(chosen)[0].tolist()}
    if filming is not None:  # drawn after the rest, so that a training without it is unchanged
        x, filmed = film_patches(x, rng, filming)
        blur &= ~filmed
    c = (x.shape[2] - 1) / 2
    middle = np.array([c, c])
    for i in range(n):
        m = cv2.getRotationMatrix2D((c, c), float(angle[i]), float(scale[i]))
        if i in squashes:
            lin = m[:, :2] @ squashes[i]
            m = np.hstack([lin, (middle - lin @ middle)[:, None]])
        m[:, 2] += shift[i]
        out[i] = cv2.warpAffine(x[i], m, (x.shape[2], x.shape[1]),
                                borderMode=cv2.BORDER_REPLICATE)
        if blur[i]:
            out[i] = cv2.GaussianBlur(out[i], (3, 3), float(rng.uniform(0.5, 1.0)))
    y: np.ndarray = out.astype(np.float32)
    y = y * rng.uniform(0.7, 1.3, (n, 1, 1, 1)) + rng.uniform(-30, 30, (n, 1, 1, 1))
    y = y * rng.uniform(0.85, 1.15, (n, 1, 1, 3))  # colour cast
    y += rng.normal(0, 1, y.shape) * rng.uniform(0, 8, (n, 1, 1, 1))
    return np.clip(y, 0, 255).astype(np.uint8)
