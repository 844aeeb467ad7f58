"""End to end: ``/td settings night_thread on`` keeps a night's bust-outs in a thread of its own."""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import Session, col, select

from bot.surfaces.discord import LeagueBot
from storage.tournament_models import Tournament
from tests.fakediscord import CHANNEL_ID, EPHEMERAL, MANAGE_GUILD, FakeDiscord

pytestmark = pytest.mark.asyncio(loop_scope="module")

DIRECTOR_ID = 900_000_000_000_000_421


def _text(message: dict[str, Any]) -> str:
    embed = message["embeds"][0]
    fields = "\n".join(f"{f['name']}\n{f['value']}" for f in embed.get("fields") or [])
    return "\n".join([embed.get("title") or "", embed.get("description") or "", fields])


async def _director(fake: FakeDiscord, command: str, sub: list[str], **options: Any) -> Any:
    it = await fake.interact(
        command, options, sub=sub, user_id=DIRECTOR_ID, permissions=MANAGE_GUILD
    )
    return await it.settled()


async def _thread_of_night(bot: LeagueBot) -> int | None:
    def read(*, session: Session) -> int | None:
        newest = select(Tournament).where(Tournament.channel_id == CHANNEL_ID)
        row = session.exec(newest.order_by(col(Tournament.id).desc())).first()
        assert row is not None
        return row.thread_id

    return await bot.db.run(read)


async def _league_with_threads(fake: FakeDiscord, location: str) -> None:
    """The league's threads on, a season and ``location`` (either test may run first)."""
    await _director(fake, "td", ["settings"], night_thread="on")
    await _director(fake, "td", ["season", "add"], name="2026 Fall")  # refused the 2nd time
    await _director(fake, "td", ["location", "add"], name=location)
    await _director(fake, "tournament", ["open"], location=location, seats=4)


async def test_night_thread_holds_the_busts_and_the_results(fake: FakeDiscord, bot: LeagueBot):
    shown = await _director(fake, "td", ["settings"])
    assert "Night thread" in _text(shown)
    await _league_with_threads(fake, "Taproom")
    shown = await _director(fake, "td", ["settings"])
    assert "Night thread\non" in _text(shown)
    for name in ("Ann", "Bob", "Cy"):
        await _director(fake, "tournament", ["register"], player=name)
    await _director(fake, "tournament", ["start"])
    assert not any(t["name"].startswith("Taproom") for t in fake.threads.values())

    busted = await _director(fake, "tournament", ["bust"], players="Cy")
    assert int(busted.get("flags") or 0) & EPHEMERAL  # the channel stays quiet
    assert "Cy" in _text(busted)
    thread_id, thread = await fake.wait_thread(name="Taproom")  # made after the reply
    assert thread["parent_id"] == str(CHANNEL_ID)
    assert thread["name"].startswith("Taproom ")
    posted = await fake.wait_message(thread_id)
    assert "Cy: 3rd" in _text(posted).replace("*", "")
    assert await _thread_of_night(bot) == thread_id

    await _director(fake, "tournament", ["bust"], players="Bob")
    finished = await _director(fake, "tournament", ["finish"])
    assert "Tournament finished" in _text(finished)
    assert not int(finished.get("flags") or 0) & EPHEMERAL  # the night's end stays in the room
    await fake.wait_message(thread_id, count=3)
    posts = fake.messages[thread_id]
    assert "Bob" in _text(posts[1])
    assert "Tournament finished" in _text(posts[2])
    taproom = [t for t, made in fake.threads.items() if made["name"].startswith("Taproom")]
    assert taproom == [thread_id]  # one thread for the night


async def test_a_refused_thread_posts_in_the_channel(fake: FakeDiscord, bot: LeagueBot):
    await _league_with_threads(fake, "Cellar")
    for name in ("Dee", "Eve"):
        await _director(fake, "tournament", ["register"], player=name)
    await _director(fake, "tournament", ["start"])
    fake.refuse_threads = True
    try:
        before = len(fake.messages.get(CHANNEL_ID, []))
        await _director(fake, "tournament", ["bust"], players="Eve")
        posted = await fake.wait_message(CHANNEL_ID, count=before + 1)
        assert "Eve" in _text(posted)
        assert await _thread_of_night(bot) is None
    finally:
        fake.refuse_threads = False
        await _director(fake, "tournament", ["finish"])  # the channel is free for the next
