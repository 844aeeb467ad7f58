"""The live pages over HTTP: what a break, a pause and a hidden page look like, and the poll."""

from __future__ import annotations

import asyncio
import datetime as dt
import io
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.config import Settings
from bot.surfaces.console import Console, ConsoleContext
from bot.surfaces.web.live import CSP, clock_view
from bot.surfaces.web.site import Site
from rulings import Break, ClockAction, ClockEvent, ClockState, load_structure
from storage.clocks import add_clock, add_clock_event
from storage.db import create_schema, make_engine, session_scope
from storage.guild_settings import ensure_guild_league

GUILD = 123456789012345678
CHANNEL = 223456789012345678
LEVEL_S = 60.0
Client = TestClient[Any, Any]


def _first_break_index() -> int:
    steps = load_structure("btown").steps
    return next(i for i, s in enumerate(steps) if isinstance(s, Break))


@pytest.fixture
def url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'live.db'}"
    engine = make_engine(url)
    create_schema(engine)
    with session_scope(engine) as session:
        ensure_guild_league(session=session, guild_id=GUILD, actor="test")
    engine.dispose()
    return url


def start_clock(url: str, *, seconds_ago: float, channel: int = CHANNEL) -> int:
    engine = make_engine(url)
    with session_scope(engine) as session:
        record = add_clock(
            session=session,
            guild_id=GUILD,
            channel_id=channel,
            structure="btown",
            started_at=dt.datetime.now(dt.UTC) - dt.timedelta(seconds=seconds_ago),
            created_by=1,
            level_seconds=LEVEL_S,
            break_seconds=600,
        )
    engine.dispose()
    return record.id


@pytest.fixture
async def client(url: str) -> AsyncIterator[Client]:
    engine = make_engine(url)
    async with TestClient(TestServer(Site(engine, guild_id=GUILD).app())) as client:
        yield client
    engine.dispose()


async def test_a_break_shows_the_break_and_what_comes_next(url: str, client: Client):
    index = _first_break_index()
    start_clock(url, seconds_ago=index * LEVEL_S + 5)
    response = await client.get(f"/live/{CHANNEL}")
    assert response.status == 200
    assert response.headers["Content-Security-Policy"] == CSP
    assert response.headers["Cache-Control"] == "no-store"
    html = await response.text()
    assert '<h1 class="level">Break 1</h1>' in html
    after = load_structure("btown").next_level(index)
    assert after is not None
    assert f"<dt>After the break</dt><dd>Level {after.number}: {after.blinds}</dd>" in html
    assert 'data-ends="' in html
    assert '<script src="/static/live.js" defer></script>' in html
    assert '<noscript><meta http-equiv="refresh" content="5"></noscript>' in html


async def test_a_paused_clock_says_paused_and_stops_counting(url: str, client: Client):
    clock_id = start_clock(url, seconds_ago=10)
    engine = make_engine(url)
    with session_scope(engine) as session:
        add_clock_event(
            session=session, clock_id=clock_id, action=ClockAction.PAUSE, at=dt.datetime.now(dt.UTC)
        )
    engine.dispose()
    html = await (await client.get(f"/live/{CHANNEL}")).text()
    assert '<p class="state paused">PAUSED</p>' in html
    assert '<span class="left">0:50</span>' in html or '<span class="left">0:49</span>' in html
    assert "data-step" not in html


async def test_the_poll_answers_304_until_the_clock_moves_to_its_next_level(url, client):
    start_clock(url, seconds_ago=LEVEL_S - 1.5)  # level 1 ends in 1.5 s
    first = await client.get(f"/live/{CHANNEL}/now")
    assert first.status == 200
    etag = first.headers["ETag"]
    assert "Level 1" in await first.text()
    again = await client.get(f"/live/{CHANNEL}/now", headers={"If-None-Match": etag})
    assert again.status == 304
    await asyncio.sleep(2.0)
    moved = await client.get(f"/live/{CHANNEL}/now", headers={"If-None-Match": etag})
    assert moved.status == 200
    assert "Level 2" in await moved.text()


async def test_the_index_links_each_running_clock(url: str, client: Client):
    start_clock(url, seconds_ago=10)
    start_clock(url, seconds_ago=10, channel=CHANNEL + 1)
    html = await (await client.get("/live")).text()
    assert f'<a href="/live/{CHANNEL}">' in html
    assert f'<a href="/live/{CHANNEL + 1}">' in html


@pytest.mark.parametrize(
    "path",
    [
        "/live/12",
        "/live/abc",
        "/live/" + "9" * 20,
        "/live/" + "9" * 21,
        "/live/12/now",
        "/live/１２",
    ],
)
async def test_a_channel_the_league_never_used_is_not_found(url, client, path):
    start_clock(url, seconds_ago=10)
    assert (await client.get(path)).status == 404


async def test_a_clock_of_another_server_is_not_shown(url: str, client: Client):
    engine = make_engine(url)
    with session_scope(engine) as session:
        add_clock(
            session=session,
            guild_id=GUILD + 1,
            channel_id=CHANNEL,
            structure="btown",
            started_at=dt.datetime.now(dt.UTC),
            created_by=1,
        )
    engine.dispose()
    assert (await client.get(f"/live/{CHANNEL}")).status == 404
    assert f"/live/{CHANNEL}" not in await (await client.get("/live")).text()


async def test_td_settings_live_page_off_hides_every_live_page(url: str, client: Client):
    start_clock(url, seconds_ago=10)
    assert (await client.get(f"/live/{CHANNEL}")).status == 200
    engine = make_engine(url)
    console = Console(
        ConsoleContext(
            settings=Settings(_env_file=None), engine=engine, guild_id=GUILD, out=io.StringIO()
        )
    )
    reply = console.handle("/td settings live_page: off")
    assert reply is not None
    assert ("Live page (changed)", "off (hidden)") in [(f.name, f.value) for f in reply.fields]
    for path in ("/live", f"/live/{CHANNEL}", f"/live/{CHANNEL}/now"):
        assert (await client.get(path)).status == 404, path
    console.handle("/td settings live_page: on")
    assert (await client.get(f"/live/{CHANNEL}")).status == 200
    engine.dispose()


def test_the_clock_view_counts_to_the_steps_end_only_while_running():
    structure = load_structure("btown")
    start = dt.datetime(2026, 12, 1, 19, 0, tzinfo=dt.UTC)
    state = ClockState(structure, start, level_seconds=1200, break_seconds=600)
    view = clock_view(state, start + dt.timedelta(seconds=30))
    assert (view.title, view.left, view.is_paused) == ("Level 1", "19:30", False)
    assert view.ends_ms == round((start + dt.timedelta(seconds=1200)).timestamp() * 1000)
    paused = state.with_event(ClockEvent(ClockAction.PAUSE, start + dt.timedelta(seconds=30)))
    view = clock_view(paused, start + dt.timedelta(seconds=90))
    assert (view.left, view.ends_ms, view.break_ms, view.is_paused) == ("19:30", None, None, True)
