"""Cards as immutable values with the project's text notation (see CONTRACT.md).

Ranks are a real ``IntEnum`` (ace low, A=1 .. K=13) so runs are plain integer
arithmetic; the counting value (court cards count ten) is a separate property,
which keeps rank-for-pairs and value-for-fifteens from being mixed up.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

from engine.errors import CardError

__all__ = ["Rank", "Suit", "Card", "parse_cards", "format_cards", "DECK"]


class Rank(enum.IntEnum):
    """A card's rank; the integer is its place in a run (ace low only)."""

    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13

    @property
    def counting_value(self) -> int:
        """Value for fifteens and the running count: court cards count ten."""
        return min(int(self), 10)

    @property
    def symbol(self) -> str:
        return _RANK_SYMBOLS[self - 1]

    @property
    def word(self) -> str:
        """The rank as players say it ("five", "jack")."""
        return _RANK_WORDS[self - 1]

    @property
    def plural(self) -> str:
        return "sixes" if self is Rank.SIX else self.word + "s"


class Suit(enum.Enum):
    """A card's suit, keyed by its letter."""

    CLUBS = "C"
    DIAMONDS = "D"
    HEARTS = "H"
    SPADES = "S"

    @property
    def letter(self) -> str:
        return str(self.value)

    @property
    def symbol(self) -> str:
        return _SUIT_SYMBOLS[self]


_RANK_SYMBOLS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
_RANK_WORDS = (
    "ace", "two", "three", "four", "five", "six", "seven",
    "eight", "nine", "ten", "jack", "queen", "king",
)
_SUIT_SYMBOLS = {Suit.CLUBS: "♣", Suit.DIAMONDS: "♦", Suit.HEARTS: "♥", Suit.SPADES: "♠"}

_RANK_BY_TOKEN: dict[str, Rank] = {s: Rank(i + 1) for i, s in enumerate(_RANK_SYMBOLS)}
_RANK_BY_TOKEN["T"] = Rank.TEN
_SUIT_BY_TOKEN: dict[str, Suit] = {s.value: s for s in Suit}
_SUIT_BY_TOKEN.update({sym: s for s, sym in _SUIT_SYMBOLS.items()})
# Variation selectors sometimes follow the suit symbols (♥️); they carry no meaning.
_IGNORED = "\ufe0e\ufe0f"


@dataclass(frozen=True, slots=True)
class Card:
    """One playing card. Sorted by rank, then suit letter (C D H S)."""

    rank: Rank
    suit: Suit

    def _key(self) -> tuple[int, str]:
        return (int(self.rank), self.suit.value)

    def __lt__(self, other: Card) -> bool:
        return self._key() < other._key()

    def __le__(self, other: Card) -> bool:
        return self._key() <= other._key()

    def __gt__(self, other: Card) -> bool:
        return self._key() > other._key()

    def __ge__(self, other: Card) -> bool:
        return self._key() >= other._key()

    @staticmethod
    def parse(text: str) -> Card:
        """Parses ``"5h"``, ``"10S"``, ``"TD"`` or ``"Q♥"``; anything else is a ``CardError``.

        >>> Card.parse("th")
        Card.parse('10H')
        """
        card = _PARSED.get(text)
        if card is not None:
            return card
        if not isinstance(text, str):
            raise CardError(f"invalid card: {text!r} is not text")
        token = "".join(ch for ch in text.strip() if ch not in _IGNORED).upper()
        rank = _RANK_BY_TOKEN.get(token[:-1]) if len(token) >= 2 else None
        suit = _SUIT_BY_TOKEN.get(token[-1:]) if token else None
        if rank is None or suit is None:
            raise CardError(
                f"invalid card: {text!r} (expected a rank A 2-10 T J Q K and a suit C D H S)"
            )
        return _CARDS[(rank, suit)]

    @property
    def value(self) -> int:
        """Counting value: ace 1, court cards 10."""
        return self.rank.counting_value

    @property
    def index(self) -> int:
        """A dense 0..51 number (suit-major), for tables and arrays."""
        return _SUIT_ORDER[self.suit] * 13 + self.rank - 1

    @classmethod
    def from_index(cls, index: int) -> Card:
        return DECK[index]

    def __str__(self) -> str:
        return self.rank.symbol + self.suit.letter

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"


_SUIT_ORDER = {suit: i for i, suit in enumerate(Suit)}
_CARDS: dict[tuple[Rank, Suit], Card] = {(r, s): Card(r, s) for s in Suit for r in Rank}
DECK: tuple[Card, ...] = tuple(_CARDS[(r, s)] for s in Suit for r in Rank)
# Canonical spellings parse without going through the tokenizer: the hot path for logs.
_PARSED: dict[str, Card] = {str(c): c for c in DECK}


def parse_cards(text: str | Iterable[str]) -> tuple[Card, ...]:
    """Parses ``"5H 5C 5S JD"`` (spaces or commas) or a list of card tokens."""
    tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return tuple(Card.parse(t) for t in tokens)


def format_cards(cards: Iterable[Card]) -> str:
    return " ".join(str(c) for c in cards)
