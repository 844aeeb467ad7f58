"""The posts Discord refused for good: what, where, why and when, and whether a director was told.

A clock announcement, a results-channel post or a night's reminder that still fails after its
retries is one row of ``post_failure`` (``storage.post_failures``); ``/admin health`` lists a
league's last ones. The directors are told of a failure once per channel and kind an hour:
``post_failure_notice`` holds when they were last told, one row per server, kind and channel,
claimed with one conditional write (as a clock's lease), so that two failures at once (a
clock's status message and its announcement) are told once, whichever process records them.
"""

from __future__ import annotations

import datetime as dt
import logging

from sqlalchemy import BigInteger, Column, DateTime, Index, String
from sqlmodel import Field, SQLModel

log = logging.getLogger(__name__)


class PostFailure(SQLModel, table=True):
    """One post that did not go out (after its retries)."""

    __tablename__ = "post_failure"
    __table_args__ = (Index("ix_post_failure_guild_at", "guild_id", "at"),)

    id: int | None = Field(default=None, primary_key=True)
    guild_id: int = Field(sa_column=Column(BigInteger, nullable=False))
    kind: str = Field(sa_column=Column(String(16), nullable=False))
    channel_id: int = Field(sa_column=Column(BigInteger, nullable=False))
    status: int = 0
    code: int = 0
    error: str = Field(sa_column=Column(String(300), nullable=False))
    at: dt.datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    told_at: dt.datetime | None = Field(
        default=None, sa_column=Column(DateTime(timezone=True), nullable=True)
    )
    told_how: str | None = Field(default=None, sa_column=Column(String(16), nullable=True))


class PostFailureNotice(SQLModel, table=True):
    """When the directors were last told of one kind of post failing in one channel."""

    __tablename__ = "post_failure_notice"

    guild_id: int = Field(sa_column=Column(BigInteger, primary_key=True, autoincrement=False))
    kind: str = Field(sa_column=Column(String(16), primary_key=True))
    channel_id: int = Field(sa_column=Column(BigInteger, primary_key=True, autoincrement=False))
    told_at: dt.datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
