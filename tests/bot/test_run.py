"""``pokerfloor run`` as a real process, configured only by environment variables."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
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
