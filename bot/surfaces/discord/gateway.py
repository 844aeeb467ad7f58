"""The gateway's interactions taken in turns between users, and the loop kept responsive.

Discord delivers a shard's events in order on one connection. Read first come, first served, a
crowd's 200 interactions (40 users sending 5 heavy commands each at once) were all parsed and
dispatched before a bystander's one ``/rule`` sent just after them: ~0.5-1 ms of the event loop
each, 100-200 ms of the loop's time in all, 200-800 ms of wall time on a loaded machine, all of
it ahead of the bystander's own work (``benchmarks/bot.py --crowd``).

``InteractionLanes`` takes ``INTERACTION_CREATE``'s place among discord.py's parsers: reading a
frame only queues its interaction (the reader yields once every ``READ_AHEAD`` of them), and one
task parses the queued ones, one a turn of the event loop, so between two parses the loop runs
everything else that is ready (a reply, a timer, a heartbeat). Which one next:

* users take turns, booked as ``bot.fair_queue.FairQueue`` books jobs: a user with nothing
  queued joins the turn being parsed, else he takes his last booked turn plus one; so a
  newcomer never waits behind anyone's second, third, ... interaction, and a user's own
  interactions are parsed in the order he sent them;
* a user with more than one interaction queued (a crowd's user sends five at once) or with
  heavy work in flight (``is_heavy``: a compute job queued or running) waits until no other
  user's interaction is queued, or until his next has waited ``PATIENCE_S`` (Discord wants an
  acknowledgement within 3 s of sending it, and the deferral follows the parse at once); among
  such users, turns as above. So a bystander who sends one command while a crowd's are queued
  is parsed next, not after each crowd user's first.

Every other gateway event is read and handled in order, as discord.py does; the reader yields to
the event loop after each such frame (``_fair_received_message``), so a burst of them does not
hold the loop either. Only interactions are reordered, and only between users.
"""

from __future__ import annotations

import asyncio
import heapq
import logging
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import discord

log = logging.getLogger(__name__)

Parse = Callable[[Any], None]

READ_AHEAD = 50
"""Interactions the reader queues back to back before it yields to the event loop once (reading
one is a JSON decode, ~0.05 ms: a burst of 1,000 read in one go would hold the loop ~50 ms)."""
PATIENCE_S = 1.0
"""The longest a user with heavy work in flight waits for others' interactions to go first."""


def interaction_user(data: Any) -> int:
    """The id of the user who sent an ``INTERACTION_CREATE`` payload (0 when it names none).

    In a server the user is in ``member.user``; in a direct message, in ``user``.
    """
    member = data.get("member") or {}
    user = member.get("user") or data.get("user") or {}
    try:
        return int(user.get("id") or 0)
    except (TypeError, ValueError):
        return 0


class InteractionLanes:
    """Parses ``INTERACTION_CREATE`` payloads in turns between users, one a loop turn.

    Call it with a payload (as discord.py calls a parser): the payload is queued, and parsed
    with ``parse`` (discord.py's own parser) by a task of its own.

    Args:
        parse: the parser it stands in for.
        is_heavy: whether a user has heavy work in flight (his interactions go after others').
        patience_s: the longest a waiting user's interaction waits for others'.

    Attributes:
        parse: that parser (a benchmark may wrap it).
        received: how many payloads it has been given (the reader checks it to tell a frame it
            only queued from one it handled).
    """

    def __init__(
        self,
        parse: Parse,
        *,
        is_heavy: Callable[[int], bool] | None = None,
        patience_s: float = PATIENCE_S,
    ) -> None:
        self.parse = parse
        self.is_heavy = is_heavy
        self.patience_s = patience_s
        self.received = 0
        self.read_ahead = 0  # interactions the reader has queued since it last yielded
        # By user, in the order sent: (turn, order received, when received, payload).
        self._waiting: dict[int, deque[tuple[int, int, float, Any]]] = {}
        self._heads: list[tuple[int, int, int]] = []  # (turn, order, user) of each user's next
        self._later: list[tuple[int, int, int]] = []  # the same, for users who wait (see above)
        self._turns: dict[int, int] = {}  # a user's last booked turn, while he has any queued
        self._turn = 0  # the turn parsed last
        self._task: asyncio.Task[None] | None = None

    @property
    def waiting(self) -> int:
        """Interactions queued and not parsed yet."""
        return sum(len(q) for q in self._waiting.values())

    def __call__(self, data: Any) -> None:
        """Queue ``data`` (an ``INTERACTION_CREATE`` payload) in its user's lane."""
        user = interaction_user(data)
        current = self._heads[0][0] if self._heads else self._turn
        turn = max(current, self._turns.get(user, current - 1) + 1)
        self._turns[user] = turn
        self.received += 1
        queue = self._waiting.setdefault(user, deque())
        queue.append((turn, self.received, time.monotonic(), data))
        if len(queue) == 1:
            heapq.heappush(self._heads, (turn, self.received, user))
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._drain())

    def _waits(self, user: int) -> bool:
        """Whether the user's next interaction waits for other users' (see the module)."""
        return len(self._waiting[user]) > 1 or (self.is_heavy is not None and self.is_heavy(user))

    def _next(self) -> Any:
        """The next payload to parse (one is queued)."""
        later = self._later
        while self._heads and self._waits(self._heads[0][2]):
            heapq.heappush(later, heapq.heappop(self._heads))
        if later and (
            not self._heads
            or time.monotonic() - self._waiting[later[0][2]][0][2] >= self.patience_s
        ):
            _, _, user = heapq.heappop(later)
        else:
            _, _, user = heapq.heappop(self._heads)
        queue = self._waiting[user]
        turn, _, _, data = queue.popleft()
        if queue:
            heapq.heappush(self._heads, (queue[0][0], queue[0][1], user))
        else:
            del self._waiting[user]
            del self._turns[user]  # nothing left: his next interaction is a newcomer's
        self._turn = max(self._turn, turn)
        return data

    async def _drain(self) -> None:
        try:
            while self._heads or self._later:
                data = self._next()
                try:
                    self.parse(data)
                except Exception:  # one bad payload must not stop the others
                    log.exception("could not dispatch interaction %s", data.get("id"))
                # Whatever else is ready (another user's reply, a timer) runs before the next.
                await asyncio.sleep(0)
        finally:
            self._task = None

    def stop(self) -> None:
        """Drop what is queued and stop parsing (the bot is closing)."""
        self._waiting.clear()
        self._heads.clear()
        self._later.clear()
        self._turns.clear()
        if self._task is not None:
            self._task.cancel()
            self._task = None


def install_lanes(state: Any, is_heavy: Callable[[int], bool] | None = None) -> InteractionLanes:
    """Put ``InteractionLanes`` in ``INTERACTION_CREATE``'s place among ``state``'s parsers."""
    parsers: dict[str, Parse] = state.parsers
    current = parsers["INTERACTION_CREATE"]
    if isinstance(current, InteractionLanes):
        return current
    lanes = InteractionLanes(current, is_heavy=is_heavy)
    parsers["INTERACTION_CREATE"] = lanes
    return lanes


_received_message = discord.gateway.DiscordWebSocket.received_message


async def _fair_received_message(self: discord.gateway.DiscordWebSocket, msg: Any, /) -> None:
    lanes = self._discord_parsers.get("INTERACTION_CREATE")
    queued = lanes.received if isinstance(lanes, InteractionLanes) else -1
    await _received_message(self, msg)
    if isinstance(lanes, InteractionLanes):
        if lanes.received != queued and lanes.read_ahead < READ_AHEAD:
            lanes.read_ahead += 1
            return  # an interaction, only queued: read on, to reach every user's next one
        lanes.read_ahead = 0
    # discord.py reads buffered gateway frames back to back without yielding, so a burst of
    # 1,000 events handled in one go blocked the loop for ~250 ms. Yielding after each frame
    # lets acknowledgements and timers run in between.
    await asyncio.sleep(0)


def install_fair_gateway() -> None:
    """Make the gateway yield to the event loop after every frame it handles (idempotent)."""
    ws_class = discord.gateway.DiscordWebSocket
    if ws_class.received_message is not _fair_received_message:
        ws_class.received_message = _fair_received_message  # type: ignore[method-assign]


__all__ = [
    "PATIENCE_S",
    "READ_AHEAD",
    "InteractionLanes",
    "install_fair_gateway",
    "install_lanes",
    "interaction_user",
]
