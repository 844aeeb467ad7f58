"""Leagues (one per Discord guild, plus the CLI's ``default``), their rules and locations."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, col, select

from rulings import (
    MAX_ID,
    SIMILAR_NAME_SCORE,
    SUGGEST_SCORE,
    LeagueRules,
    check_name,
    load_league_rules,
    name_key,
    similar_name,
)
from storage.audit import add_audit_entry
from storage.errors import AlreadyExists, NotFound
from storage.league_models import League, Location
from storage.light import DEFAULT_LEAGUE, only_league_guild_of

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LeagueInfo:
    """A league as stored: its rules are ``preset`` with ``overrides`` applied."""

    id: int
    name: str
    guild_id: int | None
    preset: str
    overrides: Mapping[str, Any]


@dataclass(frozen=True)
class LocationInfo:
    """A host location."""

    id: int
    name: str


def _info(league: League) -> LeagueInfo:
    return LeagueInfo(
        id=league.id or 0,
        name=league.name,
        guild_id=league.guild_id,
        preset=league.preset,
        overrides=dict(league.overrides or {}),
    )


def get_league(
    *, session: Session, name: str | None = None, guild_id: int | None = None
) -> LeagueInfo:
    """Return the league of a guild, or by name (``default`` when neither is given).

    Raises:
        NotFound: no such league (a guild id beyond what the database stores names none).
    """
    if guild_id is not None and not 0 <= guild_id <= MAX_ID:
        raise NotFound(f"there is no league for guild {guild_id} (an id beyond 64 bits)")
    query = select(League)
    if guild_id is not None:
        query = query.where(League.guild_id == guild_id)
    else:
        query = query.where(League.name == (name or DEFAULT_LEAGUE))
    league = session.exec(query).first()
    if league is None:
        what = f"guild {guild_id}" if guild_id is not None else f"'{name or DEFAULT_LEAGUE}'"
        raise NotFound(f"there is no league for {what} yet")
    return _info(league)


def league_for(*, session: Session, guild_id: int | None) -> LeagueInfo:
    """The league a command reads: a server's (``guild_id``), else the database's own.

    The one translation from a Discord server to its league for reading (``ensure_league``
    is the one for writing); nothing is written.

    Raises:
        NotFound: no league yet, said in words a player understands (how one starts).
    """
    if guild_id is not None and not 0 <= guild_id <= MAX_ID:
        return get_league(session=session, guild_id=guild_id)  # says why there is none
    try:
        return get_league(session=session, guild_id=guild_id)
    except NotFound:
        if guild_id is None:
            raise NotFound("there is no league yet; record an event first") from None
        raise NotFound(
            "this server has no league yet; a director starts it by recording an event"
        ) from None


def ensure_league(
    *,
    session: Session,
    name: str | None = None,
    guild_id: int | None = None,
    preset: str = "btown",
    actor: str = "system",
    now: dt.datetime | None = None,
) -> LeagueInfo:
    """Return the league of a guild (or by name), creating it with ``preset`` rules if missing."""
    try:
        return get_league(session=session, name=name, guild_id=guild_id)
    except NotFound:
        pass
    load_league_rules(preset)  # refuses an unknown preset before anything is written
    league_name = name or (f"guild-{guild_id}" if guild_id is not None else DEFAULT_LEAGUE)
    league = League(name=league_name, guild_id=guild_id, preset=preset, overrides={})
    session.add(league)
    session.flush()
    info = _info(league)
    add_audit_entry(
        session=session,
        league_id=info.id,
        actor=actor,
        action="league.create",
        target=f"league:{info.name}",
        after={"preset": preset, "guild_id": guild_id},
        now=now,
    )
    return info


def get_league_rules(*, session: Session, league_id: int) -> LeagueRules:
    """Return the league's rules: its preset with its overrides applied."""
    league = session.get(League, league_id)
    if league is None:
        raise NotFound(f"there is no league {league_id}")
    return load_league_rules(league.preset, dict(league.overrides or {}))


def list_locations(*, session: Session, league_id: int) -> list[LocationInfo]:
    """Return the league's locations by name."""
    query = select(Location).where(Location.league_id == league_id).order_by(col(Location.name_key))
    return [LocationInfo(id=loc.id or 0, name=loc.name) for loc in session.exec(query)]


def get_location(*, session: Session, league_id: int, name: str) -> LocationInfo:
    """Return a location by name (case-insensitive).

    Raises:
        NotFound: no such location; the message suggests the closest one.
    """
    key = name_key(name)
    loc = session.exec(
        select(Location).where(Location.league_id == league_id, Location.name_key == key)
    ).first()
    if loc is None:
        known = {x.name_key: x.name for x in list_locations_rows(session, league_id)}
        hint = similar_name(key, known, SUGGEST_SCORE)
        extra = f"; did you mean '{hint}'?" if hint else ""
        raise NotFound(f"there is no location '{name}'{extra}")
    return LocationInfo(id=loc.id or 0, name=loc.name)


def list_locations_rows(session: Session, league_id: int) -> list[Location]:
    """Return the league's location rows (storage-internal helper)."""
    return list(session.exec(select(Location).where(Location.league_id == league_id)))


def add_location(
    *,
    session: Session,
    league_id: int,
    name: str,
    allow_similar: bool = False,
    actor: str,
    now: dt.datetime | None = None,
) -> LocationInfo:
    """Add a host location.

    Raises:
        AlreadyExists: the location exists, or (unless ``allow_similar``) one with a very
            similar name does.
    """
    cleaned = check_name(name, "location name")
    key = name_key(cleaned)
    known = {x.name_key: x.name for x in list_locations_rows(session, league_id)}
    if key in known:
        raise AlreadyExists(f"the location '{known[key]}' exists already")
    hint = None if allow_similar else similar_name(key, known, SIMILAR_NAME_SCORE)
    if hint is not None:
        raise AlreadyExists(
            f"the location '{cleaned}' looks like the existing '{hint}'; use '{hint}' "
            f"or confirm it is a new location"
        )
    loc = Location(league_id=league_id, name=cleaned, name_key=key)
    session.add(loc)
    session.flush()
    add_audit_entry(
        session=session,
        league_id=league_id,
        actor=actor,
        action="location.add",
        target=f"location:{cleaned}",
        after={"name": cleaned},
        now=now,
    )
    return LocationInfo(id=loc.id or 0, name=loc.name)


def list_leagues(*, session: Session) -> list[LeagueInfo]:
    """Every league in the database, by id (``pokerfloor league list``)."""
    return [_info(league) for league in session.exec(select(League).order_by(col(League.id))).all()]


def only_league_guild(*, session: Session) -> int | None:
    """The league a command line without ``--guild`` speaks for: its Discord server's id.

    The database's only league (a Discord server's, or the command line's own); with none yet,
    or with the command line's own among several, the command line's own (None).

    Raises:
        NotFound: several Discord servers' leagues and no league of the command line's own.
    """
    return only_league_guild_of([league.guild_id for league in list_leagues(session=session)])
