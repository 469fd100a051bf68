"""A random table: whole games played through the device's flow and store, as players would.

``RandomTable`` stands for the people at the table and the device between
them. It deals real cards (``engine.simulate``), lays them where players lay
them (seen by the camera or typed on the phone), spreads the hands, presses
the buttons, takes back events, kills and restarts the device at random
points, and starts new matches with other players and rules. It drives the
real ``TableFlow`` and ``EventStore`` the way ``DeviceLoop._apply`` does.

It decides each next act from the store's game, never from a script of what
it did, so an undo or a restart simply leaves it more to do. When the flow
does not take what it was shown, it does what a player told why would do:
type the card on the phone, or press CONFIRM. A table that makes no progress
for ``STUCK_AFTER`` acts is stuck. ``Tally`` counts games, stuck games,
acknowledged events lost across restarts, inputs the flow ignored without a
word, and games whose stored log the engine scores otherwise than the store.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from engine.cards import DECK, Card
from engine.game import Game
from engine.simulate import DealScript, deal_cards, play_order
from engine.words import card_words
from firmware.device.loop import apply_outcome
from firmware.store.eventstore import EventStore
from firmware.table.flow import (
    ButtonAction,
    Feedback,
    ManualCard,
    ManualSpread,
    NewMatch,
    Outcome,
    TableFlow,
    TableInput,
)
from vision.live.tracker import CardAppeared, CardRemoved, ZoneComplete
from vision.live.zones import CRIB, STARTER

__all__ = ["PER_STORE", "RandomTable", "TableCrashed", "Tally", "UncutStarter", "play_games"]

NAMES = ("Ann", "Bob", "Cat", "Dan", "Eve", "Fay")
#: Acts in a row that change nothing stored before a table counts as stuck: the cut of
#: four players with ties and a few refused cards needs far fewer.
STUCK_AFTER = 60
#: Games played on one board's store before the next board starts afresh.
PER_STORE = 10


class Killed(Exception):
    """The device was killed between two appends of one outcome."""


class UncutStarter(AssertionError):
    """The board stored a starter for a deal the players never cut one for: a defect of the
    board (the flow made it up), never a table to skip."""


@dataclass
class Tally:
    """What the random table saw; ``problems`` says, for the first few, what and where."""

    games: int = 0
    matches: int = 0
    stuck: int = 0
    lost: int = 0
    silent: int = 0
    misscored: int = 0
    restarts: int = 0
    undos: int = 0
    typed: int = 0
    seen: int = 0
    events: int = 0
    problems: list[str] = field(default_factory=list)

    def problem(self, text: str) -> None:
        if len(self.problems) < 20:
            self.problems.append(text)

    def figures(self) -> dict[str, int]:
        return {k: v for k, v in vars(self).items() if isinstance(v, int)}


def random_settings(rng: random.Random) -> tuple[tuple[str, ...], dict[str, Any]]:
    """Players and rules for a match: 2, 3 or 4 players, partnership or not, 61 or 121."""
    n = rng.choice((2, 2, 3, 4))
    players = tuple(rng.sample(NAMES, n))
    rules: dict[str, Any] = {"target": rng.choice((61, 121))}
    if n == 4 and rng.random() < 0.5:
        rules["partnership"] = True
    return players, rules


class RandomTable:
    """One board's store at ``path``, played on by random players (see the module docstring).

    ``camera`` is how often a card or spread is laid where the camera reads it rather
    than typed; ``undo``, ``restart`` and ``kill`` are chances per act.
    """

    def __init__(self, path: Path, rng: random.Random, *, camera: float = 0.6,
                 undo: float = 0.01, restart: float = 0.01, kill: float = 0.005,
                 tally: Tally | None = None) -> None:
        self.path, self.rng = path, rng
        self.camera_p, self.undo_p, self.restart_p, self.kill_p = camera, undo, restart, kill
        self.tally = tally or Tally()
        self.players, self.rules = random_settings(rng)
        self.seats = self.players  # the config's players name the camera's seat zones
        self.store = EventStore.open(path)
        self.flow = TableFlow(self.players, self.rules, seats=self.seats)
        self._scripts: dict[tuple[int, int], DealScript] = {}
        self._orders: dict[tuple[int, int], list[tuple[str, int, Card | None]]] = {}
        self._cut: list[Card] = []
        self._cut_at = 0
        self._on_table: dict[Card, str] = {}  # what the camera saw laid and not yet gathered
        self._ended: set[tuple[int, int]] = set()
        self._tries = 0
        self._said: list[Feedback] = []  # what the board last said to the players
        self._parsed: tuple[int, list[tuple[str, dict[str, Any]]]] = (0, [])
        self._apply(self.flow.start(self.store.game))

    # -- the device ---------------------------------------------------------------------------

    def _apply(self, outcome: Outcome, *, kill: float = 0.0) -> list[Feedback]:
        """The device's own ``apply_outcome``, with a chance of being killed after each
        event it stores."""
        if outcome.undo:
            self.tally.undos += 1

        def stored() -> None:
            self.tally.events += 1
            if self.rng.random() < kill:
                raise Killed

        return apply_outcome(self.store, self.flow, outcome, 0.0, after_append=stored)

    def restart(self) -> None:
        """Kills the device (the store is dropped, not closed) and starts it again on the same
        store, with the players and rules the phone's settings file would give it."""
        before = self.store.lines
        self.store.close()
        self.store = EventStore.open(self.path)
        self.tally.restarts += 1
        after = self.store.lines
        if after != before or self.store.recovery is not None:
            lost = sum(1 for a, b in zip(before, after, strict=False) if a != b)
            self.tally.lost += lost + max(0, len(before) - len(after))
            self.tally.problem(f"restart: {len(before)} lines before, {len(after)} after; "
                               f"recovery {self.store.recovery}")
        self.flow = TableFlow(self.players, self.rules, seats=self.seats)
        self._said = self._apply(self.flow.start(self.store.game))
        starter = self.store.game.starter
        if starter is not None and self._on_table.get(starter) == STARTER:
            # The tracker sees it anew: no news, so the flow may well say nothing.
            self._feed(CardAppeared(starter, STARTER, (), 0.0), news=False)

    def _feed(self, item: TableInput, *, news: bool = True) -> None:
        """One input through the flow; an input that changes nothing must say why."""
        before = self._mark()
        try:
            said = self._apply(self.flow.handle(item, self.store.game), kill=self.kill_p)
        except Killed:
            self.restart()
            return
        self._said = said
        if news and not said and self._mark() == before and not isinstance(item, CardRemoved):
            self.tally.silent += 1
            self.tally.problem(f"silent: {item!r} at {self.store.game.next}")

    def _mark(self) -> tuple[Any, ...]:
        lines = self.store.lines
        return self.store.match, len(lines), lines[-1] if lines else None

    # -- the players ----------------------------------------------------------------------------

    def play_game(self, *, max_acts: int = 20_000) -> bool:
        """Plays on until the current game ends (and is checked); False when it stuck."""
        stall = 0
        for _ in range(max_acts):
            game = self.store.game
            if game.phase == "over":
                key = (self.store.match or 0, len(game.match))
                if key not in self._ended:
                    self._ended.add(key)
                    self._check(game)
                    return True
            before = self._mark()
            self.act()
            if self._mark() == before:
                stall += 1
                self._tries += 1
                if stall >= STUCK_AFTER:
                    break
            else:
                stall, self._tries = 0, 0
        self.tally.stuck += 1
        self.tally.problem(f"stuck at {self.store.game.next!r} (players {self.flow.players}, "
                           f"{len(self.store.lines)} lines)")
        return False

    def act(self) -> None:
        """One thing done at the table, chosen from where the game stands."""
        rng = self.rng
        if rng.random() < self.restart_p:
            self.restart()
            return
        game = self.store.game
        if rng.random() < self.undo_p and game.phase != "new_game":
            self._feed(ButtonAction("undo"))
            return
        phase = game.phase
        if phase == "new_game":
            self._feed(ButtonAction("new_game"))
        elif phase == "deal" and game.turn is None:
            self._cut_one(game)
        elif phase == "over":
            self._after_game()
        elif phase in ("deal", "starter"):
            self._cut_starter(game)
        elif phase == "play":
            self._play_one(game)
        elif phase == "show":
            self._show(game)
        else:
            self._crib(game)

    def _camera(self) -> bool:
        return self._tries == 0 and self.rng.random() < self.camera_p

    def _zone(self, player: str) -> str | None:
        """The camera's seat zone where ``player`` sits, None for a player it has no area for."""
        seat = self.flow.players.index(player)
        return self.seats[seat] if seat < len(self.seats) else None

    def _lay(self, card: Card, player: str) -> None:
        zone = player if player == STARTER else self._zone(player)
        if zone is not None and self._camera():
            self.tally.seen += 1
            self._on_table[card] = zone
            self._feed(CardAppeared(card, zone, (), 0.0))
        else:
            self.tally.typed += 1
            self._feed(ManualCard(card, player, 0.0))

    def _gather(self) -> None:
        """The players pick up what lies on the table; the camera sees most of it go."""
        for card, zone in list(self._on_table.items()):
            if self.rng.random() < 0.8:
                self._feed(CardRemoved(card, zone, 0.0))
            del self._on_table[card]

    def _cut_one(self, game: Game) -> None:
        players = self.flow.players
        if not self._cut:
            self._cut = _deck(self.rng)
        card = self._cut.pop()
        player = players[self._cut_at % len(players)]
        self._cut_at += 1
        self._lay(card, player)
        if self.store.game.turn is not None:  # the cut found a dealer
            self._cut, self._cut_at = [], 0
            if self.rng.random() < 0.7:
                self._gather()

    def _events(self) -> list[dict[str, Any]]:
        """The current match's stored events, parsed once each (the log only grows at its
        end, loses its end to UNDO, or starts again with a new match)."""
        lines = self.store.lines
        match = self.store.match or 0
        cached = self._parsed
        if cached[0] != match or len(cached[1]) > len(lines) or (
                cached[1] and cached[1][-1][0] != lines[len(cached[1]) - 1]):
            cached = (match, [])
        known = cached[1][:len(lines)]
        known += [(line, json.loads(line)) for line in lines[len(known):]]
        self._parsed = (match, known)
        return [event for _, event in known]

    def _key(self, game: Game, *, coming: bool) -> tuple[int, int]:
        deals = sum(1 for event in self._events() if event["type"] == "deal")
        return self.store.match or 0, deals + (1 if coming else 0)

    def _script(self, key: tuple[int, int], players: int) -> DealScript:
        if key not in self._scripts:
            script = deal_cards(self.rng, players, 0)
            last = self._scripts.get((key[0], key[1] - 1))
            if last is not None and self.rng.random() < 0.15:
                script = _with_starter(script, last.starter)  # the old starter cut again
            self._scripts[key] = script
        return self._scripts[key]

    def _cut_starter(self, game: Game) -> None:
        key = self._key(game, coming=game.phase == "deal")
        script = self._script(key, len(game.players))
        if game.phase == "deal" and any(
                f.text.startswith(f"{card_words(script.starter)} was the starter of the last deal")
                for f in self._said):
            self._feed(ButtonAction("confirm"))  # as the board asked: it is cut again
            return
        self._gather()
        self._lay(script.starter, STARTER)

    def _after_game(self) -> None:
        roll = self.rng.random()
        if roll < 0.25:
            # The phone's settings file keeps the new players across restarts.
            self.players, self.rules = random_settings(self.rng)
            self.tally.matches += 1
            self._feed(NewMatch(self.players, self.rules, 0.0))
        elif roll < 0.3:
            self.tally.matches += 1
            self._feed(ButtonAction("new_game"))
        elif roll < 0.5:
            self._feed(ButtonAction("confirm"))
        else:
            game = self.store.game
            key = self._key(game, coming=True)
            self._gather()
            self._lay(self._script(key, len(game.players)).starter, STARTER)

    def _order(self, game: Game) -> tuple[DealScript, list[tuple[str, int, Card | None]]]:
        key = self._key(game, coming=False)
        script = self._scripts.get(key)
        if script is None:
            raise UncutStarter(f"match {key[0]}, deal {key[1]}: the board stored the starter "
                               f"{game.starter}, but nobody cut a starter for this deal; the "
                               f"board last said {[f.text for f in self._said]}")
        if key not in self._orders:
            assert game.dealer is not None
            script = self._scripts[key] = replace(script, dealer=game.players.index(game.dealer))
            self._orders[key] = play_order(
                script, self.rng, last_player_continues=game.rules.last_player_continues,
                explicit_go=self.rng.random() < 0.3)
        return script, self._orders[key]

    def _play_one(self, game: Game) -> None:
        _, steps = self._order(game)
        lines = self._events()
        start = max(i for i, e in enumerate(lines) if e["type"] == "starter")
        done = sum(1 for e in lines[start:] if e["type"] in ("play", "go"))
        kind, seat, card = steps[done]
        if kind == "go":
            self._feed(ButtonAction("go"))
        else:
            assert card is not None
            self._lay(card, game.players[seat])

    def _show(self, game: Game) -> None:
        script, _ = self._order(game)
        player = game.turn
        assert player is not None
        if self.rng.random() < 0.15:  # someone spreads before their turn: it waits
            player = self.rng.choice(game.players)
        hand = script.hands[game.players.index(player)]
        zone = self._zone(player)
        roll = self.rng.random()
        if roll < 0.2 and player == game.turn:
            self._feed(ButtonAction("confirm"))
        elif zone is not None and self._camera():
            self._feed(ZoneComplete(zone, hand, 0.0))
        else:
            self._feed(ManualSpread(player, hand, 0.0))

    def _crib(self, game: Game) -> None:
        script, _ = self._order(game)
        if self._camera():
            self._feed(ZoneComplete(CRIB, script.crib, 0.0))
        else:
            self._feed(ManualSpread(CRIB, script.crib, 0.0))

    # -- the checks -----------------------------------------------------------------------------

    def _check(self, game: Game) -> None:
        """A finished game: the engine scores the stored log as the store does, the winner
        stands in the game hole, and every deal stored is the deal the table played."""
        self.tally.games += 1
        lines = self.store.lines
        replayed = Game.replay(lines)
        scores = [s.score for s in game.sides]
        if ([s.score for s in replayed.sides] != scores or replayed.winner != game.winner
                or max(scores) != game.rules.target):
            self.tally.misscored += 1
            self.tally.problem(f"misscored: store {scores}, replay "
                               f"{[s.score for s in replayed.sides]}")
        wrong = self._deals_differ(self._events())
        if wrong:
            self.tally.misscored += 1
            self.tally.problem(wrong)

    def _deals_differ(self, events: Sequence[dict[str, Any]]) -> str | None:
        match, deal = self.store.match or 0, 0
        plays: list[str] = []
        for event in events:
            kind = event["type"]
            if kind == "deal":
                deal, plays = deal + 1, []
                continue
            script = self._scripts.get((match, deal))
            if script is None:
                continue
            if kind == "starter" and event["card"] != str(script.starter):
                return f"deal {deal}: starter {event['card']}, cut {script.starter}"
            if kind == "play":
                plays.append(event["card"])
                laid = [str(c) for c in script.hands[self.store.game.players.index(
                    event["player"])]]
                if event["card"] not in laid:
                    return f"deal {deal}: {event['player']} played {event['card']}, held {laid}"
            if kind == "crib" and sorted(event["cards"]) != sorted(str(c) for c in script.crib):
                return f"deal {deal}: crib {event['cards']}, dealt {script.crib}"
        return None


def _deck(rng: random.Random) -> list[Card]:
    deck = list(DECK)
    rng.shuffle(deck)
    return deck


def _with_starter(script: DealScript, starter: Card) -> DealScript:
    """The same deal with ``starter`` cut, swapped with wherever that card was dealt."""
    if starter == script.starter:
        return script

    def swap(cards: tuple[Card, ...]) -> tuple[Card, ...]:
        return tuple(script.starter if c == starter else c for c in cards)

    return replace(script, hands=tuple(swap(h) for h in script.hands), crib=swap(script.crib),
                   starter=starter)


class TableCrashed(RuntimeError):
    """The random table (or the board under it) raised: says which store of the run and which
    game of it, so that ``play_games(first_store=...)`` plays that store again alone."""


def play_games(folder: Path, *, games: int, seed: int, per_store: int = PER_STORE,
               first_store: int = 1, progress: Callable[[Tally], None] | None = None,
               **chances: float) -> Tally:
    """Plays ``games`` random games, ``per_store`` to a store (several matches each).

    ``first_store`` starts the run at that store, as the whole run reaches it when no
    earlier store stuck: a crash (``TableCrashed``, never swallowed) names its store.
    """
    tally = Tally()
    rng = random.Random(seed)
    played = 0
    store_no = 0
    while played < games:
        store_no += 1
        # Some boards read every card, some none (the camera unplugged), most a mix.
        options = {"camera": rng.choice((0.0, 0.6, 0.6, 1.0)), **chances}
        table_seed = rng.random()
        if store_no < first_store:
            played += min(per_store, games - played)
            continue
        table = RandomTable(folder / f"store{store_no}.sqlite3", random.Random(table_seed),
                            tally=tally, **options)
        began = played
        try:
            for _ in range(min(per_store, games - played)):
                played += 1
                if not table.play_game():
                    break  # a stuck table: the next store starts afresh
        except Exception as exc:
            raise TableCrashed(
                f"seed {seed}, store {store_no} (first_store={store_no} plays it again), "
                f"its game {played - began}, match {table.store.match}, at "
                f"{table.store.game.next!r}: {type(exc).__name__}: {exc}") from exc
        finally:
            table.store.close()
        if progress is not None:
            progress(tally)
    return tally
