"""End to end: two ``pokerfloor run`` processes on one PostgreSQL database share the clocks.

Both processes start together on a fresh database (schema creation under the advisory lock),
each logs in to the one fake Discord with its own token, so every request says which instance
made it (the fake's stand-in for telling two processes of one bot apart); they run shard 1 and
shard 0 of two, as the README deploys them. A clock started through one instance is run by
it; ``kill -9`` of that process and the other adopts the clock within the lease (2 s here,
``CLOCK_LEASE_SECONDS``) and carries on; no level is announced twice and the levels come in
order; the killed one comes back and nothing is repeated; director actions sent to the
instance that does not own the clock reach the owner (and are posted by it); only the owner edits
the status message.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import signal
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from sqlalchemy import text

from storage.db import make_engine, scratch_schema
from tests.conftest import SKIP_POSTGRES, postgres_url
from tests.fakediscord import (
    CHANNEL_ID,
    EPHEMERAL,
    MANAGE_GUILD,
    FakeDiscord,
    RecordedRequest,
    snowflake,
)

log = logging.getLogger(__name__)

pytestmark = [
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.postgres,
    pytest.mark.skipif(SKIP_POSTGRES, reason="POKERFLOOR_SKIP_POSTGRES=1"),
]

LEVEL_S = 3.0  # level_minutes=0.05
LEASE_S = 2.0
TAKEOVER_LIMIT_S = 15.0
A, B = "fake-token-a", "fake-token-b"
LEVEL = re.compile(r"(?:Level |We are now at level )(\d+)")


@pytest.fixture(scope="module")
def database_url() -> Iterator[str]:
    """A fresh, empty PostgreSQL schema: the instances create the tables themselves."""
    with scratch_schema(postgres_url(), prefix="inst", create=False) as engine:
        yield engine.url.render_as_string(hide_password=False)


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def fake() -> AsyncIterator[FakeDiscord]:
    server = FakeDiscord()
    await server.start()
    yield server
    await server.stop()


class Instance:
    """One ``pokerfloor run`` process logged in with its own token."""

    def __init__(
        self, fake: FakeDiscord, token: str, shard: str, database_url: str, logs: Path
    ) -> None:
        self.fake, self.token, self.database_url, self.logs = fake, token, database_url, logs
        self.shard = shard
        self.proc: asyncio.subprocess.Process | None = None
        self.starts = 0

    async def start(self) -> None:
        env = {
            **os.environ,
            "DISCORD_TOKEN": self.token,
            "DISCORD_API_BASE": self.fake.api_base,
            "DISCORD_GATEWAY_URL": self.fake.gateway_url,
            "DATABASE_URL": self.database_url,
            "CLOCK_LEASE_SECONDS": str(LEASE_S),
            # Deployed as the README says: one shard each (the test's server is on shard 1).
            "SHARD_COUNT": "2",
            "SHARD_IDS": self.shard,
        }
        for name in ("DISCORD_GUILD_ID", "RULEBOOK_DIR"):
            env.pop(name, None)
        self.starts += 1
        log = (self.logs / f"{self.token}-{self.starts}.log").open("wb")
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            "run",
            env=env,
            cwd=self.logs,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=log,
        )

    async def wait_connected(self, wait_s: float = 60.0) -> None:
        async with asyncio.timeout(wait_s):
            while not self.fake.connected(self.token):
                assert self.proc is not None
                if self.proc.returncode is not None:
                    raise AssertionError(
                        f"{self.token} exited {self.proc.returncode}: {self.log()}"
                    )
                await asyncio.sleep(0.05)

    def log(self) -> str:
        return (self.logs / f"{self.token}-{self.starts}.log").read_text()[-3000:]

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)

    async def stop(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.proc.wait(), 10)
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()


async def clock(
    fake: FakeDiscord, sub: str, options: dict[str, Any], *, via: str
) -> dict[str, Any]:
    """``/clock <sub>`` by a director, sent to one instance; what the director finally sees."""
    opts = [
        {"name": k, "type": 10 if isinstance(v, float) else 3, "value": v}
        for k, v in options.items()
    ]
    data = {
        "id": str(snowflake()),
        "name": "clock",
        "type": 1,
        "options": [{"name": sub, "type": 1, "options": opts}],
    }
    payload = fake._interaction_base(2, data, user_id=42, permissions=MANAGE_GUILD, username="td")
    it = await fake._send_interaction(payload, token=via)
    return await it.settled(wait_s=15.0)


def announcements(fake: FakeDiscord) -> list[RecordedRequest]:
    """Announcements that reached the channel (repeats Discord dropped by nonce excluded)."""
    return [
        r
        for r in fake.requests_to("POST", f"/channels/{CHANNEL_ID}/messages")
        if r.status == 200 and not r.deduplicated and (r.body or {}).get("content")
    ]


def levels(fake: FakeDiscord) -> list[tuple[int, str, float]]:
    """(level number, instance token, arrival) of every level and catch-up announcement."""
    found = []
    for r in announcements(fake):
        match = LEVEL.search(r.body["content"])
        if match:
            found.append((int(match.group(1)), r.auth, r.at))
    return found


async def wait_level(fake: FakeDiscord, n: int, wait_s: float) -> tuple[int, str, float]:
    async with asyncio.timeout(wait_s):
        while True:
            for found in levels(fake):
                if found[0] >= n:
                    return found
            await asyncio.sleep(0.02)


async def wait_text(fake: FakeDiscord, text: str, after: float, wait_s: float) -> RecordedRequest:
    async with asyncio.timeout(wait_s):
        while True:
            for r in announcements(fake):
                if r.at > after and text in r.body["content"]:
                    return r
            await asyncio.sleep(0.02)


def owner_of(database_url: str) -> str | None:
    engine = make_engine(database_url)
    try:
        with engine.connect() as conn:
            owner: str | None = conn.execute(
                text("SELECT owner_id FROM clock WHERE id = 1")
            ).scalar_one()
            return owner
    finally:
        engine.dispose()


async def test_two_instances_share_a_clock_and_take_over_after_kill_9(
    fake: FakeDiscord, database_url: str, tmp_path: Path
):
    a = Instance(fake, A, "1", database_url, tmp_path)  # runs the test server's shard
    b = Instance(fake, B, "0", database_url, tmp_path)
    try:
        # Started together on a fresh database: both come up (one creates the schema).
        await asyncio.gather(a.start(), b.start())
        await asyncio.gather(a.wait_connected(), b.wait_connected())
        await asyncio.sleep(0.5)
        for instance in (a, b):
            assert instance.proc is not None
            assert instance.proc.returncode is None, instance.log()

        started = await clock(
            fake, "start", {"structure": "bar-league", "level_minutes": 0.05}, via=A
        )
        assert started["flags"] & EPHEMERAL
        assert "Bar League clock started" in started["embeds"][0]["description"]
        level1 = await wait_level(fake, 1, 10)
        assert level1[1] == A  # the instance that started the clock runs it
        level2 = await wait_level(fake, 2, LEVEL_S + 5)
        assert level2[1] == A

        # kill -9 of the owner mid-level 2: the other instance carries on within the lease.
        await asyncio.sleep(0.3)
        a.kill()
        killed_at = time.perf_counter()
        assert a.proc is not None
        await a.proc.wait()
        level3 = await wait_level(fake, 3, TAKEOVER_LIMIT_S)
        assert level3[1] == B
        assert level3[2] - killed_at < TAKEOVER_LIMIT_S
        due3 = level1[2] + 2 * LEVEL_S
        log.info(
            "takeover: first post by B %.2f s after the kill, level 3 late by %.2f s",
            level3[2] - killed_at,
            level3[2] - due3,
        )

        # The killed one comes back: the clock stays with B; nothing is repeated.
        await a.start()
        await a.wait_connected()
        n = level3[0]
        following = await wait_level(fake, n + 2, 3 * LEVEL_S + 5)
        assert following[1] == B

        # A director action sent to the instance that does not own the clock reaches the owner.
        sent = time.perf_counter()
        paused = await clock(fake, "pause", {}, via=A)
        assert paused["flags"] & EPHEMERAL
        notice = await wait_text(fake, "The clock is paused", sent, 5)
        assert notice.auth == B  # the owner posts it (the latency: benchmarks/clock.py)
        log.info("pause through A posted by B %.2f s after the command", notice.at - sent)
        count = len(levels(fake))
        await asyncio.sleep(LEVEL_S + 0.5)
        assert len(levels(fake)) == count  # paused: no level change
        sent = time.perf_counter()
        await clock(fake, "resume", {}, via=A)
        resumed = await wait_text(fake, "The clock is running again", sent, 5)
        assert resumed.auth == B
        await wait_level(fake, levels(fake)[-1][0] + 1, LEVEL_S + 5)

        # No level announced twice; in order; only the owner of the moment posted and edited.
        numbers = [n for n, _, _ in levels(fake)]
        assert len(numbers) == len(set(numbers)), numbers
        assert numbers == sorted(numbers), numbers
        edits = fake.requests_to("PATCH", f"/channels/{CHANNEL_ID}/messages/")
        assert edits, "the status message was never edited"
        assert {r.auth for r in edits if r.at > killed_at} == {B}
        assert {r.auth for r in announcements(fake) if r.at > killed_at} == {B}
        assert all(r.body.get("allowed_mentions") == {"parse": []} for r in edits)
        # A clean stop (SIGTERM, as systemd and docker send) releases the lease at once: the
        # clock is unowned or already A's, well before B's lease would have run out.
        assert b.proc is not None
        b.proc.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(b.proc.wait(), 10) == 0, b.log()
        owner = owner_of(database_url)
        assert owner is None or f":{a.proc.pid}:" in owner, owner

        ended = await clock(fake, "end", {}, via=A)
        assert "Ended" in ended["embeds"][0]["description"]
    finally:
        for instance in (a, b):
            with contextlib.suppress(ProcessLookupError):
                await instance.stop()
