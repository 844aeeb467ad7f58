"""An event's points as result rows: one row per participant, points stored per component.

Points are computed once, by ``rulings.event_points``; an import writes these rows and a
re-score compares them with the stored ones.
"""

from __future__ import annotations

import logging
from typing import Any

from rulings import EventRecord, LeagueRules, PointsBreakdown, event_points, name_key
from storage.players import PlayerDirectory

log = logging.getLogger(__name__)

COMPONENTS = ("finish", "bounty", "premium", "second_chance", "receipt")
"""The parts of a player's points, each stored as ``<part>_rp`` and ``<part>_bp``."""

POINT_COLUMNS = (*(f"{c}_{u}" for c in COMPONENTS for u in ("rp", "bp")), "rp", "bp")
"""Every points column of a result row (the components, then the totals)."""


def component_values(breakdown: PointsBreakdown) -> dict[str, int]:
    """Return the points columns of one player's breakdown."""
    total = breakdown.total
    return {
        "finish_rp": breakdown.finish.rp,
        "finish_bp": breakdown.finish.bp,
        "bounty_rp": breakdown.bounties.rp,
        "bounty_bp": breakdown.bounties.bp,
        "premium_rp": breakdown.premium.rp,
        "premium_bp": breakdown.premium.bp,
        "second_chance_rp": breakdown.second_chance.rp,
        "second_chance_bp": breakdown.second_chance.bp,
        "receipt_rp": breakdown.receipts.rp,
        "receipt_bp": breakdown.receipts.bp,
        "rp": total.rp,
        "bp": total.bp,
    }


def result_rows(
    record: EventRecord,
    rules: LeagueRules,
    directory: PlayerDirectory,
    event_id: int,
    season_id: int,
    location_id: int,
) -> list[dict[str, Any]]:
    """Return the result rows of one event (``_name``: the name as recorded, not a column).

    Every participant's ``player_id`` must be in ``directory`` (resolved already).
    """
    points = {name_key(n): b for n, b in event_points(record, rules, owner=rules.owner).items()}
    positions: dict[str, tuple[int, int]] = {}
    position = 1
    for group in record.finish:
        for name in group:
            positions[name_key(name)] = (position, len(group))
        position += len(group)
    rows = []
    for name in record.participants():
        key = name_key(name)
        place, tie = positions.get(key, (None, 1))
        row: dict[str, Any] = {
            "_name": name,
            "event_id": event_id,
            "player_id": directory.ids[key],
            "season_id": season_id,
            "location_id": location_id,
            "position": place,
            "tie_size": tie,
            "is_counted": record.kind != "toc",
            "is_regular": record.kind == "regular",
        }
        breakdown = points.get(key)
        if breakdown is None:
            row.update(dict.fromkeys(POINT_COLUMNS, 0))
        else:
            row.update(component_values(breakdown))
        rows.append(row)
    return rows
