"""End to end: /tournament bust with no players opens a form of the seated players (Discord)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import Session

from bot.surfaces.discord import LeagueBot
from storage.leagues import league_for
from storage.players import add_player
from storage.tournaments import get_open_tournament
from tests.fakediscord import CHANNEL_ID, EPHEMERAL, GUILD_ID, MANAGE_GUILD, FakeDiscord

pytestmark = pytest.mark.asyncio(loop_scope="module")

BOSS: dict[str, Any] = {
    "user_id": 900_000_000_000_000_431,
    "permissions": MANAGE_GUILD,
    "username": "tdann",
}


def _text(message: dict[str, Any]) -> str:
    embed = message["embeds"][0]
    return "\n".join([embed.get("title") or "", embed.get("description") or ""])


async def _director(fake: FakeDiscord, command: str, sub: list[str], **options: Any) -> Any:
    it = await fake.interact(command, options, sub=sub, **BOSS)
    return await it.settled()


async def _seated(bot: LeagueBot) -> dict[str, bool]:
    def read(*, session: Session) -> dict[str, bool]:
        chart = get_open_tournament(session=session, channel_id=CHANNEL_ID).night.chart
        return {chart.name(k): k in chart.seated for k in chart.players}

    return await bot.db.run(read)


FIRST = ("Ann", "Bob", "Cy", "Dee")
MORE = tuple(f"Guest {chr(ord('A') + i)}{chr(ord('a') + i)}" for i in range(26))


def _options(component: dict[str, Any]) -> list[str]:
    return [o["value"] for o in component["options"]]


async def _night(fake: FakeDiscord, bot: LeagueBot) -> None:
    """Tonight's tournament with Ann, Bob, Cy and Dee seated and play begun."""
    await _director(fake, "td", ["season", "add"], name="2026 Fall")
    await _director(fake, "td", ["location", "add"], name="Brewpub")

    def players(*, session: Session) -> None:
        league = league_for(session=session, guild_id=GUILD_ID)
        for name in FIRST + MORE:
            add_player(session=session, league_id=league.id, name=name, allow_new=True, actor="t")

    await bot.db.run(players)
    await _director(fake, "tournament", ["open"], location="Brewpub", seats=8, tables=4)
    for name in FIRST:
        await _director(fake, "tournament", ["register"], player=name)
    await _director(fake, "tournament", ["start"])


async def test_bust_with_no_players_offers_the_seated_players(fake: FakeDiscord, bot: LeagueBot):
    await _night(fake, bot)
    it = await fake.interact("tournament", {}, sub=["bust"], **BOSS)
    body = await it.response()
    assert body["type"] == 9  # MODAL
    modal = body["data"]
    assert modal["custom_id"] == "pf:form:tournament.bust"
    picker = modal["components"][0]["component"]
    assert picker["type"] == 3
    assert sorted(_options(picker)) == sorted(FIRST)
    assert picker["max_values"] == 4  # several on one hand
    chips = modal["components"][1]["component"]
    assert (chips["type"], chips["custom_id"]) == (4, "chips")

    done = await fake.submit_modal(modal, {"players": ["Cy", "Dee"], "chips": "5000, 9000"}, **BOSS)
    shown = _text(await done.settled())
    assert "Bust" in shown
    assert "Cy**: 4th" in shown  # fewer chips at the start of the hand: out first (2.G.e.2)
    assert "Dee**: 3rd" in shown
    assert await _seated(bot) == {"Ann": True, "Bob": True, "Cy": False, "Dee": False}

    # A big room: a list shows 25 at most, so the seated players come in several lists.
    seated = [n for n, sits in (await _seated(bot)).items() if sits]
    late = [n for n in MORE if n not in seated]
    for name in late:  # late sign-ins: the big blind now, no clock runs here
        await _director(fake, "tournament", ["register"], player=name, big_blind=400)
    seated = [n for n, sits in (await _seated(bot)).items() if sits]
    assert len(seated) == 28  # more than one list of 25

    it = await fake.interact("tournament", {}, sub=["bust"], **BOSS)
    modal = (await it.response())["data"]
    lists = [c["component"] for c in modal["components"] if c["component"]["type"] == 3]
    assert [len(c["options"]) for c in lists] == [25, 3]
    assert sorted(_options(lists[0]) + _options(lists[1])) == sorted(seated)
    assert modal["components"][1]["label"] == "Players 26-28"
    first, last = _options(lists[0])[0], _options(lists[1])[-1]
    done = await fake.submit_modal(
        modal, {"players": [first], "players.2": [last], "chips": "1000, 2000"}, **BOSS
    )
    shown = _text(await done.settled())
    assert "Bust" in shown
    night = await _seated(bot)
    assert night[first] is False
    assert night[last] is False

    # Nobody picked in any list: one line, nothing written.
    again = await fake.interact("tournament", {}, sub=["bust"], **BOSS)
    modal = (await again.response())["data"]
    empty = await fake.submit_modal(modal, {}, **BOSS)
    assert "players: is required" in _text(await empty.settled())
    assert await _seated(bot) == night


async def test_a_player_gets_no_bust_form(fake: FakeDiscord, bot: LeagueBot):
    it = await fake.interact("tournament", {}, sub=["bust"])
    body = await it.settled()
    assert int(body.get("flags") or 0) & EPHEMERAL
    assert (await it.response())["type"] != 9
