"""Playing cards: ranks, suits, the 52 cards, and a forgiving parser for what players type.

Every card has a small integer ``code`` (``rank.index * 4 + suit.position``, 0..51), which is
what the hand evaluator works on; the 52 ``Card`` objects are created once and shared, so
``Card(Rank.ACE, Suit.SPADES) is card("As")``.
"""

from __future__ import annotations

import enum
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from rulings.errors import InvalidCardsError

log = logging.getLogger(__name__)

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "shdc"

_RANK_WORDS = (
    ("Two", "Twos"),
    ("Three", "Threes"),
    ("Four", "Fours"),
    ("Five", "Fives"),
    ("Six", "Sixes"),
    ("Seven", "Sevens"),
    ("Eight", "Eights"),
    ("Nine", "Nines"),
    ("Ten", "Tens"),
    ("Jack", "Jacks"),
    ("Queen", "Queens"),
    ("King", "Kings"),
    ("Ace", "Aces"),
)


class Rank(enum.IntEnum):
    """A card rank; the value is the pip value (Ace high = 14) so ranks order naturally."""

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
    ACE = 14

    @property
    def index(self) -> int:
        """0 for a Two up to 12 for an Ace."""
        return self.value - 2

    @property
    def char(self) -> str:
        """The one-letter form: ``2``-``9``, ``T``, ``J``, ``Q``, ``K``, ``A``."""
        return RANK_CHARS[self.value - 2]

    @property
    def word(self) -> str:
        """The singular English name ("Queen")."""
        return _RANK_WORDS[self.value - 2][0]

    @property
    def plural(self) -> str:
        """The plural English name ("Sixes")."""
        return _RANK_WORDS[self.value - 2][1]


class Suit(enum.StrEnum):
    """A suit; all suits have the same value (rule 6.A)."""

    SPADES = "s"
    HEARTS = "h"
    DIAMONDS = "d"
    CLUBS = "c"

    @property
    def position(self) -> int:
        """0 for spades, 1 hearts, 2 diamonds, 3 clubs."""
        return SUIT_CHARS.index(self.value)

    @property
    def symbol(self) -> str:
        """The card symbol (♠ ♥ ♦ ♣)."""
        return "♠♥♦♣"[self.position]


_CARDS: dict[tuple[Rank, Suit], Card] = {}


@dataclass(frozen=True, slots=True, repr=False)
class Card:
    """One of the 52 cards.

    ``Card(rank, suit)`` returns the shared instance, so cards compare and hash as values.
    ``str(card)`` is the short form (``"As"``, ``"Td"``).

    Attributes:
        rank: the rank.
        suit: the suit.
        code: ``rank.index * 4 + suit.position``, 0 (2s) to 51 (Ac); what the evaluator uses.
    """

    rank: Rank
    suit: Suit
    code: int = field(init=False, compare=False, repr=False)

    def __new__(cls, rank: Rank, suit: Suit) -> Card:  # noqa: D102
        found = _CARDS.get((rank, suit))
        if found is not None:
            return found
        return object.__new__(cls)

    def __post_init__(self) -> None:
        object.__setattr__(self, "code", Rank(self.rank).index * 4 + Suit(self.suit).position)

    def __str__(self) -> str:
        return self.rank.char + self.suit.value

    def __repr__(self) -> str:
        return f"card({str(self)!r})"

    def __index__(self) -> int:
        return self.code

    def __reduce__(self) -> tuple[type[Card], tuple[Rank, Suit]]:
        return (Card, (self.rank, self.suit))  # unpickles to the shared instance

    @property
    def pretty(self) -> str:
        """The card with its suit symbol (``"A♠"``, ``"10♥"`` is written ``"T♥"``)."""
        return self.rank.char + self.suit.symbol


for _rank in Rank:
    for _suit in Suit:
        _CARDS[(_rank, _suit)] = Card(_rank, _suit)

#: All 52 cards, indexed by code.
DECK: tuple[Card, ...] = tuple(sorted(_CARDS.values(), key=lambda c: c.code))

_SUIT_ALIASES = {
    "s": Suit.SPADES,
    "h": Suit.HEARTS,
    "d": Suit.DIAMONDS,
    "c": Suit.CLUBS,
    "♠": Suit.SPADES,
    "♤": Suit.SPADES,
    "♥": Suit.HEARTS,
    "♡": Suit.HEARTS,
    "♦": Suit.DIAMONDS,
    "♢": Suit.DIAMONDS,
    "♣": Suit.CLUBS,
    "♧": Suit.CLUBS,
}
_RANK_ALIASES = {c.lower(): Rank(i + 2) for i, c in enumerate(RANK_CHARS)} | {"10": Rank.TEN}
_CARD_RE = re.compile(r"(10|[2-9tjqka])([shdc♠♤♥♡♦♢♣♧])", re.IGNORECASE)
_SEPARATORS = re.compile(r"[\s,;/+]+")
# Emoji presentation selectors typed after suit symbols (e.g. "♠️") carry no meaning.
_IGNORED = dict.fromkeys(map(ord, "\ufe0f\ufe0e"))
EXPECTED = "use rank 2-9/T/J/Q/K/A and suit s/h/d/c"


def card(text: str) -> Card:
    """Return the one card written in ``text``.

    Args:
        text: one card, e.g. ``"As"``, ``"10h"``, ``"K♦"``.

    Returns:
        The card.

    Raises:
        InvalidCardsError: ``text`` is not exactly one card.

    >>> card("th")
    card('Th')
    """
    cards = parse_cards(text)
    if len(cards) != 1:
        raise InvalidCardsError(f'"{text.strip()}" is not one card: {EXPECTED}')
    return cards[0]


def parse_cards(text: str, *, max_cards: int | None = 7) -> tuple[Card, ...]:
    """Read cards the way players type them.

    Accepts ``As Ks``, ``as ks``, ``AS,KS``, ``AsKs``, ``10s`` or ``Ts``, ``A♠ K♥`` and any
    mix of spaces, commas, semicolons, slashes and plus signs between cards.

    Args:
        text: the typed cards; may be empty (no cards).
        max_cards: the most cards accepted, or ``None`` for no limit.

    Returns:
        The cards in the order typed.

    Raises:
        InvalidCardsError: a token is not a card (the message names it), a card appears
            twice, or there are more than ``max_cards`` cards.

    >>> [str(c) for c in parse_cards("as,10h K♦")]
    ['As', 'Th', 'Kd']
    """
    cards: list[Card] = []
    for chunk in _SEPARATORS.split(text.translate(_IGNORED)):
        pos = 0
        while pos < len(chunk):
            match = _CARD_RE.match(chunk, pos)
            if match is None:
                bad = chunk[pos:] if pos else chunk
                raise InvalidCardsError(f'"{bad}" is not a card: {EXPECTED}')
            rank = _RANK_ALIASES[match.group(1).lower()]
            suit = _SUIT_ALIASES[match.group(2).lower()]
            cards.append(_CARDS[(rank, suit)])
            pos = match.end()
    check_distinct(cards)
    if max_cards is not None and len(cards) > max_cards:
        raise InvalidCardsError(
            f"Too many cards: {len(cards)} given, at most {max_cards} expected here."
        )
    return tuple(cards)


def check_distinct(cards: Iterable[Card]) -> None:
    """Refuse a card that appears more than once.

    Args:
        cards: cards from one hand, or every card of a showdown.

    Raises:
        InvalidCardsError: naming the first repeated card (``"As appears twice"``).
    """
    seen: set[Card] = set()
    for c in cards:
        if c in seen:
            raise InvalidCardsError(f"{c} appears twice.")
        seen.add(c)


def format_cards(cards: Iterable[Card]) -> str:
    """Write cards in the short form, separated by spaces (``"As Kd"``)."""
    return " ".join(str(c) for c in cards)
