"""/td: the tournament director's commands (results, awards, corrections, strikes, settings).

Hidden from members without Manage Server by default permissions and checked again at run
time (``bot.permissions``): the league's director role or Manage Server. A refused member
gets a short private answer and nothing is written. Every write is deferred, runs in one
transaction via ``Database.run`` (audited as ``discord:<id>:<name>``), is confirmed with what
changed and the points it produced, and is posted to the results channel when one is set.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import zoneinfo
from collections.abc import Collection
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

import rulings
from bot import render
from bot.permissions import NotDirectorError, actor, check_director, director_settings
from bot.reply import Reply
from bot.slash import choices_for
from bot.transformers import BadOption, tidy_text
from bot.views import league as league_views
from bot.views import td as views
from bot.views.rule import escape_markdown
from storage.event_changes import EventEdit, RecordBuilder
from storage.guild_settings import KEEP, get_guild_settings, update_guild_settings

if TYPE_CHECKING:
    from bot.app import LeagueBot

log = logging.getLogger(__name__)


async def send_reply(interaction: discord.Interaction, reply: Reply) -> None:
    """Send one reply as the follow-up of a deferred interaction."""
    rendered = render.render(reply)
    await interaction.followup.send(
        embed=rendered.embed, ephemeral=rendered.ephemeral, allowed_mentions=render.NO_MENTIONS
    )


FINISH_CHARS = 4000
REASON_CHARS = 500
DOWNLOAD_TIMEOUT_S = 15.0
NAME_CHARS = 100

Kind = Literal["regular", "second_chance", "toc"]
Hand = Literal["quads", "straight_flush", "royal_flush"]
Preset = Literal["btown", "poker-pub"]
Clearable = Literal["director_role", "results_channel", "clock_ping_role", "rulebook"]
EventId = app_commands.Range[int, 1, 2**62]
CONFIRM = "Create new player names even when they resemble existing ones"
NEW_PLAYERS = "Names confirmed as new players (comma-separated)"


def _text(value: str, what: str, max_chars: int = NAME_CHARS) -> str:
    return tidy_text(value, what=what, max_chars=max_chars)


def _opt(value: str | None, what: str, max_chars: int = NAME_CHARS) -> str | None:
    return _text(value, what, max_chars) if value else None


async def download(file: discord.Attachment) -> bytes:
    """Fetch an attachment with the bot's HTTP session (from its URL), within a time limit.

    Raises:
        BadOption: the download failed or took too long.
    """
    try:
        async with asyncio.timeout(DOWNLOAD_TIMEOUT_S):
            data = await file.read()
    except (TimeoutError, discord.HTTPException) as exc:
        log.info("download of %s failed: %r", file.url, exc)
        raise BadOption(f"I could not download {file.filename}; please attach it again.") from None
    views.check_upload(file.filename, len(data))  # the size Discord announced may be wrong
    return data


def _finish(value: str) -> str:
    # Keep line breaks: a pasted finish list may have one place per line.
    text = value.strip()
    if not text:
        raise BadOption("Please type the finish order, like '1 Alice, 2 Bob, 3 Carol=Dave'.")
    if len(text) > FINISH_CHARS:
        raise BadOption(f"The finish order is too long (at most {FINISH_CHARS} characters).")
    return text


# Hidden from members without Manage Server; checked again at run time (interaction_check).
@app_commands.guild_only()
@app_commands.default_permissions(manage_guild=True)
class TdCog(commands.GroupCog, group_name="td", group_description="Tournament director tools"):
    """Record results and run the league (directors only)."""

    def __init__(self, bot: LeagueBot) -> None:
        self.bot = bot
        super().__init__()

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        """Every /td command: directors only (the role, or Manage Server)."""
        return await check_director(interaction)

    # -- helpers ---------------------------------------------------------------------------

    def _today(self) -> dt.date:
        try:
            zone: dt.tzinfo = zoneinfo.ZoneInfo(self.bot.settings.timezone)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            zone = dt.UTC
        return dt.datetime.now(zone).date()

    async def _confirm(
        self, interaction: discord.Interaction, reply: Reply, *, private: bool = False
    ) -> None:
        """Answer the director, then post the same summary to the results channel."""
        await send_reply(interaction, replace(reply, private=private))
        settings = director_settings(interaction)
        channel_id = settings.results_channel_id
        if channel_id is None:
            return
        public = views.announcement(reply, interaction.user.display_name)
        try:
            channel = self.bot.get_partial_messageable(channel_id, guild_id=interaction.guild_id)
            await channel.send(
                embed=render.render(public).embed, allowed_mentions=render.NO_MENTIONS
            )
        except discord.HTTPException as exc:
            log.warning("could not post to results channel %s: %s", channel_id, exc)
            await interaction.followup.send(
                "Saved, but I could not post to the results channel; check my permissions there.",
                ephemeral=True,
                allowed_mentions=render.NO_MENTIONS,
            )

    async def _record(
        self, interaction: discord.Interaction, build: RecordBuilder, allow: bool | Collection[str]
    ) -> None:
        outcomes = await self.bot.db.run(
            views.record_for,
            guild_id=interaction.guild_id,
            build=build,
            actor=actor(interaction),
            allow_new=allow,
        )
        await self._confirm(interaction, views.recorded_reply(outcomes))

    async def _amend(
        self,
        interaction: discord.Interaction,
        event: int,
        edit: EventEdit,
        *,
        reason: str | None = None,
        allow: bool | Collection[str] = False,
    ) -> None:
        await interaction.response.defer(thinking=True)
        outcome = await self.bot.db.run(
            views.amend_for,
            guild_id=interaction.guild_id,
            event_id=event,
            edit=edit,
            actor=actor(interaction),
            reason=reason,
            allow_new=allow,
        )
        if outcome.status == "unchanged":
            await send_reply(
                interaction,
                Reply(
                    title=f"Event #{event} unchanged",
                    text=f"It already says that ({edit.describe()}).",
                    private=True,
                ),
            )
            return
        await self._confirm(
            interaction, views.recorded_reply([outcome], change=edit.describe(), reason=reason)
        )

    # -- results -----------------------------------------------------------------------------

    @app_commands.command(name="result")
    @app_commands.describe(
        finish="Finish order, e.g. '1 Alice, 2 Bob, 3 Carol=Dave' (= is a tie)",
        location="Where it was played",
        season="The season (default: the current one)",
        date="The day, YYYY-MM-DD (default: today)",
        kind="Regular night, second chance or TOC",
        played="Others who played out of the points (comma-separated)",
        file="A results file instead: JSON import format, or CSV 'position,player'",
        new_players=NEW_PLAYERS,
        confirm=CONFIRM,
    )
    async def result(
        self,
        interaction: discord.Interaction,
        finish: str | None = None,
        location: str | None = None,
        season: str | None = None,
        date: str | None = None,
        kind: Kind = "regular",
        played: str | None = None,
        file: discord.Attachment | None = None,
        new_players: str | None = None,
        confirm: bool = False,
    ) -> None:
        """Record an event's finish order (typed, or an attached JSON/CSV file)."""
        if (finish is None) == (file is None):
            raise BadOption("Give the finish order as text or as an attached file (one of them).")
        where = _opt(location, "a location")
        which = _opt(season, "a season")
        day = views.parse_day(date, self._today())
        others = views.parse_names(played, "played")
        allow = views.allow_new_names(confirm, new_players)
        build: RecordBuilder
        if file is not None:
            views.check_upload(file.filename, file.size)  # before downloading anything
            await interaction.response.defer(thinking=True)
            data = await download(file)
            build = views.upload_builder(
                filename=file.filename,
                data=data,
                day=day,
                location=where,
                season=which,
                kind=kind,
                played=others,
            )
        else:
            assert finish is not None
            if where is None:
                raise BadOption("Give the location of the event.")
            build = views.text_event_builder(
                finish=_finish(finish),
                location=where,
                day=day,
                season=which,
                kind=kind,
                played=others,
            )
            await interaction.response.defer(thinking=True)
        await self._record(interaction, build, allow)

    @app_commands.command(name="correct")
    @app_commands.describe(
        event="The event's number (see /td events)",
        finish="The right finish order, e.g. '1 Bob, 2 Alice, 3 Carol'",
        reason="Why it is corrected (kept in the audit log)",
        played="Replace the players out of the points (comma-separated)",
        new_players=NEW_PLAYERS,
        confirm=CONFIRM,
    )
    async def correct(
        self,
        interaction: discord.Interaction,
        event: EventId,
        finish: str,
        reason: str,
        played: str | None = None,
        new_players: str | None = None,
        confirm: bool = False,
    ) -> None:
        """Correct an event's finish order; the old version stays in the audit log."""
        edit = EventEdit(
            finish=rulings.parse_finish_text(_finish(finish)),
            played=views.parse_names(played, "played") if played is not None else None,
        )
        why = _text(reason, "a reason", REASON_CHARS)
        allow = views.allow_new_names(confirm, new_players)
        await self._amend(interaction, event, edit, reason=why, allow=allow)

    @app_commands.command(name="void")
    @app_commands.describe(event="The event's number", reason="Why it no longer counts")
    async def void(self, interaction: discord.Interaction, event: EventId, reason: str) -> None:
        """Void an event: it stays on record but no longer counts."""
        why = _text(reason, "a reason", REASON_CHARS)
        await interaction.response.defer(thinking=True)
        summary = await self.bot.db.run(
            views.void_for,
            guild_id=interaction.guild_id,
            event_id=event,
            reason=why,
            actor=actor(interaction),
        )
        await self._confirm(interaction, views.void_reply(summary))

    @app_commands.command(name="events")
    @app_commands.describe(season="The season (default: the current one)")
    async def events(self, interaction: discord.Interaction, season: str | None = None) -> None:
        """List a season's events with their numbers."""
        which = _opt(season, "a season")
        await interaction.response.defer(thinking=True, ephemeral=True)
        found = await self.bot.db.run(views.events_for, guild_id=interaction.guild_id, season=which)
        page = league_views.event_list_pages(found)[-1]  # the latest events
        await send_reply(interaction, replace(page, private=True))

    # -- awards ------------------------------------------------------------------------------

    @app_commands.command(name="bounty")
    @app_commands.describe(
        event="The event's number",
        player="Who turned the chips in",
        chips="Bounty chips (replaces the number recorded; 0 removes)",
        confirm=CONFIRM,
    )
    async def bounty(
        self,
        interaction: discord.Interaction,
        event: EventId,
        player: str,
        chips: app_commands.Range[int, 0, 100],
        confirm: bool = False,
    ) -> None:
        """Record a player's bounty chips for an event (50 RP each at BTown)."""
        name = _text(player, "a player")
        await self._amend(interaction, event, EventEdit(bounty=(name, chips)), allow=confirm)

    @app_commands.command(name="premium")
    @app_commands.describe(
        event="The event's number",
        player="Who won the hand at showdown",
        hand="The premium hand",
        confirm=CONFIRM,
    )
    async def premium(
        self,
        interaction: discord.Interaction,
        event: EventId,
        player: str,
        hand: Hand,
        confirm: bool = False,
    ) -> None:
        """Record a premium hand won at showdown after the river."""
        name = _text(player, "a player")
        await self._amend(interaction, event, EventEdit(premium_hand=(name, hand)), allow=confirm)

    @app_commands.command(name="second_chance")
    @app_commands.describe(
        event="The event's number", player="Who won the second-chance game", confirm=CONFIRM
    )
    async def second_chance(
        self, interaction: discord.Interaction, event: EventId, player: str, confirm: bool = False
    ) -> None:
        """Record a second-chance win."""
        name = _text(player, "a player")
        edit = EventEdit(second_chance_winner=name)
        await self._amend(interaction, event, edit, allow=confirm)

    @app_commands.command(name="receipt")
    @app_commands.describe(
        event="The event's number",
        player="Who turned the receipt in",
        amount="The amount in dollars, e.g. 12.50",
        ref="The receipt's number (counted once per location)",
        photo="A photo of the receipt",
        confirm=CONFIRM,
    )
    async def receipt(
        self,
        interaction: discord.Interaction,
        event: EventId,
        player: str,
        amount: str,
        ref: str | None = None,
        photo: discord.Attachment | None = None,
        confirm: bool = False,
    ) -> None:
        """Record a food and drink receipt for bonus points."""
        name = _text(player, "a player")
        cents = rulings.parse_amount_cents(_text(amount, "an amount", 20), "amount")
        edit = EventEdit(
            receipt=rulings.Receipt(
                name, cents, _opt(ref, "a receipt number"), photo.url if photo else None
            )
        )
        await self._amend(interaction, event, edit, allow=confirm)

    # -- discipline --------------------------------------------------------------------------

    @app_commands.command(name="strike")
    @app_commands.describe(
        player="Who gets the strike",
        level="Strike level (3.B): 1, 2 or 3",
        reason="Why (shown in the confirmation)",
        season="The season (default: the current one)",
    )
    async def strike(
        self,
        interaction: discord.Interaction,
        player: str,
        level: app_commands.Range[int, 1, 9],
        reason: str,
        season: str | None = None,
    ) -> None:
        """Give a player a strike (suspension; strike 3 forfeits the season)."""
        name = _text(player, "a player")
        why = _text(reason, "a reason", REASON_CHARS)
        which = _opt(season, "a season")
        await interaction.response.defer(thinking=True)
        strike, events, forfeits = await self.bot.db.run(
            views.strike_for,
            guild_id=interaction.guild_id,
            player=name,
            level=level,
            reason=why,
            season=which,
            actor=actor(interaction),
        )
        await self._confirm(interaction, views.strike_reply(strike, events, forfeits))

    # -- settings ----------------------------------------------------------------------------

    @app_commands.command(name="settings")
    @app_commands.describe(
        director_role="Members with this role may use /td",
        results_channel="Where results and changes are posted",
        clock_ping_role="The role the tournament clock pings",
        preset="The league's rules preset",
        rulebook="The league's own rulebook: /rule answers from it first",
        clear="Clear one setting",
    )
    async def settings(
        self,
        interaction: discord.Interaction,
        director_role: discord.Role | None = None,
        results_channel: app_commands.AppCommandChannel | None = None,
        clock_ping_role: discord.Role | None = None,
        preset: Preset | None = None,
        rulebook: str | None = None,
        clear: Clearable | None = None,
    ) -> None:
        """Show or change the league's settings (director role, results channel, ...)."""
        if results_channel is not None and results_channel.type not in (
            discord.ChannelType.text,
            discord.ChannelType.news,
        ):
            raise BadOption("The results channel must be a text channel.")
        values: dict[str, Any] = {
            "director_role_id": director_role.id if director_role else KEEP,
            "results_channel_id": results_channel.id if results_channel else KEEP,
            "clock_ping_role_id": clock_ping_role.id if clock_ping_role else KEEP,
            "rulebook": rulebook.strip() if rulebook is not None else KEEP,
        }
        if clear is not None:
            key = clear if clear == "rulebook" else f"{clear}_id"
            if values[key] is not KEEP:
                raise BadOption(f"Either set {clear} or clear it, not both.")
            values[key] = None
        changing = preset is not None or any(v is not KEEP for v in values.values())
        perms = interaction.permissions
        if changing and not (perms.manage_guild or perms.administrator):
            # A director may look; only a server manager may move the director role itself.
            raise NotDirectorError("Only members with Manage Server can change league settings.")
        if isinstance(values["rulebook"], str):
            values["rulebook"] = self._known_book(values["rulebook"])
        await interaction.response.defer(thinking=True, ephemeral=True)
        if not changing:
            current = await self.bot.db.run(get_guild_settings, guild_id=interaction.guild_id)
            reply = views.settings_reply(current)
            await send_reply(interaction, replace(reply, private=True))
            return
        before, after = await self.bot.db.run(
            update_guild_settings,
            guild_id=interaction.guild_id,
            actor=actor(interaction),
            preset=preset,
            **values,
        )
        if after.rulebook != before.rulebook and interaction.guild_id is not None:
            # Build the home book's index now (off the loop) so that no /rule waits for it.
            await self.bot.set_rule_home(interaction.guild_id, after.rulebook)
        # Announce in the channel the settings now name (the new one, when it changed).
        interaction.extras["pokerfloor.guild_settings"] = after
        await self._confirm(interaction, views.settings_reply(after, before), private=True)

    def _known_book(self, name: str) -> str:
        """A loaded rulebook's name, as the index spells it.

        Raises:
            BadOption: no loaded book has that name (nothing is written).
        """
        index = self.bot.rules
        books = index.book_names if index is not None else ()
        found = next((b for b in books if b.lower() == name.lower()), None)
        if found is None:
            shown = escape_markdown(render.choice_label(name))
            raise BadOption(f"There is no rulebook called '{shown}'; try: {', '.join(books)}.")
        return found

    # -- autocomplete -------------------------------------------------------------------------

    @settings.autocomplete("rulebook")
    async def _rulebook_choices(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return await choices_for(self.bot, interaction, "book", current)

    @result.autocomplete("season")
    @events.autocomplete("season")
    @strike.autocomplete("season")
    async def _season_choices(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return await choices_for(self.bot, interaction, "season", current)

    @result.autocomplete("location")
    async def _location_choices(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return await choices_for(self.bot, interaction, "location", current)

    @bounty.autocomplete("player")
    @premium.autocomplete("player")
    @second_chance.autocomplete("player")
    @receipt.autocomplete("player")
    @strike.autocomplete("player")
    async def _player_choices(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return await choices_for(self.bot, interaction, "player", current)


async def setup(bot: LeagueBot) -> None:
    """Add the director cog."""
    await bot.add_cog(TdCog(bot))
