"""The live tournament clock: runs the stored clocks this instance owns, posts, keeps them alive.

Truth is in the database (``storage.clocks``): a clock's start and the director's actions. The
scheduler's jobs are derived from that state after every change, one date job per clock at its
next announcement and one per clock for the status message, so nothing is lost by a restart:

* several instances (processes) may share one database. Each running clock has one owner
  holding a lease (``lease_seconds``, 10 s, renewed by a heartbeat every third of it); only
  the owner posts its announcements and edits its status message. A live instance adopts a
  clock whose lease ran out (its owner died), at most ``lease_seconds`` plus one heartbeat
  after the death, and posts the one catch-up for what was missed. A clean stop releases the
  leases, so another instance adopts at once;
* every announcement has a stable key; keys are claimed in the same transaction that renews
  the lease (which fences out an adopter) and decides what is due, *before* anything is
  posted, and settled once the post is done with. Claims are inserted ``ON CONFLICT DO
  NOTHING``: losing a race is a normal outcome, never an error;
* each announcement is posted with a Discord ``nonce`` derived from its key (and
  ``enforce_nonce``), so Discord itself drops a second post of it. An adopter re-posts the dead
  owner's unsettled claims of the last ``NONCE_WINDOW_S`` seconds as they were (Discord
  deduplicates the ones that had gone out); older ones, and everything missed while nobody
  owned the clock, are folded into one catch-up message ("We are now at level 6: blinds
  1,000/2,000"); a paused clock stays paused;
* a director action taken through another instance is stored with a change counter
  (``version``) that the owner polls every ``poll_interval`` (0.5 s), so it reaches the
  owner's schedule within a second, on SQLite and PostgreSQL alike;
* errors never drop a clock: a failed pass is retried with backoff, a post is retried (same
  nonce) unless Discord refused it for good (``PostRejected``);
* each clock has one live status message, looked at every ``status_interval`` seconds (30 s)
  and edited only when its fields changed: it shows the level's end and the next break as
  Discord's relative timestamps, which every client counts down by itself, so the fields
  change only with the level, a pause, the players left or a director's action.

Posting goes through an injected ``ClockPoster`` (the Discord cog provides one; tests and the
benchmark use others), so the service never imports discord.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import hashlib
import logging
import os
import socket
import time
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from sqlmodel import Session

from bot.database import Database
from bot.features.clock.wording import status_reply
from bot.reply import Reply
from bot.surfaces.web.links import live_url
from rulings import (
    Announcement,
    ClockAction,
    announcements_between,
    catch_up,
    next_announcement_at,
    position_at,
)
from storage import clocks, tournaments
from storage.clocks import ClockRecord
from storage.live import is_live_page_shown_for_guild

log = logging.getLogger(__name__)

STATUS_INTERVAL_S = 30.0
LEASE_S = 10.0
POLL_INTERVAL_S = 0.5
RELEASE_WAIT_S = 3.0
"""How long a stop waits to release its leases before leaving them to run out."""
# Discord checks a nonce against the author's messages of "the past few minutes".
NONCE_WINDOW_S = 90.0
POST_RETRY_DELAYS_S = (0.5, 1.0, 2.0, 4.0)
MAX_BACKOFF_S = 10.0
ADOPTION_STATUS_SPREAD_S = 5.0


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


class PostRejected(Exception):
    """A poster's refusal for good (no access to the channel...): the post is not retried."""


def announcement_nonce(record: ClockRecord, key: str) -> str:
    """The Discord nonce of one announcement: stable, unique per clock and key, 25 characters.

    The clock's start is in it as well as its id, so that two databases (a test run, a
    restored backup) posting through one bot never share nonces.
    """
    seed = f"pokerfloor:{record.id}:{record.state.started_at.isoformat()}:{key}"
    return hashlib.sha256(seed.encode()).hexdigest()[:25]


# Tells this process's life from an earlier one that had the same pid (a container's pid 1).
_PROCESS_LIFE = f"{time.time_ns() // 1_000_000:x}"


def new_instance_id() -> str:
    """An id for a clock service: host, pid, this process's start and a random part."""
    host = socket.gethostname()[:28].replace(":", "-")
    return f"{host}:{os.getpid()}:{_PROCESS_LIFE}:{uuid.uuid4().hex[:8]}"


def is_dead_here(owner_id: str, instance_id: str) -> bool:
    """Whether ``owner_id`` was a process of this machine that no longer runs.

    A bot restarted after a crash (systemd, docker restart) need not wait for its former self's
    lease: same host, and its pid is gone, or is this process's pid in an earlier life (a
    container's pid 1). Services of this very process, and other machines' owners, are never
    judged dead here: their lease decides. Containers that share one hostname (``uts: host``)
    look like one machine: a starting one then takes the others' clocks over at once (a clean
    handover: the old owner's next claim finds the lease gone and posts nothing).

    >>> is_dead_here("h:1:a1:0000", "h:1:b2:1111")
    True
    >>> is_dead_here("h:1:b2:0000", "h:1:b2:1111")
    False
    >>> is_dead_here("other:1:a1:0000", "h:1:b2:1111")
    False
    """
    theirs, mine = owner_id.split(":"), instance_id.split(":")
    if len(theirs) != 4 or len(mine) != 4 or theirs[0] != mine[0] or not theirs[1].isdigit():
        return False
    if theirs[1] == mine[1]:
        return theirs[2] != mine[2]
    try:
        os.kill(int(theirs[1]), 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OverflowError):  # alive (another user's), or no such pid
        return False
    return False


class ClockPoster(Protocol):
    """Where a clock's messages go (Discord in production)."""

    async def announce(
        self,
        channel_id: int,
        announcement: Announcement,
        ping_role_id: int | None,
        *,
        nonce: str | None = None,
    ) -> None:
        """Post one announcement; ping ``ping_role_id`` only when ``announcement.pings``.

        ``nonce`` goes with the message (``enforce_nonce``): Discord drops a repeat. Raise
        ``PostRejected`` for a refusal that a retry cannot fix; anything else is retried.
        """

    async def post_status(self, channel_id: int, status: ClockStatus) -> int:
        """Post the live status message; return its id (``PostRejected``: refused for good)."""

    async def edit_status(self, channel_id: int, message_id: int, status: ClockStatus) -> bool:
        """Edit the live status message; return False when it no longer exists."""


PostFailed = Callable[[ClockRecord, str, BaseException], Awaitable[None]]
"""What the service calls when an announcement did not go out (see ``ClockService``)."""


def utcnow() -> dt.datetime:
    """The current time in UTC (the service's default clock)."""
    return dt.datetime.now(dt.UTC)


@dataclass
class _Live:
    """In-memory bookkeeping of one clock (rebuilt from the database on start-up)."""

    lock: asyncio.Lock
    channel_id: int
    version: int = 0  # the clock's change counter as this instance last processed it
    failures: int = 0  # passes failed in a row (retry backoff)
    last_status_edit: float | None = None  # time.monotonic() of the last status post/edit
    last_status: ClockStatus | None = None


class ClockService:
    """Runs the clocks this bot process owns (and adopts those whose owner died).

    Args:
        db: storage access off the event loop.
        poster: where messages go.
        now: the wall clock (UTC, timezone-aware); tests inject their own. Leases are kept in
            it too, so instances sharing a database need synchronised clocks (NTP).
        status_interval: seconds between status-message edits (at most one edit per period).
        warning_seconds: warnings before the end of each level or break, for new clocks.
        lease_seconds: how long a clock stays this instance's without a heartbeat.
        poll_interval: seconds between looks at the change counters of the clocks it owns.
        instance_id: this instance's owner id (a fresh one by default).
        post_retry_delays: waits between attempts at a post that failed (not ``PostRejected``).
        web_base_url: the league pages' public address (``WEB_BASE_URL``): the status
            message links the channel's live page, unless the league hides it.
        on_post_failure: called (in a task of its own, after the post's turn) with the clock,
            what failed (an announcement's key, or ``"status"``) and the error when a post is
            refused or given up on: the Discord cog tells the league's directors.
    """

    def __init__(
        self,
        db: Database,
        poster: ClockPoster,
        *,
        now: Callable[[], dt.datetime] = utcnow,
        status_interval: float = STATUS_INTERVAL_S,
        warning_seconds: tuple[float, ...] = (60.0,),
        lease_seconds: float = LEASE_S,
        poll_interval: float = POLL_INTERVAL_S,
        instance_id: str | None = None,
        post_retry_delays: Sequence[float] = POST_RETRY_DELAYS_S,
        web_base_url: str | None = None,
        on_post_failure: PostFailed | None = None,
    ) -> None:
        self.db = db
        self.on_post_failure = on_post_failure
        self.warning_seconds = warning_seconds
        self.poster = poster
        self.now = now
        self.status_interval = status_interval
        self.lease_seconds = lease_seconds
        self.poll_interval = poll_interval
        self.instance_id = instance_id or new_instance_id()
        self.post_retry_delays = tuple(post_retry_delays)
        self.web_base_url = web_base_url
        self.scheduler: Any = None
        self._live: dict[int, _Live] = {}  # the clocks this instance owns
        self._batch: dict[int, dt.datetime] = {}
        self._flusher: asyncio.Task[None] | None = None
        self._watcher: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()  # adoptions and changes being posted
        self._adopting: set[int] = set()

    @property
    def owned(self) -> frozenset[int]:
        """The ids of the clocks this instance runs now."""
        return frozenset(self._live)

    # -- lifecycle ------------------------------------------------------------------------

    async def start(self) -> None:
        """Start the scheduler, adopt every clock nobody runs, then watch leases and changes."""
        self.scheduler = AsyncIOScheduler(
            timezone=dt.UTC,
            event_loop=asyncio.get_running_loop(),
            job_defaults={"misfire_grace_time": None, "coalesce": True, "max_instances": 4},
        )
        self.scheduler.start()
        try:
            count = await self.resume_all()
        except Exception:  # the watcher's next heartbeat tries again
            log.exception("could not adopt the running clocks at start-up")
            count = 0
        self._watcher = asyncio.create_task(self._watch(), name="clock-watch")
        log.info("clock service %s started; %d clocks adopted", self.instance_id, count)

    async def resume_all(self) -> int:
        """Renew this instance's leases and adopt every clock without a live owner.

        At start-up that includes the clocks of a process of this machine that died (its lease
        may still run: a restart after a crash does not wait for it). Each adopted clock posts
        one catch-up for what was missed (see the module docstring).

        Returns:
            How many clocks were adopted.
        """
        owners = await self.db.run(clocks.list_owners)
        dead = sorted(o for o in owners if is_dead_here(o, self.instance_id))
        if dead:
            log.info("clocks of %s: that process is gone; adopting them now", dead)
        return len(await self._heartbeat(dead_owners=dead))

    async def run_due(self, clock_id: int) -> None:
        """Post whatever is due now for one clock (the scheduler's job; tests call it)."""
        await self._process(clock_id)

    async def stop(self) -> None:
        """Stop, releasing the leases so that another instance adopts the clocks at once."""
        if self._watcher is not None and not self._watcher.done():
            self._watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._watcher
        self._watcher = None
        for task in list(self._tasks):
            task.cancel()  # what they claimed and did not post, the adopter re-posts
        self._tasks.clear()
        self._adopting.clear()
        if self.scheduler is not None and self.scheduler.running:
            # Jobs handed to the executor but not started yet would be cancelled before their
            # first step, which APScheduler logs as an error: let them start (they end quietly
            # when cancelled, ``_quietly``), then cancel what is in flight.
            self.scheduler.remove_all_jobs()
            for _ in range(2):
                await asyncio.sleep(0)
            self.scheduler.shutdown(wait=False)
        self.scheduler = None
        if self._flusher is not None and not self._flusher.done():
            self._flusher.cancel()  # what it claimed and did not post, the adopter re-posts
        self._batch.clear()
        self._live.clear()
        try:
            # Bounded: a stop never waits out a database lock (SQLite's busy timeout is 30 s);
            # a lease not released runs out by itself within ``lease_seconds``.
            await asyncio.wait_for(
                self.db.run(clocks.release_leases, owner_id=self.instance_id), RELEASE_WAIT_S
            )
        except TimeoutError:
            log.warning(
                "clock leases of %s not released within %.0f s (database busy); they run out "
                "by themselves",
                self.instance_id,
                RELEASE_WAIT_S,
            )
        except Exception:  # the leases run out by themselves
            log.exception("could not release the clock leases of %s", self.instance_id)

    async def _resume_status(self, clock_id: int) -> None:
        try:
            await self._status(clock_id, force=True)
        except Exception:
            log.exception("could not refresh the status of clock %s", clock_id)

    # -- ownership ------------------------------------------------------------------------

    async def _watch(self) -> None:
        """Heartbeat every third of the lease; look at the change counters in between."""
        heartbeat_s = self.lease_seconds / 3
        next_beat = time.monotonic() + heartbeat_s
        while True:
            await asyncio.sleep(min(self.poll_interval, heartbeat_s))
            try:
                if time.monotonic() >= next_beat:
                    next_beat = time.monotonic() + heartbeat_s
                    await self._heartbeat(background=True)
                await self._poll_changes(background=True)
            except Exception:  # a database hiccup: the next round tries again
                log.exception("clock heartbeat of %s failed", self.instance_id)

    def _spawn(self, work: Coroutine[Any, Any, None], name: str) -> None:
        """Run posting work beside the watcher, so a slow post never delays a heartbeat."""
        task = asyncio.create_task(work, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _heartbeat(
        self, dead_owners: Sequence[str] = (), *, background: bool = False
    ) -> set[int]:
        """Renew the leases, drop the clocks lost, adopt the orphans; the ids adopted.

        With ``background`` (the watcher) the adopted clocks' catch-ups are posted by a task
        of their own; otherwise (start-up) they are posted before this returns.
        """
        now = self.now()
        until = now + dt.timedelta(seconds=self.lease_seconds)
        kept, adopted = await self.db.run(
            _renew_and_adopt,
            owner_id=self.instance_id,
            now=now,
            until=until,
            dead_owners=dead_owners,
        )
        for clock_id in set(self._live) - kept - adopted:
            log.warning("clock %s: lease lost to another instance", clock_id)
            self._forget(clock_id)
        # Owned in the database but not run here: adopted just now, or left by an earlier
        # start under the same instance id.
        resume = (adopted | (kept - set(self._live))) - self._adopting
        if resume and background:
            self._adopting |= resume
            self._spawn(self._adopt(resume), "clock-adopt")
        elif resume:
            self._adopting |= resume
            await self._adopt(resume)
        return resume

    async def _adopt(self, clock_ids: set[int]) -> None:
        try:
            records = await self.db.run(clocks.get_clocks, clock_ids=sorted(clock_ids))
            for record in records:
                live = self._live.setdefault(record.id, _Live(asyncio.Lock(), record.channel_id))
                live.version = record.version
        finally:
            self._adopting -= clock_ids  # on failure the next heartbeat tries again
        batch = {r.id: None for r in records}
        try:
            await self._process_many(batch, collapse=True)
        except Exception:
            log.exception("could not resume clocks %s; retrying", sorted(batch))
            self._retry_later(batch, collapse=True)
        if self.scheduler is None or len(records) <= 1:
            await asyncio.gather(*(self._resume_status(r.id) for r in records))
            return
        # Many clocks adopted at once (their owner died): the catch-ups told the players; the
        # status messages follow spread over a few seconds, so that the burst of edits does not
        # hold up the announcements due meanwhile (this instance's own clocks among them).
        spread = min(self.status_interval, ADOPTION_STATUS_SPREAD_S)
        for i, record in enumerate(records):
            self._schedule_status(record.id, spread * i / len(records), force=True)

    async def _poll_changes(self, *, background: bool = False) -> None:
        """Process the owned clocks whose change counter moved (an action via another instance)."""
        if not self._live:
            return
        versions = await self.db.run(clocks.list_owned_versions, owner_id=self.instance_id)
        changed = []
        for clock_id, live in list(self._live.items()):
            version = versions.get(clock_id)
            if version is None:
                log.warning("clock %s: no longer owned by this instance", clock_id)
                self._forget(clock_id)
            elif version != live.version:
                live.version = version
                changed.append(clock_id)
        if changed and background:
            self._spawn(self._apply_changes(changed), "clock-changes")
        elif changed:
            await self._apply_changes(changed)

    async def _apply_changes(self, clock_ids: list[int]) -> None:
        try:
            await self._process_many(dict.fromkeys(clock_ids))
        except Exception:
            log.exception("clocks %s: could not apply an action; retrying", clock_ids)
            self._retry_later(dict.fromkeys(clock_ids))
        for clock_id in clock_ids:
            await self._status(clock_id)

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
        """Start a clock in a channel (this instance owns it), post its status and level 1.

        ``warning_seconds`` (before the end of each level or break; empty for none) defaults
        to the service's.

        Raises:
            AlreadyExists: the channel has a running clock.
            BlindStructureError: unknown structure.
            ClockError: a level length out of range.
        """
        now = self.now()
        record = await self.db.run(
            clocks.add_clock,
            guild_id=guild_id,
            channel_id=channel_id,
            structure=structure,
            started_at=now,
            created_by=created_by,
            level_seconds=None if level_minutes is None else level_minutes * 60,
            break_seconds=None if break_minutes is None else break_minutes * 60,
            ping_role_id=ping_role_id,
            warning_seconds=self.warning_seconds if warning_seconds is None else warning_seconds,
            owner_id=self.instance_id,
            lease_until=now + dt.timedelta(seconds=self.lease_seconds),
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
        return await self.act_on(record.id, action, value, user_id=user_id, guild_id=guild_id)

    async def act_on(
        self,
        clock_id: int,
        action: ClockAction,
        value: float = 0.0,
        *,
        user_id: int | None = None,
        guild_id: int | None = None,
    ) -> ClockRecord:
        """Apply a director action to one clock (the status message's buttons use this).

        On the owner the action's announcements go out at once; through another instance the
        action is stored and the owner sees it within ``poll_interval``.

        Raises:
            NotFound: no such clock, or (with ``guild_id``) it belongs to another server.
            ClockError: the action does not apply now (nothing changes).
        """
        live = self._live.get(clock_id)
        store = {
            "clock_id": clock_id,
            "action": action,
            "value": value,
            "user_id": user_id,
            "guild_id": guild_id,
        }
        if live is None:
            return await self.db.run(clocks.add_clock_event, at=self.now(), **store)
        async with live.lock:
            record = await self.db.run(clocks.add_clock_event, at=self.now(), **store)
            live.version = record.version
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
        return status_reply(
            record,
            self.now(),
            tournament=await self._tournament(channel_id),
            live_url=await self._live_url(record),
        )

    async def _tournament(self, channel_id: int) -> str | None:
        """The channel's open tournament in one line, for the status message (13)."""
        return await self.db.run(tournaments.tournament_status_line, channel_id=channel_id)

    async def _live_url(self, record: ClockRecord) -> str | None:
        """The channel's live page, when the pages have a public address and the league shows it."""
        if self.web_base_url is None:
            return None
        shown = await self.db.run(is_live_page_shown_for_guild, guild_id=record.guild_id)
        return live_url(self.web_base_url, record.channel_id) if shown else None

    # -- the engine -----------------------------------------------------------------------

    async def _tick(self, clock_id: int, scheduled: dt.datetime) -> None:
        """Scheduler job: queue the clock; clocks due together are claimed in one transaction."""
        previous = self._batch.get(clock_id)
        self._batch[clock_id] = scheduled if previous is None else max(previous, scheduled)
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush(), name="clock-flush")

    async def _retry_tick(self, clock_id: int, collapse: bool) -> None:
        if collapse:
            await self._adopt({clock_id})
        else:
            await self._tick(clock_id, self.now())

    async def _flush(self) -> None:
        await asyncio.sleep(0)  # every job released in this scheduler pass joins the batch
        while self._batch:
            batch, self._batch = self._batch, {}
            try:
                await self._process_many(batch)
            except Exception:
                log.exception("clock announcement batch failed (%d clocks)", len(batch))
                self._retry_later(batch)

    def _retry_later(
        self, batch: Mapping[int, dt.datetime | None], *, collapse: bool = False
    ) -> None:
        """Run a failed pass again after a backoff (0.5 s doubling to 10 s): never drop a clock."""
        for clock_id in batch:
            live = self._live.get(clock_id)
            if live is None or self.scheduler is None:
                continue
            live.failures += 1
            delay = min(MAX_BACKOFF_S, 0.5 * 2 ** (live.failures - 1))
            self._add_job(
                f"clock:{clock_id}",
                utcnow() + dt.timedelta(seconds=delay),
                self._retry_tick,
                clock_id,
                collapse,
            )

    async def _process(
        self, clock_id: int, *, scheduled: dt.datetime | None = None, collapse: bool = False
    ) -> None:
        """Claim one clock's due announcements (recorded before posting), post, reschedule."""
        await self._process_many({clock_id: scheduled}, collapse=collapse)

    async def _process_many(
        self, batch: Mapping[int, dt.datetime | None], *, collapse: bool = False
    ) -> None:
        owned = sorted(cid for cid in batch if cid in self._live)
        lives = [self._live[clock_id] for clock_id in owned]
        if not lives:
            return
        async with contextlib.AsyncExitStack() as stack:
            for live in lives:  # sorted ids: two batches never wait on each other in a cycle
                await stack.enter_async_context(live.lock)
            now = self.now()
            # A job may wake a hair before its time; what it was scheduled for is due.
            until: dict[int, dt.datetime] = {}
            for cid in owned:
                scheduled = batch[cid]
                until[cid] = now if scheduled is None else max(now, scheduled)
            claimed, lost = await self.db.run(
                _claim_due,
                until=until,
                now=now,
                collapse=collapse,
                owner_id=self.instance_id,
                lease_until=now + dt.timedelta(seconds=self.lease_seconds),
            )
            for clock_id in lost:
                log.warning("clock %s: lease lost before posting; the new owner posts", clock_id)
                self._forget(clock_id)
            await asyncio.gather(*(self._post(c.record, c.posts) for c in claimed))
            # Done with (posted or given up): an adopter must not take these for a crash's.
            await self._settle({c.record.id: c.settle for c in claimed if c.settle})
            for c in claimed:
                done = self._live.get(c.record.id)
                if done is not None:
                    done.failures = 0
                self._reschedule(c.record, until[c.record.id])

    async def _settle(self, keys: dict[int, list[str]]) -> None:
        if not keys:
            return
        try:
            await self.db.run(clocks.settle_announcements, keys=keys, at=self.now())
        except Exception:
            # Left unsettled: an adopter re-posts them with their nonce, which Discord drops.
            log.exception("could not settle the announcements of clocks %s", sorted(keys))

    async def _post(self, record: ClockRecord, announcements: list[Announcement]) -> None:
        for announcement in announcements:
            await self._post_one(record, announcement)

    async def _post_one(self, record: ClockRecord, announcement: Announcement) -> None:
        """Post one claimed announcement, retrying (same nonce) until it goes or is refused."""
        nonce = announcement_nonce(record, announcement.key)
        for delay in (*self.post_retry_delays, None):
            try:
                await self.poster.announce(
                    record.channel_id, announcement, record.ping_role_id, nonce=nonce
                )
                return
            except PostRejected as exc:
                log.warning("clock %s: %s refused: %s", record.id, announcement.key, exc)
                self._failed(record, announcement.key, exc)
                return
            except Exception as exc:
                if delay is None:  # claimed: lost rather than repeated; the status still tells
                    log.exception("clock %s: gave up posting %s", record.id, announcement.key)
                    self._failed(record, announcement.key, exc)
                    return
                log.warning(
                    "clock %s: posting %s failed; again in %g s",
                    record.id,
                    announcement.key,
                    delay,
                    exc_info=True,
                )
                await asyncio.sleep(delay)

    def _failed(self, clock: ClockRecord | int, what: str, exc: BaseException) -> None:
        """Hand a lost post of a clock (record or id) to ``on_post_failure``, off its path."""
        if self.on_post_failure is not None:
            self._spawn(self._report(clock, what, exc), "clock-post-failed")

    async def _report(self, clock: ClockRecord | int, what: str, exc: BaseException) -> None:
        assert self.on_post_failure is not None
        clock_id = clock if isinstance(clock, int) else clock.id
        try:
            if isinstance(clock, int):
                clock = await self.db.run(clocks.get_clock, clock_id=clock)
            await self.on_post_failure(clock, what, exc)
        except Exception:
            log.exception("clock %s: could not report the failed %s", clock_id, what)

    def _reschedule(self, record: ClockRecord, after: dt.datetime) -> None:
        if self.scheduler is None or record.id not in self._live:
            return
        job_id = f"clock:{record.id}"
        when = None if record.is_ended else next_announcement_at(record.state, after)
        if when is None:
            if self.scheduler.get_job(job_id) is not None:
                self.scheduler.remove_job(job_id)
            return
        self._add_job(job_id, when, self._tick, record.id, when)

    async def _status(self, clock_id: int, *, force: bool = False) -> None:
        """Bring the status message up to date now, or at the end of the 30-second window.

        Only the owner edits it: an instance that does not own the clock does nothing.
        """
        live = self._live.get(clock_id)
        if live is None:
            return
        since = None if live.last_status_edit is None else time.monotonic() - live.last_status_edit
        if not force and since is not None and since < self.status_interval:
            self._schedule_status(clock_id, self.status_interval - since)
            return
        try:
            await self._edit_status(clock_id, live)
        except PostRejected as exc:  # no access to the channel: the directors hear of it
            log.warning("clock %s: status message refused: %s", clock_id, exc)
            self._failed(clock_id, "status", exc)
        except Exception:
            log.exception("clock %s: status update failed", clock_id)
        self._schedule_status(clock_id, self.status_interval)

    def _schedule_status(self, clock_id: int, delay: float, *, force: bool = False) -> None:
        if self.scheduler is None or clock_id not in self._live:
            return
        self._add_job(
            f"clock-status:{clock_id}",
            utcnow() + dt.timedelta(seconds=delay),
            self._status,
            clock_id,
            force=force,
        )

    def _add_job(
        self,
        job_id: str,
        when: dt.datetime,
        fn: Callable[..., Coroutine[Any, Any, None]],
        *args: Any,
        **kwargs: Any,
    ) -> None:
        """Run ``fn(*args, **kwargs)`` at ``when`` (in place of the job ``job_id``), stoppable."""
        self.scheduler.add_job(
            _quietly,
            "date",
            run_date=when,
            args=[fn, *args],
            kwargs=kwargs,
            id=job_id,
            replace_existing=True,
        )

    async def _edit_status(self, clock_id: int, live: _Live) -> None:
        record = await self.db.run(clocks.get_clock, clock_id=clock_id)
        pos_now = self.now()
        tournament = await self._tournament(record.channel_id)
        status = ClockStatus(
            clock_id=clock_id,
            reply=status_reply(
                record,
                pos_now,
                tournament=tournament,
                card=True,
                live_url=await self._live_url(record),
            ),
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


async def _quietly(fn: Callable[..., Coroutine[Any, Any, None]], *args: Any, **kwargs: Any) -> None:
    """A scheduler job: ``fn``, ending without an error when a stop cancels it mid-way.

    A status edit or a pass in flight at shutdown is cancelled by the stop; APScheduler logs any
    exception of a job at ERROR, and this one is no error (what was claimed and not posted, the
    adopter re-posts).
    """
    try:
        await fn(*args, **kwargs)
    except asyncio.CancelledError:
        log.debug("clock job %s cancelled by the stop", getattr(fn, "__name__", fn))


def _same(a: ClockStatus, b: ClockStatus) -> bool:
    """Equal but for the "as of" footer."""
    return (a.reply.fields, a.is_paused, a.is_ended) == (b.reply.fields, b.is_paused, b.is_ended)


@dataclass(frozen=True)
class _Claim:
    """What one clock claimed in one pass: the messages to post and the keys to settle after."""

    record: ClockRecord
    posts: list[Announcement]
    settle: list[str]


def _renew_and_adopt(
    *,
    session: Session,
    owner_id: str,
    now: dt.datetime,
    until: dt.datetime,
    dead_owners: Sequence[str] = (),
) -> tuple[set[int], set[int]]:
    """One heartbeat in one transaction: (clocks still owned, clocks adopted now)."""
    kept = clocks.renew_leases(session=session, owner_id=owner_id, until=until)
    adopted = clocks.adopt_expired_clocks(
        session=session, owner_id=owner_id, now=now, until=until, dead_owners=dead_owners
    )
    return kept, adopted


def _claim_due(
    *,
    session: Session,
    until: dict[int, dt.datetime],
    now: dt.datetime,
    collapse: bool,
    owner_id: str,
    lease_until: dt.datetime,
) -> tuple[list[_Claim], set[int]]:
    """In one transaction: per clock still owned, what is due by ``until[id]``, claimed.

    The lease is renewed first: on PostgreSQL that locks the clock rows, so an instance trying
    to adopt them waits for this transaction and then finds the lease alive. Clocks no longer
    owned are returned as lost (second item) and get nothing.

    With ``collapse`` (adoption: the previous owner is gone) its unsettled claims of the last
    ``NONCE_WINDOW_S`` are posted again as they were (same nonce: Discord drops a repeat), and
    everything else that was missed (older unsettled claims included) becomes one catch-up.
    """
    owned = clocks.renew_leases(
        session=session, owner_id=owner_id, until=lease_until, clock_ids=list(until)
    )
    records = clocks.get_clocks(session=session, clock_ids=sorted(owned))
    posts: dict[int, list[Announcement]] = {}
    keys: dict[int, list[str]] = {}
    again: dict[int, list[Announcement]] = {}
    stale: dict[int, list[str]] = {}
    window = dt.timedelta(seconds=NONCE_WINDOW_S)
    for record in records:
        due_all = announcements_between(record.state, None, until[record.id])
        claimed = set(record.announced)
        if collapse and record.unsettled:
            since = record.unsettled_since
            # A catch-up was claimed with what it covers, in one transaction (one claim time):
            # those were never to be posted as they were, so they fold into a new catch-up.
            covered = {since[k] for k in record.unsettled if k.startswith("catch-up:")}
            recent = {k for k, t in since.items() if now - t <= window and t not in covered}
            again[record.id] = [a for a in due_all if a.key in recent]
            repostable = {a.key for a in again[record.id]}
            stale[record.id] = sorted(record.unsettled - repostable)
            claimed -= set(stale[record.id])
        due = [a for a in due_all if a.key not in claimed]
        if due and collapse:
            summary = catch_up(record.state, due, now)
            posts[record.id] = [summary]
            keys[record.id] = [a.key for a in due if a.key not in record.announced]
            keys[record.id].append(summary.key)
        elif due:
            posts[record.id] = due
            keys[record.id] = [a.key for a in due]
    fresh = clocks.record_many_announcements(session=session, keys=keys, at=now)
    claims = []
    for r in records:
        made = set(fresh.get(r.id, []))
        # A lost race posts nothing; a catch-up keyed like a dead owner's unsettled one is
        # ours to post now (same key, same nonce: Discord drops it if the first went out).
        mine = made | set(stale.get(r.id, []))
        new = [a for a in posts.get(r.id, []) if a.key in mine]
        repost = again.get(r.id, [])
        settle = [a.key for a in repost] + fresh.get(r.id, []) + stale.get(r.id, [])
        claims.append(_Claim(r, repost + new, settle))
    return claims, set(until) - owned
