"""End to end: /clock on the real discord.py client against the fake Discord, with restarts.

The clock's timer really runs here, with levels of three seconds; everything else about the
clock is tested with injected time (tests/rulings/clock/test_clock.py,
tests/bot/test_clock_service.py).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from pathlib import Path
from typing import Any

import pytest

from bot.errors import REFUSAL
from bot.surfaces.discord import EXTENSIONS, LeagueBot
from storage import clocks
from storage.db import make_engine
from storage.guild_settings import update_guild_settings
from tests.fakediscord import (
    CHANNEL_ID,
    EPHEMERAL,
    GUILD_ID,
    MANAGE_GUILD,
    FakeDiscord,
    RecordedRequest,
    snowflake,
    start_bot,
    stop_bot,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

ROLE = 900_000_000_000_000_777
LEVEL_S = 3.0  # level_minutes=0.05
TOLERANCE_S = 0.75


def make_clock_bot(fake: FakeDiscord, db_url: str) -> LeagueBot:
    extensions = (
        EXTENSIONS
        if "bot.surfaces.discord.clock" in EXTENSIONS
        else (*EXTENSIONS, "bot.surfaces.discord.clock")
    )
    return LeagueBot(
        fake.settings(database_url=db_url),
        make_engine(db_url),
        extensions=extensions,
        guild_ready_timeout=0.01,
    )


async def clock(
    fake: FakeDiscord,
    sub: str,
    options: dict[str, Any] | None = None,
    *,
    director: bool = True,
    role: int | None = None,
    channel: int | None = None,
    member_roles: list[int] | None = None,
) -> dict[str, Any]:
    """Run ``/clock <sub>`` and return what the user finally sees."""
    opts: list[dict[str, Any]] = [
        {
            "name": k,
            "type": 10 if isinstance(v, float) else 4 if isinstance(v, int) else 3,
            "value": v,
        }
        for k, v in (options or {}).items()
    ]
    data: dict[str, Any] = {"id": str(snowflake()), "name": "clock", "type": 1}
    if role is not None:
        opts.append({"name": "ping_role", "type": 8, "value": str(role)})
        data["resolved"] = {
            "roles": {
                str(role): {
                    "id": str(role),
                    "name": "players",
                    "color": 0,
                    "hoist": False,
                    "position": 1,
                    "permissions": "0",
                    "managed": False,
                    "mentionable": True,
                    "flags": 0,
                }
            }
        }
    if channel is not None:
        opts.append({"name": "channel", "type": 7, "value": str(channel)})
        data.setdefault("resolved", {})["channels"] = {
            str(channel): {"id": str(channel), "type": 0, "name": "table-2", "permissions": "0"}
        }
    data["options"] = [{"name": sub, "type": 1, "options": opts}]
    payload = fake._interaction_base(
        2,
        data,
        user_id=42,
        permissions=MANAGE_GUILD if director else 0,
        roles=member_roles,
        username="td",
    )
    it = await fake._send_interaction(payload)
    return await it.settled()


async def press(
    fake: FakeDiscord,
    status: RecordedRequest,
    message_id: int,
    custom_id: str,
    *,
    director: bool,
    member_roles: list[int] | None = None,
) -> dict[str, Any]:
    """Press a button of the status message, sent as Discord does: with the message's buttons."""
    data = {"custom_id": custom_id, "component_type": 2}
    payload = fake._interaction_base(
        3,
        data,
        user_id=42,
        permissions=MANAGE_GUILD if director else 0,
        roles=member_roles,
        username="td",
    )
    payload["message"] = fake._message(status.body, CHANNEL_ID, message_id=message_id)
    it = await fake._send_interaction(payload)
    return await it.settled()


def posts(fake: FakeDiscord) -> list[RecordedRequest]:
    """Messages the bot posted in the channel (edits and repeats Discord dropped excluded)."""
    return [
        r
        for r in fake.requests_to("POST", f"/channels/{CHANNEL_ID}/messages")
        if r.status == 200 and not r.deduplicated
    ]


def announcements(fake: FakeDiscord) -> list[RecordedRequest]:
    return [r for r in posts(fake) if r.body.get("content")]


async def wait_for(
    fake: FakeDiscord, text: str, wait_s: float = 10.0, *, after: int = 0
) -> RecordedRequest:
    """The first announcement containing ``text`` among those from index ``after`` on."""
    async with asyncio.timeout(wait_s):
        while True:
            for r in announcements(fake)[after:]:
                if text in r.body["content"]:
                    return r
            await asyncio.sleep(0.02)


def texts(fake: FakeDiscord) -> list[str]:
    return [r.body["content"] for r in announcements(fake)]


async def test_clock_runs_pings_only_the_role_and_resumes_exactly_after_restarts(
    fake: FakeDiscord, tmp_path: Path
):
    db_url = f"sqlite:///{tmp_path / 'clock.db'}"
    first = make_clock_bot(fake, db_url)
    await start_bot(fake, first)
    already = len(posts(fake))
    # Every wait looks only at what this test's clock posted (other tests share the channel).
    start = len(announcements(fake))
    body = await clock(fake, "start", {"structure": "bar-league", "level_minutes": 0.05}, role=ROLE)
    assert body["flags"] & EPHEMERAL
    assert "Bar League clock started" in body["embeds"][0]["description"]
    status = posts(fake)[already]
    assert status.body["embeds"][0]["title"] == "Tournament clock: Bar League"
    buttons = [c["custom_id"] for row in status.body["components"] for c in row["components"]]
    assert buttons == ["pf:clock:pause:1", "pf:clock:plus1:1"]

    level1 = await wait_for(fake, "Level 1: blinds 1/2", after=start)
    assert level1.body["content"] == f"<@&{ROLE}> Level 1: blinds 1/2"
    assert level1.body["allowed_mentions"] == {"parse": [], "roles": [ROLE]}
    level2 = await wait_for(fake, "Level 2: blinds 2/4", after=start)
    assert abs(level2.at - level1.at - LEVEL_S) < TOLERANCE_S

    # Stop the bot mid-level 2 and start another on the same database within the level.
    await stop_bot(first)
    first.engine.dispose()
    second = make_clock_bot(fake, db_url)
    await start_bot(fake, second)
    assert time.perf_counter() - level1.at < 2 * LEVEL_S, "restart too slow for this test"
    level3 = await wait_for(fake, "Level 3: blinds 4/8", after=start)
    assert abs(level3.at - level1.at - 2 * LEVEL_S) < TOLERANCE_S  # exact resumption
    assert texts(fake)[start:].count(f"<@&{ROLE}> Level 2: blinds 2/4") == 1
    status_now = await clock(fake, "status", director=False)
    assert status_now["flags"] & EPHEMERAL
    fields = {f["name"]: f["value"] for f in status_now["embeds"][0]["fields"]}
    assert fields["Now"] == "**Level 3**: blinds **4/8**"

    # Down across a level change: the missed level collapses into one catch-up.
    await stop_bot(second)
    second.engine.dispose()
    await asyncio.sleep(LEVEL_S + 0.5)
    third = current = make_clock_bot(fake, db_url)
    before = len(announcements(fake))
    await start_bot(fake, third)
    try:
        catch_up = await wait_for(fake, "We are now at level", after=before)
        after_restart = announcements(fake)[before:]
        assert after_restart[0] is catch_up  # first thing posted, and the only catch-up
        assert [r for r in after_restart if "We are now" in r.body["content"]] == [catch_up]
        assert catch_up.body["content"].startswith(f"<@&{ROLE}> We are now at level")
        missed = int(catch_up.body["content"].split("level ")[1].split(":")[0])
        following = await wait_for(fake, f"Level {missed + 1}: blinds", after=before)
        assert abs(following.at - level1.at - missed * LEVEL_S) < TOLERANCE_S

        # Nothing was ever announced twice, and the levels came in order.
        levels = [t for t in texts(fake)[start:] if "Level " in t and "blinds" in t]
        assert len(levels) == len(set(levels))
        numbers = [int(t.split("Level ")[1].split(":")[0]) for t in levels]
        assert numbers == sorted(numbers)

        # A pause from the status message's button: private reply, public unpinging notice.
        record = await third.db.run(clocks.get_clock, clock_id=1)
        assert record.status_message_id is not None
        pressed = len(announcements(fake))
        reply = await press(
            fake, status, record.status_message_id, "pf:clock:pause:1", director=True
        )
        assert reply["flags"] & EPHEMERAL
        notice = await wait_for(fake, "The clock is paused", after=pressed)
        assert notice.body["allowed_mentions"] == {"parse": []}
        assert not notice.body["content"].startswith("<@&")
        count = len(announcements(fake))

        # A paused clock stays paused across a restart: no catch-up, no level change.
        await stop_bot(third)
        third.engine.dispose()
        current = make_clock_bot(fake, db_url)
        await start_bot(fake, current)
        await asyncio.sleep(LEVEL_S + 0.5)
        assert len(announcements(fake)) == count
        paused = await clock(fake, "status", director=False)
        fields = {f["name"]: f["value"] for f in paused["embeds"][0]["fields"]}
        assert fields["Time left"].endswith("(paused)")
        body = await clock(fake, "end")
        assert "Ended" in body["embeds"][0]["description"]
    finally:
        await stop_bot(current)
        current.engine.dispose()


async def test_directors_only_and_clear_errors(fake: FakeDiscord, tmp_path: Path):
    bot = make_clock_bot(fake, f"sqlite:///{tmp_path / 'rules.db'}")
    await start_bot(fake, bot)
    try:
        refused = await clock(fake, "start", {"level_minutes": 0.05}, director=False)
        assert refused["flags"] & EPHEMERAL
        assert REFUSAL in refused["embeds"][0]["description"]
        none = await clock(fake, "status", director=False)
        assert "No clock is running in this channel" in none["embeds"][0]["description"]

        bad = await clock(fake, "start", {"warnings": "soon"})
        assert "warnings: 'soon' is not a list of minutes" in bad["embeds"][0]["description"]
        tiny = await clock(fake, "start", {"warnings": "5 0.001"})
        assert "Warnings must come between 1 second" in tiny["embeds"][0]["description"]
        assert await bot.db.run(clocks.list_running_clocks) == []  # refused: nothing written

        await clock(fake, "start", {"structure": "btown", "level_minutes": 0.5, "warnings": "0.1"})
        again = await clock(fake, "start", {"structure": "btown"})
        assert "already running in this channel" in again["embeds"][0]["description"]
        ante = await clock(fake, "ante", {"amount": 150})
        assert ante["flags"] & EPHEMERAL
        assert "can't be more than the small blind (100)" in ante["embeds"][0]["description"]
        back = await clock(fake, "back")
        assert "already at the first level" in back["embeds"][0]["description"]
        pause = await clock(fake, "pause", director=False)
        assert REFUSAL in pause["embeds"][0]["description"]

        record = await bot.db.run(clocks.get_clock, clock_id=1)
        assert record.state.events == ()  # nothing above changed the clock
        assert record.state.warning_seconds == (6.0,)
        assert record.status_message_id is not None
        status = [r for r in posts(fake) if r.body.get("embeds")][-1]
        pressed = await press(
            fake, status, record.status_message_id, "pf:clock:plus1:1", director=False
        )
        assert REFUSAL in pressed["embeds"][0]["description"]

        command = next(c for c in fake.commands["global"] if c["name"] == "clock")
        subs = {o["name"]: o for o in command["options"]}
        assert set(subs) == {
            "start", "pause", "resume", "next", "back", "add-time", "level", "ante", "end", "status"
        }  # fmt: skip
        start_options = {o["name"]: o for o in subs["start"]["options"]}
        assert start_options["channel"]["channel_types"] == [0, 5, 2]  # text, news, voice
        assert start_options["level_minutes"]["type"] == 10  # decimals allowed
        assert start_options["warnings"]["type"] == 3
        elsewhere = CHANNEL_ID + 1
        other = await clock(fake, "start", {"structure": "poker-pub"}, channel=elsewhere)
        assert f"clock started in <#{elsewhere}>" in other["embeds"][0]["description"]
        first = await fake.wait_message(elsewhere, count=2)  # the status, then level 1
        assert first["content"] == "Level 1: blinds 25/50"
        assert first["allowed_mentions"] == {"parse": []}  # no ping role: nobody is pinged
        several = await clock(fake, "status", director=False)  # this channel's own clock
        assert "blinds **100/200**" in several["embeds"][0]["fields"][0]["value"]

        jumped = len(announcements(fake))
        jump = await clock(fake, "level", {"n": 6})
        assert "Level 6: blinds 1,000/2,000" in jump["embeds"][0]["description"]
        await wait_for(fake, "Level 6: blinds 1,000/2,000", after=jumped)
        taken = len(announcements(fake))
        added = await clock(fake, "add-time", {"minutes": -0.25})
        assert added["flags"] & EPHEMERAL
        await wait_for(fake, "15 seconds taken off", after=taken)
        ante_ok = await clock(fake, "ante", {"amount": 500})
        assert "ante 500" in ante_ok["embeds"][0]["description"]
        assert texts(fake)[-1].startswith("Ante added: 500 from level 6 on")
        await clock(fake, "end")
    finally:
        await stop_bot(bot)
        bot.engine.dispose()


DIRECTOR_ROLE = 900_000_000_000_000_888
CLOCK_ROLE = 900_000_000_000_000_999


async def test_league_director_role_runs_the_clock_and_the_configured_role_is_pinged(
    fake: FakeDiscord, tmp_path: Path
):
    bot = make_clock_bot(fake, f"sqlite:///{tmp_path / 'roles.db'}")
    await start_bot(fake, bot)
    before = len(announcements(fake))  # the fake is shared by this module's tests
    try:
        await bot.db.run(
            update_guild_settings,
            guild_id=GUILD_ID,
            actor="test",
            director_role_id=DIRECTOR_ROLE,
            clock_ping_role_id=CLOCK_ROLE,
        )
        # A plain player (a role, but not the director's): refused privately, nothing written.
        refused = await clock(
            fake, "start", {"level_minutes": 0.5}, director=False, member_roles=[CLOCK_ROLE]
        )
        assert refused["flags"] & EPHEMERAL
        assert refused["embeds"][0]["description"] == REFUSAL
        assert await bot.db.run(clocks.list_running_clocks) == []

        # The director role without Manage Server: starts (no ping_role given) and pauses.
        started = await clock(
            fake, "start", {"level_minutes": 0.5}, director=False, member_roles=[DIRECTOR_ROLE]
        )
        assert "BTown Poker League clock started" in started["embeds"][0]["description"]
        level1 = await wait_for(fake, "Level 1: blinds 100/200", after=before)
        assert level1.body["content"] == f"<@&{CLOCK_ROLE}> Level 1: blinds 100/200"
        assert level1.body["allowed_mentions"] == {"parse": [], "roles": [CLOCK_ROLE]}

        pause = await clock(fake, "pause", director=False, member_roles=[CLOCK_ROLE])
        assert pause["embeds"][0]["description"] == REFUSAL
        record = await bot.db.run(clocks.get_clock, clock_id=1)
        assert record.state.events == ()
        assert record.status_message_id is not None
        status = [r for r in posts(fake) if r.body.get("embeds")][-1]
        pressed = await press(
            fake, status, record.status_message_id, "pf:clock:pause:1", director=False
        )
        assert pressed["embeds"][0]["description"] == REFUSAL
        assert (await bot.db.run(clocks.get_clock, clock_id=1)).state.events == ()

        paused = await clock(fake, "pause", director=False, member_roles=[DIRECTOR_ROLE])
        assert paused["flags"] & EPHEMERAL
        await wait_for(fake, "The clock is paused", after=before)
        # The status message shows "Resume" once its next edit is due (at most every 30 s);
        # here, one posted before the buttons were actions (``clock:resume:1``) still works.
        legacy = json.loads(json.dumps(status.body).replace("pf:clock:pause:1", "clock:resume:1"))
        resumed = await press(
            fake,
            dataclasses.replace(status, body=legacy),
            record.status_message_id,
            "clock:resume:1",
            director=False,
            member_roles=[DIRECTOR_ROLE],
        )
        assert resumed["flags"] & EPHEMERAL
        await wait_for(fake, "The clock is running again", after=before)
        actions = [
            e.action.value for e in (await bot.db.run(clocks.get_clock, clock_id=1)).state.events
        ]
        assert actions == ["pause", "resume"]
        everyone = await clock(fake, "status", director=False)  # status stays open to all
        assert everyone["embeds"][0]["fields"][0]["value"] == "**Level 1**: blinds **100/200**"
        await clock(fake, "end")
    finally:
        await stop_bot(bot)
        bot.engine.dispose()


async def test_a_button_pressed_in_another_server_does_not_touch_this_servers_clock(
    fake: FakeDiscord, tmp_path: Path
):
    bot = make_clock_bot(fake, f"sqlite:///{tmp_path / 'guilds.db'}")
    await start_bot(fake, bot)
    try:
        await clock(fake, "start", {"structure": "btown", "level_minutes": 0.5})
        record = await bot.db.run(clocks.get_clock, clock_id=1)
        assert record.status_message_id is not None
        # A manager of another server crafts the same custom id on a message there.
        payload = fake._interaction_base(
            3,
            {"custom_id": "pf:clock:pause:1", "component_type": 2},
            user_id=43,
            permissions=MANAGE_GUILD,
            guild_id=GUILD_ID + 1,
        )
        status = [r for r in posts(fake) if r.body.get("embeds")][-1]
        payload["message"] = fake._message(status.body, CHANNEL_ID, message_id=snowflake())
        reply = await (await fake._send_interaction(payload)).settled()
        assert reply["flags"] & EPHEMERAL
        assert "not running on this server" in reply["embeds"][0]["description"]
        assert (await bot.db.run(clocks.get_clock, clock_id=1)).state.events == ()
        await clock(fake, "end")
    finally:
        await stop_bot(bot)
        bot.engine.dispose()


async def test_start_without_a_structure_runs_the_leagues_own(fake: FakeDiscord, tmp_path: Path):
    from storage.guild_settings import ensure_guild_league
    from storage.league_rules import update_league_rules

    bot = make_clock_bot(fake, f"sqlite:///{tmp_path / 'pub.db'}")
    await start_bot(fake, bot)
    try:
        command = next(c for c in fake.commands["global"] if c["name"] == "clock")
        start_sub = next(o for o in command["options"] if o["name"] == "start")
        structure = next(o for o in start_sub["options"] if o["name"] == "structure")
        assert structure["description"] == "Blind structure (default: the league's)"

        # A server whose league is a BTown league (the default preset) gets BTown's blinds.
        body = await clock(fake, "start", {"level_minutes": 0.5})
        assert "BTown Poker League clock started" in body["embeds"][0]["description"]
        await clock(fake, "end")

        def to_poker_pub() -> None:
            from storage.db import session_scope

            with session_scope(bot.engine) as session:
                league = ensure_guild_league(session=session, guild_id=GUILD_ID, actor="test")
                update_league_rules(
                    session=session, league_id=league.id, preset="poker-pub", actor="test"
                )

        await asyncio.to_thread(to_poker_pub)
        body = await clock(fake, "start", {"level_minutes": 0.5})
        assert "The Poker Pub clock started" in body["embeds"][0]["description"]
        assert "Level 1: blinds 25/50" in body["embeds"][0]["description"]
        await clock(fake, "end")

        named = await clock(fake, "start", {"structure": "btown", "level_minutes": 0.5})
        assert "BTown Poker League clock started" in named["embeds"][0]["description"]
        await clock(fake, "end")
    finally:
        await stop_bot(bot)
        bot.engine.dispose()
