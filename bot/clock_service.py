"""The live tournament clock: runs every stored clock, posts its announcements, keeps it alive.

Truth is in the database (``storage.clocks``): a clock's start and the director's actions. The
scheduler's jobs are derived from that state after every change, one date job per clock at its
next announcement and one per clock for the status message, so nothing is lost by a restart:

* every announcement has a stable key; keys are claimed in the same transaction that decides
  what is due, *before* anything is posted, and settled once the post is done with (posted, or
  given up after an error: lost rather than repeated). A restart therefore never repeats one;
* on start-up every running clock resumes; announcements missed while the bot was down, and
  those a crash left claimed but unsettled (the process died between claim and post), are
  folded into one catch-up message ("We are now at level 6: blinds 1,000/2,000"), never
  re-posted as they were (one of them may have gone out just before the crash); a paused
  clock stays paused;
* each clock has one live status message, edited at most every ``status_interval`` seconds
  (30 s), and only when its text changed.

Posting goes through an injected ``ClockPoster`` (the Discord cog provides one; tests and the
benchmark use others), so the service never imports discord.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from sqlmodel import Session

from bot.database import Database
from bot.replies.clock import status_reply
from bot.reply import Reply
from rulings import (
    Announcement,
    ClockAction,
    announcements_between,
    catch_up,
    next_announcement_at,
    position_at,
)
from storage import clocks
from storage.clocks import ClockRecord

log = logging.getLogger(__name__)

STATUS_INTERVAL_S = 30.0


@dataclass(frozen=True)
class ClockStatus:
    """What the live status message shows.

    Attributes:
        clock_id: the clock (director buttons carry it).
        reply: the message itself.
        is_paused: the pause button reads "Resume" when True.
        is_ended: no buttons once the clock ended.
    """

    clock_id: int
    reply: Reply
    is_paused: bool
    is_ended: bool


class ClockPoster(Protocol):
    """Where a clock's messages go (Discord in production)."""

    async def announce(
        self, channel_id: int, announcement: Announcement, ping_role_id: int | None
    ) -> None:
        """Post one announcement; ping ``ping_role_id`` only when ``announcement.pings``."""

    async def post_status(self, channel_id: int, status: ClockStatus) -> int:
        """Post the live status message; return its id."""

    async def edit_status(self, channel_id: int, message_id: int, status: ClockStatus) -> bool:
        """Edit the live status message; return False when it no longer exists."""


def utcnow() -> dt.datetime:
    """The current time in UTC (the service's default clock)."""
    return dt.datetime.now(dt.UTC)


@dataclass
class _Live:
    """In-memory bookkeeping of one clock (rebuilt from the database on start-up)."""

    lock: asyncio.Lock
    channel_id: int
    last_status_edit: float | None = None  # time.monotonic() of the last status post/edit
    last_status: ClockStatus | None = None


class ClockService:
    """Runs the clocks of one bot process.

    Args:
        db: storage access off the event loop.
        poster: where messages go.
        now: the wall clock (UTC, timezone-aware); tests inject their own.
        status_interval: seconds between status-message edits (at most one edit per period).
        warning_seconds: warnings before the end of each level or break, for new clocks.
    """

    def __init__(
        self,
        db: Database,
        poster: ClockPoster,
        *,
        now: Callable[[], dt.datetime] = utcnow,
        status_interval: float = STATUS_INTERVAL_S,
        warning_seconds: tuple[float, ...] = (60.0,),
    ) -> None:
        self.db = db
        self.warning_seconds = warning_seconds
        self.poster = poster
        self.now = now
        self.status_interval = status_interval
        self.scheduler: Any = None
        self._live: dict[int, _Live] = {}
        self._batch: dict[int, dt.datetime] = {}
        self._flusher: asyncio.Task[None] | None = None

    # -- lifecycle ------------------------------------------------------------------------

    async def start(self) -> None:
        """Start the scheduler and resume every running clock (one catch-up message each)."""
        self.scheduler = AsyncIOScheduler(
            timezone=dt.UTC,
            event_loop=asyncio.get_running_loop(),
            job_defaults={"misfire_grace_time": None, "coalesce": True, "max_instances": 4},
        )
        self.scheduler.start()
        count = await self.resume_all()
        log.info("clock service started; %d clocks resumed", count)

    async def resume_all(self) -> int:
        """Resume every running clock: one catch-up message each for what was missed.

        Returns:
            How many clocks were resumed.
        """
        records = await self.db.run(clocks.list_running_clocks)
        for record in records:
            self._live.setdefault(record.id, _Live(asyncio.Lock(), record.channel_id))
        try:
            await self._process_many({r.id: None for r in records}, collapse=True)
        except Exception:
            log.exception("could not resume the clocks")
        await asyncio.gather(*(self._resume_status(r.id) for r in records))
        return len(records)

    async def run_due(self, clock_id: int) -> None:
        """Post whatever is due now for one clock (the scheduler's job; tests call it)."""
        await self._process(clock_id)

    async def stop(self) -> None:
        """Stop the scheduler; stored clocks keep their state for the next start."""
        if self.scheduler is not None and self.scheduler.running:
            self.scheduler.shutdown(wait=False)
        self.scheduler = None
        if self._flusher is not None and not self._flusher.done():
            self._flusher.cancel()  # what it claimed and did not post, the catch-up covers
        self._batch.clear()
        self._live.clear()

    async def _resume_status(self, clock_id: int) -> None:
        try:
            await self._status(clock_id, force=True)
        except Exception:
            log.exception("could not refresh the status of clock %s", clock_id)

    # -- director commands ----------------------------------------------------------------

    async def start_clock(
        self,
        *,
        guild_id: int,
        channel_id: int,
        structure: str,
        created_by: int,
        level_minutes: float | None = None,
        break_minutes: float | None = None,
        ping_role_id: int | None = None,
        warning_seconds: Sequence[float] | None = None,
    ) -> ClockRecord:
        """Start a clock in a channel, post its status message and its first announcement.

        ``warning_seconds`` (before the end of each level or break; empty for none) defaults
        to the service's.

        Raises:
            AlreadyExists: the channel has a running clock.
            BlindStructureError: unknown structure.
            ClockError: a level length out of range.
        """
        record = await self.db.run(
            clocks.add_clock,
            guild_id=guild_id,
            channel_id=channel_id,
            structure=structure,
            started_at=self.now(),
            created_by=created_by,
            level_seconds=None if level_minutes is None else level_minutes * 60,
            break_seconds=None if break_minutes is None else break_minutes * 60,
            ping_role_id=ping_role_id,
            warning_seconds=self.warning_seconds if warning_seconds is None else warning_seconds,
        )
        self._live[record.id] = _Live(asyncio.Lock(), channel_id)
        await self._status(record.id, force=True)
        await self._process(record.id)
        return await self.db.run(clocks.get_clock, clock_id=record.id)

    async def act(
        self,
        channel_id: int,
        action: ClockAction,
        value: float = 0.0,
        *,
        user_id: int | None = None,
        guild_id: int | None = None,
    ) -> ClockRecord:
        """Apply a director action to the channel's running clock.

        Args:
            channel_id: where the command was used.
            action: what to do.
            value: minutes, level number or ante, as the action needs.
            user_id: the director.
            guild_id: the server; when given and the channel has no clock, the server's only
                running clock is used (a clock announcing in another channel).

        Raises:
            NotFound: no clock runs in the channel (or, with ``guild_id``, several do).
            ClockError: the action does not apply now (nothing changes).
            BlindStructureError: an ante above the small blind (nothing changes).
        """
        record = await self.db.run(
            clocks.get_clock_for_channel, channel_id=channel_id, guild_id=guild_id
        )
        return await self.act_on(record.id, action, value, user_id=user_id)

    async def act_on(
        self, clock_id: int, action: ClockAction, value: float = 0.0, *, user_id: int | None = None
    ) -> ClockRecord:
        """Apply a director action to one clock (the status message's buttons use this)."""
        live = await self._live_for(clock_id)
        async with live.lock:
            record = await self.db.run(
                clocks.add_clock_event,
                clock_id=clock_id,
                action=action,
                at=self.now(),
                value=value,
                user_id=user_id,
            )
        await self._process(clock_id)
        await self._status(clock_id)
        return record

    async def status(self, channel_id: int, *, guild_id: int | None = None) -> Reply:
        """The status of the channel's running clock (for ``/clock status``).

        Raises:
            NotFound: no clock runs in the channel (see ``act`` for ``guild_id``).
        """
        record = await self.db.run(
            clocks.get_clock_for_channel, channel_id=channel_id, guild_id=guild_id
        )
        return status_reply(record, self.now())

    # -- the engine -----------------------------------------------------------------------

    async def _live_for(self, clock_id: int) -> _Live:
        live = self._live.get(clock_id)
        if live is None:
            record = await self.db.run(clocks.get_clock, clock_id=clock_id)
            live = self._live.setdefault(clock_id, _Live(asyncio.Lock(), record.channel_id))
        return live

    async def _tick(self, clock_id: int, scheduled: dt.datetime) -> None:
        """Scheduler job: queue the clock; clocks due together are claimed in one transaction."""
        previous = self._batch.get(clock_id)
        self._batch[clock_id] = scheduled if previous is None else max(previous, scheduled)
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush(), name="clock-flush")

    async def _flush(self) -> None:
        await asyncio.sleep(0)  # every job released in this scheduler pass joins the batch
        while self._batch:
            batch, self._batch = self._batch, {}
            try:
                await self._process_many(batch)
            except Exception:
                log.exception("clock announcement batch failed (%d clocks)", len(batch))

    async def _process(
        self, clock_id: int, *, scheduled: dt.datetime | None = None, collapse: bool = False
    ) -> None:
        """Claim one clock's due announcements (recorded before posting), post, reschedule."""
        await self._process_many({clock_id: scheduled}, collapse=collapse)

    async def _process_many(
        self, batch: Mapping[int, dt.datetime | None], *, collapse: bool = False
    ) -> None:
        lives = [await self._live_for(clock_id) for clock_id in sorted(batch)]
        async with contextlib.AsyncExitStack() as stack:
            for live in lives:  # sorted ids: two batches never wait on each other in a cycle
                await stack.enter_async_context(live.lock)
            now = self.now()
            # A job may wake a hair before its time; what it was scheduled for is due.
            until = {cid: now if when is None else max(now, when) for cid, when in batch.items()}
            claimed = await self.db.run(_claim_due, until=until, now=now, collapse=collapse)
            await asyncio.gather(*(self._post(c.record, c.posts) for c in claimed))
            # Done with (posted or given up): a restart must not take these for a crash's.
            await self._settle({c.record.id: c.keys for c in claimed if c.keys})
            for c in claimed:
                self._reschedule(c.record, until[c.record.id])

    async def _settle(self, keys: dict[int, list[str]]) -> None:
        if not keys:
            return
        try:
            await self.db.run(clocks.settle_announcements, keys=keys, at=self.now())
        except Exception:
            # Left unsettled: the next start-up posts one catch-up more than needed, no repeat.
            log.exception("could not settle the announcements of clocks %s", sorted(keys))

    async def _post(self, record: ClockRecord, announcements: list[Announcement]) -> None:
        for announcement in announcements:
            try:
                await self.poster.announce(record.channel_id, announcement, record.ping_role_id)
            except Exception:
                # Already claimed: lost rather than repeated; the status message still tells.
                log.exception("clock %s: could not post %s", record.id, announcement.key)

    def _reschedule(self, record: ClockRecord, after: dt.datetime) -> None:
        if self.scheduler is None:
            return
        job_id = f"clock:{record.id}"
        when = None if record.is_ended else next_announcement_at(record.state, after)
        if when is None:
            if self.scheduler.get_job(job_id) is not None:
                self.scheduler.remove_job(job_id)
            return
        self.scheduler.add_job(
            self._tick,
            "date",
            run_date=when,
            args=[record.id, when],
            id=job_id,
            replace_existing=True,
        )

    async def _status(self, clock_id: int, *, force: bool = False) -> None:
        """Bring the status message up to date now, or at the end of the 30-second window."""
        live = await self._live_for(clock_id)
        since = None if live.last_status_edit is None else time.monotonic() - live.last_status_edit
        if not force and since is not None and since < self.status_interval:
            self._schedule_status(clock_id, self.status_interval - since)
            return
        try:
            await self._edit_status(clock_id, live)
        except Exception:
            log.exception("clock %s: status update failed", clock_id)
        self._schedule_status(clock_id, self.status_interval)

    def _schedule_status(self, clock_id: int, delay: float) -> None:
        if self.scheduler is None or clock_id not in self._live:
            return
        self.scheduler.add_job(
            self._status,
            "date",
            run_date=utcnow() + dt.timedelta(seconds=delay),
            args=[clock_id],
            id=f"clock-status:{clock_id}",
            replace_existing=True,
        )

    async def _edit_status(self, clock_id: int, live: _Live) -> None:
        record = await self.db.run(clocks.get_clock, clock_id=clock_id)
        pos_now = self.now()
        status = ClockStatus(
            clock_id=clock_id,
            reply=status_reply(record, pos_now),
            is_paused=position_at(record.state, pos_now).is_paused,
            is_ended=record.is_ended,
        )
        unchanged = live.last_status is not None and _same(live.last_status, status)
        if record.status_message_id is not None and unchanged:
            return  # a paused or ended clock's status does not change: no edit
        edited = False
        if record.status_message_id is not None:
            edited = await self.poster.edit_status(
                record.channel_id, record.status_message_id, status
            )
        if not edited:
            message_id = await self.poster.post_status(record.channel_id, status)
            await self.db.run(clocks.set_status_message, clock_id=clock_id, message_id=message_id)
        live.last_status_edit = time.monotonic()
        live.last_status = status
        if record.is_ended:
            self._forget(clock_id)

    def _forget(self, clock_id: int) -> None:
        self._live.pop(clock_id, None)
        if self.scheduler is None:
            return
        for job_id in (f"clock:{clock_id}", f"clock-status:{clock_id}"):
            if self.scheduler.get_job(job_id) is not None:
                self.scheduler.remove_job(job_id)


def _same(a: ClockStatus, b: ClockStatus) -> bool:
    """Equal but for the "as of" footer."""
    return (a.reply.fields, a.is_paused, a.is_ended) == (b.reply.fields, b.is_paused, b.is_ended)


@dataclass(frozen=True)
class _Claim:
    """What one clock claimed in one pass: the messages to post and the keys to settle after."""

    record: ClockRecord
    posts: list[Announcement]
    keys: list[str]


def _claim_due(
    *, session: Session, until: dict[int, dt.datetime], now: dt.datetime, collapse: bool
) -> list[_Claim]:
    """In one transaction: per clock, what is due by ``until[id]`` and not yet claimed, claimed.

    With ``collapse`` (start-up) everything a clock missed becomes one catch-up message,
    including what a crashed process claimed and never settled (released and claimed again
    under the catch-up, so it is never posted verbatim).
    """
    records = clocks.get_clocks(session=session, clock_ids=list(until))
    released: dict[int, list[str]] = {}
    if collapse:
        released = clocks.release_unsettled_announcements(
            session=session, clock_ids=[r.id for r in records]
        )
    posts: dict[int, list[Announcement]] = {}
    keys: dict[int, list[str]] = {}
    for record in records:
        claimed = record.announced.difference(released.get(record.id, ()))
        due = [
            a
            for a in announcements_between(record.state, None, until[record.id])
            if a.key not in claimed
        ]
        if due and collapse:
            summary = catch_up(record.state, due, now)
            posts[record.id] = [summary]
            keys[record.id] = [a.key for a in due] + [summary.key]
        elif due:
            posts[record.id] = due
            keys[record.id] = [a.key for a in due]
    fresh = clocks.record_many_announcements(session=session, keys=keys, at=now)
    claims = []
    for r in records:
        mine = fresh.get(r.id, [])
        made = set(mine)
        claims.append(_Claim(r, [a for a in posts.get(r.id, []) if a.key in made], mine))
    return claims
