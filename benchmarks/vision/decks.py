"""Drawn deals laid with real decks, and the frame geometries they are read in.

A dataset here is the seed's two-player deal (``vision.drawn.scene``, 1280x720, four frames
a step, the hand in the first) laid with each chosen deck: ``decks`` the card themes Debian
packages (``vision/training/facedecks.py``; ``apt-get install gnome-cards-data
kdegames-card-data-kf5 librsvg2-bin``), chosen by ``--theme`` (a name, part of one, or
``all``) and ``--half`` (``held-out``, the default: decks no model trained with
``train.py`` met; ``train``; ``both``), or ``drawn``, the drawn deck of the figures.
The deal is written to a temporary folder and replayed through ``ReplaySource``, the path
the device's replay and the demo read, which is part of what is measured.

Frame geometries (``--geometry``); right: cards named that lie face up in the deal's frame,
wrong: cards named that do not:

- ``as-drawn``: every other frame as drawn;
- ``resized:WxH``: every other frame resized to WxH (``720x720`` squashes x by 0.56 as the
  Roboflow set squashed its 16:9 webcam shots, and a camera looking at the table aslant
  foreshortens indices, less; ``720x405`` shrinks as much without squashing, which tells the
  squash from the lost pixels);
- ``closeup:Z``: every eighth frame with a face-up card, turned about one of them (chosen at
  random) by a random angle and enlarged until that card is Z frame heights tall (1.2: its
  index glyphs about 15 % of the shorter side, as in a phone shot a hand's width from the
  table).

Every geometry asked for reads the same drawn frames, so ``--geometry resized:720x720
--geometry as-drawn`` costs one drawing of each deal.
"""

from __future__ import annotations

import argparse
import math
import random
import tempfile
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import cv2
import numpy as np

from benchmarks.common import frame_size_arg
from benchmarks.vision.misses import STAGES, frame_misses
from vision.drawn.scene import SceneSettings, Script, TruthCard, read_truth, write_sequence
from vision.live.sources import ReplaySource
from vision.recognise.classifier import MODEL_PATH
from vision.recognise.detection import Detection, recognise
from vision.recognise.photo import recognise_photo
from vision.training.facedecks import FaceDeck, FaceDeckError, face_decks_named

__all__ = ["DRAWN_SIZE", "View", "DrawnGeometry", "parse_drawn_geometry", "add_deck_arguments",
           "chosen_decks", "deal_frames", "read_deal", "MissNote"]

DRAWN_SIZE = (1280, 720)


@dataclass(frozen=True, slots=True)
class View:
    """A frame as one geometry shows it, and the affine map (2x3) from the drawn frame's
    pixels to the view's (the truth's outlines are in drawn pixels)."""

    image: np.ndarray
    to_view: np.ndarray


@dataclass
class DrawnGeometry:
    """A way to show the drawn frames to the recogniser: ``as-drawn``, ``resized`` or
    ``closeup`` (the module's docstring). ``every``: the frames it reads (index % every)."""

    kind: str
    size: tuple[int, int] | None = None
    zoom: float = 1.2
    every: int = 2
    _pick: random.Random = field(default_factory=random.Random, repr=False)

    @property
    def name(self) -> str:
        if self.kind == "resized" and self.size is not None:
            return f"resized:{self.size[0]}x{self.size[1]}"
        return f"closeup:{self.zoom:g}" if self.kind == "closeup" else self.kind

    def start(self, deck_name: str, seed: int) -> None:
        """A new deal: the close-up's card and angle are drawn from the deck and seed alone,
        so a deck's close-ups do not depend on the decks read before it."""
        self._pick = random.Random(f"{deck_name}-{seed}")

    def view(self, drawn: np.ndarray, face_up: Sequence[TruthCard]) -> View | None:
        """The frame as this geometry shows it; None: this geometry skips the frame."""
        if self.kind == "as-drawn":
            return View(drawn, np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]))
        if self.kind == "resized":
            assert self.size is not None
            image = cv2.resize(drawn, self.size, interpolation=cv2.INTER_AREA)
            sx, sy = self.size[0] / drawn.shape[1], self.size[1] / drawn.shape[0]
            return View(image, np.array([[sx, 0.0, 0.0], [0.0, sy, 0.0]]))
        if not face_up:
            return None
        chosen = self._pick.choice(list(face_up))
        return close_up(drawn, np.asarray(chosen.corners), self.zoom, self._pick.uniform(0, 360))


def close_up(image: np.ndarray, corners: np.ndarray, zoom: float, angle: float) -> View:
    """The frame turned by ``angle`` degrees about the card with these corners and enlarged
    until the card is ``zoom`` times the shorter side tall, the card in the middle."""
    centre = corners.mean(axis=0)
    height = float(np.hypot(*(corners[3] - corners[0])))
    width, short = DRAWN_SIZE
    m = cv2.getRotationMatrix2D((float(centre[0]), float(centre[1])), angle,
                                zoom * short / height)
    m[:, 2] += (width / 2 - centre[0], short / 2 - centre[1])
    image = cv2.warpAffine(image, m, DRAWN_SIZE, flags=cv2.INTER_LINEAR,
                           borderMode=cv2.BORDER_REPLICATE)
    return View(image, m)


def parse_drawn_geometry(text: str) -> DrawnGeometry:
    """The geometry a ``--geometry`` names for drawn deals; ``ValueError`` otherwise."""
    kind, _, rest = text.partition(":")
    if kind == "as-drawn" and not rest:
        return DrawnGeometry("as-drawn")
    if kind == "resized" and rest:
        try:
            return DrawnGeometry("resized", size=frame_size_arg(rest))
        except argparse.ArgumentTypeError as exc:
            raise ValueError(str(exc)) from None
    if kind == "closeup" and rest:
        try:
            zoom = float(rest)
        except ValueError:
            raise ValueError(f"{text!r}: expected a zoom such as closeup:1.2") from None
        if not 0.1 <= zoom <= 4.0:
            raise ValueError(f"{text!r}: the zoom must lie from 0.1 to 4")
        return DrawnGeometry("closeup", zoom=zoom, every=8)
    raise ValueError(f"{text!r}: drawn deals take as-drawn, resized:WxH, closeup:ZOOM or "
                     f"camera:NAME[:WxH]")


class _TakesArguments(Protocol):
    """An ``argparse`` parser or argument group."""

    def add_argument(self, *args: Any, **kwargs: Any) -> Any: ...


def add_deck_arguments(parser: _TakesArguments) -> None:
    """``--theme``, ``--half``, ``--seed`` (the deal) and ``--model``."""
    parser.add_argument("--theme", default="all",
                        help="decks: a card theme's name (or part of it), or all")
    parser.add_argument("--half", choices=["train", "held-out", "both"], default="held-out",
                        help="decks: the half of the themes (facedecks.theme_half)")
    parser.add_argument("--seed", type=int, default=2, help="the deal")
    parser.add_argument("--model", default=str(MODEL_PATH), help="corner-index CNN to read with")


def chosen_decks(args: argparse.Namespace) -> list[FaceDeck]:
    """The decks ``--theme`` and ``--half`` name; a name that matches none ends the run."""
    try:
        return face_decks_named(args.theme, half=None if args.half == "both" else args.half)
    except FaceDeckError as exc:
        raise SystemExit(str(exc)) from None


def deal_frames(deck: FaceDeck | None, seed: int, *, every: int
                ) -> Iterator[tuple[int, np.ndarray, list[TruthCard]]]:
    """Every ``every``-th frame of the seed's two-player deal laid with ``deck`` (None: the
    drawn deck): its index, its pixels, and the cards face up in it (bottom to top)."""
    script = Script.two_player_deal(seed)
    settings = SceneSettings(frames_per_step=4, hand_frames=1,
                             faces=deck.face if deck is not None else None)
    with tempfile.TemporaryDirectory() as folder:
        write_sequence(folder, script, rng=np.random.default_rng(seed), settings=settings)
        truth = read_truth(folder)
        for frame in ReplaySource(folder):
            if frame.index % every == 0:
                yield frame.index, frame.image, [c for c in truth["frames"][frame.index]["cards"]
                                                 if c.face_up]


@dataclass(frozen=True, slots=True)
class MissNote:
    """One missed card, for ``--list``."""

    geometry: str
    frame: int
    card: str
    stage: str
    reading: str


def read_deal(deck: FaceDeck | None, seed: int, geometries: Sequence[DrawnGeometry], *,
              model: str = str(MODEL_PATH), photo: bool = False, misses: bool = False
              ) -> tuple[dict[str, Counter[str]], list[MissNote]]:
    """Right and wrong cards per geometry over one deal (and, with ``misses``, the stage that
    lost each missed card: ``benchmarks/vision/misses.py``). ``photo`` reads each view as a
    photo of unknown pixel shape (``recognise_photo``, also widened back), as ``vision eval``
    reads the dataset photos."""
    def read(image: np.ndarray) -> list[Detection]:
        if photo:
            return recognise_photo(image, model_path=model)
        return recognise(image, model_path=model)

    name = deck.name if deck is not None else "drawn"
    for g in geometries:
        g.start(name, seed)
    counts: dict[str, Counter[str]] = {g.name: Counter() for g in geometries}
    notes: list[MissNote] = []
    every = math.gcd(*(g.every for g in geometries))
    for index, drawn, face_up in deal_frames(deck, seed, every=every):
        for g in geometries:
            if index % g.every:
                continue
            view = g.view(drawn, face_up)
            if view is None:
                continue
            named = {d.card for d in read(view.image) if d.card is not None}
            cards = {c.card for c in face_up}
            c = counts[g.name]
            c["frames"] += 1
            c["face_up"] += len(cards)
            c["right"] += len(named & cards)
            c["wrong"] += len(named - cards)
            if misses:
                for card, stage, reading in frame_misses(view.image, face_up, named, model,
                                                         view.to_view):
                    c[stage] += 1
                    notes.append(MissNote(g.name, index, str(card), stage, reading))
    if misses:
        for c in counts.values():
            for stage in STAGES:
                c[stage] += 0
    return counts, notes
