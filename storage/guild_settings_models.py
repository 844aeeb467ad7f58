"""The table of a Discord server's league settings: roles, results channel, home rulebook."""

from __future__ import annotations

import logging

from sqlalchemy import BigInteger, Column, String
from sqlmodel import Field, SQLModel

log = logging.getLogger(__name__)


class GuildSetting(SQLModel, table=True):
    """One league's Discord settings (the league row holds its guild id and rules preset)."""

    __tablename__ = "guild_setting"

    league_id: int = Field(foreign_key="league.id", primary_key=True)
    director_role_id: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))
    results_channel_id: int | None = Field(
        default=None, sa_column=Column(BigInteger, nullable=True)
    )
    clock_ping_role_id: int | None = Field(
        default=None, sa_column=Column(BigInteger, nullable=True)
    )
    # The league's own rulebook (a book name such as ``poker-pub``), ranked first by /rule;
    # None: the default home book.
    rulebook: str | None = Field(default=None, sa_column=Column(String(100), nullable=True))
