"""Seasons of a league."""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass

from sqlalchemy import func
from sqlmodel import Session, col, select

from rulings import name_key
from storage.audit import add_audit_entry
from storage.errors import AlreadyExists, NotFound
from storage.league_models import Event, Season
from storage.leagues import SUGGEST_SCORE, clean_name, similar_name

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SeasonInfo:
    """A season; ``first``/``last`` are its first and last event dates (None before any)."""

    id: int
    name: str
    first: dt.date | None = None
    last: dt.date | None = None


def list_seasons(*, session: Session, league_id: int) -> list[SeasonInfo]:
    """Return the league's seasons, oldest first (by first event, then by creation)."""
    query = (
        select(
            Season.id,
            Season.name,
            func.min(Event.date),
            func.max(Event.date),
        )
        .select_from(Season)
        .join(Event, col(Event.season_id) == Season.id, isouter=True)
        .where(Season.league_id == league_id)
        .group_by(col(Season.id), col(Season.name))
    )
    seasons = [
        SeasonInfo(id=sid or 0, name=name, first=first, last=last)
        for sid, name, first, last in session.exec(query)
    ]
    far = dt.date.max
    seasons.sort(key=lambda s: (s.first or far, s.id))
    return seasons


def get_season(*, session: Session, league_id: int, name: str | None = None) -> SeasonInfo:
    """Return a season by name (case-insensitive), or the current one when ``name`` is None.

    The current season is the one with the latest event (or the newest, when none has any).

    Raises:
        NotFound: no such season (the message suggests the closest name), or no season yet.
    """
    seasons = list_seasons(session=session, league_id=league_id)
    if name is None:
        if not seasons:
            raise NotFound("there are no seasons yet; import an event first")
        return max(seasons, key=lambda s: (s.last or dt.date.min, s.id))
    key = name_key(name)
    for season in seasons:
        if name_key(season.name) == key:
            return season
    hint = similar_name(key, {name_key(s.name): s.name for s in seasons}, SUGGEST_SCORE)
    extra = f"; did you mean '{hint}'?" if hint else ""
    raise NotFound(f"there is no season '{name}'{extra}")


def add_season(
    *, session: Session, league_id: int, name: str, actor: str, now: dt.datetime | None = None
) -> SeasonInfo:
    """Add a season.

    Raises:
        AlreadyExists: a season of that name exists.
    """
    cleaned = clean_name(name, "season name")
    key = name_key(cleaned)
    existing = session.exec(
        select(Season).where(Season.league_id == league_id, Season.name_key == key)
    ).first()
    if existing is not None:
        raise AlreadyExists(f"the season '{existing.name}' exists already")
    season = Season(league_id=league_id, name=cleaned, name_key=key)
    session.add(season)
    session.flush()
    add_audit_entry(
        session=session,
        league_id=league_id,
        actor=actor,
        action="season.add",
        target=f"season:{cleaned}",
        after={"name": cleaned},
        now=now,
    )
    return SeasonInfo(id=season.id or 0, name=season.name)
