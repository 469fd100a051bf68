"""The game: folding the event log of CONTRACT.md into scores, pegs and match results.

The deal's play (turns, counts, goes) is ``engine.play``; this module runs
the deal around it (dealer, starter, counting order, crib), pegs what each
event earns (muggins claims, the stink hole, the game hole) and keeps the match.

``Game.apply`` either applies a whole event or raises and leaves the game as
it was, so the device can reject a card at the table and carry on.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.advise import dealt_size
from engine.cards import Card, format_cards
from engine.correction import Correction, corrected_log
from engine.errors import (
    EngineError,
    EventError,
    GameOverError,
    IllegalEventError,
    RulesError,
)
from engine.events import (
    Adjust,
    Claim,
    Correct,
    Crib,
    Deal,
    Discard,
    Event,
    Go,
    Misdeal,
    Muggins,
    NewGame,
    Play,
    Show,
    Starter,
    as_event,
)
from engine.play import CARDS_IN_PLAY, Award, PlayRound
from engine.records import GameResult, LogError, Pegged, Side
from engine.rules import RESULTS, Rules
from engine.show import score_show
from engine.words import result_words

__all__ = ["Game", "Side", "Pegged", "GameResult", "LogError", "Correction"]

# Points that the stink hole refuses to a side one short of the game hole.
_STINK_REASONS = frozenset({"go", "last_card", "his_heels"})


@dataclass(slots=True)
class _Pending:
    """Points a player may claim (muggins on): ``true`` is what the event earned them."""

    reason: str
    true: int
    words: str


@dataclass(slots=True)
class _LastClaim:
    claimant: int
    missed_holes: int
    words: str


@dataclass(slots=True)
class _State:
    """Everything the fold changes. Copied before each event so a rejected event changes nothing."""

    players: tuple[str, ...] = ()
    rules: Rules = field(default_factory=Rules)
    side_of: tuple[int, ...] = ()
    side_names: tuple[str, ...] = ()
    side_players: tuple[tuple[str, ...], ...] = ()
    phase: str = "new_game"
    scores: list[int] = field(default_factory=list)
    fronts: list[int] = field(default_factory=list)
    backs: list[int] = field(default_factory=list)
    winner: int | None = None
    side_results: list[str | None] = field(default_factory=list)
    dealer: int | None = None
    last_dealer: int | None = None
    round: PlayRound | None = None
    show_order: tuple[int, ...] = ()
    show_pos: int = 0
    pending: dict[int, _Pending] = field(default_factory=dict)
    last_claim: _LastClaim | None = None
    records: list[Pegged] = field(default_factory=list)
    finished: list[GameResult] = field(default_factory=list)
    games_started: int = 0
    game_start: int = 0  # index in records where the current game begins
    crib_cards: tuple[Card, ...] = ()  # the crib as counted this deal, once it is
    discards: dict[int, tuple[Card, ...]] = field(default_factory=dict)  # this deal's throws

    def clone(self) -> _State:
        other = copy.copy(self)
        other.scores, other.fronts, other.backs = self.scores[:], self.fronts[:], self.backs[:]
        other.side_results = self.side_results[:]
        other.round = None if self.round is None else self.round.clone()
        other.pending = {p: copy.copy(v) for p, v in self.pending.items()}
        other.discards = dict(self.discards)
        other.records, other.finished = self.records[:], self.finished[:]
        return other


class Game:
    """A cribbage game (and the match it belongs to), folded from events.

    >>> game = Game.replay([
    ...     {"type": "new_game", "players": ["Ann", "Bob"]},
    ...     {"type": "deal", "dealer": "Ann"},
    ...     {"type": "starter", "card": "JH"},
    ... ])
    >>> [side.score for side in game.sides], game.next
    ([2, 0], 'Bob to lead the play')
    """

    def __init__(self) -> None:
        self._s = _State()
        self._events = 0
        # The events as they should have been (corrections applied), to refold from.
        self._log: list[tuple[int, Event]] = []
        self._correction: Correction | None = None

    # -- folding ---------------------------------------------------------------

    @classmethod
    def replay(cls, lines: Iterable[str | Mapping[str, Any] | Event]) -> Game:
        """Folds a whole log (JSONL lines, dicts or events); a bad line raises ``LogError``."""
        game = cls()
        for number, line in enumerate(lines):
            if isinstance(line, str) and not line.strip():
                game._events = number + 1
                continue
            game.apply(line, number=number)
        return game

    def apply(self, event: str | Mapping[str, Any] | Event, *,
              number: int | None = None) -> tuple[Pegged, ...]:
        """Applies one event and returns what it pegged; on error nothing changes.

        ``number`` is the event's line in the log (defaults to the next one).
        Errors are ``LogError`` naming that line and the rule broken.
        """
        number = self._events if number is None else number
        backup = self._s.clone()
        before = len(self._s.records)
        try:
            parsed = as_event(event)
            if isinstance(parsed, Correct):
                self._correct(parsed, number)
            else:
                self._apply(parsed, number)
        except EngineError as exc:
            self._s = backup
            rule = getattr(exc, "rule", None) or _rule_of(exc)
            raise LogError(number, rule, str(exc)) from exc
        except BaseException:
            self._s = backup  # even a bug must not leave half an event applied
            raise
        self._events = number + 1
        if isinstance(parsed, Correct):
            assert self._correction is not None
            return self._correction.added
        self._log.append((number, parsed))
        self._correction = None
        return tuple(self._s.records[before:])

    def _correct(self, fix: Correct, number: int) -> None:
        """Refolds the whole log with the misread card put right; on any rule the corrected
        log breaks, nothing changes and the error says which line and why."""
        s = self._s
        if s.phase == "new_game":
            raise IllegalEventError("no_game", "the log must start with a new_game event")
        if s.phase == "over":
            raise GameOverError(f"the game is over ({self._winner_words()}): a card of a "
                                "finished game is put right with undo, not a correction")
        log, lines = corrected_log(self._log, fix)
        refolded = Game()
        for line, event in log:
            try:
                refolded.apply(event, number=line)
            except LogError as exc:
                raise IllegalEventError(
                    "correct_refused",
                    f"{fix.was} cannot be read as {fix.card}: then line {exc.event + 1} "
                    f"breaks the rules ({exc.detail})") from None
        old, new = list(self.points), list(refolded.points)
        gone = [p for p in old if p not in new]
        added = [p for p in new if p not in old]
        self._correction = Correction(fix.was, fix.card, lines, self.sides, refolded.sides,
                                      tuple(gone), tuple(added))
        self._s, self._log = refolded._s, refolded._log

    @property
    def last_correction(self) -> Correction | None:
        """What the last event changed, when it was a ``correct`` (None after any other)."""
        return self._correction

    def _apply(self, event: Event, number: int) -> None:
        s = self._s
        if not isinstance(event, Claim | Muggins):
            s.pending.clear()
            s.last_claim = None
        if isinstance(event, NewGame):
            self._new_game(event)
            return
        if s.phase == "new_game":
            raise IllegalEventError("no_game", "the log must start with a new_game event")
        if isinstance(event, Discard):  # scores nothing, so it may follow the game's end
            self._discard(event)
            return
        if s.phase == "over":
            raise GameOverError(
                f"the game is over ({self._winner_words()}); only a new_game for the next "
                "game of the match may follow"
            )
        handler = _HANDLERS[type(event)]
        handler(self, event, number)

    # -- state for readers -----------------------------------------------------

    @property
    def players(self) -> tuple[str, ...]:
        return self._s.players

    @property
    def rules(self) -> Rules:
        return self._s.rules

    @property
    def phase(self) -> str:
        """One of new_game, deal, starter, play, show, crib, over."""
        return self._s.phase

    @property
    def sides(self) -> tuple[Side, ...]:
        s = self._s
        return tuple(
            Side(s.side_names[i], s.side_players[i], s.scores[i], (s.fronts[i], s.backs[i]),
                 s.side_results[i])
            for i in range(len(s.side_names))
        )

    def side_of(self, player: str) -> Side:
        return self.sides[self._s.side_of[self._index(player)]]

    @property
    def dealer(self) -> str | None:
        return None if self._s.dealer is None else self._s.players[self._s.dealer]

    @property
    def starter(self) -> Card | None:
        return None if self._s.round is None else self._s.round.starter

    @property
    def count(self) -> int:
        """The running count of the play."""
        return 0 if self._s.round is None else self._s.round.count

    @property
    def pile(self) -> tuple[Card, ...]:
        """The cards of the current count, oldest first."""
        return () if self._s.round is None else tuple(self._s.round.pile)

    def laid(self, player: str) -> tuple[Card, ...]:
        """The cards ``player`` has laid in this deal's play."""
        seat = self._index(player)
        return () if self._s.round is None else tuple(self._s.round.laid[seat])

    @property
    def turn(self) -> str | None:
        """Who acts next: to play, to show, the dealer for the crib and the deal."""
        s = self._s
        index: int | None
        if s.phase == "play":
            index = self._round.turn
        elif s.phase == "show":
            index = s.show_order[s.show_pos]
        elif s.phase in ("crib", "starter"):
            index = s.dealer
        elif s.phase == "deal":
            index = self._next_dealer()
        else:
            index = None
        return None if index is None else s.players[index]

    @property
    def winner(self) -> str | None:
        s = self._s
        return None if s.winner is None else s.side_names[s.winner]

    @property
    def result(self) -> str | None:
        """The worst result against any losing side: win, skunk or double_skunk."""
        s = self._s
        if s.winner is None:
            return None
        worst = max(RESULTS.index(r) for i, r in enumerate(s.side_results)
                    if i != s.winner and r is not None)
        return RESULTS[worst]

    @property
    def points(self) -> tuple[Pegged, ...]:
        """Every score pegged in the current game, in order."""
        return tuple(self._s.records[self._s.game_start:])

    @property
    def match(self) -> tuple[GameResult, ...]:
        """The finished games of the match, the current one included once it is over."""
        return tuple(self._s.finished)

    @property
    def match_points(self) -> dict[str, int]:
        points = {name: 0 for name in self._s.side_names}
        for game in self._s.finished:
            points[game.winner] += game.value
        return points

    @property
    def match_winner(self) -> str | None:
        """The side that has won the match, under the current game's ``best_of`` or
        ``first_to`` (None in an open-ended match)."""
        rules, points = self._s.rules, self.match_points
        for name in self._s.side_names:
            if rules.best_of is not None and self._wins(name) > rules.best_of // 2:
                return name
            if rules.first_to is not None and points[name] >= rules.first_to:
                return name
        return None

    @property
    def match_point(self) -> tuple[str, ...]:
        """The sides one plain win away from winning the match."""
        rules, points = self._s.rules, self.match_points
        if self.match_winner is not None:
            return ()
        return tuple(
            name for name in self._s.side_names
            if (rules.best_of is not None and self._wins(name) == rules.best_of // 2)
            or (rules.first_to is not None
                and points[name] + rules.game_values[0] >= rules.first_to))

    def _wins(self, side: str) -> int:
        return sum(1 for game in self._s.finished if game.winner == side)

    @property
    def awaiting_claim(self) -> tuple[str, ...]:
        """Players who may claim now (muggins games)."""
        return tuple(self._s.players[p] for p in self._s.pending)

    @property
    def next(self) -> str:
        """What the engine waits for, in words."""
        s = self._s
        if s.phase == "new_game":
            return "a new game"
        if s.phase == "over":
            return (f"game over: {self._winner_words()}; a new game with the same players "
                    "starts the next game")
        claim = ""
        if s.pending:
            names = " or ".join(s.players[p] for p in s.pending)
            claim = f"a claim from {names}, or "
        turn = self.turn
        if s.phase == "deal":
            if turn is None:
                return (f"{claim}the cut for the first deal (each player lays a card: "
                        "the lowest deals)")
            return f"{claim}the deal ({turn} deals)"
        if s.phase == "starter":
            return f"{claim}the starter card"
        if s.phase == "play":
            play = self._round
            if not play.pile:
                return f"{claim}{turn} to lead " + ("a new count" if play.started else "the play")
            return f"{claim}{turn} to play or go (count {play.count})"
        if s.phase == "show":
            return f"{claim}{turn}'s show"
        return f"{claim}the crib ({turn}'s)"

    def to_json(self) -> dict[str, Any]:
        """The ``replay --json`` object of CONTRACT.md."""
        out: dict[str, Any] = {
            "sides": [side.to_json() for side in self.sides],
            "points": [r.to_json() for r in self.points],
            "winner": self.winner,
            "result": self.result,
            "next": self.next,
        }
        played_to = self._s.rules.best_of is not None or self._s.rules.first_to is not None
        if self._s.games_started > 1 or played_to:  # a match: a next game, or one to come
            out["match"] = {
                "games": [g.to_json() for g in self._s.finished],
                "points": self.match_points,
            }
        if played_to:
            out["match"]["winner"] = self.match_winner
        return out

    # -- internals -------------------------------------------------------------

    def _index(self, name: str) -> int:
        try:
            return self._s.players.index(name)
        except ValueError:
            raise IllegalEventError(
                "unknown_player",
                f"unknown player {name!r} (players: {', '.join(self._s.players)})",
            ) from None

    def _winner_words(self) -> str:
        result = self.result or "win"
        return f"{self.winner} won" + ("" if result == "win" else f" ({result_words(result)})")

    def _expect(self, phase: str, what: str) -> None:
        if self._s.phase != phase:
            raise IllegalEventError(
                "out_of_order", f"{what} is not expected now: the engine is waiting for {self.next}"
            )

    def _next_dealer(self) -> int | None:
        s = self._s
        if s.dealer is not None:
            return (s.dealer + 1) % len(s.players)
        if s.last_dealer is None or not s.finished:
            return None
        # The loser of the last game deals first; with several, the first left of the dealer.
        last_winner = s.finished[-1].winner
        n = len(s.players)
        for step in range(1, n + 1):
            player = (s.last_dealer + step) % n
            if s.side_names[s.side_of[player]] != last_winner:
                return player
        return None

    def _new_game(self, event: NewGame) -> None:
        s = self._s
        if s.phase not in ("new_game", "over"):
            raise IllegalEventError(
                "game_in_progress",
                f"a new_game while a game is in progress (waiting for {self.next})",
            )
        if s.phase == "over" and (winner := self.match_winner) is not None:
            raise GameOverError(f"the match is over ({winner} won it); start a new log for "
                                "a new match")
        if s.phase == "over" and (
            event.players != s.players or event.rules.partnership != s.rules.partnership
        ):
            raise GameOverError(
                "the next game of a match needs the same players in the same order "
                f"({', '.join(s.players)}) and the same partnership; start a new log "
                "for a new match"
            )
        players = event.players
        side_of: tuple[int, ...]
        side_players: tuple[tuple[str, ...], ...]
        if event.rules.partnership:
            side_of = (0, 1, 0, 1)
            side_players = ((players[0], players[2]), (players[1], players[3]))
        else:
            side_of = tuple(range(len(players)))
            side_players = tuple((p,) for p in players)
        sides = len(side_players)
        s.players, s.rules, s.side_of = players, event.rules, side_of
        s.side_players = side_players
        s.side_names = tuple(" & ".join(names) for names in side_players)
        s.scores, s.fronts, s.backs = [0] * sides, [0] * sides, [0] * sides
        s.side_results = [None] * sides
        s.winner = None
        s.last_dealer = s.dealer
        s.dealer = None
        s.round, s.crib_cards, s.discards = None, (), {}
        s.phase = "deal"
        s.games_started += 1
        s.game_start = len(s.records)

    def _deal(self, event: Deal, number: int) -> None:
        s = self._s
        self._expect("deal", "a deal")
        expected = self._next_dealer()
        if event.dealer is None:
            if expected is None:
                raise IllegalEventError("first_dealer",
                                        "the first deal must name its dealer (deal.dealer)")
            dealer = expected
        else:
            dealer = self._index(event.dealer)
            if expected is not None and dealer != expected:
                raise IllegalEventError(
                    "wrong_dealer",
                    f"{event.dealer} cannot deal: it is {s.players[expected]}'s deal",
                )
        n = len(s.players)
        s.dealer = dealer
        s.round = None
        s.crib_cards = ()
        s.discards = {}
        s.show_order = tuple((dealer + 1 + i) % n for i in range(n))
        s.show_pos = 0
        s.phase = "starter"
        if s.rules.dealer_bonus:
            self._peg(dealer, number, "dealer_bonus", s.rules.dealer_bonus,
                      f"{s.rules.dealer_bonus} for the deal")

    def _misdeal(self, event: Misdeal, number: int) -> None:
        """The same dealer deals again; under ``misdeal_penalty`` (ACC) the player left of
        the dealer pegs it."""
        s = self._s
        if s.phase != "starter":
            raise IllegalEventError(
                "misdeal_too_late" if s.phase != "deal" else "out_of_order",
                f"a misdeal is called after the deal and before the cut: the engine is "
                f"waiting for {self.next}")
        assert s.dealer is not None
        penalty = s.rules.misdeal_penalty
        if penalty:
            pone = (s.dealer + 1) % len(s.players)
            self._peg(pone, number, "misdeal", penalty,
                      f"{penalty} for {s.players[s.dealer]}'s misdeal")

    def _starter(self, event: Starter, number: int) -> None:
        s = self._s
        self._expect("starter", "a starter")
        assert s.dealer is not None
        s.round = PlayRound(s.players, s.dealer, event.card,
                            last_player_stops=not s.rules.last_player_continues)
        s.phase = "play"
        if event.card.rank == 11:
            award = Award(s.dealer, "his_heels", 2, "two for his heels")
            self._award(number, [award], claimable=s.rules.muggins_heels)

    # -- the play --------------------------------------------------------------

    def _play(self, event: Play, number: int) -> None:
        s = self._s
        name, card = event.player, event.card
        p = self._index(name)
        if s.phase in ("show", "crib"):
            raise IllegalEventError("play_over", f"{name} cannot lay {card}: the play is over "
                                                 f"(waiting for {self.next})")
        self._expect("play", f"{name}'s card {card}")
        awards = self._round.lay(p, card)
        if self._round.over:
            s.phase = "show"
        self._award(number, awards, claimable=True, actor=p)

    def _go(self, event: Go, number: int) -> None:
        p = self._index(event.player)
        self._expect("play", f"{event.player}'s go")
        self._award(number, self._round.go(p), claimable=True)

    @property
    def _round(self) -> PlayRound:
        assert self._s.round is not None, "no deal in progress"
        return self._s.round

    # -- the show --------------------------------------------------------------

    def _show(self, event: Show, number: int) -> None:
        s = self._s
        p = self._index(event.player)
        name = event.player
        self._expect("show", f"{name}'s show")
        expected = s.show_order[s.show_pos]
        if p != expected:
            raise IllegalEventError(
                "counting_order",
                f"{name}'s show is out of order: {s.players[expected]} counts next "
                "(left of the dealer first, the dealer last)",
            )
        cards = event.cards
        self._check_four(cards, f"{name}'s show")
        laid = self._round.laid[p]
        if set(cards) != set(laid):
            raise IllegalEventError(
                "show_cards",
                f"{name} shows {format_cards(cards)} but laid {format_cards(laid)} in the play",
            )
        score = score_show(cards, self._round.starter)
        s.show_pos += 1
        if s.show_pos == len(s.show_order):
            s.phase = "crib"
        self._award(number, [Award(p, "hand", score.total, score.words())], claimable=True,
                    actor=p)

    def _crib(self, event: Crib, number: int) -> None:
        s = self._s
        self._expect("crib", "the crib")
        assert s.dealer is not None
        cards, starter = event.cards, self._round.starter
        self._check_four(cards, "the crib")
        laid = sorted(set(cards) & self._round.cards_laid())
        if laid:
            raise IllegalEventError("crib_cards",
                                    f"the crib holds {format_cards(laid)}, laid in the play")
        thrown = {card for cards in s.discards.values() for card in cards}
        if not thrown <= set(cards):
            raise IllegalEventError(
                "crib_cards", f"the crib {format_cards(cards)} lacks "
                              f"{format_cards(sorted(thrown - set(cards)))}, thrown to it")
        score = score_show(cards, starter, crib=True, crib_four_flush=s.rules.crib_four_flush)
        s.crib_cards = cards
        s.phase = "deal"
        self._award(number, [Award(s.dealer, "crib", score.total, score.words())],
                    claimable=True, actor=s.dealer)

    def _check_four(self, cards: tuple[Card, ...], what: str) -> None:
        starter = self._round.starter
        if len(cards) != CARDS_IN_PLAY:
            raise IllegalEventError(
                "show_card_count",
                f"{what} must be {CARDS_IN_PLAY} cards (the starter is added by the engine), "
                f"not {len(cards)}: {format_cards(cards)}",
            )
        if len(set(cards)) != len(cards):
            raise IllegalEventError("card_twice", f"{what} names a card twice: "
                                                  f"{format_cards(cards)}")
        if starter in cards:
            raise IllegalEventError("starter_shown", f"{what} includes the starter {starter}: "
                                                     "it belongs to every hand without being "
                                                     "shown")

    def _discard(self, event: Discard) -> None:
        """Records a player's throw to the crib for the coach: it must fit what the deal
        showed (not laid in the play, not the starter, in the crib once it was counted)."""
        s = self._s
        name, cards = event.player, event.cards
        p = self._index(name)
        if s.round is None:
            raise IllegalEventError("no_deal", f"{name}'s discard: record it once this deal's "
                                               "starter is cut")
        thrown = dealt_size(len(s.players)) - CARDS_IN_PLAY
        if len(cards) != thrown or len(set(cards)) != len(cards):
            raise IllegalEventError(
                "discard_count", f"{name} threw {thrown} card{'s' if thrown > 1 else ''} to "
                                 f"the crib, not {format_cards(cards) or 'none'}")
        if p in s.discards:
            raise IllegalEventError("discard_twice", f"{name}'s discard this deal is already "
                                                     f"recorded: {format_cards(s.discards[p])}")
        starter, laid = self._round.starter, self._round.cards_laid()
        for card in cards:
            owner = next((s.players[q] for q, c in s.discards.items() if card in c), None)
            problem = ("is the starter" if card == starter else
                       "was laid in the play" if card in laid else
                       f"is {owner}'s discard" if owner is not None else
                       "is not in the crib" if s.crib_cards and card not in s.crib_cards else
                       None)
            if problem is not None:
                raise IllegalEventError("discard_card", f"{name} cannot have thrown {card}: "
                                                        f"it {problem}")
        s.discards[p] = tuple(sorted(cards))

    # -- muggins and adjustments -----------------------------------------------

    def _claim(self, event: Claim, number: int) -> None:
        s = self._s
        p = self._index(event.player)
        if not s.rules.muggins:
            raise IllegalEventError("no_muggins", "claims are only made in muggins games "
                                                  "(rules.muggins is false)")
        pending = s.pending.pop(p, None)
        if pending is None:
            raise IllegalEventError(
                "claim_out_of_place",
                f"{event.player} has nothing to claim here: a claim comes directly after the "
                "event that scored for that player",
            )
        side = s.side_of[p]
        before = s.scores[side]
        claimed = min(event.points, pending.true)
        could_have = min(pending.true, s.rules.target - before)
        self._peg(p, number, pending.reason, claimed, pending.words)
        pegged = s.scores[side] - before
        s.last_claim = _LastClaim(p, max(0, could_have - pegged), pending.words)

    def _muggins(self, event: Muggins, number: int) -> None:
        s = self._s
        p = self._index(event.player)
        if not s.rules.muggins:
            raise IllegalEventError("no_muggins", "muggins is not being played "
                                                  "(rules.muggins is false)")
        last = s.last_claim
        if last is None:
            raise IllegalEventError("muggins_out_of_place",
                                    f"{event.player} calls muggins with no claim just made")
        if s.side_of[p] == s.side_of[last.claimant]:
            raise IllegalEventError("muggins_own_side",
                                    f"{event.player} cannot mug their own side")
        if last.missed_holes <= 0:
            raise IllegalEventError(
                "muggins_nothing_missed",
                f"{event.player} calls muggins but {s.players[last.claimant]} missed nothing",
            )
        s.last_claim = None
        self._peg(p, number, "muggins", last.missed_holes,
                  f"muggins: {s.players[last.claimant]} missed {last.missed_holes}")

    def _adjust(self, event: Adjust, number: int) -> None:
        s = self._s
        p = self._index(event.player)
        side = s.side_of[p]
        if s.scores[side] + event.points < 0:
            raise IllegalEventError(
                "adjust_below_zero",
                f"adjusting {event.player} by {event.points} would take "
                f"{s.side_names[side]} below 0 (score {s.scores[side]})",
            )
        self._peg(p, number, event.reason, event.points, f"adjusted by {event.points}")

    # -- pegging ---------------------------------------------------------------

    def _award(self, number: int, awards: list[Award], *, claimable: bool,
               actor: int | None = None) -> None:
        """Pegs what an event earned, or, in muggins games, holds it for the players' claims."""
        s = self._s
        if not (s.rules.muggins and claimable):
            for award in awards:
                if s.phase == "over":
                    break
                self._peg(award.player, number, award.reason, award.points, award.words)
            return
        running = s.scores[:]
        for award in awards:
            points = self._stink(award.reason, award.points, running[s.side_of[award.player]])
            running[s.side_of[award.player]] += points
            pending = s.pending.get(award.player)
            if pending is None:
                s.pending[award.player] = _Pending(award.reason, points, award.words)
            else:
                pending.reason += "+" + award.reason
                pending.true += points
                pending.words += ", " + award.words
        if actor is not None and actor not in s.pending:
            s.pending[actor] = _Pending("play", 0, "nothing")

    def _stink(self, reason: str, points: int, score: int) -> int:
        rules = self._s.rules
        if rules.stink_hole and reason in _STINK_REASONS and score == rules.target - 1:
            return 0
        return points

    def _peg(self, player: int, number: int, reason: str, points: int, words: str) -> None:
        s = self._s
        side = s.side_of[player]
        score = s.scores[side]
        points = self._stink(reason, points, score)
        new = max(0, min(score + points, s.rules.target))
        if new == score:
            return
        s.backs[side], s.fronts[side], s.scores[side] = s.fronts[side], new, new
        s.records.append(Pegged(number, s.side_names[side], s.players[player], new - score,
                                reason, words))
        if new >= s.rules.target:
            self._end(side, early=False)
        elif (line := s.rules.early_double_skunk_line) is not None and new >= line and all(
            other < 31 for i, other in enumerate(s.scores) if i != side
        ):
            self._end(side, early=True)

    def _end(self, winner: int, *, early: bool) -> None:
        s = self._s
        rules = s.rules
        s.winner = winner
        s.phase = "over"
        s.pending.clear()
        for side, score in enumerate(s.scores):
            if side == winner:
                continue
            if early or (rules.double_skunk is not None and score < rules.double_skunk):
                s.side_results[side] = "double_skunk"
            elif rules.skunk is not None and score < rules.skunk:
                s.side_results[side] = "skunk"
            else:
                s.side_results[side] = "win"
        result = self.result
        assert result is not None
        s.finished.append(GameResult(s.side_names[winner], result,
                                     rules.game_values[RESULTS.index(result)], tuple(s.scores),
                                     tuple(s.side_results)))


_HANDLERS: dict[type, Any] = {
    Deal: Game._deal,
    Starter: Game._starter,
    Play: Game._play,
    Go: Game._go,
    Show: Game._show,
    Crib: Game._crib,
    Claim: Game._claim,
    Muggins: Game._muggins,
    Adjust: Game._adjust,
    Misdeal: Game._misdeal,
}


def _rule_of(exc: EngineError) -> str:
    if isinstance(exc, RulesError):
        return "bad_rules"
    if isinstance(exc, EventError):
        return "malformed_event"
    return "bad_card" if type(exc).__name__ == "CardError" else "illegal_event"

