"""The clock service's timed jobs: one timer for every clock, not one scheduler job each.

A job is a function to run at a wall-clock time, under an id (``"clock:7"``); adding a job
under an id replaces the one scheduled there. All jobs sit in one heap, and one
``loop.call_at`` handle is armed for the earliest: adding, replacing or cancelling a job is a
dictionary write and a heap push (a replaced job's old entry is skipped when it surfaces). The
jobs due at one moment start together in one callback, and so do those due within
``COALESCE_S`` (10 ms) after it: two clocks started a millisecond apart fall due a millisecond
apart, and the second would otherwise wait for the loop to get through the first's posts (200
clocks started together fell due in two groups 1 ms apart, the second starting 80-150 ms late
in ``benchmarks/clock.py``). Nothing else is kept here: the service derives the jobs from the
stored clocks after every change, so a restart rebuilds them. A job that a stop cancels
mid-way ends quietly.

It replaces APScheduler, whose per-job bookkeeping (a job store lookup, a trigger, a wake-up
of its own loop per change) sat on the path of every announcement (see ``docs/night.md``).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import heapq
import itertools
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)

Job = Callable[..., Coroutine[Any, Any, None] | None]
"""A coroutine function (run in a task of its own) or a plain function (run in the timer's
callback: what only queues work, as the announcements' tick, costs no task)."""

COALESCE_S = 0.010
"""Jobs due within this after the timer fires start with those due (up to this early)."""


@dataclass(order=True)
class _Entry:
    when: float  # POSIX seconds
    seq: int
    job_id: str = field(compare=False)
    fn: Job = field(compare=False)
    args: tuple[Any, ...] = field(compare=False)
    kwargs: dict[str, Any] = field(compare=False)


class ClockJobs:
    """Date jobs keyed by id on one timer; stopped cleanly."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._heap: list[_Entry] = []
        self._current: dict[str, _Entry] = {}  # the live entry of each id
        self._handle: asyncio.TimerHandle | None = None
        self._armed_for: float | None = None  # the POSIX time the handle fires at
        self._running: set[asyncio.Task[None]] = set()
        self._seq = itertools.count()

    @property
    def running(self) -> bool:
        """Whether the jobs run (between ``start`` and ``stop``)."""
        return self._loop is not None

    def start(self) -> None:
        """Run the jobs on the running event loop."""
        self._loop = asyncio.get_running_loop()

    async def stop(self) -> None:
        """Drop every job and cancel those in flight (they end quietly, ``_quietly``)."""
        self._loop = None
        if self._handle is not None:
            self._handle.cancel()
        self._handle = self._armed_for = None
        self._heap.clear()
        self._current.clear()
        running = list(self._running)
        for task in running:
            task.cancel()
        if running:
            await asyncio.gather(*running, return_exceptions=True)

    def at(self, job_id: str, when: dt.datetime, fn: Job, *args: Any, **kwargs: Any) -> None:
        """Run ``fn(*args, **kwargs)`` at ``when`` (in place of the job ``job_id``), stoppable."""
        if self._loop is None:
            return
        entry = _Entry(when.timestamp(), next(self._seq), job_id, fn, args, kwargs)
        self._current[job_id] = entry
        heapq.heappush(self._heap, entry)
        if self._armed_for is None or entry.when < self._armed_for:
            self._arm()

    def cancel(self, *job_ids: str) -> None:
        """Remove these jobs, those that are scheduled (their heap entries are skipped)."""
        for job_id in job_ids:
            self._current.pop(job_id, None)

    def pending(self, job_id: str) -> dt.datetime | None:
        """When the job ``job_id`` runs, if one is scheduled."""
        entry = self._current.get(job_id)
        return None if entry is None else dt.datetime.fromtimestamp(entry.when, dt.UTC)

    def next_at(self, prefix: str, *, before: float) -> float | None:
        """The POSIX time of the earliest job whose id starts with ``prefix``, if before ``before``.

        Nothing is due before the timer's time: most asks are answered without a look at the
        jobs.
        """
        if self._armed_for is None or self._armed_for >= before:
            return None
        return min(
            (e.when for k, e in self._current.items() if k.startswith(prefix) and e.when < before),
            default=None,
        )

    def _arm(self) -> None:
        """Point the one timer handle at the earliest live entry."""
        assert self._loop is not None
        while self._heap and self._current.get(self._heap[0].job_id) is not self._heap[0]:
            heapq.heappop(self._heap)  # replaced or cancelled
        if self._handle is not None:
            self._handle.cancel()
        self._handle = self._armed_for = None
        if not self._heap:
            return
        first = self._heap[0].when
        delay = max(0.0, first - dt.datetime.now(dt.UTC).timestamp())
        self._handle = self._loop.call_at(self._loop.time() + delay, self._fire)
        self._armed_for = first

    def _fire(self) -> None:
        """Start every job due now, and those due within ``COALESCE_S`` with them.

        The loop's clock may run a hair ahead of the wall clock: nothing due yet, re-arm.
        """
        self._handle = self._armed_for = None
        if self._loop is None:
            return
        now = dt.datetime.now(dt.UTC).timestamp()
        first = self._heap[0].when if self._heap else now
        if first > now:  # woke a hair early: not yet
            self._arm()
            return
        while self._heap and self._heap[0].when <= now + COALESCE_S:
            entry = heapq.heappop(self._heap)
            if self._current.get(entry.job_id) is not entry:
                continue
            del self._current[entry.job_id]
            try:
                work = entry.fn(*entry.args, **entry.kwargs)
            except Exception:
                log.exception("clock job %s failed", entry.job_id)
                continue
            if work is None:
                continue
            task = self._loop.create_task(_quietly(work), name=entry.job_id)
            self._running.add(task)
            task.add_done_callback(self._ended)
        self._arm()

    def _ended(self, task: asyncio.Task[None]) -> None:
        self._running.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("clock job %s failed", task.get_name(), exc_info=task.exception())


async def _quietly(work: Coroutine[Any, Any, None]) -> None:
    """A job's coroutine, ending without an error when a stop cancels it mid-way.

    A status edit or a pass in flight at shutdown is cancelled by the stop, and that is no
    error (what was claimed and not posted, the adopter posts).
    """
    try:
        await work
    except asyncio.CancelledError:
        log.debug("clock job %s cancelled by the stop", getattr(work, "__name__", work))
