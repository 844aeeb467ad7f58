"""An event's points as result rows: one row per participant, points stored per component.

Points are computed once, by ``rulings.event_points``; an import writes these rows and a
re-score compares them with the stored ones.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

from rulings import EventRecord, LeagueRules, PointsBreakdown, event_points, name_key
from storage.players import PlayerDirectory

log = logging.getLogger(__name__)

COMPONENTS = ("finish", "bounty", "premium", "second_chance", "receipt")
"""The parts of a player's points, each stored as ``<part>_rp`` and ``<part>_bp``."""

POINT_COLUMNS = (*(f"{c}_{u}" for c in COMPONENTS for u in ("rp", "bp")), "rp", "bp")
"""Every points column of a result row (the components, then the totals)."""


def component_values(breakdown: PointsBreakdown) -> dict[str, int]:
    """Return the points columns of one player's breakdown.

    The totals are ``breakdown.total``'s, added here as integers (``total`` builds a
    ``Points`` a source: four objects a player, for every row of a night).
    """
    f, b, p, s, r = (
        breakdown.finish,
        breakdown.bounties,
        breakdown.premium,
        breakdown.second_chance,
        breakdown.receipts,
    )
    return {
        "finish_rp": f.rp,
        "finish_bp": f.bp,
        "bounty_rp": b.rp,
        "bounty_bp": b.bp,
        "premium_rp": p.rp,
        "premium_bp": p.bp,
        "second_chance_rp": s.rp,
        "second_chance_bp": s.bp,
        "receipt_rp": r.rp,
        "receipt_bp": r.bp,
        "rp": f.rp + b.rp + p.rp + s.rp + r.rp,
        "bp": f.bp + b.bp + p.bp + s.bp + r.bp,
    }


def result_rows(
    record: EventRecord,
    rules: LeagueRules,
    directory: PlayerDirectory,
    event_id: int,
    season_id: int,
    location_id: int,
) -> Iterator[dict[str, Any]]:
    """Yield the result rows of one event (``_name``: the name as recorded, not a column).

    One row at a time, so an import writes a night of any size in bounded chunks. Every
    participant's ``player_id`` must be in ``directory`` (resolved already).
    """
    places = _places(record.finish)
    # event_points lists every participant, finishers first in finish order (its contract),
    # so each finisher's place comes from walking the groups beside it: no map of the night.
    for name, breakdown in event_points(record, rules, owner=rules.owner).items():
        place, tie = next(places, (None, 1))
        row: dict[str, Any] = {
            "_name": name,
            "event_id": event_id,
            "player_id": directory.ids[name_key(name)],
            "season_id": season_id,
            "location_id": location_id,
            "position": place,
            "tie_size": tie,
            "is_counted": record.kind != "toc",
            "is_regular": record.kind == "regular",
        }
        row.update(component_values(breakdown))
        yield row


def _places(finish: tuple[tuple[str, ...], ...]) -> Iterator[tuple[int, int]]:
    """Yield (place, tie size) for each finisher in finish order (a tie at 3rd: 3, 2 twice)."""
    place = 1
    for group in finish:
        for _ in group:
            yield place, len(group)
        place += len(group)
