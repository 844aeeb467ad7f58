"""League tables: leagues, seasons, locations, players, events, results, awards, strikes, audit.

Points are computed by ``rulings.league.points`` when an event is imported and stored per component
on each ``Result`` row, so standings are plain ``SUM``/``GROUP BY`` queries. Names are stored
as typed (``display_name``) and as a case-folded ``name_key`` that carries the uniqueness.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Mapping
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Column,
    DateTime,
    ForeignKeyConstraint,
    Index,
    UniqueConstraint,
    text,
)
from sqlmodel import Field, SQLModel

log = logging.getLogger(__name__)


class League(SQLModel, table=True):
    """One league per Discord guild; the CLI uses the league with no guild (``default``)."""

    __tablename__ = "league"
    __table_args__ = (UniqueConstraint("name", name="uq_league_name"),)

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=100)
    guild_id: int | None = Field(
        default=None, sa_column=Column(BigInteger, nullable=True, unique=True)
    )
    preset: str = Field(default="btown", max_length=40)
    overrides: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))


class Season(SQLModel, table=True):
    """A season of a league, named like ``2026 Fall``."""

    __tablename__ = "season"
    __table_args__ = (UniqueConstraint("league_id", "name_key", name="uq_season_name"),)

    id: int | None = Field(default=None, primary_key=True)
    league_id: int = Field(foreign_key="league.id", index=True)
    name: str = Field(max_length=100)
    name_key: str = Field(max_length=100)
    # The league's current season (one per league, kept so by storage.seasons): where a
    # result with no season goes and what /standings and /toc show by default.
    is_current: bool = Field(default=False)


class Location(SQLModel, table=True):
    """A host bar."""

    __tablename__ = "location"
    __table_args__ = (UniqueConstraint("league_id", "name_key", name="uq_location_name"),)

    id: int | None = Field(default=None, primary_key=True)
    league_id: int = Field(foreign_key="league.id", index=True)
    name: str = Field(max_length=100)
    name_key: str = Field(max_length=100)


class Player(SQLModel, table=True):
    """A person who plays in the league."""

    __tablename__ = "player"
    # Also the index of a league's players (its first column).
    __table_args__ = (UniqueConstraint("league_id", "name_key", name="uq_player_name"),)

    id: int | None = Field(default=None, primary_key=True)
    league_id: int = Field(foreign_key="league.id")
    display_name: str = Field(max_length=100)
    name_key: str = Field(max_length=100)
    discord_id: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))


class PlayerAlias(SQLModel, table=True):
    """Another name a player is known by (a nickname, or a merged duplicate)."""

    __tablename__ = "player_alias"
    __table_args__ = (UniqueConstraint("league_id", "alias_key", name="uq_player_alias"),)

    id: int | None = Field(default=None, primary_key=True)
    league_id: int = Field(foreign_key="league.id", index=True)
    player_id: int = Field(foreign_key="player.id", index=True)
    alias: str = Field(max_length=100)
    alias_key: str = Field(max_length=100)


class Event(SQLModel, table=True):
    """One tournament night (or a second-chance table, or the TOC)."""

    __tablename__ = "event"
    __table_args__ = (
        # One active event per night; a voided night may be entered again (a new event) while
        # the void one stays on record.
        Index(
            "uq_event_active_identity",
            "season_id",
            "location_id",
            "date",
            "kind",
            unique=True,
            sqlite_where=text("status = 'active'"),
            postgresql_where=text("status = 'active'"),
        ),
        # What a result row's one key refers to (``fk_result_event_night``): the event, with
        # the season and location its results copy.
        Index("uq_event_night_key", "id", "season_id", "location_id", unique=True),
    )

    id: int | None = Field(default=None, primary_key=True)
    league_id: int = Field(foreign_key="league.id", index=True)
    season_id: int = Field(foreign_key="season.id", index=True)
    location_id: int = Field(foreign_key="location.id", index=True)
    date: dt.date
    kind: str = Field(max_length=20)
    status: str = Field(default="active", max_length=10)
    void_reason: str | None = Field(default=None, max_length=500)
    content_hash: str = Field(max_length=64)
    record: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))


class Result(SQLModel, table=True):
    """One participant of one event with the points the engine gave them, per component."""

    __tablename__ = "result"
    __table_args__ = (
        # Also the index of an event's rows (its first column).
        UniqueConstraint("event_id", "player_id", name="uq_result_player"),
        # One key for the event, season and location: the row's season and location are its
        # event's (so they exist: the event's own keys say so), checked by one lookup a row
        # where three keys made three (migration 0021).
        ForeignKeyConstraint(
            ["event_id", "season_id", "location_id"],
            ["event.id", "event.season_id", "event.location_id"],
            name="fk_result_event_night",
        ),
        # Covers the standings aggregate: a season's rows are read from the index alone.
        Index(
            "ix_result_standings",
            "season_id",
            "player_id",
            "location_id",
            "is_counted",
            "is_regular",
            "rp",
            "bp",
            "position",
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    event_id: int
    player_id: int = Field(foreign_key="player.id", index=True)
    season_id: int
    location_id: int
    position: int | None = None  # None: played but finished out of the listed positions
    tie_size: int = 1  # how many players share ``position``
    # Copied from the event so standings never join it: counts in standings (active, not a
    # TOC) and is a regular tournament (counts as an event played).
    is_counted: bool = True
    is_regular: bool = True
    finish_rp: int = 0
    finish_bp: int = 0
    bounty_rp: int = 0
    bounty_bp: int = 0
    premium_rp: int = 0
    premium_bp: int = 0
    second_chance_rp: int = 0
    second_chance_bp: int = 0
    receipt_rp: int = 0
    receipt_bp: int = 0
    rp: int = 0
    bp: int = 0


class Bounty(SQLModel, table=True):
    """Bounty chips a player turned in at an event."""

    __tablename__ = "bounty"

    id: int | None = Field(default=None, primary_key=True)
    event_id: int = Field(foreign_key="event.id", index=True)
    player_id: int = Field(foreign_key="player.id", index=True)
    chips: int


class PremiumHandAward(SQLModel, table=True):
    """A premium hand won at showdown."""

    __tablename__ = "premium_hand"

    id: int | None = Field(default=None, primary_key=True)
    event_id: int = Field(foreign_key="event.id", index=True)
    player_id: int = Field(foreign_key="player.id", index=True)
    hand: str = Field(max_length=30)


class SecondChanceWin(SQLModel, table=True):
    """A second-chance table won at an event."""

    __tablename__ = "second_chance_win"

    id: int | None = Field(default=None, primary_key=True)
    event_id: int = Field(foreign_key="event.id", index=True)
    player_id: int = Field(foreign_key="player.id", index=True)


class ReceiptAward(SQLModel, table=True):
    """A food and drink receipt redeemed for bonus points; a reference counts once per bar."""

    __tablename__ = "receipt"
    __table_args__ = (UniqueConstraint("location_id", "ref", name="uq_receipt_ref"),)

    id: int | None = Field(default=None, primary_key=True)
    event_id: int = Field(foreign_key="event.id", index=True)
    player_id: int = Field(foreign_key="player.id", index=True)
    location_id: int = Field(foreign_key="location.id")
    amount_cents: int
    ref: str | None = Field(default=None, max_length=100)
    image_url: str | None = Field(default=None, max_length=500)


class Strike(SQLModel, table=True):
    """A strike (3.B) given to a player in a season."""

    __tablename__ = "strike"

    id: int | None = Field(default=None, primary_key=True)
    league_id: int = Field(foreign_key="league.id", index=True)
    player_id: int = Field(foreign_key="player.id", index=True)
    season_id: int = Field(foreign_key="season.id", index=True)
    level: int
    reason: str = Field(max_length=500)
    at: dt.datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    # The day the strike was given (in the league's time zone): the suspension counts the
    # events after it. None for strikes recorded before it was kept (``at``'s day then).
    date: dt.date | None = Field(default=None)


class AuditEntry(SQLModel, table=True):
    """Who changed what, when, with the state before and after."""

    __tablename__ = "audit_log"

    id: int | None = Field(default=None, primary_key=True)
    league_id: int = Field(foreign_key="league.id", index=True)
    actor: str = Field(max_length=100)
    at: dt.datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    action: str = Field(max_length=40)
    target: str = Field(max_length=200)
    before: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    after: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))


class EventRecordPart(SQLModel, table=True):
    """A run of a large night's record, stored beside its event (``storage.events`` reads it).

    A night streamed from a CSV file (``storage.csv_import``) is written a chunk at a time, so
    that no statement binds its whole record: ``Event.record`` holds everything but the finish
    groups, and each part the next groups, as ``{"finish": [...]}``. Read back, the record is
    ``Event.record`` with its parts merged in, in ``seq`` order (``merge_part``): what one whole
    text would hold. A correction writes the record whole again and drops the parts.
    """

    __tablename__ = "event_record_part"

    event_id: int = Field(foreign_key="event.id", primary_key=True)
    seq: int = Field(primary_key=True)
    body: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))


class AuditPart(SQLModel, table=True):
    """A run of a large audit entry's ``after``, merged into it in ``seq`` order when read.

    As ``EventRecordPart``, for the import of a streamed night: its ``event.import`` entry
    holds the record's head and no points, and each part the next finish groups and points,
    as ``{"record": {"finish": [...]}, "points": {...}}``. Audit entries never change.
    """

    __tablename__ = "audit_part"

    audit_id: int = Field(foreign_key="audit_log.id", primary_key=True)
    seq: int = Field(primary_key=True)
    body: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))


def merge_part(document: dict[str, Any], part: Mapping[str, Any]) -> None:
    """Merge a stored part into its document, in place: lists extended, mappings merged.

    >>> doc = {"record": {"finish": [["A"]]}, "points": {"A": [1, 0]}}
    >>> merge_part(doc, {"record": {"finish": [["B"]]}, "points": {"B": [0, 0]}})
    >>> doc
    {'record': {'finish': [['A'], ['B']]}, 'points': {'A': [1, 0], 'B': [0, 0]}}
    """
    for key, value in part.items():
        held = document.get(key)
        if isinstance(held, list) and isinstance(value, list):
            held.extend(value)
        elif isinstance(held, dict) and isinstance(value, Mapping):
            merge_part(held, value)
        else:
            document[key] = value
