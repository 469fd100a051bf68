"""A terse way to write game logs in tests: ``"play Bob 5S"`` is one event line."""

from __future__ import annotations

from typing import Any

from engine.game import Game


def ev(line: str, rules: dict[str, Any] | None = None) -> dict[str, Any]:
    """Turns ``"show Bob 5S 5H 10D JC"`` into the event dict of CONTRACT.md."""
    word, *rest = line.split()
    if word == "new":
        return {"type": "new_game", "players": rest, "rules": dict(rules or {})}
    if word == "deal":
        return {"type": "deal", **({"dealer": rest[0]} if rest else {})}
    if word == "starter":
        return {"type": "starter", "card": rest[0]}
    if word == "play":
        return {"type": "play", "player": rest[0], "card": rest[1]}
    if word in ("go", "muggins"):
        return {"type": word, "player": rest[0]}
    if word == "show":
        return {"type": "show", "player": rest[0], "cards": rest[1:]}
    if word == "crib":
        return {"type": "crib", "cards": rest}
    if word == "claim":
        return {"type": "claim", "player": rest[0], "points": int(rest[1])}
    if word == "adjust":
        reason = " ".join(rest[2:]) or "adjust"
        return {"type": "adjust", "player": rest[0], "points": int(rest[1]), "reason": reason}
    if word == "correct":
        return {"type": "correct", "was": rest[0], "card": rest[1]}
    if word == "misdeal":
        return {"type": "misdeal"}
    raise ValueError(f"unknown test log word {word!r}")


def log(*lines: str, rules: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Event dicts for ``lines``; ``rules`` go on the first (``new ...``) line."""
    return [ev(line, rules if i == 0 else None) for i, line in enumerate(lines)]


def play(*lines: str, rules: dict[str, Any] | None = None) -> Game:
    return Game.replay(log(*lines, rules=rules))


def scores(game: Game) -> list[int]:
    return [side.score for side in game.sides]


def pegged(game: Game) -> list[tuple[int, str, int, str]]:
    """(event, side, points, reason) for every score of the current game."""
    return [(p.event, p.side, p.points, p.reason) for p in game.points]
