"""/hand: evaluate a hand, or who wins and how often (same grammar as ``pokerfloor hand``)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.console import hand_text, view
from bot.transformers import CardsArg

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
        # Preflop equity enumerates 1.7 M boards: answer() computes off the event loop and
        # defers if it is not done quickly.
        await self.bot.answer(interaction, view("hand", "hand_reply"), hand_text(cards, board))


async def setup(bot: LeagueBot) -> None:
    """Add the hands cog."""
    await bot.add_cog(HandsCog(bot))
