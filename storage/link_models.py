"""The link between a Discord member and the player he is in a league (``/me``).

One member is linked to at most one player per league, and one player to at most one member;
both are unique constraints, so the database refuses a second link whatever the caller does.
``player.discord_id`` mirrors the link for the older readers (``players.csv``).

A member's open request to be linked (``/me link``, waiting for a director's Approve or
Refuse) is ``link_request``: at most one per member per league (a unique constraint, so bot
processes sharing the database cannot both accept a second one).
"""

from __future__ import annotations

import datetime as dt
import logging

from sqlalchemy import BigInteger, Column, DateTime, UniqueConstraint
from sqlmodel import Field, SQLModel

log = logging.getLogger(__name__)


class PlayerLink(SQLModel, table=True):
    """A Discord member is this player (approved by a director)."""

    __tablename__ = "player_link"
    __table_args__ = (
        UniqueConstraint("league_id", "discord_id", name="uq_player_link_member"),
        UniqueConstraint("player_id", name="uq_player_link_player"),
    )

    id: int | None = Field(default=None, primary_key=True)
    league_id: int = Field(foreign_key="league.id", index=True)
    player_id: int = Field(foreign_key="player.id")
    discord_id: int = Field(sa_column=Column(BigInteger, nullable=False))
    linked_by: str = Field(max_length=100)
    linked_at: dt.datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))


class LinkRequest(SQLModel, table=True):
    """A member asked the directors to link him to this player; nobody has answered yet."""

    __tablename__ = "link_request"
    __table_args__ = (UniqueConstraint("league_id", "discord_id", name="uq_link_request_member"),)

    id: int | None = Field(default=None, primary_key=True)
    league_id: int = Field(foreign_key="league.id")
    player_id: int = Field(foreign_key="player.id")
    discord_id: int = Field(sa_column=Column(BigInteger, nullable=False))
    asked_at: dt.datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
