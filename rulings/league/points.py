"""Regular Points and Bonus Points for one event (BTown 1.C, 2.E.f, 2.F.b, 2.G.e.2).

>>> from rulings.league.rules import load_league_rules
>>> rules = load_league_rules()
>>> finish_points([["Alice"], ["Bob"], ["Carol", "Dave"]], rules)["Carol"]
Points(rp=650, bp=75)
>>> receipt_points(1250, rules)
Points(rp=0, bp=240)
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction

from rulings.errors import EventFormatError
from rulings.league.events import EventRecord, parse_premium_hand
from rulings.league.names import name_key
from rulings.league.rules import LeagueRules

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Points:
    """Regular Points and Bonus Points; adds with ``+`` and ``sum()``.

    >>> sum([Points(1, 2), Points(3, 4)])
    Points(rp=4, bp=6)
    """

    rp: int = 0
    bp: int = 0

    def __add__(self, other: Points) -> Points:
        return Points(self.rp + other.rp, self.bp + other.bp)

    def __radd__(self, other: object) -> Points:
        if other == 0:  # sum() starts from 0
            return self
        if isinstance(other, Points):
            return other + self
        return NotImplemented

    @property
    def total(self) -> int:
        """RP plus BP."""
        return self.rp + self.bp


ZERO = Points()


@dataclass(frozen=True)
class PointsBreakdown:
    """One player's points in one event, by source."""

    finish: Points = ZERO
    bounties: Points = ZERO
    premium: Points = ZERO
    second_chance: Points = ZERO
    receipts: Points = ZERO

    @property
    def total(self) -> Points:
        """All sources together."""
        return self.finish + self.bounties + self.premium + self.second_chance + self.receipts


def _round(value: Fraction, rounding: str) -> int:
    if rounding == "down":
        return value.numerator // value.denominator
    if rounding == "up":
        return -(-value.numerator // value.denominator)
    return int((value + Fraction(1, 2)).numerator // (value + Fraction(1, 2)).denominator)


def share_points(total: int, players: int, rules: LeagueRules) -> int:
    """Split points among tied players, rounded as the league says.

    Args:
        total: The points of every position the tie covers, added up.
        players: How many players share them.
        rules: Supplies ``tie_rounding``.

    Returns:
        Each player's share.

    Raises:
        ValueError: ``players`` below 1 (a programming error).

    >>> from rulings.league.rules import load_league_rules
    >>> share_points(125, 2, load_league_rules())
    63
    """
    if players < 1:
        raise ValueError("players must be >= 1")
    if total % players == 0:  # every place alone, or an even split: no rounding to do
        return total // players
    return _round(Fraction(total, players), rules.tie_rounding)


def _table(values: Sequence[int], position: int) -> int:
    return values[position - 1] if position <= len(values) else 0


def finish_points(finish: Sequence[Sequence[str]], rules: LeagueRules) -> dict[str, Points]:
    """Award RP and BP by finishing position; tied players share what their places earn.

    Players listed at the same place share equally the points of every place they cover
    (2.G.e.2): two players tied for 3rd share 3rd and 4th. A heads-up chop (2.F.b) is simply
    1st and 2nd; a player who withdrew in the points keeps the points of their place (2.E.f).

    Args:
        finish: Groups of names, 1st place first.
        rules: The league's point tables.

    Returns:
        Name -> points, for every name in ``finish`` (0 beyond the tables).

    Raises:
        EventFormatError: An empty group.

    >>> from rulings.league.rules import load_league_rules
    >>> finish_points([["Moe"], ["Larry"]], load_league_rules())["Larry"]
    Points(rp=800, bp=200)
    """
    out: dict[str, Points] = {}
    position = 1
    for group in finish:
        if not group:
            raise EventFormatError(f"finish place {position}: empty")
        covered = range(position, position + len(group))
        rp = sum(_table(rules.regular_points, p) for p in covered)
        bp = sum(_table(rules.bonus_points, p) for p in covered)
        share = Points(share_points(rp, len(group), rules), share_points(bp, len(group), rules))
        for name in group:
            out[name] = share
        position += len(group)
    return out


def bounty_points(chips: int, rules: LeagueRules) -> Points:
    """RP for bounty chips turned in (1.C.a.3).

    Args:
        chips: Bounty chips, >= 0.
        rules: Supplies ``bounty_chip_rp``.

    Returns:
        The points.

    Raises:
        EventFormatError: Negative chips.

    >>> from rulings.league.rules import load_league_rules
    >>> bounty_points(2, load_league_rules())
    Points(rp=100, bp=0)
    """
    if chips < 0:
        raise EventFormatError(f"bounty chips must be >= 0, not {chips}")
    return Points(rp=chips * rules.bounty_chip_rp)


def premium_hand_points(hand: str, rules: LeagueRules) -> Points:
    """RP (and the royal flush's BP) for a premium hand won at showdown (1.C.a.2, 1.C.b).

    Args:
        hand: ``royal_flush``, ``straight_flush`` or ``quads``.
        rules: Supplies ``premium_hand_rp`` and ``royal_flush_bp``.

    Returns:
        The points; a hand the league does not reward earns nothing.

    Raises:
        EventFormatError: Not a premium hand.

    >>> from rulings.league.rules import load_league_rules
    >>> premium_hand_points("royal_flush", load_league_rules())
    Points(rp=200, bp=100)
    """
    key = parse_premium_hand(hand)
    rp = rules.premium_hand_rp.get(key, 0)
    bp = rules.royal_flush_bp if key == "royal_flush" and rp > 0 else 0
    return Points(rp=rp, bp=bp)


def second_chance_points(rules: LeagueRules) -> Points:
    """BP for winning a second-chance game (1.C.b; no RP, 4.C of the table rules).

    Args:
        rules: Supplies ``second_chance_bp``.

    Returns:
        The points.
    """
    return Points(bp=rules.second_chance_bp)


def receipt_points(amount_cents: int, rules: LeagueRules) -> Points:
    """BP for a food and drink receipt (1.C.b).

    With ``receipt_full_dollars_only`` (the default) only full dollars count: $12.50 earns
    20 x 12 = 240 BP. Otherwise cents count and the result is rounded down.

    Args:
        amount_cents: The receipt's amount in cents.
        rules: Supplies the rate, the full-dollar setting and the largest believable receipt.

    Returns:
        The points.

    Raises:
        EventFormatError: A negative amount or one above ``receipt_max_cents``.
    """
    if amount_cents < 0:
        raise EventFormatError("a receipt amount cannot be negative")
    if amount_cents > rules.receipt_max_cents:
        raise EventFormatError(
            f"a receipt of ${amount_cents / 100:,.2f} is above "
            f"${rules.receipt_max_cents / 100:,.2f}; check for a typo"
        )
    if rules.receipt_full_dollars_only:
        return Points(bp=(amount_cents // 100) * rules.receipt_bp_per_dollar)
    return Points(bp=amount_cents * rules.receipt_bp_per_dollar // 100)


def _without_owner(
    finish: Sequence[Sequence[str]], owner_key: str, rules: LeagueRules
) -> tuple[tuple[str, ...], ...]:
    if rules.owner_positions_vacant:
        return tuple(tuple(g) for g in finish)
    groups = (tuple(n for n in g if name_key(n) != owner_key) for g in finish)
    return tuple(g for g in groups if g)


def event_points(
    event: EventRecord, rules: LeagueRules, *, owner: str | None = None
) -> dict[str, PointsBreakdown]:
    """Score one event: every participant with their points by source.

    A regular event pays finish points, bounties, premium hands, second-chance wins and
    receipts. A ``second_chance`` event pays its winner(s) (1st place, shared if tied, plus
    ``second_chance_winners``) the second-chance BP, and premium hands and receipts. A TOC
    ends the season, so it pays no league points at all.

    The owner (``owner``, else ``rules.owner``) plays but earns nothing (1.B.b); with
    ``owner_positions_vacant`` nobody moves up into the owner's place, which keeps its points
    unawarded (a tie with the owner is still shared as if the owner earned a share).

    Args:
        event: The checked event.
        rules: The league's rules.
        owner: The owner's name, if different from ``rules.owner``.

    Returns:
        Name -> breakdown for every participant, in ``event.participants()`` order.

    Raises:
        EventFormatError: A receipt above the league's limit.
    """
    owner_name = owner if owner is not None else rules.owner
    owner_key = name_key(owner_name) if owner_name else None
    parts: dict[str, dict[str, Points]] = {name: {} for name in event.participants()}
    keys = {name_key(name): name for name in parts}

    def add(name: str, source: str, points: Points) -> None:
        slot = parts[keys[name_key(name)]]
        slot[source] = slot.get(source, ZERO) + points

    if event.kind != "toc":
        if event.kind == "regular":
            finish = _without_owner(event.finish, owner_key, rules) if owner_key else event.finish
            for name, pts in finish_points(finish, rules).items():
                add(name, "finish", pts)
            for name, chips in event.bounties.items():
                add(name, "bounties", bounty_points(chips, rules))
        else:
            for name in event.finish[0] if event.finish else ():
                share = share_points(rules.second_chance_bp, len(event.finish[0]), rules)
                add(name, "second_chance", Points(bp=share))
        for hand in event.premium_hands:
            add(hand.player, "premium", premium_hand_points(hand.hand, rules))
        for name in event.second_chance_winners:
            add(name, "second_chance", second_chance_points(rules))
        for receipt in event.receipts:
            add(receipt.player, "receipts", receipt_points(receipt.amount_cents, rules))

    out: dict[str, PointsBreakdown] = {}
    for name, sources in parts.items():
        if owner_key is not None and name_key(name) == owner_key:
            out[name] = PointsBreakdown()
        else:
            out[name] = PointsBreakdown(**sources)
    log.debug("scored %s %s on %s: %d players", event.location, event.kind, event.date, len(out))
    return out


def finish_list_points(
    finish: Iterable[Sequence[str]],
    rules: LeagueRules,
    *,
    kind: str,
    owner: str | None = None,
) -> Iterator[tuple[str, int, int, PointsBreakdown]]:
    """Score a night that is a finish list only (a CSV), one tie group at a time.

    What ``event_points`` gives an event with this finish and nothing else (no ``played``,
    no awards), without holding the night: points depend on a player's place and tie only.

    Args:
        finish: Tie groups, 1st place first (read lazily, one group at a time).
        rules: The league's rules.
        kind: ``regular``, ``second_chance`` or ``toc``.
        owner: The owner's name, if different from ``rules.owner``.

    Yields:
        (name, place, tie size, breakdown) for each name, in finish order; the place is the
        group's first (a tie at 3rd: 3), counted with the owner in it.

    Raises:
        EventFormatError: An empty group.
    """
    owner_name = owner if owner is not None else rules.owner
    owner_key = name_key(owner_name) if owner_name else None
    vacant = rules.owner_positions_vacant
    place = 1  # the place as recorded
    scored = 1  # the place scored: without the owner unless owner places stay vacant
    first = True
    for group in finish:
        if not group:
            raise EventFormatError(f"finish place {place}: empty")
        size = len(group)
        owners = 0 if owner_key is None else sum(name_key(n) == owner_key for n in group)
        paid = size if vacant else size - owners
        share = ZERO
        if kind == "regular" and paid:
            covered = range(scored, scored + paid)
            rp = sum(_table(rules.regular_points, p) for p in covered)
            bp = sum(_table(rules.bonus_points, p) for p in covered)
            share = Points(share_points(rp, paid, rules), share_points(bp, paid, rules))
        elif kind == "second_chance" and first:
            share = Points(bp=share_points(rules.second_chance_bp, size, rules))
        if kind == "regular":
            breakdown = PointsBreakdown(finish=share)
        elif kind == "second_chance" and first:
            breakdown = PointsBreakdown(second_chance=share)
        else:
            breakdown = PointsBreakdown()
        for name in group:
            is_owner = owner_key is not None and name_key(name) == owner_key
            yield name, place, size, PointsBreakdown() if is_owner else breakdown
        place += size
        scored += paid
        first = False
