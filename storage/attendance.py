"""How often the league's players come: events played, and the likeliest to come tonight."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import and_, case, func
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from storage.league_models import Event, Player, Result
from storage.players import PlayerDirectory


def count_events_played(*, session: Session, league_id: int, name: str) -> int:
    """How many stored (not void) events a player took part in; 0 for a name nobody has.

    A returning player is one with stored events: the new-player chips (2.C.b.2) are for the
    first night only.
    """
    pid = PlayerDirectory(session, league_id).find(name)
    if pid is None:
        return 0
    count = session.exec(
        select(func.count())
        .select_from(Result)
        .join(Event, col(Event.id) == col(Result.event_id))
        .where(col(Result.player_id) == pid, col(Event.status) == "active")
    ).one()
    return int(count)


def players_by_attendance(*, session: Session, league_id: int, season_id: int | None) -> list[str]:
    """Every player of the league, the likeliest to come tonight first.

    The order: most events played in ``season_id`` (stored, not void), then the latest night
    played (any season), then by name; players who never played come last, by name. The
    sign-in form lists them after tonight's RSVPs.
    """
    stored = col(Event.id).is_not(None)  # a void event's results do not count
    this_season = case((and_(col(Result.season_id) == season_id, stored), 1), else_=0)
    rows = session.execute(
        sa_select(
            col(Player.display_name),
            col(Player.name_key),
            func.coalesce(func.sum(this_season), 0),
            func.max(col(Event.date)),
        )
        .select_from(Player)
        .outerjoin(Result, col(Result.player_id) == col(Player.id))
        .outerjoin(
            Event, and_(col(Event.id) == col(Result.event_id), col(Event.status) == "active")
        )
        .where(col(Player.league_id) == league_id)
        .group_by(col(Player.id), col(Player.display_name), col(Player.name_key))
    ).all()
    never = dt.date.min
    ordered = sorted(rows, key=lambda r: (-int(r[2] or 0), -(r[3] or never).toordinal(), r[1]))
    return [str(r[0]) for r in ordered]
