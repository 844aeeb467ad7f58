"""/standings, /toc and /stack: the league tables everyone may look at.

Long tables are sent one page at a time with ◀ ▶ buttons. The buttons carry their state in
their ``custom_id`` (table, season id, location id, page) and are ``DynamicItem``s, so they keep
working after a restart and need no in-memory view. Storage reads run off the event loop via
``Database.run`` after the interaction is deferred.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

import rulings
from bot import render
from bot.reply import Reply
from bot.transformers import tidy_text
from bot.views.league_commands import (
    Paged,
    choices,
    league_rules_for,
    names_by_id,
    stack_reply_for,
    standings_for,
    toc_for,
)

if TYPE_CHECKING:
    from bot.app import LeagueBot

log = logging.getLogger(__name__)

NAME_CHARS = 100
TableKind = Literal["st", "toc"]


def _name(value: str | None, what: str) -> str | None:
    return tidy_text(value, what=what, max_chars=NAME_CHARS) if value else None


def pager(kind: TableKind, paged: Paged, page: int) -> discord.ui.View | None:
    """◀ ▶ buttons for page ``page`` (1-based) of ``paged``; None for a one-page table."""
    total = len(paged.pages)
    if total <= 1:
        return None
    view = discord.ui.View(timeout=None)
    for label, target, disabled in (("◀", page - 1, page <= 1), ("▶", page + 1, page >= total)):
        view.add_item(
            PageButton(kind, paged.season_id, paged.location_id, target, label, disabled=disabled)
        )
    return view


class PageButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"pf:(?P<kind>st|toc):(?P<season>\d+):(?P<loc>\d+):(?P<page>\d+)",
):
    """A page-turning button whose ``custom_id`` holds what to show."""

    def __init__(
        self,
        kind: TableKind,
        season_id: int,
        location_id: int,
        page: int,
        label: str = "▶",
        *,
        disabled: bool = False,
    ) -> None:
        self.kind: TableKind = kind
        self.season_id = season_id
        self.location_id = location_id
        self.page = page
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.secondary,
                custom_id=f"pf:{kind}:{season_id}:{location_id}:{page}",
                disabled=disabled,
            )
        )

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> PageButton:
        """Rebuild the button from a pressed ``custom_id``."""
        kind: TableKind = "toc" if match["kind"] == "toc" else "st"
        return cls(kind, int(match["season"]), int(match["loc"]), int(match["page"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Show the page this button points to, in place of the current one."""
        db = interaction.client.db
        paged = await db.run(
            _table_by_id,
            guild_id=interaction.guild_id,
            kind=self.kind,
            season_id=self.season_id,
            location_id=self.location_id,
        )
        page = max(1, min(self.page, len(paged.pages)))
        view = pager(self.kind, paged, page)
        await interaction.response.edit_message(
            embed=render.render(paged.pages[page - 1]).embed,
            view=view,
            allowed_mentions=render.NO_MENTIONS,
        )


def _table_by_id(
    *, session: Any, guild_id: int | None, kind: TableKind, season_id: int, location_id: int
) -> Paged:
    season, location = names_by_id(
        session=session, guild_id=guild_id, season_id=season_id, location_id=location_id
    )
    if kind == "toc":
        return toc_for(session=session, guild_id=guild_id, season=season)
    return standings_for(session=session, guild_id=guild_id, season=season, location=location)


async def send_paged(interaction: discord.Interaction, kind: TableKind, paged: Paged) -> None:
    """Send the first page (after ``defer``) with page buttons when there are more."""
    first: Reply = paged.pages[0]
    rendered = render.render(first)
    view = pager(kind, paged, 1)
    if view is None:
        await interaction.followup.send(
            embed=rendered.embed, ephemeral=rendered.ephemeral, allowed_mentions=render.NO_MENTIONS
        )
    else:
        await interaction.followup.send(
            embed=rendered.embed,
            ephemeral=rendered.ephemeral,
            allowed_mentions=render.NO_MENTIONS,
            view=view,
        )


async def send_reply(interaction: discord.Interaction, reply: Reply) -> None:
    """Send one reply as the follow-up of a deferred interaction."""
    rendered = render.render(reply)
    await interaction.followup.send(
        embed=rendered.embed, ephemeral=rendered.ephemeral, allowed_mentions=render.NO_MENTIONS
    )


async def name_choices(
    interaction: discord.Interaction, typed: str, what: str
) -> list[app_commands.Choice[str]]:
    """Autocomplete seasons, locations or players of the server's league (at most 25)."""
    db = interaction.client.db  # type: ignore[attr-defined]
    names: list[str] = await db.run(
        choices, guild_id=interaction.guild_id, what=what, typed=typed[:NAME_CHARS]
    )
    out = []
    for name in names[: render.CHOICES_LIMIT]:
        label = render.choice_label(name)
        out.append(app_commands.Choice(name=label, value=label))
    return out


class LeagueCog(commands.Cog):
    """The league's standings, Tournament of Champions and starting stacks."""

    def __init__(self, bot: LeagueBot) -> None:
        self.bot = bot

    @app_commands.command(name="standings")
    @app_commands.guild_only()
    @app_commands.describe(
        season="The season (default: the current one)",
        location="Only this location's standings",
        player="Only this player's line",
    )
    async def standings(
        self,
        interaction: discord.Interaction,
        season: str | None = None,
        location: str | None = None,
        player: str | None = None,
    ) -> None:
        """Show the season's standings (RP, BP, events), paged."""
        season, location = _name(season, "a season"), _name(location, "a location")
        player = _name(player, "a player")
        await interaction.response.defer(thinking=True)
        paged = await self.bot.db.run(
            standings_for,
            guild_id=interaction.guild_id,
            season=season,
            location=location,
            player=player,
        )
        await send_paged(interaction, "st", paged)

    @app_commands.command(name="toc")
    @app_commands.guild_only()
    @app_commands.describe(
        player="Only this player's status", season="The season (default: the current one)"
    )
    async def toc(
        self,
        interaction: discord.Interaction,
        player: str | None = None,
        season: str | None = None,
    ) -> None:
        """Show who is qualified for the Tournament of Champions and who is short."""
        season, player = _name(season, "a season"), _name(player, "a player")
        await interaction.response.defer(thinking=True)
        paged = await self.bot.db.run(
            toc_for, guild_id=interaction.guild_id, season=season, player=player
        )
        await send_paged(interaction, "toc", paged)

    @app_commands.command(name="stack")
    @app_commands.describe(
        player="Whose stack (shown in the title)",
        early="Signed in 15 minutes early",
        on_time="Seated before the announcements",
        birthday="This is the player's birthday event",
        new_player="The player's first night in the league",
        brought="New players this player brought tonight",
        late_big_blind="Late: the big blind of the level the player sits down in",
    )
    async def stack(
        self,
        interaction: discord.Interaction,
        player: str | None = None,
        early: bool = False,
        on_time: bool = False,
        birthday: bool = False,
        new_player: bool = False,
        brought: app_commands.Range[int, 0, 20] = 0,
        late_big_blind: app_commands.Range[int, 1, 1_000_000] | None = None,
    ) -> None:
        """Work out a player's starting stack with every extra and the late penalty."""
        who = _name(player, "a player")
        arrival = rulings.Arrival(
            early_signin=early,
            on_time=on_time,
            birthday=birthday,
            new_player=new_player,
            new_players_brought=brought,
            late_big_blind=late_big_blind,
        )
        await interaction.response.defer(thinking=True)
        rules = await self.bot.db.run(league_rules_for, guild_id=interaction.guild_id)
        await send_reply(interaction, stack_reply_for(rules, arrival, who))

    @standings.autocomplete("season")
    @toc.autocomplete("season")
    async def _season_choices(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return await name_choices(interaction, current, "season")

    @standings.autocomplete("location")
    async def _location_choices(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return await name_choices(interaction, current, "location")

    @standings.autocomplete("player")
    @toc.autocomplete("player")
    async def _player_choices(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return await name_choices(interaction, current, "player")


async def setup(bot: LeagueBot) -> None:
    """Add the league cog and its page buttons."""
    bot.add_dynamic_items(PageButton)
    await bot.add_cog(LeagueCog(bot))
