"""End to end: refused posts reach the league's directors once; /admin health lists them.

A channel of the fake refuses the bot's posts as Discord does (403/50013 Missing Permissions,
404/10003 Unknown Channel): the clock's announcements, a results post and a night's reminder.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from bot.features.night.discord import _league_nights
from bot.surfaces.discord import LeagueBot
from rulings import next_night
from storage import clocks
from storage.post_failures import PostFailureInfo, list_post_failures
from tests.fakediscord import CHANNEL_ID, GUILD_ID, MANAGE_GUILD, OWNER_ID, FakeDiscord

pytestmark = pytest.mark.asyncio(loop_scope="module")

BOSS_ID = 900_000_000_000_000_777
RESULTS = 900_000_000_000_000_250
FIX = f"give me View Channel and Send Messages in <#{CHANNEL_ID}>"


async def _as_director(fake: FakeDiscord, name: str, sub: list[str], options: dict[str, Any]):
    extra: dict[str, Any] = {}
    if "results_channel" in options:  # a channel option: Discord resolves it
        extra = {
            "option_types": {"results_channel": 7},
            "resolved": {
                "channels": {
                    str(RESULTS): {
                        "id": str(RESULTS),
                        "type": 0,
                        "name": "results",
                        "permissions": "0",
                        "guild_id": str(GUILD_ID),
                    }
                }
            },
        }
    it = await fake.interact(
        name, options, sub=sub, user_id=BOSS_ID, permissions=MANAGE_GUILD, **extra
    )
    return await it.settled()


async def _failures(bot: LeagueBot) -> list[PostFailureInfo]:
    return await bot.db.run(list_post_failures, guild_id=GUILD_ID, limit=50)


async def _until(check: Any, wait_s: float = 20.0) -> None:
    async with asyncio.timeout(wait_s):
        while not await check():  # noqa: ASYNC110 - the database is polled, nothing signals
            await asyncio.sleep(0.05)


def _texts(fake: FakeDiscord, channel_id: int) -> list[str]:
    return [m.get("content") or "" for m in fake.messages.get(channel_id, [])]


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def league(fake: FakeDiscord, bot: LeagueBot) -> AsyncIterator[None]:
    body = await _as_director(fake, "td", ["settings"], {"results_channel": str(RESULTS)})
    assert str(RESULTS) in str(body)
    await fake.wait_message(RESULTS)  # its public copy is posted after the answer
    yield


async def test_a_clock_in_a_channel_without_access_is_told_once_in_the_results_channel(
    fake: FakeDiscord, bot: LeagueBot, league: None
):
    posted_before = len(fake.messages.get(CHANNEL_ID, []))  # the module's other tests post there
    fake.refuse_posts(CHANNEL_ID, 403, 50013)
    try:
        body = await _as_director(
            fake, "clock", ["start"], {"structure": "bar-league", "level_minutes": 0.05}
        )
        assert "clock started" in str(body)

        async def several() -> bool:  # the status, level 1, then level 2 three seconds on
            return len([f for f in await _failures(bot) if f.kind == "clock"]) >= 3

        await _until(several)
        await asyncio.sleep(0.2)  # a notice being sent for the last one would show now
        notices = [t for t in _texts(fake, RESULTS) if "the clock's announcement" in t]
        assert len(notices) == 1
        assert FIX in notices[0]
        assert len(fake.messages.get(CHANNEL_ID, [])) == posted_before  # none got through
        told = [f for f in await _failures(bot) if f.kind == "clock" and f.told_at is not None]
        assert [f.told_how for f in told] == ["results"]
        clock_failures = [f for f in await _failures(bot) if f.kind == "clock"]
        assert {(f.channel_id, f.status, f.code) for f in clock_failures} == {
            (CHANNEL_ID, 403, 50013)
        }

        health = await (
            await fake.interact("admin", sub=["health"], user_id=OWNER_ID, permissions=MANAGE_GUILD)
        ).settled()
        (field,) = [f for f in health["embeds"][0]["fields"] if f["name"] == "Failed posts"]
        assert "Missing Permissions" in field["value"]
        assert FIX in field["value"]
        assert "told in the results channel" in field["value"]

        # The directors see the same list (the last three) with the league's settings.
        shown = await _as_director(fake, "td", ["settings"], {})
        (listed,) = [f for f in shown["embeds"][0]["fields"] if f["name"] == "Failed posts"]
        assert FIX in listed["value"]
        assert len(listed["value"].splitlines()) == 3
    finally:
        fake.allow_posts(CHANNEL_ID)
        await _as_director(fake, "clock", ["end"], {})
    assert await bot.db.run(clocks.list_running_clocks, guild_id=GUILD_ID) == []


async def test_a_refused_results_post_tells_the_director_the_fix_in_his_answer(
    fake: FakeDiscord, bot: LeagueBot, league: None
):
    fake.refuse_posts(RESULTS, 403, 50001)
    try:
        it = await fake.interact(
            "td",
            {"name": "Pub 9"},
            sub=["location", "add"],
            user_id=BOSS_ID,
            permissions=MANAGE_GUILD,
        )
        await it.settled()
        followup = await it.followup()
    finally:
        fake.allow_posts(RESULTS)
    assert followup["content"] == (
        f"Saved, but I could not post to the results channel: give me View Channel and Send "
        f"Messages in <#{RESULTS}>."
    )
    assert followup["flags"] & 64  # ephemeral
    results = [f for f in await _failures(bot) if f.kind == "results"]
    assert results  # the first write of a league may post more than once: told once
    assert {(f.channel_id, f.code) for f in results} == {(RESULTS, 50001)}
    assert [f.told_how for f in results if f.told_how is not None] == ["reply"], (
        results,
        await _failures(bot),
    )


async def test_a_reminder_to_a_deleted_channel_reaches_who_scheduled_the_night_by_dm(
    fake: FakeDiscord, bot: LeagueBot, league: None
):
    posted = len(fake.messages.get(RESULTS, []))
    await _as_director(fake, "td", ["location", "add"], {"name": "Pub 44"})
    await _as_director(
        fake,
        "td",
        ["night", "schedule"],
        {"location": "Pub 44", "weekday": "monday", "time": "19:00"},
    )
    await fake.wait_message(RESULTS, posted + 1)  # the location's public copy, before the refusal
    fake.refuse_posts(RESULTS, 404, 10003)
    cog: Any = bot.get_cog("NightCog")  # the extension's own module object (loaded apart)
    assert cog is not None
    (league_id, info), *_ = [
        (lid, i)
        for lid, i in await bot.db.run(_league_nights, guild_id=GUILD_ID)
        if i.series.location == "Pub 44"
    ]
    day = next_night(info.series, dt.datetime.now(dt.UTC).date())
    assert day is not None
    try:
        await cog.remind(GUILD_ID, league_id, info, day)
        await cog.remind(GUILD_ID, league_id, info, day)  # fails again: not told again
    finally:
        fake.allow_posts(RESULTS)
    dm = fake.dm_channels[BOSS_ID]
    (notice,) = _texts(fake, dm)
    assert f"the channel <#{RESULTS}> was deleted; pick another with /td settings" in notice
    reminders = [f for f in await _failures(bot) if f.kind == "reminder"]
    assert [f.told_how for f in reminders] == [None, "dm"]  # newest first


async def test_a_refused_status_edit_is_a_refusal_for_good(fake: FakeDiscord, bot: LeagueBot):
    """An edit Discord refuses (the bot lost access after posting) is told like a post."""
    from bot.features.clock.posting import ClockStatus, PostRejected
    from bot.reply import Reply
    from bot.surfaces.discord.clock import DiscordClockPoster

    poster = DiscordClockPoster(bot)
    status = ClockStatus(
        clock_id=99, reply=Reply(title="Clock", text="Level 1"), is_paused=False, is_ended=False
    )
    message_id = await poster.post_status(CHANNEL_ID, status)
    assert await poster.edit_status(CHANNEL_ID, message_id, status)
    fake.refuse_posts(CHANNEL_ID, 403, 50013)
    try:
        with pytest.raises(PostRejected, match="403"):
            await poster.edit_status(CHANNEL_ID, message_id, status)
    finally:
        fake.allow_posts(CHANNEL_ID)
