"""Deferrals ("is thinking...") sent once per interaction, a queued heavy command's few at a time.

A command not answered after ``DEFER_AFTER_S`` defers, so that Discord has its acknowledgement
inside 3 s. A crowd's heavy commands (40 users sending 5 pre-flop equities at once) all wait for
the compute workers, so all 200 deferred together 0.8 s in: 200 requests at once took the event
loop and the HTTP connections for 0.3-0.5 s, and a bystander's reply waited behind them
(``benchmarks/bot.py --crowd``). A heavy command that has to wait for a worker is known to be
slow as soon as it queues, so it defers then, through a lane that sends ``AT_ONCE`` of those
deferrals at a time: they go out spread over the crowd's arrival instead of in one burst, and
another user's reply always finds the event loop and a connection free.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

AT_ONCE = 4
"""Queued heavy commands' deferrals in flight at once (each is one HTTP request: at ~10 ms
apiece on a loaded machine, 200 go out in about half a second, well inside Discord's 3 s)."""
LANE_WAIT_S = 0.5
"""The longest a deferral waits for the lane; then it goes at once (Discord's 3 s come first)."""


class Deferrals:
    """Each interaction's deferral, sent once; paced ones through a lane of ``at_once``.

    Args:
        at_once: paced deferrals in flight at once.
        lane_wait_s: the longest a paced deferral waits for its place before it goes anyway.
    """

    def __init__(self, at_once: int = AT_ONCE, lane_wait_s: float = LANE_WAIT_S) -> None:
        self._lane = asyncio.Semaphore(at_once)
        self._lane_wait_s = lane_wait_s
        self._pending: dict[int, asyncio.Task[None]] = {}
        self._sending: set[int] = set()  # ids whose request has started

    async def defer(
        self, interaction_id: int, send: Callable[[], Awaitable[Any]], *, paced: bool = False
    ) -> None:
        """Send ``send()`` (the deferral) for the interaction unless it is on its way already.

        One that has gone is forgotten: the caller asks the interaction whether it is answered.

        Args:
            interaction_id: the interaction.
            send: sends the deferral (``interaction.response.defer(...)``).
            paced: wait for a place in the lane first (a queued heavy command's deferral).
        """
        task = self._pending.get(interaction_id)
        if task is None:
            task = asyncio.ensure_future(self._send(interaction_id, send, paced))
            self._pending[interaction_id] = task
            task.add_done_callback(lambda _: self._forget(interaction_id))
        await asyncio.shield(task)

    def start(self, interaction_id: int, send: Callable[[], Awaitable[Any]]) -> None:
        """Queue a paced deferral without waiting for it (``settle`` before answering)."""
        if interaction_id not in self._pending:
            task = asyncio.ensure_future(self._send(interaction_id, send, True))
            self._pending[interaction_id] = task
            task.add_done_callback(lambda _: self._forget(interaction_id))

    async def settle(self, interaction_id: int) -> None:
        """Before answering: drop a deferral still waiting for the lane, or let it finish.

        Raises:
            Exception: whatever sending the deferral raised (Discord refused it).
        """
        task = self._pending.get(interaction_id)
        if task is None:
            return
        if interaction_id not in self._sending:
            task.cancel()  # the answer is ready first: it is the acknowledgement
            with contextlib.suppress(asyncio.CancelledError):
                await task
            return
        await asyncio.shield(task)

    async def _send(
        self, interaction_id: int, send: Callable[[], Awaitable[Any]], paced: bool
    ) -> None:
        if not paced:
            self._sending.add(interaction_id)
            await send()
            return
        try:
            async with asyncio.timeout(self._lane_wait_s):
                await self._lane.acquire()
        except TimeoutError:  # the lane is slow: the acknowledgement must not be late
            self._sending.add(interaction_id)
            await send()
            return
        try:
            self._sending.add(interaction_id)
            await send()
        finally:
            self._lane.release()

    def _forget(self, interaction_id: int) -> None:
        self._pending.pop(interaction_id, None)
        self._sending.discard(interaction_id)


__all__ = ["AT_ONCE", "Deferrals"]
