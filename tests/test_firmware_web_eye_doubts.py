"""The loop's words agree with the camera's eye: an unread outline lying on a card the
tracker read in the same area is that card seen badly in one frame (a fanned card's corner),
which the eye shows read, so "straighten the card in Ann's area" is not said for it (issue
61's walk-through heard it after the game had ended, under a picture of four read cards)."""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from engine.cards import Card
from firmware.device.eye_snapshot import named_by_hand_in

Outline = tuple[tuple[float, float], ...]


def box(x: float, y: float, w: float = 60, h: float = 84) -> Outline:
    return ((x, y), (x + w, y), (x + w, y + h), (x, y + h))


@dataclass(frozen=True)
class Seen:
    card: Card | None
    corners: Outline


class Zones:
    def assign(self, corners: Any) -> str:
        return "Ann"


class Tracker:
    zones = Zones()

    def __init__(self, placed: tuple[tuple[Card, str | None, Outline], ...]) -> None:
        self.placed = placed


OVER = SimpleNamespace(players=("Ann", "Bob"), laid=lambda player: (), starter=None)
PILE = (Card.parse("2C"), "Ann", box(100, 400)), (Card.parse("8H"), "Ann", box(120, 400))


def test_an_unread_corner_of_a_read_card_is_no_doubt() -> None:
    corner = Seen(None, box(125, 405, 30, 40))  # inside 8H's outline
    assert named_by_hand_in("Ann", "Ann", OVER, Tracker(PILE), [corner])


def test_an_unread_card_beside_the_read_ones_is_still_a_doubt() -> None:
    apart = Seen(None, box(300, 400))
    assert not named_by_hand_in("Ann", "Ann", OVER, Tracker(PILE), [apart])
    corner = Seen(None, box(125, 405, 30, 40))
    assert not named_by_hand_in("Ann", "Ann", OVER, Tracker(PILE), [corner, apart])
