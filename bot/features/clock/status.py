"""A clock's live status message: what it shows, and bringing it up to date.

Each clock has one status message, looked at every ``status_interval`` seconds (30 s) and
edited only when its fields changed: it shows the level's end and the next break as Discord's
relative timestamps, which every client counts down by itself, so the fields change only with
the level, a pause, the players left or a director's action. Only the clock's owner edits it
(``ClockService`` decides when).
"""

from __future__ import annotations

import asyncio
import datetime as dt
from dataclasses import dataclass

from sqlmodel import Session

from bot.database import Database
from bot.features.clock.posting import ClockPoster, ClockStatus
from bot.features.clock.wording import status_reply
from bot.reply import Reply
from bot.surfaces.web.links import live_url
from rulings import position_at
from storage import clocks, tournaments
from storage.clocks import ClockRecord
from storage.live import is_live_page_shown_for_guild


async def status_of(
    db: Database,
    record: ClockRecord,
    now: dt.datetime,
    *,
    channel_id: int,
    web_base_url: str | None,
    card: bool = False,
    tournament: tuple[str | None] | None = None,
    shown: bool | None = None,
) -> Reply:
    """The clock's status as ``/clock status`` (or, with ``card``, the status message) shows it.

    With ``channel_id``'s open tournament in one line (13), and the clock's live page when the
    pages have a public address and the league shows it. ``tournament``: that line as the
    caller read it just now (one item), instead of reading it; ``shown``: likewise whether the
    league shows its live page.
    """
    if tournament is None:
        tournament = (await db.run(tournaments.tournament_status_line, channel_id=channel_id),)
    url = None
    if web_base_url is not None:
        if shown is None:
            shown = await db.run(is_live_page_shown_for_guild, guild_id=record.guild_id)
        url = live_url(web_base_url, record.channel_id) if shown else None
    return status_reply(record, now, tournament=tournament[0], card=card, live_url=url)


@dataclass(frozen=True)
class Refreshed:
    """A status message brought up to date: what it shows now, and whether the clock ended."""

    status: ClockStatus
    is_ended: bool
    message_id: int | None


async def refresh_status(
    db: Database,
    poster: ClockPoster,
    clock_id: int,
    now: dt.datetime,
    last: ClockStatus | None,
    *,
    web_base_url: str | None,
    record: ClockRecord | None = None,
    remember: bool = True,
    tournament: tuple[str | None] | None = None,
    shown: bool | None = None,
) -> Refreshed | None:
    """Edit (or post anew) the clock's status message; ``None`` when nothing changed.

    ``last`` is what it showed after the previous edit; a paused or ended clock's status does
    not change, so it is not edited again. ``record``: the clock as the caller knows it to be
    now (its owner keeps it), instead of reading it. Without ``remember`` a new message's id
    is returned (``Refreshed.message_id``) and not stored: the caller stores it.
    ``tournament``, ``shown``: as ``status_of`` takes them.
    """
    if record is None:
        record = await db.run(clocks.get_clock, clock_id=clock_id)
    status = ClockStatus(
        clock_id=clock_id,
        reply=await status_of(
            db,
            record,
            now,
            channel_id=record.channel_id,
            web_base_url=web_base_url,
            card=True,
            tournament=tournament,
            shown=shown,
        ),
        is_paused=position_at(record.state, now).is_paused,
        is_ended=record.is_ended,
    )
    if record.status_message_id is not None and last is not None and same_status(last, status):
        return None
    edited = False
    message_id = record.status_message_id
    if message_id is not None:
        edited = await poster.edit_status(record.channel_id, message_id, status)
    if not edited:
        message_id = await poster.post_status(record.channel_id, status)
        if remember:
            await db.run(clocks.set_status_message, clock_id=clock_id, message_id=message_id)
    return Refreshed(status, record.is_ended, message_id)


def same_status(a: ClockStatus, b: ClockStatus) -> bool:
    """Equal but for the "as of" footer."""
    return (a.reply.fields, a.is_paused, a.is_ended) == (b.reply.fields, b.is_paused, b.is_ended)


Context = tuple[str | None, bool]
"""What a status message shows from outside the clock: its tournament line, and whether the
league shows its live page."""


def read_contexts(*, session: Session, channels: dict[int, int], pages: bool) -> dict[int, Context]:
    """Per channel (-> its server), the tournament line and (with ``pages``) the page's showing."""
    shown: dict[int, bool] = {}
    if pages:
        for guild_id in set(channels.values()):
            shown[guild_id] = is_live_page_shown_for_guild(session=session, guild_id=guild_id)
    return {
        channel_id: (
            tournaments.tournament_status_line(session=session, channel_id=channel_id),
            shown.get(guild_id, False),
        )
        for channel_id, guild_id in channels.items()
    }


class Contexts:
    """The status messages' contexts, read for every edit asked in one tick in one transaction.

    200 clocks started together look at their status messages together every 30 s: one read
    each queued 200 transactions on the database threads, whose Python holds the interpreter
    lock beside the event loop for a second and more under load.
    """

    def __init__(self, db: Database, *, pages: bool) -> None:
        self.db, self.pages = db, pages
        self._wanted: dict[int, int] = {}  # channel -> server, for the next read
        self._read: dict[int, Context | BaseException] = {}  # as last read
        self._reader: asyncio.Task[None] | None = None

    async def get(self, channel_id: int, guild_id: int) -> Context:
        """The channel's context, read with those asked for meanwhile (its error, raised)."""
        self._wanted[channel_id] = guild_id
        if self._reader is None or self._reader.done():
            self._reader = asyncio.create_task(self._read_wanted(), name="clock-status-reads")
        await asyncio.shield(self._reader)  # it ends once every channel asked for is read
        got = self._read[channel_id]  # kept until the next read (a clock per channel)
        if isinstance(got, BaseException):
            raise got
        return got

    async def _read_wanted(self) -> None:
        await asyncio.sleep(0)  # the edits asked for in this tick join
        while self._wanted:
            channels, self._wanted = self._wanted, {}
            try:
                read = await self.db.run(read_contexts, channels=channels, pages=self.pages)
            except Exception as exc:  # each edit waiting fails with it, as its own read would
                self._read.update(dict.fromkeys(channels, exc))
            else:
                self._read.update(read)
