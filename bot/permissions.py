"""Who may use the director commands: the league's director role, or Manage Server.

Director command groups are hidden from everyone else with
``app_commands.default_permissions(manage_guild=True)`` (a server admin can show them to the
director role in Server Settings → Integrations) and checked again at run time, because
default permissions are only a default. Use it on any director command::

    @app_commands.command(name="pause")
    @director_only()
    async def pause(self, interaction: discord.Interaction) -> None:
        settings = director_settings(interaction)  # loaded by the check, no second query
        ...

A refused member gets a short private answer (``LeagueTree`` shows ``NotDirectorError``'s
message) and the callback never runs, so nothing is written.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

import discord
from discord import app_commands

from bot.errors import REFUSAL, NotDirectorError
from storage.guild_settings import GuildSettings, get_guild_settings

log = logging.getLogger(__name__)

T = TypeVar("T")

_EXTRAS_KEY = "pokerfloor.guild_settings"

__all__ = ["REFUSAL", "NotDirectorError", "check_director", "director_only", "is_director"]


def member_role_ids(member: discord.abc.User) -> frozenset[int]:
    """The role ids of a server member (empty for a user outside a server).

    Read from the interaction's member payload rather than the role cache: the bot needs no
    guild cache (and no privileged intent) to know a member's roles.
    """
    roles = getattr(member, "_roles", None)  # discord.Member keeps the payload's role ids here
    return frozenset(int(r) for r in roles) if roles is not None else frozenset()


def is_director(interaction: discord.Interaction, settings: GuildSettings | None) -> bool:
    """Whether the member behind ``interaction`` may use the league's director commands.

    Args:
        interaction: The command interaction (in a server).
        settings: The server's settings (their ``director_role_id``); None when unknown.

    Returns:
        True for a member with Manage Server (or Administrator) or with the director role.
    """
    if interaction.guild_id is None:
        return False
    perms = interaction.permissions
    if perms.manage_guild or perms.administrator:
        return True
    role = settings.director_role_id if settings is not None else None
    return role is not None and role in member_role_ids(interaction.user)


async def load_settings(interaction: discord.Interaction) -> GuildSettings:
    """The server's settings, read once per interaction (kept in ``interaction.extras``)."""
    cached = interaction.extras.get(_EXTRAS_KEY)
    if isinstance(cached, GuildSettings):
        return cached
    if interaction.guild_id is None:
        raise app_commands.NoPrivateMessage()
    db = getattr(interaction.client, "db", None)
    if db is None:
        raise RuntimeError("director checks need a LeagueBot (with .db)")
    settings: GuildSettings = await db.run(get_guild_settings, guild_id=interaction.guild_id)
    interaction.extras[_EXTRAS_KEY] = settings
    return settings


async def check_director(interaction: discord.Interaction) -> bool:
    """An ``app_commands.check`` predicate: pass a director, refuse anyone else.

    Raises:
        NotDirectorError: the member is not a director (answered privately).
        NoPrivateMessage: used outside a server.
    """
    if interaction.guild_id is None:
        raise app_commands.NoPrivateMessage()
    perms = interaction.permissions
    if perms.manage_guild or perms.administrator:
        await load_settings(interaction)
        return True
    settings = await load_settings(interaction)
    if is_director(interaction, settings):
        return True
    log.info(
        "refused director command /%s to user %s in guild %s",
        interaction.command.qualified_name if interaction.command else "?",
        interaction.user.id,
        interaction.guild_id,
    )
    # discord.py answers only its own errors from a check: wrap ours (bot.errors) here.
    raise app_commands.CheckFailure(REFUSAL)


def director_only() -> Callable[[T], T]:
    """Decorator: the command (or a whole group class) runs only for directors."""
    return app_commands.check(check_director)


def director_settings(interaction: discord.Interaction) -> GuildSettings:
    """The settings loaded by ``check_director`` for this interaction."""
    settings: Any = interaction.extras.get(_EXTRAS_KEY)
    if not isinstance(settings, GuildSettings):
        raise RuntimeError("director_settings() needs the director_only() check first")
    return settings


def actor(interaction: discord.Interaction) -> str:
    """The audit log's name for the member: ``discord:<user id>:<name>``."""
    return f"discord:{interaction.user.id}:{interaction.user.name}"[:100]
