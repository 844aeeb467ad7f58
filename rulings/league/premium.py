"""Premium-hand points (1.C.a.2, 1.C.b): when a winning hand earns them, and when it does not.

A royal flush earns 200 RP + 100 BP, a straight flush 150 RP, any quads 100 RP (the amounts
come from the league rules, ``rulings.league.points.premium_hand_points``). The hand must be won and
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
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rulings.league.points import premium_hand_points
from rulings.league.rules import LeagueRules

if TYPE_CHECKING:  # only the values a showdown hands in: the league loads no hand tables
    from rulings.poker.hands import HandValue
    from rulings.poker.showdown import PlayerResult, ShowdownReport

log = logging.getLogger(__name__)

_PREMIUM_KEYS = {  # by ``HandCategory`` name
    "ROYAL_FLUSH": "royal_flush",
    "STRAIGHT_FLUSH": "straight_flush",
    "FOUR_OF_A_KIND": "quads",
}


@dataclass(frozen=True)
class PremiumNote:
    """What a premium hand is worth to the player holding it.

    Attributes:
        hand: ``royal_flush``, ``straight_flush`` or ``quads``.
        rp: the regular points it earns (0 when it earns nothing).
        bp: the bonus points it earns (royal flush only).
        earned: whether the conditions are met.
        reason: one sentence for the player ("earns 150 RP (1.C.a.2) ..."), citing the
            section of the league's home book on premium hands, if it has one.
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
    return _PREMIUM_KEYS.get(value.category.name)


def premium_note(player: PlayerResult, *, river: bool, rules: LeagueRules) -> PremiumNote | None:
    """Say whether a player's hand, as a showdown reported it, earns premium-hand points.

    Args:
        player: one player of a showdown report (``rulings.poker.analyse``).
        river: whether the board was complete (the hand "fully played out").
        rules: the league's rules, for the amounts; a league that pays none gets None.

    Returns:
        None when the hand is not a premium hand, or the league pays nothing for it; else the
        note.

    >>> from rulings.league.rules import load_league_rules
    >>> from rulings.poker.showdown import analyse, parse_hand_query
    >>> report = analyse(parse_hand_query("Ah Kh vs 2c 2d board Qh Jh Th 2s 3d"))
    >>> note = premium_note(report.players[0], river=True, rules=load_league_rules("btown"))
    >>> note.rp, note.bp, note.earned
    (200, 100, True)
    """
    if player.value is None:
        return None
    key = premium_key(player.value)
    if key is None:
        return None
    points = premium_hand_points(key, rules)
    if points.rp == 0 and points.bp == 0:
        return None
    worth = f"{points.rp} RP" + (f" + {points.bp} BP" if points.bp else "")
    what = player.value.category.label.lower()
    section = rules.citations.get("premium_hands")
    rule = f" ({section})" if section else ""
    if not player.hole_in_hand:
        reason = f"The {what} is all on the board, so it earns no premium points{rule}."
        return PremiumNote(key, 0, 0, False, reason)
    if not river:
        reason = f"A {what} earns {worth}{rule} if it wins at a showdown after the river."
        return PremiumNote(key, points.rp, points.bp, False, reason)
    if not player.won:
        return PremiumNote(key, 0, 0, False, f"The {what} lost the pot: no premium points.")
    reason = f"Earns {worth} for the {what}{rule}, provided the hand went to a showdown."
    return PremiumNote(key, points.rp, points.bp, True, reason)


def premium_notes(report: ShowdownReport, rules: LeagueRules) -> tuple[PremiumNote | None, ...]:
    """The premium note of every player of a showdown report, in its order.

    Args:
        report: from ``rulings.poker.analyse``.
        rules: the league's rules.

    Returns:
        One note (or None) per player.
    """
    river = len(report.board) == 5
    return tuple(premium_note(p, river=river, rules=rules) for p in report.players)
