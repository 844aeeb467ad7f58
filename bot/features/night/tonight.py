"""Tonight's league night as the tournament sees it: its RSVP list and its no-shows.

``bot.features.tournament`` handlers call these (status, check-in, the finish, sign-in
autocomplete); they read the night through ``storage.nights`` and import nothing of the
tournament feature, so the dependency runs one way.
"""

from __future__ import annotations

import datetime as dt

from sqlmodel import Session

import rulings
from bot.features.league.reads import choices
from bot.features.night import wording
from bot.reply import Reply
from storage.attendance import players_by_attendance
from storage.errors import NotFound
from storage.leagues import league_for
from storage.nights import NightInfo, night_on, record_no_shows, rsvps
from storage.seasons import get_season
from storage.tournaments import get_open_tournament


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


def signin_choices(
    *, session: Session, guild_id: int | None, channel_id: int, today: dt.date, limit: int = 125
) -> list[str]:
    """The sign-in form's list: who is likeliest to sign in next, nobody signed in already.

    Tonight's RSVP'd players first (in RSVP order), then the league's players by events
    played this season and their latest night (``storage.attendance.players_by_attendance``);
    anyone already signed in to the tournament open in this channel is left out. At most
    ``limit`` names (a form shows a few lists of 25).
    """
    try:
        league = league_for(session=session, guild_id=guild_id)
    except NotFound:
        return []
    coming: list[str] = []
    signed: list[str] = []
    season_name: str | None = None
    try:
        record = get_open_tournament(session=session, channel_id=channel_id)
    except NotFound:
        record = None
    if record is not None and record.league_id == league.id:
        setup = record.night.setup
        coming = rsvp_names(session, record.league_id, setup.location, today)
        signed = [entrant.name for entrant in record.night.chart.players.values()]
        season_name = setup.season
    try:
        season_id: int | None = get_season(
            session=session, league_id=league.id, name=season_name
        ).id
    except NotFound:
        season_id = None
    regulars = players_by_attendance(session=session, league_id=league.id, season_id=season_id)
    first = rulings.ordered_rsvps(coming, signed)
    return list(rulings.ordered_rsvps([*first, *regulars], signed))[:limit]


def seated_choices(*, session: Session, channel_id: int) -> list[str]:
    """The players seated at the open tournament in this channel, by table and seat (bust form).

    Raises:
        NotFound: no tournament is open in this channel.
    """
    record = get_open_tournament(session=session, channel_id=channel_id)
    chart = record.night.chart
    return [chart.name(k) for k, _ in sorted(chart.seated.items(), key=lambda kv: kv[1])]
