"""Typed errors for everything the rules can reject.

Each inherits ``ValueError`` (as python-chess's ``IllegalMoveError`` does) so
callers that only care about "bad input" can catch one thing, and each message
quotes the offending input and names the rule it broke.
"""

from __future__ import annotations

__all__ = [
    "EngineError",
    "CardError",
    "RulesError",
    "EventError",
    "IllegalEventError",
    "GameOverError",
]


class EngineError(ValueError):
    """Base class of every error the rules engine raises."""


class CardError(EngineError):
    """A card token that is not a card (``"1H"``, ``"5X"``)."""


class RulesError(EngineError):
    """A bad rules block: an unknown key or a value of the wrong kind."""


class EventError(EngineError):
    """A malformed event: unknown type, missing or extra fields, wrong field types."""


class IllegalEventError(EngineError):
    """A well-formed event that the rules of cribbage do not allow now.

    ``rule`` is a short name for the rule that was broken (``"count_over_31"``,
    ``"out_of_turn"``), so programs can react without parsing the message.
    """

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule


class GameOverError(IllegalEventError):
    """An event after the game has ended (other than the next game's ``new_game``)."""

    def __init__(self, message: str) -> None:
        super().__init__("game_over", message)
