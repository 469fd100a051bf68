"""The rules block of a ``new_game`` event: ACC tournament rules by default, house variants by name.

Every option is named as in CONTRACT.md and defaults to the ACC behaviour, so a
log written with ``"rules": {}`` is a tournament game and a house table only
names what it does differently (RULES.md section 7 and 9).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from engine.errors import RulesError

__all__ = ["Rules", "RESULTS"]

# Game results in order of weight; ``game_values`` gives each its match points.
RESULTS = ("win", "skunk", "double_skunk")

_TARGETS = (121, 61)
_DEFAULT_SKUNK = {121: 91, 61: 31}
_DEFAULT_DOUBLE_SKUNK: dict[int, int | None] = {121: 61, 61: None}
_UNSET: Any = object()


@dataclass(frozen=True, slots=True)
class Rules:
    """One game's rules. Build it with :meth:`from_json` to get defaults that depend on the target.

    ``skunk`` and ``double_skunk`` are lines: a loser whose score is *below* the
    line at the moment the game ends is skunked (ACC: a loser on 90 is skunked,
    one on 91 is not).
    """

    target: int = 121
    partnership: bool = False
    muggins: bool = False
    skunk: int | None = 91
    double_skunk: int | None = 61
    game_values: tuple[int, int, int] = (1, 2, 4)
    last_player_continues: bool = True
    early_double_skunk: bool = False
    dealer_bonus: int = 0
    crib_four_flush: bool = False
    stink_hole: bool = False
    muggins_heels: bool = False
    misdeal_penalty: int = 2
    best_of: int | None = None
    first_to: int | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None = None, *, players: int = 2) -> Rules:
        """Parses a ``rules`` object; unknown keys and wrong types are a ``RulesError``.

        >>> Rules.from_json({"target": 61}).skunk
        31
        """
        data = {} if data is None else data
        if not isinstance(data, Mapping):
            raise RulesError(f"rules must be an object, not {data!r}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise RulesError(
                f"unknown rules key {unknown[0]!r} (known keys: {', '.join(sorted(known))})"
            )
        target = data.get("target", 121)
        if type(target) is not int or target not in _TARGETS:
            raise RulesError(f"rules.target must be 121 or 61, not {target!r}")
        partnership = _flag(data, "partnership", False)
        if partnership and players != 4:
            raise RulesError(f"rules.partnership needs four players, not {players}")
        muggins = _flag(data, "muggins", False)
        muggins_heels = _flag(data, "muggins_heels", False)
        if muggins_heels and not muggins:
            raise RulesError("rules.muggins_heels needs rules.muggins to be true")
        skunk = _line(data, "skunk", _DEFAULT_SKUNK[target], target)
        double = _line(data, "double_skunk", _DEFAULT_DOUBLE_SKUNK[target], target)
        if skunk is not None and double is not None and double > skunk:
            raise RulesError(
                f"rules.double_skunk ({double}) must not be above rules.skunk ({skunk})"
            )
        best_of, first_to = _match_length(data)
        return cls(
            target=target,
            partnership=partnership,
            muggins=muggins,
            skunk=skunk,
            double_skunk=double,
            game_values=_game_values(data.get("game_values", _UNSET)),
            last_player_continues=_flag(data, "last_player_continues", True),
            early_double_skunk=_flag(data, "early_double_skunk", False),
            dealer_bonus=_points(data, "dealer_bonus", target),
            crib_four_flush=_flag(data, "crib_four_flush", False),
            stink_hole=_flag(data, "stink_hole", False),
            muggins_heels=muggins_heels,
            misdeal_penalty=_points(data, "misdeal_penalty", target, default=2),
            best_of=best_of,
            first_to=first_to,
        )

    def to_json(self) -> dict[str, Any]:
        """Every option with its value, so a stored game says exactly what it was played under."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["game_values"] = list(self.game_values)
        return out

    @property
    def early_double_skunk_line(self) -> int | None:
        """The score that ends a 121 game early under ``early_double_skunk``; None when off."""
        return self.target // 2 + 1 if self.early_double_skunk and self.target == 121 else None


def _flag(data: Mapping[str, Any], key: str, default: bool) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise RulesError(f"rules.{key} must be true or false, not {value!r}")
    return value


def _line(data: Mapping[str, Any], key: str, default: int | None, target: int) -> int | None:
    value = data.get(key, default)
    if value is None:
        return None
    if type(value) is not int or not 0 < value < target:
        raise RulesError(f"rules.{key} must be a score between 1 and {target - 1} or null, "
                         f"not {value!r}")
    return value


def _points(data: Mapping[str, Any], key: str, target: int, *, default: int = 0) -> int:
    value = data.get(key, default)
    if type(value) is not int or not 0 <= value < target:
        raise RulesError(f"rules.{key} must be a number of points from 0 to {target - 1}, "
                         f"not {value!r}")
    return value


# Bounds, so a log cannot carry a match no table plays (best_of 10^30 + 1).
MAX_BEST_OF = 99
MAX_FIRST_TO = 1000
MAX_GAME_VALUE = 100


def _short(value: Any) -> str:
    """A refused value as the error shows it: never thousands of digits."""
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:37]}..."


def _game_values(value: Any) -> tuple[int, int, int]:
    if value is _UNSET:
        return (1, 2, 4)
    if (
        not isinstance(value, list | tuple)
        or len(value) != 3
        or any(type(v) is not int or not 0 <= v <= MAX_GAME_VALUE for v in value)
    ):
        raise RulesError(
            f"rules.game_values must be three whole numbers from 0 to {MAX_GAME_VALUE} "
            f"[win, skunk, double skunk], not {_short(value)}"
        )
    return (value[0], value[1], value[2])


def _match_length(data: Mapping[str, Any]) -> tuple[int | None, int | None]:
    """A match is open-ended unless it is best of an odd number of games or first to a
    number of match points; both at once would leave the winner in doubt."""
    best_of, first_to = data.get("best_of"), data.get("first_to")
    if best_of is not None and (type(best_of) is not int or not 1 <= best_of <= MAX_BEST_OF
                                or best_of % 2 == 0):
        raise RulesError(f"rules.best_of must be an odd number of games (1, 3, 5, ... "
                         f"{MAX_BEST_OF}) or null, not {_short(best_of)}")
    if first_to is not None and (type(first_to) is not int
                                 or not 1 <= first_to <= MAX_FIRST_TO):
        raise RulesError(f"rules.first_to must be a number of match points from 1 to "
                         f"{MAX_FIRST_TO} or null, not {_short(first_to)}")
    if best_of is not None and first_to is not None:
        raise RulesError(f"a match is best_of {best_of} games or first_to {first_to} points, "
                         "not both")
    return best_of, first_to
