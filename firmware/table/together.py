"""Many new cards in one settled change of the table: take them, count them, or ask.

The camera reports a change once the hands have left it, so a whole hand put down at once,
or a photo of a table, arrives as one change holding many cards. Taken one by one, the
first would be the cut, the next the starter, the next a play, and the rest refused: a
wrong starter to undo. So before the flow takes a change's new cards one at a time, it asks
``judge`` whether the game can take that many in the step it is at:

- the cut: one card in the area of each player still to cut;
- the starter: one card;
- the play: one card in each player's area (two players may lay before the table settles),
  or the crib spread face up, kept for its turn;
- the show and the crib: a hand spread in its player's area, the crib in the crib area:
  each a spread of ``HAND`` counted in its turn, as if the tracker had seen the area
  complete.

Anything more is asked about, and nothing of the change is taken: the players lift the cards
and lay them again one at a time. Pure: the flow gives the cards and the game.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from engine.cards import Card
from engine.game import Game
from firmware.table.procedure import place_words
from vision.live.tracker import TrackerSettings
from vision.live.zones import CRIB

__all__ = ["HAND", "Together", "judge", "starter_due"]

#: The cards of a hand or crib spread to count: as many as make the tracker call an area
#: complete, taken from it so the two cannot disagree.
HAND = TrackerSettings().complete_size


@dataclass(frozen=True, slots=True)
class Together:
    """What one change's new cards are: ``ask`` (words for the players; nothing is taken),
    ``spreads`` to count or keep for their turn (area -> cards), and ``whole`` when the change
    is dealt with as a whole (the spreads, or asked about); else the cards are taken one by
    one, as any single card is."""

    ask: str | None = None
    spreads: tuple[tuple[str, tuple[Card, ...]], ...] = ()
    whole: bool = False


ONE_BY_ONE = Together()


def starter_due(game: Game) -> bool:
    """Whether the next card the game takes is a starter (this deal's, or the next game's)."""
    return (game.phase == "starter" or (game.phase == "deal" and game.turn is not None)
            or (game.phase == "over" and game.match_winner is None))


def judge(new: Sequence[tuple[Card, str | None]], game: Game, *, players: Sequence[str],
          uncut: Collection[str]) -> Together:
    """What to do with the ``new`` cards (each with the area it lies in, as the flow names
    areas: a player, ``"starter"``, ``"crib"``, None outside every area) that came in one
    change, the game at ``game``; ``uncut`` are the players still to cut for the deal."""
    if len(new) < 2:
        return ONE_BY_ONE
    groups: dict[str | None, list[Card]] = {}
    for card, zone in new:
        groups.setdefault(zone, []).append(card)
    phase = game.phase
    if phase == "deal" and game.turn is None:
        if all(zone in uncut and len(cards) == 1 for zone, cards in groups.items()):
            return ONE_BY_ONE
        return _ask(groups, "for the cut each player lays one card in their own area")
    if starter_due(game):
        return _ask(groups, "the starter is one card, in the starter area")
    if phase == "play":
        if all(zone in players and len(cards) == 1 for zone, cards in groups.items()):
            return ONE_BY_ONE
        crib = groups.get(CRIB, [])
        if len(groups) == 1 and len(crib) == HAND:
            return Together(spreads=((CRIB, _sorted(crib)),), whole=True)
        return _ask(groups, "in the play each player lays one card at a time in their own area")
    if phase in ("show", "crib"):
        if all(zone in players or zone == CRIB for zone in groups):
            spreads = tuple((str(zone), _sorted(cards)) for zone, cards in groups.items()
                            if len(cards) == HAND)
            return Together(spreads=spreads, whole=True)
        return _ask(groups, "in the show each hand is spread in its player's area and the crib "
                            "in the crib area")
    return ONE_BY_ONE


def _sorted(cards: Sequence[Card]) -> tuple[Card, ...]:
    return tuple(sorted(cards))


def _ask(groups: dict[str | None, list[Card]], rule: str) -> Together:
    count = sum(len(cards) for cards in groups.values())
    where = ", ".join(f"{len(cards)} {_area(zone)}" for zone, cards in groups.items())
    return Together(ask=f"{count} cards came at once ({where}), more than the board can take "
                        f"in one step: {rule}. Lift them and lay them again one at a time",
                    whole=True)


def _area(zone: str | None) -> str:
    return "outside every area" if zone is None else f"in {place_words(zone)}"
