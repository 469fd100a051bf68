"""The table flow's memory: what the table has done that the store does not hold.

The store holds the game; the flow (``firmware.table.flow``) must also remember what lies on
the table and what the players are doing with the buttons: who has cut and what, the cut cards
still lying, hands spread before their turn, the old starter, the muggins window, a card being
corrected, a score being adjusted, the runners-up taken for a reading. ``FlowMemory`` keeps it,
with the bookkeeping that goes with it (whose area a camera zone is now, a card taken away,
a new deal); ``TableFlow`` builds on it and decides.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.cards import Card
from firmware.table.names import player_names

__all__ = ["FlowMemory", "Cut", "Adjusting"]


@dataclass(slots=True)
class Cut:
    """The cut for the first deal: who still has to cut, and what they cut."""

    contenders: tuple[str, ...]
    cards: dict[str, Card] = field(default_factory=dict)


@dataclass(slots=True)
class Adjusting:
    """The buttons' hand adjustment under way: whose score, by how much, last pressed when."""

    player: str
    points: int
    at: float


class FlowMemory:
    """The flow's memory and its bookkeeping (the module's docstring); ``TableFlow`` (the
    decisions) is built on it.

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
        self._cut: Cut | None = None
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
        self._adjusting: Adjusting | None = None
        # (player, card read) -> the runner-up the game took for it this deal (``_seen``):
        # the tracker names the reading whenever it sees the card again, in that place only
        # (the card read lies in its own player's area too).
        self._read_as: dict[tuple[str, Card], Card] = {}
        # Cards of a change asked about (``together``): their area seen complete is no spread.
        self._asked: set[Card] = set()
        # Spreads taken from one change (``together``): the tracker's ZoneComplete for the
        # same cards, in the same frame, is no news.
        self._batched: dict[str, tuple[Card, ...]] = {}

    def new_game_event(self) -> dict[str, Any]:
        return {"type": "new_game", "players": list(self.players), "rules": dict(self.rules)}

    def cut_card(self, player: str) -> Card | None:
        """The card ``player`` has cut for the deal and the flow holds (the store keeps only
        the deal it decides). The page may not replace it: the store's revision does not
        change with a cut card, so a second phone that looked before Ann cut would otherwise
        change who deals; UNDO takes the cut back."""
        return self._cut.cards.get(player) if self._cut is not None else None

    def place_of(self, zone: str | None) -> str | None:
        """The player (or area) a camera zone stands for now, as the page names it."""
        return self._seated(zone)

    def _seated(self, zone: str | None) -> str | None:
        """The player (or area) a camera zone stands for now: seat zones follow the seating."""
        if zone is None or zone not in self.seats:
            return zone
        seat = self.seats.index(zone)
        return self.players[seat] if seat < len(self.players) else None

    def _window_open(self, at: float) -> bool:
        return self._window is not None and at <= self._window[1]

    def _removed(self, card: Card, zone: str | None) -> None:
        """``card`` is no longer seen in ``zone`` (the flow's name for it): not lying as a cut
        card, an old starter, a spread's card, nor asked about any more."""
        self._lying.discard(card)
        self._asked.discard(card)
        if card == self._old_starter:
            self._old_starter = None
        if card == self._offered:
            self._offered = None
        if card == self._resumed:
            self._resumed = None
        if zone in self._spreads and card in self._spreads[zone]:
            del self._spreads[zone]
