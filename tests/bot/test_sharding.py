"""Sharding: SHARD_COUNT shards in all, SHARD_IDS splitting them across processes."""

from __future__ import annotations

from pathlib import Path

import discord
import pytest
from pydantic import ValidationError

from bot.config import Settings
from bot.surfaces.discord import EXTENSIONS, LeagueBot
from storage.db import make_engine
from tests.fakediscord import GUILD_ID, FakeDiscord, start_bot, stop_bot

ON_SHARD_1 = GUILD_ID  # (GUILD_ID >> 22) % 2 == 1
ON_SHARD_0 = GUILD_ID + (1 << 22)


def test_shard_settings_are_checked_at_start_up():
    assert Settings(_env_file=None, shard_count=4, shard_ids=" 0, 2 ").shards == [0, 2]
    assert Settings(_env_file=None).shards is None
    with pytest.raises(ValidationError, match="SHARD_IDS needs SHARD_COUNT"):
        Settings(_env_file=None, shard_ids="0")
    with pytest.raises(ValidationError, match="SHARD_IDS go from 0 to SHARD_COUNT - 1"):
        Settings(_env_file=None, shard_count=2, shard_ids="0,2")
    with pytest.raises(ValidationError, match="shard numbers separated by commas"):
        Settings(_env_file=None, shard_count=2, shard_ids="one")


def shard_bot(fake: FakeDiscord, tmp_path: Path, shard: int) -> LeagueBot:
    url = f"sqlite:///{tmp_path / f'shard{shard}.db'}"
    return LeagueBot(
        fake.settings(database_url=url, shard_count=2, shard_ids=str(shard)),
        make_engine(url),
        extensions=EXTENSIONS,
        guild_ready_timeout=0.01,
    )


@pytest.mark.asyncio(loop_scope="function")
async def test_two_processes_each_run_one_of_two_shards_and_answer_their_guilds(tmp_path: Path):
    fake = FakeDiscord()
    await fake.start()
    zero, one = shard_bot(fake, tmp_path, 0), shard_bot(fake, tmp_path, 1)
    seen: dict[int, list[int | None]] = {0: [], 1: []}
    for shard, bot in ((0, zero), (1, one)):

        async def on_interaction(interaction: discord.Interaction, shard: int = shard) -> None:
            seen[shard].append(interaction.guild_id)

        bot.add_listener(on_interaction)
    try:
        await start_bot(fake, zero)
        await start_bot(fake, one)
        assert fake.identifies == 2
        assert sorted(s.shard for s in fake._sessions) == [(0, 2), (1, 2)]
        assert zero.shard_ids == [0]
        assert one.shard_ids == [1]
        for guild_id in (ON_SHARD_0, ON_SHARD_1):
            it = await fake.interact("rule", {"query": "oversized chip"}, guild_id=guild_id)
            body = await it.response()
            assert "2.G.d.6" in body["data"]["embeds"][0]["title"]
        assert seen == {0: [ON_SHARD_0], 1: [ON_SHARD_1]}  # each guild reached its shard only
    finally:
        await stop_bot(one)
        await stop_bot(zero)
        for bot in (zero, one):
            bot.engine.dispose()
        await fake.stop()
