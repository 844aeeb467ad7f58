"""/hand: evaluate a hand, or who wins and how often (same grammar as ``pokerfloor hand``)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.transformers import CardsArg
from bot.tree import respond
from bot.views.hand import hand_reply, hand_reply_needs_thread

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
        if hand_reply_needs_thread(cards, board):
            # Preflop equity enumerates up to 1.7 M boards (~50 ms): defer, then compute on a
            # worker so the event loop stays free.
            await self.bot.answer(interaction, hand_reply, cards, board, heavy=True)
        else:
            # A known board takes microseconds to a few ms: answer straight from the loop.
            await respond(interaction, hand_reply(cards, board))


async def setup(bot: LeagueBot) -> None:
    """Add the hands cog."""
    await bot.add_cog(HandsCog(bot))
