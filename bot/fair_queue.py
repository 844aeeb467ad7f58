"""Heavy work shared fairly between users: one queue per user, served in turns; a cooldown.

The compute workers (pre-flop equity) are few: one core fewer than the machine has. With one
first-come queue, a user who sends 500 equities delayed another's single answer by 12 s. Here
each user has a queue of their own and the workers take one job from each user in turn, so a
newcomer waits for at most one job per worker (a 9-player pre-flop equity takes ~0.1 s, heads
up ~0.5 s) whatever others have queued. A per-user cooldown refuses a flood before it queues.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from discord import app_commands

log = logging.getLogger(__name__)

T = TypeVar("T")

# At most this many heavy commands per user in this many seconds (then "try again in N s").
HEAVY_RATE = 5
HEAVY_PER_S = 10.0


class FairQueue:
    """Runs jobs at most ``slots`` at a time, taking one job from each waiting user in turn.

    Args:
        slots: how many jobs run at once (the worker processes).
    """

    def __init__(self, slots: int) -> None:
        self.slots = max(1, slots)
        self._queues: dict[
            int, deque[tuple[Callable[[], Awaitable[Any]], asyncio.Future[Any]]]
        ] = {}
        self._turns: deque[int] = deque()  # users with waiting jobs, in serving order
        self._running = 0
        self._tasks: set[asyncio.Task[None]] = set()  # kept referenced until done

    @property
    def waiting(self) -> int:
        """Jobs queued and not started."""
        return sum(len(q) for q in self._queues.values())

    async def run(self, user_id: int, job: Callable[[], Awaitable[T]]) -> T:
        """Queue ``job`` (an awaitable factory) for ``user_id`` and return its result."""
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        queue = self._queues.setdefault(user_id, deque())
        if not queue:
            self._turns.append(user_id)
        queue.append((job, future))
        self._pump()
        return await future

    def _pump(self) -> None:
        while self._running < self.slots and self._turns:
            user_id = self._turns.popleft()
            queue = self._queues[user_id]
            job, future = queue.popleft()
            if queue:
                self._turns.append(user_id)  # the user's next job waits for everyone's turn
            else:
                del self._queues[user_id]
            if future.done():  # the caller gave up (cancelled)
                continue
            self._running += 1
            task = asyncio.ensure_future(self._run(job, future))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _run(self, job: Callable[[], Awaitable[Any]], future: asyncio.Future[Any]) -> None:
        try:
            result = await job()
        except BaseException as exc:  # handed to the caller, whatever it is
            if not future.done():
                future.set_exception(exc)
        else:
            if not future.done():
                future.set_result(result)
        finally:
            self._running -= 1
            self._pump()


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
