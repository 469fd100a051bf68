"""Game-aware reading: a card the camera read that the game rules out, resolved with the
recogniser's own runners-up.

The recogniser ranks its readings of a card (``vision.recognise.detection.Detection``'s
``alternatives``, carried by ``vision.live.tracker.CardAppeared``). The game knows things the
pixels do not: a card already laid this deal cannot be laid again, the starter is no one's
card, a card that takes the count past 31 is laid only by the player due to lead the next
count, and a player passed over cannot later lay a card that fitted. When the reading breaks
one of these rules of the card itself and one runner-up keeps them all and is close in score,
the runner-up is what lies there ("read as six of hearts; six of hearts is already laid:
taking six of diamonds"). Otherwise the players are asked, naming the choices, and nothing is
scored. A reading the game allows is never overridden, and no card the recogniser did not
rank is ever taken. Rules about the player rather than the card (whose turn it is, cards
left) rule out every reading alike, so they choose nothing: the engine's refusal says them.

The engine is the judge: each reading is tried on a copy of the game (``Game.apply`` on a
deep copy), so the rules here are exactly the engine's.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass

from engine.cards import Card
from engine.game import Game
from engine.records import LogError
from engine.words import card_words

__all__ = ["CARD_RULES", "CLOSE_SHARE", "CLEAR_LEAD", "Resolution", "resolve_play"]

#: The engine's rules (``LogError.rule``) that rule out a card rather than a player.
CARD_RULES = frozenset({"card_laid_twice", "starter_laid", "count_over_31", "renege"})

#: A runner-up is close when its probability is at least this share of the reading's
#: confidence. The recogniser itself calls an index unknown when a rival reading of the same
#: glyphs reaches 0.2 (``vision.recognise.detection.RIVAL_PROBABILITY``) beside a best of
#: 0.6-0.95: a runner-up a fifth as likely as the reading is a doubt of that size. Below it
#: the reading was clear and the card is more likely a real one out of place (moved from
#: another player's area) than a misread: asked about, not replaced.
CLOSE_SHARE = 0.2

#: Of two close runners-up that the game allows, the better is taken only when it is at
#: least this many times as likely as the other; else the players choose.
CLEAR_LEAD = 2.0


@dataclass(frozen=True, slots=True)
class Resolution:
    """What to make of a card read in a player's area: ``card`` is the card to play (the
    reading itself or a runner-up), None when the players must be asked; ``words`` say why
    a runner-up was taken, or what to ask ("" when the reading stands)."""

    card: Card | None
    words: str = ""


def resolve_play(card: Card, confidence: float, alternatives: Sequence[tuple[Card, float]],
                 player: str, game: Game) -> Resolution:
    """Resolves ``card``, read with ``confidence`` in ``player``'s area during the play, with
    the recogniser's ranked ``alternatives`` (card, probability), best first."""
    refusal = _refusal(card, player, game)
    if refusal is None or refusal.rule not in CARD_RULES or game.phase != "play":
        return Resolution(card)  # possible, or ruled out for every card alike
    name = card_words(card)
    why = _why(card, refusal, game)
    possible = [(alt, p) for alt, p in alternatives
                if alt != card and _refusal(alt, player, game) is None]
    close = [(alt, p) for alt, p in possible if p >= CLOSE_SHARE * confidence]
    if close and (len(close) == 1 or close[0][1] >= CLEAR_LEAD * close[1][1]):
        taken = close[0][0]
        return Resolution(taken, f"read as {name}; {why}: taking {card_words(taken)}")
    if possible:
        choices = " or ".join(card_words(alt) for alt, _ in possible)
        return Resolution(None, f"read as {name}, but {why}: is it {choices}? Lift it and lay "
                                "it again, or type it on the phone")
    return Resolution(None, f"read as {name}, but {why}, and no other reading fits: lift it "
                            "and lay it again, or type it on the phone")


def _refusal(card: Card, player: str, game: Game) -> LogError | None:
    """The engine's refusal of ``player`` laying ``card`` now, tried on a copy of the game."""
    trial = copy.deepcopy(game)
    try:
        trial.apply({"type": "play", "player": player, "card": str(card)})
    except LogError as error:
        return error
    return None


def _why(card: Card, refusal: LogError, game: Game) -> str:
    """The card's broken rule in the table's words."""
    name = card_words(card)
    if refusal.rule == "card_laid_twice":
        by = [p for p in game.players if card in game.laid(p)]
        return f"{name} is already laid" + (f" ({by[0]} played it this deal)" if by else "")
    if refusal.rule == "starter_laid":
        return f"{name} is the starter"
    if refusal.rule == "count_over_31":
        return f"{name} would take the count of {game.count} past 31"
    return refusal.detail
