"""/admin: the bot owner's tools (health, forced command sync). Hidden from non-managers."""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands
from sqlalchemy import text
from sqlmodel import Session

from bot.reply import Field, Reply
from bot.tree import respond

if TYPE_CHECKING:
    from bot.app import LeagueBot

log = logging.getLogger(__name__)


def _ping_database(*, session: Session) -> None:
    session.execute(text("SELECT 1"))


async def owner_only(interaction: discord.Interaction) -> bool:
    """Let only the bot's owner (from the Discord application) through."""
    client = interaction.client
    if isinstance(client, commands.Bot) and await client.is_owner(interaction.user):
        return True
    raise app_commands.CheckFailure("Only the bot's owner can use /admin.")


@app_commands.guild_only()
@app_commands.default_permissions(manage_guild=True)
class AdminCog(commands.GroupCog, group_name="admin"):
    """Look after the bot."""

    def __init__(self, bot: LeagueBot) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(name="health")
    @app_commands.check(owner_only)
    async def health(self, interaction: discord.Interaction) -> None:
        """Show the gateway latency, the database round trip and what is loaded."""
        started = time.perf_counter()
        await self.bot.db.run(_ping_database)
        db_ms = (time.perf_counter() - started) * 1000
        fields = (
            Field("Gateway", f"{self.bot.latency * 1000:.0f} ms", inline=True),
            Field("Database", f"{db_ms:.1f} ms", inline=True),
            Field("Servers", str(len(self.bot.guilds)), inline=True),
            Field("Rulebooks", "loaded" if self.bot.rules is not None else "not loaded"),
            Field("Cogs", ", ".join(sorted(self.bot.cogs))),
        )
        await respond(interaction, Reply(title="Health", fields=fields, private=True))

    @app_commands.command(name="sync")
    @app_commands.check(owner_only)
    async def sync(self, interaction: discord.Interaction) -> None:
        """Push the slash commands to Discord now, even if unchanged."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        await self.bot.sync_commands(force=True)
        scope, _ = self.bot.sync_scope()
        await respond(interaction, Reply(title="Synced", text=f"Commands pushed to {scope}."))


async def setup(bot: LeagueBot) -> None:
    """Add the admin cog."""
    await bot.add_cog(AdminCog(bot))
