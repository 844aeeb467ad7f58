"""Playing cards: ranks, suits, the 52 cards, and a forgiving parser for what players type.

A ``Card`` is an ``int`` whose value is the hand evaluator's key for that card, so
``rulings.poker.hands.evaluate`` adds seven cards without reading a single attribute. The 52 cards
are created once and shared (``Card(Rank.ACE, Suit.SPADES) is card("As")``); they are
immutable and ``str(card)`` is the short form (``"As"``).

Equality, hashing and order are those of the key, an ``int``:

* two cards are equal exactly when they are the same card, and a card equals (and hashes
  like) the plain ``int`` of its own key, never a small number: ``card("2s") != 0``;
* cards order by rank, then by suit in the order s, h, d, c, i.e. by ``code``;
* arithmetic gives plain ints, and ``json.dumps`` would write the key: write ``str(card)``.

The key, low bits to high (``card_key``), made so that a hand's key is the plain sum of its
cards' keys:

* bits 0-155, one 3-bit slot per card, suit-major: the card sets the low bit of slot
  ``13 * suit.position + rank.index``; seven distinct cards leave every slot's two high bits
  (the guard bits, ``GUARD_BITS``) clear, and a repeated card (2 to 7 times) sets one;
* bits 156-179, four 6-bit suit counters: the card adds 7 to its suit's counter, so a counter
  has its top bit (32) set exactly when five or more cards share that suit (4 * 7 < 32 <= 5 * 7);
* bits 180-204, the rank weight ``RANK_WEIGHTS[rank.index]``, chosen so that every multiset of
  seven ranks has its own sum (at most 7,825,759, the size of the 7-card table);
* bits 205 and up, a card counter: each card adds 1, so a sum tells seven cards from six.

So one test (``key & (GUARD_BITS | flush bits)``) tells an ordinary seven-card hand from a
flush or a repeated card.

Every card also has a small ``code`` (``rank.index * 4 + suit.position``, 0..51), what the
batch (numpy) evaluator and callers holding plain numbers use.
"""

from __future__ import annotations

import enum
import logging
import re
from collections.abc import Iterable
from typing import Final

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


#: Rank weights (by rank index) whose sums tell every 7-card rank multiset apart.
RANK_WEIGHTS: Final = (0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349, 636345, 1479181)
SLOT_BITS: Final = 3  # bits per card slot: the card's bit, then two guard bits
SUIT_SHIFT: Final = 156  # the four 6-bit suit counters start here
RANK_SHIFT: Final = 180  # the rank-weight sum starts here
COUNT_SHIFT: Final = 205  # the card counter starts here
CARD_BITS: Final = (1 << SUIT_SHIFT) - 1  # the 52 card slots
GUARD_BITS: Final = sum(6 << (SLOT_BITS * p) for p in range(52))  # each slot's two high bits


def card_key(rank_index: int, suit_position: int) -> int:
    """The evaluator key of a card: the int value of its ``Card``.

    Args:
        rank_index: 0 (Two) to 12 (Ace).
        suit_position: 0 (spades) to 3 (clubs).

    Returns:
        The key, laid out as the module docstring describes.

    >>> card_key(12, 0) == card("As")
    True
    """
    return (
        (1 << (SLOT_BITS * (13 * suit_position + rank_index)))
        + (7 << (SUIT_SHIFT + 6 * suit_position))
        + (RANK_WEIGHTS[rank_index] << RANK_SHIFT)
        + (1 << COUNT_SHIFT)
    )


_CARDS: dict[tuple[Rank, Suit], Card] = {}
_SUITS: Final = tuple(Suit)  # by position


class Card(int):
    """One of the 52 cards: an ``int`` whose value is its evaluator key.

    ``Card(rank, suit)`` returns the shared instance, so cards compare and hash as values
    (see the module docstring for equality, hashing and order). ``str(card)`` is the short
    form (``"As"``, ``"Td"``); any format spec applies to that text.

    Attributes:
        rank: the rank.
        suit: the suit.
        code: ``rank.index * 4 + suit.position``, 0 (2s) to 51 (Ac).
    """

    __slots__ = ()

    def __new__(cls, rank: Rank | int, suit: Suit | str) -> Card:  # noqa: D102
        try:
            return _CARDS[(Rank(rank), Suit(suit))]
        except (ValueError, KeyError):
            raise InvalidCardsError(f"{rank!r}, {suit!r} is not a card: {EXPECTED}") from None

    @property
    def _position(self) -> int:
        """The card's slot, ``13 * suit.position + rank.index``."""
        return ((self & CARD_BITS).bit_length() - 1) // SLOT_BITS

    @property
    def rank(self) -> Rank:
        """The rank."""
        return _RANKS_BY_INDEX[self._position % 13]

    @property
    def suit(self) -> Suit:
        """The suit."""
        return _SUITS[self._position // 13]

    @property
    def code(self) -> int:
        """``rank.index * 4 + suit.position``, 0 (2s) to 51 (Ac)."""
        suit, rank = divmod(self._position, 13)
        return rank * 4 + suit

    def __str__(self) -> str:
        position = self._position
        return RANK_CHARS[position % 13] + SUIT_CHARS[position // 13]

    def __repr__(self) -> str:
        return f"card({str(self)!r})"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __reduce__(self) -> tuple[type[Card], tuple[Rank, Suit]]:
        return (Card, (self.rank, self.suit))  # unpickles to the shared instance

    @property
    def pretty(self) -> str:
        """The card with its suit symbol (``"A♠"``, ``"10♥"`` is written ``"T♥"``)."""
        return self.rank.char + self.suit.symbol


_RANKS_BY_INDEX: Final = tuple(Rank)
for _rank in Rank:
    for _suit in Suit:
        _CARDS[(_rank, _suit)] = int.__new__(Card, card_key(_rank.index, _suit.position))

#: All 52 cards, indexed by code (and in ascending order).
DECK: tuple[Card, ...] = tuple(sorted(_CARDS.values()))
if [c.code for c in DECK] != list(range(52)):
    raise AssertionError("card keys do not order like card codes")

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
