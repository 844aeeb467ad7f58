"""Season standings: rank per-player totals (aggregated by storage) with a fixed tie-break.

Tie-break order, after the ranking key (``rp``, ``bp`` or ``total`` = RP + BP):

1. the other point kind (by RP: more BP; by BP: more RP; by total: more RP),
2. more wins (1st places, shared 1st counts),
3. the better best finish (a player who never finished in a place ranks after any who did),
4. fewer events played (the same points earned in fewer nights),
5. the name, case-insensitively (so two rows are never silently tied).

Ranks are therefore 1, 2, 3, ... with no shared rank; ``tied_on_points`` tells a display
which neighbours were separated only by the tie-break.

>>> rows = [StandingRow("Bob", 900, 100, 3), StandingRow("Amy", 900, 100, 3)]
>>> [(r.rank, r.row.player) for r in rank_standings(rows)]
[(1, 'Amy'), (2, 'Bob')]
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

log = logging.getLogger(__name__)

RankBy = Literal["rp", "bp", "total"]

TIE_BREAK_ORDER = (
    "points (the ranking key)",
    "the other point kind",
    "more wins",
    "better best finish",
    "fewer events",
    "name",
)
"""The documented tie-break order, for help texts."""


@dataclass(frozen=True)
class StandingRow:
    """One player's season (or location) totals, as storage aggregates them.

    Attributes:
        player: Display name.
        rp: Regular Points.
        bp: Bonus Points.
        events: Events played.
        wins: 1st places.
        best_finish: Best finishing place, or None if never in a place.
    """

    player: str
    rp: int
    bp: int
    events: int
    wins: int = 0
    best_finish: int | None = None

    @property
    def total(self) -> int:
        """RP plus BP."""
        return self.rp + self.bp


@dataclass(frozen=True)
class RankedRow:
    """A standing row with its rank (1 = best), unique within one ranking.

    Attributes:
        rank: 1-based, unique.
        row: The player's totals.
        tied_on_points: True if the row above has the same ranking points (the tie-break
            separated them).
    """

    rank: int
    row: StandingRow
    tied_on_points: bool = False


def _key(by: RankBy) -> Callable[[StandingRow], tuple[int, int, int, int, int, str, str]]:
    def key(r: StandingRow) -> tuple[int, int, int, int, int, str, str]:
        main = {"rp": r.rp, "bp": r.bp, "total": r.total}[by]
        other = r.bp if by == "rp" else r.rp
        best = r.best_finish if r.best_finish is not None else 1 << 30
        return (-main, -other, -r.wins, best, r.events, r.player.casefold(), r.player)

    return key


def ranking_points(row: StandingRow, by: RankBy) -> int:
    """The points a ranking sorts by.

    Args:
        row: A player's totals.
        by: ``rp``, ``bp`` or ``total``.

    Returns:
        RP, BP or RP + BP.
    """
    return {"rp": row.rp, "bp": row.bp, "total": row.total}[by]


def rank_standings(rows: Iterable[StandingRow], *, by: RankBy = "rp") -> list[RankedRow]:
    """Rank players by RP, BP or their total, breaking every tie (see module docstring).

    Args:
        rows: One row per player.
        by: ``rp`` (the overall RP race), ``bp`` (the BP race) or ``total``.

    Returns:
        Ranked rows, best first, ranks 1..n.

    Raises:
        ValueError: ``by`` is not ``rp``, ``bp`` or ``total`` (a programming error).
    """
    if by not in ("rp", "bp", "total"):
        raise ValueError(f"cannot rank by {by!r}")
    ordered = sorted(rows, key=_key(by))
    out: list[RankedRow] = []
    for i, row in enumerate(ordered):
        tied = i > 0 and ranking_points(ordered[i - 1], by) == ranking_points(row, by)
        out.append(RankedRow(i + 1, row, tied))
    return out


def champion(rows: Iterable[StandingRow], *, by: RankBy = "rp") -> StandingRow | None:
    """The leader of a ranking, if anyone scored.

    Args:
        rows: One row per player.
        by: The ranking.

    Returns:
        The first-ranked row, or None if there are no rows or the leader has 0 points.
    """
    ranked = rank_standings(rows, by=by)
    if not ranked or ranking_points(ranked[0].row, by) <= 0:
        return None
    return ranked[0].row
