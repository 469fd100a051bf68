"""Plays whole legal games with random cards: scripted games for tests, demos and scene generators.

The simulator knows every hand, so it plays by the must-play rule the way
people at a table do, and writes the event log a device would have stored.
It uses the engine only to know when the game is over; the tests score its
games with an independent reference.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.cards import DECK, Card
from engine.game import Game

__all__ = ["DealScript", "deal_cards", "play_order", "simulate_game", "simulate_match"]


@dataclass(frozen=True, slots=True)
class DealScript:
    """One deal's cards: each player's four kept cards, the crib and the starter."""

    dealer: int
    hands: tuple[tuple[Card, ...], ...]
    crib: tuple[Card, ...]
    starter: Card


@dataclass(slots=True)
class _Table:
    hands: list[list[Card]]
    count: int = 0
    last: int | None = None
    gone: set[int] = field(default_factory=set)


def deal_cards(rng: random.Random, players: int, dealer: int) -> DealScript:
    """Shuffles and deals (6 cards each for two players, 5 for more) and discards to the crib."""
    deck = list(DECK)
    rng.shuffle(deck)
    size = 6 if players == 2 else 5
    dealt = [deck[i * size:(i + 1) * size] for i in range(players)]
    rest = deck[players * size:]
    crib: list[Card] = []
    if players == 3:
        crib.append(rest.pop())
    throw = 2 if players == 2 else 1
    hands = []
    for cards in dealt:
        rng.shuffle(cards)
        crib += cards[:throw]
        hands.append(tuple(cards[throw:]))
    return DealScript(dealer, tuple(hands), tuple(crib), rest.pop())


def play_order(script: DealScript, rng: random.Random, *, last_player_continues: bool = True,
               explicit_go: bool = False) -> list[tuple[str, int, Card | None]]:
    """Plays the deal's cards by the must-play rule: ("play", seat, card) and ("go", seat, None).

    Go steps are listed only with ``explicit_go``; the engine must infer them otherwise.
    """
    n = len(script.hands)
    table = _Table([list(h) for h in script.hands])
    stops = not last_player_continues and n > 2
    steps: list[tuple[str, int, Card | None]] = []
    turn = (script.dealer + 1) % n
    while any(table.hands):
        holders = [p for p in range(n) if table.hands[p]]
        candidates = [p for p in holders if p not in table.gone and not (stops and p == table.last)]
        if not candidates:
            assert table.last is not None
            turn = _next_holder(table, table.last)
            table.count, table.last, table.gone = 0, None, set()
            continue
        if turn not in candidates:
            turn = (turn + 1) % n
            continue
        playable = [c for c in table.hands[turn] if table.count + c.value <= 31]
        if not playable:
            table.gone.add(turn)
            if explicit_go:
                steps.append(("go", turn, None))
            turn = (turn + 1) % n
            continue
        card = rng.choice(playable)
        table.hands[turn].remove(card)
        table.count += card.value
        table.last = turn
        steps.append(("play", turn, card))
        if table.count == 31 and any(table.hands):
            turn = _next_holder(table, turn)
            table.count, table.last, table.gone = 0, None, set()
        else:
            turn = (turn + 1) % n
    return steps


def _next_holder(table: _Table, player: int) -> int:
    n = len(table.hands)
    for step in range(1, n + 1):
        if table.hands[(player + step) % n]:
            return (player + step) % n
    return player


def simulate_game(rng: random.Random, players: Sequence[str], rules: dict[str, Any] | None = None,
                  *, explicit_go: bool = False, first_dealer: int = 0,
                  max_deals: int = 200) -> list[dict[str, Any]]:
    """A whole legal game as event dicts, from ``new_game`` to the event that ends it."""
    rules = dict(rules or {})
    events: list[dict[str, Any]] = [{"type": "new_game", "players": list(players), "rules": rules}]
    game = Game()
    game.apply(events[0])
    dealer = first_dealer
    continues = rules.get("last_player_continues", True)

    def emit(event: dict[str, Any]) -> bool:
        events.append(event)
        game.apply(event)
        if game.rules.muggins and game.awaiting_claim:
            for name in game.awaiting_claim:
                if game.phase == "over":
                    break
                claim = {"type": "claim", "player": name, "points": 99}
                events.append(claim)
                game.apply(claim)
        return game.phase == "over"

    for deal_no in range(max_deals):
        script = deal_cards(rng, len(players), dealer)
        deal: dict[str, Any] = {"type": "deal"}
        if deal_no == 0:
            deal["dealer"] = players[dealer]
        if emit(deal) or emit({"type": "starter", "card": str(script.starter)}):
            return events
        for kind, seat, card in play_order(script, rng, last_player_continues=continues,
                                           explicit_go=explicit_go):
            event = {"type": kind, "player": players[seat]}
            if card is not None:
                event["card"] = str(card)
            if emit(event):
                return events
        for i in range(len(players)):
            seat = (dealer + 1 + i) % len(players)
            cards = [str(c) for c in script.hands[seat]]
            rng.shuffle(cards)
            if emit({"type": "show", "player": players[seat], "cards": cards}):
                return events
        if emit({"type": "crib", "cards": [str(c) for c in script.crib]}):
            return events
        dealer = (dealer + 1) % len(players)
    raise RuntimeError(f"no winner after {max_deals} deals")


def simulate_match(rng: random.Random, players: Sequence[str], rules: dict[str, Any] | None = None,
                   *, games: int, explicit_go: bool = False) -> list[dict[str, Any]]:
    """Several games in one log: each next game is dealt first by the last game's loser."""
    events: list[dict[str, Any]] = []
    first_dealer = 0
    for number in range(games):
        game_events = simulate_game(rng, players, rules, explicit_go=explicit_go,
                                    first_dealer=first_dealer)
        if number:
            del game_events[1]["dealer"]  # the engine knows the loser deals
        events += game_events
        game = Game.replay(events)
        dealer = game.dealer
        assert dealer is not None
        first_dealer = _first_loser_after(game, players.index(dealer))
    return events


def _first_loser_after(game: Game, dealer: int) -> int:
    players = game.players
    for step in range(1, len(players) + 1):
        seat = (dealer + step) % len(players)
        if game.side_of(players[seat]).name != game.winner:
            return seat
    raise AssertionError("a finished game has a loser")
