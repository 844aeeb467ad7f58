"""Premium-hand points (1.C.a.2, 1.C.b): when a winning hand earns them, and when it does not.

A royal flush earns 200 RP + 100 BP, a straight flush 150 RP, any quads 100 RP (the amounts
come from the league rules, ``rulings.points.premium_hand_points``). The hand must be won and
"fully played out (must have a showdown after the river)".

Decision, a premium hand that lies entirely on the board: **no points for anyone.** The
league rewards a player for *winning* a premium hand, and a hand the board makes is made for
every player still in; at least one of the player's own hole cards must be part of the
premium combination itself (one of the four cards of the quads, or one of the five cards of
the straight flush). Quads on the board with the player's kicker playing earn nothing: the
kicker is not the premium hand. Every tied winner who meets the conditions earns the points.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from rulings.cards import Card
from rulings.hands import HandCategory, HandValue, best_five, evaluate
from rulings.league import LeagueRules, load_league_rules
from rulings.points import premium_hand_points

log = logging.getLogger(__name__)

_PREMIUM_KEYS = {
    HandCategory.ROYAL_FLUSH: "royal_flush",
    HandCategory.STRAIGHT_FLUSH: "straight_flush",
    HandCategory.FOUR_OF_A_KIND: "quads",
}


@dataclass(frozen=True)
class PremiumNote:
    """What a premium hand is worth to the player holding it.

    Attributes:
        hand: ``royal_flush``, ``straight_flush`` or ``quads``.
        rp: the regular points it earns (0 when it earns nothing).
        bp: the bonus points it earns (royal flush only).
        earned: whether the conditions are met.
        reason: one sentence for the player ("earns 150 RP (1.C.a.2) ...").
    """

    hand: str
    rp: int
    bp: int
    earned: bool
    reason: str


def premium_key(value: HandValue) -> str | None:
    """The premium-hand key of a hand value, or None.

    Args:
        value: a hand value.

    Returns:
        ``royal_flush``, ``straight_flush``, ``quads`` or None.
    """
    return _PREMIUM_KEYS.get(value.category)


def uses_hole_cards(hole: Sequence[Card], board: Sequence[Card]) -> bool:
    """Whether a hole card is part of the premium combination (not just a kicker).

    Args:
        hole: the player's hole cards.
        board: the community cards.

    Returns:
        True if one of the four quads cards or one of the five straight-flush cards is a
        hole card.

    Raises:
        InvalidCardsError: not 5 to 7 distinct cards in all.
    """
    value = evaluate(hole, board)
    if value.category is HandCategory.FOUR_OF_A_KIND:
        # All four cards of the quads rank are among the cards: is one of them his?
        return any(c.rank is value.ranks[0] for c in hole)
    five = best_five(hole, board)
    return any(c in five for c in hole)


def premium_note(
    hole: Sequence[Card],
    board: Sequence[Card],
    *,
    won: bool,
    rules: LeagueRules | None = None,
) -> PremiumNote | None:
    """Say whether a player's hand earns premium-hand points.

    Args:
        hole: the player's hole cards (two; or all the cards of a lone hand with no board).
        board: the community cards (five after the river).
        won: whether the player won (or tied for) the pot at showdown.
        rules: the league rules for the amounts; the BTown rules by default.

    Returns:
        None when the hand is not a premium hand (or fewer than five cards), else the note.

    Raises:
        InvalidCardsError: more than 7 cards, or a card given twice.

    >>> from rulings.cards import parse_cards
    >>> note = premium_note(parse_cards("Ah Kh"), parse_cards("Qh Jh Th 2c 3d"), won=True)
    >>> note.rp, note.bp, note.earned
    (200, 100, True)
    """
    if len(hole) + len(board) < 5:
        return None
    value = evaluate(hole, board)
    key = premium_key(value)
    if key is None:
        return None
    points = premium_hand_points(key, rules if rules is not None else load_league_rules())
    worth = f"{points.rp} RP" + (f" + {points.bp} BP" if points.bp else "")
    what = value.category.label.lower()
    if points.rp == 0:
        return PremiumNote(key, 0, 0, False, f"This league gives no points for {what}.")
    if board and not uses_hole_cards(hole, board):
        reason = f"The {what} is all on the board, so it earns no premium points (1.C.a.2)."
        return PremiumNote(key, 0, 0, False, reason)
    if len(board) != 5:
        reason = f"A {what} earns {worth} (1.C.a.2) if it wins at a showdown after the river."
        return PremiumNote(key, points.rp, points.bp, False, reason)
    if not won:
        return PremiumNote(key, 0, 0, False, f"The {what} lost the pot: no premium points.")
    reason = f"Earns {worth} for the {what} (1.C.a.2), provided the hand went to a showdown."
    return PremiumNote(key, points.rp, points.bp, True, reason)
