"""What a person sees: the pages in headless Chromium at a phone's width.

Chromium is Debian's ``chromium`` package (``.ci/run`` installs it when it is missing; without
it the test skips with one line saying so, and fails under ``CI=true``); the test drives it
over the DevTools protocol, with no browser download. It checks the season table's first row
against the CLI, that the chart is drawn and fits the screen, that no name runs as script or
handler, and that a rules link scrolls to its passage.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from PIL import Image

import rulings
import rulings.rulebook
from bot.surfaces.web.site import Site, start_site
from storage.db import make_engine
from tests.bot.web._cdp import browser_tab, require_chromium
from tests.bot.web._data import QUOTE, SCRIPT, build_league, cli, cli_json

SKIP = os.environ.get("POKERFLOOR_SKIP_BROWSER") == "1"
PHONE_WIDTH = 390
LONG_NAMES = (
    "Bartholomew Thornton-Smythe",
    "Maximiliana Featherstonehaugh",
    "Anastasia Konstantinopoulou",
)
# The words of the TOC's names (split at spaces and after hyphens) that a line break cuts:
# a range over each word spans more than one line box when the word is broken.
_WORDS_SPLIT_ACROSS_LINES = """(() => {
  const cut = [];
  for (const a of document.querySelectorAll('table.toc tbody td:first-child a')) {
    const text = a.firstChild, words = text.textContent.split(/(\\s+|(?<=-))/);
    let at = 0;
    for (const word of words) {
      if (word.trim()) {
        const range = document.createRange();
        range.setStart(text, at);
        range.setEnd(text, at + word.length);
        const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
        if (tops.size > 1) cut.push(word);
      }
      at += word.length;
    }
  }
  return cut;
})()"""


async def _serve(url: str) -> tuple[web.AppRunner, str]:
    index = rulings.rulebook.load_rulebooks(None)
    site = Site(make_engine(url), rules=lambda: index)
    runner = await start_site(site, "127.0.0.1", 0)
    sockets = [s for server in runner.sites for s in server._server.sockets]  # type: ignore[union-attr]
    port = sockets[0].getsockname()[1]
    return runner, f"http://127.0.0.1:{port}"


@pytest.mark.skipif(SKIP, reason="POKERFLOOR_SKIP_BROWSER=1")
async def test_pages_in_a_phone_browser(tmp_path: Path, capsys: Any) -> None:
    require_chromium()
    url = build_league(tmp_path)
    # Names of a length a phone's TOC table must show whole (each word on one line).
    more = [{"season": "2026 Fall", "location": "Brewpub", "date": "2026-10-08",
             "kind": "regular", "finish": [[name] for name in LONG_NAMES]}]  # fmt: skip
    (tmp_path / "more.json").write_text(json.dumps(more), encoding="utf-8")
    assert cli("event", "import", str(tmp_path / "more.json"), "--allow-new", "--db", url) == 0
    expected = cli_json(capsys, "standings", "--json", "--db", url)
    runner, base = await _serve(url)
    try:
        async with browser_tab(width=PHONE_WIDTH) as tab:
            # The season page: the first row a person reads is the CLI's first row.
            await tab.open(f"{base}/")
            first = await tab.evaluate(
                "[...document.querySelector('table.standings tbody tr').cells]"
                ".map(c => c.innerText.trim())"
            )
            top = expected[0]
            assert first == [
                "1",
                top["player"],
                f"{top['rp']:,}",
                f"{top['bp']:,}",
                str(top["events"]),
            ]
            rows = await tab.evaluate(
                "document.querySelectorAll('table.standings tbody tr').length"
            )
            assert rows == len(expected)
            # The chart is there, drawn, one line per leader, and fits a phone's width.
            chart = await tab.evaluate(
                "(() => { const s = document.querySelector('svg.race');"
                " const r = s.getBoundingClientRect();"
                " return {lines: s.querySelectorAll('polyline').length,"
                " width: r.width, height: r.height, right: r.right}; })()"
            )
            assert chart["lines"] == min(10, len(expected))
            assert 300 <= chart["width"] <= PHONE_WIDTH
            assert chart["height"] > 150
            assert chart["right"] <= PHONE_WIDTH
            assert await tab.evaluate("document.documentElement.scrollWidth") <= PHONE_WIDTH
            # Names are text: no script element, no handler attribute, no dialog.
            names = await tab.evaluate(
                "[...document.querySelectorAll('table.standings tbody tr td:nth-child(2)')]"
                ".map(c => c.innerText)"
            )
            assert SCRIPT in names
            assert QUOTE in names
            assert await tab.evaluate("document.querySelectorAll('script').length") == 0
            assert await tab.evaluate("document.querySelectorAll('[onmouseover]').length") == 0
            shot = await tab.screenshot()
            (tmp_path / "season.png").write_bytes(shot)
            assert Image.open(io.BytesIO(shot)).size[0] == PHONE_WIDTH * 2

            # A player page (the one with the script name): his name as the heading.
            await tab.open(f"{base}/player/%3Cscript%3Ealert%281%29%3C%2Fscript%3E")
            assert await tab.evaluate("document.querySelector('h1').innerText") == SCRIPT
            results = await tab.evaluate(
                "document.querySelectorAll('table.results tbody tr').length"
            )
            assert results == 2
            await tab.open(f"{base}/player/%22%20onmouseover%3D%22alert%282%29")
            assert await tab.evaluate("document.querySelector('h1').innerText") == QUOTE
            await tab.evaluate(
                "document.querySelector('h1').dispatchEvent(new MouseEvent('mouseover'))"
            )
            assert await tab.evaluate("document.querySelectorAll('[onmouseover]').length") == 0

            # The TOC on a phone: no name is broken inside a word, and the page fits.
            await tab.open(f"{base}/toc")
            shown = await tab.evaluate(
                "[...document.querySelectorAll('table.toc tbody td:first-child a')]"
                ".map(a => a.innerText)"
            )
            assert set(LONG_NAMES) <= set(shown)
            assert await tab.evaluate(_WORDS_SPLIT_ACROSS_LINES) == []
            assert await tab.evaluate("document.documentElement.scrollWidth") <= PHONE_WIDTH
            (tmp_path / "toc.png").write_bytes(await tab.screenshot())

            # A rules link scrolls to its passage: it sits at the top of the screen.
            await tab.open(f"{base}/rules/btown-poker-league#2.G.d.6")
            await tab.wait_for("window.scrollY > 0")
            place = await tab.evaluate(
                "(() => { const e = document.getElementById('2.G.d.6');"
                " return {y: window.scrollY, top: e.getBoundingClientRect().top,"
                " text: e.innerText, target: document.querySelector(':target') === e}; })()"
            )
            assert place["y"] > 1000  # far down the book
            assert 0 <= place["top"] <= 20
            assert place["target"] is True
            assert place["text"].startswith("2.G.d.6")
            assert tab.dialogs == []
    finally:
        await runner.cleanup()


def _without_chromium(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no browser to find


def test_without_chromium_the_browser_test_skips_saying_how_to_enable_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _without_chromium(monkeypatch, tmp_path)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception) as skipped:
        require_chromium()
    assert "apt-get install chromium" in str(skipped.value)
    assert "\n" not in str(skipped.value)


def test_under_ci_a_missing_chromium_fails_the_browser_test(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _without_chromium(monkeypatch, tmp_path)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception) as failed:
        require_chromium()
    assert "apt-get install chromium" in str(failed.value)
