"""Commands that exist only in tests and benchmarks, to probe the framework's edges.

Loaded with ``LeagueBot(..., extensions=EXTENSIONS + ("tests.bot.probe_cog",))``. ``/echo``
is also the benchmark's peer: the cheapest possible command through the same stack.
"""

from __future__ import annotations

import asyncio
import time

import discord
from discord import app_commands
from discord.ext import commands

from bot.reply import Field, Reply
from bot.surfaces.discord.tree import respond
from rulings import RulingsError


def _sleepy_reply(seconds: float) -> Reply:
    time.sleep(seconds)  # stands in for CPU-heavy work (preflop equity) on a worker thread
    return Reply(title="Done", text=f"worked {seconds:.2f} s")


def big_reply() -> Reply:
    words = " ".join(f"word{i}" for i in range(2500))
    return Reply(
        title="T" * 300,
        text=f"**Rule 2.g.d.5** {words}",
        fields=tuple(Field(f"field {i} " + "n" * 300, "v" * 2000) for i in range(40)),
        citation="BTown Poker League rulebook, section 2.G.d.5 (odd chips)",
        footer="f" * 3000,
    )


class ProbeCog(commands.Cog):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    @app_commands.command(name="echo")
    async def echo(self, interaction: discord.Interaction, text: str) -> None:
        """Say the text back."""
        await respond(interaction, Reply(title="Echo", text=text))

    @app_commands.command(name="oops")
    async def oops(self, interaction: discord.Interaction) -> None:
        """Make a user mistake."""
        raise RulingsError('"1x" is not a card: use rank 2-9/T/J/Q/K/A and suit s/h/d/c')

    @app_commands.command(name="boom")
    async def boom(self, interaction: discord.Interaction) -> None:
        """Hit a bug."""
        raise RuntimeError("secret internals that must not leak")

    @app_commands.command(name="slow_forgot")
    async def slow_forgot(self, interaction: discord.Interaction, seconds: float) -> None:
        """Answer late without deferring (a bug the deadline catches)."""
        await asyncio.sleep(seconds)
        await respond(interaction, Reply(title="Late"))

    @app_commands.command(name="slow_answer")
    async def slow_answer(self, interaction: discord.Interaction, seconds: float) -> None:
        """Compute for a while on a worker, deferring in time."""
        await self.bot.answer(interaction, _sleepy_reply, seconds, defer_after=0.05)  # type: ignore[attr-defined]

    @app_commands.command(name="big")
    async def big(self, interaction: discord.Interaction) -> None:
        """Send a reply far over every Discord limit."""
        await respond(interaction, big_reply())

    @app_commands.command(name="raw_long")
    async def raw_long(self, interaction: discord.Interaction) -> None:
        """Bypass render and send 2,001 characters (the fake must refuse it)."""
        await interaction.response.send_message("x" * 2001)

    @app_commands.command(name="pick")
    async def pick(self, interaction: discord.Interaction, thing: str) -> None:
        """Pick something suggested by autocomplete."""
        await respond(interaction, Reply(title="Picked", text=thing))

    @pick.autocomplete("thing")
    async def pick_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        from bot.surfaces.discord.choices import choice_list

        return choice_list(
            [(f"{current} {i} " + "x" * 150, f"{i} " + "y" * 150) for i in range(40)]
        )


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(ProbeCog(bot))
