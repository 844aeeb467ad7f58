"""The clock service's timed jobs: one date job per clock and kind, on a scheduler of its own.

The jobs are derived from the stored clocks after every change (``ClockService``), so none is
kept anywhere but here: a restart rebuilds them. A job that a stop cancels mid-way ends quietly.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from apscheduler.schedulers.asyncio import AsyncIOScheduler

log = logging.getLogger(__name__)

Job = Callable[..., Coroutine[Any, Any, None]]


class ClockJobs:
    """An APScheduler of date jobs, each replacing the one of the same id; stopped cleanly."""

    def __init__(self) -> None:
        self._scheduler: Any = None

    @property
    def running(self) -> bool:
        """Whether the jobs run (between ``start`` and ``stop``)."""
        return self._scheduler is not None

    def start(self) -> None:
        """Start the scheduler on the running event loop."""
        self._scheduler = AsyncIOScheduler(
            timezone=dt.UTC,
            event_loop=asyncio.get_running_loop(),
            job_defaults={"misfire_grace_time": None, "coalesce": True, "max_instances": 4},
        )
        self._scheduler.start()

    async def stop(self) -> None:
        """Drop every job and stop the scheduler."""
        if self._scheduler is not None and self._scheduler.running:
            # Jobs handed to the executor but not started yet would be cancelled before their
            # first step, which APScheduler logs as an error: let them start (they end quietly
            # when cancelled, ``_quietly``), then cancel what is in flight.
            self._scheduler.remove_all_jobs()
            for _ in range(2):
                await asyncio.sleep(0)
            self._scheduler.shutdown(wait=False)
        self._scheduler = None

    def at(self, job_id: str, when: dt.datetime, fn: Job, *args: Any, **kwargs: Any) -> None:
        """Run ``fn(*args, **kwargs)`` at ``when`` (in place of the job ``job_id``), stoppable."""
        self._scheduler.add_job(
            _quietly,
            "date",
            run_date=when,
            args=[fn, *args],
            kwargs=kwargs,
            id=job_id,
            replace_existing=True,
        )

    def cancel(self, *job_ids: str) -> None:
        """Remove these jobs, those that are scheduled (none when the jobs do not run)."""
        if self._scheduler is None:
            return
        for job_id in job_ids:
            if self._scheduler.get_job(job_id) is not None:
                self._scheduler.remove_job(job_id)


async def _quietly(fn: Job, *args: Any, **kwargs: Any) -> None:
    """A scheduler job: ``fn``, ending without an error when a stop cancels it mid-way.

    A status edit or a pass in flight at shutdown is cancelled by the stop; APScheduler logs any
    exception of a job at ERROR, and this one is no error (what was claimed and not posted, the
    adopter re-posts).
    """
    try:
        await fn(*args, **kwargs)
    except asyncio.CancelledError:
        log.debug("clock job %s cancelled by the stop", getattr(fn, "__name__", fn))
