"""/help: every command the person can use, from the command tree itself."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.console import help_reply
from bot.reply import Reply
from bot.tree import respond

if TYPE_CHECKING:
    from bot.app import LeagueBot

log = logging.getLogger(__name__)


def command_entries(
    items: list[Any], permissions: discord.Permissions | None
) -> Iterator[tuple[str, str]]:
    """``(usage, description)`` for every slash command the holder of ``permissions`` sees."""
    for item in sorted(items, key=lambda c: c.qualified_name):
        if not isinstance(item, app_commands.Command | app_commands.Group):
            continue
        needed = item.default_permissions
        if needed is not None and permissions is not None and not needed <= permissions:
            continue
        if isinstance(item, app_commands.Group):
            yield from _group_entries(item)
            continue
        yield _usage(item), item.description


def _group_entries(group: app_commands.Group) -> Iterator[tuple[str, str]]:
    for sub in sorted(group.commands, key=lambda c: c.name):
        if isinstance(sub, app_commands.Group):
            yield from _group_entries(sub)
        else:
            yield _usage(sub), sub.description


def _usage(command: app_commands.Command[Any, ..., Any]) -> str:
    parts = [f"/{command.qualified_name}"]
    for p in command.parameters:
        parts.append(f"{p.name}" if p.required else f"[{p.name}]")
    return " ".join(parts)


def help_for(bot: LeagueBot, permissions: discord.Permissions | None) -> Reply:
    """The help reply for someone with ``permissions`` (None shows everything)."""
    return help_reply(command_entries(bot.tree.get_commands(), permissions), title="pokerfloor")


class HelpCog(commands.Cog):
    """List the commands."""

    def __init__(self, bot: LeagueBot) -> None:
        self.bot = bot

    @app_commands.command(name="help")
    async def help(self, interaction: discord.Interaction) -> None:
        """List pokerfloor's commands and what they do."""
        await respond(interaction, help_for(self.bot, interaction.permissions))


async def setup(bot: LeagueBot) -> None:
    """Add the help cog."""
    await bot.add_cog(HelpCog(bot))
