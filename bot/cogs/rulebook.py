"""/rule: search the league rulebooks; answers carry their citation and a "see also"."""

from __future__ import annotations

import asyncio
import functools
import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot import render
from bot.console import view
from bot.transformers import QueryArg

if TYPE_CHECKING:
    from bot.app import LeagueBot

log = logging.getLogger(__name__)


class RulebookCog(commands.Cog):
    """Look up rules."""

    def __init__(self, bot: LeagueBot) -> None:
        self.bot = bot

    @app_commands.command(name="rule")
    @app_commands.describe(
        query="Words from the rule, or its number (e.g. 'oversized chip', '2.g.d.5')",
        book="Search only this rulebook",
    )
    async def rule(
        self, interaction: discord.Interaction, query: QueryArg, book: str | None = None
    ) -> None:
        """Look up a rule in the league's rulebook, with its citation."""
        rule_reply = view("rule", "rule_reply")
        search = functools.partial(rule_reply, self.bot.rules, query, book=book)
        await self.bot.answer(interaction, search)

    @rule.autocomplete("query")
    async def rule_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        """Suggest rules whose title or number starts like what was typed."""
        index = self.bot.rules
        if index is None:
            return []
        pairs = await asyncio.to_thread(index.autocomplete, current, limit=render.CHOICES_LIMIT)
        return choices(pairs)


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
