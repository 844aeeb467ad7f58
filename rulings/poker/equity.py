"""Exact win and tie odds by enumerating every possible rest of the board (no Monte Carlo).

With the flop known there are at most 1,081 boards left and each is evaluated with
``evaluate``. Pre-flop there are up to 1,712,304 boards (heads-up), counted in about 150,000
groups of boards that every player values alike (``_equity_grouped``: a rank multiset, and
the flush suit's ranks when a suit has three or more board cards), in numpy, in a few
hundredths of a second and without any table built first.

``_equity_batch`` enumerates boards one by one in numpy instead, for any known board: the
cross-check of the grouped counts. It works over a table of all 2,598,960 five-card boards,
built on first use (about 0.1 s; 32 MB, under 50 MB at peak while building) and kept for the
life of the process; a query works through it in chunks of 262,144 boards (about 20 MB of
working memory). For each board the table holds:

* its 52-bit card mask, suit-major with 16 bits per suit (to drop boards holding a player's
  card, and to read the ranks of each suit);
* the id of its rank multiset (6,188 ids), so that a player's best non-flush hand is one
  lookup in a 6,188 x 91 table (board multiset x hole-card ranks);
* the one suit that has three or more cards on the board, if any, and its ranks: only that
  suit can give anyone a flush, so a player's flush is one lookup in the 8,192-entry flush
  table, keyed by those ranks plus his own cards of that suit.
"""

from __future__ import annotations

import functools
import itertools
import logging
import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from rulings.errors import InvalidShowdownError
from rulings.poker.cards import DECK, Card, check_distinct, format_cards
from rulings.poker.hands import _FLAT7_NP, _W7, evaluate, flush_table

if TYPE_CHECKING:
    from numpy.typing import NDArray

log = logging.getLogger(__name__)

MIN_PLAYERS = 2
MAX_PLAYERS = 10
BOARD_SIZES = (0, 3, 4, 5)


@dataclass(frozen=True)
class Equity:
    """Exact results of enumerating every way the board can finish.

    Attributes:
        boards: how many boards were enumerated (1 when the board is complete).
        wins: per player, the boards he wins alone.
        ties: per player, the boards he shares with one or more players.
        shares: per player, his expected share of the pot in pots (wins count 1, a two-way
            tie 1/2, ...); the shares sum to the number of boards.
    """

    boards: int
    wins: tuple[int, ...]
    ties: tuple[int, ...]
    shares: tuple[float, ...]

    @property
    def win(self) -> tuple[float, ...]:
        """Per player, the fraction of boards he wins alone."""
        return tuple(w / self.boards for w in self.wins)

    @property
    def tie(self) -> tuple[float, ...]:
        """Per player, the fraction of boards he ties for the best hand."""
        return tuple(t / self.boards for t in self.ties)

    @property
    def equity(self) -> tuple[float, ...]:
        """Per player, his expected fraction of the pot."""
        return tuple(s / self.boards for s in self.shares)


def check_deal(holes: Sequence[Sequence[Card]], board: Sequence[Card]) -> None:
    """Refuse a deal that cannot happen at a Hold'em table.

    Args:
        holes: each player's hole cards.
        board: the community cards.

    Raises:
        InvalidShowdownError: not 2 to 10 players, a player without exactly two cards, or a
            board of 1, 2 or more than 5 cards.
        InvalidCardsError: a card dealt twice.
    """
    if not MIN_PLAYERS <= len(holes) <= MAX_PLAYERS:
        raise InvalidShowdownError(
            f"A showdown needs {MIN_PLAYERS} to {MAX_PLAYERS} players; {len(holes)} given."
        )
    for number, hole in enumerate(holes, start=1):
        if len(hole) != 2:
            raise InvalidShowdownError(
                f"Player {number} has {len(hole)} card{'s' if len(hole) != 1 else ''} "
                f"({format_cards(hole) or 'none'}); "
                "each player needs exactly two hole cards."
            )
    if len(board) not in BOARD_SIZES:
        raise InvalidShowdownError(
            f"A board has 0, 3, 4 or 5 cards (flop, turn, river); {len(board)} given."
        )
    check_distinct([*itertools.chain.from_iterable(holes), *board])


def is_heavy(players: int, board_cards: int) -> bool:
    """Whether an equity request takes noticeable time (pre-flop: the numpy enumeration).

    Args:
        players: the number of players.
        board_cards: the number of known board cards.

    Returns:
        True when the request counts every board pre-flop (the grouped numpy count).
    """
    return players >= MIN_PLAYERS and board_cards == 0


def exact_equity(holes: Sequence[Sequence[Card]], board: Sequence[Card] = ()) -> Equity:
    """Exact win and tie counts for every player, over every way the board can finish.

    Args:
        holes: each player's two hole cards, 2 to 10 players.
        board: 0, 3, 4 or 5 community cards.

    Returns:
        The counts (heads-up pre-flop: 1,712,304 boards).

    Raises:
        InvalidShowdownError: as ``check_deal``.
        InvalidCardsError: a card dealt twice.

    >>> from rulings.poker.cards import parse_cards
    >>> e = exact_equity([parse_cards("As Ks"), parse_cards("Qh Qd")], parse_cards("2c 7d 9h"))
    >>> e.boards, e.wins, e.ties
    (990, (237, 753), (0, 0))
    """
    check_deal(holes, board)
    if len(board) == 0:
        return _equity_grouped(holes)
    return _equity_loop(holes, board)


def _equity_loop(holes: Sequence[Sequence[Card]], board: Sequence[Card]) -> Equity:
    """Evaluate every finished board one by one (flop, turn and river)."""
    hole_cards = [(a, b) for a, b in holes]
    known = list(board)
    used = set(known).union(*hole_cards)
    deck = [c for c in DECK if c not in used]  # Cards: evaluate's fastest input
    players = len(holes)
    wins = [0] * players
    ties = [0] * players
    shares = [0.0] * players
    boards = 0
    for rest in itertools.combinations(deck, 5 - len(known)):
        full = (*known, *rest)
        values = [evaluate((a, b, *full)) for a, b in hole_cards]
        best = max(values)
        winners = [i for i, v in enumerate(values) if v == best]
        boards += 1
        if len(winners) == 1:
            wins[winners[0]] += 1
        else:
            for i in winners:
                ties[i] += 1
        for i in winners:
            shares[i] += 1 / len(winners)
    return Equity(boards, tuple(wins), tuple(ties), tuple(shares))


@dataclass(frozen=True)
class _BoardTable:
    """Every five-card board, as described in the module docstring."""

    card_mask: NDArray[np.uint64]
    multiset: NDArray[np.uint16]
    flush: NDArray[np.uint16]  # bits 0-12 ranks of the 3+ suit, bits 13-14 suit, bit 15 set
    nonflush: NDArray[np.uint16]  # (6188 * 91) strengths: multiset id * 91 + hole-rank id

    @property
    def nbytes(self) -> int:
        """Memory held by the arrays."""
        arrays = (self.card_mask, self.multiset, self.flush, self.nonflush)
        return sum(a.nbytes for a in arrays)


def combinations_array(n: int, k: int) -> NDArray[np.uint8]:
    """All k-subsets of range(n) in lexicographic order, one sorted row each (numpy).

    Args:
        n: the size of the set (at most 255).
        k: the subset size.

    Returns:
        A (C(n, k), k) uint8 array.
    """
    rows = np.arange(n - k + 1, dtype=np.uint8).reshape(-1, 1)
    for picked in range(1, k):
        last = rows[:, -1].astype(np.int64)
        # Leave room for the picks still to come, so no prefix is a dead end.
        children = np.maximum(n - (k - picked) - last, 0)
        parents = np.repeat(np.arange(len(rows)), children)
        starts = np.cumsum(children) - children
        nxt = np.arange(len(parents)) - np.repeat(starts, children) + np.repeat(last + 1, children)
        rows = np.hstack([rows[parents], nxt.astype(np.uint8).reshape(-1, 1)])
    return rows


def _multiset_id(sorted_ranks: NDArray[Any]) -> NDArray[np.intp]:
    """Colex index of a sorted rank multiset (combinations with repetition of 13 ranks)."""
    out = np.zeros(len(sorted_ranks), dtype=np.intp)
    for i in range(sorted_ranks.shape[1]):
        out += _COMB[sorted_ranks[:, i].astype(np.intp) + i, i + 1]
    return out


_COMB = np.array([[math.comb(n, k) for k in range(8)] for n in range(60)], dtype=np.intp)
_HOLE_PAIRS = 91  # rank pairs with repetition: C(14, 2)
_BOARD_MULTISETS = math.comb(17, 5)  # 6,188


def _hole_rank_id(r1: int, r2: int) -> int:
    lo, hi = sorted((r1, r2))
    return int(_COMB[lo, 1] + _COMB[hi + 1, 2])


_TABLE_LOCK = threading.Lock()


def board_table() -> _BoardTable:
    """The table of all 2,598,960 boards, built on first use (see the module docstring).

    Thread-safe: concurrent first callers wait for one build instead of each building one.

    Returns:
        The table.
    """
    with _TABLE_LOCK:
        return _build_board_table()


@functools.cache
def _build_board_table() -> _BoardTable:
    # Built in 48 blocks, one per lowest card, to keep the peak memory near the table's own
    # 32 MB: the block for lowest card f is f plus every 4 of the cards above it, which are
    # the first C(51 - f, 4) rows of the 4-subsets of range(51) in colex order.
    total = math.comb(52, 5)
    card_mask = np.empty(total, dtype=np.uint64)
    multiset = np.empty(total, dtype=np.uint16)
    flush = np.zeros(total, dtype=np.uint16)
    subsets = combinations_array(51, 4)
    tails = subsets[np.lexsort(subsets.T)]  # last column first: colex order
    suit_bits = np.array([1 << (16 * (c % 4) + c // 4) for c in range(52)], dtype=np.uint64)
    popcount = np.array([m.bit_count() for m in range(8192)], dtype=np.uint8)
    start = 0
    for first in range(48):
        count = math.comb(51 - first, 4)
        columns = [np.full(count, first, dtype=np.uint8)]
        columns += [tails[:count, i] + np.uint8(first + 1) for i in range(4)]
        stop = start + count
        mask = card_mask[start:stop]
        mask[:] = 0
        ids = np.zeros(count, dtype=np.intp)
        for i, column in enumerate(columns):
            mask |= suit_bits[column]
            # Codes are rank * 4 + suit, so sorted codes give sorted ranks.
            ids += _COMB[(column >> 2).astype(np.intp) + i, i + 1]
        multiset[start:stop] = ids
        block = flush[start:stop]
        for suit in range(4):
            ranks = ((mask >> np.uint64(16 * suit)) & np.uint64(0x1FFF)).astype(np.uint16)
            three = np.flatnonzero(popcount[ranks] >= 3)
            block[three] = ranks[three] | np.uint16((suit << 13) | 0x8000)
        start = stop
    # Non-flush strengths for each board rank multiset and each pair of hole ranks.
    board_ranks = np.array(
        list(itertools.combinations_with_replacement(range(13), 5)), dtype=np.intp
    )
    hole_ranks = np.array(list(itertools.combinations_with_replacement(range(13), 2)))
    w7 = np.array(_W7, dtype=np.intp)
    keys = w7[board_ranks].sum(axis=1)[:, None] + w7[hole_ranks].sum(axis=1)[None, :]
    nonflush = np.zeros((_BOARD_MULTISETS, _HOLE_PAIRS), dtype=np.uint16)
    rows = _multiset_id(board_ranks)
    cols = np.array([_hole_rank_id(a, b) for a, b in hole_ranks])
    # Keys of impossible multisets (a rank five times) may alias real ones; no real deal
    # reaches them, since each rank has four cards.
    nonflush[rows[:, None], cols[None, :]] = _FLAT7_NP[np.minimum(keys, len(_FLAT7_NP) - 1)]
    table = _BoardTable(card_mask, multiset, flush, nonflush.reshape(-1))
    log.debug("board table built: %d boards, %.1f MB", len(card_mask), table.nbytes / 1e6)
    return table


_CHUNK_BOARDS = 1 << 18  # boards per numpy pass: bounds the working memory to ~20 MB


def _equity_batch(holes: Sequence[Sequence[Card]], board: Sequence[Card]) -> Equity:
    """Numpy enumeration over the board table (any known board, used pre-flop)."""
    table = board_table()
    known = 0
    for c in board:
        known |= 1 << (16 * c.suit.position + c.rank.index)
    dead = 0
    for c in itertools.chain.from_iterable(holes):
        dead |= 1 << (16 * c.suit.position + c.rank.index)
    hole_ids = [_hole_rank_id(a.rank.index, b.rank.index) for a, b in holes]
    owns = []
    for hole in holes:
        own = np.zeros(8, dtype=np.intp)  # player's rank bits by flush kind (4 + suit)
        for c in hole:
            own[4 + c.suit.position] |= 1 << c.rank.index
        owns.append(own)
    flushes = flush_table()
    players = len(holes)
    wins = np.zeros(players, dtype=np.int64)
    ties = np.zeros(players, dtype=np.int64)
    shares = np.zeros(players, dtype=np.float64)
    boards = 0
    for start in range(0, len(table.card_mask), _CHUNK_BOARDS):
        chunk = slice(start, start + _CHUNK_BOARDS)
        mask = table.card_mask[chunk]
        keep = (mask & np.uint64(dead)) == 0
        if known:
            keep &= (mask & np.uint64(known)) == np.uint64(known)
        selected = np.flatnonzero(keep)
        if not len(selected):
            continue
        base = table.multiset[chunk][selected].astype(np.intp) * _HOLE_PAIRS
        flush = table.flush[chunk][selected]
        flush_ranks = (flush & np.uint16(0x1FFF)).astype(np.intp)
        flush_kind = (flush >> np.uint16(13)).astype(np.intp)  # 4 + suit when a suit has 3+
        values = np.empty((players, len(selected)), dtype=np.int32)
        for i in range(players):
            best = table.nonflush[base + hole_ids[i]]
            np.maximum(best, flushes[flush_ranks | owns[i][flush_kind]], out=values[i])
        is_best = values == values.max(axis=0)
        count = is_best.sum(axis=0)
        alone = count == 1
        wins += (is_best & alone).sum(axis=1)
        ties += (is_best & ~alone).sum(axis=1)
        shares += (is_best / count).sum(axis=1)
        boards += len(selected)
    return Equity(
        boards,
        tuple(int(n) for n in wins),
        tuple(int(n) for n in ties),
        tuple(float(x) for x in shares),
    )


def _counts(ranks: NDArray[np.intp]) -> NDArray[np.intp]:
    """Per row of rank indexes, how many times each of the 13 ranks appears: (rows, 13)."""
    counts = np.zeros((len(ranks), 13), dtype=np.intp)
    for column in ranks.T:
        counts[np.arange(len(ranks)), column] += 1
    return counts


def _ways(counts: NDArray[np.intp], available: NDArray[np.intp]) -> NDArray[np.int64]:
    """Per row, the ways to pick ``counts[r]`` cards of each rank r from ``available[r]``."""
    ways: NDArray[np.int64] = np.prod(_COMB[available[None, :], counts], axis=1, dtype=np.int64)
    return ways


@functools.cache
def _rank_rows(size: int) -> NDArray[np.intp]:
    """Every multiset of ``size`` rank indexes (sorted rows; ``size`` 0 gives one empty row)."""
    rows = itertools.combinations_with_replacement(range(13), size)
    flat = np.fromiter(itertools.chain.from_iterable(rows), dtype=np.intp)
    return flat.reshape(math.comb(12 + size, size), size)


@functools.cache
def _rank_sets(size: int) -> NDArray[np.intp]:
    """Every set of ``size`` distinct rank indexes, one sorted row each."""
    rows = itertools.combinations(range(13), size)
    flat = np.fromiter(itertools.chain.from_iterable(rows), dtype=np.intp)
    return flat.reshape(math.comb(13, size), size)


def _equity_grouped(holes: Sequence[Sequence[Card]]) -> Equity:
    """Pre-flop equity over groups of boards that every player values alike.

    A player's best hand on a board depends only on the board's rank multiset and, when one
    suit has three or more board cards (only then can anyone make a flush), on that suit and
    its ranks. So the boards are counted in groups instead of enumerated one by one:

    * flush groups: a suit, the 3 to 5 ranks the board holds in it, and the multiset of the
      other board cards' ranks (each of another suit); its weight is how many live cards
      make that multiset;
    * plain groups: each five-rank multiset, weighted by the ways the live cards make it,
      less the boards of it already counted in a flush group.

    About 150,000 groups stand for the 1,712,304 boards of a heads-up deal: no table of every
    board is needed, and the counts are the same as enumerating them.
    """
    live = np.ones((4, 13), dtype=np.intp)  # live[suit, rank]: not in anyone's hand
    for c in itertools.chain.from_iterable(holes):
        live[c.suit.position, c.rank.index] = 0
    per_rank = live.sum(axis=0)
    shapes = _group_shapes()
    w7 = np.array(_W7, dtype=np.intp)
    bits = 1 << np.arange(13, dtype=np.intp)
    plain_weight = _ways(shapes.plain_counts, per_rank)
    weights, suits = [], []
    for suit in range(4):
        dead_ranks = int(bits[live[suit] == 0].sum())
        rest_weight = _ways(shapes.rest_counts, per_rank - live[suit])
        weight = np.where(shapes.suited & dead_ranks, 0, rest_weight[shapes.rest])
        # These boards were counted among the plain groups of their rank multiset.
        plain_weight -= np.bincount(
            shapes.multiset, weights=weight, minlength=len(plain_weight)
        ).astype(np.int64)
        weights.append(weight)
        suits.append(np.full(len(weight), suit, dtype=np.intp))
    weight = np.concatenate([plain_weight, *weights])
    flush_suit = np.concatenate(suits)
    flush_mask = np.tile(shapes.suited, 4)
    flushes = flush_table()
    top = len(_FLAT7_NP) - 1
    values = np.empty((len(holes), len(weight)), dtype=np.int32)
    plain_rows = len(plain_weight)
    for i, (a, b) in enumerate(holes):
        hole_key = w7[a.rank.index] + w7[b.rank.index]
        own = np.zeros(4, dtype=np.intp)  # the player's rank bits in each suit
        own[a.suit.position] |= 1 << a.rank.index
        own[b.suit.position] |= 1 << b.rank.index
        values[i, :plain_rows] = _FLAT7_NP[np.minimum(shapes.plain_key + hole_key, top)]
        suited = _FLAT7_NP[np.minimum(shapes.key + hole_key, top)].astype(np.int32)
        flush = flushes[flush_mask | own[flush_suit]]
        np.maximum(np.tile(suited, 4), flush, out=values[i, plain_rows:])
    is_best = values == values.max(axis=0)
    count = is_best.sum(axis=0)
    alone = count == 1
    wins = (is_best & alone) @ weight
    ties = (is_best & ~alone) @ weight
    shares = (is_best / count) @ weight.astype(np.float64)
    return Equity(
        int(weight.sum()),
        tuple(int(n) for n in wins),
        tuple(int(n) for n in ties),
        tuple(float(x) for x in shares),
    )


@dataclass(frozen=True)
class _GroupShapes:
    """The groups of ``_equity_grouped`` that do not depend on the deal (built once).

    Attributes:
        plain_counts: per five-rank multiset (row n: the multiset of colex id n), how many
            cards of each rank: (6,188, 13).
        plain_key: per multiset, the sum of its rank weights (``_W7``).
        suited: per flush group, the 13-bit mask of the 3 to 5 ranks of the flush suit.
        rest: per flush group, its row of ``rest_counts`` (the other board cards' ranks).
        rest_counts: the multisets of 0 to 2 ranks off the flush suit, as counts: (105, 13).
        multiset: per flush group, the colex id of the whole board's rank multiset.
        key: per flush group, the sum of the whole board's rank weights.
    """

    plain_counts: NDArray[np.intp]
    plain_key: NDArray[np.intp]
    suited: NDArray[np.intp]
    rest: NDArray[np.intp]
    rest_counts: NDArray[np.intp]
    multiset: NDArray[np.intp]
    key: NDArray[np.intp]


@functools.cache
def _group_shapes() -> _GroupShapes:
    w7 = np.array(_W7, dtype=np.intp)
    bits = 1 << np.arange(13, dtype=np.intp)
    plain = _rank_rows(5)
    plain = plain[np.argsort(_multiset_id(plain))]  # row n is the multiset of id n
    suited, rest, multiset, key, rest_rows = [], [], [], [], []
    first_rest = 0
    for k in (3, 4, 5):
        sets, others = _rank_sets(k), _rank_rows(5 - k)
        ranks = np.concatenate(
            [np.repeat(sets, len(others), axis=0), np.tile(others, (len(sets), 1))], axis=1
        )
        suited.append(np.repeat(bits[sets].sum(axis=1), len(others)))
        rest.append(np.tile(np.arange(len(others)) + first_rest, len(sets)))
        multiset.append(_multiset_id(np.sort(ranks, axis=1)))
        key.append(w7[ranks].sum(axis=1))
        rest_rows.append(_counts(others))
        first_rest += len(others)
    return _GroupShapes(
        plain_counts=_counts(plain),
        plain_key=w7[plain].sum(axis=1),
        suited=np.concatenate(suited),
        rest=np.concatenate(rest),
        rest_counts=np.concatenate(rest_rows),
        multiset=np.concatenate(multiset),
        key=np.concatenate(key),
    )
