"""/clock: the live tournament clock, with director buttons on its status message.

Directors start, pause, resume, move and end the clock; everyone can ask ``/clock status``
(``bot.features.clock.commands``). The clock itself runs in
``bot.features.clock.service.ClockService``; this cog owns it and posts its messages
(``DiscordClockPoster``). The status message's buttons are ``Action`` buttons
(``pf:clock:...``), answered by the one runner like every other button.

Who is a director: ``slash.SlashRunner.allowed`` (the league's director role, or
Manage Server), checked at call time for each director command and each button press.
``default_permissions`` cannot be used: it applies to the whole ``/clock`` group and would hide
``/clock status`` from players.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands

from bot.features.clock.handlers import ClockDoor, status_buttons
from bot.features.clock.posting import ClockStatus, PostRejected
from bot.features.clock.service import ClockService
from bot.reply import Reply
from bot.surfaces.discord import render
from rulings import Announcement, AnnouncementKind
from storage.clocks import ClockRecord

if TYPE_CHECKING:
    from sqlmodel import Session

    from bot.surfaces.discord import LeagueBot

log = logging.getLogger(__name__)

_SPOKEN = frozenset({AnnouncementKind.LEVEL, AnnouncementKind.BREAK})
"""What a league with ``clock_tts`` on hears read aloud: a new level or a break."""
TTS_LOOK_AGAIN_S = 30.0


def _rejected(exc: discord.HTTPException) -> PostRejected | None:
    """A 4xx refusal (no access, unknown channel; not a rate limit) as ``PostRejected``.

    No retry helps such a post, and the directors are told; anything else (None here) is
    raised as it is and retried.
    """
    if 400 <= exc.status < 500 and exc.status != 429:
        return PostRejected(f"{exc.status} {exc.text}")
    return None


def _read_aloud(*, session: Session, channel_ids: Sequence[int]) -> dict[int, bool]:
    """``clock_tts`` of several channels' leagues, in one statement."""
    from storage.live import clocks_read_aloud

    return clocks_read_aloud(session=session, channel_ids=channel_ids)


class DiscordClockPoster:
    """Posts a clock's messages to Discord with the bot token."""

    def __init__(self, bot: discord.Client) -> None:
        self.bot = bot
        # Per channel, whether its league reads levels aloud, as last looked up: a post uses
        # it and looks again behind itself (after a director's notice, or every 30 s), so no
        # post waits for the database; a change of the setting reaches the level posts after
        # the next notice (a pause, a resume) or within 30 s.
        self._spoken: dict[int, bool] = {}
        self._looked: dict[int, float] = {}  # time.monotonic() of each channel's lookup
        self._looking: dict[int, asyncio.Task[None]] = {}
        self._to_look: set[int] = set()  # channels queued for the next lookup
        self._lookups: asyncio.Task[None] | None = None

    async def announce(
        self,
        channel_id: int,
        announcement: Announcement,
        ping_role_id: int | None,
        *,
        nonce: str | None = None,
    ) -> None:
        """Post an announcement; only level and break announcements ping, and only the role.

        A league with ``/td settings clock_tts on`` gets those two as text-to-speech messages.

        With ``nonce`` discord.py sends ``enforce_nonce``: Discord drops a repeat of the post.
        A 4xx refusal (no access, unknown channel) raises ``PostRejected``: no retry helps.
        """
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
        try:
            extra: dict[str, Any] = {} if nonce is None else {"nonce": nonce}
            if announcement.kind in _SPOKEN and await self._reads_aloud(channel_id):
                extra["tts"] = True
            await channel.send(render.content(content), allowed_mentions=mentions, **extra)
        except discord.HTTPException as exc:
            if (rejected := _rejected(exc)) is not None:
                raise rejected from exc
            raise
        finally:
            self._look_again(channel_id, soon=announcement.kind is AnnouncementKind.DIRECTOR)

    async def _reads_aloud(self, channel_id: int) -> bool:
        """Whether the league of the channel's running clock set ``/td settings clock_tts on``."""
        if channel_id not in self._spoken:
            await self._look_up(channel_id)
        return self._spoken.get(channel_id, False)

    def _look_again(self, channel_id: int, *, soon: bool) -> None:
        """Look the setting up again behind a post: after a director's notice, or 30 s on."""
        looked = self._looked.get(channel_id)
        if looked is None or channel_id in self._looking:
            return
        if not soon and time.monotonic() - looked < TTS_LOOK_AGAIN_S:
            return
        task = asyncio.create_task(self._look_up(channel_id))
        self._looking[channel_id] = task
        task.add_done_callback(lambda _: self._looking.pop(channel_id, None))

    async def _look_up(self, channel_id: int) -> None:
        """Look the setting up; the channels asked for meanwhile share one transaction.

        200 clocks starting together would otherwise queue 200 reads, one per first post.
        """
        self._to_look.add(channel_id)
        if self._lookups is None or self._lookups.done():
            self._lookups = asyncio.create_task(self._look_up_queued())
        await asyncio.shield(self._lookups)  # it ends once every channel queued is looked up

    async def _look_up_queued(self) -> None:
        await asyncio.sleep(0)  # the lookups asked for in this tick join
        db = getattr(self.bot, "db", None)
        while self._to_look:
            channels, self._to_look = sorted(self._to_look), set()
            try:
                spoken = {} if db is None else await db.run(_read_aloud, channel_ids=channels)
            except Exception:  # the last answers stand (none: not read aloud)
                log.warning("could not look up clock_tts for channels %s", channels, exc_info=True)
                continue
            now = time.monotonic()
            for channel_id in channels:
                self._spoken[channel_id] = bool(spoken.get(channel_id))
                self._looked[channel_id] = now

    async def post_status(self, channel_id: int, status: ClockStatus) -> int:
        """Post the live status message with its director buttons.

        A 4xx refusal (no access, unknown channel) raises ``PostRejected``.
        """
        channel = self.bot.get_partial_messageable(channel_id)
        try:
            message = await channel.send(
                embed=render.embed(status.reply),
                view=status_view(status),
                allowed_mentions=render.NO_MENTIONS,
            )
        except discord.HTTPException as exc:
            if (rejected := _rejected(exc)) is not None:
                raise rejected from exc
            raise
        return message.id

    async def edit_status(self, channel_id: int, message_id: int, status: ClockStatus) -> bool:
        """Edit the status message; False when it was deleted.

        A 4xx refusal (no access any more) raises ``PostRejected``, as for a post.
        """
        message = self.bot.get_partial_messageable(channel_id).get_partial_message(message_id)
        try:
            await message.edit(
                embed=render.embed(status.reply),
                view=status_view(status),
                allowed_mentions=render.NO_MENTIONS,
            )
        except discord.NotFound:
            return False
        except discord.HTTPException as exc:
            if (rejected := _rejected(exc)) is not None:
                raise rejected from exc
            raise
        return True


def status_view(status: ClockStatus) -> discord.ui.View:
    """The director buttons for a status message (none once the clock has ended).

    They are ``Action`` buttons (``pf:clock:...``, ``bot.features.clock.commands.ACTIONS``),
    run by the one runner like every other button.
    """
    from bot.surfaces.discord.buttons import buttons_view

    buttons = status_buttons(status.clock_id, paused=status.is_paused, ended=status.is_ended)
    return buttons_view(Reply(title="", buttons=buttons)) or discord.ui.View(timeout=None)


class ClockCog(commands.Cog):
    """Run the live tournament clocks: the service, its Discord poster and its buttons.

    The ``/clock`` commands are definitions (``features.clock.commands``); their handlers reach
    this service through ``bot.clock_door`` (``bot.features.clock.handlers.ClockDoor``).
    """

    def __init__(self, bot: LeagueBot) -> None:
        self.bot = bot
        self.service = ClockService(
            bot.db,
            DiscordClockPoster(bot),
            lease_seconds=bot.settings.clock_lease_seconds,
            web_base_url=bot.settings.public_url,
            on_post_failure=self._post_failed,
        )

    async def _post_failed(self, record: ClockRecord, what: str, exc: BaseException) -> None:
        """A clock post Discord refused for good: the directors hear of it, once."""
        from bot.surfaces.discord.failures import report_post_failure

        await report_post_failure(
            self.bot,
            guild_id=record.guild_id,
            kind="clock",
            channel_id=record.channel_id,
            exc=exc,
            starter_id=record.created_by,
        )

    async def cog_load(self) -> None:
        """Register the persistent buttons and resume every stored clock."""
        await self.service.start()
        self.bot.clock_door = ClockDoor(self.service, asyncio.get_running_loop())

    async def cog_unload(self) -> None:
        """Stop the scheduler (the clocks stay in the database)."""
        await self.service.stop()
        self.bot.clock_door = None


async def setup(bot: LeagueBot) -> None:
    """Add the clock cog."""
    await bot.add_cog(ClockCog(bot))
