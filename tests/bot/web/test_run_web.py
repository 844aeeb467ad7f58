"""``pokerfloor run`` with ``WEB_PORT`` serves the league pages beside the bot, and stops them."""

from __future__ import annotations

import socket
from pathlib import Path

import aiohttp
import pytest

from bot.surfaces.discord import EXTENSIONS, LeagueBot
from storage.db import make_engine
from tests.bot.web._data import build_league
from tests.fakediscord import FakeDiscord, start_bot, stop_bot

pytestmark = pytest.mark.asyncio(loop_scope="function")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


async def test_web_port_serves_the_pages_while_the_bot_runs(tmp_path: Path):
    url = build_league(tmp_path)
    port = free_port()
    fake = FakeDiscord()
    await fake.start()
    bot = LeagueBot(
        fake.settings(database_url=url, web_port=port, public_url="https://poker.example.org"),
        make_engine(url),
        extensions=EXTENSIONS,
        guild_ready_timeout=0.01,
    )
    try:
        await start_bot(fake, bot)
        async with aiohttp.ClientSession() as http:
            async with http.get(f"http://127.0.0.1:{port}/") as response:
                assert response.status == 200
                assert "<h1>Standings, 2026 Fall</h1>" in await response.text()
            async with http.get(f"http://127.0.0.1:{port}/rules/btown-poker-league") as response:
                assert response.status == 200  # the bot's own rulebook index
            it = await fake.interact("rule", {"query": "oversized chip"})
            body = await it.response(wait_s=30)
            description = body["data"]["embeds"][0]["description"]
            assert "https://poker.example.org/rules/btown-poker-league#2.G.d.6" in description
    finally:
        await stop_bot(bot)
        bot.engine.dispose()
        await fake.stop()
    with pytest.raises(aiohttp.ClientConnectionError):
        async with aiohttp.ClientSession() as http:
            await http.get(f"http://127.0.0.1:{port}/")


async def test_a_busy_web_port_is_logged_and_the_bot_still_runs(tmp_path: Path, caplog):
    url = build_league(tmp_path)
    with socket.socket() as busy:
        busy.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 0)
        busy.bind(("0.0.0.0", 0))
        busy.listen()
        port = busy.getsockname()[1]
        fake = FakeDiscord()
        await fake.start()
        bot = LeagueBot(
            fake.settings(database_url=url, web_port=port),
            make_engine(url),
            extensions=EXTENSIONS,
            guild_ready_timeout=0.01,
        )
        try:
            await start_bot(fake, bot)
            it = await fake.interact("rule", {"query": "oversized chip"})
            assert (await it.response(wait_s=30))["type"] == 4
        finally:
            await stop_bot(bot)
            bot.engine.dispose()
            await fake.stop()
    assert any("cannot serve the league pages" in r.getMessage() for r in caplog.records)
