"""Work shared fairly between users: jobs start in turns between users; a cooldown.

Two things are shared this way. The compute workers (pre-flop equity) are few: one core fewer
than the machine has. With one first-come queue, a user who sends 500 equities delayed
another's single answer by 12 s; in turns, a newcomer waits for at most one job per worker
(a 9-player pre-flop equity takes ~0.1 s, heads up ~0.5 s) whatever others have queued. And
the handler threads: a crowd of 40 users sending 5 commands each at once queued 200 handlers
first-come, so a bystander's one command waited behind all of them; in turns it waits behind
the other users' first commands only, and one user's burst takes a few threads, never all.
A per-user cooldown refuses a flood of heavy commands before it queues.
"""

from __future__ import annotations

import asyncio
import contextvars
import heapq
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from discord import app_commands

log = logging.getLogger(__name__)

T = TypeVar("T")

# At most this many heavy commands per user in this many seconds (then "try again in N s").
HEAVY_RATE = 5
HEAVY_PER_S = 10.0


class FairQueue:
    """Runs jobs at most ``slots`` at a time, in turns between users.

    A job books a turn when it is queued: the turn being served for a user with nothing
    booked (a newcomer joins the current turn, not the end of the queue), else the user's last
    booked turn plus one. Jobs start in turn order; within a turn, the job of a user with
    fewer of his own jobs ahead of it (running or waiting) first, then the one queued first.
    So a user who sends one job waits for the jobs running and the other users' jobs of the
    current turn, never behind anyone's second, third, ... job; a user's own jobs start in the
    order he sent them; and a user's turns are forgotten once all his jobs are done.

    Args:
        slots: how many jobs run at once (the worker processes, or the handler threads).
        per_user: how many of one user's jobs run at once (None: up to ``slots``), so that one
            user's burst cannot take every slot while others wait.
    """

    def __init__(self, slots: int, *, per_user: int | None = None) -> None:
        self.slots = max(1, slots)
        self.per_user = self.slots if per_user is None else max(1, per_user)
        self._waiting: dict[int, deque[_Job]] = {}  # by user, in the order sent
        self._ready: list[tuple[tuple[int, int, int], int]] = []  # (head's key, user): may start
        self._running: dict[int, int] = {}  # by user
        self._started = 0  # jobs running, all users
        self._turns: dict[int, int] = {}  # a user's last booked turn, while he has jobs
        self._turn = 0  # the turn of the job started last
        self._seq = 0
        self._tasks: set[asyncio.Task[None]] = set()  # kept referenced until done

    @property
    def waiting(self) -> int:
        """Jobs queued and not started."""
        return sum(len(q) for q in self._waiting.values())

    @property
    def running(self) -> int:
        """Jobs started and not finished."""
        return self._started

    def has_jobs(self, user_id: int) -> bool:
        """Whether ``user_id`` has a job queued or running."""
        return user_id in self._turns

    async def run(self, user_id: int, job: Callable[[], Awaitable[T]]) -> T:
        """Queue ``job`` (an awaitable factory) for ``user_id`` and return its result."""
        queue = self._waiting.setdefault(user_id, deque())
        ahead = len(queue) + self._running.get(user_id, 0)
        # The turn being served: the next job's to start, else the last started job's.
        current = self._ready[0][0][0] if self._ready else self._turn
        turn = max(current, self._turns.get(user_id, current - 1) + 1)
        self._turns[user_id] = turn
        self._seq += 1
        if not queue and not self._ready and self._can_start(user_id):
            # Nobody waits and a slot is free: run it at once, in the caller's own task (no
            # task of its own, no extra turns of the event loop).
            del self._waiting[user_id]
            self._turn = turn
            self._started += 1
            self._running[user_id] = self._running.get(user_id, 0) + 1
            try:
                return await job()
            finally:
                self._release(user_id, started=True)
                self._pump()
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        queue.append(_Job((turn, ahead, self._seq), job, future, contextvars.copy_context()))
        if len(queue) == 1 and self._running.get(user_id, 0) < self.per_user:
            heapq.heappush(self._ready, (queue[0].key, user_id))
        self._pump()
        return await future

    def _can_start(self, user_id: int) -> bool:
        return self._started < self.slots and self._running.get(user_id, 0) < self.per_user

    def _pump(self) -> None:
        while self.running < self.slots and self._ready:
            _, user_id = heapq.heappop(self._ready)
            queue = self._waiting[user_id]
            item = queue.popleft()
            if not queue:
                del self._waiting[user_id]
            if item.future.done():  # the caller gave up (cancelled)
                self._release(user_id, started=False)
                continue
            self._turn = item.key[0]
            self._running[user_id] = self._running.get(user_id, 0) + 1
            self._started += 1
            if queue and self._running[user_id] < self.per_user:
                heapq.heappush(self._ready, (queue[0].key, user_id))
            # The job runs in its caller's context (its context variables), not the pump's.
            task = asyncio.get_running_loop().create_task(
                self._run(user_id, item), context=item.context
            )
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def _release(self, user_id: int, *, started: bool) -> None:
        """One of the user's jobs ended (or, not ``started``, was dropped unrun)."""
        if started:
            self._started -= 1
            self._running[user_id] -= 1
            if not self._running[user_id]:
                del self._running[user_id]
        queue = self._waiting.get(user_id)
        running = self._running.get(user_id, 0)
        if queue and (running == self.per_user - 1 if started else running < self.per_user):
            heapq.heappush(self._ready, (queue[0].key, user_id))
        if not queue and not running:
            self._turns.pop(user_id, None)  # nothing left: his next job is a newcomer's

    async def _run(self, user_id: int, item: _Job) -> None:
        try:
            result = await item.job()
        except BaseException as exc:  # handed to the caller, whatever it is
            if not item.future.done():
                item.future.set_exception(exc)
        else:
            if not item.future.done():
                item.future.set_result(result)
        finally:
            self._release(user_id, started=True)
            self._pump()


@dataclass(slots=True)
class _Job:
    key: tuple[int, int, int]  # (turn, the user's jobs ahead of it, order queued)
    job: Callable[[], Awaitable[Any]]
    future: asyncio.Future[Any]
    context: contextvars.Context


class UserCooldown:
    """At most ``rate`` heavy commands per user per ``per`` seconds.

    Args:
        rate: commands allowed in the window.
        per: the window, in seconds.
    """

    def __init__(self, rate: int = HEAVY_RATE, per: float = HEAVY_PER_S) -> None:
        self.rate = rate
        self.per = per
        self._buckets: dict[int, app_commands.Cooldown] = {}

    def check(self, user_id: int) -> None:
        """Count one command for ``user_id``.

        Raises:
            app_commands.CommandOnCooldown: too many; its message says "try again in N s".
        """
        if len(self._buckets) > 10_000:  # forget users whose window has passed
            self._buckets = {u: b for u, b in self._buckets.items() if b.get_tokens() < self.rate}
        bucket = self._buckets.setdefault(user_id, app_commands.Cooldown(self.rate, self.per))
        retry_after = bucket.update_rate_limit()
        if retry_after is not None:
            log.debug("user %s on heavy-command cooldown for %.1f s", user_id, retry_after)
            raise app_commands.CommandOnCooldown(bucket, max(1.0, retry_after))
