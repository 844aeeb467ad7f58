"""A minimal Chrome DevTools Protocol client over aiohttp: headless Chromium, one tab.

Enough for the browser test: open a page at a phone's viewport, wait for it to load, evaluate
an expression, take a screenshot, and notice any JavaScript dialog (an injected ``alert``).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
    "--remote-debugging-port=0",
)
_LISTENING = re.compile(r"DevTools listening on (ws://\S+)")


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def require_chromium() -> str:
    """The Chromium to drive; without one a browser test skips, and fails under ``CI=true``.

    A developer's machine need not have a browser (the skip says how to get one, in one line);
    CI must run the test, so there a missing browser is a failure, not a quiet skip.
    """
    path = chromium_path()
    if path is None:
        how = "no chromium on PATH: apt-get install chromium to run the browser test"
        if os.environ.get("CI", "").lower() in ("true", "1"):
            pytest.fail(f"{how} (required under CI=true)", pytrace=False)
        pytest.skip(how)
    return path


class Tab:
    """One page of the browser, driven over the DevTools websocket."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse, session_id: str) -> None:
        self.ws = ws
        self.session_id = session_id
        self.ids = itertools.count(100)
        self.dialogs: list[str] = []
        self.events: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        async for message in self.ws:
            data = json.loads(message.data)
            if "id" in data and data["id"] in self.pending:
                self.pending.pop(data["id"]).set_result(data)
            elif data.get("method") == "Page.javascriptDialogOpening":
                self.dialogs.append(data["params"].get("message", ""))
                await self.send("Page.handleJavaScriptDialog", accept=True, wait=False)
            elif "method" in data:
                await self.events.put(data)

    async def send(self, method: str, *, wait: bool = True, **params: Any) -> dict[str, Any]:
        ident = next(self.ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.pending[ident] = future
        await self.ws.send_json(
            {"id": ident, "sessionId": self.session_id, "method": method, "params": params}
        )
        if not wait:
            return {}
        reply = await asyncio.wait_for(future, 20)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        result: dict[str, Any] = reply.get("result", {})
        return result

    async def open(self, url: str) -> None:
        """Navigate and wait for the load event."""
        while not self.events.empty():
            self.events.get_nowait()
        await self.send("Page.navigate", url=url)
        while True:
            event = await asyncio.wait_for(self.events.get(), 20)
            if event.get("method") == "Page.loadEventFired":
                break
        await asyncio.sleep(0.1)  # let a fragment navigation scroll

    async def wait_for(self, expression: str, wait_s: float = 10.0) -> None:
        """Poll until ``expression`` is true in the page (a fragment scroll may lag the load)."""
        for _ in range(round(wait_s / 0.05)):
            if await self.evaluate(expression):
                return
            await asyncio.sleep(0.05)
        raise TimeoutError(f"never true: {expression}")

    async def evaluate(self, expression: str) -> Any:
        result = await self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    async def screenshot(self) -> bytes:
        result = await self.send("Page.captureScreenshot", format="png", captureBeyondViewport=True)
        return base64.b64decode(result["data"])


@contextlib.asynccontextmanager
async def browser_tab(*, width: int = 390, height: int = 844) -> AsyncIterator[Tab]:
    """Start headless Chromium (a fresh profile) and yield one tab at a phone's size."""
    path = require_chromium()
    with tempfile.TemporaryDirectory(prefix="pf-chromium-", ignore_cleanup_errors=True) as profile:
        proc = await asyncio.to_thread(
            subprocess.Popen,
            [path, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            ws_url = await asyncio.to_thread(_wait_for_devtools, proc)
            async with (
                aiohttp.ClientSession() as http,
                http.ws_connect(ws_url, max_msg_size=64 << 20) as ws,
            ):
                await ws.send_json(
                    {"id": 1, "method": "Target.createTarget", "params": {"url": "about:blank"}}
                )
                target = await _reply(ws, 1)
                await ws.send_json(
                    {
                        "id": 2,
                        "method": "Target.attachToTarget",
                        "params": {"targetId": target["targetId"], "flatten": True},
                    }
                )
                attached = await _reply(ws, 2)
                tab = Tab(ws, attached["sessionId"])
                await tab.send("Page.enable")
                await tab.send("Runtime.enable")
                await tab.send(
                    "Emulation.setDeviceMetricsOverride",
                    width=width,
                    height=height,
                    deviceScaleFactor=2,
                    mobile=True,
                )
                try:
                    yield tab
                finally:
                    tab.reader.cancel()
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _wait_for_devtools(proc: subprocess.Popen[str]) -> str:
    assert proc.stderr is not None
    for line in proc.stderr:
        found = _LISTENING.search(line)
        if found:
            # Keep reading what it says, so a full pipe never stalls the browser.
            threading.Thread(target=lambda: [None for _ in proc.stderr or ()], daemon=True).start()
            return found.group(1)
    raise RuntimeError("chromium exited before DevTools started")


async def _reply(ws: aiohttp.ClientWebSocketResponse, ident: int) -> dict[str, Any]:
    while True:
        message = await asyncio.wait_for(ws.receive(), 20)
        data = json.loads(message.data)
        if data.get("id") == ident:
            if "error" in data:
                raise RuntimeError(str(data["error"]))
            result: dict[str, Any] = data["result"]
            return result
