"""Seasons of a league and their lifecycle: one of them is the league's current season.

Adding a season makes it the current one (``add_season``); ``set_current_season`` picks
another. A result recorded without a season goes to the current season, and standings and the
TOC show it by default. A season first created by an import becomes current only when the
league has no current season yet (importing last year's nights does not move the league back).
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass, replace

from sqlalchemy import func, update
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from rulings import SUGGEST_SCORE, check_name, name_key, similar_name
from storage.audit import add_audit_entry
from storage.errors import AlreadyExists, NotFound
from storage.league_models import Event, Season

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SeasonInfo:
    """A season; ``first``/``last`` are its first and last event dates (None before any)."""

    id: int
    name: str
    first: dt.date | None = None
    last: dt.date | None = None
    is_current: bool = False


def list_seasons(*, session: Session, league_id: int) -> list[SeasonInfo]:
    """Return the league's seasons, oldest first (by first event, then by creation)."""
    query = (
        sa_select(
            col(Season.id),
            col(Season.name),
            func.min(col(Event.date)),
            func.max(col(Event.date)),
            col(Season.is_current),
        )
        .select_from(Season)
        .join(Event, col(Event.season_id) == col(Season.id), isouter=True)
        .where(col(Season.league_id) == league_id)
        .group_by(col(Season.id), col(Season.name), col(Season.is_current))
    )
    seasons = [
        SeasonInfo(id=sid or 0, name=name, first=first, last=last, is_current=bool(current))
        for sid, name, first, last, current in session.execute(query)
    ]
    far = dt.date.max
    seasons.sort(key=lambda s: (s.first or far, s.id))
    return seasons


def get_season(*, session: Session, league_id: int, name: str | None = None) -> SeasonInfo:
    """Return a season by name (case-insensitive), or the current one when ``name`` is None.

    The current season is the one marked current (``add_season``, ``set_current_season``);
    a league whose seasons predate the mark falls back to the season of the latest event.

    Raises:
        NotFound: no such season (the message suggests the closest name), or no season yet.
    """
    seasons = list_seasons(session=session, league_id=league_id)
    if name is None:
        if not seasons:
            raise NotFound("there are no seasons yet; add one with 'season add NAME'")
        marked = [s for s in seasons if s.is_current]
        if marked:
            return marked[0]
        return max(seasons, key=lambda s: (s.last or dt.date.min, s.id))
    key = name_key(name)
    for season in seasons:
        if name_key(season.name) == key:
            return season
    hint = similar_name(key, {name_key(s.name): s.name for s in seasons}, SUGGEST_SCORE)
    extra = f"; did you mean '{hint}'?" if hint else ""
    raise NotFound(f"there is no season '{name}'{extra}")


def make_current_season(*, session: Session, league_id: int, season_id: int) -> None:
    """Mark ``season_id`` as the league's only current season (storage-internal, not audited)."""
    _make_current(session, league_id, season_id)


def _make_current(session: Session, league_id: int, season_id: int) -> None:
    session.execute(
        update(Season)
        .where(col(Season.league_id) == league_id)
        .values(is_current=col(Season.id) == season_id)
    )
    session.flush()


def add_season(
    *, session: Session, league_id: int, name: str, actor: str, now: dt.datetime | None = None
) -> SeasonInfo:
    """Add a season and make it the league's current season.

    Raises:
        AlreadyExists: a season of that name exists.
    """
    cleaned = check_name(name, "season name")
    key = name_key(cleaned)
    existing = session.exec(
        select(Season).where(Season.league_id == league_id, Season.name_key == key)
    ).first()
    if existing is not None:
        raise AlreadyExists(f"the season '{existing.name}' exists already")
    before = _current_name(session, league_id)
    season = Season(league_id=league_id, name=cleaned, name_key=key)
    session.add(season)
    session.flush()
    _make_current(session, league_id, season.id or 0)
    add_audit_entry(
        session=session,
        league_id=league_id,
        actor=actor,
        action="season.add",
        target=f"season:{cleaned}",
        before={"current": before},
        after={"name": cleaned, "current": cleaned},
        now=now,
    )
    return SeasonInfo(id=season.id or 0, name=season.name, is_current=True)


def _current_name(session: Session, league_id: int) -> str | None:
    return session.exec(
        select(Season.name).where(Season.league_id == league_id, col(Season.is_current))
    ).first()


def set_current_season(
    *, session: Session, league_id: int, name: str, actor: str, now: dt.datetime | None = None
) -> SeasonInfo:
    """Make the season ``name`` the league's current season.

    Raises:
        NotFound: no such season (with the closest name).
    """
    found = get_season(session=session, league_id=league_id, name=name)
    before = _current_name(session, league_id)
    if before == found.name:
        return replace(found, is_current=True)
    _make_current(session, league_id, found.id)
    add_audit_entry(
        session=session,
        league_id=league_id,
        actor=actor,
        action="season.current",
        target=f"season:{found.name}",
        before={"current": before},
        after={"current": found.name},
        now=now,
    )
    return replace(found, is_current=True)


def mark_current_if_none(*, session: Session, league_id: int, season_id: int) -> bool:
    """Make ``season_id`` current when the league has no current season (storage-internal).

    Returns:
        Whether it became current.
    """
    if _current_name(session, league_id) is not None:
        return False
    _make_current(session, league_id, season_id)
    return True
