"""Heavy commands wait in the compute queue, not on a handler thread (issue 23).

More pre-flop equities than there are handler threads are held in the queue (the compute is
gated here, so they stay queued for as long as the test needs); a bystander's ``/rule`` and a
full-board ``/hand`` are still answered, and the crowd is answered once the queue moves.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import threading
import types
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import discord
import pytest

from bot.command.run import run_command
from bot.fair_queue import FairQueue, UserCooldown
from bot.reply import Reply
from bot.surfaces.discord import HANDLER_THREADS, LeagueBot, slash
from tests.fakediscord import FakeDiscord

pytestmark = pytest.mark.asyncio(loop_scope="module")

T = TypeVar("T")

PREFLOP = "As Ks vs Qh Qd"
CROWD_USER = 900_000_000_000_000_500  # + i: one user per five requests (the cooldown's rate)
BYSTANDER = 900_000_000_000_000_499


async def test_a_light_command_is_answered_while_more_heavy_ones_than_threads_are_queued(
    fake: FakeDiscord, bot: LeagueBot, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(bot, "heavy_cooldown", UserCooldown(rate=5, per=600.0))
    gate = asyncio.Event()
    queued: list[tuple[int | None, tuple[Any, ...]]] = []
    all_queued = asyncio.Event()
    crowd = HANDLER_THREADS + 6

    async def gated(fn: Callable[..., Reply], /, *args: Any, user_id: int | None = None) -> Reply:
        # Stands in for the worker processes: the job waits here until the test opens the gate.
        queued.append((user_id, args))
        if len(queued) == crowd:
            all_queued.set()
        await gate.wait()
        assert isinstance(fn, functools.partial)
        return Reply(title="Equity", text=f"for {user_id}: {args[0]}")

    monkeypatch.setattr(bot, "compute", gated)
    heavy = [
        await fake.interact("hand", {"cards": PREFLOP}, user_id=CROWD_USER + i // 5)
        for i in range(crowd)
    ]
    # Every one of them reached the queue: none holds a handler thread (there are fewer
    # threads than requests, so a handler waiting on its job would keep the rest out).
    async with asyncio.timeout(60):
        await all_queued.wait()
    assert sorted(u or 0 for u, _ in queued) == sorted(CROWD_USER + i // 5 for i in range(crowd))
    assert {args for _, args in queued} == {(PREFLOP, None)}

    rule = await fake.interact("rule", {"query": "oversized chip"}, user_id=BYSTANDER)
    hand = await fake.interact(
        "hand", {"cards": "As Ks vs Qh Qd", "board": "2c 7d 9h Jc 3s"}, user_id=BYSTANDER
    )
    rule_answer = await rule.settled(wait_s=30)
    hand_answer = await hand.settled(wait_s=30)
    assert "2.G.d.6" in rule_answer["embeds"][0]["title"]
    assert "Pair of Queens" in str(hand_answer["embeds"][0])
    # ... while the whole crowd is still waiting for its answers.
    assert not any(it.followups for it in heavy)
    assert all(it.callback is None or it.callback["type"] == 5 for it in heavy)

    gate.set()
    for i, it in enumerate(heavy):
        answer = await it.settled(wait_s=60)
        assert f"for {CROWD_USER + i // 5}: {PREFLOP}" in str(answer["embeds"][0])


async def test_a_bystanders_command_starts_before_a_crowd_users_second_and_third(
    fake: FakeDiscord, bot: LeagueBot, monkeypatch: pytest.MonkeyPatch
):
    # Four handler slots, two per user; every handler holds its slot until the test lets it go.
    bystander_queued = asyncio.Event()
    crowd_queued = asyncio.Event()
    queued: list[int] = []

    class Watched(FairQueue):
        async def run(self, user_id: int, job: Callable[[], Awaitable[T]]) -> T:
            queued.append(user_id)
            if user_id == BYSTANDER:
                bystander_queued.set()  # ``super().run`` queues it before the test resumes
            elif len(queued) == 18:
                crowd_queued.set()
            return await super().run(user_id, job)

    monkeypatch.setattr(bot.slash, "handlers", Watched(4, per_user=2))
    monkeypatch.setattr(bot, "heavy_cooldown", UserCooldown(rate=5, per=600.0))

    async def computed(
        fn: Callable[..., Reply], /, *args: Any, user_id: int | None = None
    ) -> Reply:
        return Reply(title="Equity", text=f"for {user_id}")

    monkeypatch.setattr(bot, "compute", computed)
    loop = asyncio.get_running_loop()
    started: list[int] = []  # the users whose handlers started, in order
    moved = asyncio.Event()
    held: list[threading.Event] = []
    let_all_go = threading.Event()

    def holding(command: Any, ctx: Any, values: Any) -> Any:
        gate = threading.Event()
        started.append(ctx.user_id)
        held.append(gate)
        loop.call_soon_threadsafe(moved.set)
        if not let_all_go.is_set():
            gate.wait(60)
        return run_command(command, ctx, values)

    monkeypatch.setattr(slash, "run_command", holding)

    async def starts(count: int) -> None:
        async with asyncio.timeout(30):
            while len(started) < count:
                moved.clear()
                if len(started) < count:
                    await moved.wait()

    crowd = [CROWD_USER + 100 + u for u in range(6)]
    heavy = [
        await fake.interact("hand", {"cards": PREFLOP}, user_id=u) for u in crowd for _ in range(3)
    ]
    await starts(4)
    # The slots are full, at most two a user (the gateway parses users' interactions in turns,
    # so which four depends on how the frames arrived: read together, each user's first).
    assert all(started.count(u) <= 2 for u in started)
    first_waiting = [u for u in crowd if u not in started]
    async with asyncio.timeout(30):  # all 18 read and handed to the handler threads' queue
        await crowd_queued.wait()
    rule = await fake.interact("rule", {"query": "oversized chip"}, user_id=BYSTANDER)
    async with asyncio.timeout(30):
        await bystander_queued.wait()
    assert bot.slash.handlers.waiting == 15  # behind the crowd's other 14
    assert len(started) == 4
    while BYSTANDER not in started:
        held[len(started) - 4].set()  # one slot frees: exactly one more handler starts
        await starts(len(started) + 1)
    between = started[4 : started.index(BYSTANDER)]
    # Only the users still waiting for their first command went before the bystander's one;
    # none of the crowd's second or third commands, though ten or more were queued ahead of it.
    assert sorted(between) == first_waiting
    let_all_go.set()
    for gate in held:
        gate.set()
    assert "2.G.d.6" in (await rule.settled(wait_s=30))["embeds"][0]["title"]
    for it in heavy:
        assert "Equity" in str((await it.settled(wait_s=30))["embeds"][0])


async def test_a_rule_search_needs_no_trip_to_the_event_loop_for_the_default_rulebooks(
    bot: LeagueBot,
):
    # The handler's thread reads the index while the event loop is held up (here: blocked
    # waiting for that very thread, as a loop busy with a crowd would keep it waiting).
    guild = 900_000_000_000_000_777
    assert bot.rule_home(guild) is None
    interaction: Any = types.SimpleNamespace(
        guild_id=guild,
        channel_id=1,
        user=types.SimpleNamespace(id=BYSTANDER, name="b", display_name="B"),
        permissions=discord.Permissions.none(),
    )
    ctx = bot.slash.context(interaction, is_director=False)
    reader = concurrent.futures.ThreadPoolExecutor(1)
    try:
        asked = reader.submit(ctx.rules)
        # The loop does not turn meanwhile: a handler that needed it would never answer.
        done, _ = concurrent.futures.wait([asked], timeout=30)
    finally:
        reader.shutdown(wait=False)
    assert done, "the handler's thread waited for the event loop"
    assert asked.result() is bot.rules
