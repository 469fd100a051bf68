"""The table's rules of procedure as pure decisions on the game: what a button, a starter
or an adjustment leads to now, and the words that go with it.

The flow (``firmware.table.flow``) keeps the memory of the table (who has cut, what is
spread, the muggins window) and hands these the game and what they need of that memory; they
never change anything, so each is read, and tested, in one sitting.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.cards import Card
from engine.game import Game
from engine.words import card_words, points_words, scores_words
from firmware.table.inputs import MAX_ADJUST, Outcome, flash
from firmware.table.words import next_words
from vision.live.zones import CRIB, STARTER

__all__ = ["misdeal_allowed", "open_match_words", "cards_on_table", "held_menu", "misdeal",
           "next_game", "new_starter", "adjust", "caller", "waiting", "place_words"]


def misdeal_allowed(game: Game) -> bool:
    """Whether a misdeal may be called now: after any deal and before its starter is cut,
    which is also before the first starter of the next game (the flow then stores the deal
    it was called on). Not before the first deal of a match: nobody has dealt yet."""
    if game.phase == "starter":
        return True
    if game.phase == "deal":
        return game.turn is not None
    return game.phase == "over" and game.match_winner is None


def open_match_words(game: Game) -> str:
    """What starting a new match does to the one open now, for the question that asks for
    CONFIRM (the buttons and the phone page say the same)."""
    if game.phase == "new_game" or not game.sides:
        return "no match is open"
    finished = len(game.match)
    if finished == 0 and not game.points and game.starter is None and game.phase in (
            "deal", "starter"):
        return "nothing has been scored in the open match yet"
    games = f"{finished} game{'s' if finished != 1 else ''} finished"
    if game.phase == "over":
        return (f"the open match ends here and stays in the history ({games}, "
                f"{points_words(game.match_points)})")
    return (f"the open match ends here and stays in the history ({games}); the game in "
            f"progress ({scores_words(game.sides)}) is left unfinished and counts for nobody")


def cards_on_table(game: Game) -> frozenset[Card]:
    """The cards the game says lie face up now: the starter and every card laid this deal
    (the hands spread for the show are those same cards). A camera that starts mid-deal
    (after a power cut) must take these for cards, not for the table's printed art."""
    laid = [card for player in game.players for card in game.laid(player)]
    return frozenset(laid + ([game.starter] if game.starter is not None else []))


def held_menu(game: Game, last_card: Card | None) -> str:
    """The choices after holding UNDO: only those the game allows now (``last_card``: the
    last card the board read, which MUGGINS then corrects)."""
    choices = ["CONFIRM to start a new match"]
    if misdeal_allowed(game):
        choices.append("GO for a misdeal")
    if last_card is not None and game.phase not in ("new_game", "over"):
        choices.append("MUGGINS to correct the last card read")
    if game.sides and game.phase not in ("new_game", "over"):
        choices.append("UNDO to adjust a score by hand")
    menu = ", ".join(choices[:-1]) + (" or " if len(choices) > 1 else "") + choices[-1]
    open_match = open_match_words(game)
    after = "" if open_match == "no match is open" else f" ({open_match})"
    return f"press {menu}{after}"


def next_game(game: Game, new_game: dict[str, Any]) -> Outcome:
    """The next game of the match (``new_game``: the flow's new_game event), or a new match
    once this one is won."""
    if game.match_winner is not None:
        return Outcome(events=(new_game,), fresh_match=True)
    return Outcome(events=(new_game,))


def misdeal(game: Game, new_game: dict[str, Any]) -> Outcome:
    """A misdeal after any deal: the deal is stored first where the flow has not stored
    it yet (it stores a deal with its starter), and the next game started first where
    the misdeal is its first deal's."""
    called = {"type": "misdeal"}
    if game.phase == "starter":
        return Outcome(events=(called,))
    if misdeal_allowed(game) and game.phase == "deal":
        return Outcome(events=({"type": "deal"}, called))
    if misdeal_allowed(game):  # over: the next game's first deal
        return next_game(game, new_game) + Outcome(events=({"type": "deal"}, called))
    return flash(f"no misdeal now: it is called after a deal and before its starter is "
                 f"cut; now {next_words(game)}")


def new_starter(card: Card, game: Game, new_game: dict[str, Any]) -> Outcome:
    """``card`` cut as a new starter: the deal stored first where it is not yet, the next
    game started first once a game is over."""
    name = card_words(card)
    phase = game.phase
    starter = {"type": "starter", "card": str(card)}
    if phase == "starter":
        return Outcome(events=(starter,))
    if phase == "deal":
        return Outcome(events=({"type": "deal"}, starter))
    if phase == "over" and game.match_winner is not None:
        return flash(f"{name} is not cut yet: {next_words(game)}")
    if phase == "over":
        return next_game(game, new_game) + Outcome(events=({"type": "deal"}, starter))
    cut = "" if game.starter is None else f" ({card_words(game.starter)})"
    return flash(f"the starter is already cut{cut}; {name} is not in play")


def adjust(player: str, points: int, game: Game, reason: str) -> Outcome:
    """A score moved by hand, as the log's ``adjust`` event, or why not."""
    if game.phase in ("new_game", "over") or not game.sides:
        return flash("no game to adjust a score in: "
                     + ("the game is over" if game.phase == "over" else "none started"))
    if player not in game.players:
        return flash(f"{player} is not playing this game "
                     f"({', '.join(game.players)} are)")
    if points == 0 or abs(points) > MAX_ADJUST:
        return flash(f"an adjustment is 1 to {MAX_ADJUST} points either way, "
                     f"not {points}")
    return Outcome(events=({"type": "adjust", "player": player, "points": points,
                            "reason": reason},))


def caller(players: Sequence[str], claimant: str, game: Game) -> str:
    """Who calls muggins on ``claimant``: one button for the table, so the first opponent
    to the claimant's left (the only opponent with two players)."""
    seat = players.index(claimant)
    own = game.side_of(claimant).name
    for step in range(1, len(players)):
        other = players[(seat + step) % len(players)]
        if game.side_of(other).name != own:
            return other
    raise AssertionError("a game has at least two sides")


def waiting(game: Game) -> str:
    """What the table waits for, in the players' words."""
    if game.phase == "over":
        return next_words(game)
    return f"now {game.next}"


def place_words(zone: str | None) -> str:
    """An area as the table names it: "Ann's area", "the starter area", "no area"."""
    if zone is None:
        return "no area"
    if zone in (STARTER, CRIB):
        return f"the {zone} area"
    return f"{zone}'s area"
