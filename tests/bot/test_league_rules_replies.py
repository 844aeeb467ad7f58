"""End to end: /hand and /stack answer with the server's own league rules and home rulebook.

A poker-pub league (no premium-hand points, a 4,000 stack, its own book) hears nothing of
BTown's points or sections; a server without a league gets the default preset's rules.
"""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from bot.config import Settings
from bot.surfaces.console import Console, ConsoleContext
from bot.surfaces.discord import LeagueBot
from storage.db import create_schema, make_engine, session_scope
from storage.leagues import ensure_league
from tests.fakediscord import GUILD_ID, FakeDiscord

pytestmark = pytest.mark.asyncio(loop_scope="module")

PUB_GUILD = GUILD_ID + 70
ROYAL = {"cards": "As Ks Qs Js Ts"}


def _embed_text(message: dict[str, Any]) -> str:
    embed = message["embeds"][0]
    parts = [embed.get("title") or "", embed.get("description") or ""]
    parts += [f"{f['name']} {f['value']}" for f in embed.get("fields") or []]
    parts.append((embed.get("footer") or {}).get("text") or "")
    return "\n".join(parts)


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def pub_league(bot: LeagueBot) -> AsyncIterator[None]:
    await bot.db.run(ensure_league, guild_id=PUB_GUILD, preset="poker-pub", actor="test")
    yield


async def test_hand_royal_flush_in_a_poker_pub_league_says_nothing_of_points(
    fake: FakeDiscord, bot: LeagueBot, pub_league: None
):
    it = await fake.interact("hand", ROYAL, guild_id=PUB_GUILD)
    text = _embed_text((await it.response())["data"])
    assert "Royal flush" in text
    assert "RP" not in text
    assert "BP" not in text
    assert "btown" not in text.lower()
    assert "poker-pub Additional information (hand rankings)" in text


async def test_hand_preflop_in_a_poker_pub_league_cites_its_book(
    fake: FakeDiscord, bot: LeagueBot, pub_league: None
):
    # The heavy path computes in a worker process: the league's rules travel with it.
    it = await fake.interact("hand", {"cards": "As Ks vs Qh Qd"}, guild_id=PUB_GUILD)
    text = _embed_text(await it.settled(wait_s=60))  # answered, or deferred and followed up
    assert "1,712,304" in text
    assert "btown" not in text.lower()
    assert "poker-pub Additional information (hand rankings)" in text


async def test_hand_royal_flush_without_a_league_uses_the_default_preset(
    fake: FakeDiscord, bot: LeagueBot
):
    it = await fake.interact("hand", ROYAL, guild_id=GUILD_ID + 71)
    text = _embed_text((await it.response())["data"])
    assert "200 RP + 100 BP" in text
    assert "btown-poker-league 6 (hand rankings)" in text


async def test_stack_in_a_poker_pub_league_is_its_4000_cited_from_its_book(
    fake: FakeDiscord, bot: LeagueBot, pub_league: None
):
    it = await fake.interact("stack", {"player": "Pat"}, guild_id=PUB_GUILD)
    text = _embed_text(await it.settled())
    assert "Starting stack for Pat: 4,000" in text
    assert "poker-pub Bar rules 3 (starting stack)" in text
    assert "2.C" not in text
    assert "btown" not in text.lower()


async def test_console_hand_and_stack_use_the_league_in_use(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path / 'league.db'}")
    create_schema(engine)
    with session_scope(engine) as session:
        ensure_league(session=session, preset="poker-pub", actor="test")
    console = Console(ConsoleContext(settings=Settings(_env_file=None), engine=engine))
    out, err = io.StringIO(), io.StringIO()
    lines = "/hand As Ks Qs Js Ts\n/stack player:Pat\n"
    code = console.run(io.StringIO(lines), out, err, interactive=False)
    engine.dispose()
    assert (code, err.getvalue()) == (0, "")
    text = out.getvalue()
    assert "Royal flush" in text
    assert "RP" not in text
    assert "Starting stack for Pat: 4,000" in text
    assert "poker-pub Bar rules 3 (starting stack)" in text
    assert "btown" not in text.lower()
