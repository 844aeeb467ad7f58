"""A night typed in the console while ``pokerfloor web`` serves it from the same database.

The web process is another process: it only reads the file the console writes. A screen polls
``/live/0/now`` the way the page's script does (a conditional GET every ``POLL_SECONDS``); a
bust shows one player fewer, and ``/clock pause`` shows PAUSED, each within 5 s. When the
console's clock service stops (the instance running the clock dies), the page still shows the
clock: it was read from the database all along.
"""

from __future__ import annotations

import asyncio
import re
import socket
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from bot.surfaces.web.live import POLL_SECONDS
from tests.bot.web._live_night import console_night, say

WITHIN_S = 5.0
_LEFT = re.compile(r'<div class="players-left"><dt>Players left</dt><dd>(\d+)</dd>')


@pytest.fixture
async def web_process(tmp_path: Path) -> AsyncIterator[tuple[str, object]]:
    url, console = console_night(tmp_path)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "web", "--host", "127.0.0.1", "--port", str(port),
        "--db", url, stderr=asyncio.subprocess.PIPE, cwd=tmp_path,
    )  # fmt: skip
    try:
        assert proc.stderr is not None
        async with asyncio.timeout(60):
            while b"league pages on" not in await proc.stderr.readline():
                pass
        yield f"http://127.0.0.1:{port}", console
    finally:
        proc.terminate()
        await proc.wait()
        await asyncio.to_thread(console.ctx.clock.close)


class Screen:
    """A TV polling the live page's main part like ``live.js`` (conditional GETs)."""

    def __init__(self, http: aiohttp.ClientSession, base: str) -> None:
        self.http = http
        self.url = f"{base}/live/0/now"
        self.etag = ""
        self.html = ""
        self.not_modified = 0

    async def poll(self) -> str:
        headers = {"If-None-Match": self.etag} if self.etag else {}
        async with self.http.get(self.url, headers=headers) as response:
            if response.status == 304:
                self.not_modified += 1
            else:
                assert response.status == 200
                self.etag = response.headers["ETag"]
                self.html = await response.text()
        return self.html

    async def until(self, check: str) -> float:
        """Poll every ``POLL_SECONDS`` until ``check`` is in the page; seconds it took."""
        started = time.monotonic()
        while check not in await self.poll():
            assert time.monotonic() - started <= WITHIN_S, f"not shown within 5 s: {check}"
            await asyncio.sleep(POLL_SECONDS)
        return time.monotonic() - started


def players_left(html: str) -> int:
    found = _LEFT.search(html)
    assert found is not None, html
    return int(found.group(1))


async def test_a_console_night_shows_on_the_live_page_within_5_s(web_process):
    base, console = web_process
    async with aiohttp.ClientSession() as http:
        screen = Screen(http, base)
        html = await screen.poll()
        assert players_left(html) == 10
        assert "PAUSED" not in html
        assert '<p class="blinds">100 / 200</p>' in html
        await screen.poll()
        assert screen.not_modified == 1  # nothing changed: a 304

        await asyncio.to_thread(say, console, "/tournament bust Fay")
        await screen.until("<dd>9</dd>")
        assert players_left(screen.html) == 9
        assert "Fay out in 10th" in screen.html

        await asyncio.to_thread(say, console, "/clock pause")
        await screen.until('<p class="state paused">PAUSED</p>')
        assert "data-ends" not in screen.html.split('class="time"')[1].split("</p>")[0]

        # The clock's instance stops: the page reads the database and still shows the clock.
        await asyncio.to_thread(console.ctx.clock.close)
        async with http.get(f"{base}/live/0") as response:
            assert response.status == 200
            page = await response.text()
        assert "PAUSED" in page
        assert "Level 1" in page
        assert players_left(page) == 9
