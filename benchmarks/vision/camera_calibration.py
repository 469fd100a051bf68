"""The drawn camera against real frames of the same card height: blur, noise, chroma, recall.

    python benchmarks/vision/camera_calibration.py [--photos N] [--seeds 1,2,3,4] [--json]

Each source is measured the same way, with no labels (``vision.drawn.frame_stats``): edge
width (median 10-90 % rise of ink-on-paper and card-on-table edges, px, with the Gaussian
sigma it stands for), noise of flat blocks (all, and paper only), the chroma's rise at colour
edges, JPEG blockiness and thin-stroke contrast; then recall by a fresh ``CameraRecogniser``
per frame, told the device's card height.

Real sources (``../shared/datasets``, dev split, the first ``--photos`` of each):
``epfl-3000 device`` and ``roboflow webcam device``: the 3000 px EPFL photos and the
Roboflow set's ``WIN_`` webcam photos (widened back to 16:9) scaled so their cards are 86 px
in 1280x720 and 154 px in 2304x1296, as ``accuracy.py --geometry device:WxH`` makes them
(sharper than a camera: the lower bound on blur); ``epfl-1600 as taken`` (cards about
150 px) and ``roboflow webcam as taken`` (the stored 640x640 webcam photos, cards about
160 px: the one real small camera here, itself scaled from 1080 rows). Index contrast
needs the indices' boxes: the Roboflow labels' corner boxes, the drawn frames' truth.

Drawn sources: the seed's two-player deal laid as ``TableLayout.for_camera`` sizes it,
still frames (no hand) of the last step and of the fourth from last, filmed by
``camera-module-3`` at 1280x720 and 2304x1296 (the calibrated model, and ``before``: the
parameters before calibration, 0.7 output px of lens blur at 1280x720 and the 0.45
scaler), the crisp drawing (``ideal``, same card height) and ``usb-webcam`` at 1920x1080
(also squashed to 640x640 and saved as JPEG, as the Roboflow export stored its webcam's
photos, to set beside them).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any, NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from benchmarks.vision.photos import (  # noqa: E402
    EPFL,
    EPFL_3000,
    EPFL_3000_CARD_HEIGHT,
    ROBOFLOW,
    card_height,
    device_frame,
    widened,
)
from engine.cards import Card  # noqa: E402
from vision.drawn.camera_model import (  # noqa: E402
    CAMERA_MODULE_3,
    USB_WEBCAM,
    CameraModel,
    jpeg,
)
from vision.drawn.cardart import CARD_ASPECT, index_boxes  # noqa: E402
from vision.drawn.frame_stats import FrameStats, box_quad, frame_stats, sigma_of_edge_width  # noqa: E402
from vision.drawn.scene import SceneRenderer, SceneSettings, Script, TableLayout  # noqa: E402
from vision.live.motion import WatchSettings  # noqa: E402
from vision.measure.datasets import LabelledImage, datasets_root, load_labels  # noqa: E402
from vision.recognise.detection import CameraRecogniser  # noqa: E402
from vision.recognise.imagefile import read_image  # noqa: E402

#: The Camera Module 3 model as it was before calibration (2026-11-27): 0.7 px of lens blur
#: in 1280x720 pixels (2.52 px of the 4608 px sensor), a 0.45 scaler, 12 electrons a level
#: and 1.5 levels of read noise. The sensor round trip was linear then (cubic now), so this
#: reads a little sharper than the old code did.
BEFORE = replace(CAMERA_MODULE_3, name="camera-module-3 before", lens_blur=0.7 * 4608 / 1280,
                 scaler_sigma=0.45, electrons=12.0, read_noise=1.5)
ROBOFLOW_SIZE = (640, 640)  # the Roboflow export's stored size
DEVICE_CARD = 86.0  # px at 1280x720: a Camera Module 3 1.0 m over the table


class Shot(NamedTuple):
    """A frame to measure: its pixels, the cards to read, its corner indices' quads."""

    image: np.ndarray
    cards: frozenset[Card]
    indices: tuple[np.ndarray, ...]


def real_sources(root: Path, photos: int) -> dict[str, list[Shot]]:
    """The real frames: each source's first ``photos`` dev photos."""
    out: dict[str, list[Shot]] = {}
    epfl = load_labels(root / EPFL_3000, split="dev")[:photos]
    webcam = [i for i in load_labels(root / ROBOFLOW, split="dev")
              if i.path.name.startswith("WIN_")][:photos]
    for size in ((1280, 720), (2304, 1296)):
        card = DEVICE_CARD * size[1] / 720
        out[f"real epfl-3000 device {size[0]}x{size[1]}"] = [
            Shot(device_frame(read_image(i.path), card / EPFL_3000_CARD_HEIGHT, size),
                 i.cards, ()) for i in epfl]
        out[f"real roboflow webcam device {size[0]}x{size[1]}"] = [
            _webcam_device(i, card, size) for i in webcam]
    small = load_labels(root / EPFL, split="dev")[:photos]
    out["real epfl-1600 as taken"] = [Shot(read_image(i.path), i.cards, ()) for i in small]
    out["real roboflow webcam as taken"] = [
        Shot(read_image(i.path), i.cards, tuple(box_quad(b) for _, b in i.corner_boxes))
        for i in webcam]
    return out


def _webcam_device(item: LabelledImage, card: float, size: tuple[int, int]) -> Shot:
    """A Roboflow webcam photo widened back to 16:9 and scaled so its cards are ``card``
    px tall in a frame of ``size`` (``photos.device_frame``), its corner boxes with it."""
    stored = read_image(item.path)
    photo = widened(stored, item.path.name)
    scale = card / card_height(item, photo.shape, ROBOFLOW)
    frame = device_frame(photo, scale, size)
    sx, sy = photo.shape[1] / stored.shape[1] * scale, photo.shape[0] / stored.shape[0] * scale
    sw, sh = round(photo.shape[1] * scale), round(photo.shape[0] * scale)
    ox, oy = (frame.shape[1] - sw) // 2, (frame.shape[0] - sh) // 2
    quads = tuple(box_quad((b[0] * sx + ox, b[1] * sy + oy, b[2] * sx + ox, b[3] * sy + oy))
                  for _, b in item.corner_boxes)
    return Shot(frame, item.cards, quads)


def drawn_shots(camera: CameraModel | None, size: tuple[int, int], seeds: list[int]
                ) -> list[Shot]:
    """Still frames of each seed's deal filmed by ``camera`` (None: the crisp drawing with
    cards the Camera Module 3's size): the last step and the fourth from last, with both
    indices of each face-up card at least half in view."""
    layout_camera = camera or CAMERA_MODULE_3
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    shots = []
    for seed in seeds:
        script = Script.two_player_deal(seed, layout=TableLayout.for_camera(2, layout_camera))
        settings = (SceneSettings(camera=camera, size=size) if camera is not None
                    else SceneSettings(size=size, blur=0.0, noise=0.0))
        renderer = SceneRenderer(script, rng=np.random.default_rng(seed), settings=settings)
        height = 100
        boxes = [box_quad((x0 / (height * CARD_ASPECT), y0 / height,
                           x1 / (height * CARD_ASPECT), y1 / height))
                 for x0, y0, x1, y1 in index_boxes(height, renderer.style)]
        for back in (1, 4):
            step_no = len(script.steps) - back
            frame = renderer.render_step(script.steps[step_no], key=10 ** 6 + step_no,
                                         within=settings.frames_per_step - 1, step_no=step_no)
            shown = [t for t in frame.truth if t.face_up and t.visible > 0.5]
            quads = []
            for t in shown:
                to_frame = cv2.getPerspectiveTransform(unit, np.array(t.corners, np.float32))
                quads += [cv2.perspectiveTransform(b.reshape(-1, 1, 2), to_frame).reshape(4, 2)
                          for b in boxes]
            shots.append(Shot(frame.image, frozenset(t.card for t in shown), tuple(quads)))
    return shots


def measure(shots: list[Shot], *, recall: bool = True) -> dict[str, Any]:
    """Median measurements over the frames, and recall / wrong cards over them."""
    stats = [frame_stats(shot.image, indices=shot.indices) for shot in shots]

    def median(key: str) -> float:
        values = [getattr(s, key) for s in stats if not math.isnan(getattr(s, key))]
        return round(float(np.median(values)), 3) if values else math.nan

    row: dict[str, Any] = {"frames": len(shots),
                           **{k: median(k) for k in FrameStats.__dataclass_fields__}}
    row["blur_sigma"] = round(sigma_of_edge_width(row["edge_width"]), 3)
    if recall:
        labelled = right = found = 0
        for image, cards, _ in shots:
            card_px = WatchSettings().card_fraction * image.shape[0]
            seen = {d.card for d in CameraRecogniser()(image, card_px=card_px)
                    if d.card is not None}
            labelled, right, found = (labelled + len(cards), right + len(seen & cards),
                                      found + len(seen))
        row.update(cards=labelled, recall=round(right / max(1, labelled), 3),
                   wrong=found - right)
    return row


def run(photos: int, seeds: list[int]) -> dict[str, dict[str, Any]]:
    cv2.setNumThreads(1)
    rows: dict[str, dict[str, Any]] = {}
    root = datasets_root()
    if root is not None:
        for name, shots in real_sources(root, photos).items():
            # Only the device-geometry frames are read at the device's card height.
            rows[name] = measure(shots, recall="device" in name)
    for name, camera, size in (
            ("drawn ideal 1280x720", None, (1280, 720)),
            ("drawn camera-module-3 before 1280x720", BEFORE, (1280, 720)),
            ("drawn camera-module-3 1280x720", CAMERA_MODULE_3, (1280, 720)),
            ("drawn camera-module-3 before 2304x1296", BEFORE, (2304, 1296)),
            ("drawn camera-module-3 2304x1296", CAMERA_MODULE_3, (2304, 1296)),
            ("drawn usb-webcam 1920x1080", USB_WEBCAM, (1920, 1080))):
        shots = drawn_shots(camera, size, seeds)
        rows[name] = measure(shots)
        if camera is USB_WEBCAM:
            rows[f"{name} as Roboflow stores it"] = measure(
                [as_roboflow(shot) for shot in shots], recall=False)
    return rows


def as_roboflow(shot: Shot) -> Shot:
    """A 1920x1080 frame as the Roboflow export stored its webcam photos: squashed to
    640x640 (area), then saved as JPEG at quality 90, to set beside them."""
    h, w = shot.image.shape[:2]
    small = jpeg(cv2.resize(shot.image, ROBOFLOW_SIZE, interpolation=cv2.INTER_AREA),
                 quality=90)
    scale = np.array([ROBOFLOW_SIZE[0] / w, ROBOFLOW_SIZE[1] / h], np.float32)
    return Shot(small, shot.cards, tuple(q * scale for q in shot.indices))


def print_rows(rows: dict[str, dict[str, Any]]) -> None:
    print(f"{'source':50s} {'n':>3s} {'edge px':>8s} {'sigma':>6s} {'noise':>6s} "
          f"{'paper':>6s} {'chroma':>7s} {'block':>6s} {'index':>6s} {'recall':>12s}")
    for name, r in rows.items():
        read = f"{r['recall']:.3f} w{r['wrong']}" if "recall" in r else "-"
        print(f"{name:50s} {r['frames']:3d} {r['edge_width']:8.2f} {r['blur_sigma']:6.2f} "
              f"{r['noise']:6.2f} {r['paper_noise']:6.2f} {r['chroma_width']:7.2f} "
              f"{r['blockiness']:6.3f} {r['index_contrast']:6.3f} {read:>12s}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--photos", type=int, default=4, help="real photos per source")
    ap.add_argument("--seeds", default="1,2,3,4", help="drawn deals (two still frames each)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    rows = run(args.photos, seeds)
    if args.json:
        print(json.dumps({"rows": rows, "camera": asdict(CAMERA_MODULE_3)}, default=str))
    else:
        print_rows(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
