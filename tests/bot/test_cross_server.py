"""End to end: an interaction naming another server changes nothing of this server's night.

Discord never sends one, but the check belongs everywhere: a forged interaction from server B
in a channel where server A's league runs its tournament night (``/tournament`` writes,
``/td bounty`` and the awards, the "Start the clock" button, ``/clock start``) finds no night
and writes no row, in any table.
"""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select
from sqlmodel import Session, SQLModel

from bot.surfaces.discord import LeagueBot
from storage.tournaments import get_open_tournament
from tests.fakediscord import CHANNEL_ID, EPHEMERAL, GUILD_ID, MANAGE_GUILD, FakeDiscord

pytestmark = pytest.mark.asyncio(loop_scope="module")

DIRECTOR_ID = 900_000_000_000_000_421
FORGER_ID = 900_000_000_000_000_422
OTHER_GUILD = 900_000_000_000_000_141


async def _as(fake: FakeDiscord, guild: int, command: str, sub: list[str], **options: Any):
    it = await fake.interact(
        command,
        options,
        sub=sub,
        user_id=DIRECTOR_ID if guild == GUILD_ID else FORGER_ID,
        permissions=MANAGE_GUILD,  # the forger manages his own server
        guild_id=guild,
    )
    return await it.settled()


async def _press(fake: FakeDiscord, guild: int, custom_id: str) -> dict[str, Any]:
    data = {"custom_id": custom_id, "component_type": 2}
    payload = fake._interaction_base(
        3, data, user_id=FORGER_ID, permissions=MANAGE_GUILD, guild_id=guild
    )
    button = {"type": 2, "style": 1, "label": "Start the clock (btown)", "custom_id": custom_id}
    body = {"content": "", "components": [{"type": 1, "components": [button]}]}
    payload["message"] = fake._message(body, CHANNEL_ID, message_id=78)
    return await (await fake._send_interaction(payload)).settled()


async def _every_row(bot: LeagueBot) -> dict[str, list[tuple[Any, ...]]]:
    def rows(*, session: Session) -> dict[str, list[tuple[Any, ...]]]:
        return {
            t.name: sorted(map(tuple, session.execute(select(t))), key=repr)
            for t in SQLModel.metadata.sorted_tables
            if t.name != "command_sync"
        }

    return await bot.db.run(rows)


def _text(body: dict[str, Any]) -> str:
    embed = (body.get("embeds") or [{}])[0]
    return f"{embed.get('title') or ''}\n{embed.get('description') or ''}"


async def test_a_forged_interaction_from_another_server_changes_no_row(
    fake: FakeDiscord, bot: LeagueBot
):
    await _as(fake, GUILD_ID, "td", ["season", "add"], name="2026 Fall")
    await _as(fake, GUILD_ID, "td", ["location", "add"], name="Brewpub")
    await _as(fake, GUILD_ID, "tournament", ["open"], location="Brewpub", seats=4, tables=2)
    for name in ("Ann", "Bob", "Cy", "Dee", "Eve"):
        await _as(fake, GUILD_ID, "tournament", ["register"], player=name)
    # The other server has a league of its own (its writes find that league, not A's night).
    await _as(fake, OTHER_GUILD, "td", ["season", "add"], name="2026 Fall")
    before = await _every_row(bot)

    forged: list[tuple[str, list[str], dict[str, Any]]] = [
        ("tournament", ["register"], {"player": "Zed"}),
        ("tournament", ["start"], {}),
        ("tournament", ["bust"], {"players": "Ann"}),
        ("tournament", ["move"], {"player": "Bob", "table": 2}),
        ("tournament", ["button"], {"table": 1, "seat": 1}),
        ("tournament", ["balance"], {}),
        ("tournament", ["undo"], {}),
        ("tournament", ["finish"], {"chips": "Ann 1, Bob 2, Cy 3, Dee 4, Eve 5"}),
        ("tournament", ["chop"], {"leader": "Ann"}),
        ("td", ["bounty"], {"player": "Ann", "chips": 3}),
        ("td", ["premium"], {"player": "Ann", "hand": "quads"}),
        ("td", ["second_chance"], {"player": "Ann"}),
        ("clock", ["start"], {"structure": "btown"}),
    ]
    for command, sub, options in forged:
        answer = await _as(fake, OTHER_GUILD, command, sub, **options)
        assert int(answer.get("flags") or 0) & EPHEMERAL, (command, sub)
        assert "no tournament is open" in _text(answer) or "not one of this server's" in _text(
            answer
        ), (command, sub, _text(answer))
    pressed = await _press(fake, OTHER_GUILD, "pf:tclock:btown")
    assert "not one of this server's" in _text(pressed)
    assert await _every_row(bot) == before  # not one row written, changed or removed

    # The night is still A's to run: the same commands from A do change it.
    await _as(fake, GUILD_ID, "tournament", ["start"])
    busted = await _as(fake, GUILD_ID, "tournament", ["bust"], players="Ann")
    assert "5th" in _text(busted)

    def night(*, session: Session) -> int:
        return get_open_tournament(session=session, channel_id=CHANNEL_ID, guild_id=GUILD_ID).seq

    assert await bot.db.run(night) == 7  # 5 sign-ins, the start, the bust


async def test_a_forged_interaction_cannot_touch_another_servers_events(
    fake: FakeDiscord, bot: LeagueBot
):
    g_a, g_b = GUILD_ID + 7, OTHER_GUILD + 7  # servers of this test alone
    await _as(fake, g_a, "td", ["season", "add"], name="2026 Fall")
    await _as(fake, g_a, "td", ["location", "add"], name="Taproom")
    await _as(
        fake, g_a, "td", ["result"], finish="1 Ann, 2 Bob, 3 Cy", location="Taproom",
        new_players="Ann, Bob, Cy",
    )  # fmt: skip
    await _as(fake, g_b, "td", ["season", "add"], name="2026 Fall")

    def a_event(*, session: Session) -> int:
        from storage.events import list_events
        from storage.leagues import get_league

        league = get_league(session=session, guild_id=g_a)
        (event,) = list_events(session=session, league_id=league.id)
        return event.id

    event = await bot.db.run(a_event)
    before = await _every_row(bot)
    forged: list[tuple[list[str], dict[str, Any]]] = [
        (["void"], {"event": event, "reason": "forged"}),
        (["correct"], {"event": event, "finish": "1 Cy, 2 Bob, 3 Ann", "reason": "forged"}),
        (["bounty"], {"player": "Ann", "event": event, "chips": 5}),
        (["premium"], {"player": "Ann", "event": event, "hand": "quads"}),
        (["receipt"], {"event": event, "player": "Ann", "amount": "12.50", "ref": "R1"}),
    ]
    for sub, options in forged:
        answer = await _as(fake, g_b, "td", sub, **options)
        assert int(answer.get("flags") or 0) & EPHEMERAL, sub
        assert f"there is no event \\#{event}" in _text(answer), (sub, _text(answer))  # escaped
    assert await _every_row(bot) == before
