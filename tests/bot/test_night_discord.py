"""End to end: a league night as a Discord scheduled event, its RSVPs, a restart's catch-up."""

from __future__ import annotations

import asyncio
import datetime as dt
import zoneinfo
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from sqlmodel import Session, select

from bot.surfaces.discord import LeagueBot
from rulings import WEEKDAYS, next_night
from storage.leagues import league_for
from storage.night_models import NightSeriesRow
from storage.nights import list_nights, rsvps
from tests.bot.conftest import make_bot
from tests.fakediscord import GUILD_ID, MANAGE_GUILD, FakeDiscord, start_bot, stop_bot

pytestmark = pytest.mark.asyncio(loop_scope="module")

BOSS_ID = 900_000_000_000_000_512
ANN, BEA, CY = 900_000_000_000_000_601, 900_000_000_000_000_602, 900_000_000_000_000_603


async def _td(fake: FakeDiscord, sub: list[str], options: dict[str, Any]) -> dict[str, Any]:
    extra: dict[str, Any] = {}
    if "results_channel" in options:  # a channel option: Discord resolves it
        channel = options["results_channel"]
        extra = {
            "option_types": {"results_channel": 7},
            "resolved": {
                "channels": {
                    channel: {
                        "id": channel,
                        "type": 0,
                        "name": "results",
                        "permissions": "0",
                        "guild_id": str(GUILD_ID),
                    }
                }
            },
        }
    it = await fake.interact(
        "td", options, sub=sub, user_id=BOSS_ID, permissions=MANAGE_GUILD, **extra
    )
    return await it.settled()


def _text(message: dict[str, Any]) -> str:
    embed = message["embeds"][0]
    return "\n".join([embed.get("title") or "", embed.get("description") or ""])


async def _names(bot: LeagueBot) -> list[str]:
    def read(*, session: Session) -> list[str]:
        league = league_for(session=session, guild_id=GUILD_ID)
        (info,) = [
            i
            for i in list_nights(session=session, league_id=league.id)
            if i.series.location == "Pub 33"
        ]
        day = next_night(info.series, dt.datetime.now(dt.UTC).date())
        assert day is not None
        return sorted(r.name for r in rsvps(session=session, info=info, day=day))

    return await bot.db.run(read)


async def _until(check: Any, wait_s: float = 20.0) -> None:
    async with asyncio.timeout(wait_s):
        while not await check():  # noqa: ASYNC110 - the database is polled, nothing signals
            await asyncio.sleep(0.05)


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def night(fake: FakeDiscord, bot: LeagueBot) -> AsyncIterator[int]:
    await _td(fake, ["location", "add"], {"name": "Pub 33"})
    await _td(
        fake, ["night", "schedule"], {"location": "Pub 33", "weekday": "friday", "time": "19:00"}
    )

    yield await _event_of(bot, "Pub 33")


async def test_schedule_makes_one_recurring_external_event(fake: FakeDiscord, night: int):
    event = fake.scheduled_events[night]
    assert event["entity_type"] == 3
    assert event["entity_metadata"] == {"location": "Pub 33"}
    assert event["recurrence_rule"]["by_weekday"] == [4]  # Friday
    start = dt.datetime.fromisoformat(event["scheduled_start_time"])
    end = dt.datetime.fromisoformat(event["scheduled_end_time"])
    assert end - start == dt.timedelta(hours=4)  # 2.F.a
    made = [r for r in fake.requests_to("POST", "scheduled-events") if "Pub 33" in str(r.body)]
    assert len(made) == 1


async def test_a_second_schedule_makes_no_second_event(fake: FakeDiscord, night: int):
    body = await _td(
        fake, ["night", "schedule"], {"location": "Pub 33", "weekday": "fri", "time": "19:00"}
    )
    assert "already has a night on Fridays" in str(body)
    pub = [e for e in fake.scheduled_events.values() if "Pub 33" in e["name"]]
    assert len(pub) == 1


async def test_interested_presses_become_the_rsvp_list(
    fake: FakeDiscord, bot: LeagueBot, night: int
):
    await fake.press_interested(night, ANN, "ann")
    await fake.press_interested(night, BEA, "bea")

    async def both() -> bool:
        return {"ann", "bea"} <= set(await _names(bot))

    await _until(both)
    await fake.press_interested(night, ANN, "ann", going=False)

    async def gone() -> bool:
        return "ann" not in await _names(bot)

    await _until(gone)
    coming = len(await _names(bot))
    it = await fake.interact("night", {"location": "Pub 33"})
    body = await it.settled()
    assert f"{coming} player{'s' if coming != 1 else ''} coming" in str(body)


async def test_a_restart_catches_up_presses_missed_while_down(
    fake: FakeDiscord, bot: LeagueBot, night: int, db_url: str
):
    # Presses nobody hears (no process would be running), then a process starts: it reads
    # the interested list over REST and the RSVP list is exactly Discord's.
    await fake.press_interested(night, CY, "cy", quiet=True)
    await fake.press_interested(night, BEA, "bea", going=False, quiet=True)
    again = make_bot(fake, db_url)
    try:
        await start_bot(fake, again)

        async def caught_up() -> bool:
            return await _names(again) == sorted(fake.interested[night].values())

        await _until(caught_up)
        assert "cy" in await _names(again)
    finally:
        await stop_bot(again)
        again.engine.dispose()


async def test_refused_recurrence_makes_the_next_night_only(fake: FakeDiscord, bot: LeagueBot):
    fake.refuse_recurrence = True
    try:
        await _td(fake, ["location", "add"], {"name": "Tap Room"})
        before = set(fake.scheduled_events)
        await _td(
            fake,
            ["night", "schedule"],
            {"location": "Tap Room", "weekday": "monday", "time": "20:30"},
        )

        async def made() -> bool:
            return len(fake.scheduled_events) > len(before)

        await _until(made)
        (new,) = set(fake.scheduled_events) - before
        assert "recurrence_rule" not in fake.scheduled_events[new]

        def stored(*, session: Session) -> list[int | None]:
            return [r.discord_event_id for r in session.exec(select(NightSeriesRow)).all()]

        assert new in await bot.db.run(stored)
    finally:
        fake.refuse_recurrence = False


RESULTS_CHANNEL = 900_000_000_000_000_820


async def test_the_reminder_pings_only_the_rsvpd_members_once(fake: FakeDiscord, bot: LeagueBot):
    zone = zoneinfo.ZoneInfo(bot.settings.timezone)
    start = (dt.datetime.now(zone) + dt.timedelta(hours=1)).replace(second=0, microsecond=0)
    await _td(fake, ["settings"], {"results_channel": str(RESULTS_CHANNEL)})
    await _td(fake, ["location", "add"], {"name": "Corner Bar"})
    await _td(
        fake,
        ["night", "schedule"],
        {
            "location": "Corner Bar",
            "weekday": WEEKDAYS[start.weekday()],
            "time": start.strftime("%H:%M"),
            "remind": 2,
        },
    )
    event_id = await _event_of(bot, "Corner Bar")
    await fake.press_interested(event_id, ANN, "ann", quiet=True)
    await fake.press_interested(event_id, BEA, "bea", quiet=True)
    it = await fake.interact(
        "rsvp", {"player": "Typed Tom"}, user_id=BOSS_ID, permissions=MANAGE_GUILD
    )
    await it.settled()
    cog: Any = bot.get_cog("NightCog")
    before = len(fake.messages.get(RESULTS_CHANNEL, []))
    now = dt.datetime.now(dt.UTC)
    assert await cog.tick(now) >= 1
    assert await cog.tick(now) == 0  # once
    posts = fake.messages[RESULTS_CHANNEL][before:]
    reminders = [p for p in posts if "Corner Bar" in (p.get("content") or "")]
    assert len(reminders) == 1
    (role_id,) = [r for r, role in fake.roles.items() if "Corner Bar" in role["name"]]
    assert fake.role_members[role_id] == {ANN, BEA}  # Typed Tom has no member to ping
    assert "3 coming" in reminders[0]["content"]
    assert f"<@&{role_id}>" in reminders[0]["content"]
    mentions = reminders[0]["allowed_mentions"]
    assert mentions["parse"] == []  # never @everyone, no users
    assert [int(r) for r in mentions["roles"]] == [role_id]
    # After the night (four hours, 2.F.a) the role goes.
    await cog.tick(start.astimezone(dt.UTC) + dt.timedelta(hours=4, minutes=1))
    assert role_id not in fake.roles


async def _event_of(bot: LeagueBot, location: str) -> int:
    async def made() -> bool:
        return await _stored_event(bot, location) is not None

    await _until(made)
    found = await _stored_event(bot, location)
    assert found is not None
    return found


async def _stored_event(bot: LeagueBot, location: str) -> int | None:
    def read(*, session: Session) -> int | None:
        league = league_for(session=session, guild_id=GUILD_ID)
        for info in list_nights(session=session, league_id=league.id):
            if info.series.location == location:
                return info.discord_event_id
        return None

    return await bot.db.run(read)


async def _edited(press: Any) -> str:
    """What a button press left on its message (edited in the callback, or after a defer)."""
    body = await press.response(wait_s=30)
    if body["type"] == 7:
        return str(body["data"])
    if body["type"] == 6:
        await press._until(lambda: bool(press.edits), 30)
        return str(press.edits[0])
    return str(body)


async def _status(fake: FakeDiscord) -> str:
    it = await fake.interact(
        "tournament", {}, sub=["status"], user_id=BOSS_ID, permissions=MANAGE_GUILD
    )
    return str(await it.settled())


async def _checkin_post(fake: FakeDiscord, before: int) -> dict[str, Any]:
    async def posted() -> bool:
        return any(
            "asks to be signed in" in str(p) for p in fake.messages[RESULTS_CHANNEL][before:]
        )

    await _until(posted)
    return next(
        p for p in fake.messages[RESULTS_CHANNEL][before:] if "asks to be signed in" in str(p)
    )


async def test_self_checkin_counts_only_once_a_director_approves(fake: FakeDiscord, bot: LeagueBot):
    await _td(fake, ["settings"], {"results_channel": str(RESULTS_CHANNEL), "self_checkin": "off"})
    it = await fake.interact("checkin", {})
    assert "ask a director" in str(await it.settled())  # the league has not turned it on
    await _td(fake, ["settings"], {"self_checkin": "on"})
    await _td(fake, ["location", "add"], {"name": "Check Bar"})
    await _td(fake, ["season", "add"], {"name": "2026 Fall"})
    it = await fake.interact(
        "tournament",
        {"location": "Check Bar"},
        sub=["open"],
        user_id=BOSS_ID,
        permissions=MANAGE_GUILD,
    )
    assert "Tournament open" in str(await it.settled())
    try:
        before = len(fake.messages.get(RESULTS_CHANNEL, []))
        it = await fake.interact("checkin", {}, username="bea")
        assert "a director will confirm" in str(await it.settled())
        post = await _checkin_post(fake, before)
        buttons = [c for row in post["components"] for c in row["components"]]
        approve = next(b["custom_id"] for b in buttons if b["label"] == "Approve")
        assert "signed in 0" in await _status(fake)  # pending: counts for nothing
        again = await fake.interact("checkin", {}, username="bea")
        assert "asked already" in str(await again.settled())
        press = await fake.press(
            1, approve, components=post["components"], user_id=BOSS_ID, permissions=MANAGE_GUILD
        )
        assert "Check-in approved" in await _edited(press)
        assert "signed in 1" in await _status(fake)
        twice = await fake.press(
            1, approve, components=post["components"], user_id=BOSS_ID, permissions=MANAGE_GUILD
        )
        assert "signed in 1" in await _status(fake)
        assert "answered already" in await _edited(twice)
        # A player may not answer his own request.
        before = len(fake.messages[RESULTS_CHANNEL])
        it = await fake.interact("checkin", {}, user_id=CY, username="cy")
        await it.settled()
        post = await _checkin_post(fake, before)
        buttons = [c for row in post["components"] for c in row["components"]]
        refuse = next(b["custom_id"] for b in buttons if b["label"] == "Refuse")
        own = await fake.press(1, refuse, components=post["components"], user_id=CY)
        assert "Check-in refused" not in await _edited(own)
        press = await fake.press(
            1, refuse, components=post["components"], user_id=BOSS_ID, permissions=MANAGE_GUILD
        )
        assert "Check-in refused" in await _edited(press)
        assert "signed in 1" in await _status(fake)
    finally:
        await _td(fake, ["settings"], {"self_checkin": "off"})
