"""The gaps between the timer's announcements: where the clock's other work goes.

Every post of a due announcement runs on the event loop. Two kinds of work stall it without
being on it: a database call runs its Python (SQLAlchemy) in a worker thread, which holds the
interpreter lock beside the loop (the loop waits up to a switch interval, 5 ms, each time it
takes the lock back after a socket call), and a full garbage collection stops every thread
(100-400 ms over a benchmark's heap under load, in ``benchmarks/clock.py``). So:

* the bookkeeping (the heartbeat, the claims ahead, the status messages' reads and writes;
  not the change polls' one small read, which bounds a director's action through another
  instance) waits, a bounded moment, until no announcement is being posted or due
  within ``CLEAR_AHEAD_S`` (``clear_of_announcements``), and so does each status edit, with
  ``STATUS_EDITS_AT_ONCE`` in flight at most;
* a full collection the collector is about to make anyway is made right after a batch has
  posted, when the next announcement is at least ``GC_GAP_S`` away (``collect_in_gap``),
  rather than whenever an allocation (most of them in a batch's posts) happens to trigger it.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Callable

from bot.features.clock.jobs import ClockJobs

CLEAR_AHEAD_S = 0.25
"""Bookkeeping does not start this close before a due announcement."""
CLEAR_MOST_S = 0.5
"""Nor does it wait more than this for a gap (the lease and the polls bound it as well)."""
GC_GAP_S = 1.0
"""A full collection is brought forward only when nothing is due sooner than this."""
STATUS_EDITS_AT_ONCE = 8
"""Status edits in flight at once: 200 due together trickle, each starting in a gap, so that an
announcement due meanwhile finds few beside it."""
ANNOUNCEMENTS = "clock:"
"""The id prefix of the announcements' jobs (``ClockEngine._reschedule``)."""


async def clear_of_announcements(
    jobs: ClockJobs, announcing: Callable[[], bool], quiet: asyncio.Event, most: float
) -> None:
    """Return once no announcement is being posted or due soon, or after ``most`` seconds.

    Args:
        jobs: the timer (the next announcement's time).
        announcing: whether a batch is released or being posted now.
        quiet: set when no announcement pass is posting.
        most: the longest wait.
    """
    deadline = time.monotonic() + most
    while (left := deadline - time.monotonic()) > 0:
        if announcing():
            try:
                await asyncio.wait_for(quiet.wait(), left)
            except TimeoutError:
                return
            await asyncio.sleep(0)  # a batch released in the same tick starts first
            continue
        now = time.time()
        due = jobs.next_at(ANNOUNCEMENTS, before=now + CLEAR_AHEAD_S)
        if due is None:
            return
        await asyncio.sleep(min(left, max(due - now, 0.0) + 0.005))


def collect_in_gap(jobs: ClockJobs) -> bool:
    """Make a full collection now if one is near and nothing is due within ``GC_GAP_S``.

    The collector makes a full collection once the middle generation has been collected
    ``threshold[2]`` times (and enough objects piled up); this one is made when half of those
    have passed. Returns whether it collected.
    """
    if not gc.isenabled() or gc.get_count()[2] < max(1, gc.get_threshold()[2] // 2):
        return False
    if jobs.next_at(ANNOUNCEMENTS, before=time.time() + GC_GAP_S) is not None:
        return False
    gc.collect()
    return True
