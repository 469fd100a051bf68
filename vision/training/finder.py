"""Trains the learned index finder (``vision.recognise.finder``, issue 62): where indices lie.

The classic candidate stage finds an index only where its glyphs clear a contrast floor; at the
device's 1280x720 a third of the lost Roboflow test cards had no candidate pair at all. This
network looks at a region shrunk so a card is ``FINDER_CARD_PX`` tall and marks, per cell of 4
pixels, how likely an index's middle lies there, the axis it runs along (rank to suit, as the
doubled angle: the dev photos' corner boxes give the axis, not which end is the rank), the
middle's offset within the cell, and the index's size.

Data, all from dev (``--fit-only`` keeps validation out, to measure on):
1. Roboflow fit photos at the device's geometry (``device_patches.device_frame``: cards 55-95 px
   per 720 rows of a 1280x720 or 2304x1296 frame, turned, re-lit, filmed by the calibrated
   camera model), their corner boxes mapped into the frame: a box's middle is an index's
   middle, its long side the index's axis (masked off where a box is nearly square).
2. Drawn deals (``vision.drawn.scene``), where every index box and its direction is exact.
3. Crops sampled turned at any angle, rescaled, exposed -1.5 to +1.5 EV, cast blue, blurred and
   noised as they are cut for each batch.

Run (one thread, at most ~40 minutes; data cached)::

    PYTHONPATH=. nice -n 10 /tmp/venv-train/bin/python -m vision.training.finder \
        --fit-only --cache /tmp/cb-finder-cache --minutes 35
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import cv2
import numpy as np

from vision.measure.datasets import LabelledImage, Split, datasets_root, load_labels
from vision.measure.photo_scale import card_height, widening
from vision.recognise.finder import (
    FINDER_CARD_PX,
    FINDER_STRIDE,
    NOMINAL_SPAN,
    OUTPUTS,
    SPAN_PER_CARD,
)
from vision.training.device_patches import CARD_ROWS, DEVICE_SIZES, device_frame

__all__ = ["POINT_COLUMNS", "TARGETS", "Region", "roboflow_regions", "drawn_regions",
           "sample_batch", "measure_regions", "measure_axes", "with_direction", "shrunk_region",
           "main"]

# An index's span (rank to suit) over its corner box's long side: a card is 4 boxes tall
# (``photo_scale.CARD_PER_INDEX_BOX``) and 9.2 spans.
SPAN_PER_BOX = 4.0 / 9.2
# A box this much longer than wide shows which way its index runs; squarer ones do not.
AXIS_ELONGATION = 0.25
CROP = 128
# Regions are cached with cards this tall; batches are cut at the network's own card height
# (``--card-px``, default ``finder.FINDER_CARD_PX``).
REGION_CARD_PX = 90.0
HEAT_SIGMA = 1.0  # cells


# A region's index rows: x, y, cos 2a, sin 2a, axis known (0/1), span in pixels, then the
# rank-to-suit direction (a unit vector) and whether it is known (0/1).
POINT_COLUMNS = 9
# The trainer's targets per cell: the finder's ``OUTPUTS`` maps, the axis mask, the mask near
# a middle, then the rank-to-suit direction (cos a, sin a) and its mask.
DIRECTION_TARGET = OUTPUTS + 2
TARGETS = OUTPUTS + 5


def with_direction(points: np.ndarray) -> np.ndarray:
    """``points`` as ``POINT_COLUMNS`` rows: the 6-column rows of old caches (and of photo
    labels, which know the axis, not the direction) get an unknown direction."""
    pts = np.asarray(points, np.float32)
    if pts.size == 0:
        return np.zeros((0, POINT_COLUMNS), np.float32)
    pts = pts.reshape(len(pts), -1)
    if pts.shape[1] == POINT_COLUMNS:
        return pts
    if pts.shape[1] != 6:
        raise ValueError(f"index rows need 6 or {POINT_COLUMNS} columns, not {pts.shape[1]}")
    return np.hstack([pts, np.zeros((len(pts), POINT_COLUMNS - 6), np.float32)])


class Region:
    """A region at the finder's scale and its indices: (n, ``POINT_COLUMNS``) rows of x, y,
    cos 2a, sin 2a, axis known (0/1), span in pixels, direction x, y, direction known (0/1)."""

    def __init__(self, image: np.ndarray, points: np.ndarray) -> None:
        self.image = image
        self.points = with_direction(points)


def _box_points(item: LabelledImage, to_frame: np.ndarray) -> np.ndarray:
    """The item's corner boxes as index points in frame pixels (affine ``to_frame`` from the
    stored photo's pixels, its widening included)."""
    rows = []
    lin = to_frame[:, :2]
    for _, (x0, y0, x1, y1) in item.corner_boxes:
        mid = to_frame @ np.array([(x0 + x1) / 2, (y0 + y1) / 2, 1.0])
        across, down = lin @ np.array([x1 - x0, 0.0]), lin @ np.array([0.0, y1 - y0])
        wide, tall = float(np.hypot(*across)), float(np.hypot(*down))
        axis = down if tall >= wide else across
        angle = math.atan2(axis[1], axis[0])
        known = float(abs(wide - tall) > AXIS_ELONGATION * max(wide, tall))
        rows.append([mid[0], mid[1], math.cos(2 * angle), math.sin(2 * angle), known,
                     SPAN_PER_BOX * max(wide, tall), 0.0, 0.0, 0.0])
    return np.array(rows, np.float32).reshape(-1, POINT_COLUMNS)


def shrunk_region(image: np.ndarray, points: np.ndarray, factor: float,
                  keep: tuple[float, float, float, float] | None = None) -> Region:
    """``image`` and ``points`` resized by ``factor``, cut to ``keep`` (x0, y0, x1, y1 in the
    image's pixels) grown by a crop's half."""
    small = cv2.resize(image, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    pts = points.copy()
    pts[:, [0, 1, 5]] *= factor
    if keep is not None:
        h, w = small.shape[:2]
        x0 = max(0, int(keep[0] * factor) - CROP // 2)
        y0 = max(0, int(keep[1] * factor) - CROP // 2)
        x1 = min(w, int(keep[2] * factor) + CROP // 2)
        y1 = min(h, int(keep[3] * factor) + CROP // 2)
        small = small[y0:y1, x0:x1]
        pts[:, 0] -= x0
        pts[:, 1] -= y0
    return Region(np.ascontiguousarray(small), pts)


def boxed_photos(images: Sequence[LabelledImage], dataset: str
                 ) -> Iterator[tuple[LabelledImage, np.ndarray, float, float]]:
    """Each readable photo of ``images`` with corner boxes: the item, the photo as stored,
    its widening and its card height in pixels (``photo_scale``)."""
    for item in images:
        if not item.corner_boxes:
            continue
        photo = cv2.imread(str(item.path), cv2.IMREAD_COLOR)
        if photo is None:
            continue
        widen = widening(photo, item.path.name)
        height = card_height(item, (photo.shape[0], int(round(photo.shape[1] * widen)), 3),
                             dataset)
        yield item, photo, widen, height


def roboflow_regions(images: list[LabelledImage], dataset: str, *, frames: int, seed: int
                     ) -> list[Region]:
    """Each photo with corner boxes as ``frames`` device frames, at the finder's scale."""
    rng = np.random.default_rng(seed)
    out = []
    for item, photo, widen, true_height in boxed_photos(images, dataset):
        for _ in range(frames):
            size = DEVICE_SIZES[int(rng.integers(len(DEVICE_SIZES)))]
            rows = float(rng.uniform(*CARD_ROWS)) * size[1] / 720
            angle = float(rng.uniform(-180, 180))
            f = device_frame(photo, widen=widen, scale=rows / true_height, angle=angle,
                             size=size, rng=rng)
            to_frame = np.linalg.inv(np.vstack([f.to_photo, [0, 0, 1]]))[:2]
            # Through the widening: the affine maps stored photo pixels already.
            pts = _box_points(item, to_frame)
            corners = np.array([[0, 0, 1], [photo.shape[1], 0, 1],
                                [photo.shape[1], photo.shape[0], 1], [0, photo.shape[0], 1]],
                               np.float64) @ to_frame.T
            keep = (float(corners[:, 0].min()), float(corners[:, 1].min()),
                    float(corners[:, 0].max()), float(corners[:, 1].max()))
            out.append(shrunk_region(f.image, pts, REGION_CARD_PX / f.card_px, keep))
    return out


def drawn_regions(scenes: int, *, frames: int, seed: int) -> list[Region]:
    """Frames of drawn deals, every visible face-up index marked with its exact direction."""
    from vision.drawn.scene import SceneRenderer, SceneSettings
    from vision.recognise.geometry import points_in_quad
    from vision.training.drawn import _index_regions, drawn_boxes, scripted_deal

    out = []
    settings = SceneSettings(frames_per_step=3, hand_frames=1)
    for k in range(scenes):
        _, rng, script = scripted_deal(seed, k)
        renderer = SceneRenderer(script, rng=rng, settings=settings)
        boxes = drawn_boxes(renderer.style)
        for index in rng.choice(renderer.frame_count, size=min(frames, renderer.frame_count),
                                replace=False):
            frame = renderer.render(int(index))
            rows = []
            heights = []
            for j, t in enumerate(frame.truth):
                c = np.asarray(t.corners, np.float64)
                heights.append(float(np.hypot(*(c[3] - c[0]))))
                if not t.face_up:
                    continue
                for quad, down in _index_regions(t, boxes):
                    mid = quad.mean(axis=0)
                    covered = any(points_in_quad(mid[None], np.asarray(a.corners))[0]
                                  for a in frame.truth[j + 1:])
                    if covered:
                        continue
                    a = math.atan2(down[1], down[0])
                    # ``down`` is the index's upright down: from its rank to its suit.
                    rows.append([mid[0], mid[1], math.cos(2 * a), math.sin(2 * a), 1.0,
                                 heights[-1] * SPAN_PER_CARD, down[0], down[1], 1.0])
            if not heights:
                continue
            card = float(np.median(heights))
            pts = np.array(rows, np.float32).reshape(-1, POINT_COLUMNS)
            out.append(shrunk_region(frame.image, pts, REGION_CARD_PX / card))
    return out


def _augment_pixels(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Exposure -1.5 to +1.5 EV (clipping), contrast cuts, blue or warm casts, blur, noise."""
    x: np.ndarray = crop.astype(np.float32)
    x *= float(2.0 ** rng.uniform(-1.5, 1.5))
    if rng.random() < 0.3:
        m = float(x.mean())
        x = (x - m) * float(rng.uniform(0.5, 1.0)) + m
    if rng.random() < 0.4:
        cast = np.array([rng.uniform(1.0, 1.35), rng.uniform(0.9, 1.05), rng.uniform(0.7, 1.0)],
                        np.float32)  # BGR: blue up, red down
        x *= cast if rng.random() < 0.7 else cast[::-1]
    if rng.random() < 0.4:
        x = cv2.GaussianBlur(x, (0, 0), float(rng.uniform(0.4, 1.2)))
    if rng.random() < 0.5:
        x += rng.normal(0, rng.uniform(1, 8), x.shape).astype(np.float32)
    return np.asarray(np.clip(x, 0, 255), np.uint8)


def _targets(points: np.ndarray, nominal: float = NOMINAL_SPAN) -> np.ndarray:
    """(TARGETS, CROP / stride, same) targets: heat, cos 2a, sin 2a, dx, dy, log span, the
    masks of the axis and of the offsets and span, then the rank-to-suit direction's cos and
    sin and its mask."""
    cells = CROP // FINDER_STRIDE
    t = np.zeros((TARGETS, cells, cells), np.float32)
    ys, xs = np.mgrid[0:cells, 0:cells].astype(np.float32)
    for x, y, c2, s2, known, span, dx, dy, way in with_direction(points).tolist():
        cx, cy = x / FINDER_STRIDE - 0.5, y / FINDER_STRIDE - 0.5  # cell units, cell centres
        heat = np.exp(-((xs - cx) ** 2 + (ys - cy) ** 2) / (2 * HEAT_SIGMA ** 2))
        t[0] = np.maximum(t[0], heat)
        near = (np.abs(xs - cx) <= 1.0) & (np.abs(ys - cy) <= 1.0)
        if known:
            t[1][near], t[2][near], t[OUTPUTS][near] = c2, s2, 1.0
        t[3][near] = (cx - xs)[near]
        t[4][near] = (cy - ys)[near]
        t[5][near] = math.log(max(span, 1.0) / nominal)
        t[OUTPUTS + 1][near] = 1.0
        if way:
            d = DIRECTION_TARGET
            t[d][near], t[d + 1][near], t[d + 2][near] = dx, dy, 1.0
    return t


def _cut(region: Region, rng: np.random.Generator, shrink: float = 1.0
         ) -> tuple[np.ndarray, np.ndarray]:
    """A CROP square of ``region`` about an index (or anywhere), turned and rescaled."""
    h, w = region.image.shape[:2]
    pts = region.points
    if len(pts) and rng.random() < 0.7:
        p = pts[int(rng.integers(len(pts)))]
        centre = p[:2] + rng.uniform(-CROP * 0.35, CROP * 0.35, 2)
    else:
        centre = np.array([rng.uniform(0, w), rng.uniform(0, h)])
    angle = float(rng.uniform(-180, 180))
    scale = float(2.0 ** rng.uniform(-0.35, 0.35)) * shrink
    m = cv2.getRotationMatrix2D((float(centre[0]), float(centre[1])), angle, scale)
    m[:, 2] += np.array([CROP / 2, CROP / 2]) - centre
    crop = cv2.warpAffine(region.image, m, (CROP, CROP), flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REFLECT)
    out = pts.copy()
    if len(out):
        xy = out[:, :2] @ m[:, :2].T + m[:, 2]
        turn = -math.radians(angle) * 2  # getRotationMatrix2D turns anticlockwise on screen
        c, s = math.cos(turn), math.sin(turn)
        c2 = out[:, 2] * c - out[:, 3] * s
        s2 = out[:, 2] * s + out[:, 3] * c
        # The rank-to-suit direction turns as the crop does (the scale cancels).
        way = out[:, 6:8] @ m[:, :2].T
        way = way / np.maximum(np.hypot(way[:, 0], way[:, 1]), 1e-9)[:, None]
        out = np.column_stack([xy, c2, s2, out[:, 4], out[:, 5] * scale, way, out[:, 8]])
        inside = ((out[:, 0] > -8) & (out[:, 0] < CROP + 8) & (out[:, 1] > -8)
                  & (out[:, 1] < CROP + 8))
        out = out[inside]
    return crop, out


def sample_batch(regions: list[Region], size: int, rng: np.random.Generator,
                 card_px: float = FINDER_CARD_PX) -> tuple[np.ndarray, np.ndarray]:
    """A batch at cards ``card_px`` tall: float32 NCHW inputs (``finder.normalise``) and their
    targets."""
    from vision.recognise.finder import normalise
    xs, ts = [], []
    for _ in range(size):
        crop, pts = _cut(regions[int(rng.integers(len(regions)))], rng, card_px / REGION_CARD_PX)
        xs.append(_augment_pixels(crop, rng))
        ts.append(_targets(pts, card_px * SPAN_PER_CARD))
    return normalise(np.stack(xs)), np.stack(ts)


def measure_regions(onnx_path: str, regions: list[Region], threshold: float
                    ) -> tuple[int, int, int]:
    """(indices found within half a span, indices, peaks away from every index) of the finder
    at ``onnx_path`` over ``regions`` at the finder's scale."""
    from vision.recognise.finder import IndexFinder, load_finder
    loaded = load_finder(onnx_path)
    finder = IndexFinder(loaded._run, onnx_path, threshold)
    hit = total = stray = 0
    for r in regions:
        found = finder.find(r.image, REGION_CARD_PX)
        mid = np.unique(np.round(0.5 * (found.rank_xy + found.suit_xy), 2), axis=0)
        total += len(r.points)
        if len(r.points) == 0:
            stray += len(mid)
            continue
        d = np.hypot(mid[:, None, 0] - r.points[None, :, 0], mid[:, None, 1] - r.points[None, :, 1])
        close = d < 0.5 * r.points[None, :, 5]
        hit += int(close.any(axis=0).sum())
        stray += int((~close.any(axis=1)).sum())
    return hit, total, stray


def measure_axes(onnx_path: str, regions: list[Region]) -> tuple[float, float | None]:
    """(the median error in degrees of the finder's axis at each index middle whose axis is
    known, the share of known rank-to-suit directions its direction maps point within 90
    degrees of; None where it has none) over ``regions`` at the finder's scale."""
    from vision.recognise.finder import load_finder
    finder = load_finder(onnx_path)
    errors: list[float] = []
    right: list[bool] = []
    for r in regions:
        if not len(r.points):
            continue
        m = finder.maps(r.image)
        h, w = m.shape[1:]
        for x, y, c2, s2, known, _, dx, dy, way in r.points.tolist():
            cx, cy = int(x // FINDER_STRIDE), int(y // FINDER_STRIDE)
            if not (0 <= cx < w and 0 <= cy < h):
                continue
            if known:
                turn = math.atan2(math.tanh(m[2, cy, cx]), math.tanh(m[1, cy, cx])) \
                    - math.atan2(s2, c2)
                errors.append(abs(math.degrees(math.remainder(turn, 2 * math.pi))) / 2)
            if way and m.shape[0] > OUTPUTS:
                right.append(float(m[OUTPUTS, cy, cx]) * dx + float(m[OUTPUTS + 1, cy, cx]) * dy
                             > 0)
    return (float(np.median(errors)) if errors else math.nan,
            float(np.mean(right)) if right else None)


def _load_or_make(cache: Path | None, name: str, make: Callable[[], list[Region]]
                  ) -> list[Region]:
    """Regions cached under ``cache`` as ``name``, made by ``make`` the first time."""
    path = cache / f"{name}.npz" if cache else None
    if path is not None and path.is_file():
        z = np.load(path, allow_pickle=False)
        n = int(z["n"])
        return [Region(z[f"i{k}"], z[f"p{k}"]) for k in range(n)]
    regions = make()
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        arrays: dict[str, np.ndarray] = {f"i{k}": r.image for k, r in enumerate(regions)}
        arrays.update({f"p{k}": r.points for k, r in enumerate(regions)})
        arrays["n"] = np.array(len(regions))
        np.savez(path, **arrays)  # type: ignore[arg-type]
    return regions


def _theme_regions(dataset: Path, part: Split, frames: int, seed: int) -> list[Region]:
    """Frames of the training half of Debian's card themes on tables cut from ``dataset``'s
    ``part`` photos (``finder_themes``)."""
    from vision.training.facedecks import FACE_FOLDER, NO_THEMES, load_face_decks
    from vision.training.finder_themes import table_textures, theme_regions

    decks = load_face_decks(FACE_FOLDER, half="train")
    if not decks:
        raise SystemExit(f"{NO_THEMES} (here: --theme-frames 0)")
    textures = table_textures(load_labels(dataset, split=part), dataset.name, seed=seed)
    print(f"{len(decks)} theme decks, {len(textures)} table textures", flush=True)
    return theme_regions(decks, textures, frames=frames, seed=seed)


def _pool(pick: float, real: list[Region], drawn: list[Region], themes: list[Region], *,
          real_share: float, theme_share: float) -> list[Region]:
    """The regions a batch is cut from, for a uniform ``pick`` in [0, 1): the photos below
    ``real_share``, the theme frames from ``1 - theme_share`` up, the drawn deals between;
    a source that is empty gives its share to the next (drawn, then themes, then photos)."""
    if pick < real_share or not (drawn or themes):
        return real
    if themes and (pick >= 1 - theme_share or not drawn):
        return themes
    return drawn


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fit-only", action="store_true", help="leave dev's validation fold out")
    ap.add_argument("--cache", type=Path, default=None)
    ap.add_argument("--frames", type=int, default=6, help="device frames per Roboflow photo")
    ap.add_argument("--scenes", type=int, default=80, help="drawn deals")
    ap.add_argument("--scene-frames", type=int, default=4)
    ap.add_argument("--theme-frames", type=int, default=320,
                    help="frames of Debian's card themes (training half) on real tables; 0: none")
    ap.add_argument("--real-share", type=float, default=0.6,
                    help="share of batches cut from the Roboflow photos (the rest drawn, themes)")
    ap.add_argument("--theme-share", type=float, default=0.2,
                    help="share of batches cut from the theme frames")
    ap.add_argument("--direction-weight", type=float, default=0.1,
                    help="weight of the rank-to-suit direction in the loss")
    ap.add_argument("--minutes", type=float, default=35.0)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--card-px", type=float, default=FINDER_CARD_PX,
                    help="card height the network reads at (finder.FINDER_CARD_PX)")
    ap.add_argument("--width", type=int, default=16, help="channels of the deeper layers")
    ap.add_argument("--out", type=Path, default=Path("vision/recognise/models/index_finder.onnx"))
    args = ap.parse_args(argv)

    import torch

    from vision.training.finder_net import build, export, loss_of

    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    t0 = time.time()
    root = datasets_root()
    if root is None:
        raise SystemExit("no datasets: set CB_DATASETS or lay them in shared/datasets")
    rb = "roboflow-cardcounterml"
    part: Split = "fit" if args.fit_only else "dev"
    real = _load_or_make(args.cache, f"roboflow-{part}-{args.frames}-{args.seed}",
                         lambda: roboflow_regions(load_labels(root / rb, split=part), rb,
                                                  frames=args.frames, seed=31 + args.seed))
    print(f"roboflow regions {len(real)}, indices {sum(len(r.points) for r in real)} "
          f"({time.time() - t0:.0f}s)", flush=True)
    drawn = _load_or_make(args.cache, f"drawn-{args.scenes}x{args.scene_frames}-{args.seed}",
                          lambda: drawn_regions(args.scenes, frames=args.scene_frames,
                                                seed=41 + args.seed))
    print(f"drawn regions {len(drawn)}, indices {sum(len(r.points) for r in drawn)} "
          f"({time.time() - t0:.0f}s)", flush=True)
    val = _load_or_make(args.cache, f"roboflow-val-2-{args.seed}",
                        lambda: roboflow_regions(load_labels(root / rb, split="val"), rb,
                                                 frames=2, seed=51 + args.seed))
    print(f"val regions {len(val)} ({time.time() - t0:.0f}s)", flush=True)
    themes: list[Region] = []
    if args.theme_frames:
        themes = _load_or_make(args.cache, f"themes-{part}-{args.theme_frames}-{args.seed}",
                               lambda: _theme_regions(root / rb, part, args.theme_frames,
                                                      61 + args.seed))
        print(f"theme regions {len(themes)}, indices {sum(len(r.points) for r in themes)} "
              f"({time.time() - t0:.0f}s)", flush=True)
    rng = np.random.default_rng(args.seed)
    vrng = np.random.default_rng(999)
    vx, vt = sample_batch(val, 256, vrng, args.card_px)
    net = build(args.width)
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    start = time.time()
    step = 0
    total = args.minutes * 60
    while time.time() - start < total:
        frac = (time.time() - start) / total
        for g in opt.param_groups:
            g["lr"] = 3e-3 * 0.5 * (1 + math.cos(math.pi * frac))
        pool = _pool(float(rng.random()), real, drawn, themes, real_share=args.real_share,
                     theme_share=args.theme_share)
        x, t = sample_batch(pool, args.batch, rng, args.card_px)
        loss, parts = loss_of(net(torch.from_numpy(x)), torch.from_numpy(t),
                              args.direction_weight)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step % 200 == 0:
            with torch.no_grad():
                net.eval()
                vl, vparts = loss_of(net(torch.from_numpy(vx)), torch.from_numpy(vt),
                                     args.direction_weight)
                net.train()
            print(f"step {step} ({time.time() - t0:.0f}s) loss {loss.item():.4f} "
                  f"{' '.join(f'{p:.3f}' for p in parts)} | val {vl.item():.4f} "
                  f"{' '.join(f'{p:.3f}' for p in vparts)}", flush=True)
    export(net, args.out)
    print(f"wrote {args.out} after {step} steps ({time.time() - t0:.0f}s)", flush=True)


if __name__ == "__main__":
    main()
