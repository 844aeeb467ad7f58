"""``/td settings clock_tts on``: level and break announcements go out as text-to-speech.

The real discord.py client and clock cog against the fake Discord (levels of three seconds);
the message bodies the bot sends are checked for Discord's ``tts`` flag.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from storage.db import session_scope
from storage.guild_settings import update_guild_settings
from tests.bot.test_clock_e2e import announcements, clock, make_clock_bot, wait_for
from tests.fakediscord import GUILD_ID, FakeDiscord, start_bot, stop_bot

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_clock_tts_reads_levels_aloud_and_nothing_else(fake: FakeDiscord, tmp_path: Path):
    db_url = f"sqlite:///{tmp_path / 'tts.db'}"
    bot = make_clock_bot(fake, db_url)
    await start_bot(fake, bot, wait_s=60)
    try:
        with session_scope(bot.engine) as session:
            update_guild_settings(session=session, guild_id=GUILD_ID, actor="test", clock_tts=True)
        start = len(announcements(fake))
        await clock(fake, "start", {"structure": "bar-league", "level_minutes": 0.05})
        level1 = await wait_for(fake, "Level 1: blinds 1/2", after=start)
        assert level1.body.get("tts") is True
        level2 = await wait_for(fake, "Level 2: blinds 2/4", after=start)
        assert level2.body.get("tts") is True
        paused = len(announcements(fake))
        await clock(fake, "pause")
        notice = await wait_for(fake, "The clock is paused", after=paused)
        assert not notice.body.get("tts")  # a director's notice is not read aloud
        with session_scope(bot.engine) as session:
            update_guild_settings(session=session, guild_id=GUILD_ID, actor="test", clock_tts=False)
        resumed = len(announcements(fake))
        await clock(fake, "resume")
        later = await wait_for(fake, ": blinds", after=resumed)  # the next level, once off
        assert later.body["content"].startswith("Level ")
        assert not later.body.get("tts")
        await clock(fake, "end")
    finally:
        await stop_bot(bot)
        bot.engine.dispose()
        await asyncio.sleep(0)
