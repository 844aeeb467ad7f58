"""Floor calls (``/floor``) and the rulings that answer them (``/td ruling``).

A call is numbered per league from 1 (a unique constraint: two processes taking the same
number cannot both store it). A ruling answers one call and cites at most one rule of the
league's book; a second ruling on the same call amends the first, which is kept (``superseded``)
so the audit log and the history stay whole. Pending calls count for nothing anywhere.
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, DateTime, Index, UniqueConstraint
from sqlmodel import Field, SQLModel

log = logging.getLogger(__name__)


class FloorCall(SQLModel, table=True):
    """Someone called the floor: the note, where he sits, the rules suggested for it."""

    __tablename__ = "floor_call"
    __table_args__ = (UniqueConstraint("league_id", "number", name="uq_floor_call_number"),)

    id: int | None = Field(default=None, primary_key=True)
    league_id: int = Field(foreign_key="league.id")
    number: int
    caller: str = Field(max_length=100)
    discord_id: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))
    table_no: int | None = None
    seat_no: int | None = None
    note: str = Field(max_length=500)
    # [[book, section, title], ...]: the top /rule matches for the note, best first.
    suggestions: list[Any] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    channel_id: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))
    message_id: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))
    thread_id: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))
    called_at: dt.datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))


class FloorRuling(SQLModel, table=True):
    """A director's ruling on a floor call, with the rule it rests on (if any)."""

    __tablename__ = "floor_ruling"
    __table_args__ = (Index("ix_floor_ruling_cited", "league_id", "book", "section"),)

    id: int | None = Field(default=None, primary_key=True)
    league_id: int = Field(foreign_key="league.id")
    call_id: int = Field(foreign_key="floor_call.id", index=True)
    decision: str = Field(max_length=1000)
    book: str | None = Field(default=None, max_length=100)
    section: str | None = Field(default=None, max_length=100)
    given_by: str = Field(max_length=100)
    given_at: dt.datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    superseded: bool = False
