"""Re-scoring a season's stored events under other rules: planned first, written after.

A change of a league's rules (``storage.league_rules``) plans the re-score to say what it
changes, and applies it in the same transaction once confirmed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, update
from sqlalchemy import select as sa_select
from sqlmodel import Session, col

from rulings import LeagueRules, parse_event
from storage.event_points import POINT_COLUMNS, result_rows
from storage.events import merge_record_parts
from storage.league_models import Event, Result
from storage.players import PlayerDirectory

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Rescore:
    """What scoring a season's stored events under other rules changes.

    Attributes:
        season: The season's name.
        events: The ids of the events whose points change.
        players: How many players' points change.
        updates: The result rows to rewrite (storage-internal).
    """

    season: str
    events: tuple[int, ...]
    players: int
    updates: tuple[dict[str, Any], ...] = ()


def plan_rescore(
    *, session: Session, league_id: int, season_id: int, season: str, rules: LeagueRules
) -> Rescore:
    """Score every stored event of a season (void ones too) under ``rules``; write nothing.

    Returns:
        The events and players whose points would change, and the rows to rewrite.
    """
    directory = PlayerDirectory(session, league_id)
    stored: dict[tuple[int, int], dict[str, int]] = {}
    for row in session.execute(
        sa_select(
            col(Result.event_id),
            col(Result.player_id),
            *(getattr(Result, c) for c in POINT_COLUMNS),
        ).where(col(Result.season_id) == season_id)
    ):
        stored[(row[0], row[1])] = dict(zip(POINT_COLUMNS, row[2:], strict=True))
    updates: list[dict[str, Any]] = []
    events: set[int] = set()
    players: set[int] = set()
    query = (
        sa_select(col(Event.id), col(Event.location_id), col(Event.record))
        .where(col(Event.league_id) == league_id, col(Event.season_id) == season_id)
        .order_by(col(Event.id))
    )
    nights = [(eid, lid, dict(data)) for eid, lid, data in session.execute(query)]
    merge_record_parts(session, {eid: data for eid, _, data in nights})
    for eid, lid, data in nights:
        record = parse_event(data, max_receipt_cents=1 << 62)  # stored: its amounts were checked
        for scored in result_rows(record, rules, directory, eid, season_id, lid):
            pid = int(scored["player_id"])
            new = {c: int(scored[c]) for c in POINT_COLUMNS}
            if stored.get((eid, pid)) != new:
                events.add(eid)
                players.add(pid)
                updates.append({"b_event": eid, "b_player": pid, **new})
    return Rescore(season, tuple(sorted(events)), len(players), tuple(updates))


def apply_rescore(*, session: Session, rescore: Rescore) -> None:
    """Rewrite the result rows of a planned re-score (in the caller's transaction)."""
    if not rescore.updates:
        return
    statement = (
        update(Result)
        .where(col(Result.event_id) == bindparam("b_event"))
        .where(col(Result.player_id) == bindparam("b_player"))
        .values({c: bindparam(c) for c in POINT_COLUMNS})
    )
    session.connection().execute(statement, list(rescore.updates))
