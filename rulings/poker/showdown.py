"""Showdowns (2.G.d.4-5, 2.G.e, section 6): who wins, why, the odds, and how pots split.

``parse_hand_query`` reads the one grammar shared by the command line, the console and
Discord; ``analyse`` answers it with a ``ShowdownReport``. ``build_pots`` and ``award`` split
chips into main and side pots and pay them out.

Query grammar (case-insensitive, extra spaces ignored)::

    query   := player (("vs" | "|") player)* ["board" [":"] cards]
    player  := [name ":"] cards

* two or more players: two hole cards each (2 to 10 players), board of 0, 3, 4 or 5 cards;
* a lone player: 5 to 7 cards in all (``As Ks Qs Js Ts``, or ``As Ks board Qs Js Ts``),
  evaluated on their own.

Seat order in the pots API: seat ``i`` is index ``i`` of the lists; seats go clockwise, so
seat ``i + 1`` sits to the left of seat ``i`` (and seat 0 to the left of the last seat).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rulings.errors import InvalidShowdownError
from rulings.poker.cards import Card, check_distinct, format_cards, parse_cards
from rulings.poker.equity import MAX_PLAYERS, Equity, check_deal, exact_equity, is_heavy
from rulings.poker.hands import HandCategory, HandValue, best_five, evaluate, explain_win

log = logging.getLogger(__name__)

EXAMPLE = "As Ks vs Qh Qd board 2c 7d 9h"
MAX_NAME_CHARS = 32
_BOARD_RE = re.compile(r"(?:^|\s)board\b\s*:?", re.IGNORECASE)
_PLAYER_SPLIT_RE = re.compile(r"(?:^|\s)vs\.?(?=\s|$)|\|", re.IGNORECASE)


@dataclass(frozen=True)
class PlayerHand:
    """One player's cards in a query.

    Attributes:
        cards: the hole cards (or all the cards of a lone hand).
        name: the name typed before ``:``, if any.
    """

    cards: tuple[Card, ...]
    name: str | None = None


@dataclass(frozen=True)
class HandQuery:
    """A parsed hand question: players and board.

    Attributes:
        players: the players in the order typed.
        board: the community cards (may be empty).
    """

    players: tuple[PlayerHand, ...]
    board: tuple[Card, ...] = ()

    @property
    def is_lone(self) -> bool:
        """Whether one hand is evaluated on its own (no opponents)."""
        return len(self.players) == 1

    def label(self, index: int) -> str:
        """The display label of a player: his name, or "Player N"."""
        return self.players[index].name or f"Player {index + 1}"


def parse_hand_query(text: str, board: str | None = None) -> HandQuery:
    """Read a hand question as players type it.

    Args:
        text: e.g. ``"As Ks vs Qh Qd board 2c 7d 9h"``, ``"alice: AsKs | bob: QhQd"`` or a
            lone hand ``"As Ks Qs Js Ts"``.
        board: board cards given separately (the CLI's ``--board``); not with a ``board``
            clause in ``text``.

    Returns:
        The query, checked: cards readable and distinct, counts possible at a Hold'em table.

    Raises:
        InvalidCardsError: a token is not a card, or a card appears twice.
        InvalidShowdownError: the counts of players or cards are not possible.

    >>> q = parse_hand_query("alice: As Ks vs Qh Qd board 2c 7d 9h")
    >>> q.label(0), q.label(1), format_cards(q.board)
    ('alice', 'Player 2', '2c 7d 9h')
    """
    parts = _BOARD_RE.split(text)
    if len(parts) > 2:
        raise InvalidShowdownError('Give the board once ("board 2c 7d 9h").')
    players_text = parts[0]
    board_text = parts[1] if len(parts) == 2 else None
    if board is not None:
        if board_text is not None:
            raise InvalidShowdownError("Give the board either in the text or separately, not both.")
        board_text = board
    board_cards = parse_cards(board_text or "", max_cards=5)
    if not players_text.strip():
        raise InvalidShowdownError(f'Type some cards, e.g. "{EXAMPLE}".')
    players = tuple(_parse_player(chunk) for chunk in _PLAYER_SPLIT_RE.split(players_text))
    query = HandQuery(players, board_cards)
    _check(query)
    return query


def _parse_player(chunk: str) -> PlayerHand:
    name: str | None = None
    if ":" in chunk:
        name, chunk = (part.strip() for part in chunk.split(":", 1))
        if not name:
            raise InvalidShowdownError('A name goes before ":" (e.g. "alice: As Ks").')
        if len(name) > MAX_NAME_CHARS:
            raise InvalidShowdownError(f"Names are at most {MAX_NAME_CHARS} characters.")
    cards = parse_cards(chunk, max_cards=7)
    if not cards:
        who = f"{name} has" if name else "A player has"
        raise InvalidShowdownError(f'{who} no cards (players are separated by "vs" or "|").')
    return PlayerHand(cards, name)


def _check(query: HandQuery) -> None:
    everything = [c for p in query.players for c in p.cards] + list(query.board)
    check_distinct(everything)
    if query.is_lone:
        total = len(query.players[0].cards) + len(query.board)
        if not 5 <= total <= 7:
            raise InvalidShowdownError(
                f"A lone hand needs 5 to 7 cards in all ({total} given); to compare hands, "
                f'separate players with "vs", e.g. "{EXAMPLE}".'
            )
        return
    if len(query.players) > MAX_PLAYERS:
        raise InvalidShowdownError(f"At most {MAX_PLAYERS} players; {len(query.players)} given.")
    for index, player in enumerate(query.players):
        if len(player.cards) != 2:
            raise InvalidShowdownError(
                f"{query.label(index)} has {len(player.cards)} "
                f"card{'s' if len(player.cards) != 1 else ''} "
                f"({format_cards(player.cards)}); each player needs two hole cards."
            )
    check_deal([p.cards for p in query.players], query.board)


def is_heavy_query(query: HandQuery) -> bool:
    """Whether answering takes noticeable time (pre-flop enumeration; see ``equity``).

    Args:
        query: a parsed query.

    Returns:
        True when the answer enumerates every board.
    """
    return not query.is_lone and is_heavy(len(query.players), len(query.board))


@dataclass(frozen=True)
class PlayerResult:
    """One player's side of a showdown report.

    Attributes:
        label: his name, or "Player N".
        name: the name typed, if any.
        cards: his cards as typed.
        value: his best hand so far (None before five cards are known).
        best_five: the cards of that hand, in display order.
        win: the fraction of boards he wins alone (1 or 0 on a complete board).
        tie: the fraction of boards he ties for the best hand.
        equity: his expected share of the pot.
        hole_in_hand: his hole cards that are part of the made hand itself: of the four cards of
            quads, else of the best five (a kicker of quads is not part of the quads).
        won: whether he wins or shares the pot (a complete board, or a lone hand).
    """

    label: str
    name: str | None
    cards: tuple[Card, ...]
    value: HandValue | None
    best_five: tuple[Card, ...] | None
    win: float
    tie: float
    equity: float
    hole_in_hand: tuple[Card, ...] = ()
    won: bool = False

    def to_json(self) -> dict[str, Any]:
        """The issue's JSON shape for a player (``label`` added; ``name`` is the hand)."""
        out: dict[str, Any] = {"label": self.label, "cards": [str(c) for c in self.cards]}
        if self.value is not None and self.best_five is not None:
            out["category"] = self.value.category.label
            out["best_five"] = [str(c) for c in self.best_five]
            out["name"] = self.value.name
        out["win"] = self.win
        out["tie"] = self.tie
        return out


@dataclass(frozen=True)
class ShowdownReport:
    """The answer to a hand query.

    Attributes:
        players: per player, in input order.
        board: the community cards.
        complete: whether every card is known (river dealt, or a lone hand of its own).
        winners: indexes of the players who win (share) the pot; empty until complete.
        explanation: why the winners win ("same pair, Jacks; the kicker decides: 9 beats
            4"); empty until complete.
        boards: how many boards were enumerated (1 when complete).
    """

    players: tuple[PlayerResult, ...]
    board: tuple[Card, ...]
    complete: bool
    winners: tuple[int, ...]
    explanation: str
    boards: int

    def to_json(self) -> dict[str, Any]:
        """``{"players": [...], "board": [...], "complete": bool, "winners": [...]}``."""
        return {
            "players": [p.to_json() for p in self.players],
            "board": [str(c) for c in self.board],
            "complete": self.complete,
            "winners": list(self.winners),
        }


def analyse(query: HandQuery) -> ShowdownReport:
    """Answer a hand query: best hands, winners and why, exact odds.

    Args:
        query: from ``parse_hand_query``.

    Returns:
        The report.

    >>> r = analyse(parse_hand_query("As Ks vs Qh Qd board 2c 7d 9h Ah 3s"))
    >>> r.winners, r.explanation
    ((0,), 'a pair of Aces beats a pair of Queens')
    """
    if query.is_lone:
        return _analyse_lone(query)
    holes = [p.cards for p in query.players]
    odds: Equity = exact_equity(holes, query.board)
    complete = len(query.board) == 5
    values: list[HandValue | None] = []
    results = []
    for index, player in enumerate(query.players):
        known = len(player.cards) + len(query.board) >= 5
        value = evaluate(player.cards, query.board) if known else None
        values.append(value)
        results.append(
            PlayerResult(
                label=query.label(index),
                name=player.name,
                cards=player.cards,
                value=value,
                best_five=best_five(player.cards, query.board) if known else None,
                win=odds.win[index],
                tie=odds.tie[index],
                equity=odds.equity[index],
            )
        )
    winners: tuple[int, ...] = ()
    explanation = ""
    if complete:
        final = [v for v in values if v is not None]
        top = max(final)
        winners = tuple(i for i, v in enumerate(final) if v == top)
        explanation = _explain(query, final, winners)
    results = [_with_facts(r, query.board, won=i in winners) for i, r in enumerate(results)]
    return ShowdownReport(tuple(results), query.board, complete, winners, explanation, odds.boards)


def _with_facts(result: PlayerResult, board: Sequence[Card], *, won: bool) -> PlayerResult:
    """Add what a league needs to judge the hand: who won, which hole cards made it."""
    if result.value is None:
        return result
    if result.value.category is HandCategory.FOUR_OF_A_KIND:
        quads = result.value.ranks[0]
        in_hand = tuple(c for c in result.cards if c.rank is quads)
    else:
        five = set(best_five(result.cards, board))
        in_hand = tuple(c for c in result.cards if c in five)
    return PlayerResult(**{**result.__dict__, "hole_in_hand": in_hand, "won": won})


def _analyse_lone(query: HandQuery) -> ShowdownReport:
    player = query.players[0]
    value = evaluate(player.cards, query.board)
    complete = len(query.board) in (0, 5)
    result = PlayerResult(
        label=query.label(0),
        name=player.name,
        cards=player.cards,
        value=value,
        best_five=best_five(player.cards, query.board),
        win=1.0,
        tie=0.0,
        equity=1.0,
    )
    result = _with_facts(result, query.board, won=True)
    return ShowdownReport((result,), query.board, complete, (0,), value.name, 1)


def _explain(query: HandQuery, values: Sequence[HandValue], winners: Sequence[int]) -> str:
    """Why the winners win: against the best losing hand, or why the pot is split."""
    top = values[winners[0]]
    losers = [v for i, v in enumerate(values) if i not in winners]
    if len(winners) == 1:
        return explain_win(top, max(losers))
    board_plays = all(
        set(best_five(query.players[i].cards, query.board)) <= set(query.board) for i in winners
    )
    split = "the board plays: split" if board_plays else "identical five-card hands: split"
    if losers:
        split += f"; {explain_win(top, max(losers))}"
    return split


# ---------------------------------------------------------------------------------------
# Pots (2.G.e.1, 2.G.d.5)


@dataclass(frozen=True)
class Pot:
    """The main pot or a side pot.

    Attributes:
        amount: chips in it.
        eligible: the seats that can win it (still in the hand and matched its level).
    """

    amount: int
    eligible: tuple[int, ...]


def build_pots(contributions: Sequence[int], folded: Sequence[bool]) -> tuple[Pot, ...]:
    """Build the main pot and side pots from what each seat put in this hand (2.G.e.1).

    An all-in player "shall only be entitled to win the amount he has remaining from each
    player": each pot is capped at a live player's total, and only players who put in at
    least that much can win it. Folded players' chips stay in the pots they reached.

    Args:
        contributions: per seat, total chips put in this hand (blinds included).
        folded: per seat, whether the player folded.

    Returns:
        The pots, main pot first. A bet nobody matched forms a last pot only its bettor can
        win (he gets it back).

    Raises:
        InvalidShowdownError: lists of different lengths, negative or non-integer chips,
            everybody folded, or a folded player who put in more than every live player.

    >>> build_pots([100, 300, 300], [False, False, False])
    (Pot(amount=300, eligible=(0, 1, 2)), Pot(amount=400, eligible=(1, 2)))
    """
    if len(contributions) != len(folded):
        raise InvalidShowdownError("Give one contribution and one fold flag per seat.")
    for chips in contributions:
        if isinstance(chips, bool) or not isinstance(chips, int) or chips < 0:
            raise InvalidShowdownError(f"{chips!r} is not a chip count (a whole number >= 0).")
    live = [seat for seat, out in enumerate(folded) if not out]
    if not live:
        raise InvalidShowdownError("Everybody folded: somebody must still be in the hand.")
    top_live = max(contributions[seat] for seat in live)
    if max(contributions) > top_live:
        raise InvalidShowdownError(
            "A folded player cannot have put in more than every player still in the hand."
        )
    pots: list[Pot] = []
    previous = 0
    for level in sorted({contributions[seat] for seat in live}):
        amount = sum(min(c, level) - min(c, previous) for c in contributions)
        if amount:
            eligible = tuple(seat for seat in live if contributions[seat] >= level)
            pots.append(Pot(amount, eligible))
        previous = level
    return tuple(pots)


def award(pots: Sequence[Pot], strengths: Sequence[int | None], *, button: int) -> tuple[int, ...]:
    """Pay out the pots: each to its best eligible hand(s), split evenly (2.G.d.5).

    Chips that do not divide evenly go one each to the tied winners in seat order starting
    from the first seat to the left of the button.

    Args:
        pots: from ``build_pots``.
        strengths: per seat, the hand strength (a ``HandValue`` or any int, greater is
            better); None for seats that folded.
        button: the button's seat.

    Returns:
        Per seat, the chips won.

    Raises:
        InvalidShowdownError: the button is not a seat, or an eligible seat has no hand.

    >>> pots = build_pots([25, 25, 25], [False, False, False])
    >>> award(pots, [7, 7, 3], button=0)  # seats 0 and 1 split 75: seat 1 is left of the button
    (37, 38, 0)
    """
    seats = len(strengths)
    if not 0 <= button < seats:
        raise InvalidShowdownError(f"The button must be a seat from 0 to {seats - 1}.")
    won = [0] * seats
    for pot in pots:
        if any(not 0 <= s < seats or strengths[s] is None for s in pot.eligible):
            raise InvalidShowdownError("Every player still in a pot needs a hand.")
        best = max(strengths[s] for s in pot.eligible)  # type: ignore[type-var]
        winners = sorted(
            (s for s in pot.eligible if strengths[s] == best),
            key=lambda s: (s - button - 1) % seats,
        )
        share, odd = divmod(pot.amount, len(winners))
        for place, seat in enumerate(winners):
            won[seat] += share + (1 if place < odd else 0)
    return tuple(won)
