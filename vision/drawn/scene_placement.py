"""Card placement on a drawn table: the timeline of what a camera would see, step by step
(``vision.drawn.scene``'s scripts).

A ``Script`` is a table's states one after another: the deck and crib laid, the starter
turned, each card laid in a fan in front of its player, counts turned down, hands and the
crib spread for the show. ``_Builder`` keeps the cards on the table while a script is
written; where each card lands comes from the ``TableLayout`` (``vision.drawn.scene_layout``).
"""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from engine.cards import Card
from engine.simulate import DealScript, deal_cards, play_order
from vision.drawn.scene_layout import Point, SceneError, TableLayout
from vision.live.zones import CRIB, STARTER, default_markers

__all__ = ["Placed", "Script", "Step"]


@dataclass(frozen=True, slots=True)
class Placed:
    """One card on the table. ``card`` None is an anonymous deck card (always face down)."""

    card: Card | None
    zone: str
    face_up: bool
    centre: Point
    angle: float
    layer: int


@dataclass(frozen=True, slots=True)
class Step:
    """The table after one thing happened; ``actor`` reached in to lay a card at ``target``."""

    label: str
    cards: tuple[Placed, ...]
    actor: int | None = None
    target: Point | None = None

    def face_up(self) -> dict[Card, Placed]:
        return {p.card: p for p in self.cards if p.face_up and p.card is not None}


@dataclass(frozen=True, slots=True)
class Script:
    """A table's timeline: the states a camera would see one after another."""

    players: tuple[str, ...]
    layout: TableLayout
    steps: tuple[Step, ...]

    @classmethod
    def two_player_deal(cls, seed: int, *, layout: TableLayout | None = None) -> Script:
        """Ann and Bob's deal from a seeded shuffle, Ann dealing: the deal the lab decks and
        the vision benchmarks film, so that one seed names one table everywhere."""
        rng = random.Random(seed)
        return cls.from_deal(deal_cards(rng, 2, 0), ("Ann", "Bob"), rng, layout=layout)

    @classmethod
    def from_deal(cls, deal: DealScript, players: Sequence[str], rng: random.Random, *,
                  layout: TableLayout | None = None, turn_down: bool = True,
                  plays: Sequence[tuple[int, Card]] | None = None) -> Script:
        """The deal as a table sees it: cut, starter, each card laid, counts turned down, shows.

        ``rng`` plays the cards (``engine.simulate.play_order``) and jitters where they land.
        ``plays`` ((seat, card) in the order laid) films a play that already happened, such
        as a simulated game's log, instead; it may stop short when that game ended mid-play.
        """
        players = tuple(players)
        if len(players) != len(deal.hands):
            raise SceneError(f"the deal has {len(deal.hands)} hands but players are "
                             f"{list(players)!r}")
        layout = layout or TableLayout.for_players(len(players))
        b = _Builder(players, layout, rng)
        b.lay_deck()
        for card in deal.crib:
            b.add(card, CRIB, layout.crib, 0.0, face_up=False, jitter=0.02)
        b.commit("cut")
        b.add(deal.starter, STARTER, _offset(layout.starter, (0.02 * layout.card_width,
                                                                -0.03 * layout.card_height)),
              rng.uniform(-4, 4), face_up=True)
        b.commit(f"starter {deal.starter}", actor=deal.dealer, target=layout.starter)
        count = 0
        laid: list[list[Placed]] = [[] for _ in players]
        counting: list[Placed] = []
        if plays is None:
            plays = [(seat, card) for kind, seat, card in play_order(deal, rng)
                     if kind == "play" and card is not None]
        for seat, card in plays:
            if count + card.value > 31:
                count = b.end_count(counting, turn_down)
            placed = b.lay_fan(card, seat, len(laid[seat]))
            laid[seat].append(placed)
            counting.append(placed)
            count += card.value
            b.commit(f"{players[seat]} plays {card} ({count})", actor=seat, target=placed.centre)
            if count == 31:
                count = b.end_count(counting, turn_down)
        b.remove(lambda p: p.zone in players)
        b.commit("gather")
        n = len(players)
        for i in range(n):
            seat = (deal.dealer + 1 + i) % n
            hand = list(deal.hands[seat])
            rng.shuffle(hand)
            b.lay_spread(hand, players[seat], *layout.anchor(players[seat], players))
            b.commit(f"show {players[seat]}: {' '.join(map(str, hand))}", actor=seat,
                     target=layout.seats[seat].anchor)
        b.remove(lambda p: p.zone == CRIB)
        b.lay_spread(list(deal.crib), CRIB, layout.crib, 0.0)
        b.commit(f"crib: {' '.join(map(str, deal.crib))}", actor=deal.dealer, target=layout.crib)
        return cls(players, layout, tuple(b.steps))

    @classmethod
    def cut_for_deal(cls, cards: Mapping[str, Card], players: Sequence[str], rng: random.Random,
                     *, layout: TableLayout | None = None) -> Script:
        """A new match's cut for the deal: each player in turn lays the card they cut face up
        in their own area (as ``firmware.table.flow`` asks), then the cut cards are gathered."""
        players = tuple(players)
        if set(cards) != set(players):
            raise SceneError(f"a cut needs one card per player {list(players)!r}, "
                             f"not {sorted(cards)!r}")
        layout = layout or TableLayout.for_players(len(players))
        b = _Builder(players, layout, rng)
        b.lay_deck()
        for seat, name in enumerate(players):
            centre, angle = layout.anchor(name, players)
            placed = b.add(cards[name], name, centre, angle + rng.gauss(0, 4), face_up=True,
                           jitter=0.03)
            b.commit(f"{name} cuts {cards[name]}", actor=seat, target=placed.centre)
        b.remove(lambda p: p.zone in players)
        b.commit("cut cards gathered")
        return cls(players, layout, tuple(b.steps))

    @classmethod
    def join(cls, parts: Sequence[Script]) -> Script:
        """One timeline from several at the same table (a cut, then deal after deal)."""
        if not parts:
            raise SceneError("nothing to join: no scripts")
        first = parts[0]
        for part in parts[1:]:
            if part.players != first.players or part.layout != first.layout:
                raise SceneError(f"scripts at different tables cannot be joined: "
                                 f"{list(first.players)!r} and {list(part.players)!r}")
        return cls(first.players, first.layout, tuple(s for part in parts for s in part.steps))

    def relaid(self, step: Step, cards: Collection[Card], rng: random.Random) -> Step:
        """``step`` with ``cards`` picked up and laid again, square to their area and on top:
        what a player does when the board cannot read a card. The card lands about where it
        was, so the tracker follows it as the same card."""
        ch = self.layout.card_height
        top = max((p.layer for p in step.cards), default=0)
        moved: list[Placed] = []
        out = []
        for p in step.cards:
            if p.card in cards and p.face_up:
                _, angle = self.layout.anchor(p.zone, self.players)
                top += 1
                p = replace(p, centre=(p.centre[0] + rng.gauss(0, 0.015 * ch),
                                       p.centre[1] + rng.gauss(0, 0.015 * ch)),
                            angle=angle + rng.gauss(0, 1.0), layer=top)
                moved.append(p)
            out.append(p)
        if not moved:
            return step
        zone = moved[0].zone
        actor = self.players.index(zone) if zone in self.players else step.actor
        names = " ".join(str(p.card) for p in moved)
        return Step(f"{step.label} (re-laid {names})", tuple(sorted(out, key=lambda p: p.layer)),
                    actor, moved[0].centre)

    @classmethod
    def calibration(cls, players: Sequence[str], rng: random.Random, *,
                    markers: Mapping[str, Card] | None = None,
                    layout: TableLayout | None = None) -> Script:
        """One still table: a marker card in each area, as ``cribbage-board calibrate`` asks."""
        players = tuple(players)
        layout = layout or TableLayout.for_players(len(players))
        markers = dict(markers) if markers is not None else default_markers(players)
        b = _Builder(players, layout, rng)
        for zone, card in markers.items():
            centre, angle = layout.anchor(zone, players)
            b.add(card, zone, centre, angle + rng.uniform(-6, 6), face_up=True, jitter=0.05)
        b.commit("calibration")
        return cls(players, layout, tuple(b.steps))

    def zone_names(self) -> tuple[str, ...]:
        return (*self.players, STARTER, CRIB)


def _offset(p: Point, d: Point) -> Point:
    return (p[0] + d[0], p[1] + d[1])


@dataclass
class _Builder:
    """Keeps the table's current cards while a script is written step by step."""

    players: tuple[str, ...]
    layout: TableLayout
    rng: random.Random
    cards: list[Placed] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    layer: int = 0

    def add(self, card: Card | None, zone: str, centre: Point, angle: float, *, face_up: bool,
            jitter: float = 0.0) -> Placed:
        ch = self.layout.card_height
        centre = (centre[0] + self.rng.gauss(0, jitter * ch),
                  centre[1] + self.rng.gauss(0, jitter * ch))
        self.layer += 1
        placed = Placed(card, zone, face_up, centre, angle, self.layer)
        self.cards.append(placed)
        return placed

    def lay_deck(self) -> None:
        for k in range(3):
            offset = (-0.012 * k * self.layout.card_height, -0.012 * k * self.layout.card_height)
            self.add(None, STARTER, _offset(self.layout.starter, offset),
                     self.rng.uniform(-3, 3), face_up=False)

    def lay_fan(self, card: Card, seat: int, k: int) -> Placed:
        anchor = self.layout.seats[seat].anchor
        angle = self.layout.seats[seat].angle
        ax, ay = self.layout.seats[seat].along
        step = 0.4 * self.layout.card_width
        d = (k - 1.5) * step
        return self.add(card, self.players[seat], (anchor[0] + d * ax, anchor[1] + d * ay),
                        angle + self.rng.gauss(0, 4), face_up=True, jitter=0.02)

    def lay_spread(self, cards: Sequence[Card], zone: str, anchor: Point, angle: float) -> None:
        a = math.radians(angle)
        ax, ay = math.cos(a), math.sin(a)
        gap = self.rng.uniform(0.78, 1.08) * self.layout.card_width
        for k, card in enumerate(cards):
            d = (k - (len(cards) - 1) / 2) * gap
            self.add(card, zone, (anchor[0] + d * ax, anchor[1] + d * ay),
                     angle + self.rng.gauss(0, 3), face_up=True, jitter=0.015)

    def end_count(self, counting: list[Placed], turn_down: bool) -> int:
        if turn_down and counting:
            down = {id(p) for p in counting}
            self.cards = [replace(p, face_up=False) if id(p) in down else p for p in self.cards]
            self.commit("count ends: cards turned down")
        counting.clear()
        return 0

    def remove(self, which: Any) -> None:
        self.cards = [p for p in self.cards if not which(p)]

    def commit(self, label: str, *, actor: int | None = None, target: Point | None = None
               ) -> None:
        cards = tuple(sorted(self.cards, key=lambda p: p.layer))
        self.steps.append(Step(label, cards, actor, target))
