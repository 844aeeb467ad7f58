"""A league's weekly nights (``/td night schedule``), their RSVPs and their no-shows.

One series per location and weekday (a unique constraint, so two bot processes handling the
same command cannot both create it). ``event_claim`` is taken by the one process that creates
the Discord scheduled event; ``discord_event_id`` is what it created. An RSVP is one name on one
night: unique per night and name key, so a press of "Interested" seen twice counts once.
"""

from __future__ import annotations

import datetime as dt
import logging

from sqlalchemy import BigInteger, Column, Date, DateTime, UniqueConstraint
from sqlmodel import Field, SQLModel

log = logging.getLogger(__name__)


class NightSeriesRow(SQLModel, table=True):
    """A league's weekly night at a host location."""

    __tablename__ = "night_series"
    __table_args__ = (
        UniqueConstraint("league_id", "location_id", "weekday", name="uq_night_series"),
    )

    id: int | None = Field(default=None, primary_key=True)
    league_id: int = Field(foreign_key="league.id", index=True)
    location_id: int = Field(foreign_key="location.id")
    weekday: int
    start: str = Field(max_length=5)  # HH:MM, the league's time zone
    first: dt.date = Field(sa_column=Column(Date, nullable=False))
    every_weeks: int = 1
    ends: dt.date | None = Field(default=None, sa_column=Column(Date, nullable=True))
    remind_minutes: int = 120
    event_claim: str | None = Field(default=None, max_length=100)
    discord_event_id: int | None = Field(default=None, sa_column=Column(BigInteger))
    created_by: str = Field(max_length=100)
    created_at: dt.datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))


class NightCancelRow(SQLModel, table=True):
    """One night of a series called off."""

    __tablename__ = "night_cancel"
    __table_args__ = (UniqueConstraint("series_id", "day", name="uq_night_cancel"),)

    id: int | None = Field(default=None, primary_key=True)
    series_id: int = Field(foreign_key="night_series.id", index=True)
    day: dt.date = Field(sa_column=Column(Date, nullable=False))


class RsvpRow(SQLModel, table=True):
    """Someone said he is coming to a night (Discord's "Interested", or ``/rsvp``)."""

    __tablename__ = "rsvp"
    __table_args__ = (UniqueConstraint("series_id", "day", "name_key", name="uq_rsvp"),)

    id: int | None = Field(default=None, primary_key=True)
    series_id: int = Field(foreign_key="night_series.id", index=True)
    day: dt.date = Field(sa_column=Column(Date, nullable=False))
    name: str = Field(max_length=100)
    name_key: str = Field(max_length=100)
    discord_id: int | None = Field(default=None, sa_column=Column(BigInteger))
    source: str = Field(max_length=20)  # "discord" (Interested) or "command" (/rsvp)
    at: dt.datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))


class NightReminderRow(SQLModel, table=True):
    """A night's reminder, sent once (the process that inserts the row sends it).

    ``role_id`` is the temporary role given to the RSVP'd members for the ping; it is removed
    once the night is over (``cleaned``).
    """

    __tablename__ = "night_reminder"
    __table_args__ = (UniqueConstraint("series_id", "day", name="uq_night_reminder"),)

    id: int | None = Field(default=None, primary_key=True)
    series_id: int = Field(foreign_key="night_series.id", index=True)
    day: dt.date = Field(sa_column=Column(Date, nullable=False))
    sent_by: str = Field(max_length=100)
    sent_at: dt.datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    role_id: int | None = Field(default=None, sa_column=Column(BigInteger))
    cleaned: bool = False


class NoShowRow(SQLModel, table=True):
    """An RSVP'd name that never signed in, recorded when the night's tournament finished."""

    __tablename__ = "night_no_show"
    __table_args__ = (UniqueConstraint("series_id", "day", "name_key", name="uq_night_no_show"),)

    id: int | None = Field(default=None, primary_key=True)
    league_id: int = Field(foreign_key="league.id", index=True)
    series_id: int = Field(foreign_key="night_series.id")
    season_id: int | None = Field(default=None, foreign_key="season.id")
    day: dt.date = Field(sa_column=Column(Date, nullable=False))
    name: str = Field(max_length=100)
    name_key: str = Field(max_length=100)


class CheckinRequest(SQLModel, table=True):
    """A player asked to be signed in to tonight's tournament (``/checkin``); not yet approved."""

    __tablename__ = "checkin_request"
    __table_args__ = (UniqueConstraint("tournament_id", "name_key", name="uq_checkin_request"),)

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournament.id")
    name: str = Field(max_length=100)
    name_key: str = Field(max_length=100)
    discord_id: int = Field(sa_column=Column(BigInteger, nullable=False))
    asked_at: dt.datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
