"""Leagues (one per Discord guild, plus the CLI's ``default``), their rules and locations."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rapidfuzz import fuzz, process
from sqlmodel import Session, col, select

from rulings import MAX_ID, LeagueRules, load_league_rules, name_key
from storage.audit import add_audit_entry
from storage.errors import AlreadyExists, NotFound, StorageError, UnconfirmedRescoreError
from storage.league_models import League, Location

log = logging.getLogger(__name__)

DEFAULT_LEAGUE = "default"
SIMILAR_NAME_SCORE = 88.0
"""A new name scoring this much (rapidfuzz ``ratio``) against a known one is a likely duplicate."""
SUGGEST_SCORE = 70.0
"""An unknown name looked up is answered with "did you mean" above this score."""


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


def clean_name(name: str, what: str = "name") -> str:
    """Return ``name`` with spaces collapsed; refuse an empty or over-long one."""
    cleaned = " ".join(str(name).split())
    if not cleaned:
        raise StorageError(f"a {what} can't be empty")
    if len(cleaned) > 100:
        raise StorageError(f"the {what} '{cleaned[:20]}...' is longer than 100 characters")
    return cleaned


def similar_name(
    key: str, known: Mapping[str, str], cutoff: float = SIMILAR_NAME_SCORE
) -> str | None:
    """Return the display name in ``known`` (key -> display) closest to ``key``, if close."""
    if not known:
        return None
    match = process.extractOne(key, list(known), scorer=fuzz.ratio, score_cutoff=cutoff)
    return known[match[0]] if match is not None else None


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
        raise NotFound(f"there is no league for guild {guild_id}")
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


@dataclass(frozen=True)
class RulesChange:
    """A change of a league's rules and what it re-scored.

    Attributes:
        rules: The rules now in force.
        season: The season re-scored (the current one), or None before any season.
        events: Stored events of that season whose points changed.
        players: Players whose points changed.
    """

    rules: LeagueRules
    season: str | None = None
    events: int = 0
    players: int = 0


def _plan(session: Session, league_id: int, rules: LeagueRules) -> Any:
    from storage.events import plan_rescore
    from storage.seasons import get_season

    try:
        season = get_season(session=session, league_id=league_id)
    except NotFound:
        return None
    return plan_rescore(
        session=session, league_id=league_id, season_id=season.id, season=season.name, rules=rules
    )


def preview_rules_change(
    *, session: Session, league_id: int, preset: str | None = None
) -> RulesChange:
    """What switching the league to ``preset`` would re-score, without writing anything.

    Raises:
        LeagueConfigError: an unknown preset.
    """
    league = session.get(League, league_id)
    if league is None:
        raise NotFound(f"there is no league {league_id}")
    rules = load_league_rules(preset or league.preset, dict(league.overrides or {}))
    rescore = _plan(session, league_id, rules)
    if rescore is None:
        return RulesChange(rules)
    return RulesChange(rules, rescore.season, len(rescore.events), rescore.players)


def update_league_rules(
    *,
    session: Session,
    league_id: int,
    preset: str | None = None,
    overrides: Mapping[str, Any] | None = None,
    actor: str,
    confirm: bool = False,
    now: dt.datetime | None = None,
) -> RulesChange:
    """Change the league's preset and/or replace its overrides; the new rules are validated first.

    The stored events of the current season are re-scored under the new rules in the same
    transaction, so its standings never mix two rule sets (earlier seasons keep the rules of
    their day). When that changes anyone's points the change needs ``confirm``.

    Raises:
        LeagueConfigError: an unknown preset or a bad override (nothing is changed).
        UnconfirmedRescoreError: the change re-scores stored events and ``confirm`` is off
            (nothing is changed; the message says how many events and players).
    """
    from storage.events import apply_rescore

    league = session.get(League, league_id)
    if league is None:
        raise NotFound(f"there is no league {league_id}")
    new_preset = preset or league.preset
    new_overrides = dict(overrides) if overrides is not None else dict(league.overrides or {})
    rules = load_league_rules(new_preset, new_overrides)
    rescore = _plan(session, league_id, rules)
    if rescore is not None and rescore.events and not confirm:
        n, p = len(rescore.events), rescore.players
        whose = "1 player's" if p == 1 else f"{p} players'"
        raise UnconfirmedRescoreError(
            f"this change re-scores {n} stored event{'s' if n != 1 else ''} of "
            f"{rescore.season} ({whose} points change); confirm to apply it",
            season=rescore.season,
            events=n,
            players=p,
        )
    before = {"preset": league.preset, "overrides": dict(league.overrides or {})}
    league.preset = new_preset
    league.overrides = new_overrides
    session.add(league)
    session.flush()
    add_audit_entry(
        session=session,
        league_id=league_id,
        actor=actor,
        action="league.rules",
        target=f"league:{league.name}",
        before=before,
        after={"preset": new_preset, "overrides": new_overrides},
        now=now,
    )
    if rescore is None or not rescore.events:
        return RulesChange(rules, rescore.season if rescore else None)
    apply_rescore(session=session, rescore=rescore)
    add_audit_entry(
        session=session,
        league_id=league_id,
        actor=actor,
        action="league.rescore",
        target=f"season:{rescore.season}",
        after={
            "season": rescore.season,
            "events": list(rescore.events),
            "players": rescore.players,
        },
        now=now,
    )
    return RulesChange(rules, rescore.season, len(rescore.events), rescore.players)


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
    cleaned = clean_name(name, "location name")
    key = name_key(cleaned)
    known = {x.name_key: x.name for x in list_locations_rows(session, league_id)}
    if key in known:
        raise AlreadyExists(f"the location '{known[key]}' exists already")
    hint = None if allow_similar else similar_name(key, known)
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
    leagues = list_leagues(session=session)
    if len(leagues) == 1:
        return leagues[0].guild_id
    if not leagues or any(league.guild_id is None for league in leagues):
        return None
    ids = ", ".join(str(league.guild_id) for league in leagues)
    raise NotFound(f"this database holds several leagues; pick one with --guild ({ids})")
