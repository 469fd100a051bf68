"""Words for the table, where the engine's words are written for log readers.

The engine says what it waits for and why it refused an event in the log's terms
("a new game with the same players starts the next game", "then line 9 breaks the
rules"); the players at the table need the button to press and the card to look at.
The flow, the loop's status line and the phone page all take their words from here,
so the table hears one thing whichever way it looks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.cards import Card
from engine.game import Game
from engine.records import Pegged

__all__ = ["next_words", "pegged_words", "reason_names", "refusal_words", "REASON_NAMES",
           "at_start_words"]

#: How the table names each reason a score was pegged (the page's score list too).
REASON_NAMES = {
    "hand": "hand", "crib": "crib", "his_heels": "his heels", "fifteen": "fifteen",
    "pair": "pair", "run": "run", "go": "go", "last_card": "last card", "thirty_one": "31",
    "claim": "claim", "muggins": "muggins", "adjust": "adjusted", "dealer_bonus": "dealer bonus",
    "misdeal": "misdeal",
}

_REFOLD = re.compile(r"^(?P<head>.+?): then line \d+ breaks the rules \((?P<why>.*)\)$", re.S)


def next_words(game: Game) -> str:
    """What the table waits for: the engine's ``next``, except once a game is over, where
    the players need the button (CONFIRM) and whether a game or a whole match comes next."""
    if game.phase != "over":
        return game.next
    won = f"{game.winner} wins"
    if game.match_winner is not None:
        return (f"{game.match_winner} has won the match: press CONFIRM to start a new match "
                "(then cut for the deal)")
    return (f"game over ({won}): press CONFIRM for the next game of the match, or lay its "
            "starter")


def reason_names(reason: str) -> str:
    """``"fifteen+pair"`` as ``"fifteen and pair"``."""
    return " and ".join(REASON_NAMES.get(r, r.replace("_", " ")) for r in reason.split("+"))


def pegged_words(pegged: Pegged, game: Game) -> str:
    """The words for one score. The score that ends the game at the game hole is told as
    what was pegged and that it reached the hole: the engine stops the peg there, so a 31
    that pegs one hole must not read "thirty-one for two"."""
    target = game.rules.target
    if (game.phase == "over" and game.points and game.points[-1] == pegged
            and any(s.name == pegged.side and s.score == target for s in game.sides)):
        return f"{reason_names(pegged.reason)}, pegs {pegged.points} to reach the game hole " \
               f"({target})"
    return pegged.words


def refusal_words(detail: str) -> str:
    """An engine refusal for the table: a card that cannot be put right is told by the rule
    it would break, not by the log line that breaks it."""
    found = _REFOLD.match(detail)
    if found is not None:
        return f"{found['head']}: the play would then break a rule ({found['why']})"
    return detail


def at_start_words(cards: Sequence[Card]) -> str:
    """What the players hear when cards lay face up on the table as the board started
    (``vision.live.motion.StreamReader.at_start``): the reader took them for the table's own
    art, as it must a card printed on a mat, so they are not counted where they lie. A card
    laid again exactly where its art lies is still the art's, hence "a little way off"."""
    count = len(cards)
    names = ", ".join(str(card) for card in sorted(cards))
    if count == 1:
        return (f"1 card was on the table at start ({names}): lift it and lay it again, a "
                "little way off, to count it")
    return (f"{count} cards were on the table at start ({names}): lift them and lay them "
            "again, a little way off, to count them")
