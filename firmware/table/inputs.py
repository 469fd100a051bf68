"""The table flow's inputs and outcomes: what happened at the table, and what the flow makes of it.

Every input the flow takes (``TableInput``: the tracker's facts, a button's action, the
clock, the phone page's cards, spreads, matches, corrections and adjustments) and what it
gives back (an ``Outcome``: events to store, an undo, and ``Feedback`` for the players), as
immutable values, apart from ``firmware.table.flow``'s ``TableFlow`` that decides, so the
loop, the page and the tests name them without the flow's logic.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from engine.cards import Card
from vision.live.tracker import (
    CameraBack,
    CameraLost,
    CardAppeared,
    CardInTwoPlaces,
    CardRemoved,
    ZoneComplete,
)

__all__ = [
    "Outcome", "Feedback", "FeedbackKind", "ButtonAction", "Tick", "UnknownCard", "ManualCard",
    "ManualSpread", "ManualDiscard", "NewMatch", "CorrectCard", "AdjustScore", "TableInput",
    "BUTTON_ACTIONS", "MAX_ADJUST", "ADJUST_TIMEOUT_S", "NOTHING", "say", "notice", "flash",
    "ignored",
]


#: What ``ButtonAction.name`` may be: ``hardware.buttons.Action`` names.
BUTTON_ACTIONS = frozenset({"go", "muggins", "undo", "confirm", "claim", "new_game", "dial",
                            "ask_confirm", "cancelled", "misdeal", "correct", "adjust"})

#: The most one hand adjustment may move a score either way: the best hand is 29, and a
#: bigger mistake is put right in two steps (or with UNDO), never by one slip of a finger.
MAX_ADJUST = 29

#: How long the buttons' adjusting (hold UNDO, then UNDO) waits for the next press.
ADJUST_TIMEOUT_S = 30.0

FeedbackKind = Literal["say", "notice", "flash", "ask", "celebrate"]


@dataclass(frozen=True, slots=True)
class Feedback:
    """Something to tell the players.

    ``say``: speak it (a count); ``notice``: show it as the status line;
    ``flash``: flash the board red and say why (a rejected card); ``ask``: a
    question the players must settle at the table; ``celebrate``: the game is
    won (the loop plays the celebration or skunk animation).
    """

    kind: FeedbackKind
    text: str


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one input leads to. ``events`` go to the store in order (the first through
    ``start_match`` when ``fresh_match``); ``undo`` takes back the last stored event."""

    events: tuple[dict[str, Any], ...] = ()
    feedback: tuple[Feedback, ...] = ()
    undo: bool = False
    fresh_match: bool = False

    def __add__(self, other: Outcome) -> Outcome:
        return Outcome(self.events + other.events, self.feedback + other.feedback,
                       self.undo or other.undo, self.fresh_match or other.fresh_match)


@dataclass(frozen=True, slots=True)
class ButtonAction:
    """A button action (``hardware.buttons.Action``) with the time it happened."""

    name: str
    value: int = 0
    at: float = 0.0
    subject: str = ""

    def __post_init__(self) -> None:
        if self.name not in BUTTON_ACTIONS:
            raise ValueError(f"unknown button action {self.name!r} "
                             f"(known: {', '.join(sorted(BUTTON_ACTIONS))})")


@dataclass(frozen=True, slots=True)
class Tick:
    """Time passing: closes the muggins window and counts spread hands that became due."""

    at: float


@dataclass(frozen=True, slots=True)
class UnknownCard:
    """A card lies in ``zone`` but its index cannot be read (skewed, covered, glare)."""

    zone: str | None
    at: float


@dataclass(frozen=True, slots=True)
class ManualCard:
    """A card entered by hand (the phone page) while the camera cannot see: as if laid in
    ``zone``."""

    card: Card
    zone: str
    at: float


@dataclass(frozen=True, slots=True)
class ManualSpread:
    """A hand or the crib entered by hand (the phone page): as if spread face up in ``zone``
    (a player's name or ``"crib"``)."""

    zone: str
    cards: tuple[Card, ...]
    at: float


@dataclass(frozen=True, slots=True)
class ManualDiscard:
    """The cards ``player`` says they threw to the crib this deal (the phone page's coach):
    stored for the review, never scored."""

    player: str
    cards: tuple[Card, ...]
    at: float


@dataclass(frozen=True, slots=True)
class NewMatch:
    """New settings from the phone page: a new match with these players (in seating order)
    and rules. ``colours`` (one RGB per side) are for the board's renderer; the flow
    ignores them."""

    players: tuple[str, ...]
    rules: Mapping[str, Any]
    at: float
    colours: tuple[tuple[int, int, int], ...] = ()


@dataclass(frozen=True, slots=True)
class CorrectCard:
    """A card the board read wrongly, put right from the phone page: ``was`` is ``card``."""

    was: Card
    card: Card
    at: float


@dataclass(frozen=True, slots=True)
class AdjustScore:
    """A score moved by hand (the phone page): ``points`` (plus or minus, at most
    ``MAX_ADJUST``) pegged for ``player``'s side, for a house rule the board does not know
    or a peg the players agree on. Stored as the log's ``adjust`` event."""

    player: str
    points: int
    at: float
    reason: str = "by hand"


TableInput = (CardAppeared | CardRemoved | ZoneComplete | CardInTwoPlaces | CameraLost
              | CameraBack | ButtonAction | Tick | UnknownCard | ManualCard | ManualSpread
              | ManualDiscard | NewMatch | CorrectCard | AdjustScore)

#: The outcome of an input that changes nothing and says nothing.
NOTHING = Outcome()


def say(text: str) -> Outcome:
    """Something said aloud (a count)."""
    return Outcome(feedback=(Feedback("say", text),))


def notice(text: str) -> Outcome:
    """A status line."""
    return Outcome(feedback=(Feedback("notice", text),))


def flash(text: str) -> Outcome:
    """The board flashed red, and why."""
    return Outcome(feedback=(Feedback("flash", text),))


def ignored(text: str, typed: bool) -> Outcome:
    """A card the flow will not take: typed on the phone, the page shows it refused (a
    flash); seen by the camera, a status line, since the camera may just be looking again."""
    return flash(text) if typed else notice(text)
