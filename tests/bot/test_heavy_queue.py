"""Heavy commands wait in the compute queue, not on a handler thread (issue 23).

More pre-flop equities than there are handler threads are held in the queue (the compute is
gated here, so they stay queued for as long as the test needs); a bystander's ``/rule`` and a
full-board ``/hand`` are still answered, and the crowd is answered once the queue moves.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from typing import Any

import pytest

from bot.fair_queue import UserCooldown
from bot.reply import Reply
from bot.surfaces.discord import HANDLER_THREADS, LeagueBot
from tests.fakediscord import FakeDiscord

pytestmark = pytest.mark.asyncio(loop_scope="module")

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
