"""Heavy work is shared fairly between users; a flood meets a cooldown."""

from __future__ import annotations

import asyncio

import pytest
from discord import app_commands

from bot.fair_queue import FairQueue, UserCooldown
from bot.surfaces.discord.tree import is_user_error, user_message


async def test_one_users_flood_does_not_delay_anothers_single_job():
    queue = FairQueue(slots=1)
    done: list[str] = []

    def job(name: str):
        async def work() -> str:
            await asyncio.sleep(0.005)
            done.append(name)
            return name

        return work

    flood = [asyncio.ensure_future(queue.run(1, job(f"a{i}"))) for i in range(50)]
    await asyncio.sleep(0)  # the flood is queued first
    single = asyncio.ensure_future(queue.run(2, job("b")))
    assert await single == "b"
    # At most one of the flooder's jobs ran before it besides the one already running.
    assert done.index("b") <= 2
    results = await asyncio.gather(*flood)
    assert results == [f"a{i}" for i in range(50)]  # each user's own jobs stay in order
    assert queue.waiting == 0


async def test_users_take_turns_and_errors_reach_their_caller():
    queue = FairQueue(slots=2)
    order: list[tuple[int, int]] = []

    def job(user: int, i: int):
        async def work() -> int:
            await asyncio.sleep(0.001)
            order.append((user, i))
            if (user, i) == (3, 0):
                raise ValueError("bad cards")
            return i

        return work

    calls = [queue.run(u, job(u, i)) for i in range(3) for u in (1, 2)]
    failing = asyncio.ensure_future(queue.run(3, job(3, 0)))
    results = await asyncio.gather(*calls)
    assert results == [0, 0, 1, 1, 2, 2]
    with pytest.raises(ValueError, match="bad cards"):
        await failing
    firsts = [u for u, _ in order[:3]]
    assert sorted(firsts) == [1, 2, 3]  # each user's first job before anyone's second


async def test_a_cancelled_caller_leaves_its_job_unrun():
    queue = FairQueue(slots=1)
    ran: list[int] = []

    def job(i: int):
        async def work() -> int:
            await asyncio.sleep(0.01)
            ran.append(i)
            return i

        return work

    first = asyncio.ensure_future(queue.run(1, job(1)))
    second = asyncio.ensure_future(queue.run(1, job(2)))
    await asyncio.sleep(0)
    second.cancel()
    assert await first == 1
    await asyncio.sleep(0.03)
    assert ran == [1]


def test_the_cooldown_says_when_to_try_again():
    cooldown = UserCooldown(rate=3, per=10.0)
    for _ in range(3):
        cooldown.check(7)
    with pytest.raises(app_commands.CommandOnCooldown) as caught:
        cooldown.check(7)
    assert is_user_error(caught.value)
    assert caught.value.retry_after >= 1.0
    assert user_message(caught.value).startswith("Slow down a little: try again in ")
    assert user_message(caught.value).endswith(" s.")
    cooldown.check(8)  # another user is not affected
