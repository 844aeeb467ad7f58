"""/clock: the live tournament clock, with director buttons on its status message.

Directors start, pause, resume, move and end the clock; everyone can ask ``/clock status``.
The clock itself runs in ``bot.clock_service.ClockService``; this cog translates Discord
interactions into its calls and posts its messages (``DiscordClockPoster``).

Who is a director: ``bot.permissions`` (the league's director role, or Manage Server), checked
at call time for each director command and each button press. ``default_permissions`` cannot
be used: it applies to the whole ``/clock`` group and would hide ``/clock status`` from
players. ``/clock start`` without ``ping_role`` pings the server's configured clock ping role.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import render
from bot.clock_service import ClockService, ClockStatus
from bot.errors import describe
from bot.permissions import check_director, director_only, director_settings
from bot.reply import Reply
from bot.transformers import BadOption
from bot.tree import reply_privately, respond
from rulings import Announcement, ClockAction, position_at, preset_names
from storage.clocks import ClockRecord

if TYPE_CHECKING:
    from bot.app import LeagueBot

log = logging.getLogger(__name__)


class DiscordClockPoster:
    """Posts a clock's messages to Discord with the bot token."""

    def __init__(self, bot: discord.Client) -> None:
        self.bot = bot

    async def announce(
        self, channel_id: int, announcement: Announcement, ping_role_id: int | None
    ) -> None:
        """Post an announcement; only level and break announcements ping, and only the role."""
        channel = self.bot.get_partial_messageable(channel_id)
        if announcement.pings and ping_role_id is not None:
            content = f"<@&{ping_role_id}> {announcement.text}"
            mentions = discord.AllowedMentions(
                everyone=False,
                users=False,
                roles=[discord.Object(ping_role_id)],
                replied_user=False,
            )
        else:
            content, mentions = announcement.text, render.NO_MENTIONS
        await channel.send(render.content(content), allowed_mentions=mentions)

    async def post_status(self, channel_id: int, status: ClockStatus) -> int:
        """Post the live status message with its director buttons."""
        channel = self.bot.get_partial_messageable(channel_id)
        message = await channel.send(
            embed=render.embed(status.reply),
            view=status_view(status),
            allowed_mentions=render.NO_MENTIONS,
        )
        return message.id

    async def edit_status(self, channel_id: int, message_id: int, status: ClockStatus) -> bool:
        """Edit the status message; False when it was deleted."""
        message = self.bot.get_partial_messageable(channel_id).get_partial_message(message_id)
        try:
            await message.edit(embed=render.embed(status.reply), view=status_view(status))
        except discord.NotFound:
            return False
        return True


_BUTTONS: dict[str, tuple[str, discord.ButtonStyle]] = {
    "pause": ("Pause", discord.ButtonStyle.secondary),
    "resume": ("Resume", discord.ButtonStyle.success),
    "plus1": ("+1 min", discord.ButtonStyle.primary),
}


class ClockButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"clock:(?P<action>pause|resume|plus1):(?P<clock_id>[0-9]+)",
):
    """A director button on a status message; works across restarts (the id is in it)."""

    def __init__(self, action: str, clock_id: int) -> None:
        label, style = _BUTTONS[action]
        super().__init__(
            discord.ui.Button(label=label, style=style, custom_id=f"clock:{action}:{clock_id}")
        )
        self.action = action
        self.clock_id = clock_id

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> ClockButton:
        """Rebuild the button from its custom id."""
        return cls(match["action"], int(match["clock_id"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        """Pause, resume or add a minute, then confirm privately."""
        try:
            await check_director(interaction)  # refuses privately; nothing is written
            cog = interaction.client.get_cog("ClockCog")  # type: ignore[attr-defined]
            if not isinstance(cog, ClockCog):
                raise app_commands.CheckFailure("The clock is not running on this bot right now.")
            action, value = {
                "pause": (ClockAction.PAUSE, 0.0),
                "resume": (ClockAction.RESUME, 0.0),
                "plus1": (ClockAction.ADD_TIME, 1.0),
            }[self.action]
            record = await cog.service.act_on(
                self.clock_id, action, value, user_id=interaction.user.id
            )
            await respond(interaction, _done(record, cog.service))
        except Exception as exc:  # buttons do not go through LeagueTree: answer like it does
            text, is_bug = describe(exc)
            if is_bug:
                log.error("clock button %s failed", self.action, exc_info=exc)
            else:
                log.debug("clock button %s refused: %s", self.action, exc)
            await reply_privately(interaction, text)


def status_view(status: ClockStatus) -> discord.ui.View:
    """The director buttons for a status message (none once the clock has ended)."""
    view = discord.ui.View(timeout=None)
    if not status.is_ended:
        view.add_item(ClockButton("resume" if status.is_paused else "pause", status.clock_id))
        view.add_item(ClockButton("plus1", status.clock_id))
    return view


def _done(record: ClockRecord, service: ClockService) -> Reply:
    pos = position_at(record.state, service.now())
    return Reply(title="Clock", text=pos.summary, private=True)


STRUCTURES = [app_commands.Choice(name=name, value=name) for name in preset_names()]


class AnnouncementChannel(app_commands.Transformer):
    """A channel option limited to channels with a text chat, read without the guild cache."""

    @property
    def type(self) -> discord.AppCommandOptionType:
        """A channel option."""
        return discord.AppCommandOptionType.channel

    @property
    def channel_types(self) -> list[discord.ChannelType]:
        """Text, announcement and voice channels (voice channels have a text chat)."""
        return [discord.ChannelType.text, discord.ChannelType.news, discord.ChannelType.voice]

    async def transform(self, interaction: discord.Interaction, value: Any, /) -> int:
        """The channel's id."""
        if not hasattr(value, "id") or getattr(value, "type", None) not in self.channel_types:
            raise app_commands.CheckFailure("Pick a text channel for the clock's announcements.")
        return int(value.id)


ChannelArg = app_commands.Transform[int, AnnouncementChannel]


class WarningMinutes(app_commands.Transformer):
    """Warnings before the end of each level or break, in minutes: ``5 1``, ``0.5`` or ``none``."""

    async def transform(self, interaction: discord.Interaction, value: Any, /) -> tuple[float, ...]:
        """Seconds, largest first; empty for ``none``."""
        return parse_warning_minutes(str(value))


def parse_warning_minutes(text: str) -> tuple[float, ...]:
    """``"5, 1"`` → ``(300.0, 60.0)``; ``"none"`` (or ``0``) → no warnings.

    Raises:
        BadOption: not a list of minutes (the range is checked when the clock is created).
    """
    words = text.replace(",", " ").split()
    if not words or [w.lower() for w in words] in (["none"], ["0"], ["off"]):
        return ()
    try:
        minutes = [float(w) for w in words]
    except ValueError:
        raise BadOption(
            f"warnings: '{text.strip()[:40]}' is not a list of minutes (e.g. '5 1' or 'none')."
        ) from None
    return tuple(sorted((m * 60 for m in minutes), reverse=True))


WarningsArg = app_commands.Transform[tuple[float, ...], WarningMinutes]


@app_commands.guild_only()
class ClockCog(commands.GroupCog, group_name="clock"):
    """Run the live tournament clock."""

    def __init__(self, bot: LeagueBot) -> None:
        self.bot = bot
        self.service = ClockService(bot.db, DiscordClockPoster(bot))
        super().__init__()

    async def cog_load(self) -> None:
        """Register the persistent buttons and resume every stored clock."""
        self.bot.add_dynamic_items(ClockButton)
        await self.service.start()

    async def cog_unload(self) -> None:
        """Stop the scheduler (the clocks stay in the database)."""
        await self.service.stop()
        self.bot.remove_dynamic_items(ClockButton)

    async def _act(
        self, interaction: discord.Interaction, action: ClockAction, value: float = 0.0
    ) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        record = await self.service.act(
            _channel_id(interaction),
            action,
            value,
            user_id=interaction.user.id,
            guild_id=interaction.guild_id,
        )
        await respond(interaction, _done(record, self.service))

    @app_commands.command(name="start")
    @app_commands.describe(
        structure="Blind structure (default: btown)",
        level_minutes="Level length in minutes; decimals allowed (default: the structure's)",
        channel="Channel for the announcements (default: this one)",
        ping_role="Role to ping at each level and break (default: the league's clock role)",
        warnings="Minutes before each level ends to warn, e.g. '5 1' or 'none' (default: 1)",
    )
    @app_commands.choices(structure=STRUCTURES)
    @director_only()
    async def start(
        self,
        interaction: discord.Interaction,
        structure: str = "btown",
        level_minutes: app_commands.Range[float, 0.02, 1440.0] | None = None,
        channel: ChannelArg | None = None,
        ping_role: discord.Role | None = None,
        warnings: WarningsArg | None = None,
    ) -> None:
        """Start the tournament clock in this channel (or the one given)."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        assert interaction.guild_id is not None
        settings = director_settings(interaction)  # read by the director check
        channel_id = channel if channel is not None else _channel_id(interaction)
        record = await self.service.start_clock(
            guild_id=interaction.guild_id,
            channel_id=channel_id,
            structure=structure,
            created_by=interaction.user.id,
            level_minutes=level_minutes,
            ping_role_id=ping_role.id if ping_role is not None else settings.clock_ping_role_id,
            warning_seconds=warnings,
        )
        title = record.state.structure.title
        text = f"{title} clock started in <#{channel_id}>. {_done(record, self.service).text}"
        await respond(interaction, Reply(title="Clock started", text=text, private=True))

    @app_commands.command(name="pause")
    @director_only()
    async def pause(self, interaction: discord.Interaction) -> None:
        """Pause the clock (e.g. during a re-draw, 2.D.d)."""
        await self._act(interaction, ClockAction.PAUSE)

    @app_commands.command(name="resume")
    @director_only()
    async def resume(self, interaction: discord.Interaction) -> None:
        """Resume a paused clock."""
        await self._act(interaction, ClockAction.RESUME)

    @app_commands.command(name="next")
    @director_only()
    async def next_level(self, interaction: discord.Interaction) -> None:
        """Go to the next level or break now."""
        await self._act(interaction, ClockAction.NEXT)

    @app_commands.command(name="back")
    @director_only()
    async def back(self, interaction: discord.Interaction) -> None:
        """Go back to the start of the previous level or break."""
        await self._act(interaction, ClockAction.BACK)

    @app_commands.command(name="add-time")
    @app_commands.describe(minutes="Minutes to add to this level; negative to take time off")
    @director_only()
    async def add_time(
        self, interaction: discord.Interaction, minutes: app_commands.Range[float, -600.0, 600.0]
    ) -> None:
        """Add (or take off) time in the current level."""
        await self._act(interaction, ClockAction.ADD_TIME, minutes)

    @app_commands.command(name="level")
    @app_commands.describe(n="The level number to jump to")
    @director_only()
    async def level(
        self, interaction: discord.Interaction, n: app_commands.Range[int, 1, 100]
    ) -> None:
        """Jump to level N, from its start."""
        await self._act(interaction, ClockAction.LEVEL, n)

    @app_commands.command(name="ante")
    @app_commands.describe(amount="Ante in chips from this level on; 0 removes it")
    @director_only()
    async def ante(
        self, interaction: discord.Interaction, amount: app_commands.Range[int, 0, 1_000_000_000]
    ) -> None:
        """Set the ante from this level on (never above the small blind)."""
        await self._act(interaction, ClockAction.ANTE, amount)

    @app_commands.command(name="end")
    @director_only()
    async def end(self, interaction: discord.Interaction) -> None:
        """Stop the clock for good."""
        await self._act(interaction, ClockAction.END)

    @app_commands.command(name="status")
    async def status(self, interaction: discord.Interaction) -> None:
        """Show the level, time left, next level and next break."""
        reply = await self.service.status(_channel_id(interaction), guild_id=interaction.guild_id)
        await respond(interaction, dataclasses.replace(reply, private=True))


def _channel_id(interaction: discord.Interaction) -> int:
    if interaction.channel_id is None:  # pragma: no cover - guild_only commands have one
        raise app_commands.CheckFailure("Use the clock in a server channel.")
    return interaction.channel_id


async def setup(bot: LeagueBot) -> None:
    """Add the clock cog."""
    await bot.add_cog(ClockCog(bot))
