"""Player names the board can serve: one rule for the config, the phone page and the flow.

Why a rule at all: the table flow names the camera's areas after the players,
beside ``starter`` and ``crib``, so a player called "crib" would have every
card they lay taken for the crib; and partnership sides are named by joining
the partners with " & " ("Ann & Cid"), so a name holding "&" could be read
as a side. The config, the phone page and the flow each refuse such names
by calling ``player_names`` here, so the three can never disagree.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from vision.live.zones import CRIB, STARTER

__all__ = ["MAX_NAME", "PlayerNameError", "player_names"]

#: The longest name the phone page and the board's words have room for.
MAX_NAME = 20


class PlayerNameError(ValueError):
    """Players the board cannot serve; the message quotes the bad name."""


def player_names(value: Any) -> tuple[str, ...]:
    """Checks 2 to 4 distinct names (case aside) and returns them with each run of spaces
    made one.

    >>> player_names(["Ann", "Bob  Lee"])
    ('Ann', 'Bob Lee')
    """
    if not isinstance(value, list | tuple) or not 2 <= len(value) <= 4:
        raise PlayerNameError(f"players must be a list of 2 to 4 names, not {_show(value)}")
    names = tuple(_name(v, i) for i, v in enumerate(value))
    folded = [n.casefold() for n in names]
    if len(set(folded)) != len(folded):
        raise PlayerNameError(f"players names someone twice: {list(names)!r}")
    return names


def _name(value: Any, index: int) -> str:
    where = f"players[{index}]"
    if not isinstance(value, str):
        raise PlayerNameError(f"{where} must be a name, not {_show(value)}")
    name = " ".join(value.split())
    if not name or len(name) > MAX_NAME:
        raise PlayerNameError(f"{where} must be 1 to {MAX_NAME} characters, not {_show(value)}")
    if any(unicodedata.category(ch)[0] == "C" for ch in name):
        raise PlayerNameError(f"{where} holds a control character: {value!r}")
    if name.casefold() in (STARTER, CRIB):
        raise PlayerNameError(f"{where}: {name!r} is kept for the board's own use "
                              f"(the {name.casefold()}'s area)")
    if "&" in name:
        raise PlayerNameError(f"{where}: {name!r} is kept for the board's own use "
                              "(\"&\" joins partners' names, as in \"Ann & Cid\")")
    return name


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
