"""What folding a log produces: sides with their pegs, each score pegged, finished games.

Immutable values, so the device, the phone page and the CLI can hold on to
them while the game moves on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.errors import EngineError

__all__ = ["LogError", "Side", "Pegged", "GameResult"]


class LogError(EngineError):
    """An event log that cannot be folded: ``event`` is the 0-based line, ``rule`` what broke."""

    def __init__(self, event: int, rule: str, message: str) -> None:
        super().__init__(f"line {event + 1} (event {event}): {rule}: {message}")
        self.event = event
        self.rule = rule
        self.detail = message


@dataclass(frozen=True, slots=True)
class Side:
    """A peg track: one player, or two partners. ``pegs`` is (front, back)."""

    name: str
    players: tuple[str, ...]
    score: int
    pegs: tuple[int, int]
    result: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "players": list(self.players),
                               "score": self.score, "pegs": list(self.pegs)}
        if self.result is not None:
            out["result"] = self.result
        return out


@dataclass(frozen=True, slots=True)
class Pegged:
    """Points moved onto a side's track by one event."""

    event: int
    side: str
    player: str | None
    points: int
    reason: str
    words: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"event": self.event, "side": self.side, "points": self.points,
                               "reason": self.reason}
        if self.player is not None:
            out["player"] = self.player
        if self.words:
            out["words"] = self.words
        return out


@dataclass(frozen=True, slots=True)
class GameResult:
    """A finished game of a match. ``results`` is each side's result in seating order (None
    for the winner), as each losing side's skunk is judged on its own score."""

    winner: str
    result: str
    value: int
    scores: tuple[int, ...]
    results: tuple[str | None, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"winner": self.winner, "result": self.result}
