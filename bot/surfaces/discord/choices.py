"""Autocomplete choices (and a form's pick lists) from a source named on an option.

``Opt.complete`` names the source: ``rule``, ``book``, ``structure``, ``rsvp`` (tonight's RSVPs
first), ``season``, ``location``, ``player``, ``event``; Discord's limits (25 choices, 100
characters each) are kept here.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

import discord
from discord import app_commands

from bot.surfaces.discord import render

if TYPE_CHECKING:
    from bot.surfaces.discord import LeagueBot


async def choices_for(
    bot: LeagueBot, interaction: discord.Interaction, source: str, current: str
) -> list[app_commands.Choice[str]]:
    """Autocomplete choices from ``source`` (rule, book, structure, season, location, player)."""
    if source == "structure":
        from rulings import preset_names

        wanted = current.strip().lower()
        return choice_list([(n, n) for n in preset_names() if wanted in n.lower()])
    if source in ("rule", "book"):
        index = await bot.rules_for(interaction.guild_id)
        if index is None:
            return []
        if source == "rule":
            if not current.strip():
                return []
            return choice_list(index.autocomplete(current[:100], limit=render.CHOICES_LIMIT))
        wanted = current.strip().lower()
        books = [n for n in index.book_names if wanted in n.lower()]
        return choice_list([(index.books[n].title + f" ({n})", n) for n in books])
    if source == "rsvp":
        from bot.features.night.tonight import rsvp_first_choices

        firsts: list[str] = await bot.db.run(
            rsvp_first_choices,
            guild_id=interaction.guild_id,
            channel_id=interaction.channel_id or 0,
            typed=current[:100],
            today=dt.datetime.now(ZoneInfo(bot.settings.timezone)).date(),
        )
        return choice_list([(n, n) for n in firsts])
    from bot.features.league.reads import choices

    names: list[str] = await bot.db.run(
        choices, guild_id=interaction.guild_id, what=source, typed=current[:100]
    )
    return choice_list([(n, n) for n in names])


def choice_list(pairs: list[tuple[str, str]]) -> list[app_commands.Choice[str]]:
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


__all__ = ["choice_list", "choices_for"]
