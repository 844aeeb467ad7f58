"""``pokerfloor run`` as a real process, configured only by environment variables."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import sys
import time
from pathlib import Path

import pytest

from tests.fakediscord import FakeDiscord

pytestmark = pytest.mark.asyncio(loop_scope="function")


async def test_pokerfloor_run_connects_through_the_configured_endpoints(tmp_path: Path):
    fake = FakeDiscord()
    await fake.start()
    env = {
        **os.environ,
        "DISCORD_TOKEN": "fake-token",
        "DISCORD_API_BASE": fake.api_base,
        "DISCORD_GATEWAY_URL": fake.gateway_url,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'run.db'}",
    }
    env.pop("DISCORD_GUILD_ID", None)
    log_file = (tmp_path / "run.log").open("wb")
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "run",
        env=env,
        cwd=tmp_path,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=log_file,
    )
    try:
        async with asyncio.timeout(60):
            await fake.ready.wait()
        assert fake.identifies == 1
        assert fake.commands["global"]  # synced at start-up through DISCORD_API_BASE
        it = await fake.interact("rule", {"query": "odd chip"})
        body = await it.response(wait_s=30)
        assert body["type"] == 4
        assert body["data"]["allowed_mentions"] == {"parse": []}
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGINT)
            try:
                await asyncio.wait_for(proc.wait(), 15)
            except TimeoutError:
                proc.kill()
                await proc.wait()
        await fake.stop()
        log_file.close()
    assert proc.returncode in (0, -signal.SIGINT)


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
async def test_a_stop_does_not_wait_for_a_database_call_stuck_behind_a_lock(
    tmp_path: Path, stop: signal.Signals
):
    # Another process holds the SQLite database: whatever the bot asks of it waits up to 40 s
    # (busy timeout, then retries). A stop must not wait that long (SIGINT in a terminal,
    # SIGTERM from systemd or docker, whose stop timeouts are 90 s and 10 s).
    fake = FakeDiscord()
    await fake.start()
    db = tmp_path / "run.db"
    env = {
        **os.environ,
        "DISCORD_TOKEN": "fake-token",
        "DISCORD_API_BASE": fake.api_base,
        "DISCORD_GATEWAY_URL": fake.gateway_url,
        "DATABASE_URL": f"sqlite:///{db}",
    }
    env.pop("DISCORD_GUILD_ID", None)
    log_file = (tmp_path / "run.log").open("wb")
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "run",
        env=env, cwd=tmp_path, stdout=asyncio.subprocess.DEVNULL, stderr=log_file,
    )  # fmt: skip
    lock = sqlite3.connect(db, isolation_level=None)
    try:
        async with asyncio.timeout(60):
            await fake.ready.wait()
        lock.execute("BEGIN EXCLUSIVE")
        await asyncio.sleep(1.0)  # the clock service's next poll now waits for the lock
        stopped_at = time.monotonic()
        proc.send_signal(stop)
        try:
            await asyncio.wait_for(proc.wait(), 15)
        except TimeoutError:
            proc.kill()
            await proc.wait()
        took = time.monotonic() - stopped_at
    finally:
        lock.close()
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        await fake.stop()
        log_file.close()
    log = (tmp_path / "run.log").read_text()
    assert proc.returncode == 0, log[-2000:]
    assert took < 15, log[-2000:]
    assert "not released within 3 s (database busy)" in log
