"""Tables of the tournament night: the tournament and its log of entries.

The log is the truth (``tournament_entry``, numbered from 1, an undone entry is kept and
marked); ``tournament.chart`` is a snapshot of the chart the live entries produce, so a
command reads one row (sealed, checked at every load, rebuilt from the log when it is not the
log's: ``storage.night_snapshot``). ``tournament.seq`` is the night's version, one more for
every entry written or undone: a write checks it is unchanged, so two instances acting at once
cannot both apply to the same state. A player's own report that he is out (``bust_report``)
waits beside the night and is no part of it until a director confirms it with an ordinary bust.
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Column,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    TypeDecorator,
    UniqueConstraint,
    text,
)
from sqlalchemy.engine import Dialect
from sqlmodel import Field, SQLModel

log = logging.getLogger(__name__)


class SnapshotJSON(TypeDecorator[Any]):
    """JSON that reads text no JSON parser accepts as that text, instead of failing the query.

    SQLite keeps whatever text a hand edit left; the night's snapshot column reads it this way
    so the load can see the snapshot is unreadable and rebuild it from the log
    (``storage.night_snapshot``). PostgreSQL's ``json`` refuses such text when it is written.
    """

    impl = JSON
    cache_ok = True

    def result_processor(self, dialect: Dialect, coltype: Any) -> Any:
        """The JSON type's reader, keeping the text it cannot parse."""
        parse = self.impl_instance.dialect_impl(dialect).result_processor(dialect, coltype)
        if parse is None:  # the driver parses (psycopg): it never sees unreadable text
            return None

        def process(value: Any) -> Any:
            try:
                return parse(value)
            except ValueError:
                return value

        return process


class Tournament(SQLModel, table=True):
    """One tournament night in one channel (one open at a time per channel)."""

    __tablename__ = "tournament"
    __table_args__ = (
        Index(
            "ux_tournament_open_channel",
            "channel_id",
            unique=True,
            sqlite_where=text("finished_at IS NULL"),
            postgresql_where=text("finished_at IS NULL"),
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    league_id: int = Field(foreign_key="league.id", index=True)
    channel_id: int = Field(sa_column=Column(BigInteger, nullable=False))
    status: str = Field(max_length=16)
    room: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    # The sealed snapshot of the chart (``rulings.snapshot_to_data``); the log is the truth.
    chart: dict[str, Any] = Field(
        default_factory=dict, sa_column=Column(SnapshotJSON, nullable=False)
    )
    seq: int = 0
    event_id: int | None = Field(default=None, foreign_key="event.id")
    created_by: str = Field(max_length=100)
    created_at: dt.datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    finished_at: dt.datetime | None = Field(
        default=None, sa_column=Column(DateTime(timezone=True), nullable=True)
    )
    # The night's Discord thread (``/td settings night_thread on``), made on its first post.
    thread_id: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))


class TournamentEntryRow(SQLModel, table=True):
    """One entry of a night's log: what was decided, by whom, when; undone ones are kept."""

    __tablename__ = "tournament_entry"

    tournament_id: int = Field(
        sa_column=Column(Integer, ForeignKey("tournament.id", ondelete="CASCADE"), primary_key=True)
    )
    seq: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    kind: str = Field(max_length=16)
    data: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    actor: str = Field(max_length=100)
    at: dt.datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    undone_at: dt.datetime | None = Field(
        default=None, sa_column=Column(DateTime(timezone=True), nullable=True)
    )


class BustReport(SQLModel, table=True):
    """A player reported his own bust (``/out``, "I'm out"); pending until a director answers.

    One per player and tournament (a second report is refused); it counts for nothing: the
    chart, the finish order and the points change only when a director confirms it, which is an
    ordinary bust, and the row goes when it is confirmed or rejected.
    """

    __tablename__ = "bust_report"
    __table_args__ = (UniqueConstraint("tournament_id", "name_key", name="uq_bust_report"),)

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournament.id")
    name: str = Field(max_length=100)
    name_key: str = Field(max_length=100)
    discord_id: int = Field(sa_column=Column(BigInteger, nullable=False))
    reported_by: str = Field(max_length=100)
    reported_at: dt.datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
