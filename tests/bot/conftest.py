"""Fixtures for the bot's end-to-end tests: one fake Discord and one bot per test module.

Test modules that use them set ``pytestmark = pytest.mark.asyncio(loop_scope="module")`` so
their tests share the module's event loop with the fake and the bot.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from bot.surfaces.discord import EXTENSIONS, LeagueBot
from storage.db import make_engine
from tests.fakediscord import FakeDiscord, start_bot, stop_bot

PROBE = "tests.bot.probe_cog"


@pytest.fixture(scope="module")
def db_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    path: Path = tmp_path_factory.mktemp("bot") / "pokerfloor.db"
    return f"sqlite:///{path}"


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def fake() -> AsyncIterator[FakeDiscord]:
    server = FakeDiscord()
    await server.start()
    yield server
    await server.stop()


def make_bot(fake: FakeDiscord, db_url: str, **settings: object) -> LeagueBot:
    engine = make_engine(db_url)
    return LeagueBot(
        fake.settings(database_url=db_url, **settings),
        engine,
        extensions=(*EXTENSIONS, PROBE),
        guild_ready_timeout=0.01,
    )


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def bot(fake: FakeDiscord, db_url: str) -> AsyncIterator[LeagueBot]:
    client = make_bot(fake, db_url)
    await start_bot(fake, client)
    yield client
    await stop_bot(client)
    client.engine.dispose()


@pytest.fixture(autouse=True)
def _fresh_deadline(request: pytest.FixtureRequest) -> None:
    """Each test starts with Discord's real 3 s deadline."""
    if "fake" in request.fixturenames:
        request.getfixturevalue("fake").deadline_s = 3.0
