"""Heavy work is shared fairly between users; a flood meets a cooldown."""

from __future__ import annotations

import asyncio
import contextvars

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


class Gated:
    """Jobs that run until the test lets them finish, recording the order they started in."""

    def __init__(self) -> None:
        self.started: list[tuple[int, int]] = []
        self.gates: dict[tuple[int, int], asyncio.Event] = {}

    def job(self, user: int, i: int):
        gate = self.gates.setdefault((user, i), asyncio.Event())

        async def work() -> tuple[int, int]:
            self.started.append((user, i))
            await gate.wait()
            return user, i

        return work

    async def finish(self, key: tuple[int, int]) -> None:
        """Let ``key``'s job finish, and the queue start whatever comes next."""
        self.gates[key].set()
        await settle()

    def running(self) -> list[tuple[int, int]]:
        return [k for k in self.started if not self.gates[k].is_set()]


async def settle() -> None:
    """Let every task that can move do so (no clock: a fixed number of loop turns)."""
    for _ in range(10):
        await asyncio.sleep(0)


async def test_a_bystanders_one_job_starts_before_a_crowd_users_second_to_fifth():
    # 40 users send 5 jobs each at once; 4 slots; then a bystander sends one.
    queue = FairQueue(slots=4)
    gated = Gated()
    crowd = [
        asyncio.ensure_future(queue.run(user, gated.job(user, i)))
        for user in range(40)
        for i in range(5)
    ]
    await settle()
    assert queue.running == 4
    assert queue.waiting == 196
    # Two of the users' first jobs finish; 38 users' first jobs are still to run.
    for key in gated.running()[:2]:
        await gated.finish(key)
    bystander = asyncio.ensure_future(queue.run(99, gated.job(99, 0)))
    await settle()
    already = len(gated.started)
    while (99, 0) not in gated.started:
        await gated.finish(gated.running()[0])
    await gated.finish((99, 0))
    assert await bystander == (99, 0)
    between = gated.started[already : gated.started.index((99, 0))]
    # Once it was queued, only first jobs started before it (the turn it joined): nobody's
    # second to fifth, though 160 of those were queued before it.
    assert between
    assert all(i == 0 for _, i in between)
    for gate in gated.gates.values():
        gate.set()
    await asyncio.gather(*crowd)
    # Each user's own jobs started in the order he sent them.
    for user in range(40):
        assert [i for u, i in gated.started if u == user] == list(range(5))


async def test_one_users_burst_takes_at_most_its_share_of_the_slots():
    queue = FairQueue(slots=8, per_user=2)
    gated = Gated()
    burst = [asyncio.ensure_future(queue.run(1, gated.job(1, i))) for i in range(10)]
    await settle()
    assert gated.started == [(1, 0), (1, 1)]  # two at once, the rest wait their turn
    other = asyncio.ensure_future(queue.run(2, gated.job(2, 0)))
    await settle()
    assert (2, 0) in gated.started  # a free slot: started at once
    await gated.finish((1, 0))
    assert gated.running() == [(1, 1), (2, 0), (1, 2)]  # the next of his, still two at once
    for gate in gated.gates.values():
        gate.set()
    await asyncio.gather(other, *burst)
    assert [i for u, i in gated.started if u == 1] == list(range(10))


async def test_a_user_whose_jobs_are_done_is_a_newcomer_again():
    queue = FairQueue(slots=1)
    gated = Gated()
    earlier = [asyncio.ensure_future(queue.run(1, gated.job(1, i))) for i in range(3)]
    await settle()
    for i in range(3):
        await gated.finish((1, i))
    await asyncio.gather(*earlier)
    # User 2 floods; user 1 comes back with one job: it starts next, not behind the flood
    # (his three earlier turns are forgotten).
    flood = [asyncio.ensure_future(queue.run(2, gated.job(2, i))) for i in range(5)]
    await settle()
    again = asyncio.ensure_future(queue.run(1, gated.job(1, 3)))
    await settle()
    await gated.finish((2, 0))
    await gated.finish((1, 3))
    await again
    assert gated.started[3:6] == [(2, 0), (1, 3), (2, 1)]
    for gate in gated.gates.values():
        gate.set()
    await asyncio.gather(*flood)


async def test_a_job_sees_its_callers_context_variables():
    queue = FairQueue(slots=1)
    who: contextvars.ContextVar[str] = contextvars.ContextVar("who", default="nobody")
    gate = asyncio.Event()

    async def blocker() -> str:
        await gate.wait()
        return who.get()

    async def read() -> str:
        return who.get()

    async def caller(name: str, job) -> str:
        who.set(name)
        return await queue.run(hash(name), job)

    first = asyncio.ensure_future(caller("alice", blocker))
    second = asyncio.ensure_future(caller("bob", read))  # started by alice's job's end
    await asyncio.sleep(0)
    gate.set()
    assert await first == "alice"
    assert await second == "bob"


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
