"""The pip-suit veto on real deck art: a card whose big pips plainly say another suit than
its tiny index was read as is asked, not named; a clear, rightly read card stays named."""

from __future__ import annotations

import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from engine.cards import Card
from vision.recognise.detection import Detection, _pips_checked
from vision.recognise.pip_suit import PipShape, contradicts, pip_says, read_pips
from vision.training.facedecks import render_theme

ANGLO = Path("/usr/share/aisleriot/cards/anglo.svgz")
FELT = (40, 90, 30)  # BGR: a green card table

pytestmark = pytest.mark.skipif(shutil.which("rsvg-convert") is None or not ANGLO.exists(),
                                reason="needs gnome-cards-data and librsvg2-bin")

Corners = tuple[tuple[float, float], ...]


@pytest.fixture(scope="module")
def faces(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Debian's anglo deck (aisleriot), rendered once at 176 px."""
    folder = render_theme(ANGLO, tmp_path_factory.mktemp("faces"), height=176)
    assert folder is not None
    return folder


def face(faces: Path, name: str) -> np.ndarray:
    """A card's face, BGR, its transparent rounded corners on the felt."""
    rgba = cv2.imread(str(faces / f"{name}.png"), cv2.IMREAD_UNCHANGED)
    alpha = rgba[..., 3:4].astype(np.float32) / 255
    return (rgba[..., :3] * alpha + np.float32(FELT) * (1 - alpha)).astype(np.uint8)


def laid(card: np.ndarray, height: float, *, turn: float = 20.0,
         frame: np.ndarray | None = None, at: tuple[float, float] = (100, 100)
         ) -> tuple[np.ndarray, Corners]:
    """The card laid ``height`` pixels tall, turned ``turn`` degrees, on the felt (or on
    ``frame``), centred at ``at``; its corners clockwise from its upright top-left."""
    if frame is None:
        frame = np.full((200, 200, 3), FELT, np.uint8)
    h, w = card.shape[:2]
    width = height * w / h
    a = np.radians(turn)
    right, down = np.array([np.cos(a), np.sin(a)]), np.array([-np.sin(a), np.cos(a)])
    centre = np.array(at, np.float64)
    tl = centre - 0.5 * width * right - 0.5 * height * down
    corners = np.array([tl, tl + width * right, tl + width * right + height * down,
                        tl + height * down], np.float32)
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    m = cv2.getPerspectiveTransform(src, corners)
    # INTER_AREA has no warp; a blur before the warp stands for the lens at these sizes.
    soft = cv2.GaussianBlur(card, (0, 0), 0.5 * h / height)
    drawn = cv2.warpPerspective(soft, m, frame.shape[1::-1], flags=cv2.INTER_LINEAR)
    inside = cv2.warpPerspective(np.full((h, w), 255, np.uint8), m, frame.shape[1::-1]) > 127
    out = frame.copy()
    out[inside] = drawn[inside]
    return out, tuple((float(x), float(y)) for x, y in corners)


def named(card: str, corners: Corners, confidence: float = 0.9) -> Detection:
    c = (corners[0], corners[1], corners[2], corners[3])
    return Detection(Card.parse(card), c, confidence, ())


@pytest.mark.parametrize("height", [70.0, 86.0, 154.0])
def test_a_spade_read_as_a_club_is_asked(faces: Path, height: float) -> None:
    frame, corners = laid(face(faces, "2S"), height)
    assert contradicts(frame, corners, Card.parse("2C"))
    (asked,) = _pips_checked(frame, [named("2C", corners)])
    # Unknown, the same outline, and the reading it was given first among its runners-up.
    assert asked.card is None
    assert asked.corners == named("2C", corners).corners
    assert asked.alternatives[0] == (Card.parse("2C"), 0.9)


@pytest.mark.parametrize("height", [70.0, 86.0, 154.0])
def test_the_same_spade_read_as_a_spade_is_named(faces: Path, height: float) -> None:
    frame, corners = laid(face(faces, "2S"), height)
    assert pip_says(read_pips(frame, corners), rank=2) is PipShape.NOT_CLUB
    assert not contradicts(frame, corners, Card.parse("2S"))
    assert _pips_checked(frame, [named("2S", corners)]) == [named("2S", corners)]


@pytest.mark.parametrize("card", ["2C", "AC"])
def test_a_club_read_as_a_spade_is_asked(faces: Path, card: str) -> None:
    frame, corners = laid(face(faces, card), 86.0, turn=-35.0)
    spade = card[:-1] + "S"
    assert contradicts(frame, corners, Card.parse(spade))
    assert not contradicts(frame, corners, Card.parse(card))


def test_a_dark_deck_with_light_club_pips_is_read_by_its_light_ink(faces: Path) -> None:
    # The anglo 2C printed negative: light grey clubs on a dark card, as one of the dev decks.
    dark = (255 - face(faces, "2C")).astype(np.float32) * 0.8
    frame, corners = laid(dark.astype(np.uint8), 86.0)
    assert contradicts(frame, corners, Card.parse("2S"))
    assert contradicts(frame, corners, Card.parse("2H"))
    assert not contradicts(frame, corners, Card.parse("2C"))


def test_court_cards_and_covered_bodies_veto_nothing(faces: Path) -> None:
    frame, corners = laid(face(faces, "KS"), 86.0)
    assert not contradicts(frame, corners, Card.parse("KC"))
    # A spade half covered by a club lying over it: its body is not its own to judge.
    frame, corners = laid(face(faces, "2S"), 86.0, turn=0.0)
    frame, _ = laid(face(faces, "7C"), 86.0, turn=10.0, frame=frame, at=(115, 140))
    assert not contradicts(frame, corners, Card.parse("2C"))
    assert not contradicts(frame, corners, Card.parse("2S"))


def test_red_pips_never_say_club_against_a_red_reading(faces: Path) -> None:
    for card in ("3H", "5D", "9H", "7D"):
        frame, corners = laid(face(faces, card), 86.0)
        assert not contradicts(frame, corners, Card.parse(card)), card


def test_tinted_club_pips_still_veto_a_spade_or_a_heart(faces: Path) -> None:
    # The negative 2C under a warm lamp: its grey clubs turn amber, coloured ink. Club-shaped
    # coloured pips may be a fancy deck's four-pointed diamonds, never a spade or a heart.
    dark = (255 - face(faces, "2C")).astype(np.float32) * 0.8
    warm = np.clip(dark * np.float32([0.45, 0.8, 1.15]), 0, 255).astype(np.uint8)
    frame, corners = laid(warm, 86.0)
    pips = read_pips(frame, corners)
    assert pips is not None and any(p.coloured for p in pips)
    assert contradicts(frame, corners, Card.parse("2S"))
    assert contradicts(frame, corners, Card.parse("2H"))
    assert not contradicts(frame, corners, Card.parse("2D"))
