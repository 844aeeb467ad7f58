"""Hand evaluation (rulebook section 6): the best five-card hand out of five, six or seven cards.

There are only 7,462 distinct five-card strengths. Each is a ``HandValue``, created once at
import: an ``int`` (1 = 7-5-4-3-2 high card, 7462 = royal flush) carrying its category, its
five ranks in display order and its plain name. Comparing values is comparing ints, so equal
hands compare ``==`` and hash alike whatever their suits.

How ``evaluate`` stays cheap (well under a microsecond for seven cards, like eval7): a
``Card`` is an ``int`` whose value is its key (``rulings.poker.cards.card_key``), and a hand's
key is the plain sum of its seven cards, with no attribute or table access:

* bits 0-155, one 3-bit slot per card, suit-major (39 bits per suit): a card sets its slot's
  low bit; a repeated card (2 to 7 times) carries into one of the slot's two guard bits, and
  a flush suit's 39 bits are the key of its best flush (``_FLUSH_SLOTS``, 4,719 entries);
* bits 156-179, four 6-bit suit counters, 7 per card, so a counter's bit 5 is set exactly when
  five or more cards share its suit: a flush;
* bits 180-204, the rank multiset as a sum of rank weights ``RANK_WEIGHTS`` chosen so that
  every 7-card multiset has its own sum (at most 7,825,759): the index of a flat array
  (15.6 MB, uint16) holding the best non-flush hand of every 7-card multiset;
* bits 205 and up, the card counter: 7 for seven cards; any other count (a Card mixed with
  codes or other ints) puts the table index out of range and fails the flush check.

So an ordinary hand (no flush, no repeated card: about 97 in 100) costs one test of the sum
against the guard and flush bits, then one table lookup. The flat table beats a compact one
(a perfect hash of the 49,205 keys into 178,645 or 88,950 entries, 2 lookups) even under
load in ``benchmarks/hands.py``: the extra lookup costs more than the cache misses it saves.

Seven card codes (0-51) take the same route through ``_CODE_KEY[code]``, the key of that card
(a first element above 51 picks the Card route: a Card is a large int). Codes 0 and 1 carry
an extra mark (bit 215) that has the seven checked for ``True`` and ``False``, which index a
list like 1 and 0 but are not cards; negative codes are refused before they can index the
list from its end. Five and six cards take a slower general path (a dict on base-5
rank-multiset keys), as do inputs that fail the fast path's checks (to find the error to
report). A plain int equal to a Card's key is that card (a Card equals its int); ints that
merely add up like seven cards (such as a bare card-counter unit next to six Cards) are not
checked for on the fast path. The tables ship prebuilt (``TABLES``); the flush-slot dict is
made at import from the flush table.

``evaluate_many`` does the same on numpy arrays for batch work (equity, exhaustive tests).
"""

from __future__ import annotations

import array
import enum
import itertools
import logging
import operator
from collections.abc import Iterable, Sequence
from importlib import resources
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from rulings.errors import InvalidCardsError
from rulings.poker.cards import (
    COUNT_SHIFT,
    DECK,
    GUARD_BITS,
    RANK_SHIFT,
    RANK_WEIGHTS,
    SLOT_BITS,
    SUIT_SHIFT,
    Card,
    Rank,
    Suit,
)

if TYPE_CHECKING:
    from numpy.typing import NDArray

log = logging.getLogger(__name__)


class HandCategory(enum.IntEnum):
    """The ten hand categories of rule 6.B, weakest first."""

    HIGH_CARD = 1
    PAIR = 2
    TWO_PAIR = 3
    THREE_OF_A_KIND = 4
    STRAIGHT = 5
    FLUSH = 6
    FULL_HOUSE = 7
    FOUR_OF_A_KIND = 8
    STRAIGHT_FLUSH = 9
    ROYAL_FLUSH = 10

    @property
    def label(self) -> str:
        """The plain English name ("Full house")."""
        return self.name.replace("_", " ").capitalize()

    @property
    def with_article(self) -> str:
        """The name with an article, for sentences ("a full house", "two pair")."""
        label = self.label.lower()
        if self in (
            HandCategory.TWO_PAIR,
            HandCategory.THREE_OF_A_KIND,
            HandCategory.FOUR_OF_A_KIND,
        ):
            return label
        if self is HandCategory.HIGH_CARD:
            return "high card"
        return f"a {label}"

    @property
    def is_flush(self) -> bool:
        """Whether the five cards share a suit (flush, straight flush, royal flush)."""
        return self in (
            HandCategory.FLUSH,
            HandCategory.STRAIGHT_FLUSH,
            HandCategory.ROYAL_FLUSH,
        )


_WHEEL = (3, 2, 1, 0, 12)  # 5-4-3-2-A, the lowest straight (rule 6.B)


def _straight_high(ranks_present: int) -> int:
    """The highest straight's top rank index in a 13-bit rank mask, or -1 (no wrap-around)."""
    for high in range(12, 3, -1):
        run = 0b11111 << (high - 4)
        if ranks_present & run == run:
            return high
    if ranks_present & 0b1000000001111 == 0b1000000001111:
        return 3
    return -1


def _straight_ranks(high: int) -> tuple[int, ...]:
    return _WHEEL if high == 3 else tuple(range(high, high - 5, -1))


def _num(rank_index: int) -> str:
    return "10" if rank_index == 8 else "23456789TJQKA"[rank_index]


_RANKS: Final = tuple(Rank)  # by rank index
_WORDS: Final = tuple(r.word for r in _RANKS)
_PLURALS: Final = tuple(r.plural for r in _RANKS)


def _word(rank_index: int) -> str:
    return _WORDS[rank_index]


def _plural(rank_index: int) -> str:
    return _PLURALS[rank_index]


def _dashed(ranks: Iterable[int]) -> str:
    return "-".join(_num(r) for r in ranks)


def _describe(category: HandCategory, r: tuple[int, ...]) -> str:
    if category is HandCategory.ROYAL_FLUSH:
        return "Royal flush"
    if category is HandCategory.STRAIGHT_FLUSH:
        return f"{_word(r[0])}-high straight flush"
    if category is HandCategory.FOUR_OF_A_KIND:
        return f"Four of a kind, {_plural(r[0])}, {_num(r[4])} kicker"
    if category is HandCategory.FULL_HOUSE:
        return f"Full house, {_plural(r[0])} full of {_plural(r[3])}"
    if category is HandCategory.FLUSH:
        return f"{_word(r[0])}-high flush, {_dashed(r)}"
    if category is HandCategory.STRAIGHT:
        return f"{_word(r[0])}-high straight"
    if category is HandCategory.THREE_OF_A_KIND:
        return f"Three of a kind, {_plural(r[0])}, {_dashed(r[3:])} kickers"
    if category is HandCategory.TWO_PAIR:
        return f"Two pair, {_plural(r[0])} and {_plural(r[2])}, {_num(r[4])} kicker"
    if category is HandCategory.PAIR:
        return f"Pair of {_plural(r[0])}, {_dashed(r[2:])} kickers"
    return f"High card, {_dashed(r)}"


class HandValue(int):
    """The strength of a best five-card hand: an ``int`` from 1 to 7,462, greater is better.

    The 7,462 values are created once; ``evaluate`` returns one of them. Suits never enter
    the value, so two hands of equal strength are ``==`` and hash alike.

    Attributes:
        category: the hand category.
        ranks: the five ranks in display order (``K K K T T``; ``5 4 3 2 A`` for a wheel).
        name: the plain name ("Full house, Kings full of Tens").
    """

    # No __dict__: a value is a bare int (48 bytes), its facts are looked up by strength in
    # module tables. The 7,463 objects are made one after another, so they sit side by side
    # and the ones ``evaluate`` returns (it touches their reference counts) span 0.35 MB;
    # with a dict each they were 128 bytes apart, 1 MB and more.
    __slots__ = ()

    @classmethod
    def _make_all(cls, count: int) -> tuple[HandValue, ...]:
        """The values of strengths 0 to ``count - 1``."""
        return tuple(int.__new__(cls, strength) for strength in range(count))

    @property
    def category(self) -> HandCategory:
        """The hand category."""
        return _CLASS_OF[self][0]

    @property
    def _indexes(self) -> tuple[int, ...]:
        """The five rank indexes in display order."""
        return _CLASS_OF[self][1]

    @property
    def ranks(self) -> tuple[Rank, ...]:
        """The five ranks in display order."""
        return tuple(_RANKS[r] for r in _CLASS_OF[self][1])

    @property
    def name(self) -> str:
        """The plain name ("Full house, Kings full of Tens"), worked out on first use."""
        name = _NAMES[self]
        if name is None:
            category, ranks = _CLASS_OF[self]
            name = _NAMES[self] = _describe(category, ranks)
        return name

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("HandValue is immutable")

    def __repr__(self) -> str:
        return f"HandValue({int(self)}, {self.name!r})"

    def __str__(self) -> str:
        return self.name

    def __reduce__(self) -> tuple[Any, ...]:
        return (hand_value, (int(self),))


def _all_classes() -> list[tuple[HandCategory, tuple[int, ...]]]:
    """Every distinct five-card hand, weakest first, as (category, display ranks)."""
    desc = range(12, -1, -1)
    distinct = list(itertools.combinations(desc, 5))  # descending tuples
    straights = {_straight_ranks(h) for h in range(3, 13)}
    no_straight = sorted(
        (c for c in distinct if _straight_high(sum(1 << r for r in c)) < 0),
    )
    out: list[tuple[HandCategory, tuple[int, ...]]] = []
    out += [(HandCategory.HIGH_CARD, c) for c in no_straight]
    pairs: list[tuple[int, ...]] = []
    for p in desc:
        for k in itertools.combinations([r for r in desc if r != p], 3):
            pairs.append((p, p, *k))
    out += [(HandCategory.PAIR, c) for c in sorted(pairs)]
    two: list[tuple[int, ...]] = []
    for hi, lo in itertools.combinations(desc, 2):
        for kicker in desc:
            if kicker not in (hi, lo):
                two.append((hi, hi, lo, lo, kicker))
    out += [(HandCategory.TWO_PAIR, c) for c in sorted(two)]
    trips: list[tuple[int, ...]] = []
    for t in desc:
        for pair in itertools.combinations([r for r in desc if r != t], 2):
            trips.append((t, t, t, *pair))
    out += [(HandCategory.THREE_OF_A_KIND, c) for c in sorted(trips)]
    ordered_straights = [_straight_ranks(h) for h in range(3, 13)]
    assert len(straights) == 10
    out += [(HandCategory.STRAIGHT, c) for c in ordered_straights]
    out += [(HandCategory.FLUSH, c) for c in no_straight]
    houses = [(t, t, t, p, p) for t in desc for p in desc if p != t]
    out += [(HandCategory.FULL_HOUSE, c) for c in sorted(houses)]
    quads = [(q, q, q, q, k) for q in desc for k in desc if k != q]
    out += [(HandCategory.FOUR_OF_A_KIND, c) for c in sorted(quads)]
    out += [(HandCategory.STRAIGHT_FLUSH, c) for c in ordered_straights[:-1]]
    out += [(HandCategory.ROYAL_FLUSH, ordered_straights[-1])]
    return out


_CLASSES = _all_classes()
#: ``_CLASS_OF[strength]`` is the (category, display rank indexes) of that strength.
_CLASS_OF: Final = ((HandCategory.HIGH_CARD, (5, 3, 2, 1, 0)), *_CLASSES)
_NAMES: Final[list[str | None]] = [None] * len(_CLASS_OF)  # filled on first use
#: ``_VALUES[strength]`` is the HandValue of that strength (index 0 unused).
_VALUES: Final[tuple[HandValue, ...]] = HandValue._make_all(len(_CLASS_OF))
DISTINCT_VALUES: Final = len(_CLASSES)  # 7,462

_W5 = [5**r for r in range(13)]


def _build_flush_table() -> list[HandValue | None]:
    flush_by_ranks = {}
    for strength, (cat, ranks) in enumerate(_CLASSES, start=1):
        if cat.is_flush:
            flush_by_ranks[sum(1 << r for r in ranks)] = _VALUES[strength]
    table: list[HandValue | None] = [None] * 8192
    for mask in range(8192):
        if mask.bit_count() < 5:
            continue
        high = _straight_high(mask)
        if high >= 0:
            table[mask] = flush_by_ranks[sum(1 << r for r in _straight_ranks(high))]
        else:
            top = 0
            bits = [r for r in range(12, -1, -1) if mask >> r & 1][:5]
            for r in bits:
                top |= 1 << r
            table[mask] = flush_by_ranks[top]
    return table


def _multisets(size: int) -> NDArray[np.int64]:
    """Every multiset of ``size`` rank indexes with no rank more than four times, one per row."""
    flat = np.fromiter(
        itertools.chain.from_iterable(itertools.combinations_with_replacement(range(13), size)),
        dtype=np.int64,
    )
    rows = flat.reshape(-1, size)  # each row sorted ascending
    too_many = np.zeros(len(rows), dtype=bool)
    for i in range(size - 4):
        too_many |= rows[:, i] == rows[:, i + 4]
    return rows[~too_many]


#: Rank weights whose sums tell every 7-card rank multiset apart, with a small maximum
#: (7,825,759), so the 7-card table is a flat array (checked when the table is built).
_W7 = RANK_WEIGHTS


def _build_nonflush_tables() -> tuple[dict[int, HandValue], array.array[int]]:
    """The base-5 dict for 5 and 6 cards and the flat 7-card array on ``_W7`` keys."""
    w5 = np.array(_W5, dtype=np.int64)
    five_keys, five_values = [], []
    for strength, (cat, ranks) in enumerate(_CLASSES, start=1):
        if not cat.is_flush:
            five_keys.append(sum(_W5[r] for r in ranks))
            five_values.append(strength)
    order = np.argsort(five_keys)
    keys5 = np.array(five_keys, dtype=np.int64)[order]
    values5 = np.array(five_values, dtype=np.int32)[order]
    table = dict(zip(keys5.tolist(), (_VALUES[v] for v in values5.tolist()), strict=True))
    flat7 = array.array("H")
    for size in (6, 7):
        rows = _multisets(size)
        best = np.zeros(len(rows), dtype=np.int32)
        # A hand's best five cards are one of its five-card sub-multisets.
        for keep in itertools.combinations(range(size), 5):
            sub = w5[rows[:, keep]].sum(axis=1)
            found = values5[np.searchsorted(keys5, sub)]
            np.maximum(best, found, out=best)
        if size == 6:
            keys = w5[rows].sum(axis=1)
            table.update(zip(keys.tolist(), (_VALUES[v] for v in best.tolist()), strict=True))
            continue
        compact = np.array(_W7, dtype=np.int64)[rows].sum(axis=1)
        if len(np.unique(compact)) != len(rows):
            raise AssertionError("_W7 does not tell 7-card rank multisets apart")
        # Filled through a numpy view of the array itself: no second 15.6 MB copy.
        flat7 = array.array("H", [0]) * (int(compact.max()) + 1)
        np.frombuffer(flat7, dtype=np.uint16)[compact] = best
    return table, flat7


TABLES: Final = resources.files("rulings") / "data" / "tables" / "hand-tables.npz"
"""The evaluation tables, built once (``write_tables``) and shipped: loading them takes a few
milliseconds where building them takes a few hundred (every start of ``pokerfloor hand``)."""


def build_tables() -> dict[str, NDArray[Any]]:
    """The evaluation tables as arrays (strengths; the sparse 7-card table as index/value)."""
    nonflush, flat7 = _build_nonflush_tables()
    keys = sorted(nonflush)
    seven = np.frombuffer(flat7, dtype=np.uint16)
    index = np.flatnonzero(seven).astype(np.int32)
    return {
        "distinct_values": np.array([DISTINCT_VALUES], dtype=np.int32),
        "flush": np.array([v or 0 for v in _build_flush_table()], dtype=np.int16),
        "nonflush_keys": np.array(keys, dtype=np.int64),
        "nonflush_values": np.array([nonflush[k] for k in keys], dtype=np.int16),
        "flat7_size": np.array([len(seven)], dtype=np.int64),
        "flat7_index": index,
        "flat7_values": seven[index],
    }


def write_tables(path: Any) -> None:
    """Write ``build_tables()`` to ``path`` (the shipped ``TABLES``; run after changing them)."""
    with open(path, "wb") as handle:
        np.savez_compressed(handle, **build_tables())  # type: ignore[arg-type]


def _table_data() -> dict[str, NDArray[Any]]:
    """The shipped tables; built here instead when they are missing or do not fit."""
    try:
        with TABLES.open("rb") as handle, np.load(handle) as shipped:
            data = {name: shipped[name] for name in shipped.files}
        if int(data["distinct_values"][0]) != DISTINCT_VALUES:
            raise ValueError("the shipped tables are for another hand ranking")
    except (OSError, KeyError, ValueError) as exc:
        log.warning("building the hand tables (%s)", exc)
        data = build_tables()
    return data


def _load_tables(
    data: dict[str, NDArray[Any]],
) -> tuple[list[HandValue | None], dict[int, HandValue], memoryview]:
    """The evaluator's tables from ``_table_data``: flush list, 5/6-card dict, 7-card view."""
    values = _VALUES
    flush = [values[v] if v else None for v in data["flush"].tolist()]
    nonflush = dict(
        zip(
            data["nonflush_keys"].tolist(),
            map(values.__getitem__, data["nonflush_values"].tolist()),
            strict=True,
        )
    )
    # Zeroed pages come from the OS on demand: no 15.6 MB fill, then 50,000 entries set. A
    # memoryview of it indexes as fast as an array (``evaluate``'s hot path).
    seven = np.zeros(int(data["flat7_size"][0]), dtype=np.uint16)
    seven[data["flat7_index"]] = data["flat7_values"]
    return flush, nonflush, seven.data


_DATA: Final = _table_data()
_FLUSH, _NONFLUSH, _FLAT7 = _load_tables(_DATA)

# Key layout (rulings.poker.cards): 52 three-bit card slots (suit-major; a slot's two high
# bits are guard bits, set only by a repeated card), four 6-bit suit counters (7 per card:
# bit 5 set means five of a suit), the rank key, the card counter (7 for seven cards).
_FLUSH_BITS = sum(32 << (SUIT_SHIFT + 6 * s) for s in range(4))
#: what sends a sum off the one-lookup path: a flush or a repeated card
_CHECK_BITS = _FLUSH_BITS | GUARD_BITS
#: the 13 slots of one suit
_SUIT_SLOTS = (1 << (13 * SLOT_BITS)) - 1
#: flush bit of a suit counter -> shift of that suit's 13 card slots
_FLUSH_SHIFT = {32 << (SUIT_SHIFT + 6 * s): 13 * SLOT_BITS * s for s in range(4)}
#: ``(key >> RANK_SHIFT) - _SEVEN`` is the 7-card table index when the card counter is 7; any
#: other count is at least 2 ** 25 away, outside the table (7,825,760 entries) either way.
_SEVEN = 7 << (COUNT_SHIFT - RANK_SHIFT)
_MARK = 1 << (COUNT_SHIFT + 10)  # on the keys of codes 0 and 1: look for True and False
# Codes 52-103 get a key whose card counter is far off (16 per code instead of 1), so every
# check fails and the checked path names the bad code.
_BAD_CODE = 1 << (COUNT_SHIFT + 4)
_CODE_KEY: Final[list[int]] = [int(c) + (_MARK if c.code < 2 else 0) for c in DECK] + [
    _BAD_CODE
] * 52


def _spread(masks: NDArray[np.int64]) -> NDArray[np.int64]:
    """13-bit rank masks with each bit moved to the low bit of its 3-bit card slot."""
    out = np.zeros_like(masks)
    for r in range(13):
        out |= ((masks >> r) & 1) << (SLOT_BITS * r)
    return out


def _flush_by_slots(flush: list[HandValue | None]) -> dict[int, HandValue]:
    """The best flush of one suit's 5 to 7 cards, keyed by that suit's 13 card slots."""
    masks = np.arange(8192, dtype=np.int64)
    counts = np.zeros(8192, dtype=np.int64)
    for r in range(13):
        counts += (masks >> r) & 1
    masks = masks[(counts >= 5) & (counts <= 7)]
    pairs = zip(_spread(masks).tolist(), masks.tolist(), strict=True)
    return {slots: value for slots, mask in pairs if (value := flush[mask]) is not None}


_FLUSH_SLOTS: Final = _flush_by_slots(_FLUSH)


def hand_value(strength: int) -> HandValue:
    """Return the HandValue of a strength number (1 to 7,462), e.g. from ``evaluate_many``.

    Args:
        strength: the strength number.

    Returns:
        The shared HandValue.

    Raises:
        ValueError: the number is not a strength.
    """
    if not 1 <= strength <= DISTINCT_VALUES:
        raise ValueError(f"{strength} is not a hand strength (1 to {DISTINCT_VALUES})")
    return _VALUES[strength]


def evaluate(cards: Sequence[Card | int], board: Sequence[Card | int] = ()) -> HandValue:
    """Evaluate the best five-card hand of 5, 6 or 7 cards.

    Seven ``Card`` objects are the fastest input (their keys are summed directly); seven
    card codes come close. ``True`` and ``False`` are not cards, though Python counts them
    as 1 and 0.

    Args:
        cards: the cards (``Card`` objects or card codes 0-51), e.g. the hole cards, or all
            the cards when ``board`` is empty.
        board: more cards to add, e.g. the community cards.

    Returns:
        The HandValue; greater is better.

    Raises:
        InvalidCardsError: fewer than 5 or more than 7 cards, a repeated card, a code
            outside 0-51, or anything else that is not a card (``True``, ``1.0``, ``"As"``).

    >>> from rulings.poker.cards import parse_cards
    >>> evaluate(parse_cards("Kh Kd"), parse_cards("Ks Td Tc 2h 3s")).name
    'Full house, Kings full of Tens'
    """
    if board:
        cards = (*cards, *board)
    # The hot path spells the key constants as literals (LOAD_CONST is cheaper than a global
    # lookup): 0x820820db6...b6 is _CHECK_BITS, 0xdb6...b6 GUARD_BITS, 180 RANK_SHIFT, 205
    # COUNT_SHIFT, 0xE000000 _SEVEN, 215 the _MARK bit and 215 one-bits _MARK - 1 (checked at
    # import, below). Whatever fails a check goes to the checked path, which names the error
    # or, for 5 and 6 cards, evaluates them.
    try:
        a, b, c, d, e, f, g = cards
        if a > 51:
            # Seven Cards (a Card is an int far above 51; comparing is cheaper than type()).
            # A mix with codes or other ints gives a card count other than 7, which both
            # lookups below refuse.
            k = a + b + c + d + e + f + g
        else:  # card codes (or bad input)
            # A negative code would index the list from its end.
            if a < 0 or b < 0 or c < 0 or d < 0 or e < 0 or f < 0 or g < 0:
                raise IndexError("card codes are 0 to 51")
            key = _CODE_KEY
            k = key[a] + key[b] + key[c] + key[d] + key[e] + key[f] + key[g]
            if k >> 215:  # code 0 or 1, or True or False, which index the list as 1 and 0
                if (
                    type(a) is bool
                    or type(b) is bool
                    or type(c) is bool
                    or type(d) is bool
                    or type(e) is bool
                    or type(f) is bool
                    or type(g) is bool
                ):
                    raise TypeError("True and False are not cards")
                k &= 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF
        if not k & 0x820820DB6DB6DB6DB6DB6DB6DB6DB6DB6DB6DB6DB6DB6:
            # No flush, no repeated card. IndexError unless the card counter is 7.
            return _VALUES[_FLAT7[(k >> 180) - 0xE000000]]
        if not k & 0xDB6DB6DB6DB6DB6DB6DB6DB6DB6DB6DB6DB6DB6 and k >> 205 == 7:
            # A flush of seven distinct cards: KeyError unless exactly one suit has 5-7.
            return _FLUSH_SLOTS[(k >> _FLUSH_SHIFT[k & _FLUSH_BITS]) & 0x7FFFFFFFFF]
    except (ValueError, TypeError, LookupError, OverflowError):
        pass
    return _evaluate_checked(cards)


if (_CHECK_BITS, GUARD_BITS, RANK_SHIFT, COUNT_SHIFT, _SEVEN, _MARK, _MARK - 1, _SUIT_SLOTS) != (
    0x820820DB6DB6DB6DB6DB6DB6DB6DB6DB6DB6DB6DB6DB6,
    0xDB6DB6DB6DB6DB6DB6DB6DB6DB6DB6DB6DB6DB6,
    180,
    205,
    0xE000000,
    1 << 215,
    0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF,
    0x7FFFFFFFFF,
):
    raise AssertionError("evaluate()'s literal key constants are out of date")

#: plain ints equal to a card's key are that card (a Card equals its int)
_CODE_OF_KEY: Final = {int(c): c.code for c in DECK}


def _codes(cards: Iterable[Card | int]) -> list[int]:
    codes = []
    for c in cards:
        if isinstance(c, Card):
            codes.append(c.code)
            continue
        try:
            number = -1 if isinstance(c, bool) else operator.index(c)
        except TypeError:
            number = -1
        if 0 <= number < 52:
            codes.append(number)
        elif number in _CODE_OF_KEY:
            codes.append(_CODE_OF_KEY[number])
        else:
            raise InvalidCardsError(f"{c!r} is not a card (a Card or a code 0-51).")
    return codes


def _evaluate_checked(cards: Iterable[Card | int]) -> HandValue:
    """The general path: validates, then handles 5, 6 or 7 cards."""
    codes = _codes(cards)
    if not 5 <= len(codes) <= 7:
        raise InvalidCardsError(
            f"A hand is 5 to 7 cards (hole cards and board); {len(codes)} given."
        )
    seen: set[int] = set()
    for code in codes:
        if code in seen:
            raise InvalidCardsError(f"{DECK[code]} appears twice.")
        seen.add(code)
    suits = [0, 0, 0, 0]
    for code in codes:
        suits[code & 3] |= 1 << (code >> 2)
    for mask in suits:
        if mask.bit_count() >= 5:
            value = _FLUSH[mask]
            assert value is not None
            return value
    if len(codes) == 7:
        return _VALUES[_FLAT7[sum(_W7[code >> 2] for code in codes)]]
    return _NONFLUSH[sum(_W5[code >> 2] for code in codes)]


def best_five(cards: Sequence[Card], board: Sequence[Card] = ()) -> tuple[Card, ...]:
    """The five cards that make the best hand, in display order.

    Where two cards of the same rank could play, the first one given plays (so hole cards
    are shown before board cards).

    Args:
        cards: the hole cards (or all the cards).
        board: the community cards.

    Returns:
        Five cards, e.g. ``Kh Kd Ks Td Tc`` for Kings full of Tens, ``5s 4h 3d 2c As`` for
        a wheel.

    Raises:
        InvalidCardsError: as ``evaluate``.

    >>> from rulings.poker.cards import parse_cards
    >>> [str(c) for c in best_five(parse_cards("Ah 2c"), parse_cards("3d 4s 5h Kc Kd"))]
    ['5h', '4s', '3d', '2c', 'Ah']
    """
    all_cards = (*cards, *board)
    value = evaluate(all_cards)
    pool = list(all_cards)
    if value.category.is_flush:
        suits = [c.suit for c in pool]
        flush_suit = max(Suit, key=suits.count)
        pool = [c for c in pool if c.suit is flush_suit]
    chosen: list[Card] = []
    for rank in value.ranks:
        pick = next(c for c in pool if c.rank is rank)
        pool.remove(pick)
        chosen.append(pick)
    return tuple(chosen)


_ORDINALS = ("first", "second", "third", "fourth", "fifth")


def _groups(value: HandValue) -> list[tuple[int, ...]]:
    """The comparison steps of a category, as slices of the display ranks."""
    r = value._indexes
    cat = value.category
    if cat in (HandCategory.STRAIGHT, HandCategory.STRAIGHT_FLUSH, HandCategory.ROYAL_FLUSH):
        return [(r[0],)]
    if cat is HandCategory.FOUR_OF_A_KIND:
        return [(r[0],), (r[4],)]
    if cat is HandCategory.FULL_HOUSE:
        return [(r[0],), (r[3],)]
    if cat is HandCategory.THREE_OF_A_KIND:
        return [(r[0],), (r[3],), (r[4],)]
    if cat is HandCategory.TWO_PAIR:
        return [(r[0],), (r[2],), (r[4],)]
    if cat is HandCategory.PAIR:
        return [(r[0],), (r[2],), (r[3],), (r[4],)]
    return [(x,) for x in r]


def _made(value: HandValue) -> str:
    """A short name of the made part ("three Sevens", "Queens and Fives")."""
    r = value._indexes
    cat = value.category
    if cat is HandCategory.FOUR_OF_A_KIND:
        return f"four {_plural(r[0])}"
    if cat is HandCategory.THREE_OF_A_KIND:
        return f"three {_plural(r[0])}"
    if cat is HandCategory.TWO_PAIR:
        return f"two pair, {_plural(r[0])} and {_plural(r[2])}"
    if cat is HandCategory.PAIR:
        return f"pair, {_plural(r[0])}"
    return cat.with_article


def explain_win(winner: HandValue, loser: HandValue) -> str:
    """Say what decides between two hands, in the words of rule 6.B.

    Args:
        winner: the better (or equal) hand.
        loser: the other hand.

    Returns:
        A short sentence fragment, e.g. ``"same two pair, Queens and Fives; the kicker
        decides: 8 beats 4"`` or ``"identical five-card hands: split"``.

    >>> from rulings.poker.cards import parse_cards
    >>> a = evaluate(parse_cards("Qs Qd 5h 5c 8d"))
    >>> b = evaluate(parse_cards("Qh Qc 5s 5d 4d"))
    >>> explain_win(a, b)
    'same two pair, Queens and Fives; the kicker decides: 8 beats 4'
    """
    if winner < loser:
        winner, loser = loser, winner
    if winner == loser:
        return "identical five-card hands: split"
    wc, lc = winner.category, loser.category
    if wc != lc:
        return f"{wc.with_article} beats {lc.with_article}"
    wg, lg = _groups(winner), _groups(loser)
    step = next(i for i, (x, y) in enumerate(zip(wg, lg, strict=True)) if x != y)
    w, lo = wg[step][0], lg[step][0]
    if wc in (HandCategory.STRAIGHT, HandCategory.STRAIGHT_FLUSH):
        kind = "straight flush" if wc is HandCategory.STRAIGHT_FLUSH else "straight"
        return f"the higher {kind}: {_word(w)}-high beats {_word(lo)}-high"
    if wc is HandCategory.FULL_HOUSE:
        if step == 0:
            return f"{_plural(w)} full beat {_plural(lo)} full"
        trips = _plural(winner._indexes[0])
        return f"same three {trips}; the pair decides: {_plural(w)} beat {_plural(lo)}"
    if wc in (HandCategory.FLUSH, HandCategory.HIGH_CARD):
        what = "flush" if wc is HandCategory.FLUSH else "high card"
        if step == 0:
            return f"the higher {what}: {_word(w)} beats {_word(lo)}"
        same = _dashed(winner._indexes[:step])
        return f"same {what} {same}; the {_ORDINALS[step]} card decides: {_num(w)} beats {_num(lo)}"
    if step == 0:
        if wc is HandCategory.TWO_PAIR:
            return f"the higher top pair: {_plural(w)} beat {_plural(lo)}"
        if wc is HandCategory.PAIR:
            return f"a pair of {_plural(w)} beats a pair of {_plural(lo)}"
        return f"{_made(winner)} beat {_made(loser)}"
    if wc is HandCategory.TWO_PAIR and step == 1:
        return (
            f"same top pair, {_plural(winner._indexes[0])}; "
            f"the second pair decides: {_plural(w)} beat {_plural(lo)}"
        )
    kickers = len(wg) - (2 if wc is HandCategory.TWO_PAIR else 1)
    kicker_no = step - (len(wg) - kickers)
    which = "the kicker" if kicker_no == 0 else f"the {_ORDINALS[kicker_no]} kicker"
    same = _made(winner)
    if kicker_no:
        same += f" and {_dashed(x[0] for x in wg[len(wg) - kickers : step])} kicker"
        same += "s" if kicker_no > 1 else ""
    return f"same {same}; {which} decides: {_num(w)} beats {_num(lo)}"


# ---------------------------------------------------------------------------------------
# Batch evaluation (numpy): the same keys, vectorised.

_SORTED_KEYS = _DATA["nonflush_keys"]  # sorted when built
_SORTED_VALUES = _DATA["nonflush_values"].astype(np.int32)
_FLUSH_NP = _DATA["flush"].astype(np.int32)
_CODE_RANK_KEY = np.array([_W5[c // 4] for c in range(52)], dtype=np.int64)
_CODE_W7 = np.array([_W7[c // 4] for c in range(52)], dtype=np.intp)
#: the 7-card table as a numpy view (shares memory with ``_FLAT7``)
_FLAT7_NP = np.frombuffer(_FLAT7, dtype=np.uint16)
#: suit-major card bits, 16 bits per suit: bits 16*s .. 16*s+12 are the ranks held in suit s
_CODE_SUIT_BITS = np.array([1 << (16 * (c % 4) + c // 4) for c in range(52)], dtype=np.uint64)


def flush_table() -> NDArray[np.int32]:
    """The flush table: strength of the best flush in a 13-bit rank mask, 0 below 5 ranks."""
    return _FLUSH_NP


def nonflush_lookup(rank_keys: NDArray[np.int64]) -> NDArray[np.int32]:
    """Strengths of the best non-flush hands of base-5 rank-multiset keys (0 if impossible).

    Args:
        rank_keys: sums of ``5 ** rank_index`` over 5 to 7 cards.

    Returns:
        The strengths, 0 where a rank appears more than four times.
    """
    pos = np.searchsorted(_SORTED_KEYS, rank_keys)
    pos = np.minimum(pos, len(_SORTED_KEYS) - 1)
    found = _SORTED_KEYS[pos] == rank_keys
    return np.where(found, _SORTED_VALUES[pos], 0).astype(np.int32)


def evaluate_many(codes: NDArray[np.integer[Any]]) -> NDArray[np.int32]:
    """Evaluate many hands at once (the batch path of ``evaluate``).

    Args:
        codes: an (N, k) array of card codes 0-51, k from 5 to 7, one hand per row.

    Returns:
        An int32 array of N strengths (``hand_value(s)`` gives the HandValue).

    Raises:
        InvalidCardsError: a bad shape, a code outside 0-51 or a card repeated in a row.
    """
    codes = np.asarray(codes)
    if codes.ndim != 2 or not 5 <= codes.shape[1] <= 7:
        raise InvalidCardsError("evaluate_many needs an (N, 5..7) array of card codes.")
    if codes.size and (codes.min() < 0 or codes.max() > 51):
        raise InvalidCardsError("Card codes run from 0 to 51.")
    bits = _CODE_SUIT_BITS[codes]
    mask = np.bitwise_or.reduce(bits, axis=1)
    if np.any(mask != bits.sum(axis=1, dtype=np.uint64)):
        raise InvalidCardsError("A card appears twice in a hand.")
    best: NDArray[np.int32]
    if codes.shape[1] == 7:
        best = _FLAT7_NP[_CODE_W7[codes].sum(axis=1)].astype(np.int32)
    else:
        best = nonflush_lookup(_CODE_RANK_KEY[codes].sum(axis=1))
    for suit in range(4):
        suit_mask = ((mask >> np.uint64(16 * suit)) & np.uint64(0x1FFF)).astype(np.intp)
        np.maximum(best, _FLUSH_NP[suit_mask], out=best)
    return best
