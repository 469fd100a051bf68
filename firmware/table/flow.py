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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from engine.cards import Card
from engine.game import Game
from engine.records import LogError, Pegged
from engine.rules import Rules
from engine.words import card_words, event_words, points_words, result_words, scores_words
from firmware.table.alternatives import resolve_play
from firmware.table.names import player_names
from firmware.table.together import judge
from firmware.table.words import next_words, pegged_words, refusal_words
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


#: What ``ButtonAction.name`` may be: ``hardware.buttons.Action`` names.
BUTTON_ACTIONS = frozenset({"go", "muggins", "undo", "confirm", "claim", "new_game", "dial",
                            "ask_confirm", "cancelled", "misdeal", "correct", "adjust"})

#: The most one hand adjustment may move a score either way: the best hand is 29, and a
#: bigger mistake is put right in two steps (or with UNDO), never by one slip of a finger.
MAX_ADJUST = 29

#: How long the buttons' adjusting (hold UNDO, then UNDO) waits for the next press.
ADJUST_TIMEOUT_S = 30.0

FeedbackKind = Literal["say", "notice", "flash", "ask", "celebrate"]


@dataclass(frozen=True, slots=True)
class Feedback:
    """Something to tell the players.

    ``say``: speak it (a count); ``notice``: show it as the status line;
    ``flash``: flash the board red and say why (a rejected card); ``ask``: a
    question the players must settle at the table; ``celebrate``: the game is
    won (the loop plays the celebration or skunk animation).
    """

    kind: FeedbackKind
    text: str


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one input leads to. ``events`` go to the store in order (the first through
    ``start_match`` when ``fresh_match``); ``undo`` takes back the last stored event."""

    events: tuple[dict[str, Any], ...] = ()
    feedback: tuple[Feedback, ...] = ()
    undo: bool = False
    fresh_match: bool = False

    def __add__(self, other: Outcome) -> Outcome:
        return Outcome(self.events + other.events, self.feedback + other.feedback,
                       self.undo or other.undo, self.fresh_match or other.fresh_match)


@dataclass(frozen=True, slots=True)
class ButtonAction:
    """A button action (``hardware.buttons.Action``) with the time it happened."""

    name: str
    value: int = 0
    at: float = 0.0
    subject: str = ""

    def __post_init__(self) -> None:
        if self.name not in BUTTON_ACTIONS:
            raise ValueError(f"unknown button action {self.name!r} "
                             f"(known: {', '.join(sorted(BUTTON_ACTIONS))})")


@dataclass(frozen=True, slots=True)
class Tick:
    """Time passing: closes the muggins window and counts spread hands that became due."""

    at: float


@dataclass(frozen=True, slots=True)
class UnknownCard:
    """A card lies in ``zone`` but its index cannot be read (skewed, covered, glare)."""

    zone: str | None
    at: float


@dataclass(frozen=True, slots=True)
class ManualCard:
    """A card entered by hand (the phone page) while the camera cannot see: as if laid in
    ``zone``."""

    card: Card
    zone: str
    at: float


@dataclass(frozen=True, slots=True)
class ManualSpread:
    """A hand or the crib entered by hand (the phone page): as if spread face up in ``zone``
    (a player's name or ``"crib"``)."""

    zone: str
    cards: tuple[Card, ...]
    at: float


@dataclass(frozen=True, slots=True)
class ManualDiscard:
    """The cards ``player`` says they threw to the crib this deal (the phone page's coach):
    stored for the review, never scored."""

    player: str
    cards: tuple[Card, ...]
    at: float


@dataclass(frozen=True, slots=True)
class NewMatch:
    """New settings from the phone page: a new match with these players (in seating order)
    and rules. ``colours`` (one RGB per side) are for the board's renderer; the flow
    ignores them."""

    players: tuple[str, ...]
    rules: Mapping[str, Any]
    at: float
    colours: tuple[tuple[int, int, int], ...] = ()


@dataclass(frozen=True, slots=True)
class CorrectCard:
    """A card the board read wrongly, put right from the phone page: ``was`` is ``card``."""

    was: Card
    card: Card
    at: float


@dataclass(frozen=True, slots=True)
class AdjustScore:
    """A score moved by hand (the phone page): ``points`` (plus or minus, at most
    ``MAX_ADJUST``) pegged for ``player``'s side, for a house rule the board does not know
    or a peg the players agree on. Stored as the log's ``adjust`` event."""

    player: str
    points: int
    at: float
    reason: str = "by hand"


TableInput = (CardAppeared | CardRemoved | ZoneComplete | CardInTwoPlaces | CameraLost
              | CameraBack | ButtonAction | Tick | UnknownCard | ManualCard | ManualSpread
              | ManualDiscard | NewMatch | CorrectCard | AdjustScore)

_NOTHING = Outcome()


def _say(text: str) -> Outcome:
    return Outcome(feedback=(Feedback("say", text),))


def _notice(text: str) -> Outcome:
    return Outcome(feedback=(Feedback("notice", text),))


def _flash(text: str) -> Outcome:
    return Outcome(feedback=(Feedback("flash", text),))


def _ignored(text: str, typed: bool) -> Outcome:
    """A card the flow will not take: typed on the phone, the page shows it refused (a
    flash); seen by the camera, a status line, since the camera may just be looking again."""
    return _flash(text) if typed else _notice(text)


@dataclass(slots=True)
class _Cut:
    """The cut for the first deal: who still has to cut, and what they cut."""

    contenders: tuple[str, ...]
    cards: dict[str, Card] = field(default_factory=dict)


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


@dataclass(slots=True)
class _Adjusting:
    """The buttons' hand adjustment under way: whose score, by how much, last pressed when."""

    player: str
    points: int
    at: float


def cards_on_table(game: Game) -> frozenset[Card]:
    """The cards the game says lie face up now: the starter and every card laid this deal
    (the hands spread for the show are those same cards). A camera that starts mid-deal
    (after a power cut) must take these for cards, not for the table's printed art."""
    laid = [card for player in game.players for card in game.laid(player)]
    return frozenset(laid + ([game.starter] if game.starter is not None else []))


class TableFlow:
    """The table's rules of procedure around the engine's rules of the game.

    ``players`` and ``rules`` make the ``new_game`` events (the config's, until
    the phone page's ``NewMatch`` changes them). ``seats`` names the camera's
    seat zones in seating order (default: ``players``): a card seen in the
    i-th seat's zone is laid by whoever sits in seat i now. ``muggins_window_s``
    is how long after a claim the opponents may press MUGGINS.
    """

    def __init__(self, players: Sequence[str], rules: Mapping[str, Any] | None = None, *,
                 muggins_window_s: float = 8.0, seats: Sequence[str] | None = None) -> None:
        if muggins_window_s <= 0:
            raise ValueError(f"muggins_window_s must be positive, not {muggins_window_s!r}")
        self.players = player_names(tuple(players))
        self.seats = tuple(self.players if seats is None else seats)
        self.rules = dict(rules or {})
        self.muggins_window_s = muggins_window_s
        self.manual = False
        self._cut: _Cut | None = None
        self._spreads: dict[str, tuple[Card, ...]] = {}
        self._lying: set[Card] = set()  # cut cards still on the table: not play
        self._window: tuple[str, float] | None = None  # (claimant, closes at)
        # The last starter while it still lies on the table: seen again, it is not a new cut.
        # Once picked up, the same card may well be the next deal's starter.
        self._old_starter: Card | None = None
        # The old starter seen in the starter area when a new one is due: CONFIRM takes it
        # as this deal's starter (a camera cannot tell the card cut again from the old one).
        self._offered: Card | None = None
        # The last card stored (its reader's words), and the card the buttons are putting
        # right: the next card read or typed is what it really was.
        self._last_card: Card | None = None
        self._correcting: Card | None = None
        # The last starter as a fresh tracker will report it after a restart: that report is
        # the camera seeing it where it lay, no news, and must not turn the CONFIRM that
        # starts the next game into "the old starter cut again".
        self._resumed: Card | None = None
        # A score being adjusted with the buttons (hold UNDO, then UNDO).
        self._adjusting: _Adjusting | None = None
        # (player, card read) -> the runner-up the game took for it this deal (``_seen``):
        # the tracker names the reading whenever it sees the card again, in that place only
        # (the card read lies in its own player's area too).
        self._read_as: dict[tuple[str, Card], Card] = {}
        # Cards of a change asked about (``together``): their area seen complete is no spread.
        self._asked: set[Card] = set()
        # Spreads taken from one change (``together``): the tracker's ZoneComplete for the
        # same cards, in the same frame, is no news.
        self._batched: dict[str, tuple[Card, ...]] = {}

    # -- the events the flow proposes ------------------------------------------------------

    def new_game_event(self) -> dict[str, Any]:
        return {"type": "new_game", "players": list(self.players), "rules": dict(self.rules)}

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
        return _notice(f"resumed: {scores_words(game.sides)}; waiting for {game.next}")

    # -- inputs ------------------------------------------------------------------------------

    def handle(self, item: TableInput, game: Game) -> Outcome:
        """Returns what ``item`` means for ``game``; changes only the flow's own memory."""
        left = _NOTHING
        if self._adjusting is not None and isinstance(
                item, CardAppeared | ManualCard | ZoneComplete | ManualSpread | NewMatch):
            self._adjusting = None  # play goes on: the buttons are GO, MUGGINS, ... again
            left = _notice("adjusting left: nothing pegged")
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
            zone = self._seated(item.zone)
            self._lying.discard(item.card)
            self._asked.discard(item.card)
            if item.card == self._old_starter:
                self._old_starter = None
            if item.card == self._offered:
                self._offered = None
            if item.card == self._resumed:
                self._resumed = None
            if zone in self._spreads and item.card in self._spreads[zone]:
                del self._spreads[zone]
            return _NOTHING
        if isinstance(item, ZoneComplete):
            zone = self._seated(item.zone)
            cards = tuple(self._read_as.get((zone or "", card), card) for card in item.cards)
            if self._asked.intersection(cards) or (
                    zone is not None and self._batched.pop(zone, None) == tuple(sorted(cards))):
                return _NOTHING  # asked about already, or counted from the change itself
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
            return self._adjust(item.player, item.points, game, item.reason)
        if isinstance(item, CardInTwoPlaces):
            where = " and ".join(self._place(self._seated(z)) for z in item.zones)
            return Outcome(feedback=(Feedback(
                "ask", f"I see {item.card} in {where}: which is it? Take the wrong one away"),))
        if isinstance(item, UnknownCard):
            return Outcome(feedback=(Feedback(
                "notice", f"straighten the card in {self._place(self._seated(item.zone))}: "
                          "I cannot read it"),))
        if isinstance(item, CameraLost):
            self.manual = True
            return Outcome(feedback=(Feedback(
                "notice", "no pictures from the camera: name each card on the phone page "
                          "(Enter cards by hand); GO and CONFIRM work as before, and the dial "
                          "with CONFIRM pegs points"),))
        if isinstance(item, CameraBack):
            self.manual = False
            return _notice("camera back: watching the table again")
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
        cut = self._cut if self._cut is not None else _Cut(self.players)
        verdict = judge(new, game, players=self.players,
                        uncut=[p for p in cut.contenders if p not in cut.cards])
        if not verdict.whole:
            return None
        if verdict.ask is not None:
            self._asked.update(card for card, _ in new)
            return Outcome(feedback=(Feedback("ask", verdict.ask),))
        at = max((item.at for item in seen), default=0.0)
        out = _NOTHING
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
        out = _NOTHING
        self._offered = None
        if kind in ("new_game", "deal"):
            self._read_as.clear()  # runners-up taken are this deal's
            self._batched.clear()
        if kind == "new_game":
            self._spreads.clear()
            self._window = None
            self._last_card = self._correcting = None
            if game.turn is None:  # a new match: nobody knows the dealer yet
                self._cut = _Cut(self.players)
                self._lying.clear()  # the last match's cut cards went back in the pack long ago
                self._resumed = None  # nor is the last match's starter an old starter to it
                out += _notice("new match: cut for the deal, each player lays one card in "
                               "their area (lowest deals, aces low)")
            else:
                out += _notice(f"next game: {game.turn} deals")
        elif kind == "deal" and "dealer" in event:
            self._cut = None
            out += _say(f"{event['dealer']} deals")
        elif kind == "crib":
            self._spreads.clear()
            self._lying.clear()  # the cut cards were shuffled into this deal's pack
        elif kind == "starter":
            self._old_starter, self._resumed = game.starter, None
        elif kind == "claim":
            self._window = (str(event["player"]), at + self.muggins_window_s)
        if kind in ("play", "starter", "correct"):
            self._last_card = Card.parse(str(event["card"]))
        out += self._announce(event, pegged, game)
        if game.phase == "over":
            self._window = None
            self._adjusting = None
            out += Outcome(feedback=(Feedback("celebrate", self._result_words(game)),
                                     Feedback("notice", next_words(game))))
            if game.match_point:
                out += _say("match point for " + " and ".join(game.match_point))
        return out + self._due(game, at)  # a hand already spread may count now

    def rejected(self, event: Mapping[str, Any], error: LogError, game: Game) -> Outcome:
        """A proposed event the engine refused: flash, say why, store nothing."""
        kind = event.get("type")
        if kind == "muggins" and error.rule == "muggins_nothing_missed":
            return _flash(f"muggins refused: {error.detail}")
        if kind == "play" and error.rule in ("card_laid_twice", "starter_laid"):
            return _flash(error.detail)
        if kind == "misdeal":
            return _flash(f"no misdeal now: it is called after a deal and before its starter "
                          f"is cut; now {next_words(game)}")
        detail = refusal_words(error.detail)
        who = event.get("player")
        prefix = f"{who}: " if isinstance(who, str) and who not in detail else ""
        return _flash(prefix + detail)

    def cut_card(self, player: str) -> Card | None:
        """The card ``player`` has cut for the deal and the flow holds (the store keeps only
        the deal it decides). The page may not replace it: the store's revision does not
        change with a cut card, so a second phone that looked before Ann cut would otherwise
        change who deals; UNDO takes the cut back."""
        return self._cut.cards.get(player) if self._cut is not None else None

    def undone(self, line: str, game: Game) -> Outcome:
        """An event taken back by UNDO."""
        self._window = None
        self._offered = None
        self._spreads.clear()
        if game.phase == "deal" and game.turn is None:
            self._cut = _Cut(self.players)
        self._correcting = None
        self._last_card = game.pile[-1] if game.pile else game.starter
        return _say(f"undone: {event_words(line)}; now {next_words(game)}")

    # -- cards -------------------------------------------------------------------------------

    def _seen(self, item: CardAppeared, game: Game) -> Outcome:
        """A card the camera read. In a player's area during the play, a reading the game rules
        out is resolved with the recogniser's runners-up (``firmware.table.alternatives``): a
        close one the game allows is taken, saying so; else the players are asked. A card
        seen again where its player laid it is no news, whatever its runners-up."""
        zone = self._seated(item.zone)
        taken = self._read_as.get((zone or "", item.card))
        if taken is not None and zone is not None and taken in game.laid(zone):
            return _NOTHING  # the card taken for this reading, seen again where it lies
        if (item.alternatives and game.phase == "play" and zone in self.players
                and self._correcting is None and item.card not in self._lying
                and item.card not in game.laid(zone)):
            choice = resolve_play(item.card, item.confidence, item.alternatives, zone, game)
            if choice.card is None:
                return _flash(choice.words)
            if choice.card != item.card:
                self._read_as[(zone, item.card)] = choice.card
                return _notice(choice.words) + self._card(choice.card, zone, game)
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
            return _ignored(f"{name} lies outside every area: lay it in your own area", typed)
        if card in self._lying:
            return _ignored(f"{name} was cut for the deal and still lies in "
                            f"{self._place(zone)}: gather the cut cards (or type it on the "
                            "phone if it is play)", typed)
        if phase == "deal" and game.turn is None:
            return self._cut_card(card, zone)
        if zone == STARTER:
            return self._starter_card(card, game, typed=typed)
        if zone == CRIB:
            if phase in ("show", "crib") and not typed:
                return _NOTHING  # the crib being spread, counted by ZoneComplete
            return _ignored(f"{name} in the crib area is not play: the crib is counted after "
                            "the hands", typed)
        if zone not in self.players:
            return _ignored(f"{name} lies in {self._place(zone)}, where nobody sits", typed)
        for player in self.players:
            if card in game.laid(player):
                if player == zone and not typed:
                    return _NOTHING  # seen again where it lies (the show spread, a glare)
                return _ignored(f"{name} is already laid ({player} played it this deal)", typed)
        if phase != "play":
            return _ignored(f"{zone}'s {name} is not play: {self._waiting(game)}", typed)
        if card == game.starter:
            return _ignored(f"{name} is the starter, not a card in anyone's hand", typed)
        return Outcome(events=({"type": "play", "player": zone, "card": str(card)},))

    def _starter_card(self, card: Card, game: Game, *, typed: bool) -> Outcome:
        name = card_words(card)
        phase = game.phase
        if card == game.starter and phase not in ("deal", "over"):
            return _flash(f"{name} is this deal's starter already") if typed else _NOTHING
        if card == self._resumed and not typed and phase in ("deal", "over"):
            # The fresh tracker's first sight of the card lying there since before the restart.
            self._resumed = None
            if phase == "over":  # CONFIRM starts the next game here: it must not take this card
                return _notice(f"{name} lies in the starter area from the last deal: to cut it "
                               "again for the next game, lift it and lay it again (or type it "
                               "on the phone); " + ("CONFIRM starts the next game"
                                                     if game.match_winner is None
                                                     else next_words(game)))
            return self._offer(card)
        if card == self._old_starter and not typed and (card == game.starter
                                                        or phase == "starter"):
            return self._offer(card)  # after a misdeal too: the deal is stored, no starter
        return self._new_starter(card, game)

    def _offer(self, card: Card) -> Outcome:
        """The old starter seen where a new one is due: CONFIRM takes it as cut again."""
        name = card_words(card)
        self._offered = card
        return _notice(f"{name} was the starter of the last deal: if it is cut again, press "
                       "CONFIRM (or lift it and lay it again, or type it on the phone)")

    def _new_starter(self, card: Card, game: Game) -> Outcome:
        name = card_words(card)
        phase = game.phase
        starter = {"type": "starter", "card": str(card)}
        if phase == "starter":
            return Outcome(events=(starter,))
        if phase == "deal":
            return Outcome(events=({"type": "deal"}, starter))
        if phase == "over" and game.match_winner is not None:
            return _flash(f"{name} is not cut yet: {next_words(game)}")
        if phase == "over":
            return self._next_game(game) + Outcome(events=({"type": "deal"}, starter))
        cut = "" if game.starter is None else f" ({card_words(game.starter)})"
        return _flash(f"the starter is already cut{cut}; {name} is not in play")

    @staticmethod
    def _waiting(game: Game) -> str:
        """What the table waits for, in the players' words."""
        if game.phase == "over":
            return next_words(game)
        return f"now {game.next}"

    def _cut_card(self, card: Card, zone: str) -> Outcome:
        name = card_words(card)
        cut = self._cut if self._cut is not None else _Cut(self.players)
        self._cut = cut
        if zone not in self.players:
            return _notice(f"cut in your own area, not {self._place(zone)}")
        if zone not in cut.contenders:
            return _notice(f"{zone} has no need to cut again")
        cut.cards[zone] = card
        self._lying.add(card)
        if set(cut.cards) != set(cut.contenders):
            waiting = [p for p in cut.contenders if p not in cut.cards]
            return _notice(f"{zone} cuts {name}; waiting for {', '.join(waiting)} to cut")
        low = min(c.rank for c in cut.cards.values())
        lowest = tuple(p for p in cut.contenders if cut.cards[p].rank == low)
        if len(lowest) > 1:
            cards = ", ".join(f"{p} {card_words(cut.cards[p])}" for p in lowest)
            self._cut = _Cut(lowest)
            return _say(f"a tie ({cards}): {' and '.join(lowest)} cut again")
        dealer = lowest[0]
        return Outcome(events=({"type": "deal", "dealer": dealer},),
                       feedback=(Feedback("notice", f"{dealer} cuts low with "
                                                    f"{card_words(cut.cards[dealer])}"),))

    def place_of(self, zone: str | None) -> str | None:
        """The player (or area) a camera zone stands for now, as the page names it."""
        return self._seated(zone)

    def _seated(self, zone: str | None) -> str | None:
        """The player (or area) a camera zone stands for now: seat zones follow the seating."""
        if zone is None or zone not in self.seats:
            return zone
        seat = self.seats.index(zone)
        return self.players[seat] if seat < len(self.players) else None

    def _next_game(self, game: Game) -> Outcome:
        """The next game of the match, or a new match once this one is won."""
        if game.match_winner is not None:
            return Outcome(events=(self.new_game_event(),), fresh_match=True)
        return Outcome(events=(self.new_game_event(),))

    def _correction(self, was: Card, card: Card) -> Outcome:
        return Outcome(events=({"type": "correct", "was": str(was), "card": str(card)},))

    # -- settings from the phone page ----------------------------------------------------------

    def _new_match(self, item: NewMatch) -> Outcome:
        try:
            players = player_names(tuple(item.players))
            Rules.from_json(item.rules, players=len(players))
        except ValueError as exc:  # PlayerNameError too
            return _flash(f"new match refused: {exc}")
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
            return _ignored(f"cards spread in {self._place(zone)} are nobody's hand", typed)
        lying = [c for c in cards if c in self._lying]
        if lying:
            return _ignored(f"{card_words(lying[0])} was cut for the deal and still lies in "
                            f"{self._place(zone)}: gather the cut cards", typed)
        what = "the crib" if zone == CRIB else f"{zone}'s hand"
        phase = game.phase
        if phase not in ("play", "show", "crib"):
            if (not typed and phase == "deal" and game.turn is not None
                    and (zone == CRIB or set(cards) == set(game.laid(zone)))):
                return _NOTHING  # the last deal's show, still lying there
            return _ignored(f"{what} is not counted now: {self._waiting(game)}", typed)
        self._spreads[zone] = tuple(cards)
        out = self._due(game, at)
        if out.events or (phase == "play" and not typed):
            return out
        when = "in the show" if phase == "play" else f"in its turn: now {game.next}"
        return out + _notice(f"{what} will be counted {when}")

    def _due(self, game: Game, at: float) -> Outcome:
        """A spread hand (or crib) whose turn to count has come, unless a claim or the muggins
        window holds the table."""
        if self._window_open(at) or (game.rules.muggins and game.awaiting_claim):
            return _NOTHING
        if game.phase == "show":
            player = game.turn
            if player is not None and player in self._spreads:
                cards = self._spreads.pop(player)
                return Outcome(events=({"type": "show", "player": player,
                                        "cards": [str(c) for c in cards]},))
        if game.phase == "crib" and CRIB in self._spreads:
            cards = self._spreads.pop(CRIB)
            return Outcome(events=({"type": "crib", "cards": [str(c) for c in cards]},))
        return _NOTHING

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
                self._cut = _Cut(self.players) if game.phase == "deal" else None
                return _notice("nothing to undo: cut for the deal")
            return Outcome(undo=True)
        if name == "new_game":
            self._cut = None
            return Outcome(events=(self.new_game_event(),), fresh_match=True)
        if name == "misdeal":
            return self._misdeal(game)
        if name == "adjust":
            return self._start_adjusting(action.at, game)
        if name == "correct":
            if self._last_card is None or game.phase in ("new_game", "over"):
                return _flash("no card to correct: the board has read none in this game")
            self._correcting = self._last_card
            return _say(f"correcting the {card_words(self._last_card)}: lay or type the "
                        "card it really is")
        if name == "dial":
            return _notice(f"claim: {action.value}")
        if name == "ask_confirm":
            if action.subject == "new_game":  # hardware.buttons.HELD_CHOICES
                return _say(self._held_menu(game))
            return _say(f"press CONFIRM to start a {action.subject.replace('_', ' ')}")
        if name == "cancelled":
            return _notice(f"{action.subject.replace('_', ' ')} cancelled")
        if name == "go":
            if game.phase != "play":
                return _flash(f"GO is for the play; now {game.next}")
            return Outcome(events=({"type": "go", "player": game.turn},))
        if name == "claim":
            return self._claim(action.value, game)
        if name == "muggins":
            return self._muggins(action.at, game)
        return self._confirm(game)

    def _held_menu(self, game: Game) -> str:
        """The choices after holding UNDO: only those the game allows now."""
        choices = ["CONFIRM to start a new match"]
        if misdeal_allowed(game):
            choices.append("GO for a misdeal")
        if self._last_card is not None and game.phase not in ("new_game", "over"):
            choices.append("MUGGINS to correct the last card read")
        if game.sides and game.phase not in ("new_game", "over"):
            choices.append("UNDO to adjust a score by hand")
        menu = ", ".join(choices[:-1]) + (" or " if len(choices) > 1 else "") + choices[-1]
        open_match = open_match_words(game)
        after = "" if open_match == "no match is open" else f" ({open_match})"
        return f"press {menu}{after}"

    def _misdeal(self, game: Game) -> Outcome:
        """A misdeal after any deal: the deal is stored first where the flow has not stored
        it yet (it stores a deal with its starter), and the next game started first where
        the misdeal is its first deal's."""
        misdeal = {"type": "misdeal"}
        if game.phase == "starter":
            return Outcome(events=(misdeal,))
        if misdeal_allowed(game) and game.phase == "deal":
            return Outcome(events=({"type": "deal"}, misdeal))
        if misdeal_allowed(game):  # over: the next game's first deal
            return self._next_game(game) + Outcome(events=({"type": "deal"}, misdeal))
        return _flash(f"no misdeal now: it is called after a deal and before its starter is "
                      f"cut; now {next_words(game)}")

    # -- a score adjusted by hand --------------------------------------------------------------

    def _adjust(self, player: str, points: int, game: Game, reason: str) -> Outcome:
        if game.phase in ("new_game", "over") or not game.sides:
            return _flash("no game to adjust a score in: "
                          + ("the game is over" if game.phase == "over" else "none started"))
        if player not in game.players:
            return _flash(f"{player} is not playing this game "
                          f"({', '.join(game.players)} are)")
        if points == 0 or abs(points) > MAX_ADJUST:
            return _flash(f"an adjustment is 1 to {MAX_ADJUST} points either way, "
                          f"not {points}")
        return Outcome(events=({"type": "adjust", "player": player, "points": points,
                                "reason": reason},))

    def _start_adjusting(self, at: float, game: Game) -> Outcome:
        if game.phase in ("new_game", "over") or not game.sides:
            return _flash("no game to adjust a score in")
        player = game.turn or game.players[0]
        self._adjusting = _Adjusting(player, 0, at)
        return _say(f"adjusting {player}'s score: GO adds a point, MUGGINS takes one away, "
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
                return _notice("adjusting left: nothing pegged")
            return self._adjust(adjusting.player, points, game, "by hand")
        if name == "undo":
            players = game.players
            adjusting.player = players[(players.index(adjusting.player) + 1) % len(players)]
        elif name == "dial":
            adjusting.points = max(-MAX_ADJUST, min(MAX_ADJUST, action.value))
        else:
            step = 1 if name == "go" else -1
            adjusting.points = max(-MAX_ADJUST, min(MAX_ADJUST, adjusting.points + step))
        sign = "+" if adjusting.points >= 0 else ""
        return _notice(f"adjusting {adjusting.player}: {sign}{adjusting.points} "
                       "(CONFIRM pegs it)")

    def _confirm(self, game: Game) -> Outcome:
        phase = game.phase
        if game.rules.muggins and game.awaiting_claim:
            return _notice(f"{game.awaiting_claim[0]}: dial your count and press CONFIRM "
                           "(dial 0 to claim nothing)")
        if phase == "show" and game.turn is not None:
            cards = game.laid(game.turn)
            return Outcome(events=({"type": "show", "player": game.turn,
                                    "cards": [str(c) for c in cards]},))
        if self._offered is not None and phase in ("deal", "over", "starter"):
            return self._new_starter(self._offered, game)
        if phase == "over":
            return self._next_game(game)
        if phase == "deal" and game.turn is None:
            return _notice("cut for the deal: each player lays one card in their area")
        if phase == "crib":
            return _notice(f"spread the crib face up in the crib area ({game.dealer}'s crib)")
        return _notice(f"waiting for {game.next}")

    def _claim(self, points: int, game: Game) -> Outcome:
        if game.rules.muggins:
            if not game.awaiting_claim:
                return _flash(f"nothing to claim now: waiting for {game.next}")
            return Outcome(events=({"type": "claim", "player": game.awaiting_claim[0],
                                    "points": points},))
        if self.manual:
            player = game.turn or game.dealer
            if player is None or game.phase in ("new_game", "over"):
                return _flash("no game to peg points in")
            return Outcome(events=({"type": "adjust", "player": player, "points": points,
                                    "reason": "manual"},))
        return _flash("claims are for muggins games: this board counts for you")

    def _muggins(self, at: float, game: Game) -> Outcome:
        if not game.rules.muggins:
            return _flash("muggins is not being played")
        if self._window is None or not self._window_open(at):
            self._window = None
            return _flash("muggins is called just after a claim, within "
                          f"{self.muggins_window_s:g} seconds")
        claimant = self._window[0]
        self._window = None
        return Outcome(events=({"type": "muggins", "player": self._caller(claimant, game)},))

    def _caller(self, claimant: str, game: Game) -> str:
        """Who calls muggins on ``claimant``: one button for the table, so the first opponent
        to the claimant's left (the only opponent with two players)."""
        seat = self.players.index(claimant)
        own = game.side_of(claimant).name
        for step in range(1, len(self.players)):
            other = self.players[(seat + step) % len(self.players)]
            if game.side_of(other).name != own:
                return other
        raise AssertionError("a game has at least two sides")

    def _window_open(self, at: float) -> bool:
        return self._window is not None and at <= self._window[1]

    def _tick(self, at: float, game: Game) -> Outcome:
        out = _NOTHING
        if self._adjusting is not None and at - self._adjusting.at > ADJUST_TIMEOUT_S:
            self._adjusting = None
            out += _notice("adjusting left: nothing pegged")
        if self._window is not None and not self._window_open(at):
            self._window = None
            out += _notice("muggins window closed")
        return out + self._due(game, at)

    # -- words -----------------------------------------------------------------------------------

    def _announce(self, event: Mapping[str, Any], pegged: Sequence[Pegged],
                  game: Game) -> Outcome:
        kind = event["type"]
        words = [p for p in pegged if p.words]
        if kind == "show":
            player = event["player"]
            text = "; ".join(p.words for p in words) or ("nineteen" if not game.rules.muggins
                                                         else "counted")
            return _say(f"{player}'s hand: {text}")
        if kind == "crib":
            text = "; ".join(p.words for p in words) or ("nineteen" if not game.rules.muggins
                                                         else "counted")
            return _say(f"{game.dealer}'s crib: {text}")
        if kind == "claim":
            points = sum(p.points for p in pegged)
            return _say(f"{event['player']} pegs {points}")
        if kind == "muggins":
            return _say("muggins! " + "; ".join(f"{p.player} takes {p.points}, {p.words}"
                                                for p in pegged))
        if kind == "adjust":
            return self._adjusted(event, pegged, game)
        if kind == "go" and not pegged:
            return _say(f"{event['player']}: go, no points")
        if kind == "discard":
            return _notice(f"noted for the review: {event['player']} threw "
                           f"{' '.join(event['cards'])} to the crib")
        if kind == "correct":
            return self._corrected(game)
        if kind == "misdeal":
            redeal = f"misdeal: {game.dealer} deals again"
            return _say("; ".join([redeal, *(f"{p.player} pegs {p.points}" for p in pegged)]))
        out = _NOTHING
        by_player: dict[str, list[str]] = {}
        for p in words:
            by_player.setdefault(p.player or p.side, []).append(pegged_words(p, game))
        for player, said in by_player.items():
            out += _say(f"{player}: {', '.join(said)}")
        return out

    @staticmethod
    def _adjusted(event: Mapping[str, Any], pegged: Sequence[Pegged], game: Game) -> Outcome:
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

    def _corrected(self, game: Game) -> Outcome:
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

    def _result_words(self, game: Game) -> str:
        result = game.result
        how = "" if result in (None, "win") else f" with a {result_words(result)}"
        text = f"{game.winner} wins{how}: {scores_words(game.sides)}"
        points = points_words(game.match_points)
        if game.match_winner is not None:
            text += f"; {game.match_winner} wins the match ({points})"
        elif len(game.match) > 1 or game.rules.best_of or game.rules.first_to:
            text += f"; match {points}"
        return text

    @staticmethod
    def _place(zone: str | None) -> str:
        if zone is None:
            return "no area"
        if zone in (STARTER, CRIB):
            return f"the {zone} area"
        return f"{zone}'s area"
