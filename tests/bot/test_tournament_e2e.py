"""End to end: a whole tournament night on Discord (the real client against the fake Discord)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import text
from sqlmodel import Session

from bot.surfaces.discord import LeagueBot
from storage.clocks import find_running_clock
from storage.leagues import get_league
from storage.standings import season_standings
from storage.tournaments import get_open_tournament, latest_tournament
from tests.fakediscord import CHANNEL_ID, EPHEMERAL, GUILD_ID, MANAGE_GUILD, FakeDiscord

pytestmark = pytest.mark.asyncio(loop_scope="module")

DIRECTOR_ID = 900_000_000_000_000_411
RESULTS_CHANNEL = 900_000_000_000_000_811
OTHER_GUILD = 900_000_000_000_000_131


def _channel(channel_id: int) -> dict[str, Any]:
    return {
        "id": str(channel_id),
        "type": 0,
        "name": "results",
        "permissions": "0",
        "guild_id": str(GUILD_ID),
    }


def _text(message: dict[str, Any]) -> str:
    embed = message["embeds"][0]
    fields = "\n".join(f"{f['name']}\n{f['value']}" for f in embed.get("fields") or [])
    footer = (embed.get("footer") or {}).get("text") or ""
    return "\n".join([embed.get("title") or "", embed.get("description") or "", fields, footer])


async def director(
    fake: FakeDiscord, command: str, sub: list[str], guild: int = GUILD_ID, **options: Any
) -> dict[str, Any]:
    it = await fake.interact(
        command,
        options,
        sub=sub,
        user_id=DIRECTOR_ID,
        permissions=MANAGE_GUILD,
        username="tdmike",
        guild_id=guild,
    )
    return await it.settled()


async def _entries(bot: LeagueBot) -> list[tuple[Any, ...]]:
    def rows(*, session: Session) -> list[tuple[Any, ...]]:
        return [tuple(r) for r in session.execute(text("select * from tournament_entry"))]

    return await bot.db.run(rows)


async def test_tournament_is_one_slash_group(fake: FakeDiscord, bot: LeagueBot):
    group = next(c for c in fake.commands["global"] if c["name"] == "tournament")
    subs = {o["name"] for o in group["options"]}
    assert {"open", "register", "start", "bust", "balance", "move", "undo", "seats"} <= subs
    assert {"status", "chop", "finish", "button"} <= subs
    assert "show" not in subs  # the CLI's own


async def test_a_whole_night_on_discord(fake: FakeDiscord, bot: LeagueBot):
    await director(fake, "td", ["season", "add"], name="2026 Fall")
    await director(fake, "td", ["location", "add"], name="Brewpub")
    opened = await director(fake, "tournament", ["open"], location="Brewpub", seats=4, tables=2)
    assert "Tournament open: Brewpub" in _text(opened)
    for name in ("Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus"):
        signed = await director(fake, "tournament", ["register"], player=name, on_time=True)
        assert "20,000 chips" in _text(signed)
    await director(fake, "tournament", ["start"])

    # A player sees the seats and the status, but cannot record a bust (nothing written).
    seats = await (await fake.interact("tournament", {}, sub=["seats"])).settled()
    assert "Table 1" in _text(seats)
    before = await _entries(bot)
    refused = await (await fake.interact("tournament", {"players": "Ann"}, sub=["bust"])).settled()
    assert int(refused.get("flags") or 0) & EPHEMERAL
    assert await _entries(bot) == before

    # A bad bust is one private line and writes nothing.
    bad = await director(fake, "tournament", ["bust"], players="Ann, Bob", chips="100")
    assert int(bad.get("flags") or 0) & EPHEMERAL
    assert "chip count" in _text(bad)
    assert await _entries(bot) == before

    busted = await director(fake, "tournament", ["bust"], players="Gus, Fay", chips="3000, 3000")
    assert "6th" in _text(busted)
    assert "share the position" in _text(busted)
    balanced = await director(fake, "tournament", ["balance"])
    assert "Balance" in _text(balanced)
    await director(fake, "tournament", ["bust"], players="Eve")
    undone = await director(fake, "tournament", ["undo"])
    assert "the bust of Eve" in _text(undone)
    for name in ("Eve", "Dee"):
        await director(fake, "tournament", ["bust"], players=name)
        await director(fake, "tournament", ["balance"])
    status = await (await fake.interact("tournament", {}, sub=["status"])).settled()
    assert "Players left: 3" in _text(status)
    await director(fake, "tournament", ["bust"], players="Cy")
    settings = await fake.interact(
        "td",
        {"results_channel": str(RESULTS_CHANNEL)},
        sub=["settings"],
        user_id=DIRECTOR_ID,
        permissions=MANAGE_GUILD,
        option_types={"results_channel": 7},
        resolved={"channels": {str(RESULTS_CHANNEL): _channel(RESULTS_CHANNEL)}},
    )
    await settings.settled()
    chopped = await director(fake, "tournament", ["chop"], leader="Bob")
    assert "Stored as event" in _text(chopped)
    posted = await fake.wait_message(RESULTS_CHANNEL, count=2)  # after the settings notice
    assert "1st Bob" in _text(posted)
    assert posted["allowed_mentions"] == {"parse": []}

    def standings(*, session: Session) -> list[str]:
        league = get_league(session=session, guild_id=GUILD_ID)
        table = season_standings(session=session, league_id=league.id, season="2026 Fall")
        return [r.row.player for r in table.rows]

    assert await bot.db.run(standings) == ["Bob", "Ann", "Cy", "Dee", "Eve", "Fay", "Gus"]

    def stored(*, session: Session) -> tuple[str, int | None]:
        league = get_league(session=session, guild_id=GUILD_ID)
        record = latest_tournament(session=session, league_id=league.id)
        return record.night.chart.status, record.event_id

    status_now, event_id = await bot.db.run(stored)
    assert status_now == "finished"
    assert event_id is not None
    # The channel is free for the next night.
    with pytest.raises(Exception, match="no tournament is open"):
        await bot.db.run(get_open_tournament, channel_id=CHANNEL_ID)


async def test_start_offers_the_clock_and_late_sign_ins_read_it(fake: FakeDiscord, bot: LeagueBot):
    # Its own server (league), so it runs alone or in any order; it finishes its night.
    g = OTHER_GUILD
    await director(fake, "td", ["season", "add"], guild=g, name="2026 Fall")
    await director(fake, "td", ["location", "add"], guild=g, name="Taproom")
    await director(fake, "tournament", ["open"], guild=g, location="Taproom")
    for name in ("Kim", "Lou"):
        await director(fake, "tournament", ["register"], guild=g, player=name)
    started = await director(fake, "tournament", ["start"], guild=g)
    assert "No clock runs in this channel" in _text(started)
    buttons = [c for row in started["components"] for c in row["components"]]
    assert [b["custom_id"] for b in buttons] == ["pf:tclock:btown"]

    data = {"custom_id": "pf:tclock:btown", "component_type": 2}
    payload = fake._interaction_base(
        3, data, user_id=DIRECTOR_ID, permissions=MANAGE_GUILD, username="tdmike", guild_id=g
    )
    payload["message"] = fake._message(started, CHANNEL_ID, message_id=77)
    pressed = await (await fake._send_interaction(payload)).settled()
    assert "clock started" in _text(pressed)

    def running(*, session: Session) -> int:
        clock = find_running_clock(session=session, channel_id=CHANNEL_ID)
        assert clock is not None
        level = clock.state.structure.steps[0]
        return int(level.big_blind)  # type: ignore[union-attr]

    big_blind = await bot.db.run(running)
    late = await director(fake, "tournament", ["register"], guild=g, player="Mo")
    assert f"late -{2 * big_blind:,} (1.E.d)" in _text(late)
    status = await (await fake.interact("tournament", {}, sub=["status"], guild_id=g)).settled()
    assert "Registration: open (late)" in _text(status)
    assert "Clock: Level 1" in _text(status)
    await director(fake, "clock", ["end"], guild=g)
    await director(fake, "tournament", ["bust"], guild=g, players="Mo, Lou", chips="1, 2")
    done = await director(fake, "tournament", ["finish"], guild=g)
    assert "Stored as event" in _text(done)


async def test_awards_during_the_night_go_into_its_event(fake: FakeDiscord, bot: LeagueBot):
    g = OTHER_GUILD + 1  # its own league
    td = next(c for c in fake.commands["global"] if c["name"] == "td")
    bounty = next(o for o in td["options"] if o["name"] == "bounty")
    assert [(o["name"], o.get("required", False)) for o in bounty["options"][:2]] == [
        ("player", True),
        ("event", False),
    ]
    await director(fake, "td", ["season", "add"], guild=g, name="2026 Fall")
    await director(fake, "td", ["location", "add"], guild=g, name="Cellar")
    none_open = await director(fake, "td", ["bounty"], guild=g, player="Kim", chips=1)
    assert int(none_open.get("flags") or 0) & EPHEMERAL
    assert "no tournament is open in this channel to note it for tonight" in _text(none_open)
    await director(fake, "tournament", ["open"], guild=g, location="Cellar")
    for name in ("Kim", "Lou"):
        await director(fake, "tournament", ["register"], guild=g, player=name)
    await director(fake, "tournament", ["start"], guild=g)
    noted = await director(fake, "td", ["bounty"], guild=g, player="Kim", chips=2)
    assert "Noted for tonight: **Kim**, bounty: 2 chips." in _text(noted)
    await director(fake, "td", ["premium"], guild=g, player="Lou", hand="quads")
    unknown = await director(fake, "td", ["second_chance"], guild=g, player="Zed")
    assert "Zed did not sign in tonight" in _text(unknown)
    status = await (await fake.interact("tournament", {}, sub=["status"], guild_id=g)).settled()
    assert "Bounty chips: Kim 2\nPremium hands: Lou (quads)" in _text(status)
    await director(fake, "tournament", ["bust"], guild=g, players="Lou")
    done = await director(fake, "tournament", ["finish"], guild=g)
    assert "1st Kim: 1,300 RP, 250 BP" in _text(done)  # 1,200 + 2 bounty chips x 50
    assert "2nd Lou: 900 RP, 200 BP" in _text(done)  # 800 + quads 100

    def stored(*, session: Session) -> list[tuple[Any, ...]]:
        league = get_league(session=session, guild_id=g)
        table = season_standings(session=session, league_id=league.id, season="2026 Fall")
        return [(r.row.player, r.row.rp, r.row.bp) for r in table.rows]

    assert await bot.db.run(stored) == [("Kim", 1300, 250), ("Lou", 900, 200)]
