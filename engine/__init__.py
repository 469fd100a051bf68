"""Pure cribbage rules: cards, show and pegging scores, game state, rules variants.

Standard library only, no I/O: the device program, the CLI and the tests feed it
events and read back values, the way python-chess's core is used.
"""

from engine.cards import DECK, Card, Rank, Suit, format_cards, parse_cards
from engine.errors import (
    CardError,
    EngineError,
    EventError,
    GameOverError,
    IllegalEventError,
    RulesError,
)
from engine.show import ScoreItem, ShowError, ShowScore, parse_show, score_show, show_total

__all__ = [
    "DECK", "Card", "Rank", "Suit", "format_cards", "parse_cards",
    "CardError", "EngineError", "EventError", "GameOverError", "IllegalEventError", "RulesError",
    "ScoreItem", "ShowError", "ShowScore", "parse_show", "score_show", "show_total",
]
