"""The clock's one timer (``bot.features.clock.jobs``) and the batches it hands the service.

Real time, short waits; no assertion on how long anything took: only on what started together,
what never started early, and what did not wait for what.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path

from bot.database import Database
from bot.features.clock.jobs import COALESCE_S, ClockJobs
from bot.features.clock.service import ClockService
from rulings import Announcement
from tests.bot.test_clock_ahead import file_engine, until_posted
from tests.bot.test_clock_service import CHANNEL, Poster


def utc_in(seconds: float) -> dt.datetime:
    return dt.datetime.now(dt.UTC) + dt.timedelta(seconds=seconds)


async def test_jobs_due_within_the_coalescing_window_start_in_the_same_callback():
    jobs = ClockJobs()
    jobs.start()
    order: list[str] = []
    ran = asyncio.Event()
    loop = asyncio.get_running_loop()

    def first() -> None:
        order.append("first")
        loop.call_soon(order.append, "after the first's callback")

    def second() -> None:
        order.append("second")
        ran.set()

    try:
        jobs.at("a", utc_in(0.05), first)
        jobs.at("b", utc_in(0.05 + COALESCE_S / 2), second)
        await asyncio.wait_for(ran.wait(), 5)
        await asyncio.sleep(0)
        assert order == ["first", "second", "after the first's callback"]
    finally:
        await jobs.stop()


async def test_a_job_never_starts_before_its_time_unless_one_due_starts():
    jobs = ClockJobs()
    jobs.start()
    started: list[tuple[str, float, float]] = []  # job, its time, when it started (POSIX)
    done = asyncio.Event()

    def job(name: str, when: dt.datetime) -> None:
        started.append((name, when.timestamp(), dt.datetime.now(dt.UTC).timestamp()))
        if len(started) == 2:
            done.set()

    try:
        alone, later = utc_in(0.05), utc_in(0.05 + 4 * COALESCE_S)
        jobs.at("alone", alone, job, "alone", alone)
        jobs.at("later", later, job, "later", later)
        await asyncio.wait_for(done.wait(), 5)
        assert [name for name, *_ in started] == ["alone", "later"]
        assert all(at >= when for _, when, at in started)  # each on its own firing, not early
    finally:
        await jobs.stop()


async def test_a_coroutine_job_runs_in_a_task_and_a_stop_cancels_it_quietly(caplog):
    jobs = ClockJobs()
    jobs.start()
    entered = asyncio.Event()

    async def slow() -> None:
        entered.set()
        await asyncio.sleep(60)

    jobs.at("slow", utc_in(0.01), slow)
    await asyncio.wait_for(entered.wait(), 5)
    await jobs.stop()
    assert not [r for r in caplog.records if r.levelname == "ERROR"]


@dataclass
class HeldPoster(Poster):
    """Holds one channel's level 2 until ``release`` is set."""

    held_channel: int = CHANNEL
    release: asyncio.Event = field(default_factory=asyncio.Event)
    holding: asyncio.Event = field(default_factory=asyncio.Event)

    async def announce(
        self,
        channel_id: int,
        announcement: Announcement,
        ping_role_id: int | None,
        *,
        nonce: str | None = None,
    ) -> None:
        if channel_id == self.held_channel and announcement.text.startswith("Level 2"):
            self.holding.set()
            await self.release.wait()
        await super().announce(channel_id, announcement, ping_role_id, nonce=nonce)


async def test_a_clock_due_while_another_batch_is_posting_is_posted_without_waiting_for_it(
    tmp_path: Path,
):
    engine = file_engine(tmp_path / "clock.db")
    poster = HeldPoster()
    service = ClockService(Database(engine), poster, status_interval=600, warning_seconds=())
    await service.start()
    try:
        for channel in (CHANNEL, CHANNEL + 1):  # level 2 of the second falls due 1 s later
            await service.start_clock(
                guild_id=1,
                channel_id=channel,
                structure="bar-league",
                created_by=9,
                level_minutes=0.05,
            )
            await asyncio.sleep(1.0)
        await asyncio.wait_for(poster.holding.wait(), 15)  # the first clock's level 2 hangs
        await until_posted(poster, "Level 2")  # the second's goes out meanwhile
        assert [c for c, text, *_ in poster.posts if text.startswith("Level 2")] == [CHANNEL + 1]
        poster.release.set()
        for _ in range(100):
            if len([t for t in poster.texts() if t.startswith("Level 2")]) == 2:
                break
            await asyncio.sleep(0.05)
        levels = [(c, text.split(":")[0]) for c, text, *_ in poster.posts]
        for channel in (CHANNEL, CHANNEL + 1):  # each once and in order
            mine = [level for c, level in levels if c == channel]
            assert mine[:2] == ["Level 1", "Level 2"]
            assert len(mine) == len(set(mine))
    finally:
        await service.stop()
