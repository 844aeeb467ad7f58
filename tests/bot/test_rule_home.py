"""End to end: a league's own book ranks first (`/td settings rulebook`, then `/rule`).

Each test owns its server (``guild``: nothing set; ``home``: Poker Pub is its book).
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
import pytest_asyncio
from sqlalchemy import func, select
from sqlmodel import Session

from bot.surfaces.discord import LeagueBot
from storage.guild_settings import get_guild_settings, update_guild_settings
from storage.league_models import AuditEntry
from tests.bot.conftest import make_bot
from tests.fakediscord import EPHEMERAL, GUILD_ID, MANAGE_GUILD, FakeDiscord

pytestmark = pytest.mark.asyncio(loop_scope="module")

BOSS_ID = 900_000_000_000_000_402
_GUILDS = itertools.count(GUILD_ID + 8_000)


@pytest.fixture
def guild() -> int:
    """A server of this test's own, with nothing set."""
    return next(_GUILDS)


@pytest_asyncio.fixture(loop_scope="module")
async def home(bot: LeagueBot) -> int:
    """A server of this test's own whose home rulebook is Poker Pub's."""
    guild_id = next(_GUILDS)
    await bot.db.run(update_guild_settings, guild_id=guild_id, actor="test", rulebook="poker-pub")
    await bot.set_rule_home(guild_id, "poker-pub")
    return guild_id


def _flags(body: dict[str, Any]) -> int:
    return int(body.get("flags") or 0)


def _embed(body: dict[str, Any]) -> dict[str, Any]:
    embed: dict[str, Any] = body["embeds"][0]
    return embed


def _text(body: dict[str, Any]) -> str:
    embed = _embed(body)
    fields = "\n".join(f"{f['name']}\n{f['value']}" for f in embed.get("fields") or [])
    return "\n".join([embed.get("title") or "", embed.get("description") or "", fields])


async def settings(
    fake: FakeDiscord, guild: int, options: dict[str, Any], **kw: Any
) -> dict[str, Any]:
    """Run `/td settings` as the server manager (or as ``kw``'s member) and return the reply."""
    kw.setdefault("guild_id", guild)
    kw.setdefault("user_id", BOSS_ID)
    kw.setdefault("username", "owner")
    kw.setdefault("permissions", MANAGE_GUILD)
    it = await fake.interact("td", options, sub=["settings"], **kw)
    return await it.settled()


async def rule(fake: FakeDiscord, guild: int, query: str, **kw: Any) -> dict[str, Any]:
    it = await fake.interact("rule", {"query": query}, guild_id=guild, **kw)
    body = await it.response()
    assert body["type"] == 4  # answered at once: no home index is built during a query
    data: dict[str, Any] = body["data"]
    return data


async def _audit_count(bot: LeagueBot) -> int:
    def count(*, session: Session) -> int:
        return int(session.execute(select(func.count()).select_from(AuditEntry)).scalar_one())

    return await bot.db.run(count)


async def test_without_a_setting_the_btown_book_answers_first(
    fake: FakeDiscord, bot: LeagueBot, guild: int
):
    data = await rule(fake, guild, "blinds")
    assert _embed(data)["title"].startswith("BTown")
    assert bot.rule_home(guild) is None


async def test_rulebook_option_autocompletes_the_loaded_books(
    fake: FakeDiscord, bot: LeagueBot, guild: int
):
    it = await fake.interact(
        "td",
        {"rulebook": "pub"},
        sub=["settings"],
        focused="rulebook",
        guild_id=guild,
        user_id=BOSS_ID,
        permissions=MANAGE_GUILD,
    )
    choices = (await it.response())["data"]["choices"]
    assert [c["value"] for c in choices] == ["poker-pub"]


async def test_a_player_cannot_change_the_rulebook(fake: FakeDiscord, bot: LeagueBot, guild: int):
    before = await _audit_count(bot)
    refused = await settings(fake, guild, {"rulebook": "poker-pub"}, user_id=1234, permissions=0)
    assert _flags(refused) & EPHEMERAL
    assert "Only the league's directors" in _text(refused)
    assert (await bot.db.run(get_guild_settings, guild_id=guild)).rulebook is None
    assert await _audit_count(bot) == before
    assert bot.rule_home(guild) is None


async def test_an_unknown_book_is_refused_privately_and_nothing_is_written(
    fake: FakeDiscord, bot: LeagueBot, guild: int
):
    before = await _audit_count(bot)
    refused = await settings(fake, guild, {"rulebook": "**nope** @everyone"})
    assert _flags(refused) & EPHEMERAL
    text = _text(refused)
    assert "There is no rulebook called" in text
    assert "poker-pub" in text  # the books it could be
    assert "@everyone" not in text  # echoed defused
    assert (await bot.db.run(get_guild_settings, guild_id=guild)).rulebook is None
    assert await _audit_count(bot) == before


async def test_setting_poker_pub_makes_rule_answer_from_it_first(
    fake: FakeDiscord, bot: LeagueBot, guild: int
):
    confirm = await settings(
        fake, guild, {"rulebook": "Poker-Pub"}
    )  # any case: the index's spelling
    assert _flags(confirm) & EPHEMERAL
    text = _text(confirm)
    assert "Rulebook (changed)" in text
    assert "poker-pub" in text
    assert (await bot.db.run(get_guild_settings, guild_id=guild)).rulebook == "poker-pub"
    assert bot.rule_home(guild) == "poker-pub"

    data = await rule(fake, guild, "blinds")
    embed = _embed(data)
    assert embed["title"].startswith("Poker Pub")
    assert "poker-pub" in embed["description"]  # the citation names the home book
    others = next(f for f in embed["fields"] if f["name"] == "Other leagues say")
    assert "BTown" in others["value"]


async def test_the_settings_reply_shows_the_rulebook(fake: FakeDiscord, bot: LeagueBot, home: int):
    guild = home
    shown = await settings(fake, guild, {})
    assert "Rulebook\npoker-pub" in _text(shown)


async def test_rule_autocomplete_puts_the_home_book_first(
    fake: FakeDiscord, bot: LeagueBot, home: int
):
    guild = home
    it = await fake.interact(
        "rule", {"query": "blinds", "book": ""}, focused="book", guild_id=guild
    )
    choices = (await it.response())["data"]["choices"]
    assert choices[0]["value"] == "poker-pub"
    it = await fake.interact("rule", {"query": "1"}, focused="query", guild_id=guild)
    suggested = (await it.response())["data"]["choices"]
    assert 1 <= len(suggested) <= 25


async def test_another_server_keeps_the_default_home(
    fake: FakeDiscord, bot: LeagueBot, home: int, guild: int
):
    assert bot.rule_home(home) == "poker-pub"
    data = await rule(fake, guild, "blinds")
    assert _embed(data)["title"].startswith("BTown")


async def test_a_restart_builds_the_homes_in_use_before_any_query(
    fake: FakeDiscord, bot: LeagueBot, db_url: str, home: int
):
    guild = home
    second = make_bot(fake, db_url)
    try:
        await second.load_rules()
        await second.load_rule_homes()
        assert second.rule_home(guild) == "poker-pub"
        built = second._home_rules["poker-pub"]
        assert built.done()
        index = await second.rules_for(guild)
        assert index is not None
        assert index.home == "poker-pub"
        assert (await second.rules_for(next(_GUILDS))) is second.rules
    finally:
        second.engine.dispose()


async def test_setting_both_and_clearing_the_rulebook(fake: FakeDiscord, bot: LeagueBot, home: int):
    guild = home
    both = await settings(fake, guild, {"rulebook": "poker-pub", "clear": "rulebook"})
    assert "Either set rulebook or clear it" in _text(both)
    cleared = await settings(fake, guild, {"clear": "rulebook"})
    assert "not set" in _text(cleared)
    assert (await bot.db.run(get_guild_settings, guild_id=guild)).rulebook is None
    assert bot.rule_home(guild) is None
    data = await rule(fake, guild, "blinds")
    assert _embed(data)["title"].startswith("BTown")
