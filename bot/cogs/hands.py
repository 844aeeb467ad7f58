"""/hand: evaluate a hand, or who wins and how often (same grammar as ``pokerfloor hand``)."""

from __future__ import annotations

import functools
import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

import rulings
from bot.transformers import CardsArg
from bot.tree import respond
from bot.views.hand import hand_reply, hand_reply_needs_thread
from bot.views.league_commands import league_rules_for

if TYPE_CHECKING:
    from bot.app import LeagueBot

log = logging.getLogger(__name__)


class HandsCog(commands.Cog):
    """Evaluate hands and equities."""

    def __init__(self, bot: LeagueBot) -> None:
        self.bot = bot

    @app_commands.command(name="hand")
    @app_commands.describe(
        cards="A hand, or hands separated by 'vs' (e.g. 'As Ks vs Qh Qd')",
        board="Board cards, 0 to 5 (e.g. '2c 7d 9h')",
    )
    async def hand(
        self, interaction: discord.Interaction, cards: CardsArg, board: CardsArg | None = None
    ) -> None:
        """Evaluate a hand, or who wins and how often against other hands."""
        # The server's league decides premium points and citations (the default preset's
        # rules before it has a league, and in a direct message).
        guild_id = interaction.guild_id
        rules = (
            await self.bot.db.run(league_rules_for, guild_id=guild_id)
            if guild_id is not None
            else rulings.load_league_rules()
        )
        if hand_reply_needs_thread(cards, board):
            # Preflop equity enumerates up to 1.7 M boards (~50 ms): defer, then compute on a
            # worker so the event loop stays free.
            answer = functools.partial(hand_reply, rules=rules)
            await self.bot.answer(interaction, answer, cards, board, heavy=True)
        else:
            # A known board takes microseconds to a few ms: answer straight from the loop.
            await respond(interaction, hand_reply(cards, board, rules=rules))


async def setup(bot: LeagueBot) -> None:
    """Add the hands cog."""
    await bot.add_cog(HandsCog(bot))
