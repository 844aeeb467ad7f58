"""The table of a Discord server's league settings: director role, results channel, ping role."""

from __future__ import annotations

import logging

from sqlalchemy import BigInteger, Column
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
