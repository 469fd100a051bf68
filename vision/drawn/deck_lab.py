"""Drawn decks for measuring deck teaching: layout photos to teach from, deals to test on.

Deck teaching (``vision.recognise.deck``) is for decks the recogniser reads badly, and a
drawn deck is the one place where that can be measured exactly. Besides the
``vision.drawn.cardart`` styles this draws one kind of deck the network was never
shown: French court cards, whose indices print V (valet), D (dame) and R (roi)
for the jack, queen and king. The recogniser cannot know that R is a king; a
taught deck can.

Used by ``tests/test_vision_teach.py`` and ``benchmarks/vision/accuracy.py --dataset
lab-decks``; the device never imports it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np

from engine.cards import Card, Suit
from vision.drawn.cardart import CardStyle
from vision.drawn.scene import Placed, SceneRenderer, SceneSettings, Script, Step, TableLayout
from vision.recognise.deck import TeachPhoto, suit_cards

__all__ = [
    "DrawnDeck", "layout_photo", "suit_photos", "deal_renderer",
    "FRENCH_COURTS", "LAB_DECKS",
]

#: What a French deck prints for the jack, queen and king (valet, dame, roi).
FRENCH_COURTS = ("V", "D", "R")


@dataclass(frozen=True, slots=True)
class DrawnDeck:
    """A cardart style, optionally with French court indices (V, D, R), or a real deck's
    faces (``vision.training.facedecks``: ``faces=FaceDeck.face``) with the style's backs."""

    style: CardStyle
    french: bool = False
    faces: Callable[[Card, int], np.ndarray] | None = None

    @property
    def face_style(self) -> CardStyle:
        """The style its faces are drawn in: French courts print V, D and R."""
        if not self.french:
            return self.style
        return replace(self.style, court_letters=FRENCH_COURTS)


#: The decks the recogniser reads worst among the drawn styles tried (small indices), one it
#: reads well, and French courts (V, D, R), which it cannot know.
LAB_DECKS: dict[str, DrawnDeck] = {
    "french": DrawnDeck(CardStyle(font=cv2.FONT_HERSHEY_COMPLEX), french=True),
    "french-four-colour": DrawnDeck(CardStyle(font=cv2.FONT_HERSHEY_SIMPLEX, index_scale=1.1,
                                              four_colour=True), french=True),
    "small-index": DrawnDeck(CardStyle(font=cv2.FONT_HERSHEY_SIMPLEX, index_scale=0.85,
                                       weight=0.8)),
    "plain": DrawnDeck(CardStyle(font=cv2.FONT_HERSHEY_DUPLEX, index_scale=1.05)),
}


def layout_photo(cards: Sequence[Card], deck: DrawnDeck, *, seed: int,
                 per_row: int = 7) -> np.ndarray:
    """A 1280x720 photo of ``cards`` lying face up apart, in rows, in reading order."""
    rnd = random.Random(seed)
    layout = TableLayout.for_players(2, card_height=0.24)
    w, h = layout.size
    rows = (len(cards) + per_row - 1) // per_row
    gap_x = 1.3 * layout.card_width
    gap_y = 1.3 * layout.card_height
    placed = []
    for k, card in enumerate(cards):
        row, col = divmod(k, per_row)
        in_row = min(per_row, len(cards) - row * per_row)
        x = w / 2 + (col - (in_row - 1) / 2) * gap_x + rnd.gauss(0, 4)
        y = h / 2 + (row - (rows - 1) / 2) * gap_y + rnd.gauss(0, 4)
        placed.append(Placed(card, "Ann", True, (x, y), rnd.gauss(0, 3), k + 1))
    script = Script(("Ann", "Bob"), layout, (Step("layout", tuple(placed)),))
    settings = SceneSettings(frames_per_step=1, hand_frames=0, style=deck.face_style,
                             faces=deck.faces)
    renderer = SceneRenderer(script, rng=np.random.default_rng(seed), settings=settings)
    return renderer.render(0).image


def suit_photos(deck: DrawnDeck, *, seed: int = 0) -> list[TeachPhoto]:
    """Four teaching photos, one suit each, ace to king in reading order."""
    return [TeachPhoto(f"{suit.name.lower()}.png",
                       layout_photo(suit_cards(suit), deck, seed=seed + k), suit_cards(suit))
            for k, suit in enumerate(Suit)]


def deal_renderer(deck: DrawnDeck, seed: int, *, frames_per_step: int = 2) -> SceneRenderer:
    """A drawn two-player deal (``Script.two_player_deal``) with ``deck``'s cards."""
    script = Script.two_player_deal(seed)
    settings = SceneSettings(frames_per_step=frames_per_step, hand_frames=1,
                             style=deck.face_style, faces=deck.faces)
    return SceneRenderer(script, rng=np.random.default_rng(seed), settings=settings)
