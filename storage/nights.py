"""The league's weekly nights: schedule, cancel, RSVP, and the no-shows of a finished night.

Everything lives in the database, so every bot process sharing it sees the same nights. The
engine (``rulings.league.nights``) says which dates a series has and who did not show; this
module stores series, cancellations and RSVPs and hands the engine its values.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections import Counter
from dataclasses import dataclass

from sqlalchemy import delete, func, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from rulings import (
    NightError,
    NightSeries,
    check_name,
    check_rsvp_night,
    name_key,
    no_shows,
    parse_night_start,
)
from storage.audit import add_audit_entry, utc_now
from storage.errors import AlreadyExists, NotFound
from storage.league_models import League, Location
from storage.leagues import get_location
from storage.night_models import (
    CheckinRequest,
    NightCancelRow,
    NightReminderRow,
    NightSeriesRow,
    NoShowRow,
    RsvpRow,
)
from storage.pending import add_once, peek, take_once
from storage.tournament_models import Tournament

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class NightInfo:
    """A stored series: the engine's value plus what storage knows of it."""

    id: int
    series: NightSeries
    discord_event_id: int | None


@dataclass(frozen=True)
class Rsvp:
    """One name on a night's RSVP list."""

    name: str
    discord_id: int | None
    source: str


def _series(session: Session, row: NightSeriesRow) -> NightInfo:
    location = session.get(Location, row.location_id)
    cancelled = session.exec(select(NightCancelRow).where(NightCancelRow.series_id == row.id)).all()
    series = NightSeries(
        location=location.name if location is not None else "?",
        weekday=row.weekday,
        start=parse_night_start(row.start),
        first=row.first,
        every_weeks=row.every_weeks,
        ends=row.ends,
        cancelled=frozenset(c.day for c in cancelled),
        remind=dt.timedelta(minutes=row.remind_minutes),
    )
    return NightInfo(id=row.id or 0, series=series, discord_event_id=row.discord_event_id)


def schedule_night(
    *,
    session: Session,
    league_id: int,
    series: NightSeries,
    actor: str,
    now: dt.datetime | None = None,
) -> NightInfo:
    """Store a new weekly night at one of the league's locations.

    Raises:
        NotFound: the location is not one of the league's.
        AlreadyExists: the location already has a night on that weekday.
    """
    location = get_location(session=session, league_id=league_id, name=series.location)
    taken = session.exec(
        select(NightSeriesRow).where(
            NightSeriesRow.league_id == league_id,
            NightSeriesRow.location_id == location.id,
            NightSeriesRow.weekday == series.weekday,
        )
    ).first()
    if taken is not None:
        raise AlreadyExists(
            f"{location.name} already has a night on {_weekday(series.weekday)}s; "
            f"cancel it first (/td night cancel)"
        )
    row = NightSeriesRow(
        league_id=league_id,
        location_id=location.id,
        weekday=series.weekday,
        start=series.start.strftime("%H:%M"),
        first=series.first,
        every_weeks=series.every_weeks,
        ends=series.ends,
        remind_minutes=int(series.remind.total_seconds() // 60),
        created_by=actor,
        created_at=utc_now(now),
    )
    session.add(row)
    try:
        with session.begin_nested():
            session.flush()
    except IntegrityError as exc:  # another process scheduled it at the same moment
        raise AlreadyExists(
            f"{location.name} already has a night on {_weekday(series.weekday)}s"
        ) from exc
    add_audit_entry(
        session=session,
        league_id=league_id,
        actor=actor,
        action="night.schedule",
        target=f"night:{location.name}:{_weekday(series.weekday)}",
        after={"start": row.start, "first": series.first.isoformat(), "every": row.every_weeks},
        now=now,
    )
    return _series(session, row)


def _weekday(number: int) -> str:
    return ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")[number]


def list_nights(*, session: Session, league_id: int) -> list[NightInfo]:
    """The league's series, by weekday then location."""
    rows = session.exec(
        select(NightSeriesRow)
        .where(NightSeriesRow.league_id == league_id)
        .order_by(col(NightSeriesRow.weekday), col(NightSeriesRow.id))
    ).all()
    return [_series(session, row) for row in rows]


def nights_at(*, session: Session, league_id: int, location: str) -> list[NightInfo]:
    """The series held at one location (NotFound for an unknown location).

    One query: the location joined to its series (a location without one is a row of None).
    """
    rows = session.exec(
        select(Location, NightSeriesRow)
        .outerjoin(
            NightSeriesRow,
            (col(NightSeriesRow.location_id) == col(Location.id))
            & (col(NightSeriesRow.league_id) == league_id),
        )
        .where(Location.league_id == league_id, Location.name_key == name_key(location))
    ).all()
    if not rows:
        get_location(session=session, league_id=league_id, name=location)  # says what is near
    return [_series(session, row) for _, row in rows if row is not None]


def night_on(
    *, session: Session, league_id: int, day: dt.date, location: str | None = None
) -> NightInfo:
    """The series with a night on ``day`` (at ``location`` when given).

    Raises:
        NotFound: no series has a night that day, or (no location given) several do.
    """
    found = [
        info
        for info in (
            list_nights(session=session, league_id=league_id)
            if location is None
            else nights_at(session=session, league_id=league_id, location=location)
        )
        if info.series.falls_on(day)
    ]
    if not found:
        where = f" at {location}" if location else ""
        raise NotFound(f"there is no league night{where} on {day.isoformat()}")
    if len(found) > 1:
        places = ", ".join(info.series.location for info in found)
        raise NotFound(f"several nights on {day.isoformat()} ({places}): name the location")
    return found[0]


def cancel_night(
    *,
    session: Session,
    league_id: int,
    location: str,
    day: dt.date | None,
    actor: str,
    now: dt.datetime | None = None,
) -> tuple[NightInfo, dt.date | None]:
    """Call off one night (``day``) or, with no day, the whole series at the location.

    Returns the series as it was and the day cancelled (None for the series).

    Raises:
        NotFound: the location has no night (that day).
        NightError: the night is over or already cancelled.
    """
    if day is None:
        infos = nights_at(session=session, league_id=league_id, location=location)
        if not infos:
            raise NotFound(f"{location} has no league night to cancel")
        if len(infos) > 1:
            raise NotFound(f"{location} has nights on several weekdays: give the date")
        info = infos[0]
        for table in (RsvpRow, NightCancelRow, NightReminderRow):
            session.execute(delete(table).where(col(table.series_id) == info.id))
        session.execute(delete(NoShowRow).where(col(NoShowRow.series_id) == info.id))
        session.execute(delete(NightSeriesRow).where(col(NightSeriesRow.id) == info.id))
        add_audit_entry(
            session=session,
            league_id=league_id,
            actor=actor,
            action="night.cancel_series",
            target=f"night:{info.series.location}:{_weekday(info.series.weekday)}",
            before={"start": info.series.start.strftime("%H:%M")},
            now=now,
        )
        return info, None
    info = night_on(session=session, league_id=league_id, day=day, location=location)
    if day in info.series.cancelled:
        raise NightError(f"the night of {day.isoformat()} at {info.series.location} is cancelled")
    if day < utc_now(now).date() - dt.timedelta(days=1):
        raise NightError(f"the night of {day.isoformat()} is over")
    session.add(NightCancelRow(series_id=info.id, day=day))
    add_audit_entry(
        session=session,
        league_id=league_id,
        actor=actor,
        action="night.cancel",
        target=f"night:{info.series.location}:{day.isoformat()}",
        now=now,
    )
    return info, day


def claim_discord_event(*, session: Session, series_id: int, claimant: str) -> bool:
    """Take the right to create the series' Discord event; True for exactly one claimant."""
    result = session.execute(
        update(NightSeriesRow)
        .where(col(NightSeriesRow.id) == series_id, col(NightSeriesRow.event_claim).is_(None))
        .values(event_claim=claimant)
    )
    return bool(getattr(result, "rowcount", 0) == 1)


def set_discord_event(*, session: Session, series_id: int, event_id: int | None) -> None:
    """Record the Discord scheduled event made for a series (None: none could be made)."""
    session.execute(
        update(NightSeriesRow)
        .where(col(NightSeriesRow.id) == series_id)
        .values(discord_event_id=event_id)
    )


def guilds_with_nights(*, session: Session) -> list[int]:
    """The Discord servers whose leagues have a weekly night."""
    rows = session.exec(
        select(League.guild_id)
        .join(NightSeriesRow, col(NightSeriesRow.league_id) == col(League.id))
        .where(col(League.guild_id).is_not(None))
        .distinct()
    ).all()
    return sorted(int(g) for g in rows if g is not None)


def series_for_event(*, session: Session, event_id: int) -> tuple[int, NightInfo] | None:
    """The league and series of a Discord scheduled event, or None for an event not ours."""
    row = session.exec(
        select(NightSeriesRow).where(NightSeriesRow.discord_event_id == event_id)
    ).first()
    return None if row is None else (row.league_id, _series(session, row))


def add_rsvp(
    *,
    session: Session,
    info: NightInfo,
    day: dt.date,
    name: str,
    discord_id: int | None,
    source: str,
    today: dt.date,
    now: dt.datetime | None = None,
) -> bool:
    """Put a name on a night's RSVP list; False when it was already there (counted once).

    Raises:
        NightError: the night is over, cancelled or not one of the series'.
    """
    check_rsvp_night(info.series, day, today)
    cleaned = check_name(name, "name")
    key = name_key(cleaned)
    exists = session.exec(
        select(RsvpRow.id).where(
            RsvpRow.series_id == info.id, RsvpRow.day == day, RsvpRow.name_key == key
        )
    ).first()
    if exists is not None:
        return False
    row = RsvpRow(
        series_id=info.id,
        day=day,
        name=cleaned,
        name_key=key,
        discord_id=discord_id,
        source=source,
        at=utc_now(now),
    )
    session.add(row)
    try:
        with session.begin_nested():
            session.flush()
    except IntegrityError:  # the same press seen by two processes: counted once
        return False
    return True


def remove_rsvp(
    *,
    session: Session,
    info: NightInfo,
    day: dt.date,
    name: str | None = None,
    discord_id: int | None = None,
) -> int:
    """Take a name (or a member's RSVP) off a night's list; returns how many were removed."""
    query = delete(RsvpRow).where(col(RsvpRow.series_id) == info.id, col(RsvpRow.day) == day)
    if discord_id is not None:
        query = query.where(col(RsvpRow.discord_id) == discord_id)
    elif name is not None:
        query = query.where(col(RsvpRow.name_key) == name_key(name))
    else:
        raise ValueError("remove_rsvp needs a name or a member")
    return int(getattr(session.execute(query), "rowcount", 0) or 0)


def rsvps(*, session: Session, info: NightInfo, day: dt.date) -> list[Rsvp]:
    """A night's RSVP list, in the order people said they were coming."""
    rows = session.exec(
        select(RsvpRow)
        .where(RsvpRow.series_id == info.id, RsvpRow.day == day)
        .order_by(col(RsvpRow.at), col(RsvpRow.id))
    ).all()
    return [Rsvp(name=r.name, discord_id=r.discord_id, source=r.source) for r in rows]


def sync_discord_rsvps(
    *,
    session: Session,
    info: NightInfo,
    day: dt.date,
    members: dict[int, str],
    today: dt.date,
    now: dt.datetime | None = None,
) -> tuple[int, int]:
    """Make the night's Discord RSVPs exactly ``members`` (id -> name), as Discord lists them.

    Used at start-up and before a reminder: presses and withdrawals missed while no bot process
    was running are caught up. RSVPs typed with ``/rsvp`` are kept. Returns (added, removed).
    """
    stored = session.exec(
        select(RsvpRow).where(
            RsvpRow.series_id == info.id, RsvpRow.day == day, RsvpRow.source == "discord"
        )
    ).all()
    gone = [row for row in stored if row.discord_id not in members]
    for row in gone:
        session.delete(row)
    known = {row.discord_id for row in stored}
    added = 0
    for member, name in members.items():
        if member not in known and add_rsvp(
            session=session,
            info=info,
            day=day,
            name=name,
            discord_id=member,
            source="discord",
            today=today,
            now=now,
        ):
            added += 1
    return added, len(gone)


def record_no_shows(
    *,
    session: Session,
    league_id: int,
    info: NightInfo,
    day: dt.date,
    signed_in: list[str],
    season_id: int | None,
) -> tuple[str, ...]:
    """Store the night's no-shows (RSVP'd, never signed in) once; returns their names."""
    names = no_shows([r.name for r in rsvps(session=session, info=info, day=day)], signed_in)
    session.execute(
        delete(NoShowRow).where(col(NoShowRow.series_id) == info.id, col(NoShowRow.day) == day)
    )
    for name in names:
        session.add(
            NoShowRow(
                league_id=league_id,
                series_id=info.id,
                season_id=season_id,
                day=day,
                name=name,
                name_key=name_key(name),
            )
        )
    return names


def no_show_counts(
    *, session: Session, league_id: int, season_id: int | None = None
) -> list[tuple[str, int]]:
    """How many nights each name RSVP'd to and never came, most first (then by name)."""
    query = select(NoShowRow.name_key, func.min(NoShowRow.name), func.count()).where(
        NoShowRow.league_id == league_id
    )
    if season_id is not None:
        query = query.where(NoShowRow.season_id == season_id)
    rows = session.exec(query.group_by(col(NoShowRow.name_key))).all()
    counts = Counter({name: int(n) for _, name, n in rows})
    return sorted(counts.items(), key=lambda item: (-item[1], item[0].lower()))


def claim_reminder(
    *, session: Session, series_id: int, day: dt.date, claimant: str, now: dt.datetime | None = None
) -> bool:
    """Take the sending of a night's reminder; True for exactly one process, once."""
    session.add(
        NightReminderRow(series_id=series_id, day=day, sent_by=claimant, sent_at=utc_now(now))
    )
    try:
        with session.begin_nested():
            session.flush()
    except IntegrityError:
        return False
    return True


def set_reminder_role(*, session: Session, series_id: int, day: dt.date, role_id: int) -> None:
    """Record the temporary role a night's reminder pinged (removed once the night is over)."""
    session.execute(
        update(NightReminderRow)
        .where(col(NightReminderRow.series_id) == series_id, col(NightReminderRow.day) == day)
        .values(role_id=role_id)
    )


def roles_to_remove(*, session: Session) -> list[tuple[int, NightInfo, dt.date, int]]:
    """Reminder roles not removed yet: (guild id, series, night, role id)."""
    rows = session.exec(
        select(NightReminderRow, NightSeriesRow, League)
        .join(NightSeriesRow, col(NightSeriesRow.id) == col(NightReminderRow.series_id))
        .join(League, col(League.id) == col(NightSeriesRow.league_id))
        .where(
            col(NightReminderRow.role_id).is_not(None),
            col(NightReminderRow.cleaned).is_(False),
            col(League.guild_id).is_not(None),
        )
    ).all()
    return [
        (
            int(league.guild_id or 0),
            _series(session, series),
            reminder.day,
            int(reminder.role_id or 0),
        )
        for reminder, series, league in rows
    ]


def mark_role_removed(*, session: Session, series_id: int, day: dt.date) -> None:
    """The night's reminder role is gone."""
    session.execute(
        update(NightReminderRow)
        .where(col(NightReminderRow.series_id) == series_id, col(NightReminderRow.day) == day)
        .values(cleaned=True)
    )


_CHECKIN_ANSWERED = "that check-in was answered already"


def ask_checkin(
    *,
    session: Session,
    tournament_id: int,
    name: str,
    discord_id: int,
    now: dt.datetime | None = None,
) -> int:
    """Store a player's request to be signed in; its id (a second one for him is refused)."""
    cleaned = check_name(name, "name")
    row = CheckinRequest(
        tournament_id=tournament_id,
        name=cleaned,
        name_key=name_key(cleaned),
        discord_id=discord_id,
        asked_at=utc_now(now),
    )
    refusal = f"{cleaned} has asked already; a director will answer"
    return add_once(session=session, row=row, refusal=refusal).id or 0


def take_checkin(*, session: Session, request_id: int) -> None:
    """Remove a check-in request once answered (approved or refused), exactly once.

    Raises:
        NotFound: it was answered already (by another director, or another button press).
    """
    take_once(session=session, model=CheckinRequest, row_id=request_id, gone=_CHECKIN_ANSWERED)


def peek_checkin(*, session: Session, request_id: int) -> CheckinRequest:
    """A check-in request still waiting (NotFound once answered)."""
    return peek(session=session, model=CheckinRequest, row_id=request_id, gone=_CHECKIN_ANSWERED)


def tournament_channel(*, session: Session, tournament_id: int, guild_id: int | None = None) -> int:
    """The channel a tournament runs in (with ``guild_id``: only a night of that server's league).

    Raises:
        NotFound: no such tournament, or it is another server's.
    """
    row = session.get(Tournament, tournament_id)
    league = None if row is None or guild_id is None else session.get(League, row.league_id)
    if row is None or (guild_id is not None and (league is None or league.guild_id != guild_id)):
        raise NotFound("that tournament no longer exists")
    return int(row.channel_id)


def series_creator(*, session: Session, series_id: int) -> str | None:
    """Who scheduled a series (its audit actor, ``discord:<id>:<name>``), or None."""
    row = session.get(NightSeriesRow, series_id)
    return None if row is None else row.created_by
