"""What the table hears about an event: once it is stored (the count, the correction, the
adjustment, the result), or when the engine refuses it.

Pure words over the event, what it pegged and the game after it, apart from
``firmware.table.flow``'s decisions, so the table hears the same whichever way a card or a
button got the event there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.game import Game
from engine.records import LogError, Pegged
from engine.words import card_words, points_words, result_words, scores_words
from firmware.table.inputs import NOTHING, Feedback, Outcome, flash, notice, say
from firmware.table.words import next_words, pegged_words, refusal_words

__all__ = ["announce", "adjusted", "corrected", "game_result", "rejected"]


def announce(event: Mapping[str, Any], pegged: Sequence[Pegged], game: Game) -> Outcome:
    """What the table hears once ``event`` is stored and has pegged ``pegged``."""
    kind = event["type"]
    words = [p for p in pegged if p.words]
    if kind == "show":
        player = event["player"]
        text = "; ".join(p.words for p in words) or ("nineteen" if not game.rules.muggins
                                                     else "counted")
        return say(f"{player}'s hand: {text}")
    if kind == "crib":
        text = "; ".join(p.words for p in words) or ("nineteen" if not game.rules.muggins
                                                     else "counted")
        return say(f"{game.dealer}'s crib: {text}")
    if kind == "claim":
        points = sum(p.points for p in pegged)
        return say(f"{event['player']} pegs {points}")
    if kind == "muggins":
        return say("muggins! " + "; ".join(f"{p.player} takes {p.points}, {p.words}"
                                            for p in pegged))
    if kind == "adjust":
        return adjusted(event, pegged, game)
    if kind == "go" and not pegged:
        return say(f"{event['player']}: go, no points")
    if kind == "discard":
        return notice(f"noted for the review: {event['player']} threw "
                       f"{' '.join(event['cards'])} to the crib")
    if kind == "correct":
        return corrected(game)
    if kind == "misdeal":
        redeal = f"misdeal: {game.dealer} deals again"
        return say("; ".join([redeal, *(f"{p.player} pegs {p.points}" for p in pegged)]))
    out = NOTHING
    by_player: dict[str, list[str]] = {}
    for p in words:
        by_player.setdefault(p.player or p.side, []).append(pegged_words(p, game))
    for player, said in by_player.items():
        out += say(f"{player}: {', '.join(said)}")
    return out

def adjusted(event: Mapping[str, Any], pegged: Sequence[Pegged], game: Game) -> Outcome:
    """A score moved by hand, said and shown with the score it leaves."""
    player = str(event["player"])
    moved = sum(p.points for p in pegged)
    if not pegged:
        text = f"{player}: adjusted by {event['points']}, but the score cannot move"
    elif moved > 0:
        text = f"{player} pegs {moved} by hand"
    else:
        text = f"{player} takes back {-moved} by hand"
    text += f"; {scores_words(game.sides)}"
    return Outcome(feedback=(Feedback("say", text), Feedback("notice", text)))

def corrected(game: Game) -> Outcome:
    """Says the correction and every score it changed, as the status line too."""
    fix = game.last_correction
    assert fix is not None
    parts = [f"corrected: the {card_words(fix.was)} is the {card_words(fix.card)}"]
    parts += [f"no longer {p.player or p.side} {p.points}, {p.words}" for p in fix.gone]
    parts += [f"now {p.player or p.side} {p.points}, {p.words}" for p in fix.added]
    parts += [f"{a.name} {b.score} to {a.score}" for b, a in zip(fix.before, fix.after,
                                                               strict=True)
              if a.score != b.score]
    if len(parts) == 1:
        parts.append("no score changes")
    text = "; ".join(parts)
    return Outcome(feedback=(Feedback("say", text), Feedback("notice", text)))

def game_result(game: Game) -> str:
    """Who won the game just over, how, and where the match stands."""
    result = game.result
    how = "" if result in (None, "win") else f" with a {result_words(result)}"
    text = f"{game.winner} wins{how}: {scores_words(game.sides)}"
    points = points_words(game.match_points)
    if game.match_winner is not None:
        text += f"; {game.match_winner} wins the match ({points})"
    elif len(game.match) > 1 or game.rules.best_of or game.rules.first_to:
        text += f"; match {points}"
    return text


def rejected(event: Mapping[str, Any], error: LogError, game: Game) -> Outcome:
    """A proposed event the engine refused: flash, say why, store nothing."""
    kind = event.get("type")
    if kind == "muggins" and error.rule == "muggins_nothing_missed":
        return flash(f"muggins refused: {error.detail}")
    if kind == "play" and error.rule in ("card_laid_twice", "starter_laid"):
        return flash(error.detail)
    if kind == "misdeal":
        return flash(f"no misdeal now: it is called after a deal and before its starter "
                      f"is cut; now {next_words(game)}")
    detail = refusal_words(error.detail)
    who = event.get("player")
    prefix = f"{who}: " if isinstance(who, str) and who not in detail else ""
    return flash(prefix + detail)
