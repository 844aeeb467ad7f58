"""/td's storage calls by server: the server's league, then the storage function.

The handlers (``bot.features.td.handlers``) call these inside their transaction; the wording
(``bot.features.td.wording``) stays pure functions of values.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Collection

from sqlmodel import Session

import rulings
from rulings import (
    LeagueRules,
    check_level,
)
from storage.event_changes import EventEdit, RecordBuilder, amend_event, record_guild_events
from storage.events import (
    EventSummary,
    ImportOutcome,
    list_events,
    void_event,
)
from storage.guild_settings import ensure_guild_league
from storage.league_rules import RulesChange
from storage.leagues import (
    LocationInfo,
    add_location,
    ensure_league,
    get_league_rules,
    league_for,
    list_locations,
)
from storage.players import StrikeInfo, add_strike
from storage.seasons import SeasonInfo, add_season, get_season, list_seasons, set_current_season

log = logging.getLogger(__name__)

MAX_UPLOAD_BYTES = 1_000_000
"""The largest results file a director may attach (JSON or CSV)."""

MAX_NAMES = 200


def record_for(
    *,
    session: Session,
    guild_id: int | None,
    build: RecordBuilder,
    actor: str,
    allow_new: bool | Collection[str] = False,
    allow_suspended: bool | Collection[str] = False,
) -> list[ImportOutcome]:
    """Record events in the server's league (created on the first write).

    ``allow_suspended`` (the command's ``confirm``) records a suspended player anyway (3.B).
    """
    return record_guild_events(
        session=session,
        guild_id=guild_id,
        build=build,
        actor=actor,
        allow_new=allow_new,
        allow_suspended=allow_suspended,
    )


def amend_for(
    *,
    session: Session,
    guild_id: int | None,
    event_id: int,
    edit: EventEdit,
    actor: str,
    reason: str | None = None,
    allow_new: bool | Collection[str] = False,
    allow_suspended: bool | Collection[str] = False,
    unvoid: bool = False,
) -> ImportOutcome:
    """Change one event of the server's league (see ``storage.event_changes.amend_event``).

    ``edit.remove`` takes an award back; ``unvoid`` changes a void event and makes it count.
    """
    league = league_for(session=session, guild_id=guild_id)
    return amend_event(
        session=session,
        league_id=league.id,
        event_id=event_id,
        edit=edit,
        actor=actor,
        reason=reason,
        allow_new=allow_new,
        allow_suspended=allow_suspended,
        unvoid=unvoid,
    )


def void_for(
    *, session: Session, guild_id: int | None, event_id: int, reason: str, actor: str
) -> EventSummary:
    """Void one event of the server's league (it stays on record, no longer counts)."""
    league = league_for(session=session, guild_id=guild_id)
    return void_event(
        session=session, league_id=league.id, event_id=event_id, reason=reason, actor=actor
    )


def strike_for(
    *,
    session: Session,
    guild_id: int | None,
    player: str,
    level: int,
    reason: str,
    actor: str,
    season: str | None = None,
    day: dt.date | None = None,
) -> tuple[StrikeInfo, LeagueRules]:
    """Record a strike (3.B) in the season given (default: the current one).

    ``day`` is when it was given (the command's ``date``, default today in ``TIMEZONE``); the
    suspension counts the events recorded after it.

    Returns:
        The strike and the league's rules (what the strike means, and their citation).

    Raises:
        StrikeError: a level the league does not have.
    """
    league = league_for(session=session, guild_id=guild_id)
    rules = get_league_rules(session=session, league_id=league.id)
    check_level(level, rules)
    found = get_season(session=session, league_id=league.id, name=season)
    info = add_strike(
        session=session,
        league_id=league.id,
        name=player,
        season_id=found.id,
        level=level,
        reason=reason,
        actor=actor,
        day=day,
    )
    return info, rules


def season_add_for(*, session: Session, guild_id: int | None, name: str, actor: str) -> SeasonInfo:
    """Add a season to the server's league."""
    league = ensure_league(session=session, guild_id=guild_id, actor=actor)
    return add_season(session=session, league_id=league.id, name=name, actor=actor)


def location_add_for(
    *, session: Session, guild_id: int | None, name: str, actor: str, confirm: bool = False
) -> LocationInfo:
    """Add a host location to the server's league (a near-duplicate name needs ``confirm``)."""
    league = ensure_league(session=session, guild_id=guild_id, actor=actor)
    return add_location(
        session=session, league_id=league.id, name=name, allow_similar=confirm, actor=actor
    )


def seasons_for(*, session: Session, guild_id: int | None) -> list[SeasonInfo]:
    """The server's seasons, oldest first."""
    return list_seasons(
        session=session, league_id=league_for(session=session, guild_id=guild_id).id
    )


def locations_for(*, session: Session, guild_id: int | None) -> list[LocationInfo]:
    """The server's locations by name."""
    league = league_for(session=session, guild_id=guild_id)
    return list_locations(session=session, league_id=league.id)


def events_for(
    *, session: Session, guild_id: int | None, season: str | None = None
) -> list[EventSummary]:
    """The events of a season (default: the current one), by date."""
    league = league_for(session=session, guild_id=guild_id)
    found = get_season(session=session, league_id=league.id, name=season)
    return list_events(session=session, league_id=league.id, season_id=found.id)


def current_season_for(*, session: Session, guild_id: int | None) -> SeasonInfo:
    """The server's current season."""
    league = league_for(session=session, guild_id=guild_id)
    return get_season(session=session, league_id=league.id)


def set_current_season_for(
    *, session: Session, guild_id: int | None, name: str, actor: str
) -> SeasonInfo:
    """Make a season the server's current season."""
    league = league_for(session=session, guild_id=guild_id)
    return set_current_season(session=session, league_id=league.id, name=name, actor=actor)


def preview_preset_for(
    *, session: Session, guild_id: int, preset: str | None
) -> RulesChange | None:
    """What a preset change would re-score (None when the preset does not change)."""
    from storage.league_rules import preview_rules_change

    league = ensure_guild_league(session=session, guild_id=guild_id, actor="system")
    if preset is None or preset.strip().lower() == league.preset:
        return None
    if preset.strip().lower() not in rulings.league_presets():
        return None  # update_guild_settings refuses it with the known presets
    return preview_rules_change(session=session, league_id=league.id, preset=preset.strip().lower())
