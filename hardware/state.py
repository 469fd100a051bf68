"""What the board shows, as plain data: the input of the renderer.

``BoardState`` holds only what the LEDs show (pegs, lines, whose turn), not the
game; ``board_state_from_game`` adapts the rules engine's ``Game`` to it, so
the renderer can be tested and animated without an engine, and the engine
never learns about LEDs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

__all__ = ["SidePegs", "BoardState", "BoardStateError", "board_state_from_game"]


class BoardStateError(ValueError):
    """A board state the pegboard cannot show (a peg off the board, a bad side)."""


@dataclass(frozen=True)
class SidePegs:
    """One side's leapfrogging pegs: ``front`` on its score, ``back`` on the score before."""

    name: str
    front: int = 0
    back: int = 0
    players: tuple[str, ...] = ()

    def pegged(self, points: int, *, target: int) -> SidePegs:
        """Returns the pegs after pegging ``points``: the back peg leaps past the front.

        The front peg stops at the game hole, as a winner's peg does.
        """
        if points < 0:
            raise BoardStateError(f"cannot peg {points!r} points: pegs only move forward")
        if points == 0:
            return self
        return replace(self, front=min(self.front + points, target), back=self.front)


@dataclass(frozen=True)
class BoardState:
    """Everything the LEDs show at one moment.

    ``turn`` is the index of the side whose turn (or whose count) it is, or
    None; ``winner`` the winning side's index once the game is over; ``error``
    makes the board flash the rejected-card colour. ``skunk`` and
    ``double_skunk`` are the lines (a loser below them is skunked), None when
    the rules have none.
    """

    sides: tuple[SidePegs, ...]
    target: int = 121
    skunk: int | None = 91
    double_skunk: int | None = 61
    turn: int | None = None
    winner: int | None = None
    error: bool = False

    def __post_init__(self) -> None:
        if not self.sides:
            raise BoardStateError("a board state needs at least one side")
        if self.target < 1:
            raise BoardStateError(f"target must be at least 1, got {self.target!r}")
        for side in self.sides:
            for peg, hole in (("front", side.front), ("back", side.back)):
                if not 0 <= hole <= self.target:
                    raise BoardStateError(
                        f"{side.name!r} {peg} peg on hole {hole!r} is off the board "
                        f"(0..{self.target})"
                    )
        for name, line in (("skunk", self.skunk), ("double_skunk", self.double_skunk)):
            if line is not None and not 0 < line < self.target:
                raise BoardStateError(
                    f"{name} line {line!r} must be between 1 and {self.target - 1}"
                )
        for name, index in (("turn", self.turn), ("winner", self.winner)):
            if index is not None and not 0 <= index < len(self.sides):
                raise BoardStateError(f"{name} {index!r} is not a side (0..{len(self.sides) - 1})")

    @classmethod
    def new(
        cls,
        names: Sequence[str],
        *,
        target: int = 121,
        skunk: int | None = 91,
        double_skunk: int | None = 61,
    ) -> BoardState:
        """Returns a fresh board: every side's pegs in the start hole."""
        return cls(tuple(SidePegs(n) for n in names), target, skunk, double_skunk)

    def pegged(self, side: int, points: int) -> BoardState:
        """Returns the state after side ``side`` pegs ``points``."""
        sides = list(self.sides)
        sides[side] = sides[side].pegged(points, target=self.target)
        return replace(self, sides=tuple(sides))

    def with_pegs(self, side: int, front: int, back: int) -> BoardState:
        """Returns the state with side ``side``'s pegs moved (used by animations)."""
        sides = list(self.sides)
        sides[side] = replace(sides[side], front=front, back=back)
        return replace(self, sides=tuple(sides))


def board_state_from_game(game: Any) -> BoardState:
    """Reads a rules-engine ``Game`` into the board state the LEDs show.

    Uses only ``game.rules.target/skunk/double_skunk``, ``game.sides`` (each
    with ``name``, ``players`` and ``pegs``), ``game.turn`` (a player's name)
    and ``game.winner`` (a side's or a player's name), so any object with
    that shape works.
    """
    rules = game.rules
    target = int(rules.target)
    sides = tuple(
        SidePegs(
            str(s.name),
            front=int(s.pegs[0]),
            back=int(s.pegs[1]),
            players=tuple(str(p) for p in getattr(s, "players", ()) or (s.name,)),
        )
        for s in game.sides
    )

    def side_of(who: str | None) -> int | None:
        if who is None:
            return None
        for i, side in enumerate(sides):
            if who == side.name or who in side.players:
                return i
        raise BoardStateError(f"{who!r} is not a player of this game")

    skunk = getattr(rules, "skunk", None)
    double_skunk = getattr(rules, "double_skunk", None)
    winner = side_of(getattr(game, "winner", None))
    return BoardState(
        sides,
        target=target,
        skunk=int(skunk) if skunk is not None else None,
        double_skunk=int(double_skunk) if double_skunk is not None else None,
        turn=None if winner is not None else side_of(getattr(game, "turn", None)),
        winner=winner,
    )
