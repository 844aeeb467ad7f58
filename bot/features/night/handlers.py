"""Handlers of the league-night commands: parse, call storage and the rules, word the reply.

A night's date defaults to the next league night (of any location, or of ``location``). On
Discord, ``/td night schedule`` and ``/td night cancel`` describe the scheduled event to make
or remove as an ``Effect`` (``night_event``), which the Discord adapter carries out
(``bot.features.night.discord``); the console and the command line only store the night.
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import replace

from sqlmodel import Session

import rulings
from bot.command.model import Context
from bot.errors import BadOption
from bot.features.league.reads import choices, league_of
from bot.features.night import wording
from bot.reply import Effect, Reply
from storage.errors import NotFound
from storage.guild_settings import ensure_guild_league
from storage.leagues import LeagueInfo, ensure_league
from storage.nights import (
    NightInfo,
    add_rsvp,
    cancel_night,
    list_nights,
    night_on,
    nights_at,
    no_show_counts,
    record_no_shows,
    remove_rsvp,
    rsvps,
    schedule_night,
)
from storage.player_links import linked_player
from storage.seasons import get_season
from storage.tournaments import get_open_tournament

log = logging.getLogger(__name__)

LISTED_DATES = 3
"""How many coming dates ``/td night list`` shows per series."""


def _write_league(session: Session, ctx: Context) -> LeagueInfo:
    if ctx.guild_id is None:
        return ensure_league(session=session, actor=ctx.actor, now=ctx.now())
    return ensure_guild_league(session=session, guild_id=ctx.guild_id, actor=ctx.actor)


def schedule(
    ctx: Context,
    location: str,
    weekday: str,
    time: str,
    every: int = 1,
    ends: dt.date | None = None,
    remind: float = 2,
) -> Reply:
    """``/td night schedule``: the league's weekly night at a host location."""
    day = rulings.parse_weekday(weekday)
    start = rulings.parse_night_start(time)
    first = rulings.first_night(day, ctx.today())
    if ends is not None and ends < first:
        raise BadOption(f"ends: {ends.isoformat()} is before the first night, {first.isoformat()}")
    series = rulings.NightSeries(
        location,
        day,
        start,
        first,
        every_weeks=every,
        ends=ends,
        remind=dt.timedelta(minutes=round(remind * 60)),
    )
    with ctx.transaction() as session:
        league = _write_league(session, ctx)
        info = schedule_night(
            session=session, league_id=league.id, series=series, actor=ctx.actor, now=ctx.now()
        )
    dates = rulings.night_dates(info.series, ctx.today(), count=LISTED_DATES)
    reply = wording.scheduled_reply(info.series, dates)
    return replace(reply, effects=(Effect("night_event", ("create", info.id)),))


def list_series(ctx: Context) -> Reply:
    """``/td night list``: every series and its next dates."""
    with ctx.transaction() as session:
        found = list_nights(
            session=session, league_id=league_of(session=session, guild_id=ctx.guild_id).id
        )
    today = ctx.today()
    return wording.list_reply(
        [
            (info.series, rulings.night_dates(info.series, today, count=LISTED_DATES))
            for info in found
        ]
    )


def cancel(ctx: Context, location: str, date: dt.date | None = None) -> Reply:
    """``/td night cancel``: one night (a date) or the whole series at a location."""
    with ctx.transaction() as session:
        league = league_of(session=session, guild_id=ctx.guild_id)
        info, day = cancel_night(
            session=session,
            league_id=league.id,
            location=location,
            day=date,
            actor=ctx.actor,
            now=ctx.now(),
        )
    effect = ("cancel_series", info.discord_event_id) if day is None else ("cancel", info.id)
    return replace(
        wording.cancelled_reply(info.series, day), effects=(Effect("night_event", effect),)
    )


def noshows(ctx: Context, season: str | None = None) -> Reply:
    """``/td night noshows``: no-shows per player (a season's, or every season's)."""
    with ctx.transaction() as session:
        league = league_of(session=session, guild_id=ctx.guild_id)
        season_id = None
        label = "every season"
        if season is not None:
            found = get_season(session=session, league_id=league.id, name=season)
            season_id, label = found.id, found.name
        counts = no_show_counts(session=session, league_id=league.id, season_id=season_id)
    return wording.noshows_reply(counts, label)


def _night(
    session: Session, league_id: int, day: dt.date | None, location: str | None, today: dt.date
) -> tuple[NightInfo, dt.date]:
    """The series and date meant: ``day`` (at ``location``), or the next league night."""
    if day is not None:
        return night_on(session=session, league_id=league_id, day=day, location=location), day
    infos = (
        nights_at(session=session, league_id=league_id, location=location)
        if location is not None
        else list_nights(session=session, league_id=league_id)
    )
    coming = [(d, info) for info in infos if (d := rulings.next_night(info.series, today))]
    if not coming:
        raise NotFound(
            "there is no league night coming; a director adds one with /td night schedule"
        )
    soonest = min(d for d, _ in coming)
    found = [info for d, info in coming if d == soonest]
    if len(found) > 1:
        places = ", ".join(info.series.location for info in found)
        raise NotFound(f"several nights on {soonest.isoformat()} ({places}): name the location")
    return found[0], soonest


def _discord_name(actor: str) -> str | None:
    """The member's name in a Discord actor (``discord:<id>:<name>``)."""
    parts = actor.split(":", 2)
    return parts[2] if len(parts) == 3 and parts[0] == "discord" and parts[2] else None


def _who(session: Session, ctx: Context, league_id: int, player: str | None) -> str:
    """The name an RSVP is under: the named player (directors), or the caller's own."""
    if player is not None:
        if ctx.user_id is not None and not ctx.is_director:
            own = linked_player(session=session, league_id=league_id, discord_id=ctx.user_id)
            if own is None or rulings.name_key(own.name) != rulings.name_key(player):
                raise BadOption("only a director may answer for another player")
        return player
    if ctx.user_id is not None:
        own = linked_player(session=session, league_id=league_id, discord_id=ctx.user_id)
        if own is not None:
            return own.name
        name = _discord_name(ctx.actor)
        if name:
            return name
    raise BadOption("player: name the player who is coming")


def rsvp(
    ctx: Context,
    action: str = "going",
    night: dt.date | None = None,
    location: str | None = None,
    player: str | None = None,
) -> Reply:
    """``/rsvp``: put a name on a night's list (``cancel`` takes it off)."""
    today = ctx.today()
    with ctx.transaction() as session:
        league = league_of(session=session, guild_id=ctx.guild_id)
        info, day = _night(session, league.id, night, location, today)
        name = _who(session, ctx, league.id, player)
        if action == "cancel":
            removed = remove_rsvp(session=session, info=info, day=day, name=name)
            if not removed and player is None and ctx.user_id is not None:
                removed = remove_rsvp(session=session, info=info, day=day, discord_id=ctx.user_id)
            coming = len(rsvps(session=session, info=info, day=day))
            return wording.rsvp_cancelled_reply(info.series, day, name, bool(removed), coming)
        added = add_rsvp(
            session=session,
            info=info,
            day=day,
            name=name,
            discord_id=ctx.user_id if player is None else None,
            source="command",
            today=today,
            now=ctx.now(),
        )
        coming = len(rsvps(session=session, info=info, day=day))
    return wording.rsvp_reply(info.series, day, name, added, coming)


def night(ctx: Context, date: dt.date | None = None, location: str | None = None) -> Reply:
    """``/night``: who is coming (count first, then names)."""
    with ctx.transaction() as session:
        league = league_of(session=session, guild_id=ctx.guild_id)
        info, day = _night(session, league.id, date, location, ctx.today())
        names = [r.name for r in rsvps(session=session, info=info, day=day)]
    return wording.night_reply(info.series, day, names, ctx.settings.timezone)


# -- the night's tournament (called by bot.features.tournament.handlers) ---------------------


def _tonight(session: Session, league_id: int, location: str, day: dt.date) -> NightInfo | None:
    try:
        return night_on(session=session, league_id=league_id, day=day, location=location)
    except NotFound:
        return None


def rsvp_names(session: Session, league_id: int, location: str, day: dt.date) -> list[str]:
    """The RSVP list of the league night at ``location`` on ``day`` (empty when none)."""
    info = _tonight(session, league_id, location, day)
    return [] if info is None else [r.name for r in rsvps(session=session, info=info, day=day)]


def record_night_no_shows(
    session: Session,
    league_id: int,
    location: str,
    day: dt.date,
    signed_in: list[str],
    season: str | None,
) -> Reply | None:
    """At a finish: store the night's no-shows; the directors' notice, or None when none."""
    info = _tonight(session, league_id, location, day)
    if info is None:
        return None
    season_id = None
    if season is not None:
        season_id = get_season(session=session, league_id=league_id, name=season).id
    names = record_no_shows(
        session=session,
        league_id=league_id,
        info=info,
        day=day,
        signed_in=signed_in,
        season_id=season_id,
    )
    return wording.no_shows_notice(location, day, names) if names else None


def rsvp_first_choices(
    *, session: Session, guild_id: int | None, channel_id: int, typed: str, today: dt.date
) -> list[str]:
    """Autocomplete for a sign-in: tonight's RSVP'd players not signed in yet, then the rest."""
    others = choices(session=session, guild_id=guild_id, what="player", typed=typed)
    try:
        record = get_open_tournament(session=session, channel_id=channel_id)
    except NotFound:
        return others
    coming = rsvp_names(session, record.league_id, record.night.setup.location, today)
    signed = [entrant.name for entrant in record.night.chart.players.values()]
    key = rulings.name_key(typed)
    first = [n for n in rulings.ordered_rsvps(coming, signed) if key in rulings.name_key(n)]
    return (first + [n for n in others if n not in first])[:25]
