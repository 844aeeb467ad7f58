"""End to end: the sign-in form's lists in a league of 40 players (Discord).

A select offers 25 names at most: tonight's RSVPs come first, then the regulars (events played
this season, latest night), and nobody already signed in is offered again. The small league's
form (typing a name, both or neither given) is in test_forms_discord.py.
"""

from __future__ import annotations

import datetime as dt
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import pytest_asyncio
from sqlalchemy import text
from sqlmodel import Session

from bot.surfaces.discord import LeagueBot
from rulings import NightSeries
from storage.leagues import league_for
from storage.nights import add_rsvp, schedule_night
from storage.players import add_player
from storage.tournaments import get_open_tournament
from tests.fakediscord import CHANNEL_ID, EPHEMERAL, GUILD_ID, MANAGE_GUILD, FakeDiscord

pytestmark = pytest.mark.asyncio(loop_scope="module")

BOSS: dict[str, Any] = {
    "user_id": 900_000_000_000_000_441,
    "permissions": MANAGE_GUILD,
    "username": "tdbea",
}
LEAGUE = tuple(f"Player {i:02d}" for i in range(1, 41))
RSVPS = ("Player 20", "Player 05", "Player 39")
SIGNED = ("Player 05", "Player 38")  # signed in before the form opens


def _text(message: dict[str, Any]) -> str:
    embed = message["embeds"][0]
    return "\n".join([embed.get("title") or "", embed.get("description") or ""])


async def _director(fake: FakeDiscord, command: str, sub: list[str], **options: Any) -> Any:
    it = await fake.interact(command, options, sub=sub, **BOSS)
    return await it.settled()


async def _night(bot: LeagueBot) -> dict[str, bool]:
    def read(*, session: Session) -> dict[str, bool]:
        chart = get_open_tournament(session=session, channel_id=CHANNEL_ID).night.chart
        return {chart.name(k): k in chart.seated for k in chart.players}

    return await bot.db.run(read)


async def _entries(bot: LeagueBot) -> int:
    def count(*, session: Session) -> int:
        return int(session.execute(text("select count(*) from tournament_entry")).scalar_one())

    return await bot.db.run(count)


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def league(fake: FakeDiscord, bot: LeagueBot) -> None:
    """40 players; Player 39 played twice this season, 37 and 38 once (37 the later night);
    tonight's night at the Brewpub has three RSVPs; Player 05 and Player 38 are signed in."""
    await _director(fake, "td", ["season", "add"], name="2026 Fall")
    await _director(fake, "td", ["location", "add"], name="Brewpub")
    today = dt.datetime.now(ZoneInfo(bot.settings.timezone)).date()

    def players(*, session: Session) -> None:
        league = league_for(session=session, guild_id=GUILD_ID)
        for name in LEAGUE:
            add_player(session=session, league_id=league.id, name=name, allow_new=True, actor="t")
        series = NightSeries(
            location="Brewpub", weekday=today.weekday(), start=dt.time(19), first=today
        )
        info = schedule_night(session=session, league_id=league.id, series=series, actor="t")
        for name in RSVPS:
            add_rsvp(
                session=session,
                info=info,
                day=today,
                name=name,
                discord_id=None,
                source="typed",
                today=today,
            )

    await bot.db.run(players)
    for finish, day in (
        ("1 Player 39, 2 Player 38", "2026-10-02"),
        ("1 Player 39, 2 Player 37", "2026-10-09"),
    ):
        stored = await _director(
            fake, "td", ["result"], finish=finish, location="Brewpub", date=day
        )
        assert "Imported" in _text(stored)
    opened = await _director(fake, "tournament", ["open"], location="Brewpub", seats=8)
    assert "Tournament open" in _text(opened)
    for name in SIGNED:
        assert "Signed in" in _text(await _director(fake, "tournament", ["register"], player=name))


async def _form(fake: FakeDiscord) -> dict[str, Any]:
    it = await fake.interact("tournament", {}, sub=["register"], **BOSS)
    body = await it.response()
    assert body["type"] == 9, body  # MODAL
    return dict(body["data"])


def _lists(modal: dict[str, Any]) -> list[list[str]]:
    selects = [c["component"] for c in modal["components"] if c["component"]["type"] == 3]
    return [[o["value"] for o in s["options"]] for s in selects]


async def test_the_form_lists_rsvps_then_regulars_and_nobody_signed_in(
    fake: FakeDiscord, bot: LeagueBot, league: None
):
    modal = await _form(fake)
    lists = _lists(modal)
    signed = set(await _night(bot))
    assert signed >= set(SIGNED)
    left = len(LEAGUE) - len(signed)  # 38 before any test signs one more in
    assert [len(names) for names in lists] == [25, left - 25]  # over two lists
    offered = [n for names in lists for n in names]
    # Tonight's RSVPs not signed in, in RSVP order; then by nights played this season
    # (Player 38 played too but is signed in), then the latest night; then by name.
    assert offered[:5] == ["Player 20", "Player 39", "Player 37", "Player 01", "Player 02"]
    assert sorted(offered) == sorted(n for n in LEAGUE if n not in signed)
    assert len(offered) == len(set(offered))
    ids = [c["component"]["custom_id"] for c in modal["components"]]
    assert ids == ["player", "player.2", "player.typed", "checks", "brought"]  # Discord's 5
    labels = [c["label"] for c in modal["components"]][:2]
    assert labels == ["Player 1-25", f"Player 26-{left}"]


async def test_a_player_from_the_second_list_signs_in_once(
    fake: FakeDiscord, bot: LeagueBot, league: None
):
    modal = await _form(fake)
    last = _lists(modal)[1][-1]
    done = await fake.submit_modal(modal, {"player.2": [last]}, **BOSS)
    assert "Signed in" in _text(await done.settled())
    assert (await _night(bot)).get(last) is True
    before = await _entries(bot)

    again = await fake.submit_modal(modal, {"player.2": [last]}, **BOSS)  # a double tap
    body = await again.settled()
    assert int(body.get("flags") or 0) & EPHEMERAL
    assert "already signed in" in _text(body)
    assert await _entries(bot) == before

    # Once signed in, he is no longer offered.
    assert last not in [n for names in _lists(await _form(fake)) for n in names]


async def test_one_name_picked_in_each_list_is_one_line_and_nothing_written(
    fake: FakeDiscord, bot: LeagueBot, league: None
):
    modal = await _form(fake)
    first, second = _lists(modal)[0][0], _lists(modal)[1][0]
    before = await _entries(bot)
    it = await fake.submit_modal(modal, {"player": [first], "player.2": [second]}, **BOSS)
    body = await it.settled()
    assert int(body.get("flags") or 0) & EPHEMERAL
    assert f"player: pick one only, not {first}, {second}." in _text(body)
    assert await _entries(bot) == before
    night = await _night(bot)
    assert first not in night
    assert second not in night
