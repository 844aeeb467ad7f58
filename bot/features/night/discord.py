"""League nights on Discord: the scheduled event in the server's Events tab, and its RSVPs.

``/td night schedule`` answers with an ``Effect("night_event", ("create", series_id))``; this
cog carries it out: one EXTERNAL scheduled event per series, with the location as its place,
the night's four hours (2.F.a) and a weekly recurrence rule. discord.py 2.7 has no
``recurrence_rule``, so the event is made with a raw ``discord.http.Route`` behind one
function (``create_event``); where Discord refuses the rule, the next occurrence alone is made
(one active event per series, far under the 100 a server may have) and the next one after
that night has passed, at start-up.

A member pressing "Interested" is on the next night's RSVP list (under his linked player's
name, or his Discord name until he is linked). discord.py drops the gateway's user-add event
for an event it has not cached (the members intent is off, and an event made over REST is
cached only once the gateway's create arrives), so the gateway events are hints: the REST list
of interested users is read at start-up for every series (nothing missed while down) and is
the truth wherever it matters.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import uuid
from typing import TYPE_CHECKING, Any, Final
from zoneinfo import ZoneInfo

import discord
from discord.ext import commands

import rulings
from storage.errors import NotFound
from storage.guild_settings import get_guild_settings
from storage.leagues import league_for
from storage.nights import (
    NightInfo,
    claim_discord_event,
    claim_reminder,
    guilds_with_nights,
    list_nights,
    mark_role_removed,
    roles_to_remove,
    rsvps,
    series_creator,
    series_for_event,
    set_discord_event,
    set_reminder_role,
    sync_discord_rsvps,
)
from storage.player_links import linked_player
from storage.tournaments import claim_night_thread, night_thread

if TYPE_CHECKING:
    from bot.surfaces.discord import LeagueBot

log = logging.getLogger(__name__)

EXTERNAL = 3
"""Discord's entity type of an event held somewhere else than a voice channel."""
GUILD_ONLY = 2
"""Discord's only privacy level for scheduled events."""
PUBLIC_THREAD: Final = 11
"""Discord's channel type of a public thread."""
WEEKLY = 2
"""Discord's recurrence frequency for weekly events."""
USERS_PAGE = 100
"""Interested users per REST page (Discord's maximum)."""
TICK_SECONDS = 60.0
"""How often the cog looks for reminders due and reminder roles to remove."""


def event_payload(series: rulings.NightSeries, day: dt.date, zone: str) -> dict[str, Any]:
    """The scheduled event of a series, starting with its night on ``day`` (pure).

    >>> import datetime as dt
    >>> s = rulings.NightSeries("Pub 33", 3, dt.time(19), dt.date(2026, 12, 3))
    >>> p = event_payload(s, dt.date(2026, 12, 3), "UTC")
    >>> p["entity_metadata"], p["recurrence_rule"]["by_weekday"], p["scheduled_end_time"]
    ({'location': 'Pub 33'}, [3], '2026-12-03T23:00:00+00:00')
    """
    start, end = rulings.night_window(series, day, zone)
    every = "every week" if series.every_weeks == 1 else f"every {series.every_weeks} weeks"
    payload: dict[str, Any] = {
        "name": f"League night: {series.location}"[:100],
        "description": (
            f"Poker league night at {series.location}, {every} at "
            f"{series.start.strftime('%H:%M')}. Press Interested to RSVP (or /rsvp)."
        ),
        "entity_type": EXTERNAL,
        "privacy_level": GUILD_ONLY,
        "entity_metadata": {"location": series.location[:100]},
        "scheduled_start_time": start.isoformat(),
        "scheduled_end_time": end.isoformat(),
        "recurrence_rule": {
            "start": start.isoformat(),
            "end": (
                dt.datetime.combine(series.ends, series.start, tzinfo=ZoneInfo(zone))
                .astimezone(dt.UTC)
                .isoformat()
                if series.ends
                else None
            ),
            "frequency": WEEKLY,
            "interval": series.every_weeks,
            "by_weekday": [series.weekday],
        },
    }
    return payload


async def create_event(
    http: discord.http.HTTPClient, guild_id: int, payload: dict[str, Any]
) -> int:
    """Create the scheduled event (the one place that uses the raw route); its id.

    Where Discord refuses the recurrence rule (400), the single next occurrence is made.
    """
    route = discord.http.Route("POST", "/guilds/{guild_id}/scheduled-events", guild_id=guild_id)
    try:
        created = await http.request(route, json=payload, reason="pokerfloor: league night")
    except discord.HTTPException as exc:
        if exc.status != 400 or "recurrence_rule" not in payload:
            raise
        log.info(
            "recurrence refused for guild %s (%s): creating the next night only", guild_id, exc
        )
        single = {k: v for k, v in payload.items() if k != "recurrence_rule"}
        created = await http.request(route, json=single, reason="pokerfloor: league night")
    return int(created["id"])


async def delete_event(http: discord.http.HTTPClient, guild_id: int, event_id: int) -> None:
    """Remove a series' scheduled event (already gone: nothing to do)."""
    route = discord.http.Route(
        "DELETE",
        "/guilds/{guild_id}/scheduled-events/{event_id}",
        guild_id=guild_id,
        event_id=event_id,
    )
    with contextlib.suppress(discord.NotFound):
        await http.request(route, reason="pokerfloor: league night cancelled")


async def interested_users(
    http: discord.http.HTTPClient, guild_id: int, event_id: int
) -> dict[int, str]:
    """Every member interested in the event (REST, paged): id -> display name."""
    found: dict[int, str] = {}
    after = 0
    while True:
        route = discord.http.Route(
            "GET",
            "/guilds/{guild_id}/scheduled-events/{event_id}/users",
            guild_id=guild_id,
            event_id=event_id,
        )
        page = await http.request(
            route, params={"limit": USERS_PAGE, "with_member": "true", "after": after}
        )
        for entry in page:
            user = entry.get("user") or {}
            member = entry.get("member") or {}
            name = member.get("nick") or user.get("global_name") or user.get("username") or "?"
            found[int(user["id"])] = str(name)
        if len(page) < USERS_PAGE:
            return found
        after = max(found)


class NightCog(commands.Cog):
    """Creates the nights' scheduled events and keeps their RSVP lists."""

    def __init__(self, bot: LeagueBot) -> None:
        self.bot = bot
        self.instance = f"night:{uuid.uuid4()}"
        self._tasks: set[asyncio.Future[int]] = set()

    def _today(self) -> dt.date:
        return dt.datetime.now(ZoneInfo(self.bot.settings.timezone)).date()

    async def apply(self, guild_id: int, value: tuple[str, Any]) -> None:
        """Carry out a ``night_event`` effect: create or remove a series' Discord event."""
        what, arg = value
        if what == "create":
            await self.create_for(guild_id, int(arg))
        elif what == "cancel_series" and arg is not None:
            await delete_event(self.bot.http, guild_id, int(arg))

    async def create_for(self, guild_id: int, series_id: int) -> int | None:
        """Make the series' event once, whichever process gets there first."""
        won = await self.bot.db.run(
            claim_discord_event, series_id=series_id, claimant=self.instance
        )
        if not won:
            return None
        infos = await self.bot.db.run(_league_nights, guild_id=guild_id)
        info = next((i for _, i in infos if i.id == series_id), None)
        day = None if info is None else rulings.next_night(info.series, self._today())
        if info is None or day is None:
            return None
        payload = event_payload(info.series, day, self.bot.settings.timezone)
        event_id = await create_event(self.bot.http, guild_id, payload)
        await self.bot.db.run(set_discord_event, series_id=series_id, event_id=event_id)
        return event_id

    async def post_in_thread(
        self, guild_id: int, channel_id: int, tournament_id: int, name: str, public: Any
    ) -> None:
        """Carry out a ``night_thread`` effect: post ``public`` in the night's thread.

        The thread is made on the night's first post, in the tournament's channel, and kept on
        the tournament's row; when two instances make one at once, the one stored first is kept
        and the other deleted. If Discord refuses the thread (no Create Public Threads), the post
        goes to the channel itself, so nothing the room should see is lost.
        """
        from bot.surfaces.discord import render

        thread_id = await self.bot.db.run(
            night_thread, tournament_id=tournament_id, guild_id=guild_id
        )
        if thread_id is None:
            try:
                made = await self.bot.http.start_thread_without_message(
                    channel_id,
                    name=name[:100],
                    auto_archive_duration=1440,
                    type=PUBLIC_THREAD,
                    reason="pokerfloor: the night's thread",
                )
            except discord.Forbidden:
                log.warning("no thread allowed in channel %s: posting in it", channel_id)
                made = None
            if made is not None:
                thread_id = await self.bot.db.run(
                    claim_night_thread,
                    tournament_id=tournament_id,
                    guild_id=guild_id,
                    thread_id=int(made["id"]),
                )
                if thread_id != int(made["id"]):  # another instance's thread came first
                    with contextlib.suppress(discord.HTTPException):
                        await self.bot.http.delete_channel(int(made["id"]))
        target = self.bot.get_partial_messageable(thread_id or channel_id, guild_id=guild_id)
        await target.send(embed=render.render(public).embed, allowed_mentions=render.NO_MENTIONS)

    async def cog_load(self) -> None:
        """Listen to Discord's raw Interested events (discord.py drops most of them)."""
        parsers = self.bot._connection.parsers
        for event in ("GUILD_SCHEDULED_EVENT_USER_ADD", "GUILD_SCHEDULED_EVENT_USER_REMOVE"):
            parsers[event] = self._hint(parsers.get(event))
        self._ticker = asyncio.ensure_future(self._run())

    async def cog_unload(self) -> None:
        """Stop looking for reminders."""
        self._ticker.cancel()

    async def _run(self) -> None:
        await self.bot.wait_until_ready()
        while not self.bot.is_closed():
            try:
                await self.tick(dt.datetime.now(dt.UTC))
            except (discord.HTTPException, OSError) as exc:
                log.warning("league nights: %s", exc)
            except Exception:
                log.exception("league nights: the reminder tick failed")
            await asyncio.sleep(TICK_SECONDS)

    async def tick(self, now: dt.datetime) -> int:
        """Send the reminders due at ``now`` and remove the roles of nights that are over.

        Returns how many reminders this process sent (each goes out once, whichever process
        claims it).
        """
        zone = self.bot.settings.timezone
        today = now.astimezone(ZoneInfo(zone)).date()
        sent = 0
        for guild_id in await self.bot.db.run(guilds_with_nights):
            if not self._serves(guild_id):
                continue
            for league_id, info in await self.bot.db.run(_league_nights, guild_id=guild_id):
                day = rulings.next_night(info.series, today)
                if day is None or not rulings.reminder_due(info.series, day, zone, now):
                    continue
                claimed = await self.bot.db.run(
                    claim_reminder, series_id=info.id, day=day, claimant=self.instance, now=now
                )
                if claimed:
                    await self.remind(guild_id, league_id, info, day)
                    sent += 1
        for guild_id, info, day, role_id in await self.bot.db.run(roles_to_remove):
            _, end = rulings.night_window(info.series, day, zone)
            if self._serves(guild_id) and now >= end:
                with contextlib.suppress(discord.NotFound):
                    await self.bot.http.delete_role(guild_id, role_id, reason="league night over")
                await self.bot.db.run(mark_role_removed, series_id=info.id, day=day)
        return sent

    async def remind(self, guild_id: int, league_id: int, info: NightInfo, day: dt.date) -> None:
        """Post the night's reminder in the results channel, pinging only the RSVP'd members.

        The ping is a role made for the night (removed once it is over) and given to every
        RSVP'd member, so nobody else is pinged; never @everyone.
        """
        if info.discord_event_id is not None:
            await self._sync(guild_id, league_id, info)
        coming = await self.bot.db.run(rsvps, info=info, day=day)
        settings = await self.bot.db.run(get_guild_settings, guild_id=guild_id)
        if settings.results_channel_id is None:
            log.info("no results channel in guild %s: no reminder for %s", guild_id, day)
            return
        members = sorted({r.discord_id for r in coming if r.discord_id is not None})
        role_id = await self._night_role(guild_id, info, day, members) if members else None
        ping = f" <@&{role_id}>" if role_id is not None else ""
        text = (
            f"League night at {info.series.location} today, "
            f"{info.series.start.strftime('%H:%M')}: "
            f"{len(coming)} coming (/night shows who, /rsvp to join).{ping}"
        )
        roles = [discord.Object(role_id)] if role_id is not None else False
        channel = self.bot.get_partial_messageable(settings.results_channel_id, guild_id=guild_id)
        try:
            await channel.send(
                text,
                allowed_mentions=discord.AllowedMentions(everyone=False, users=False, roles=roles),
            )
        except discord.HTTPException as exc:  # claimed: the directors hear of it instead
            await self._reminder_failed(guild_id, info, settings.results_channel_id, exc)

    async def _reminder_failed(
        self, guild_id: int, info: NightInfo, channel_id: int, exc: discord.HTTPException
    ) -> None:
        """The reminder was refused: told to whoever scheduled the night (the channel failed)."""
        from bot.surfaces.discord.failures import actor_user_id, report_post_failure

        creator = await self.bot.db.run(series_creator, series_id=info.id)
        await report_post_failure(
            self.bot,
            guild_id=guild_id,
            kind="reminder",
            channel_id=channel_id,
            exc=exc,
            starter_id=actor_user_id(creator),
        )

    async def _night_role(
        self, guild_id: int, info: NightInfo, day: dt.date, members: list[int]
    ) -> int | None:
        """A mentionable role for the night, given to ``members``; None when Discord refuses."""
        try:
            role = await self.bot.http.create_role(
                guild_id,
                reason="pokerfloor: league night reminder",
                name=f"RSVP {info.series.location} {day.isoformat()}"[:100],
                mentionable=True,
            )
        except discord.Forbidden:
            log.warning("no Manage Roles in guild %s: the reminder pings nobody", guild_id)
            return None
        role_id = int(role["id"])
        await self.bot.db.run(set_reminder_role, series_id=info.id, day=day, role_id=role_id)
        for member in members:
            with contextlib.suppress(discord.NotFound):
                await self.bot.http.add_role(guild_id, member, role_id, reason="RSVP'd")
        return role_id

    def _hint(self, original: Any) -> Any:
        def parse(data: dict[str, Any]) -> None:
            guild_id, event_id = data.get("guild_id"), data.get("guild_scheduled_event_id")
            if guild_id is not None and event_id is not None:
                task = asyncio.ensure_future(self.sync_event(int(guild_id), int(event_id)))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
            if original is not None:
                original(data)

        return parse

    async def sync_event(self, guild_id: int, event_id: int) -> int:
        """A press or withdrawal was seen: read the event's interested list and store it."""
        try:
            found = await self.bot.db.run(series_for_event, event_id=event_id)
            if found is None:
                return 0
            league_id, info = found
            return await self._sync(guild_id, league_id, info)
        except (discord.HTTPException, OSError) as exc:
            log.warning("could not read the RSVPs of event %s: %s", event_id, exc)
            return 0

    async def _sync(self, guild_id: int, league_id: int, info: NightInfo) -> int:
        day = rulings.next_night(info.series, self._today())
        if info.discord_event_id is None or day is None:
            return 0
        members = await interested_users(self.bot.http, guild_id, info.discord_event_id)
        added, removed = await self.bot.db.run(
            _store_interested,
            league_id=league_id,
            info=info,
            day=day,
            members=members,
            today=self._today(),
        )
        return int(added + removed)

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        """Catch up the presses and withdrawals missed while no process was running."""
        for guild_id in await self.bot.db.run(guilds_with_nights):
            if not self._serves(guild_id):
                continue
            try:
                await self.sync_guild(guild_id)
            except (discord.HTTPException, OSError) as exc:
                log.warning("could not read the nights' RSVPs of guild %s: %s", guild_id, exc)

    def _serves(self, guild_id: int) -> bool:
        shard_ids = getattr(self.bot, "shard_ids", None)
        count = getattr(self.bot, "shard_count", None) or 1
        return not shard_ids or (guild_id >> 22) % count in shard_ids

    async def sync_guild(self, guild_id: int) -> int:
        """Read every series' interested list from Discord; returns RSVPs added or removed."""
        changed = 0
        for league_id, info in await self.bot.db.run(_league_nights, guild_id=guild_id):
            changed += await self._sync(guild_id, league_id, info)
        return changed


def _league_nights(*, session: Any, guild_id: int) -> list[tuple[int, NightInfo]]:
    try:
        league = league_for(session=session, guild_id=guild_id)
    except NotFound:
        return []
    return [(league.id, info) for info in list_nights(session=session, league_id=league.id)]


def _store_interested(
    *,
    session: Any,
    league_id: int,
    info: NightInfo,
    day: dt.date,
    members: dict[int, str],
    today: dt.date,
) -> tuple[int, int]:
    named = {}
    for member_id, name in members.items():
        own = linked_player(session=session, league_id=league_id, discord_id=member_id)
        named[member_id] = own.name if own is not None else name
    return sync_discord_rsvps(session=session, info=info, day=day, members=named, today=today)


async def setup(bot: LeagueBot) -> None:
    """Add the league-night cog."""
    await bot.add_cog(NightCog(bot))
