"""DaemonThreadPool: the work of a ThreadPoolExecutor, without holding the process up at exit."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
import time
from typing import Any

import pytest

from bot.thread_pool import DaemonThreadPool
from tests.bot.conftest import make_bot
from tests.fakediscord import FakeDiscord, start_bot, stop_bot


def test_runs_work_returns_results_and_errors_and_reuses_idle_threads():
    pool = DaemonThreadPool(4, thread_name_prefix="t")
    assert pool.submit(pow, 2, 10).result(5) == 1024
    with pytest.raises(ZeroDivisionError):
        pool.submit(lambda: 1 // 0).result(5)
    assert list(pool.map(abs, [-1, -2, -3])) == [1, 2, 3]
    names = {pool.submit(lambda: threading.current_thread().name).result(5) for _ in range(20)}
    assert names <= {"t_0", "t_1", "t_2", "t_3"}
    assert all(t.daemon for t in threading.enumerate() if t.name.startswith("t_"))
    pool.shutdown()
    with pytest.raises(RuntimeError, match="after shutdown"):
        pool.submit(abs, -1)


def test_never_more_threads_than_max_workers_and_waiting_work_runs_later():
    pool = DaemonThreadPool(2, thread_name_prefix="m")
    release = threading.Event()
    running = [pool.submit(release.wait, 5) for _ in range(2)]
    queued = pool.submit(lambda: "later")
    time.sleep(0.1)
    assert not queued.done()
    assert len([t for t in threading.enumerate() if t.name.startswith("m_")]) == 2
    release.set()
    assert queued.result(5) == "later"
    assert all(f.result(5) for f in running)
    pool.shutdown()


def test_shutdown_waits_only_the_grace_for_stuck_work_and_cancels_the_queue():
    pool = DaemonThreadPool(1, thread_name_prefix="g", grace_s=0.3)
    stuck = threading.Event()
    running = pool.submit(stuck.wait)
    queued = pool.submit(abs, -1)
    started = time.monotonic()
    pool.shutdown(wait=True, cancel_futures=True)
    assert time.monotonic() - started < 2
    assert queued.cancelled()
    assert not running.done()
    stuck.set()
    assert running.result(5) is True


def test_the_loops_default_executor_can_be_one():
    async def main() -> int:
        loop = asyncio.get_running_loop()
        loop.set_default_executor(DaemonThreadPool(2, thread_name_prefix="a"))
        return await asyncio.to_thread(abs, -7)

    assert asyncio.run(main()) == 7


def test_a_process_exits_at_once_with_a_thread_stuck_in_its_work():
    # asyncio.run waits for its default executor and the interpreter joins pool threads at
    # exit: with a ThreadPoolExecutor this process would never end.
    script = (
        "import asyncio, threading\n"
        "from bot.thread_pool import DaemonThreadPool\n"
        "async def main():\n"
        "    asyncio.get_running_loop().set_default_executor(DaemonThreadPool(2, grace_s=0.2))\n"
        "    asyncio.get_running_loop().run_in_executor(None, threading.Event().wait)\n"
        "    await asyncio.sleep(0.1)\n"
        "asyncio.run(main())\n"
        "print('done')\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout == "done\n"


@pytest.mark.asyncio(loop_scope="module")
async def test_closing_the_bot_stops_a_compute_worker_busy_with_a_job(fake: FakeDiscord, tmp_path):
    bot = make_bot(fake, f"sqlite:///{tmp_path / 'c.db'}")
    await start_bot(fake, bot, wait_s=60)
    job = asyncio.ensure_future(bot.compute(time.sleep, 60))
    workers: list[Any] = []
    for _ in range(1200):  # a spawned worker starts in seconds on a loaded machine
        await asyncio.sleep(0.05)
        workers = list((getattr(bot._compute, "_processes", None) or {}).values())
        if workers:
            break
    assert workers
    started = time.monotonic()
    await stop_bot(bot)
    for worker in workers:
        await asyncio.to_thread(worker.join, 10)
        assert not worker.is_alive()
    assert time.monotonic() - started < 10  # not the 60 s the job would take
    job.cancel()
    bot.engine.dispose()
