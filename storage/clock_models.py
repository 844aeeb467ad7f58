"""Tables of the tournament clock: the clock, the director's actions, the announcements made.

The clock's truth is its start plus its actions; the scheduler's jobs are derived from them.
Announcement keys are claimed before the message is posted, so a restart never repeats one, and
settled after it, so a restart knows which claims a crash left unposted.
Each running clock has one owner: the bot instance that posts its announcements, holding a lease
(``owner_id`` and ``lease_expires_at``, renewed by its heartbeat); a live instance adopts a clock
whose lease ran out. ``version`` counts the director's actions, so the owner sees an action taken
through another instance by polling it.
All times are stored in UTC (``DateTime(timezone=True)``; SQLite gives them back naive and
``storage.clocks`` re-attaches UTC).
"""

from __future__ import annotations

import datetime as dt
import logging

from sqlalchemy import BigInteger, Column, DateTime, ForeignKey, Index, Integer, String, text
from sqlmodel import Field, SQLModel

log = logging.getLogger(__name__)


class Clock(SQLModel, table=True):
    """One tournament clock in one Discord channel."""

    __tablename__ = "clock"
    __table_args__ = (
        # at most one running clock per channel
        Index(
            "ux_clock_running_channel",
            "channel_id",
            unique=True,
            sqlite_where=text("ended_at IS NULL"),
            postgresql_where=text("ended_at IS NULL"),
        ),
        Index("ix_clock_owner_id", "owner_id"),  # an instance's heartbeat finds its clocks
    )

    id: int | None = Field(default=None, primary_key=True)
    guild_id: int = Field(sa_column=Column(BigInteger, nullable=False))
    channel_id: int = Field(sa_column=Column(BigInteger, nullable=False))
    structure: str = Field(max_length=64)
    level_seconds: float
    break_seconds: float
    warning_seconds: str = Field(default="60", max_length=64)  # comma-separated seconds
    ping_role_id: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))
    status_message_id: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))
    created_by: int = Field(sa_column=Column(BigInteger, nullable=False))
    started_at: dt.datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    ended_at: dt.datetime | None = Field(
        default=None, sa_column=Column(DateTime(timezone=True), nullable=True)
    )
    owner_id: str | None = Field(default=None, sa_column=Column(String(64), nullable=True))
    lease_expires_at: dt.datetime | None = Field(
        default=None, sa_column=Column(DateTime(timezone=True), nullable=True)
    )
    version: int = Field(
        default=0, sa_column=Column(Integer, nullable=False, server_default=text("0"))
    )


class ClockEventRow(SQLModel, table=True):
    """One director action on a clock, numbered from 0 in the order they happened."""

    __tablename__ = "clock_event"

    clock_id: int = Field(
        sa_column=Column(Integer, ForeignKey("clock.id", ondelete="CASCADE"), primary_key=True)
    )
    seq: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    action: str = Field(max_length=16)
    at: dt.datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    value: float = 0.0
    user_id: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))


class ClockAnnouncementRow(SQLModel, table=True):
    """An announcement claimed before it was posted, and settled once the post was done with.

    ``made_at`` is the claim (before posting). ``settled_at`` is set after the post returned
    (posted, or given up after an error) or when an adopter's catch-up covered it; a row still
    unsettled when its clock is adopted was claimed by an owner that died, perhaps mid-post.
    """

    __tablename__ = "clock_announcement"

    clock_id: int = Field(
        sa_column=Column(Integer, ForeignKey("clock.id", ondelete="CASCADE"), primary_key=True)
    )
    key: str = Field(sa_column=Column(String(160), primary_key=True))
    made_at: dt.datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    settled_at: dt.datetime | None = Field(
        default=None, sa_column=Column(DateTime(timezone=True), nullable=True)
    )
