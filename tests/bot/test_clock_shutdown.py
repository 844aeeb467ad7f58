"""End to end: a bot stopped while its clock's status edit is in flight logs no error."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

from tests.bot.conftest import make_bot
from tests.fakediscord import (
    CHANNEL_ID,
    MANAGE_GUILD,
    FakeDiscord,
    RecordedRequest,
    start_bot,
    stop_bot,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

BOSS_ID = 900_000_000_000_000_778


async def test_a_stop_mid_status_edit_logs_no_error(
    fake: FakeDiscord, tmp_path: Path, caplog: pytest.LogCaptureFixture
):
    caplog.set_level(logging.INFO)
    caplog.set_level(logging.DEBUG, logger="bot.features.clock")
    bot = make_bot(fake, f"sqlite:///{tmp_path / 'shutdown.db'}")
    await start_bot(fake, bot)
    release = asyncio.Event()
    editing = asyncio.Event()

    async def hold_edits(rec: RecordedRequest) -> None:
        if rec.method == "PATCH" and rec.path.startswith(f"/channels/{CHANNEL_ID}/messages/"):
            editing.set()
            await release.wait()  # the edit stays in flight until the test lets it go

    try:
        cog: Any = bot.get_cog("ClockCog")
        cog.service.status_interval = 0.1  # a status edit every 0.1 s, run by the scheduler
        it = await fake.interact(
            "clock",
            {"structure": "bar-league", "level_minutes": 0.05},
            sub=["start"],
            user_id=BOSS_ID,
            permissions=MANAGE_GUILD,
        )
        assert "clock started" in str(await it.settled())
        fake.hooks.append(hold_edits)
        async with asyncio.timeout(20):
            await editing.wait()
        caplog.clear()
        await stop_bot(bot)
    finally:
        release.set()
        if hold_edits in fake.hooks:
            fake.hooks.remove(hold_edits)
        bot.engine.dispose()
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == [], [r.getMessage() for r in errors]
    quiet = [r for r in caplog.records if "cancelled by the stop" in r.getMessage()]
    assert quiet  # the edit was in flight, and it was cancelled
