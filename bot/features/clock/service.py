"""The live tournament clock: runs the stored clocks this instance owns, posts, keeps them alive.

Truth is in the database (``storage.clocks``): a clock's start and the director's actions. The
timed jobs (``.jobs``: one timer for all clocks) are derived from that state after every
change, one per clock at its next announcement and one for its status message, so nothing is
lost by a restart. A due announcement waits for nothing but the timer: what falls due in the
next ``claim_ahead`` seconds (60 s) is claimed ahead, so at its time it is posted from memory,
and the bookkeeping (settling it, claiming the next ones) follows in the background; a write
lock held by a long import does not hold up a post whose claim was made before it:

* several instances (processes) may share one database: each running clock has one owner
  holding a lease (``lease_seconds``, 10 s, renewed by a heartbeat every third of it), and a
  live instance adopts a clock whose owner died and posts one catch-up for what was missed;
  every announcement's key is claimed before it is posted and posted with a Discord nonce
  (``.leases`` says how); a clean stop releases the leases, so another instance adopts at once;
* a director action taken through another instance is stored with a change counter
  (``version``) that the owner polls every ``poll_interval`` (0.5 s), so it reaches the
  owner's schedule within a second, on SQLite and PostgreSQL alike;
* errors never drop a clock: a failed pass is retried with backoff, a post is retried (same
  nonce) unless Discord refused it for good (``PostRejected``);
* each clock has one live status message, edited only when it changed (``.status``), never
  while announcements are being posted and never just before one is due;
* a warning the timer could not post within ``STALE_WARNING_S`` of its time is dropped (settled
  unposted): "one minute left" 45 s late would mislead.

Posting goes through an injected ``ClockPoster`` (``.posting``), so the service never imports
discord; its timed jobs are ``.jobs``.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from bot.database import Database
from bot.features.clock.engine import (
    ADOPTION_STATUS_SPREAD_S,
    CLAIM_AHEAD_S,
    STALE_WARNING_S,
    ClockEngine,
    LiveClock,
    merged,
    utcnow,
)
from bot.features.clock.gaps import CLEAR_MOST_S, STATUS_EDITS_AT_ONCE
from bot.features.clock.jobs import ClockJobs
from bot.features.clock.leases import (
    Started,
    StartRefused,
    is_dead_here,
    new_instance_id,
    release_leases,
    renew_and_adopt,
    start_many,
)
from bot.features.clock.posting import POST_RETRY_DELAYS_S, ClockPoster, PostFailed
from bot.features.clock.status import Contexts, status_of
from bot.reply import Reply
from rulings import ClockAction
from storage import clocks
from storage.clocks import ClockRecord

log = logging.getLogger(__name__)

STATUS_INTERVAL_S = 30.0
LEASE_S = 10.0
POLL_INTERVAL_S = 0.5
StartFuture = asyncio.Future[tuple[Started, dt.datetime]]
__all__ = ["CLAIM_AHEAD_S", "STALE_WARNING_S", "STATUS_INTERVAL_S", "ClockService", "utcnow"]


def _fail(
    starts: Sequence[tuple[dict[str, Any], dt.timedelta | None, StartFuture]],
    exc: BaseException,
) -> None:
    for *_, future in starts:
        if not future.done():
            future.set_exception(exc)


class ClockService(ClockEngine):
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
        claim_ahead: seconds ahead the timer's announcements are claimed (0: at their time).
        stale_warning_s: a warning the timer could not post within this of its time is dropped.
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
        claim_ahead: float = CLAIM_AHEAD_S,
        stale_warning_s: float = STALE_WARNING_S,
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
        self.jobs = ClockJobs()
        self._live: dict[int, LiveClock] = {}  # the clocks this instance owns
        self._batch: dict[int, dt.datetime] = {}
        self._flusher: asyncio.Task[None] | None = None
        self._watcher: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()  # adoptions and changes being posted
        self._adopting: set[int] = set()
        self._starting = 0  # starts between their transaction and their clock running here
        self._starts: list[tuple[dict[str, Any], dt.timedelta | None, StartFuture]] = []
        self._starter: asyncio.Task[None] | None = None  # the starts queued, one transaction
        self._status_ids: dict[int, int | None] = {}
        self._status_storer: asyncio.Task[None] | None = None
        self._contexts = Contexts(db, pages=web_base_url is not None)
        self._edit_slots = asyncio.Semaphore(STATUS_EDITS_AT_ONCE)
        self.claim_ahead = claim_ahead
        self.stale_warning_s = stale_warning_s
        # On SQLite a write waits only for another writer, and while it waits nobody can adopt
        # a clock or store an action either: announcements claimed ahead go out on time even
        # past the lease. Elsewhere (a lost connection) the lease bounds them.
        self._single_writer = db.engine.dialect.name == "sqlite"
        self._posted: dict[int, list[str]] = {}  # posted from armed keys, to settle
        self._settling: dict[int, list[str]] = {}  # being settled now
        self._keeper: asyncio.Task[None] | None = None
        self._posting = 0  # announcement passes posting now (status edits wait for them)
        self._quiet = asyncio.Event()
        self._quiet.set()

    @property
    def owned(self) -> frozenset[int]:
        """The ids of the clocks this instance runs now."""
        return frozenset(self._live)

    # -- lifecycle ------------------------------------------------------------------------

    async def start(self) -> None:
        """Start the scheduler, adopt every clock nobody runs, then watch leases and changes."""
        self.jobs.start()
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
        await self.jobs.stop()
        for worker in (self._flusher, self._keeper, self._starter):
            if worker is not None and not worker.done():
                worker.cancel()  # what it claimed and did not post, the adopter re-posts
        _fail(self._starts, asyncio.CancelledError())  # queued, never begun: nothing written
        self._starts = []
        self._batch.clear()
        armed = {cid: sorted(live.armed) for cid, live in self._live.items() if live.armed}
        self._live.clear()
        posted = self._posted
        for clock_id, keys in self._settling.items():
            posted.setdefault(clock_id, []).extend(keys)
        self._posted, self._settling = {}, {}
        await release_leases(self.db, self.instance_id, posted=posted, armed=armed, at=self.now())

    # -- ownership ------------------------------------------------------------------------

    async def _watch(self) -> None:
        """Heartbeat every third of the lease; look at the change counters in between."""
        heartbeat_s = self.lease_seconds / 3
        next_beat = time.monotonic() + heartbeat_s
        while True:
            await asyncio.sleep(min(self.poll_interval, heartbeat_s))
            try:
                if time.monotonic() >= next_beat:
                    # Its writes off the announcements' path; not the polls' one small read:
                    # an action through another instance reaches its owner within a second.
                    await self._gap(min(CLEAR_MOST_S, heartbeat_s / 3))
                    next_beat = time.monotonic() + heartbeat_s
                    await self._heartbeat(background=True)
                await self._poll_changes(background=True)
            except Exception:  # a database hiccup: the next round tries again
                log.exception("clock heartbeat of %s failed", self.instance_id)

    async def _heartbeat(
        self, dead_owners: Sequence[str] = (), *, background: bool = False
    ) -> set[int]:
        """Renew the leases, drop the clocks lost, adopt the orphans; the ids adopted.

        With ``background`` (the watcher) the adopted clocks' catch-ups are posted by a task
        of their own; otherwise (start-up) they are posted before this returns.
        """
        now = self.now()
        until = now + dt.timedelta(seconds=self.lease_seconds)
        known, starting = set(self._live), self._starting  # as the read will see them, or later
        kept, adopted = await self.db.run(
            renew_and_adopt,
            owner_id=self.instance_id,
            now=now,
            until=until,
            dead_owners=dead_owners,
        )
        for clock_id in (known & set(self._live)) - kept - adopted:  # not one started since
            log.warning("clock %s: lease lost to another instance", clock_id)
            self._forget(clock_id)
        for clock_id in kept & set(self._live):
            self._live[clock_id].lease_until = until
        self._kick_keeper()  # the claims ahead follow the time
        # Owned in the database but not run here: adopted just now, or left by an earlier
        # start under the same instance id; not a start of this one, stored before it runs.
        left = set() if starting or self._starting else kept - set(self._live)
        resume = (adopted | left) - self._adopting
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
                live = self._live.setdefault(
                    record.id, LiveClock(asyncio.Lock(), record.channel_id)
                )
                live.version = record.version
                live.record = merged(live.record, record)
        finally:
            self._adopting -= clock_ids  # on failure the next heartbeat tries again
        batch = {r.id: None for r in records}
        try:
            await self._process_many(batch, collapse=True)
        except Exception:
            log.exception("could not resume clocks %s; retrying", sorted(batch))
            self._retry_later(batch, collapse=True)
        if not self.jobs.running or len(records) <= 1:
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
        asked = dict(self._live)  # a clock started meanwhile is not in the answer
        versions = await self.db.run(clocks.list_owned_versions, owner_id=self.instance_id)
        changed = []
        for clock_id, live in asked.items():
            if self._live.get(clock_id) is not live:
                continue
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
        clock = {
            "guild_id": guild_id,
            "channel_id": channel_id,
            "structure": structure,
            "started_at": now,
            "created_by": created_by,
            "level_seconds": None if level_minutes is None else level_minutes * 60,
            "break_seconds": None if break_minutes is None else break_minutes * 60,
            "ping_role_id": ping_role_id,
            "warning_seconds": self.warning_seconds if warning_seconds is None else warning_seconds,
        }
        # The start and level 1's claim in one transaction, with the clocks started alongside
        # (``_start_together``): one write before the first post.
        ahead = None
        if self.jobs.running and self.claim_ahead > 0:
            ahead = dt.timedelta(seconds=self.claim_ahead)
        self._starting += 1  # stored before it runs here: the heartbeat must not resume it
        try:
            started, lease_until = await self._start_together(clock, ahead)
            claim = started.claim
            record = claim.record
            live = LiveClock(asyncio.Lock(), channel_id, record=record, lease_until=lease_until)
            live.line = (started.tournament,)  # read with the start: its status reads nothing
            self._live[record.id] = live
        finally:
            self._starting -= 1
        async with live.lock:
            self._reschedule(record, now)  # level 2 is armed: its time holds whatever comes
            await self._status(record.id, force=True)  # the status message, then level 1
            await self._post_claims([claim], {record.id: now}, lease_until)
            if ahead is not None:
                live.armed_until = now + ahead
        self._kick_keeper()
        storer = self._status_storer  # stored behind level 1, before the start's reply
        if storer is not None and not storer.done():
            await asyncio.wait({storer})  # it logs its own failure; the status is posted anyway
        return live.record or record

    async def _start_together(
        self, clock: dict[str, Any], ahead: dt.timedelta | None
    ) -> tuple[Started, dt.datetime]:
        """Start ``clock`` in one transaction with the others started in the same tick.

        Returns its first claim (and tournament line) and the lease it holds until.

        Raises:
            AlreadyExists, BlindStructureError, ClockError: as ``clocks.add_clock``.
        """
        future: asyncio.Future[tuple[Started, dt.datetime]] = (
            asyncio.get_running_loop().create_future()
        )
        self._starts.append((clock, ahead, future))
        if self._starter is None or self._starter.done():
            self._starter = asyncio.create_task(self._start_pending(), name="clock-starts")
        return await future

    async def _start_pending(self) -> None:
        """The queued starts, in one ``start_many`` transaction per tick (alone on a failure)."""
        await asyncio.sleep(0)  # the starts asked for in this tick join
        while self._starts:
            batch, self._starts = self._starts, []
            try:
                for ahead in {b[1] for b in batch}:
                    group = [b for b in batch if b[1] == ahead]
                    try:
                        await self._start_group(group)
                    except Exception as exc:
                        if len(group) == 1:
                            _fail(group, exc)
                            continue
                        # A race with another instance for a channel, say: each start alone,
                        # so that only the one concerned fails.
                        for one in group:
                            try:
                                await self._start_group([one])
                            except Exception as alone:
                                _fail([one], alone)
            except asyncio.CancelledError as exc:  # a stop: the starts not done fail with it
                _fail(batch, exc)
                raise

    async def _start_group(
        self, group: Sequence[tuple[dict[str, Any], dt.timedelta | None, StartFuture]]
    ) -> None:
        now = self.now()
        lease_until = now + self._lease()
        results = await self.db.run(
            start_many,
            starts=[clock for clock, _, _ in group],
            now=now,
            owner_id=self.instance_id,
            lease_until=lease_until,
            ahead=group[0][1],
        )
        for (*_, future), result in zip(group, results, strict=True):
            if future.done():
                continue
            if isinstance(result, StartRefused):
                future.set_exception(result.error)
            else:
                future.set_result((result, lease_until))

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
            live.record = merged(live.record, record)  # the timer posts from the new state
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
        return await status_of(
            self.db, record, self.now(), channel_id=channel_id, web_base_url=self.web_base_url
        )
