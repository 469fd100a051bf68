"""Standings from counted games: players matched across boards, ACC tournament points.

Pure: no database, no clock. ``clubdb`` hands in the games it has folded.

Tournament scoring follows the American Cribbage Congress's club practice
(RULES.md): a win is worth 2 game points and a skunk 3; what a double skunk is
worth is the club's choice (ACC counts it as a skunk). The loser scores 0.
"Spread" is the margin of each game: the winner gains what each losing side
fell short of the winner's score, each loser loses its own shortfall; it breaks
ties. Match points are the board's own ``game_values`` (CONTRACT.md), credited
to the winning side's players.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.words import fold_name  # the one rule for matching a player's spellings

__all__ = ["Scoring", "Roster", "RosterError", "CountedGame", "PlayerStanding",
           "standings", "fold_name"]


class RosterError(ValueError):
    """A roster file that cannot be read; the message names the file and the entry."""


@dataclass(frozen=True)
class Scoring:
    """Tournament points per game won, by result; the loser scores 0."""

    win: int = 2
    skunk: int = 3
    double_skunk: int = 3

    def points(self, result: str) -> int:
        return self.to_json()[result]

    def to_json(self) -> dict[str, int]:
        return {"win": self.win, "skunk": self.skunk, "double_skunk": self.double_skunk}


@dataclass(frozen=True)
class Roster:
    """The club's players (``players``) and other spellings boards may use (``aliases``).

    With no roster every folded spelling is its own player, shown as first seen.
    """

    names: Mapping[str, str] = field(default_factory=dict)  # folded spelling -> roster name
    listed: tuple[str, ...] = ()

    @classmethod
    def load(cls, path: Path) -> Roster:
        """``players = ["Ann Smith", ...]`` and an optional ``[aliases]`` table of
        ``"annie" = "Ann Smith"``, in TOML."""
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise RosterError(f"cannot read roster {str(path)!r}: {exc.strerror or exc}") \
                from None
        except tomllib.TOMLDecodeError as exc:
            raise RosterError(f"roster {str(path)!r} is not TOML: {exc}") from None
        unknown = sorted(set(data) - {"players", "aliases"})
        if unknown:
            raise RosterError(f"roster {str(path)!r}: unknown key {unknown[0]!r} "
                              "(known: aliases, players)")
        players = data.get("players", [])
        if not isinstance(players, list) or not all(
                isinstance(p, str) and p.strip() for p in players):
            raise RosterError(f"roster {str(path)!r}: players must be a list of names, "
                              f"not {players!r}")
        names: dict[str, str] = {}
        for player in players:
            if fold_name(player) in names:
                raise RosterError(f"roster {str(path)!r} names {player!r} twice")
            names[fold_name(player)] = " ".join(player.split())
        aliases = data.get("aliases", {})
        if not isinstance(aliases, dict):
            raise RosterError(f"roster {str(path)!r}: aliases must be a table, "
                              f"not {aliases!r}")
        for alias, target in aliases.items():
            if not isinstance(target, str) or fold_name(target) not in names:
                raise RosterError(f"roster {str(path)!r}: alias {alias!r} names {target!r}, "
                                  "who is not in players")
            names[fold_name(alias)] = names[fold_name(target)]
        return cls(names, tuple(names[fold_name(p)] for p in players))

    def key(self, name: str) -> tuple[str, str | None]:
        """(folded key, roster name or None for a player not on the roster)."""
        found = self.names.get(fold_name(name))
        return (fold_name(found), found) if found is not None else (fold_name(name), None)


@dataclass(frozen=True, slots=True)
class CountedGame:
    """A finished game as the club server folded it from a board's rows."""

    board: str
    store: str
    match: int
    number: int
    sides: tuple[tuple[str, tuple[str, ...]], ...]  # (side name, its players), seating order
    winner: str
    result: str
    value: int
    scores: tuple[int, ...]
    results: tuple[str | None, ...]  # each losing side's own result; None for the winner
    round: int | None
    counted_at: float

    def to_json(self) -> dict[str, Any]:
        return {"board": self.board, "store": self.store, "match": self.match,
                "game": self.number, "round": self.round, "winner": self.winner,
                "result": self.result, "value": self.value,
                "sides": [{"name": n, "players": list(p), "score": s, "result": r}
                          for (n, p), s, r in zip(self.sides, self.scores, self.results,
                                                  strict=True)],
                "counted_at": self.counted_at}


@dataclass
class PlayerStanding:
    name: str
    on_roster: bool
    games: int = 0
    wins: int = 0
    skunks_given: int = 0
    skunks_taken: int = 0
    double_skunks_given: int = 0
    double_skunks_taken: int = 0
    match_points: int = 0
    tournament_points: int = 0
    spread: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "on_roster": self.on_roster, "games": self.games,
                "wins": self.wins, "losses": self.games - self.wins,
                "skunks_given": self.skunks_given, "skunks_taken": self.skunks_taken,
                "double_skunks_given": self.double_skunks_given,
                "double_skunks_taken": self.double_skunks_taken,
                "match_points": self.match_points,
                "tournament_points": self.tournament_points, "spread": self.spread}


def standings(games: Iterable[CountedGame], *, scoring: Scoring = Scoring(),
              roster: Roster = Roster(), rounds: Sequence[int] | None = None
              ) -> list[PlayerStanding]:
    """Per player, best first: tournament points, then spread, then wins, then name.

    ``rounds`` keeps only the games of those rounds. Every roster player is listed,
    even before their first game.
    """
    table: dict[str, PlayerStanding] = {}

    def player(name: str) -> PlayerStanding:
        key, listed = roster.key(name)
        if key not in table:
            table[key] = PlayerStanding(listed or " ".join(name.split()), listed is not None)
        return table[key]

    for name in roster.listed:
        player(name)
    for game in games:
        if rounds is not None and game.round not in rounds:
            continue
        names = [n for n, _ in game.sides]
        winner_at = names.index(game.winner)
        top = game.scores[winner_at]
        losers = [i for i in range(len(names)) if i != winner_at]
        for i, (_, players) in enumerate(game.sides):
            for name in players:
                row = player(name)
                row.games += 1
                if i == winner_at:
                    row.wins += 1
                    row.match_points += game.value
                    row.tournament_points += scoring.points(game.result)
                    row.spread += sum(top - game.scores[j] for j in losers)
                    for j in losers:
                        row.skunks_given += game.results[j] in ("skunk", "double_skunk")
                        row.double_skunks_given += game.results[j] == "double_skunk"
                else:
                    result = game.results[i]
                    row.skunks_taken += result in ("skunk", "double_skunk")
                    row.double_skunks_taken += result == "double_skunk"
                    row.spread -= top - game.scores[i]
    return sorted(table.values(), key=lambda r: (-r.tournament_points, -r.spread, -r.wins,
                                                 fold_name(r.name)))
