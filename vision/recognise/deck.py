"""Deck teaching: the players show their own deck once, and recognition reads it better.

The corner-index network was trained on a handful of decks; a table's own deck
may print its indices in a font it never saw, or with letters it does not know
(French courts: V, D, R for jack, queen, king). ``teach`` takes photos of the
deck laid out face up, cards apart (for example one photo per suit, ace to king
in reading order), finds each card whole (``vision.recognise.whole_cards``), names it
from the list the players gave, and keeps each card's two corner-index patches,
cut exactly as the recogniser cuts them, with the network's embedding of each
(its 128-unit hidden layer). That is a ``DeckProfile``, saved as a small
versioned ``.npz``.

At play time ``DeckProfile.adjust`` compares every index patch's embedding with
the taught ones (cosine similarity). A patch that looks much more like one
taught card than like any other is pulled towards that card: the network's
reading is mixed with the taught card in proportion to how close it is. That
names a deck's unusual glyphs. A patch close to a taught card that the network
confidently reads as a *different* card is pulled at most halfway, and only as
far as it is close: a very close one leaves the patch unknown, because a wrong
card costs more than a missing one; a barely similar one (another deck's Q near
a taught French R) leaves the network's sure reading standing. A patch whose
rank the network already reads surely, and as the taught card's, keeps the
network's scores too: only its suit could change, and a small club and spade
look too alike for a taught index to tell them apart. Patches far from every
taught index (pips, table, hands, another deck's odd glyphs) keep the network's
scores exactly. Without a profile nothing here runs.

Teaching refuses rather than guesses: a photo that cannot be read, a wrong
number of cards in it, a card the network confidently reads as a different
card than the list says, a card without a readable corner, or a card given
twice are ``DeckError`` s naming the photo and the card, and nothing is kept.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from engine.cards import Card, Rank, Suit, parse_cards
from engine.errors import CardError
from vision.recognise.candidates import IndexCandidates, find_candidates
from vision.recognise.classifier import (
    MODEL_PATH,
    NOT_INDEX_RANK,
    NOT_INDEX_SUIT,
    RANKS,
    SUITS,
    PatchScores,
    embed,
)
from vision.recognise.detection import points_in_quad
from vision.recognise.whole_cards import CardQuad, corner_patches, find_card_quads

__all__ = [
    "DeckError", "DeckProfile", "TeachPhoto", "teach", "load_profile", "suit_cards",
    "photo_cards", "FORMAT_VERSION",
]

FORMAT_VERSION = 1
# Cosine similarity of embeddings to the nearest taught index from which it starts to count,
# and from which it alone names the card; how much nearer than any other taught card it must
# be; and how alike the two patches' pixels must look (16x16 grey, zero mean). Measured on
# drawn deals of four decks, each read with its own and the others' profiles: the same
# card's index lies at 0.94-0.99 (5th percentile to median) from its own deck's taught patch,
# another card's index at most ~0.94 in embeddings (a French "R" near another deck's "D": the
# embedding follows what the network believes) but then below 0.57 in pixels; with both
# tests no wrong card passed and 85-100 % of the right ones did.
SIMILAR = 0.9
SAME = 0.97
MARGIN = 0.04
PIXELS_ALIKE = 0.6
# A network reading at least this sure that disagrees with a close taught card is a conflict,
# in which the taught card pulls at most this far (and no further than its closeness says).
NETWORK_SURE = 0.7
CONFLICT_PULL = 0.5
# Teaching: a card the network reads as another card at least this sure is a wrong layout.
WRONG_CARD = 0.7
# Teaching: a quad of a layout photo is a card only within this factor of the median area.
SAME_SIZE = 0.7
# Teaching: the expected card must reach this probability in a patch for the network to pick
# that corner's index; below it (glyphs it cannot read) the likeliest index is taken.
PICK_EXPECTED = 0.05


class DeckError(ValueError):
    """A teaching photo or a profile file that cannot be used; the message names which."""


@dataclass(frozen=True, slots=True)
class TeachPhoto:
    """One teaching photo: its name (for messages), pixels (None: unreadable) and its cards
    in reading order (rows left to right, top to bottom)."""

    name: str
    image: np.ndarray | None
    cards: tuple[Card, ...]


def suit_cards(suit: str | Suit) -> tuple[Card, ...]:
    """Ace to king of one suit: the cards of a one-suit teaching photo.

    >>> " ".join(map(str, suit_cards("h")))[:11]
    'AH 2H 3H 4H'
    """
    if isinstance(suit, str):
        try:
            suit = Card.parse(f"A{suit}").suit
        except CardError:
            raise DeckError(f"unknown suit {suit!r}: one of C D H S") from None
    return tuple(Card(rank, suit) for rank in Rank)


def _unit_rows(x: np.ndarray) -> np.ndarray:
    norm = np.linalg.norm(x, axis=1, keepdims=True)
    unit: np.ndarray = (x / np.maximum(norm, 1e-6)).astype(np.float32)
    return unit


def _pixels(patches: np.ndarray) -> np.ndarray:
    """Each patch as 16x16 grey, zero mean, unit length: what its glyphs look like."""
    n, h, w, _ = patches.shape
    grey = patches.astype(np.float32).mean(axis=3).reshape(n, h // 2, 2, w // 2, 2)
    flat = grey.mean(axis=(2, 4)).reshape(n, -1)
    return _unit_rows(flat - flat.mean(axis=1, keepdims=True))


def _frozen(x: np.ndarray) -> np.ndarray:
    x = np.ascontiguousarray(x)
    x.setflags(write=False)
    return x


@lru_cache(maxsize=4)
def _model_digest(model_path: str) -> str:
    return hashlib.sha256(Path(model_path).read_bytes()).hexdigest()


@dataclass(frozen=True, slots=True)
class DeckProfile:
    """Taught index patches of one deck: ``cards[i]`` is what ``patches[i]`` shows.

    ``embeddings`` are the network's, unit length, for the model ``model_sha256``;
    ``load_profile`` recomputes them from the patches when the model has changed.
    """

    cards: tuple[Card, ...]
    patches: np.ndarray  # (n, 32, 32, 3) uint8
    embeddings: np.ndarray  # (n, hidden) float32, unit rows
    model_sha256: str
    _card_of: np.ndarray = field(init=False, repr=False, compare=False)
    _rank_of: np.ndarray = field(init=False, repr=False, compare=False)
    _suit_of: np.ndarray = field(init=False, repr=False, compare=False)
    _pixels: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        n = len(self.cards)
        if self.patches.shape[0] != n or self.embeddings.shape[0] != n or n == 0:
            raise DeckError(f"a deck profile needs one patch and embedding per card, got "
                            f"{n} cards, {self.patches.shape[0]} patches, "
                            f"{self.embeddings.shape[0]} embeddings")
        object.__setattr__(self, "patches", _frozen(self.patches))
        object.__setattr__(self, "embeddings", _frozen(_unit_rows(self.embeddings)))
        # Per prototype: which distinct card it shows, and that card's rank and suit columns.
        distinct = sorted(set(self.cards), key=lambda c: (int(c.rank), c.suit.letter))
        which = {c: k for k, c in enumerate(distinct)}
        object.__setattr__(self, "_card_of", _frozen(np.array([which[c] for c in self.cards])))
        object.__setattr__(self, "_rank_of", _frozen(
            np.array([RANKS.index(c.rank) for c in self.cards])))
        object.__setattr__(self, "_suit_of", _frozen(
            np.array([SUITS.index(c.suit) for c in self.cards])))
        object.__setattr__(self, "_pixels", _frozen(_pixels(self.patches)))

    @property
    def taught(self) -> frozenset[Card]:
        """The cards this profile knows."""
        return frozenset(self.cards)

    def adjust(self, patches: np.ndarray, scores: PatchScores, embeddings: np.ndarray
               ) -> PatchScores:
        """The network's scores of a batch, corrected by the taught indices they resemble."""
        n = scores.rank.shape[0]
        if n == 0:
            return scores
        sim = _unit_rows(np.asarray(embeddings, np.float32)) @ self.embeddings.T
        nearest = sim.argmax(axis=1)
        best = sim[np.arange(n), nearest]
        same_card = self._card_of[None, :] == self._card_of[nearest][:, None]
        other = np.where(same_card, -1.0, sim).max(axis=1)
        weight = np.clip((best - SIMILAR) / (SAME - SIMILAR), 0.0, 1.0)
        weight[best - other < MARGIN] = 0.0
        # A rank the network reads surely and the taught card agrees with leaves the profile
        # only the suit to add, and a suit symbol is too small a part of an index for likeness
        # to tell: a small-index deck's 10C patch is as alike to a taught 10S as to its own
        # taught 10C (0.01 apart in pixels, the embedding following the network's unsure suit).
        # Of 85 pulls towards a card not face up (ten drawn decks, each read with its own and
        # two other decks' profiles), 84 were this case; the network's own reading stands.
        r_net = scores.rank.argmax(axis=1)
        sure_rank = scores.rank[np.arange(n), r_net] >= NETWORK_SURE
        weight[sure_rank & (r_net == self._rank_of[nearest])] = 0.0
        close = np.nonzero(weight)[0]
        if close.size == 0:
            return scores
        # The embedding says what the network believes; the pixels say it is the same glyph.
        # Alike to any of that card's taught patches: its two corners, each cut both ways.
        its_own = self._card_of[None, :] == self._card_of[nearest[close]][:, None]
        alike = np.where(its_own, _pixels(patches[close]) @ self._pixels.T, -1.0).max(axis=1)
        weight[close[alike < PIXELS_ALIKE]] = 0.0
        if not weight.any():
            return scores
        taught_rank, taught_suit = self._rank_of[nearest], self._suit_of[nearest]
        s_net = scores.suit.argmax(axis=1)
        p_net = scores.rank[np.arange(n), r_net] * scores.suit[np.arange(n), s_net]
        # A sure reading of the taught rank was left alone above, so a sure reading still
        # pulled here names another rank.
        conflict = ((p_net >= NETWORK_SURE) & (r_net != NOT_INDEX_RANK)
                    & (s_net != NOT_INDEX_SUIT) & (r_net != taught_rank))
        # A conflict pulls at most halfway, and no further than the taught index is close: a
        # barely similar index (another deck's Q near a taught French R) must not outweigh a
        # sure reading, and a very close one leaves neither sure enough to be reported alone.
        weight = np.where(conflict, np.minimum(weight, CONFLICT_PULL), weight)
        weight = weight[:, None].astype(np.float32)
        rank = (1.0 - weight) * scores.rank
        suit = (1.0 - weight) * scores.suit
        rows = np.arange(n)
        rank[rows, taught_rank] += weight[:, 0]
        suit[rows, taught_suit] += weight[:, 0]
        return PatchScores(rank.astype(np.float32), suit.astype(np.float32))

    def to_bytes(self) -> bytes:
        """The profile as ``.npz`` bytes: the caller writes them (the device program replaces
        the file whole, so a power cut keeps the old profile or the new one)."""
        out = io.BytesIO()
        np.savez_compressed(
            out, format_version=np.array(FORMAT_VERSION),
            cards=np.array([str(c) for c in self.cards]), patches=self.patches,
            embeddings=self.embeddings, model_sha256=np.array(self.model_sha256))
        return out.getvalue()

    def summary(self) -> dict[str, Any]:
        """What the profile holds, for ``vision teach --json``."""
        taught = sorted(self.taught, key=lambda c: (c.suit.letter, int(c.rank)))
        return {"format_version": FORMAT_VERSION, "cards": [str(c) for c in taught],
                "cards_taught": len(taught), "patches": len(self.cards)}


def load_profile(path: str | Path, *, model_path: str = str(MODEL_PATH)) -> DeckProfile:
    """Reads a profile written from ``DeckProfile.to_bytes``; anything else is a ``DeckError``.

    Embeddings of another model (the network was retrained since) are recomputed from the
    stored patches, so a profile outlives the weights it was taught with.
    """
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as z:
            data = {k: z[k] for k in z.files}
    except FileNotFoundError:
        raise DeckError(f"deck profile not found: {str(path)!r}") from None
    except (OSError, ValueError, EOFError) as exc:
        raise DeckError(f"deck profile {str(path)!r} is not a deck profile file: {exc}") from None
    missing = {"format_version", "cards", "patches", "embeddings", "model_sha256"} - set(data)
    if missing:
        raise DeckError(f"deck profile {str(path)!r} lacks {sorted(missing)}")
    version = int(data["format_version"])
    if version != FORMAT_VERSION:
        raise DeckError(f"deck profile {str(path)!r} has format version {version}; this "
                        f"program reads version {FORMAT_VERSION}: teach the deck again")
    try:
        cards = parse_cards([str(c) for c in data["cards"]])
    except CardError as exc:
        raise DeckError(f"deck profile {str(path)!r}: {exc}") from None
    patches = data["patches"]
    if patches.dtype != np.uint8 or patches.ndim != 4 or patches.shape[1:] != (32, 32, 3):
        raise DeckError(f"deck profile {str(path)!r}: patches must be (n, 32, 32, 3) uint8, "
                        f"got {patches.shape} {patches.dtype}")
    embeddings = data["embeddings"].astype(np.float32)
    digest = str(data["model_sha256"])
    if digest != _model_digest(model_path):
        _, embeddings = embed(patches, model_path=model_path)
        digest = _model_digest(model_path)
    try:
        return DeckProfile(cards, patches, embeddings, digest)
    except DeckError as exc:
        raise DeckError(f"deck profile {str(path)!r}: {exc}") from None


def _reading_order(quads: Sequence[CardQuad]) -> list[int]:
    """Positions in ``quads``, rows top to bottom, each left to right: a new row starts half a
    card below the last."""
    centres = np.array([q.corners.mean(axis=0) for q in quads])
    height = float(np.median([max(np.hypot(*(q.corners[1] - q.corners[0])),
                                  np.hypot(*(q.corners[2] - q.corners[1]))) for q in quads]))
    rows: list[list[int]] = []
    for i in np.argsort(centres[:, 1]).tolist():
        if rows and centres[i, 1] - np.mean(centres[rows[-1], 1]) < 0.5 * height:
            rows[-1].append(i)
        else:
            rows.append([i])
    return [i for row in rows for i in sorted(row, key=lambda k: centres[k, 0])]


def _loose_indices(cand: IndexCandidates, quad: CardQuad) -> tuple[np.ndarray, np.ndarray]:
    """Candidates (``vision.recognise.candidates``, cut as the partly-covered path cuts them) that
    read upright at one end of the card: their indices into ``cand`` and which end (0 or 1)."""
    corners = quad.corners.astype(np.float64)
    inside = points_in_quad(cand.rank_xy, corners) & points_in_quad(cand.suit_xy, corners)
    along = 0.5 * (corners[2] + corners[3]) - 0.5 * (corners[0] + corners[1])
    length = float(np.hypot(*along))
    unit = along / max(length, 1e-6)
    pos = (0.5 * (cand.rank_xy + cand.suit_xy) - corners.mean(axis=0)) @ unit
    heading = cand.down @ unit
    # Near an end, and reading towards the card's middle from there.
    at_end = (np.abs(pos) > 0.25 * length) & (np.abs(heading) > 0.85) & (heading * pos < 0)
    chosen = np.nonzero(inside & at_end)[0]
    return chosen, (pos[chosen] > 0).astype(np.int64)


def _laid_in_view(quads: Sequence[CardQuad], shape: tuple[int, ...]) -> list[bool]:
    """Which quads can be cards of a layout photo: inside the photo, and within ``SAME_SIZE``
    of the median area of those. The cards lie in view and are all one size; a quad at the
    photo's edge, or much smaller or larger than most, is table that cards and the seams of
    the table enclose, whatever index lies at its edge."""
    h, w = shape[:2]
    inside = [bool((q.corners.min(axis=0) >= 1).all()
                   and (q.corners.max(axis=0) <= (w - 2, h - 2)).all()) for q in quads]
    areas = np.array([abs(cv2.contourArea(q.corners)) for q in quads])
    if not any(inside):
        return inside
    ratio = areas / float(np.median(areas[inside]))
    return [k and SAME_SIZE <= r <= 1 / SAME_SIZE for k, r in zip(inside, ratio, strict=True)]


@dataclass(frozen=True, slots=True)
class _LaidCard:
    """One place of a layout photo: the index patches cut there and what the network reads."""

    cut: np.ndarray
    groups: np.ndarray  # per patch: which corner, read whole (0, 1) or loose (2, 3)
    scores: PatchScores
    read: list[Card | None]
    conf: np.ndarray
    is_index: np.ndarray

    @property
    def is_sure(self) -> np.ndarray:
        """Per patch: an index read as its card at least ``WRONG_CARD`` sure."""
        return (self.is_index >= 0.5) & (self.conf >= WRONG_CARD)

    def sure(self) -> set[Card]:
        """The cards this place reads as, surely."""
        return {card for card, sure in zip(self.read, self.is_sure.tolist(), strict=True)
                if sure and card is not None}


def _read_layout(photo: TeachPhoto, model_path: str) -> list[_LaidCard]:
    """The photo's cards in reading order, each with its patches read."""
    if photo.image is None:
        raise DeckError(f"{photo.name}: cannot read the image")
    cand = find_candidates(photo.image)
    # Both ways the recogniser cuts an index: from the card read whole, and from the frame.
    # A quad with neither is no card: table seen between two cards lying close.
    shown = []
    for quad in find_card_quads(photo.image):
        whole, ids, _ = corner_patches(photo.image, quad)
        loose, ends = _loose_indices(cand, quad)
        if len(whole) + len(loose):
            shown.append((quad, np.concatenate([whole, cand.patches[loose]]),
                          np.concatenate([ids, 2 + ends])))
    keep = _laid_in_view([quad for quad, _, _ in shown], photo.image.shape[:2])
    shown = [s for s, k in zip(shown, keep, strict=True) if k]
    if len(shown) != len(photo.cards):
        raise DeckError(f"{photo.name}: found {len(shown)} cards lying apart, expected "
                        f"{len(photo.cards)} ({' '.join(map(str, photo.cards))}); lay them "
                        f"face up, not touching, on a plain table, each corner index in view")
    laid = []
    for k in _reading_order([quad for quad, _, _ in shown]):
        _, cut, groups = shown[k]
        scores, _ = embed(cut, model_path=model_path)
        read, conf, is_index = scores.best()
        laid.append(_LaidCard(cut, groups, scores, read, conf, is_index))
    return laid


def _taught_patches(photo: TeachPhoto, laid: list[_LaidCard], sure_in_place: set[Card],
                    *, as_laid: bool) -> tuple[list[Card], list[np.ndarray]]:
    """Per card of the photo and corner: the patch likeliest to be that card's index.

    ``sure_in_place`` holds the cards, of every photo, read surely in their own places.
    """
    cards: list[Card] = []
    patches: list[np.ndarray] = []
    for number, (expected, place) in enumerate(zip(photo.cards, laid, strict=True), start=1):
        p_expected = (place.scores.rank[:, RANKS.index(expected.rank)]
                      * place.scores.suit[:, SUITS.index(expected.suit)])
        for group in np.unique(place.groups).tolist():
            sel = np.nonzero(place.groups == group)[0]
            sure = sel[place.is_sure[sel]]
            # A sure reading of another card is a wrong layout, unless that card reads surely
            # in its own place too (in this photo or another): then this deck prints this card
            # like that one (a French "D" for the queen read as a 10), which is what teaching
            # is for. A swapped pair cannot read right in its own places.
            wrong = [i for i in sure.tolist() if place.read[i] != expected
                     and place.read[i] not in sure_in_place]
            if wrong and p_expected[sel].max() < WRONG_CARD and not as_laid:
                raise DeckError(
                    f"{photo.name}: card {number} (expected {expected}) reads as "
                    f"{place.read[wrong[0]]} ({place.conf[wrong[0]]:.2f}): is the order right? "
                    f"If it is, this deck prints it so: teach again taking the cards as laid "
                    f"(--as-laid)")
            key = p_expected if p_expected[sel].max() >= PICK_EXPECTED else place.is_index
            patches.append(place.cut[sel[int(np.argmax(key[sel]))]])
            cards.append(expected)
    return cards, patches


def teach(photos: Sequence[TeachPhoto], *, model_path: str = str(MODEL_PATH),
          as_laid: bool = False,
          progress: Callable[[int, int, str], None] | None = None) -> DeckProfile:
    """Builds a deck's profile from layout photos; any doubt is a ``DeckError``, nothing kept.

    ``as_laid`` takes the player's word for the layout: a card read surely as another is
    then taught as the card laid there, not refused as a wrong order. Only the player can
    tell a deck that prints a 6 like a 9 from a 6 and a 9 laid in each other's places.
    ``progress(done, total, what)`` hears of each photo read, then of the embedding.
    """
    if not photos:
        raise DeckError("no teaching photos given")
    seen: dict[Card, str] = {}
    for photo in photos:
        for card in photo.cards:
            if card in seen:
                raise DeckError(f"{card} is given twice: in {seen[card]} and {photo.name}")
            seen[card] = photo.name
    steps = len(photos) + 1
    layouts = []
    for done, photo in enumerate(photos, start=1):
        layouts.append(_read_layout(photo, model_path))
        if progress is not None:
            progress(done, steps, f"read {photo.name}")
    sure_in_place = {card for photo, laid in zip(photos, layouts, strict=True)
                     for card, place in zip(photo.cards, laid, strict=True)
                     if card in place.sure()}
    cards: list[Card] = []
    patches: list[np.ndarray] = []
    for photo, laid in zip(photos, layouts, strict=True):
        c, p = _taught_patches(photo, laid, sure_in_place, as_laid=as_laid)
        cards += c
        patches += p
    stack = np.stack(patches)
    _, embeddings = embed(stack, model_path=model_path)
    if progress is not None:
        progress(steps, steps, f"{len(patches)} index patches learnt")
    return DeckProfile(tuple(cards), stack, embeddings, _model_digest(model_path))


def photo_cards(*, cards: str | None, suit: str | None) -> tuple[Card, ...]:
    """A photo's cards from ``--cards "AS 2S ..."`` or ``--suit S`` (exactly one of them)."""
    if (cards is None) == (suit is None):
        raise DeckError("give each photo either its cards or its suit")
    if suit is not None:
        return suit_cards(suit)
    try:
        parsed = parse_cards(cards or "")
    except CardError as exc:
        raise DeckError(str(exc)) from None
    if not parsed:
        raise DeckError("empty card list")
    return parsed
