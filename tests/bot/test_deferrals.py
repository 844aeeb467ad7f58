"""Each interaction is deferred once; a queued heavy command's deferrals go a few at a time."""

from __future__ import annotations

import asyncio

import pytest

from bot.surfaces.discord.deferrals import Deferrals


async def test_queued_heavy_commands_defer_a_few_at_a_time_all_in_the_end():
    lane = Deferrals(at_once=3)
    in_flight: list[int] = []
    most = 0
    sent: list[int] = []
    gate = asyncio.Event()

    def sender(i: int):
        async def send() -> None:
            nonlocal most
            in_flight.append(i)
            most = max(most, len(in_flight))
            await gate.wait()
            in_flight.remove(i)
            sent.append(i)

        return send

    for i in range(20):
        lane.start(i, sender(i))
    for _ in range(5):
        await asyncio.sleep(0)
    assert len(in_flight) == 3  # the lane is full; the other 17 wait, sending nothing
    gate.set()
    async with asyncio.timeout(10):
        for i in range(20):
            if i not in sent:  # the runner asks ``interaction.response.is_done()`` first
                await lane.defer(i, sender(i))  # waits for the one under way
    assert sorted(sent) == list(range(20))
    assert most == 3


async def test_a_second_deferral_of_one_interaction_waits_for_the_first():
    lane = Deferrals(at_once=1)
    calls: list[str] = []

    async def send() -> None:
        calls.append("defer")
        await asyncio.sleep(0)

    lane.start(1, send)
    await lane.defer(1, send)  # the 0.8 s timer's deferral: the same request
    assert calls == ["defer"]


async def test_an_answer_ready_before_its_deferral_left_is_the_acknowledgement():
    lane = Deferrals(at_once=1)
    gate = asyncio.Event()
    calls: list[int] = []

    def sender(i: int):
        async def send() -> None:
            calls.append(i)
            await gate.wait()

        return send

    lane.start(1, sender(1))
    lane.start(2, sender(2))  # waits for the lane
    await asyncio.sleep(0)
    await lane.settle(2)  # its answer is ready: the deferral never goes
    gate.set()
    await lane.settle(1)
    assert calls == [1]


async def test_a_refused_deferral_reaches_whoever_answers():
    lane = Deferrals()

    async def refused() -> None:
        raise RuntimeError("Unknown interaction")

    lane.start(1, refused)
    await asyncio.sleep(0)
    with pytest.raises(RuntimeError, match="Unknown interaction"):
        await lane.settle(1)


async def test_a_deferral_that_waited_too_long_for_the_lane_goes_anyway():
    lane = Deferrals(at_once=1, lane_wait_s=0.0)
    gate = asyncio.Event()
    calls: list[int] = []

    def sender(i: int):
        async def send() -> None:
            calls.append(i)
            if i == 1:
                await gate.wait()

        return send

    lane.start(1, sender(1))  # holds the lane until the gate opens
    await asyncio.sleep(0)
    async with asyncio.timeout(10):
        await lane.defer(2, sender(2), paced=True)  # no patience: sent beside it
        assert calls == [1, 2]
        gate.set()
        await lane.settle(1)
