"""End to end: a player's own bust on Discord, "I'm out" or /out, confirmed or rejected.

A player links (/me link, a director approves), signs in; "I'm out" under his sign-in (or /out)
posts a report with Confirm and Reject to the results channel; a director's Confirm is an
ordinary bust (another bot instance on the same database answers it just as well), Reject drops
the report; a player cannot report for someone else nor answer a report.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from sqlalchemy import delete, select
from sqlmodel import Session, col

from bot.surfaces.discord import LeagueBot
from storage.tournament_models import BustReport, Tournament, TournamentEntryRow
from storage.tournaments import get_open_tournament
from tests.bot.conftest import make_bot
from tests.fakediscord import (
    CHANNEL_ID,
    EPHEMERAL,
    GUILD_ID,
    MANAGE_GUILD,
    FakeDiscord,
    start_bot,
    stop_bot,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

TD = 900_000_000_000_000_531
DAN, EVE, ZED = 900_000_000_000_000_631, 900_000_000_000_000_632, 900_000_000_000_000_633
RESULTS = 900_000_000_000_000_821


def _text(message: dict[str, Any]) -> str:
    embed = message["embeds"][0]
    fields = "\n".join(f"{f['name']}\n{f['value']}" for f in embed.get("fields") or [])
    footer = (embed.get("footer") or {}).get("text") or ""
    return "\n".join([embed.get("title") or "", embed.get("description") or "", fields, footer])


def _buttons(message: dict[str, Any]) -> dict[str, str]:
    """Label -> custom id of a message's buttons."""
    return {
        c["label"]: c["custom_id"]
        for row in message.get("components") or []
        for c in row["components"]
    }


async def director(fake: FakeDiscord, name: str, sub: list[str], **options: Any) -> dict[str, Any]:
    it = await fake.interact(
        name,
        options,
        sub=sub,
        user_id=TD,
        permissions=MANAGE_GUILD,
        username="tdmike",
        **_kw(options),
    )
    return await it.settled()


def _kw(options: dict[str, Any]) -> dict[str, Any]:
    """What Discord resolves for channel and member options."""
    if "results_channel" in options:
        channel = {"id": str(RESULTS), "type": 0, "name": "results", "permissions": "0"}
        return {
            "option_types": {"results_channel": 7},
            "resolved": {"channels": {str(RESULTS): channel | {"guild_id": str(GUILD_ID)}}},
        }
    if "member" in options:
        user = {"id": options["member"], "username": "eve", "discriminator": "0", "avatar": None}
        return {"option_types": {"member": 6}, "resolved": {"users": {options["member"]: user}}}
    return {}


async def _until(check: Any, wait_s: float = 20.0) -> None:
    async with asyncio.timeout(wait_s):
        while not await check():  # noqa: ASYNC110 - the fake's lists are polled
            await asyncio.sleep(0.05)


async def _post(fake: FakeDiscord, before: int, words: str) -> dict[str, Any]:
    """The first results-channel post since ``before`` that says ``words``."""

    def found() -> list[dict[str, Any]]:
        return [p for p in fake.messages.get(RESULTS, [])[before:] if words in _text(p)]

    async def posted() -> bool:
        return bool(found())

    await _until(posted)
    return found()[0]


def _seen(fake: FakeDiscord) -> int:
    return len(fake.messages.get(RESULTS, []))


async def _edited(press: Any) -> str:
    """What a button press left on its message (edited in the callback, or after a defer)."""
    body = await press.response(wait_s=30)
    if body["type"] == 7:
        return _text(body["data"])
    if body["type"] == 6:
        await press._until(lambda: bool(press.edits), 30)
        return _text(press.edits[0])
    return _text(await press.settled())


async def _chart(bot: LeagueBot) -> tuple[list[str], list[str]]:
    """The night as stored: who is seated, who is out."""

    def read(*, session: Session) -> tuple[list[str], list[str]]:
        chart = get_open_tournament(session=session, channel_id=CHANNEL_ID).night.chart
        return sorted(chart.seated), sorted(k for group in chart.busted for k in group)

    return await bot.db.run(read)


async def _reports(bot: LeagueBot) -> list[str]:
    def read(*, session: Session) -> list[str]:
        return [str(n) for n in session.execute(select(col(BustReport.name))).scalars()]

    return await bot.db.run(read)


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def league(fake: FakeDiscord, bot: LeagueBot) -> AsyncIterator[None]:
    """Results channel, self_report on, players Dan, Eve and Bob; Dan and Eve linked."""
    await director(fake, "td", ["settings"], results_channel=str(RESULTS), self_report="on")
    body = await director(
        fake,
        "td",
        ["result"],
        finish="1 Dan, 2 Eve, 3 Bob",
        location="Brewpub",
        date="2026-11-06",
        season="2026 Fall",
    )
    assert "Imported" in _text(body)
    # Dan asks to be linked; a director approves.
    before = _seen(fake)
    it = await fake.interact("me", {"action": "link", "player": "Dan"}, user_id=DAN, username="dan")
    await it.settled()
    request = await _post(fake, before, "Link request")
    press = await fake.press(
        1,
        _buttons(request)["Approve"],
        components=request["components"],
        user_id=TD,
        permissions=MANAGE_GUILD,
    )
    assert "is linked to **Dan**" in await _edited(press)
    # Eve is linked by a director directly.
    assert "Eve" in _text(await director(fake, "td", ["link"], player="Eve", member=str(EVE)))
    yield


@pytest_asyncio.fixture(loop_scope="module")
async def night(fake: FakeDiscord, bot: LeagueBot, league: None) -> dict[str, dict[str, Any]]:
    """A fresh running night of Dan, Eve and Bob in the channel; the sign-in replies by name."""

    def clear(*, session: Session) -> None:
        session.execute(delete(BustReport))
        session.execute(delete(TournamentEntryRow))
        session.execute(delete(Tournament))

    await bot.db.run(clear)
    await director(fake, "td", ["settings"], self_report="on")
    opened = await director(fake, "tournament", ["open"], location="Brewpub")
    assert "Tournament open" in _text(opened)
    signed = {
        name: await director(fake, "tournament", ["register"], player=name)
        for name in ("Dan", "Eve", "Bob")
    }
    assert "Play begins" in _text(await director(fake, "tournament", ["start"]))
    return signed


async def test_out_is_a_server_command_for_everyone(fake: FakeDiscord, bot: LeagueBot):
    (out,) = [c for c in fake.commands["global"] if c["name"] == "out"]
    assert out.get("contexts") == [0] or out.get("dm_permission") is False
    assert out.get("default_member_permissions") is None


async def test_im_out_is_confirmed_by_a_director_on_another_instance(
    fake: FakeDiscord, bot: LeagueBot, db_url: str, night: dict[str, dict[str, Any]]
):
    seat = night["Dan"]
    assert "I'm out" in _buttons(seat)
    before = _seen(fake)
    seated = await _chart(bot)
    press = await fake.press(
        1, _buttons(seat)["I'm out"], components=seat["components"], user_id=DAN, username="dan"
    )
    answer = await press.settled()
    assert int(answer.get("flags") or 0) & EPHEMERAL
    assert "a director will confirm" in _text(answer)
    post = await _post(fake, before, "says he is out")
    assert "**Dan** (table 1 seat" in _text(post)
    assert post["allowed_mentions"] == {"parse": []}
    assert set(_buttons(post)) == {"Confirm", "Reject"}
    assert await _chart(bot) == seated  # pending: counts for nothing
    assert await _reports(bot) == ["Dan"]
    status = await director(fake, "tournament", ["status"])
    assert "Players left: 3" in _text(status)
    assert "Reported out, waiting for a director (not counted)\nDan" in _text(status)
    # Twice is still one report.
    again = await fake.press(
        1, _buttons(seat)["I'm out"], components=seat["components"], user_id=DAN, username="dan"
    )
    assert "reported already" in _text(await again.settled())
    assert await _reports(bot) == ["Dan"]

    # A player may not answer it.
    confirm = _buttons(post)["Confirm"]
    refused = await fake.press(1, confirm, components=post["components"], user_id=EVE)
    assert "director" in _text(await refused.settled())
    assert await _chart(bot) == seated

    # Another instance on the same database answers the button it never sent.
    second = make_bot(fake, db_url)
    await start_bot(fake, second)
    try:
        press = await fake.press(
            1, confirm, components=post["components"], user_id=TD, permissions=MANAGE_GUILD
        )
        shown = await _edited(press)
    finally:
        await stop_bot(second)
        second.engine.dispose()
    assert "Bust confirmed" in shown
    assert "**Dan**: 3rd" in shown
    assert f"reported by <@{DAN}>" in shown
    assert await _chart(bot) == (["bob", "eve"], ["dan"])
    assert await _reports(bot) == []
    twice = await fake.press(
        1, confirm, components=post["components"], user_id=TD, permissions=MANAGE_GUILD
    )
    assert "answered already" in await _edited(twice)
    assert await _chart(bot) == (["bob", "eve"], ["dan"])
    # It was an ordinary bust: undo takes it back.
    undone = await director(fake, "tournament", ["undo"])
    assert "the bust of Dan" in _text(undone)
    assert await _chart(bot) == seated


async def test_out_then_reject_leaves_the_night_as_it_was(
    fake: FakeDiscord, bot: LeagueBot, night: dict[str, dict[str, Any]]
):
    seated = await _chart(bot)
    before = _seen(fake)
    it = await fake.interact("out", {}, user_id=EVE, username="eve")
    assert "a director will confirm" in _text(await it.settled())
    post = await _post(fake, before, "**Eve**")
    press = await fake.press(
        1,
        _buttons(post)["Reject"],
        components=post["components"],
        user_id=TD,
        permissions=MANAGE_GUILD,
        username="tdmike",
    )
    assert "Eve stays in: rejected by tdmike" in await _edited(press)
    assert await _chart(bot) == seated
    assert await _reports(bot) == []


async def test_nobody_reports_for_someone_else(
    fake: FakeDiscord, bot: LeagueBot, night: dict[str, dict[str, Any]]
):
    seat = night["Dan"]
    before = _seen(fake)
    for user_id, words in ((EVE, "That is Dan's seat"), (ZED, "/me link")):
        press = await fake.press(
            1, _buttons(seat)["I'm out"], components=seat["components"], user_id=user_id
        )
        answer = await press.settled()
        assert int(answer.get("flags") or 0) & EPHEMERAL
        assert words in _text(answer)
    it = await fake.interact("out", {}, user_id=ZED, username="zed")
    assert "/me link" in _text(await it.settled())
    assert await _reports(bot) == []
    assert _seen(fake) == before  # nothing reached the directors


async def test_out_is_refused_while_the_league_has_it_off(
    fake: FakeDiscord, bot: LeagueBot, night: dict[str, dict[str, Any]]
):
    await director(fake, "td", ["settings"], self_report="off")
    try:
        it = await fake.interact("out", {}, user_id=DAN, username="dan")
        assert "tell a director" in _text(await it.settled())
        assert await _reports(bot) == []
        signed = await director(fake, "tournament", ["register"], player="Zoe Late")
        assert "I'm out" not in _buttons(signed)
    finally:
        await director(fake, "td", ["settings"], self_report="on")
