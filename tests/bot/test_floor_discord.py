"""End to end: a floor call reaches the directors (one role pinged, a thread), a ruling answers
in the thread, a ruling citing no rule of the book is refused, and /rule counts the rulings."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
import pytest_asyncio
from sqlalchemy import func, select
from sqlmodel import Session

from bot.surfaces.discord import LeagueBot
from storage.floor import CallInfo, get_floor_call
from storage.floor_models import FloorRuling
from storage.guild_settings import update_guild_settings
from storage.league_models import AuditEntry
from storage.leagues import league_for
from tests.fakediscord import EPHEMERAL, GUILD_ID, FakeDiscord

pytestmark = pytest.mark.asyncio(loop_scope="module")

DIRECTOR_ROLE = 900_000_000_000_000_777
RESULTS = 900_000_000_000_000_778
ANN = 900_000_000_000_000_611
DANA = 900_000_000_000_000_612


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def league(bot: LeagueBot) -> int:
    await bot.db.run(
        update_guild_settings,
        guild_id=GUILD_ID,
        actor="test",
        director_role_id=DIRECTOR_ROLE,
        results_channel_id=RESULTS,
    )
    return GUILD_ID


def _embed(body: dict[str, Any]) -> dict[str, Any]:
    embed: dict[str, Any] = body["embeds"][0]
    return embed


def _text(body: dict[str, Any]) -> str:
    embed = _embed(body)
    fields = "\n".join(f"{f['name']}\n{f['value']}" for f in embed.get("fields") or [])
    return "\n".join([embed.get("title") or "", embed.get("description") or "", fields])


async def _call(fake: FakeDiscord, note: str) -> tuple[int, dict[str, Any]]:
    """Ann calls the floor; returns the call's number and her (private) answer."""
    it = await fake.interact("floor", {"note": note}, user_id=ANN, username="ann")
    body = await it.settled()
    found = re.search(r"Floor call #(\d+)", _embed(body)["title"])
    assert found is not None, body
    return int(found.group(1)), body


async def _posted(fake: FakeDiscord, channel: int, title: str) -> dict[str, Any]:
    """The message posted to ``channel`` whose embed has ``title`` (waits for it)."""
    async with asyncio.timeout(10):
        while True:
            for message in fake.messages.get(channel, []):
                if message.get("embeds") and _embed(message).get("title") == title:
                    return message
            await asyncio.sleep(0.02)


async def _threaded(bot: LeagueBot, number: int) -> CallInfo:
    """The call once its thread is stored (the post and the thread follow the answer)."""

    def read(*, session: Session) -> CallInfo:
        league = league_for(session=session, guild_id=GUILD_ID)
        return get_floor_call(session=session, league_id=league.id, number=number)

    async with asyncio.timeout(10):
        while (call := await bot.db.run(read)).thread_id is None:  # noqa: ASYNC110 - polled
            await asyncio.sleep(0.02)
    return call


async def _ruling(fake: FakeDiscord, options: dict[str, Any]) -> dict[str, Any]:
    it = await fake.interact(
        "td", options, sub=["ruling"], user_id=DANA, username="dana", roles=[DIRECTOR_ROLE]
    )
    return await it.settled()


async def _counts(bot: LeagueBot) -> tuple[int, int]:
    def count(*, session: Session) -> tuple[int, int]:
        rulings = session.execute(select(func.count()).select_from(FloorRuling)).scalar_one()
        audit = session.execute(select(func.count()).select_from(AuditEntry)).scalar_one()
        return int(rulings), int(audit)

    return await bot.db.run(count)


async def test_a_floor_call_pings_only_the_director_role_and_gets_a_thread(
    fake: FakeDiscord, bot: LeagueBot, league: int
):
    number, answer = await _call(fake, "oversized chip tossed in @everyone <@123>")

    assert int(answer.get("flags") or 0) & EPHEMERAL  # the caller's confirmation is private
    assert f"Floor call #{number} sent to the directors" in _text(answer)
    posted = await _posted(fake, RESULTS, f"Floor call #{number}")
    assert posted["content"] == f"<@&{DIRECTOR_ROLE}>"
    mentions = posted["allowed_mentions"]
    assert mentions["parse"] == []  # no @everyone, no users, no role but the one named
    assert [int(r) for r in mentions["roles"]] == [DIRECTOR_ROLE]
    assert not mentions.get("users")
    assert not mentions.get("replied_user")
    shown = _text(posted)
    assert "@\u200beveryone" in shown
    assert "@everyone" not in shown
    assert "2.G.d.6" in shown  # the rule /rule finds for the note, cited
    call = await _threaded(bot, number)
    thread = fake.threads[call.message_id or 0]
    assert int(thread["id"]) == call.thread_id
    assert int(thread["parent_id"]) == RESULTS
    assert thread["name"].startswith(f"Floor call #{number}: oversized chip")


async def test_a_ruling_is_answered_in_the_call_thread(
    fake: FakeDiscord, bot: LeagueBot, league: int
):
    number, _ = await _call(fake, "dealer exposed a card on the deal")
    call = await _threaded(bot, number)

    body = await _ruling(
        fake, {"call": number, "decision": "Misdeal: redeal, same button", "rule": "2.G.d.6"}
    )

    assert f"Ruling on floor call #{number}" in _text(body)
    assert call.thread_id is not None
    posted = await _posted(fake, call.thread_id, f"Ruling on floor call #{number}")
    assert "Misdeal: redeal, same button" in _text(posted)
    assert "2.G.d.6" in _text(posted)
    assert posted["allowed_mentions"] == {"parse": []}  # a ruling pings nobody


async def test_a_ruling_citing_a_section_the_book_lacks_is_refused_and_writes_nothing(
    fake: FakeDiscord, bot: LeagueBot, league: int
):
    number, _ = await _call(fake, "who deals at the second chance table")
    before = await _counts(bot)

    body = await _ruling(fake, {"call": number, "decision": "Dealer rotates", "rule": "9.Z.z"})

    assert int(body.get("flags") or 0) & EPHEMERAL
    assert "has no rule '9.Z.z'" in _text(body)
    assert await _counts(bot) == before


async def test_rule_shows_how_many_league_rulings_cite_the_rule(
    fake: FakeDiscord, bot: LeagueBot, league: int
):
    number, _ = await _call(fake, "chip count dispute")
    await _ruling(fake, {"call": number, "decision": "Count it down", "rule": "2.G.d.7"})

    it = await fake.interact("rule", {"query": "2.G.d.7"}, user_id=ANN)
    body = await it.settled()

    shown = _text(body)
    assert "League rulings: 1 ruling cite this" in shown
    assert f"#{number}" in shown
    assert "Count it down" in shown


async def test_a_member_who_is_not_a_director_cannot_rule(fake: FakeDiscord, league: int):
    number, _ = await _call(fake, "string bet")
    it = await fake.interact(
        "td", {"call": number, "decision": "ok"}, sub=["ruling"], user_id=ANN, username="ann"
    )
    body = await it.settled()
    assert int(body.get("flags") or 0) & EPHEMERAL
    assert "Ruling on" not in _text(body)


async def test_a_call_in_a_league_without_a_results_channel_is_kept_and_the_caller_told(
    fake: FakeDiscord, bot: LeagueBot
):
    lonely = GUILD_ID + 31
    it = await fake.interact(
        "floor", {"note": "misdeal?"}, user_id=ANN, username="ann", guild_id=lonely
    )
    answer = await it.settled()
    deferred = (await it.response())["type"] == 5  # then the answer is the first follow-up
    told = await it.followup(1 if deferred else 0)

    assert "Floor call #1 sent to the directors" in _text(answer)
    assert int(told.get("flags") or 0) & EPHEMERAL
    assert "no results channel, so no director was pinged" in told["content"]
