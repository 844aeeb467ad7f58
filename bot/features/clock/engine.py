"""The clock service's engine: the timer's path from a due announcement to its post.

``ClockService`` (``.service``) owns the clocks, takes the director's actions and keeps the
leases; this is what runs between its jobs (``.jobs``, one timer for every clock):

* **armed announcements** (the path of nearly every one): what falls due in the next
  ``claim_ahead`` seconds (60 s) is claimed ahead, by the pass that scheduled it and then by
  the bookkeeping (``_keep``) as time goes on. At its time the timer posts it from memory, with
  no database on the way, and the bookkeeping settles it afterwards (with the next claims, in
  one transaction), so a write lock held by a long import does not hold up the post. A crash
  between the post and the settle leaves the claim unsettled: an adopter posts it again with
  its nonce, which Discord drops (``.leases``);
* **the claim path** (``_process_many``): a clock's start, a director's action, an adoption,
  a retry, or a due announcement that was not claimed ahead: claim, post, settle, as before;
* on SQLite a write waits only for another writer, and while it waits nobody can adopt a clock
  or store an action either: armed announcements go out on time past the lease. Elsewhere (a
  connection lost) the lease, as last written, bounds them;
* a warning the timer could not post within ``STALE_WARNING_S`` (10 s) of its time is dropped
  (settled, not posted): "one minute left" 45 s late would mislead;
* a status edit (``.status``) waits while announcements are being posted, and one due within
  ``STATUS_CLEARANCE_S`` of the clock's next announcement waits for it.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import datetime as dt
import logging
import time
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from bot.database import Database
from bot.features.clock.gaps import CLEAR_MOST_S, clear_of_announcements, collect_in_gap
from bot.features.clock.jobs import ClockJobs
from bot.features.clock.leases import Claim, arm_ahead, claim_due, settle, store_status_messages
from bot.features.clock.posting import (
    ClockPoster,
    ClockStatus,
    PostFailed,
    PostRejected,
    post_announcements,
)
from bot.features.clock.status import Contexts, refresh_status
from rulings import (
    Announcement,
    AnnouncementKind,
    ClockState,
    announcements_between,
    next_announcement_at,
)
from storage import clocks
from storage.clocks import ClockRecord

log = logging.getLogger(__name__)

MAX_BACKOFF_S = 10.0
CLAIM_AHEAD_S = 60.0
STALE_WARNING_S = 10.0
STATUS_CLEARANCE_S = 1.0
PLAN_AHEAD_S = 120.0
ADOPTION_STATUS_SPREAD_S = 5.0


def utcnow() -> dt.datetime:
    """The current time in UTC (the service's default clock)."""
    return dt.datetime.now(dt.UTC)


@dataclass
class LiveClock:
    """In-memory bookkeeping of one clock (rebuilt from the database on start-up)."""

    lock: asyncio.Lock
    channel_id: int
    version: int = 0  # the clock's change counter as this instance last processed it
    failures: int = 0  # passes failed in a row (retry backoff)
    last_status_edit: float | None = None  # time.monotonic() of the last status post/edit
    last_status: ClockStatus | None = None
    record: ClockRecord | None = None  # as last read or written (its claimed keys included)
    armed: set[str] = field(default_factory=set)  # claimed ahead, posted at their time
    armed_until: dt.datetime | None = None  # what falls due by then is claimed
    lease_until: dt.datetime | None = None  # this instance's lease, as last written
    plan: list[Announcement] = field(default_factory=list)  # of ``planned`` state, in order
    planned: tuple[ClockState, dt.datetime] | None = None  # (state, until when) of ``plan``
    line: tuple[str | None] | None = None  # the tournament line read with the start, once

    def due_by(self, state: ClockState, until: dt.datetime) -> list[Announcement]:
        """``announcements_between(state, None, until)``, from a plan kept per state.

        Enumerating a clock's life is a walk from its start: done once per state and minute,
        not once per announcement and clock (200 clocks posting at once would otherwise spend
        a millisecond each on the event loop).
        """
        if self.planned is None or self.planned[0] is not state or self.planned[1] < until:
            horizon = until + dt.timedelta(seconds=PLAN_AHEAD_S)
            self.plan = announcements_between(state, None, horizon)
            self.planned = (state, horizon)
        return self.plan[: bisect.bisect_right(self.plan, until, key=lambda a: a.at)]

    def next_after(self, state: ClockState, after: dt.datetime) -> dt.datetime | None:
        """``next_announcement_at(state, after)``, from the plan when it reaches that far."""
        plan = self.due_by(state, after)
        later = self.plan[len(plan) :]
        return later[0].at if later else next_announcement_at(state, after)


def merged(old: ClockRecord | None, new: ClockRecord) -> ClockRecord:
    """``new``, knowing every key ``old`` knew was claimed (a claim is never taken back).

    The status message is the owner's to post, so the one it knows stands (``new`` may have
    been read before it was posted).
    """
    if old is None:
        return new
    message_id = old.status_message_id or new.status_message_id
    if old.announced <= new.announced and message_id == new.status_message_id:
        return new
    return replace(new, announced=new.announced | old.announced, status_message_id=message_id)


class ClockEngine:
    """The state and the timer's path of ``ClockService`` (which sets these attributes)."""

    db: Database
    poster: ClockPoster
    now: Callable[[], dt.datetime]
    instance_id: str
    lease_seconds: float
    status_interval: float
    post_retry_delays: tuple[float, ...]
    web_base_url: str | None
    on_post_failure: PostFailed | None
    claim_ahead: float
    stale_warning_s: float
    jobs: ClockJobs
    _live: dict[int, LiveClock]  # the clocks this instance owns
    _batch: dict[int, dt.datetime]  # due clocks the timer released, for one batch
    _flusher: asyncio.Task[None] | None
    _tasks: set[asyncio.Task[None]]  # adoptions, changes, late claims being posted
    _single_writer: bool  # SQLite (see the module docstring)
    _posted: dict[int, list[str]]  # posted from armed keys, to settle
    _settling: dict[int, list[str]]  # being settled now
    _keeper: asyncio.Task[None] | None
    _posting: int  # announcement passes posting now (status edits wait for them)
    _quiet: asyncio.Event  # set when none is
    _status_ids: dict[int, int | None]  # status messages posted, their ids to store
    _status_storer: asyncio.Task[None] | None
    _contexts: Contexts  # the status messages' tournament lines, read together
    _edit_slots: asyncio.Semaphore  # status edits in flight (``STATUS_EDITS_AT_ONCE``)

    async def _adopt(self, clock_ids: set[int]) -> None:
        raise NotImplementedError  # ClockService's

    async def _resume_status(self, clock_id: int) -> None:
        try:
            await self._status(clock_id, force=True)
        except Exception:
            log.exception("could not refresh the status of clock %s", clock_id)

    def _spawn(self, work: Coroutine[Any, Any, None], name: str) -> None:
        """Run posting work beside the watcher, so a slow post never delays a heartbeat."""
        task = asyncio.create_task(work, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _tick(self, clock_id: int, scheduled: dt.datetime) -> None:
        """Timer job: queue the clock; the clocks due together are handled as one batch.

        A plain function: run in the timer's callback, with no task of its own per clock.
        """
        previous = self._batch.get(clock_id)
        self._batch[clock_id] = scheduled if previous is None else max(previous, scheduled)
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush(), name="clock-flush")
            self._tasks.add(self._flusher)
            self._flusher.add_done_callback(self._tasks.discard)

    async def _retry_tick(self, clock_id: int, collapse: bool) -> None:
        if collapse:
            await self._adopt({clock_id})
        else:
            self._tick(clock_id, self.now())

    async def _flush(self) -> None:
        """Post the batch's armed announcements; what was not claimed ahead is claimed now.

        The jobs released while it posts make a batch of their own, posted beside it (they
        used to wait for every post of this one: 80-150 ms behind a 200-clock batch).
        """
        # Its first step comes after the timer's callback (every tick released there joins)
        # and after the steps of the tasks that callback started (retries join too).
        batch, self._batch = self._batch, {}
        self._flusher = None  # the next jobs start the next batch at once
        if not batch:
            return
        self._posting_starts()
        try:
            posted = await asyncio.gather(
                *(self._post_armed(cid, when) for cid, when in batch.items()),
                return_exceptions=True,
            )
        finally:
            self._posting_ends()
        late: dict[int, dt.datetime] = {}
        for (clock_id, when), done in zip(batch.items(), posted, strict=True):
            if isinstance(done, BaseException):
                log.error("clock %s: posting failed", clock_id, exc_info=done)
            if done is not True:
                late[clock_id] = when
        self._kick_keeper()
        collect_in_gap(self.jobs)  # a full collection near: now, not in the next batch
        if late:  # they wait (a lock, the database) beside the timer's next batches
            self._spawn(self._post_late(late), "clock-late")

    async def _post_late(self, batch: Mapping[int, dt.datetime]) -> None:
        """After the pass holding a clock (its start, an action), its armed posts; else claim."""

        async def after_lock(clock_id: int, when: dt.datetime) -> bool:
            live = self._live.get(clock_id)
            if live is not None and live.lock.locked():
                async with live.lock:
                    pass
            return await self._post_armed(clock_id, when)

        done = await asyncio.gather(*(after_lock(cid, when) for cid, when in batch.items()))
        claim: dict[int, dt.datetime | None] = {
            cid: when for (cid, when), ok in zip(batch.items(), done, strict=True) if not ok
        }
        self._kick_keeper()
        if not claim:
            return
        try:
            await self._process_many(claim, timed=True)
        except Exception:
            log.exception("clock announcement batch failed (%d clocks)", len(claim))
            self._retry_later(claim)

    def _retry_later(
        self, batch: Mapping[int, dt.datetime | None], *, collapse: bool = False
    ) -> None:
        """Run a failed pass again after a backoff (0.5 s doubling to 10 s): never drop a clock."""
        for clock_id in batch:
            live = self._live.get(clock_id)
            if live is None or not self.jobs.running:
                continue
            live.failures += 1
            delay = min(MAX_BACKOFF_S, 0.5 * 2 ** (live.failures - 1))
            self.jobs.at(
                f"clock:{clock_id}",
                utcnow() + dt.timedelta(seconds=delay),
                self._retry_tick,
                clock_id,
                collapse,
            )

    def _lease(self) -> dt.timedelta:
        return dt.timedelta(seconds=self.lease_seconds)

    async def _gap(self, most: float = CLEAR_MOST_S) -> None:
        """Wait (``most`` at most) for a gap between announcements (``.gaps``)."""
        await clear_of_announcements(
            self.jobs, lambda: bool(self._batch) or self._posting > 0, self._quiet, most
        )

    def _posting_starts(self) -> None:
        self._posting += 1
        self._quiet.clear()

    def _posting_ends(self) -> None:
        self._posting -= 1
        if self._posting == 0:
            self._quiet.set()

    async def _post_armed(self, clock_id: int, scheduled: dt.datetime) -> bool:
        """Post what is due from the keys claimed ahead, with no database on the way.

        Returns:
            False when something due was not claimed ahead (or, off SQLite, the lease as last
            written ran out): the claim path must run. True when done (or not ours).
        """
        live = self._live.get(clock_id)
        if live is None:
            return True
        if live.lock.locked():  # a claim pass (perhaps waiting for the database) has it
            return False  # then this one waits, in a task of its own, not the whole batch
        async with live.lock:
            record = live.record
            if self._live.get(clock_id) is not live:
                return True
            now = self.now()
            if record is None or not (
                self._single_writer or (live.lease_until is not None and now < live.lease_until)
            ):
                return False
            until = max(now, scheduled)
            due = [
                a
                for a in live.due_by(record.state, until)
                if a.key in live.armed or a.key not in record.announced
            ]
            if any(a.key not in live.armed for a in due):
                return False
            keys = [a.key for a in due]
            # Not armed once posting starts: a stop mid-post leaves the claim unsettled (an
            # adopter re-posts it with its nonce) rather than withdrawn (a catch-up).
            live.armed.difference_update(keys)
            await self._post(record, due, timed=True)
            self._posted.setdefault(clock_id, []).extend(keys)
            live.failures = 0
            self._reschedule(record, until)
        return True

    async def _post(
        self, record: ClockRecord, posts: Sequence[Announcement], *, timed: bool = False
    ) -> None:
        """Post one clock's claimed announcements; for the timer, a stale warning is dropped."""
        if timed:
            now = self.now()
            stale = [
                a
                for a in posts
                if a.kind is AnnouncementKind.WARNING
                and (now - a.at).total_seconds() > self.stale_warning_s
            ]
            for a in stale:
                log.info("clock %s: %s dropped, %s late", record.id, a.key, now - a.at)
            posts = [a for a in posts if a not in stale]
        await post_announcements(
            self.poster, record, posts, retry_delays=self.post_retry_delays, failed=self._failed
        )

    def _kick_keeper(self) -> None:
        if self.jobs.running and (self._keeper is None or self._keeper.done()):
            self._keeper = asyncio.create_task(self._keep(), name="clock-keep")

    async def _keep(self) -> None:
        """The bookkeeping behind the timer: settle what was posted, claim what comes next."""
        await asyncio.sleep(0)  # what the batch posted joins
        backoff = 0.5
        while True:
            await self._gap()  # its transaction's Python would slow a batch's posts
            now = self.now()
            horizon = now + dt.timedelta(seconds=self.claim_ahead)
            keys = dict(self._coming(horizon))
            posted, self._posted = self._posted, {}
            if not keys and not posted:
                return
            self._settling = posted
            lease_until = now + self._lease()
            try:
                owned, fresh = await self.db.run(
                    arm_ahead,
                    owner_id=self.instance_id,
                    lease_until=lease_until,
                    keys=keys,
                    posted=posted,
                    now=now,
                )
            except Exception as exc:  # busy or gone: the posts went out; settle them later
                for clock_id, done in posted.items():
                    self._posted.setdefault(clock_id, [])[:0] = done
                log.warning("clock bookkeeping failed (%s); again in %.1f s", exc, backoff)
                await asyncio.sleep(backoff)
                backoff = min(MAX_BACKOFF_S, backoff * 2)
                continue
            finally:
                self._settling = {}
            backoff = 0.5
            for clock_id, wanted in keys.items():
                live = self._live.get(clock_id)
                if live is None or live.record is None:
                    continue
                if clock_id not in owned:
                    log.warning("clock %s: lease lost; the new owner posts", clock_id)
                    self._forget(clock_id)
                    continue
                live.lease_until = lease_until
                live.armed.update(fresh.get(clock_id, ()))
                live.record = replace(live.record, announced=live.record.announced | set(wanted))
                live.armed_until = max(horizon, live.armed_until or horizon)

    def _coming(self, horizon: dt.datetime) -> Iterable[tuple[int, list[str]]]:
        """Per owned clock armed less than half ``claim_ahead`` ahead, what to claim next.

        The keys falling due by ``horizon`` that are not claimed yet; each clock is topped up
        every half ``claim_ahead`` (30 s), not at every post.
        """
        refill = horizon - dt.timedelta(seconds=self.claim_ahead / 2)
        for clock_id, live in self._live.items():
            record, since = live.record, live.armed_until
            if record is None or since is None or since >= refill or record.is_ended:
                continue
            later = live.due_by(record.state, horizon)
            yield clock_id, [a.key for a in later if a.at > since and a.key not in record.announced]

    async def _process(
        self, clock_id: int, *, scheduled: dt.datetime | None = None, collapse: bool = False
    ) -> None:
        """Claim one clock's due announcements (recorded before posting), post, reschedule."""
        await self._process_many({clock_id: scheduled}, collapse=collapse)

    async def _process_many(
        self,
        batch: Mapping[int, dt.datetime | None],
        *,
        collapse: bool = False,
        timed: bool = False,
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
            lease_until = now + self._lease()
            claimed, lost = await self.db.run(
                claim_due,
                until=until,
                now=now,
                collapse=collapse,
                owner_id=self.instance_id,
                lease_until=lease_until,
                armed={cid: set(self._live[cid].armed) for cid in owned if cid in self._live},
            )
            for clock_id in lost:
                log.warning("clock %s: lease lost before posting; the new owner posts", clock_id)
                self._forget(clock_id)
            await self._post_claims(claimed, until, lease_until, timed=timed)
        self._kick_keeper()

    async def _post_claims(
        self,
        claimed: Sequence[Claim],
        until: Mapping[int, dt.datetime],
        lease_until: dt.datetime,
        *,
        timed: bool = False,
    ) -> None:
        """Post what a claim pass claimed, settle it, arm and reschedule (clocks locked)."""
        self._posting_starts()
        try:
            await asyncio.gather(*(self._post(c.record, c.posts, timed=timed) for c in claimed))
        finally:
            self._posting_ends()
        # Done with (posted or given up): an adopter must not take these for a crash's.
        # With the timer running, the bookkeeping settles them (batched with the claims
        # ahead, one transaction for every clock) instead of a transaction per pass here.
        done_with = {c.record.id: c.settle for c in claimed if c.settle}
        arming = self.jobs.running and self.claim_ahead > 0
        if not arming:
            await settle(self.db, done_with, self.now())
        for clock_id, keys in done_with.items() if arming else ():
            self._posted.setdefault(clock_id, []).extend(keys)
        for c in claimed:
            done = self._live.get(c.record.id)
            if done is not None:
                done.failures = 0
                done.record = merged(done.record, c.record)
                done.armed = set(c.armed)
                done.lease_until = lease_until
                done.armed_until = until[c.record.id] if arming else None
            self._reschedule(c.record, until[c.record.id])

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
        if not self.jobs.running or record.id not in self._live:
            return
        job_id = f"clock:{record.id}"
        live = self._live[record.id]
        when = None if record.is_ended else live.next_after(record.state, after)
        if when is None:
            self.jobs.cancel(job_id)
            return
        self.jobs.at(job_id, when, self._tick, record.id, when)

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
        due = self.jobs.pending(f"clock:{clock_id}")
        wait = None if due is None else (due - utcnow()).total_seconds()
        if not force and wait is not None and wait < STATUS_CLEARANCE_S:
            self._schedule_status(clock_id, max(wait, 0.0) + STATUS_CLEARANCE_S / 4)
            return  # the announcement first, then the status that shows it
        if not force:  # a start's or an adoption's status comes with its announcements
            await self._quiet.wait()  # never beside announcements being posted
        if self._live.get(clock_id) is not live:
            return
        try:
            await self._edit_status(clock_id, live, paced=not force)
        except PostRejected as exc:  # no access to the channel: the directors hear of it
            log.warning("clock %s: status message refused: %s", clock_id, exc)
            self._failed(clock_id, "status", exc)
        except Exception:
            log.exception("clock %s: status update failed", clock_id)
        self._schedule_status(clock_id, self.status_interval)

    def _schedule_status(self, clock_id: int, delay: float, *, force: bool = False) -> None:
        if not self.jobs.running or clock_id not in self._live:
            return
        self.jobs.at(
            f"clock-status:{clock_id}",
            utcnow() + dt.timedelta(seconds=delay),
            self._status,
            clock_id,
            force=force,
        )

    async def _edit_status(self, clock_id: int, live: LiveClock, *, paced: bool) -> None:
        line, shown = live.line, None
        if line is None and live.record is not None:  # read with the other edits due now
            context = await self._contexts.get(live.record.channel_id, live.record.guild_id)
            line, shown = (context[0],), context[1]
        async with self._edit_slots if paced else contextlib.nullcontext():  # few at once
            if paced:
                await self._gap()  # each in a gap: a batch due finds few edits in flight
            done = await refresh_status(
                self.db,
                self.poster,
                clock_id,
                self.now(),
                live.last_status,
                web_base_url=self.web_base_url,
                record=live.record,  # kept up to date by every pass and action: no read
                remember=live.record is None,
                tournament=line,
                shown=shown,
            )
        live.line = None
        if done is None:
            return  # a paused or ended clock's status does not change: no edit
        live.last_status_edit = time.monotonic()
        live.last_status = done.status
        if live.record is not None and live.record.status_message_id != done.message_id:
            live.record = replace(live.record, status_message_id=done.message_id)
            # Stored behind the post (a start's level 1 does not wait for this write); without
            # the timer (no background work) at once.
            if self.jobs.running:
                self._store_status(clock_id, done.message_id)
            else:
                await self.db.run(
                    clocks.set_status_message, clock_id=clock_id, message_id=done.message_id
                )
        if done.is_ended:
            self._forget(clock_id)

    def _store_status(self, clock_id: int, message_id: int | None) -> None:
        """Store a status message's id behind its post, with those posted in the same tick."""
        self._status_ids[clock_id] = message_id
        if self._status_storer is None or self._status_storer.done():
            self._status_storer = asyncio.create_task(self._store_statuses(), name="clock-ids")
            self._tasks.add(self._status_storer)
            self._status_storer.add_done_callback(self._tasks.discard)

    async def _store_statuses(self) -> None:
        await asyncio.sleep(0)  # the status messages posted in this tick join
        while self._status_ids:
            await self._gap()
            ids, self._status_ids = self._status_ids, {}
            try:
                await self.db.run(store_status_messages, message_ids=ids)
            except Exception:  # the next status edit finds no message and posts one
                log.warning("clocks %s: status messages not stored", sorted(ids), exc_info=True)

    def _forget(self, clock_id: int) -> None:
        self._live.pop(clock_id, None)
        self.jobs.cancel(f"clock:{clock_id}", f"clock-status:{clock_id}")
