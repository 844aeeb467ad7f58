"""End to end: the real discord.py client and cogs against the fake Discord."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from bot.surfaces.discord import LeagueBot
from bot.surfaces.discord.tree import APOLOGY
from tests.bot.conftest import make_bot
from tests.fakediscord import (
    APP_ID,
    EPHEMERAL,
    MANAGE_GUILD,
    OWNER_ID,
    FakeDiscord,
    snowflake,
    start_bot,
    stop_bot,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

GLOBAL_COMMANDS = f"/applications/{APP_ID}/commands"


def _flags(body: dict[str, Any]) -> int:
    return int(body.get("flags") or 0)


async def test_login_syncs_valid_commands_once(fake: FakeDiscord, bot: LeagueBot, db_url: str):
    assert fake.identifies >= 1
    puts = [r for r in fake.requests if r.method == "PUT" and r.path == GLOBAL_COMMANDS]
    assert len(puts) == 1
    assert puts[0].status == 200
    names = {c["name"] for c in fake.commands["global"]}
    assert {"rule", "hand", "help", "standings", "toc", "stack", "td", "clock", "admin"} <= names
    assert bot.last_sync is True

    # A restart with the same command set (same database) makes no sync request.
    again = make_bot(fake, db_url)
    await start_bot(fake, again)
    try:
        assert again.last_sync is False
        assert [r.path for r in fake.requests if r.method == "PUT"].count(GLOBAL_COMMANDS) == 1
    finally:
        await stop_bot(again)
        again.engine.dispose()


async def test_dev_guild_gets_its_own_sync(fake: FakeDiscord, db_url: str):
    dev = make_bot(fake, db_url, discord_guild_id=4242)
    await start_bot(fake, dev)
    try:
        assert dev.last_sync is True
        assert {c["name"] for c in fake.commands["4242"]} >= {"rule", "hand", "help"}
    finally:
        await stop_bot(dev)
        dev.engine.dispose()


async def test_echo_answers_with_mentions_disabled(fake: FakeDiscord, bot: LeagueBot):
    it = await fake.interact("echo", {"text": "@everyone look at this"})
    body = await it.response()
    assert body["type"] == 4
    data = body["data"]
    assert data["allowed_mentions"] == {"parse": []}
    assert "@everyone look at this" in data["embeds"][0]["description"]
    assert not _flags(data) & EPHEMERAL


async def test_help_lists_commands_but_hides_director_ones(fake: FakeDiscord, bot: LeagueBot):
    it = await fake.interact("help")
    data = (await it.response())["data"]
    text = data["embeds"][0]["description"]
    assert "/rule [query] [book]" in text
    assert "/hand cards [board]" in text
    assert "/standings" in text
    assert "/admin" not in text
    assert "/td " not in text  # director commands are hidden from players
    boss = await fake.interact("help", permissions=MANAGE_GUILD | (1 << 31))
    assert "/admin health" in (await boss.response())["data"]["embeds"][0]["description"]


async def test_user_mistake_is_private_and_short(fake: FakeDiscord, bot: LeagueBot):
    it = await fake.interact("oops")
    data = (await it.response())["data"]
    assert _flags(data) & EPHEMERAL
    assert '"1x" is not a card' in data["embeds"][0]["description"]
    assert data["allowed_mentions"] == {"parse": []}


async def test_bug_is_logged_and_answered_with_a_private_apology(
    fake: FakeDiscord, bot: LeagueBot, caplog: pytest.LogCaptureFixture
):
    with caplog.at_level(logging.ERROR, logger="bot.surfaces.discord.tree"):
        it = await fake.interact("boom")
        data = (await it.response())["data"]
    assert _flags(data) & EPHEMERAL
    assert data["embeds"][0]["description"] == APOLOGY
    assert "secret internals" not in str(data)
    record = next(r for r in caplog.records if r.name == "bot.surfaces.discord.tree")
    assert "/boom failed" in record.getMessage()
    assert record.exc_info is not None


async def test_late_first_response_gets_10062(fake: FakeDiscord, bot: LeagueBot):
    fake.deadline_s = 0.2
    it = await fake.interact("slow_forgot", {"seconds": 0.3})
    assert await it.refused() == (404, 10062)
    assert it.callback is None


async def test_slow_work_defers_in_time_then_follows_up(fake: FakeDiscord, bot: LeagueBot):
    fake.deadline_s = 0.5
    it = await fake.interact("slow_answer", {"seconds": 0.8})
    body = await it.response()
    assert body["type"] == 5  # deferred ("thinking…"): the fake accepts it only in time
    follow = await it.followup()
    assert "worked 0.80 s" in follow["embeds"][0]["description"]
    assert follow["allowed_mentions"] == {"parse": []}


async def test_oversized_reply_fits_discord_limits_and_keeps_citation(
    fake: FakeDiscord, bot: LeagueBot
):
    it = await fake.interact("big")
    body = await it.response()  # the fake answers 400/50035 on any violated limit
    assert not it.callback_errors
    embed = body["data"]["embeds"][0]
    assert embed["description"].endswith(
        "— *BTown Poker League rulebook, section 2.G.d.5 (odd chips)*"
    )
    assert "…" in embed["description"]
    assert 1 <= len(embed["fields"]) <= 25
    assert "more not shown" in embed["footer"]["text"]


async def test_autocomplete_respects_choice_limits(fake: FakeDiscord, bot: LeagueBot):
    it = await fake.interact("pick", {"thing": "ab"}, focused="thing")
    body = await it.response()
    assert body["type"] == 8
    choices = body["data"]["choices"]
    assert len(choices) == 25
    assert all(len(c["name"]) <= 100 and len(c["value"]) <= 100 for c in choices)


async def test_rate_limited_callback_is_retried_after_retry_after(
    fake: FakeDiscord, bot: LeagueBot
):
    # Aimed at this interaction's callback: another test's callback may still be in flight.
    interaction_id = snowflake()
    fake.rate_limit("POST", f"/interactions/{interaction_id}/", retry_after=0.05)
    it = await fake.interact("echo", {"text": "after the 429"}, interaction_id=interaction_id)
    body = await it.response()
    assert "after the 429" in body["data"]["embeds"][0]["description"]
    attempts = list(fake.requests_to("POST", f"/interactions/{it.id}/"))
    assert [r.status for r in attempts] == [429, 200]
    assert attempts[1].at - attempts[0].at >= 0.05


async def test_dropped_connection_resumes_and_replays_missed_events(
    fake: FakeDiscord, bot: LeagueBot
):
    before = fake.resumes
    await fake.drop_connection()
    it = await fake.interact("echo", {"text": "sent while down"})  # buffered, replayed on RESUME
    async with asyncio.timeout(10):
        await fake.resumed.wait()
    assert fake.resumes == before + 1
    body = await it.response()
    assert "sent while down" in body["data"]["embeds"][0]["description"]


async def test_director_command_refused_for_a_player(fake: FakeDiscord, bot: LeagueBot):
    it = await fake.interact("admin", sub=["health"])
    data = (await it.response())["data"]
    assert _flags(data) & EPHEMERAL
    assert "owner" in data["embeds"][0]["description"]


async def test_owner_health_check(fake: FakeDiscord, bot: LeagueBot):
    it = await fake.interact("admin", sub=["health"], user_id=OWNER_ID, permissions=MANAGE_GUILD)
    data = (await it.response())["data"]
    names = [f["name"] for f in data["embeds"][0]["fields"]]
    assert names[:2] == ["Gateway", "Database"]


async def test_hand_with_full_board_answers_at_once(fake: FakeDiscord, bot: LeagueBot):
    it = await fake.interact("hand", {"cards": "As Ks vs Qh Qd", "board": "2c 7d 9h Jc 3s"})
    body = await it.response()
    assert body["type"] == 4
    embed = body["data"]["embeds"][0]
    assert "Player 2 wins" in embed["title"]
    assert body["data"]["allowed_mentions"] == {"parse": []}


async def test_hand_preflop_equity_defers_then_follows_up(fake: FakeDiscord, bot: LeagueBot):
    it = await fake.interact("hand", {"cards": "As Ks vs Qh Qd"})
    follow = await it.settled(wait_s=60)
    # computed in a worker process; acknowledged (deferred when slow) within Discord's 3 s
    assert it.ack_seconds is not None
    assert it.ack_seconds < 3.0
    text = str(follow["embeds"][0])
    assert "1,712,304" in text  # exact enumeration of every board
    assert follow["allowed_mentions"] == {"parse": []}


async def test_hand_bad_cards_is_a_private_one_liner(fake: FakeDiscord, bot: LeagueBot):
    it = await fake.interact("hand", {"cards": "As 1x"})
    data = (await it.response())["data"]
    assert _flags(data) & EPHEMERAL
    assert '"1x" is not a card' in data["embeds"][0]["description"]


async def test_rule_answers_with_citation(fake: FakeDiscord, bot: LeagueBot):
    it = await fake.interact("rule", {"query": "oversized chip"})
    body = await it.response()
    assert body["type"] == 4
    embed = body["data"]["embeds"][0]
    assert "2.G.d.6" in embed["title"]
    assert "over-sized chip" in embed["description"]
    assert "btown-poker-league 2.G.d.6" in embed["description"]  # the citation closes the body
    assert body["data"]["allowed_mentions"] == {"parse": []}


async def test_rule_unknown_book_is_private(fake: FakeDiscord, bot: LeagueBot):
    it = await fake.interact("rule", {"query": "odd chip", "book": "nope"})
    data = (await it.response())["data"]
    assert _flags(data) & EPHEMERAL
    assert "no rulebook called 'nope'" in data["embeds"][0]["description"]


async def test_rule_autocomplete_suggests_rules_within_limits(fake: FakeDiscord, bot: LeagueBot):
    it = await fake.interact("rule", {"query": "odd"}, focused="query")
    body = await it.response()
    assert body["type"] == 8
    choices = body["data"]["choices"]
    assert 1 <= len(choices) <= 25
    assert all(1 <= len(c["name"]) <= 100 and len(c["value"]) <= 100 for c in choices)


async def test_rule_book_autocomplete_lists_books(fake: FakeDiscord, bot: LeagueBot):
    it = await fake.interact("rule", {"query": "odd chip", "book": "pub"}, focused="book")
    choices = (await it.response())["data"]["choices"]
    assert [c["value"] for c in choices] == ["poker-pub"]


async def test_fake_refuses_an_oversized_message_and_the_user_gets_an_apology(
    fake: FakeDiscord, bot: LeagueBot
):
    it = await fake.interact("raw_long")
    assert await it.refused() == (400, 50035)
    data = (await it.response())["data"]
    assert _flags(data) & EPHEMERAL
    assert data["embeds"][0]["description"] == APOLOGY


async def test_zz_every_message_this_module_sent_had_mentions_disabled(
    fake: FakeDiscord, bot: LeagueBot
):
    # (with pytest-xdist this worker may have run only some tests: make sure there is traffic)
    await (await fake.interact("echo", {"text": "@here"})).response()
    await (await fake.interact("slow_answer", {"seconds": 0.1})).followup()
    bodies = []
    for r in fake.requests:
        body = r.body if isinstance(r.body, dict) else {}
        if "callback" in r.path and body.get("type") in (4, 7):
            bodies.append(body["data"])
        elif r.method in ("POST", "PATCH") and ("/webhooks/" in r.path or "/messages" in r.path):
            bodies.append(body)
    assert len(bodies) >= 2
    assert all(b.get("allowed_mentions") == {"parse": []} for b in bodies)
