"""The table of a Discord server's league settings: roles, results channel, home rulebook."""

from __future__ import annotations

import logging

from sqlalchemy import BigInteger, Boolean, Column, String, false, true
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
    # The public live pages (/live) of the league's clocks and nights; a league may hide them.
    live_page: bool = Field(
        default=True, sa_column=Column(Boolean, nullable=False, server_default=true())
    )
    # Level announcements sent as text-to-speech messages (the bot needs SEND_TTS_MESSAGES).
    clock_tts: bool = Field(
        default=False, sa_column=Column(Boolean, nullable=False, server_default=false())
    )
    # Players may check themselves in to tonight's tournament (/checkin); a director approves.
    self_checkin: bool = Field(
        default=False, sa_column=Column(Boolean, nullable=False, server_default=false())
    )
    # The night's bust-outs and results summary go to a thread of the tournament's channel.
    night_thread: bool = Field(
        default=False, sa_column=Column(Boolean, nullable=False, server_default=false())
    )
    # Players may report their own bust (/out, "I'm out"); a director confirms or rejects.
    self_report: bool = Field(
        default=False, sa_column=Column(Boolean, nullable=False, server_default=false())
    )
