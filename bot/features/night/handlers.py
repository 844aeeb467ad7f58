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
from bot.features.night import wording
from bot.features.td.approval import answer_of, director_name, require_setting
from bot.features.tournament.handlers import register
from bot.reply import Effect, Reply
from storage.errors import NotFound
from storage.nights import (
    NightInfo,
    add_rsvp,
    ask_checkin,
    cancel_night,
    list_nights,
    night_on,
    nights_at,
    no_show_counts,
    peek_checkin,
    remove_rsvp,
    rsvps,
    schedule_night,
    take_checkin,
    tournament_channel,
)
from storage.player_links import linked_player
from storage.seasons import get_season
from storage.tournaments import get_open_tournament

log = logging.getLogger(__name__)

LISTED_DATES = 3
"""How many coming dates ``/td night list`` shows per series."""


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
        league = ctx.league(session)
        info = schedule_night(
            session=session, league_id=league.id, series=series, actor=ctx.actor, now=ctx.now()
        )
    dates = rulings.night_dates(info.series, ctx.today(), count=LISTED_DATES)
    reply = wording.scheduled_reply(info.series, dates)
    return replace(reply, effects=(Effect("night_event", ("create", info.id)),))


def list_series(ctx: Context) -> Reply:
    """``/td night list``: every series and its next dates."""
    with ctx.transaction() as session:
        found = list_nights(session=session, league_id=ctx.existing_league(session).id)
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
        league = ctx.existing_league(session)
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
        league = ctx.existing_league(session)
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
        league = ctx.existing_league(session)
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
        league = ctx.existing_league(session)
        info, day = _night(session, league.id, date, location, ctx.today())
        names = [r.name for r in rsvps(session=session, info=info, day=day)]
    return wording.night_reply(info.series, day, names, ctx.settings.timezone)


# -- players checking themselves in ------------------------------------------------------------

CHECKIN = "checkin"
"""The action of a check-in request's Approve and Refuse buttons."""


def self_checkin(ctx: Context) -> Reply:
    """``/checkin``: ask to be signed in to the channel's tournament; a director approves.

    Nothing counts (no seat, no chips) until a director presses Approve: that is an ordinary
    sign-in (``/tournament register``), with register's stacks and late rules.
    """
    with ctx.transaction() as session:
        league = ctx.existing_league(session)
        require_setting(
            session,
            ctx,
            lambda s: s.self_checkin,
            "Players do not check themselves in here: ask a director.",
        )
        record = get_open_tournament(session=session, channel_id=ctx.channel)
        name = _who(session, ctx, league.id, None)
        signed = {rulings.name_key(e.name) for e in record.night.chart.players.values()}
        if rulings.name_key(name) in signed:
            raise BadOption(f"{name} is signed in already.")
        request_id = ask_checkin(
            session=session,
            tournament_id=record.id,
            name=name,
            discord_id=ctx.user_id or 0,
            now=ctx.now(),
        )
    ask = wording.checkin_request(name, record.night.setup.location, request_id)
    return replace(wording.checkin_asked(name), effects=(Effect("announce", ask),), private=True)


def checkin_decision(ctx: Context, *args: str) -> Reply:
    """A director's Approve or Refuse: ``pf:checkin:<approve|refuse>:<request>``."""
    decision, request_id = answer_of(args, ("approve", "refuse"))
    with ctx.transaction() as session:
        asked = peek_checkin(session=session, request_id=request_id)
        channel = tournament_channel(  # another server's check-in: NotFound, nothing written
            session=session, tournament_id=asked.tournament_id, guild_id=ctx.guild_id
        )
    director = director_name(ctx)
    if decision == "approve":
        # An ordinary sign-in in the tournament's channel: a second press finds him signed in.
        signed = register(replace(ctx, channel_id=channel), asked.name)
        with ctx.transaction() as session:
            take_checkin(session=session, request_id=request_id)
        return wording.checkin_answered(asked.name, director, signed)
    with ctx.transaction() as session:
        take_checkin(session=session, request_id=request_id)
    return wording.checkin_answered(asked.name, director, None)
