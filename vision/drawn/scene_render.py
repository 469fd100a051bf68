"""Drawing a scripted table's frames: the table's surface, the lamp, the cards warped
through a camera a little off top-down, the laying hand, blur, noise and glare, and each
frame's ground truth (``vision.drawn.scene``'s rendering).

Everything random comes from the ``rng`` given: the same seed draws the same frames, and any
frame can be drawn on its own (its randomness is keyed by its index).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import cast

import cv2
import numpy as np

from engine.cards import Card
from vision.drawn.camera_model import CameraModel, falloff_gain, moving_layer, uneven_gain
from vision.drawn.cardart import CardStyle, render_back, render_card
from vision.drawn.scene_layout import Corners, Point, SceneError
from vision.drawn.scene_placement import Placed, Script, Step
from vision.live.zones import TableZones

__all__ = ["SceneFrame", "SceneRenderer", "SceneSettings", "TruthCard", "corners_of"]


@dataclass(frozen=True, slots=True)
class SceneSettings:
    """How a scene is filmed. Sizes are fractions of the frame so any resolution works."""

    size: tuple[int, int] = (1280, 720)
    frames_per_step: int = 8
    hand_frames: int = 3  # of each step's first frames, how many show the laying hand
    table: str = "random"  # "wood", "cloth" or "random"
    tilt: float = 0.04  # how far off top-down: the far edge shrinks by this share
    blur: float = 0.8  # largest Gaussian sigma, pixels at 720p
    noise: float = 3.0  # sensor noise, grey levels
    light_drift: float = 0.08  # how much the room light swings over a scene
    glare: bool = True
    style: CardStyle | None = None  # None draws a deck from the scene's rng
    # A card's face at a height in pixels (BGRA), for decks drawn elsewhere (training's
    # real themes); None draws faces in ``style``. Backs are always drawn in ``style``.
    faces: Callable[[Card, int], np.ndarray] | None = None
    # The camera that films the table (``vision.drawn.camera_model``): its lens, sensor and
    # encoder replace ``blur`` and ``noise``, and the lamp loses its built-in vignette (the
    # camera's falloff stands for it). None draws the crisp table of old. Build the script's
    # layout with ``TableLayout.for_camera`` so cards get the camera's pixel size.
    camera: CameraModel | None = None

    def __post_init__(self) -> None:
        if self.frames_per_step < 1 or not 0 <= self.hand_frames <= self.frames_per_step:
            raise SceneError(f"need frames_per_step >= 1 and 0 <= hand_frames <= "
                             f"frames_per_step, not {self.frames_per_step!r}, "
                             f"{self.hand_frames!r}")
        if self.table not in ("wood", "cloth", "random"):
            raise SceneError(f"table must be wood, cloth or random, not {self.table!r}")
        if not 0 <= self.tilt <= 0.2:
            raise SceneError(f"tilt must be 0 to 0.2, not {self.tilt!r}")


@dataclass(frozen=True, slots=True)
class TruthCard:
    """A card in a frame: where it is and how much of it shows (0..1, hands and cards on top).

    ``corners`` follow ``vision.recognise.detection.Detection``: frame pixels, clockwise
    from the card's top-left as it reads upright.
    """

    card: Card
    zone: str
    face_up: bool
    corners: Corners
    visible: float


@dataclass(frozen=True, slots=True)
class SceneFrame:
    index: int
    step: int
    label: str
    image: np.ndarray
    truth: tuple[TruthCard, ...]

    def face_up(self) -> dict[Card, TruthCard]:
        return {t.card: t for t in self.truth if t.face_up}


_SKIN: tuple[tuple[int, int, int], ...] = (
    (150, 178, 224), (120, 150, 205), (95, 125, 180), (62, 88, 135), (45, 62, 98),
)


class SceneRenderer:
    """Draws a script's frames. ``rng`` seeds the whole scene; frames can be drawn in any order."""

    def __init__(self, script: Script, *, rng: np.random.Generator,
                 settings: SceneSettings | None = None) -> None:
        self.script = script
        self.settings = settings or SceneSettings()
        self._seed = int(rng.integers(2 ** 62))
        scene = np.random.default_rng((self._seed, 0))
        w, h = self.settings.size
        sx, sy = w / script.layout.size[0], h / script.layout.size[1]
        self._homography = _camera(scene, self.settings.size, self.settings.tilt) @ np.diag(
            [sx, sy, 1.0])
        self.style = self.settings.style or CardStyle.random(scene)
        table = self.settings.table
        if table == "random":
            table = "wood" if scene.random() < 0.6 else "cloth"
        self._table = _wood(scene, (w, h)) if table == "wood" else _cloth(scene, (w, h))
        self._light, lamp = _lamp(scene, (w, h), vignette=self.settings.camera is None)
        self._shadow_dir = np.array([w / 2 - lamp[0], h / 2 - lamp[1]])
        self._shadow_dir *= 0.012 * h / max(1.0, float(np.hypot(*self._shadow_dir)))
        self._shadow_dir += np.array([0.004, 0.008]) * h
        self._glare = _glare(scene, (w, h)) if self.settings.glare else None
        self._noise = [scene.normal(0, 1, (h // 2, w // 2, 3)).astype(np.float32)
                       for _ in range(3)]
        self._phase = scene.uniform(0, 2 * np.pi, 4)
        self._skin = _SKIN[int(scene.integers(len(_SKIN)))]
        self._sleeve = tuple(int(v) for v in scene.integers(20, 200, 3))
        # Cards are drawn about as tall as they appear, so warping barely resamples them.
        self._card_px = max(48, round(script.layout.card_height * sy))
        self._art: dict[tuple[Card | None, bool], np.ndarray] = {}
        self._full: dict[str, np.ndarray] | None = None
        self._gain: np.ndarray | None = None  # the camera's falloff and uneven light
        camera = self.settings.camera
        if camera is not None:
            self._gain = falloff_gain((w, h), corner=camera.falloff) * uneven_gain(
                (w, h), amount=camera.uneven, angle=float(scene.uniform(0, 360)))
        self._fields = camera.noise_fields((w, h), scene) if camera is not None else ()

    # -- geometry ----------------------------------------------------------------------------

    @property
    def size(self) -> tuple[int, int]:
        return self.settings.size

    @property
    def frame_count(self) -> int:
        return len(self.script.steps) * self.settings.frames_per_step

    def to_frame(self, points: np.ndarray) -> np.ndarray:
        """Table-plane points (n, 2) to frame pixels through the camera's homography."""
        p = np.asarray(points, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(p, self._homography).reshape(-1, 2)

    def outline(self, placed: Placed) -> Corners:
        q = self.to_frame(self.script.layout.outline(placed.centre, placed.angle))
        return corners_of(q)

    @property
    def zones(self) -> TableZones:
        """The table's zones: the cells nearest a card laid in the middle of each area."""
        layout, players = self.script.layout, self.script.players
        markers = {}
        for name in self.script.zone_names():
            centre, angle = layout.anchor(name, players)
            markers[name] = [(float(x), float(y))
                             for x, y in self.to_frame(layout.outline(centre, angle))]
        return TableZones.from_markers(self.size, markers)

    # -- frames ------------------------------------------------------------------------------

    def frames(self) -> Iterator[SceneFrame]:
        for index in range(self.frame_count):
            yield self.render(index)

    def render(self, index: int) -> SceneFrame:
        """Frame ``index``: the step it belongs to, a hand while a card is being laid."""
        if not 0 <= index < self.frame_count:
            raise SceneError(f"frame {index!r} is outside 0..{self.frame_count - 1}")
        step_no, within = divmod(index, self.settings.frames_per_step)
        return self.render_step(self.script.steps[step_no], key=index, within=within,
                                step_no=step_no)

    def render_step(self, step: Step, *, key: int, within: int, step_no: int = -1
                    ) -> SceneFrame:
        """A frame of any table state, such as ``Script.relaid``'s, at this table.

        ``key`` seeds the frame's randomness (``render`` uses the frame index, so keys from
        ``frame_count`` up draw frames no script frame repeats); ``within`` is the frame's
        place in its step, which decides whether the laying hand is still in the picture.
        """
        settings = self.settings
        index = key
        rng = np.random.default_rng((self._seed, key + 1))
        w, h = self.size
        image = self._table.copy()
        quads = [self.to_frame(self.script.layout.outline(p.centre, p.angle))
                 for p in step.cards]
        self._cast_shadows(image, quads, 0.38)
        for placed, quad in zip(step.cards, quads, strict=True):
            self._paste(image, self._artwork(placed), quad)
        hand_mask = None
        if step.actor is not None and step.target is not None and within < settings.hand_frames:
            progress = within / max(1, settings.hand_frames)
            still = image.copy() if settings.camera is not None else None
            hand_mask = self._hand(image, step.actor, step.target, progress, rng)
            if settings.camera is not None and still is not None:
                # The hand withdraws toward its edge during the exposure: it (and its
                # shadow) smear along that line while the table stays sharp.
                edge = self.to_frame(np.array([self.script.layout.seats[step.actor].edge]))[0]
                tip = self.to_frame(np.array([step.target]))[0]
                angle = math.degrees(math.atan2(tip[1] - edge[1], tip[0] - edge[0]))
                image = moving_layer(still, image, hand_mask,
                                     length=settings.camera.smear(self.size), angle=angle)
        image = self._film(image, index, rng)
        truth = self._truth(step, quads, hand_mask)
        return SceneFrame(index, step_no, step.label, image, truth)

    def _artwork(self, placed: Placed) -> np.ndarray:
        key = (placed.card, placed.face_up)
        art = self._art.get(key)
        if art is None:
            faces = self.settings.faces
            if placed.face_up and placed.card is not None:
                art = (faces(placed.card, self._card_px) if faces is not None
                       else render_card(placed.card, height=self._card_px, style=self.style))
            else:
                art = render_back(height=self._card_px, style=self.style)
            self._art[key] = art
        return art

    def _paste(self, image: np.ndarray, art: np.ndarray, quad: np.ndarray) -> None:
        """Warps a BGRA card onto its frame quad, touching only the quad's bounding box."""
        h, w = image.shape[:2]
        x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 1
        x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 2
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
        if x1 <= x0 or y1 <= y0:
            return
        ah, aw = art.shape[:2]
        src = np.array([[0, 0], [aw, 0], [aw, ah], [0, ah]], np.float32)
        m = cv2.getPerspectiveTransform(src, (quad - [x0, y0]).astype(np.float32))
        warped = cv2.warpPerspective(art, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        alpha = warped[..., 3:].astype(np.float32) / 255.0
        region = image[y0:y1, x0:x1]
        region[:] = (warped[..., :3] * alpha + region * (1 - alpha)).astype(np.uint8)

    def _cast_shadows(self, image: np.ndarray, quads: Sequence[np.ndarray],
                      strength: float) -> None:
        if not quads:
            return
        h, w = image.shape[:2]
        small = np.zeros((h // 4, w // 4), np.uint8)
        for q in quads:
            pts = np.round((q + self._shadow_dir) / 4).astype(np.int32)
            cv2.fillConvexPoly(small, pts, 255, cv2.LINE_AA)
        self._darken(image, small, strength, blur=0.006 * h / 4)

    @staticmethod
    def _darken(image: np.ndarray, small_mask: np.ndarray, strength: float, *, blur: float
                ) -> None:
        h, w = image.shape[:2]
        soft = cv2.GaussianBlur(small_mask, (0, 0), max(0.5, blur))
        full = cv2.resize(soft, (w, h), interpolation=cv2.INTER_LINEAR).astype(np.float32)
        gain = 1.0 - strength * full / 255.0
        image[:] = (image * gain[..., None]).astype(np.uint8)

    def _hand(self, image: np.ndarray, seat: int, target: Point, progress: float,
              rng: np.random.Generator) -> np.ndarray:
        """Draws a hand and arm reaching from the seat's edge; returns the hand's mask."""
        h, w = image.shape[:2]
        layout = self.script.layout
        edge = self.to_frame(np.array([layout.seats[seat].edge]))[0]
        tip = self.to_frame(np.array([target]))[0]
        direction = tip - edge
        length = float(np.hypot(*direction))
        if length < 1:
            return np.zeros((h, w), np.uint8)
        u = direction / length
        n = np.array([-u[1], u[0]])
        unit = 0.32 * h
        # The hand withdraws toward the edge as the step goes on.
        tip = tip - u * progress * (length + 0.3 * unit) + n * rng.normal(0, 0.03 * unit)
        wrist = tip - u * 0.55 * unit
        mask = np.zeros((h, w), np.uint8)
        sleeve = np.zeros((h, w), np.uint8)
        back = edge - u * unit
        arm = np.array([back + n * 0.26 * unit, wrist + n * 0.17 * unit,
                        wrist - n * 0.17 * unit, back - n * 0.26 * unit])
        cv2.fillConvexPoly(mask, np.round(arm).astype(np.int32), 255, cv2.LINE_AA)
        cuff = back + (wrist - back) * 0.6
        sleeve_poly = np.array([back + n * 0.3 * unit, cuff + n * 0.23 * unit,
                                cuff - n * 0.23 * unit, back - n * 0.3 * unit])
        cv2.fillConvexPoly(sleeve, np.round(sleeve_poly).astype(np.int32), 255, cv2.LINE_AA)
        palm = wrist + u * 0.2 * unit
        angle = math.degrees(math.atan2(u[1], u[0]))
        cv2.ellipse(mask, _pt(palm), (round(0.24 * unit), round(0.19 * unit)), angle, 0, 360,
                    255, -1, cv2.LINE_AA)
        for k, spread in enumerate((-0.13, -0.045, 0.045, 0.13)):
            length_k = (0.26, 0.3, 0.29, 0.23)[k] * unit
            base = palm + u * 0.15 * unit + n * spread * unit
            centre = base + u * length_k / 2
            cv2.ellipse(mask, _pt(centre), (round(length_k / 2), round(0.043 * unit)),
                        angle + spread * 40, 0, 360, 255, -1, cv2.LINE_AA)
        thumb = palm + n * 0.2 * unit + u * 0.05 * unit
        cv2.ellipse(mask, _pt(thumb), (round(0.14 * unit), round(0.05 * unit)), angle - 50, 0,
                    360, 255, -1, cv2.LINE_AA)
        shadow = cv2.resize(mask, (w // 4, h // 4), interpolation=cv2.INTER_AREA)
        shift = np.array([[1, 0, 2.5 * self._shadow_dir[0] / 4],
                          [0, 1, 2.5 * self._shadow_dir[1] / 4]], np.float32)
        shadow = cv2.warpAffine(shadow, shift, (w // 4, h // 4))
        self._darken(image, shadow, 0.45, blur=0.02 * h / 4)
        skin = np.array(self._skin, np.float32) * rng.uniform(0.95, 1.05)
        # Only the arm's box is painted (with room for the blurs): a frame's worth of float
        # arithmetic per hand frame was most of the time it took to draw one.
        bx, by, bw, bh = cv2.boundingRect(mask)
        if bw == 0 or bh == 0:
            return mask
        pad = math.ceil(3 * 0.03 * h) + 2
        x0, y0, x1, y1 = max(0, bx - pad), max(0, by - pad), min(w, bx + bw + pad), \
            min(h, by + bh + pad)
        arm_mask, sleeve_mask = mask[y0:y1, x0:x1], sleeve[y0:y1, x0:x1]
        region = image[y0:y1, x0:x1]
        # Rounded limbs: lighter along the middle, darker at the sides.
        core = cv2.GaussianBlur(arm_mask, (0, 0), 0.03 * h).astype(np.float32) / 255.0
        shade = (0.7 + 0.35 * core)[..., None]
        colour = np.where((sleeve_mask > 127)[..., None], np.array(self._sleeve, np.float32),
                          skin[None, None, :]) * shade
        alpha = (cv2.GaussianBlur(arm_mask, (0, 0), 0.8).astype(np.float32) / 255.0)[..., None]
        region[:] = (colour * alpha + region * (1 - alpha)).astype(np.uint8)
        return mask

    def _film(self, image: np.ndarray, index: int, rng: np.random.Generator) -> np.ndarray:
        """Room light, white balance, glare, focus and sensor noise for frame ``index``."""
        s = self.settings
        t = index / 30.0
        ph = self._phase
        gain = 1.0 + s.light_drift * (math.sin(0.5 * t + ph[0]) + 0.3 * rng.normal())
        warmth = 0.06 * math.sin(0.23 * t + ph[1])
        balance = np.array([1 - warmth, 1.0, 1 + warmth], np.float32) * gain
        # Whole-frame float arithmetic is most of a frame's drawing time: OpenCV's fused,
        # in-place operations on full-size layers made once per scene.
        full = self._full_layers()
        out = cv2.multiply(image, full["light"], dtype=cv2.CV_32F)
        np.multiply(out, balance, out=out)
        if "glare" in full:
            cv2.scaleAdd(full["glare"], 0.8 + 0.2 * math.sin(0.7 * t + ph[2]), out, dst=out)
        if s.camera is not None:
            return s.camera.capture(out, gain=self._gain, rng=rng, fields=self._fields)
        sigma = s.blur * self.size[1] / 720 * rng.uniform(0.35, 1.0)
        if sigma > 0.2:
            out = cv2.GaussianBlur(out, (0, 0), sigma)
        if s.noise > 0:
            noise = full[f"noise{int(rng.integers(len(self._noise)))}"]
            cv2.scaleAdd(noise, s.noise, out, dst=out)
        np.clip(out, 0, 255, out=out)
        return out.astype(np.uint8)

    def _full_layers(self) -> dict[str, np.ndarray]:
        """The light, glare and noise layers at full size with three channels (made once)."""
        if self._full is None:
            w, h = self.size
            full = {"light": cv2.merge([self._light] * 3)}
            if self._glare is not None:
                full["glare"] = cv2.merge([self._glare.astype(np.float32)] * 3)
            for k, noise in enumerate(self._noise):
                full[f"noise{k}"] = cv2.resize(noise, (w, h), interpolation=cv2.INTER_NEAREST)
            self._full = full
        return self._full

    def _truth(self, step: Step, quads: Sequence[np.ndarray], hand: np.ndarray | None
               ) -> tuple[TruthCard, ...]:
        """Each named card's outline, and how much of it neither cards nor a hand cover."""
        h, w = self.size[1], self.size[0]
        scale = 4
        labels = np.full((h // scale, w // scale), -1, np.int16)
        for k, q in enumerate(quads):
            cv2.fillConvexPoly(labels, np.round(q / scale).astype(np.int32), k)
        if hand is not None:
            small = cv2.resize(hand, (w // scale, h // scale), interpolation=cv2.INTER_NEAREST)
            labels[small > 127] = -1
        shown = np.bincount(labels[labels >= 0].ravel(), minlength=len(quads))
        out = []
        for k, (placed, q) in enumerate(zip(step.cards, quads, strict=True)):
            if placed.card is None:
                continue
            area = abs(float(cv2.contourArea(q.astype(np.float32)))) / scale ** 2
            visible = min(1.0, float(shown[k]) / area) if area > 0 else 0.0
            out.append(TruthCard(placed.card, placed.zone, placed.face_up, corners_of(q),
                                 round(visible, 3)))
        return tuple(out)


def _pt(p: np.ndarray) -> tuple[int, int]:
    return (round(float(p[0])), round(float(p[1])))


def corners_of(q: np.ndarray) -> Corners:
    """A card's four corners (4, 2) as ``Corners``, to a hundredth of a pixel."""
    p = [(round(float(x), 2), round(float(y), 2)) for x, y in q]
    return (p[0], p[1], p[2], p[3])


def _camera(rng: np.random.Generator, size: tuple[int, int], tilt: float) -> np.ndarray:
    """A homography for a camera a little off top-down: far edge narrower, slight turn."""
    w, h = size
    far = tilt * rng.uniform(0.6, 1.0) * w
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    dst = np.array([[far, 0.02 * h], [w - far, 0.02 * h], [w, h], [0, h]], np.float32)
    m = cv2.getPerspectiveTransform(src, dst).astype(np.float64)
    turn = rng.uniform(-1.5, 1.5)
    zoom = rng.uniform(0.97, 1.02)
    r = cv2.getRotationMatrix2D((w / 2, h / 2), turn, zoom)
    return np.vstack([r, [0, 0, 1]]) @ m


def _wood(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """Planks of wood: long streaky grain, growth rings, dark seams, per-plank tone."""
    w, h = size
    hw, hh = w // 2, h // 2
    base = np.array([rng.uniform(40, 80), rng.uniform(75, 115), rng.uniform(120, 170)],
                    np.float32)
    plank = max(8, round(hh * rng.uniform(0.18, 0.3)))
    streak = cv2.resize(rng.normal(0, 1, (hh // 2, max(2, hw // 48))).astype(np.float32),
                        (hw, hh), interpolation=cv2.INTER_CUBIC)
    fine = cv2.resize(rng.normal(0, 1, (hh, max(2, hw // 12))).astype(np.float32), (hw, hh),
                      interpolation=cv2.INTER_LINEAR)
    yy = np.arange(hh, dtype=np.float32)[:, None]
    rings = np.sin((yy + 6 * streak) / rng.uniform(3, 6))
    tone = 1 + 0.08 * rings + 0.06 * streak + 0.05 * fine
    rows = (np.arange(hh) // plank).astype(int)
    shift = rng.uniform(0.9, 1.1, rows.max() + 1).astype(np.float32)
    tone *= shift[rows][:, None]
    seams = (np.arange(hh) % plank) < 1.5
    tone[seams] *= 0.55
    img = base[None, None, :] * tone[..., None]
    img = cv2.resize(img, (w, h), interpolation=cv2.INTER_LINEAR)
    return cast(np.ndarray, np.clip(img, 0, 255).astype(np.uint8))


def _cloth(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """Card-table baize: a green (or blue, or red) felt with fine fibres and soft mottling."""
    w, h = size
    colours = [(50, 105, 30), (45, 110, 55), (110, 70, 30), (40, 40, 110)]
    base = np.array(colours[int(rng.integers(len(colours)))], np.float32)
    base *= rng.uniform(0.85, 1.15)
    mottle = cv2.resize(rng.normal(0, 1, (h // 40, w // 40)).astype(np.float32), (w, h),
                        interpolation=cv2.INTER_CUBIC)
    fibre = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 0.7)
    tone = 1 + 0.05 * mottle + 0.12 * fibre
    return np.clip(base[None, None, :] * tone[..., None], 0, 255).astype(np.uint8)


def _lamp(rng: np.random.Generator, size: tuple[int, int], *, vignette: bool = True
          ) -> tuple[np.ndarray, Point]:
    """Light over the table: a lamp's hotspot and (for the crisp drawing, which has no
    camera model) the lens's vignette, as a gain image."""
    w, h = size
    lamp = (rng.uniform(0.2, 0.8) * w, rng.uniform(0.1, 0.6) * h)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    d2 = ((xx - lamp[0]) ** 2 + (yy - lamp[1]) ** 2) / (rng.uniform(0.5, 0.9) * w) ** 2
    hot = np.exp(-d2 * 2.0)
    r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    lens = 1 - rng.uniform(0.15, 0.35) * r2
    level = rng.uniform(0.8, 0.95)
    gain = level * (0.78 + 0.32 * hot) * (lens if vignette else 1.0)
    return gain.astype(np.float32), lamp


def _glare(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """A soft reflection of the lamp on a glossy surface: added light, not a gain."""
    w, h = size
    out: np.ndarray = np.zeros((h // 4, w // 4), np.float32)
    centre = (round(rng.uniform(0.15, 0.85) * w / 4), round(rng.uniform(0.15, 0.85) * h / 4))
    axes = (round(rng.uniform(0.03, 0.07) * w / 4), round(rng.uniform(0.02, 0.05) * h / 4))
    cv2.ellipse(out, centre, axes, rng.uniform(0, 180), 0, 360, 1.0, -1)
    out = cv2.GaussianBlur(out, (0, 0), max(axes) * 0.6)
    return cv2.resize(out, (w, h)) * rng.uniform(40, 90)
