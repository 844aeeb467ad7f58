"""End to end: /standings (paged with buttons), /toc and /stack through the fake Discord."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

import rulings
from bot.surfaces.discord import LeagueBot
from storage.event_changes import record_guild_events
from tests.fakediscord import EPHEMERAL, GUILD_ID, FakeDiscord

pytestmark = pytest.mark.asyncio(loop_scope="module")

PLAYERS = [f"Player {i:02d}" for i in range(1, 41)]


def _flags(body: dict[str, Any]) -> int:
    return int(body.get("flags") or 0)


def _description(message: dict[str, Any]) -> str:
    return str(message["embeds"][0].get("description") or "")


def _buttons(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for row in message.get("components") or [] for c in row["components"]]


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def league(bot: LeagueBot) -> AsyncIterator[None]:
    def build(rules: rulings.LeagueRules, current: str | None) -> list[rulings.EventRecord]:
        del current
        return [
            rulings.build_event(
                season="2026 Fall",
                location="Brewpub",
                date="2026-11-20",
                kind="regular",
                finish=[[n] for n in PLAYERS],
                max_receipt_cents=rules.receipt_max_cents,
            ),
            rulings.build_event(
                season="2026 Fall",
                location="Tap Room",
                date="2026-11-21",
                kind="regular",
                finish=[["Player 40"], ["Player 39"], ["Player 01"]],
                max_receipt_cents=rules.receipt_max_cents,
            ),
        ]

    await bot.db.run(
        record_guild_events, guild_id=GUILD_ID, build=build, actor="test", allow_new=True
    )
    yield


async def test_standings_in_a_server_without_a_league(fake: FakeDiscord, bot: LeagueBot):
    it = await fake.interact("standings", guild_id=GUILD_ID + 1)
    reply = await it.settled()
    assert _flags(reply) & EPHEMERAL
    assert "no league yet" in _description(reply)


async def test_standings_are_paged_with_buttons(fake: FakeDiscord, bot: LeagueBot, league: None):
    it = await fake.interact("standings")
    first = await it.settled()
    assert first["allowed_mentions"] == {"parse": []}
    assert "Player 01" in _description(first)
    assert "Page 1/2" in first["embeds"][0]["footer"]["text"]
    back, forward = _buttons(first)
    assert back["disabled"] is True
    assert forward["custom_id"].endswith(":2")

    press = await fake.press(it.message_id, forward["custom_id"], components=first["components"])
    body = await press.response()
    assert body["type"] == 7  # the same message, edited in place
    page = body["data"]
    assert "Page 2/2" in page["embeds"][0]["footer"]["text"]
    assert "Player 30" in _description(page)
    assert "Player 01" not in _description(page)
    assert _buttons(page)[1]["disabled"] is True


async def test_standings_at_one_location_and_for_one_player(
    fake: FakeDiscord, bot: LeagueBot, league: None
):
    it = await fake.interact("standings", {"location": "tap room"})
    reply = await it.settled()
    assert "Standings at Tap Room" in reply["embeds"][0]["title"]
    assert not _buttons(reply)
    one = await fake.interact("standings", {"player": "player 40"})
    text = _description(await one.settled())
    assert "**#" in text
    assert "2 events" in text
    missing = await fake.interact("standings", {"player": "Player 4O"})
    refused = await missing.settled()
    assert _flags(refused) & EPHEMERAL
    assert "did you mean 'Player 40'" in _description(refused)


async def test_toc_table_and_one_player(fake: FakeDiscord, bot: LeagueBot, league: None):
    it = await fake.interact("toc")
    reply = await it.settled()
    assert reply["embeds"][0]["title"].startswith("Tournament of Champions")
    one = await fake.interact("toc", {"player": "Player 01"})
    text = _description(await one.settled())
    assert "Not qualified yet" in text


async def test_stack_late_player_loses_twice_the_big_blind(fake: FakeDiscord, bot: LeagueBot):
    # 1.E.d: a late player sitting down at the 300/600 level starts with 18,000 - 1,200.
    it = await fake.interact("stack", {"player": "Moe", "late_big_blind": 600})
    reply = await it.settled()
    assert "Starting stack for Moe: 16,800" in reply["embeds"][0]["title"]
    early = await fake.interact(
        "stack", {"early": True, "on_time": True, "birthday": True, "new_player": True}
    )
    # 2.C.b: the three combined extras are capped at 9,000; +4,000 for a new player on top.
    assert "31,000" in (await early.settled())["embeds"][0]["title"]
    late = await fake.interact("stack", {"early": True, "late_big_blind": 600})
    # 1.E.d: no bonus chips for a late player; said, as for a birthday.
    assert "signed in early: late players get no extra chips" in str(await late.settled())


async def test_season_autocomplete(fake: FakeDiscord, bot: LeagueBot, league: None):
    it = await fake.interact("standings", {"season": "20"}, focused="season")
    body = await it.response()
    assert [c["value"] for c in body["data"]["choices"]] == ["2026 Fall"]


async def test_a_stale_page_button_answers_privately(
    fake: FakeDiscord, bot: LeagueBot, league: None
):
    """A page of a season that is gone takes the one error path, not "interaction failed"."""
    it = await fake.interact("standings")
    first = await it.settled()
    forward = _buttons(first)[1]
    for custom_id, says in (
        ("pf:st:999999:0:2", "no longer exists"),  # the season is gone
        ("pf:st:x", "out of date"),  # a button of an older version of the bot
    ):
        components = [{"type": 1, "components": [dict(forward, custom_id=custom_id)]}]
        press = await fake.press(it.message_id, custom_id, components=components)
        body = await press.response()
        assert body["type"] == 4
        assert _flags(body["data"]) & EPHEMERAL
        assert says in _description(body["data"])
