"""/rule: search the league rulebooks; answers carry their citation and a "see also".

Each server's answers come from its own home book first (``/td settings rulebook``), the other
books' as "Other leagues say"; a server without one uses the bot's default home book.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

import rulings
from bot import render
from bot.transformers import QueryArg
from bot.tree import respond
from bot.views.rule import rule_reply

if TYPE_CHECKING:
    from bot.app import LeagueBot

log = logging.getLogger(__name__)


class RulebookCog(commands.Cog):
    """Look up rules."""

    def __init__(self, bot: LeagueBot) -> None:
        self.bot = bot

    @app_commands.command(name="rule")
    @app_commands.describe(
        query="Words from the rule, or its number (e.g. 'oversized chip', '2.G.d.6')",
        book="Search only this rulebook",
    )
    async def rule(
        self, interaction: discord.Interaction, query: QueryArg, book: str | None = None
    ) -> None:
        """Look up a rule in the league's rulebook, with its citation."""
        # A search takes well under 10 ms (200-character queries at most): answer from the loop.
        # The server's home index was built when its home book was chosen (or at start-up).
        index = await self.bot.rules_for(interaction.guild_id)
        public_url = self.bot.settings.public_url
        await respond(interaction, rule_reply(index, query, book=book, public_url=public_url))

    @rule.autocomplete("query")
    async def query_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        """Suggest rules whose title or number starts like what was typed."""
        index = await self.bot.rules_for(interaction.guild_id)
        if index is None or not current.strip():
            return []
        return choices(index.autocomplete(current[:100], limit=render.CHOICES_LIMIT))

    @rule.autocomplete("book")
    async def book_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        """Suggest the loaded rulebooks."""
        return book_choices(await self.bot.rules_for(interaction.guild_id), current)


def book_choices(index: rulings.RuleIndex | None, current: str) -> list[app_commands.Choice[str]]:
    """The loaded rulebooks whose name holds what was typed, home book first."""
    if index is None:
        return []
    wanted = current.strip().lower()
    names = [n for n in index.book_names if wanted in n.lower()]
    return choices([(index.books[n].title + f" ({n})", n) for n in names])


def choices(pairs: list[tuple[str, str]]) -> list[app_commands.Choice[str]]:
    """Autocomplete choices within Discord's limits: 25 at most, 100 characters each."""
    seen: set[str] = set()
    out: list[app_commands.Choice[str]] = []
    for label, value in pairs:
        value = render.choice_label(value)
        if value in seen:
            continue
        seen.add(value)
        out.append(app_commands.Choice(name=render.choice_label(label), value=value))
        if len(out) == render.CHOICES_LIMIT:
            break
    return out


async def setup(bot: LeagueBot) -> None:
    """Add the rulebook cog."""
    await bot.add_cog(RulebookCog(bot))
