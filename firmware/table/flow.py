"""The table flow: what the players just did, turned into engine events and feedback.

A pure state machine. ``TableFlow.handle(input, game)`` takes one thing that
happened at the table (a tracker event, a button action, a clock tick) and the
store's current ``Game``, and returns an ``Outcome``: the CONTRACT.md event
dicts to append, whether to undo, and what to tell the players. It never
touches the store, the LEDs or the clock itself, so every rule of the table
is tested by feeding it inputs and reading outcomes.

The engine is the judge of legality (go inference, turn order, counting
order, muggins), so the flow proposes events and the loop appends them in
order; the loop then reports back with ``stored`` (which says the count and
may open the muggins window) or ``rejected`` (which turns the engine's rule
into a flash and a sentence). Nothing is stored for a rejected card.

Zones are named as ``vision.live.zones`` names them: one per seat (named after the
config's players), ``"starter"`` and ``"crib"``. The phone page may seat other
players (``NewMatch``); the camera's seat zones then stand for whoever sits
there now, while the page's own inputs (``ManualCard``, ``ManualSpread``)
name players directly.

The flow's parts, by job: its inputs and outcomes (``firmware.table.inputs``), its memory and
bookkeeping (``firmware.table.memory``), pure decisions on the game (``firmware.table.procedure``)
and what the table hears about a stored or refused event (``firmware.table.announce``); the
names other code imports from here are re-exported.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.cards import Card
from engine.game import Game
from engine.records import LogError, Pegged
from engine.rules import Rules
from engine.words import card_words, event_words, scores_words
from firmware.table.alternatives import resolve_play
from firmware.table.announce import announce, game_result, rejected
from firmware.table.inputs import (
    ADJUST_TIMEOUT_S,
    BUTTON_ACTIONS,
    MAX_ADJUST,
    NOTHING,
    AdjustScore,
    ButtonAction,
    CorrectCard,
    Feedback,
    FeedbackKind,
    ManualCard,
    ManualDiscard,
    ManualSpread,
    NewMatch,
    Outcome,
    TableInput,
    Tick,
    UnknownCard,
    flash,
    ignored,
    notice,
    say,
)
from firmware.table.memory import Adjusting, Cut, FlowMemory
from firmware.table.names import player_names
from firmware.table.procedure import (
    adjust,
    caller,
    cards_on_table,
    held_menu,
    misdeal,
    misdeal_allowed,
    new_starter,
    next_game,
    open_match_words,
    place_words,
    waiting,
)
from firmware.table.together import judge
from firmware.table.words import next_words
from vision.live.tracker import (
    CameraBack,
    CameraLost,
    CardAppeared,
    CardInTwoPlaces,
    CardRemoved,
    ZoneComplete,
)
from vision.live.zones import CRIB, STARTER

__all__ = [
    "TableFlow", "Outcome", "Feedback", "FeedbackKind", "ButtonAction", "Tick", "UnknownCard",
    "ManualCard", "ManualSpread", "ManualDiscard", "NewMatch", "CorrectCard", "AdjustScore",
    "TableInput", "STARTER", "CRIB", "BUTTON_ACTIONS", "MAX_ADJUST", "cards_on_table",
    "misdeal_allowed", "open_match_words",
]


class TableFlow(FlowMemory):
    """The table's rules of procedure around the engine's rules of the game: the decisions,
    on the memory ``FlowMemory`` keeps (its arguments: the players, rules, seats and the
    muggins window)."""

    # -- the events the flow proposes ------------------------------------------------------

    def start(self, game: Game) -> Outcome:
        """What to do when the device starts on the store's resumed game."""
        self._old_starter = self._resumed = game.starter  # a fresh tracker reports it again
        if game.phase == "new_game":
            return Outcome(events=(self.new_game_event(),))
        if tuple(game.players) != self.players:
            return Outcome(events=(self.new_game_event(),), fresh_match=True,
                           feedback=(Feedback("notice", "the config names other players ("
                                              + ", ".join(self.players)
                                              + "): starting a new match"),))
        return notice(f"resumed: {scores_words(game.sides)}; waiting for {game.next}")

    # -- inputs ------------------------------------------------------------------------------

    def handle(self, item: TableInput, game: Game) -> Outcome:
        """Returns what ``item`` means for ``game``; changes only the flow's own memory."""
        left = NOTHING
        if self._adjusting is not None and isinstance(
                item, CardAppeared | ManualCard | ZoneComplete | ManualSpread | NewMatch):
            self._adjusting = None  # play goes on: the buttons are GO, MUGGINS, ... again
            left = notice("adjusting left: nothing pegged")
        return left + self._handle(item, game)

    def _handle(self, item: TableInput, game: Game) -> Outcome:
        if isinstance(item, CardAppeared):
            return self._seen(item, game)
        if isinstance(item, ManualCard):
            # Typed in: the players say what it is, whatever the camera last saw (a cut card
            # it never read is never reported gone; an old starter may be cut again).
            self._lying.discard(item.card)
            return self._card(item.card, item.zone, game, typed=True)
        if isinstance(item, CardRemoved):
            self._removed(item.card, self._seated(item.zone))
            return NOTHING
        if isinstance(item, ZoneComplete):
            zone = self._seated(item.zone)
            cards = tuple(self._read_as.get((zone or "", card), card) for card in item.cards)
            if self._asked.intersection(cards) or (
                    zone is not None and self._batched.pop(zone, None) == tuple(sorted(cards))):
                return NOTHING  # asked about already, or counted from the change itself
            return self._spread(zone, cards, item.at, game)
        if isinstance(item, ManualSpread):
            self._lying.difference_update(item.cards)
            return self._spread(item.zone, item.cards, item.at, game, typed=True)
        if isinstance(item, NewMatch):
            return self._new_match(item)
        if isinstance(item, ManualDiscard):
            return Outcome(events=({"type": "discard", "player": item.player,
                                    "cards": [str(c) for c in item.cards]},))
        if isinstance(item, CorrectCard):
            return self._correction(item.was, item.card)
        if isinstance(item, AdjustScore):
            return adjust(item.player, item.points, game, item.reason)
        if isinstance(item, CardInTwoPlaces):
            places = [place_words(self._seated(z)) for z in item.zones]
            where = (f"twice in {places[0]}" if places[0] == places[1]
                     else "in " + " and ".join(places))
            return Outcome(feedback=(Feedback(
                "ask", f"I see {item.card} {where}: which is it? Take the wrong one away"),))
        if isinstance(item, UnknownCard):
            return Outcome(feedback=(Feedback(
                "notice", f"straighten the card in {place_words(self._seated(item.zone))}: "
                          "I cannot read it"),))
        if isinstance(item, CameraLost):
            self.manual = True
            return Outcome(feedback=(Feedback(
                "notice", "no pictures from the camera: name each card on the phone page "
                          "(Enter cards by hand); GO and CONFIRM work as before, and the dial "
                          "with CONFIRM pegs points"),))
        if isinstance(item, CameraBack):
            self.manual = False
            return notice("camera back: watching the table again")
        if isinstance(item, ButtonAction):
            return self._button(item, game)
        return self._tick(item.at, game)

    def together(self, seen: Sequence[CardAppeared], game: Game) -> Outcome | None:
        """The cards the camera read in one change, before any is taken: None when the game
        can take them one at a time (each is then ``handle``-d as usual); else what the
        change as a whole leads to (``firmware.table.together``): a question, nothing taken,
        when it holds more cards than the game can take in the step it is at, or the hands
        and crib spread in it, counted in their turn."""
        new = [(item.card, self._seated(item.zone)) for item in seen
               if self._news(item.card, game)]
        cut = self._cut if self._cut is not None else Cut(self.players)
        verdict = judge(new, game, players=self.players,
                        uncut=[p for p in cut.contenders if p not in cut.cards])
        if not verdict.whole:
            return None
        if verdict.ask is not None:
            self._asked.update(card for card, _ in new)
            return Outcome(feedback=(Feedback("ask", verdict.ask),))
        at = max((item.at for item in seen), default=0.0)
        out = NOTHING
        for zone, cards in verdict.spreads:
            self._batched[zone] = cards
            out += self._spread(zone, cards, at, game)
        return out

    def _news(self, card: Card, game: Game) -> bool:
        """Whether a card read is new to the table: not a cut card still lying, not the
        starter (nor the last one, still lying where it was cut), not laid this deal, except
        in the show, where a hand's cards laid in the play and spread again are its spread."""
        if card in self._lying or card == game.starter or card in (self._old_starter,
                                                                   self._resumed):
            return False
        return game.phase in ("show", "crib") or not any(card in game.laid(p)
                                                         for p in game.players)

    def stored(self, event: Mapping[str, Any], pegged: Sequence[Pegged], game: Game,
               at: float) -> Outcome:
        """What to say once ``event`` is durably stored and pegged ``pegged``."""
        kind = event["type"]
        out = NOTHING
        self._offered = None
        if kind in ("new_game", "deal"):
            self._read_as.clear()  # runners-up taken are this deal's
            self._batched.clear()
        if kind == "new_game":
            self._spreads.clear()
            self._window = None
            self._last_card = self._correcting = None
            if game.turn is None:  # a new match: nobody knows the dealer yet
                self._cut = Cut(self.players)
                self._lying.clear()  # the last match's cut cards went back in the pack long ago
                self._resumed = None  # nor is the last match's starter an old starter to it
                out += notice("new match: cut for the deal, each player lays one card in "
                               "their area (lowest deals, aces low)")
            else:
                out += notice(f"next game: {game.turn} deals")
        elif kind == "deal" and "dealer" in event:
            self._cut = None
            out += say(f"{event['dealer']} deals")
        elif kind == "crib":
            self._spreads.clear()
            self._lying.clear()  # the cut cards were shuffled into this deal's pack
        elif kind == "starter":
            self._old_starter, self._resumed = game.starter, None
        elif kind == "claim":
            self._window = (str(event["player"]), at + self.muggins_window_s)
        if kind in ("play", "starter", "correct"):
            self._last_card = Card.parse(str(event["card"]))
        out += announce(event, pegged, game)
        if game.phase == "over":
            self._window = None
            self._adjusting = None
            out += Outcome(feedback=(Feedback("celebrate", game_result(game)),
                                     Feedback("notice", next_words(game))))
            if game.match_point:
                out += say("match point for " + " and ".join(game.match_point))
        return out + self._due(game, at)  # a hand already spread may count now

    @staticmethod
    def rejected(event: Mapping[str, Any], error: LogError, game: Game) -> Outcome:
        """A proposed event the engine refused: flash, say why, store nothing."""
        return rejected(event, error, game)

    def undone(self, line: str, game: Game) -> Outcome:
        """An event taken back by UNDO."""
        self._window = None
        self._offered = None
        self._spreads.clear()
        if game.phase == "deal" and game.turn is None:
            self._cut = Cut(self.players)
        self._correcting = None
        self._last_card = game.pile[-1] if game.pile else game.starter
        return say(f"undone: {event_words(line)}; now {next_words(game)}")

    # -- cards -------------------------------------------------------------------------------

    def _seen(self, item: CardAppeared, game: Game) -> Outcome:
        """A card the camera read. In a player's area during the play, a reading the game rules
        out is resolved with the recogniser's runners-up (``firmware.table.alternatives``): a
        close one the game allows is taken, saying so; else the players are asked. A card
        seen again where its player laid it is no news, whatever its runners-up."""
        zone = self._seated(item.zone)
        taken = self._read_as.get((zone or "", item.card))
        if taken is not None and zone is not None and taken in game.laid(zone):
            return NOTHING  # the card taken for this reading, seen again where it lies
        if (item.alternatives and game.phase == "play" and zone in self.players
                and self._correcting is None and item.card not in self._lying
                and item.card not in game.laid(zone)):
            choice = resolve_play(item.card, item.confidence, item.alternatives, zone, game)
            if choice.card is None:
                return flash(choice.words)
            if choice.card != item.card:
                self._read_as[(zone, item.card)] = choice.card
                return notice(choice.words) + self._card(choice.card, zone, game)
        return self._card(item.card, zone, game)

    def _card(self, card: Card, zone: str | None, game: Game, *, typed: bool = False
              ) -> Outcome:
        """A card laid (seen by the camera, or ``typed`` on the phone) as an event, or one
        line saying why it is not taken. The camera seeing a card again where the game
        already has it (a laid card in its player's area, the starter in the starter area)
        is no news and says nothing."""
        name = card_words(card)
        if self._correcting is not None and zone is not None and card not in self._lying:
            was, self._correcting = self._correcting, None
            return self._correction(was, card)
        phase = game.phase
        if zone is None:
            return ignored(f"{name} lies outside every area: lay it in your own area", typed)
        if card in self._lying:
            return ignored(f"{name} was cut for the deal and still lies in "
                            f"{place_words(zone)}: gather the cut cards (or type it on the "
                            "phone if it is play)", typed)
        if phase == "deal" and game.turn is None:
            return self._cut_card(card, zone)
        if zone == STARTER:
            return self._starter_card(card, game, typed=typed)
        if zone == CRIB:
            if phase in ("show", "crib") and not typed:
                return NOTHING  # the crib being spread, counted by ZoneComplete
            return ignored(f"{name} in the crib area is not play: the crib is counted after "
                            "the hands", typed)
        if zone not in self.players:
            return ignored(f"{name} lies in {place_words(zone)}, where nobody sits", typed)
        for player in self.players:
            if card in game.laid(player):
                if player == zone and not typed:
                    return NOTHING  # seen again where it lies (the show spread, a glare)
                return ignored(f"{name} is already laid ({player} played it this deal)", typed)
        if phase != "play":
            return ignored(f"{zone}'s {name} is not play: {waiting(game)}", typed)
        if card == game.starter:
            return ignored(f"{name} is the starter, not a card in anyone's hand", typed)
        return Outcome(events=({"type": "play", "player": zone, "card": str(card)},))

    def _starter_card(self, card: Card, game: Game, *, typed: bool) -> Outcome:
        name = card_words(card)
        phase = game.phase
        if card == game.starter and phase not in ("deal", "over"):
            return flash(f"{name} is this deal's starter already") if typed else NOTHING
        if card == self._resumed and not typed and phase in ("deal", "over"):
            # The fresh tracker's first sight of the card lying there since before the restart.
            self._resumed = None
            if phase == "over":  # CONFIRM starts the next game here: it must not take this card
                return notice(f"{name} lies in the starter area from the last deal: to cut it "
                               "again for the next game, lift it and lay it again (or type it "
                               "on the phone); " + ("CONFIRM starts the next game"
                                                     if game.match_winner is None
                                                     else next_words(game)))
            return self._offer(card)
        if card == self._old_starter and not typed and (card == game.starter
                                                        or phase == "starter"):
            return self._offer(card)  # after a misdeal too: the deal is stored, no starter
        return new_starter(card, game, self.new_game_event())

    def _offer(self, card: Card) -> Outcome:
        """The old starter seen where a new one is due: CONFIRM takes it as cut again."""
        name = card_words(card)
        self._offered = card
        return notice(f"{name} was the starter of the last deal: if it is cut again, press "
                       "CONFIRM (or lift it and lay it again, or type it on the phone)")

    def _cut_card(self, card: Card, zone: str) -> Outcome:
        name = card_words(card)
        cut = self._cut if self._cut is not None else Cut(self.players)
        self._cut = cut
        if zone not in self.players:
            return notice(f"cut in your own area, not {place_words(zone)}")
        if zone not in cut.contenders:
            return notice(f"{zone} has no need to cut again")
        cut.cards[zone] = card
        self._lying.add(card)
        if set(cut.cards) != set(cut.contenders):
            waiting = [p for p in cut.contenders if p not in cut.cards]
            return notice(f"{zone} cuts {name}; waiting for {', '.join(waiting)} to cut")
        low = min(c.rank for c in cut.cards.values())
        lowest = tuple(p for p in cut.contenders if cut.cards[p].rank == low)
        if len(lowest) > 1:
            cards = ", ".join(f"{p} {card_words(cut.cards[p])}" for p in lowest)
            self._cut = Cut(lowest)
            return say(f"a tie ({cards}): {' and '.join(lowest)} cut again")
        dealer = lowest[0]
        return Outcome(events=({"type": "deal", "dealer": dealer},),
                       feedback=(Feedback("notice", f"{dealer} cuts low with "
                                                    f"{card_words(cut.cards[dealer])}"),))

    def _correction(self, was: Card, card: Card) -> Outcome:
        return Outcome(events=({"type": "correct", "was": str(was), "card": str(card)},))

    # -- settings from the phone page ----------------------------------------------------------

    def _new_match(self, item: NewMatch) -> Outcome:
        try:
            players = player_names(tuple(item.players))
            Rules.from_json(item.rules, players=len(players))
        except ValueError as exc:  # PlayerNameError too
            return flash(f"new match refused: {exc}")
        self.players, self.rules = players, dict(item.rules)
        self._cut = None
        note = ""
        if len(players) > len(self.seats):
            unseen = ", ".join(players[len(self.seats):])
            note = f"; the camera has no area for {unseen}: enter their cards on the phone"
        return Outcome(events=(self.new_game_event(),), fresh_match=True,
                       feedback=(Feedback("notice", "new match: " + ", ".join(players) + note),))

    # -- the show ------------------------------------------------------------------------------

    def _spread(self, zone: str | None, cards: Sequence[Card], at: float, game: Game, *,
                typed: bool = False) -> Outcome:
        """A hand or the crib spread to count: counted now if its turn has come, else kept
        for its turn, and either way the players hear which."""
        if zone is None or (zone not in self.players and zone != CRIB):
            return ignored(f"cards spread in {place_words(zone)} are nobody's hand", typed)
        lying = [c for c in cards if c in self._lying]
        if lying:
            return ignored(f"{card_words(lying[0])} was cut for the deal and still lies in "
                            f"{place_words(zone)}: gather the cut cards", typed)
        what = "the crib" if zone == CRIB else f"{zone}'s hand"
        phase = game.phase
        if phase not in ("play", "show", "crib"):
            if (not typed and phase == "deal" and game.turn is not None
                    and (zone == CRIB or set(cards) == set(game.laid(zone)))):
                return NOTHING  # the last deal's show, still lying there
            return ignored(f"{what} is not counted now: {waiting(game)}", typed)
        self._spreads[zone] = tuple(cards)
        out = self._due(game, at)
        if out.events or (phase == "play" and not typed):
            return out
        when = "in the show" if phase == "play" else f"in its turn: now {game.next}"
        return out + notice(f"{what} will be counted {when}")

    def _due(self, game: Game, at: float) -> Outcome:
        """A spread hand (or crib) whose turn to count has come, unless a claim or the muggins
        window holds the table."""
        if self._window_open(at) or (game.rules.muggins and game.awaiting_claim):
            return NOTHING
        if game.phase == "show":
            player = game.turn
            if player is not None and player in self._spreads:
                cards = self._spreads.pop(player)
                return Outcome(events=({"type": "show", "player": player,
                                        "cards": [str(c) for c in cards]},))
        if game.phase == "crib" and CRIB in self._spreads:
            cards = self._spreads.pop(CRIB)
            return Outcome(events=({"type": "crib", "cards": [str(c) for c in cards]},))
        return NOTHING

    # -- buttons -------------------------------------------------------------------------------

    def _button(self, action: ButtonAction, game: Game) -> Outcome:
        name = action.name
        if self._adjusting is not None:
            if name in ("go", "muggins", "undo", "dial", "confirm", "claim"):
                return self._adjusting_button(action, game)
            self._adjusting = None  # a held button's menu, a misdeal: adjusting is left
        if name == "undo":
            if game.phase in ("new_game",) or (game.phase == "deal" and game.turn is None
                                                and not game.match):
                self._cut = Cut(self.players) if game.phase == "deal" else None
                return notice("nothing to undo: cut for the deal")
            return Outcome(undo=True)
        if name == "new_game":
            self._cut = None
            return Outcome(events=(self.new_game_event(),), fresh_match=True)
        if name == "misdeal":
            return misdeal(game, self.new_game_event())
        if name == "adjust":
            return self._start_adjusting(action.at, game)
        if name == "correct":
            if self._last_card is None or game.phase in ("new_game", "over"):
                return flash("no card to correct: the board has read none in this game")
            self._correcting = self._last_card
            return say(f"correcting the {card_words(self._last_card)}: lay or type the "
                        "card it really is")
        if name == "dial":
            return notice(f"claim: {action.value}")
        if name == "ask_confirm":
            if action.subject == "new_game":  # hardware.buttons.HELD_CHOICES
                return say(held_menu(game, self._last_card))
            return say(f"press CONFIRM to start a {action.subject.replace('_', ' ')}")
        if name == "cancelled":
            return notice(f"{action.subject.replace('_', ' ')} cancelled")
        if name == "go":
            if game.phase != "play":
                return flash(f"GO is for the play; now {game.next}")
            return Outcome(events=({"type": "go", "player": game.turn},))
        if name == "claim":
            return self._claim(action.value, game)
        if name == "muggins":
            return self._muggins(action.at, game)
        return self._confirm(game)

    # -- a score adjusted by hand --------------------------------------------------------------

    def _start_adjusting(self, at: float, game: Game) -> Outcome:
        if game.phase in ("new_game", "over") or not game.sides:
            return flash("no game to adjust a score in")
        player = game.turn or game.players[0]
        self._adjusting = Adjusting(player, 0, at)
        return say(f"adjusting {player}'s score: GO adds a point, MUGGINS takes one away, "
                    "UNDO picks the next player, CONFIRM pegs it")

    def _adjusting_button(self, action: ButtonAction, game: Game) -> Outcome:
        adjusting = self._adjusting
        assert adjusting is not None
        adjusting.at = action.at
        name = action.name
        if name in ("confirm", "claim"):
            self._adjusting = None
            points = action.value if name == "claim" else adjusting.points
            if points == 0:
                return notice("adjusting left: nothing pegged")
            return adjust(adjusting.player, points, game, "by hand")
        if name == "undo":
            players = game.players
            adjusting.player = players[(players.index(adjusting.player) + 1) % len(players)]
        elif name == "dial":
            adjusting.points = max(-MAX_ADJUST, min(MAX_ADJUST, action.value))
        else:
            step = 1 if name == "go" else -1
            adjusting.points = max(-MAX_ADJUST, min(MAX_ADJUST, adjusting.points + step))
        sign = "+" if adjusting.points >= 0 else ""
        return notice(f"adjusting {adjusting.player}: {sign}{adjusting.points} "
                       "(CONFIRM pegs it)")

    def _confirm(self, game: Game) -> Outcome:
        phase = game.phase
        if game.rules.muggins and game.awaiting_claim:
            return notice(f"{game.awaiting_claim[0]}: dial your count and press CONFIRM "
                           "(dial 0 to claim nothing)")
        if phase == "show" and game.turn is not None:
            cards = game.laid(game.turn)
            return Outcome(events=({"type": "show", "player": game.turn,
                                    "cards": [str(c) for c in cards]},))
        if self._offered is not None and phase in ("deal", "over", "starter"):
            return new_starter(self._offered, game, self.new_game_event())
        if phase == "over":
            return next_game(game, self.new_game_event())
        if phase == "deal" and game.turn is None:
            return notice("cut for the deal: each player lays one card in their area")
        if phase == "crib":
            return notice(f"spread the crib face up in the crib area ({game.dealer}'s crib)")
        return notice(f"waiting for {game.next}")

    def _claim(self, points: int, game: Game) -> Outcome:
        if game.rules.muggins:
            if not game.awaiting_claim:
                return flash(f"nothing to claim now: waiting for {game.next}")
            return Outcome(events=({"type": "claim", "player": game.awaiting_claim[0],
                                    "points": points},))
        if self.manual:
            player = game.turn or game.dealer
            if player is None or game.phase in ("new_game", "over"):
                return flash("no game to peg points in")
            return Outcome(events=({"type": "adjust", "player": player, "points": points,
                                    "reason": "manual"},))
        return flash("claims are for muggins games: this board counts for you")

    def _muggins(self, at: float, game: Game) -> Outcome:
        if not game.rules.muggins:
            return flash("muggins is not being played")
        if self._window is None or not self._window_open(at):
            self._window = None
            return flash("muggins is called just after a claim, within "
                          f"{self.muggins_window_s:g} seconds")
        claimant = self._window[0]
        self._window = None
        return Outcome(events=({"type": "muggins",
                                "player": caller(self.players, claimant, game)},))

    def _tick(self, at: float, game: Game) -> Outcome:
        out = NOTHING
        if self._adjusting is not None and at - self._adjusting.at > ADJUST_TIMEOUT_S:
            self._adjusting = None
            out += notice("adjusting left: nothing pegged")
        if self._window is not None and not self._window_open(at):
            self._window = None
            out += notice("muggins window closed")
        return out + self._due(game, at)
