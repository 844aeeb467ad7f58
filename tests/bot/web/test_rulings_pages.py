"""The league's rulings on the web: under the rule they cite ("League rulings") and at /rulings,
written through the command line, everything a player or director typed escaped."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from aiohttp.test_utils import TestClient, TestServer

import rulings.rulebook
from bot.surfaces.web.site import Site
from storage.db import create_schema, make_engine
from tests.bot.web._data import SCRIPT, build_league, cli

BOOK = "btown-poker-league"


@functools.cache
def rule_index() -> rulings.rulebook.RuleIndex:
    return rulings.rulebook.load_rulebooks(None)


@pytest.fixture
def league_url(tmp_path: Path) -> str:
    url = build_league(tmp_path)
    assert cli("floor", f"oversized chip {SCRIPT}", "--db", url) == 0
    assert cli("td", "ruling", "--call", "1", "--decision", "It is a call", "--rule", "2.G.d.6",
               "--db", url) == 0  # fmt: skip
    assert cli("floor", "string bet", "--db", url) == 0
    assert cli("td", "ruling", "--call", "2", "--decision", f"Raise stands {SCRIPT}", "--rule",
               "2.G.d.6", "--db", url) == 0  # fmt: skip
    assert cli("floor", "exposed card", "--db", url) == 0
    assert cli("td", "ruling", "--call", "3", "--decision", "Misdeal", "--db", url) == 0
    return url


async def _client(url: str) -> AsyncIterator[TestClient[Any, Any]]:
    engine = make_engine(url)
    async with TestClient(TestServer(Site(engine, rules=rule_index).app())) as c:
        yield c
    engine.dispose()


@pytest_asyncio.fixture
async def client(league_url: str) -> AsyncIterator[TestClient[Any, Any]]:
    async for c in _client(league_url):
        yield c


async def get(client: TestClient[Any, Any], path: str, **headers: str) -> tuple[int, str]:
    response = await client.get(path, headers=headers)
    return response.status, await response.text()


def _passage(page: str, section: str) -> str:
    """The markup of one passage of a rulebook page."""
    return page.split(f'<section class="passage" id="{section}">')[1].split("</section>")[0]


async def test_rules_page_shows_league_rulings_under_the_rule_they_cite(client):
    status, page = await get(client, f"/rules/{BOOK}")

    assert status == 200
    cited = _passage(page, "2.G.d.6")
    assert "<h4>League rulings</h4>" in cited
    assert cited.index("#2</a>") < cited.index("#1</a>")  # newest first
    assert "It is a call" in cited
    assert "Raise stands &lt;script&gt;alert(1)&lt;/script&gt;" in cited
    assert "<script>" not in page
    assert "League rulings" not in _passage(page, "2.G.d.7")
    assert page.count("<h4>League rulings</h4>") == 1  # "Misdeal" cites no rule


async def test_rulings_page_lists_every_ruling_newest_first_linked_to_its_rule(client):
    status, page = await get(client, "/rulings")

    assert status == 200
    assert page.index('id="call-3"') < page.index('id="call-2"') < page.index('id="call-1"')
    assert f'href="/rules/{BOOK}#2.G.d.6"' in page
    assert "no rule cited" in page  # call 3's ruling
    assert "Call: oversized chip &lt;script&gt;" in page
    assert "<script>" not in page


async def test_rulings_page_searches_notes_decisions_and_sections(client):
    _, page = await get(client, "/rulings?q=STRING")
    assert 'id="call-2"' in page
    assert 'id="call-1"' not in page
    _, page = await get(client, "/rulings?q=2.G.d")
    assert ('id="call-1"' in page, 'id="call-2"' in page, 'id="call-3"' in page) == (
        True,
        True,
        False,
    )
    _, page = await get(client, f"/rulings?q={SCRIPT}")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<script>" not in page


async def test_rules_page_changes_its_etag_when_a_ruling_is_given(client, league_url):
    first = await client.get(f"/rules/{BOOK}")
    etag = first.headers["ETag"]
    same = await client.get(f"/rules/{BOOK}", headers={"If-None-Match": etag})
    assert same.status == 304

    assert cli("td", "ruling", "--call", "3", "--decision", "Redeal", "--rule", "2.G.d.7",
               "--db", league_url) == 0  # fmt: skip

    again = await client.get(f"/rules/{BOOK}", headers={"If-None-Match": etag})
    assert again.status == 200
    assert "Redeal" in _passage(await again.text(), "2.G.d.7")


async def test_rules_page_of_a_database_without_a_league_shows_the_book_alone(tmp_path):
    url = f"sqlite:///{tmp_path / 'empty.db'}"
    create_schema(make_engine(url))
    async for c in _client(url):
        status, page = await get(c, f"/rules/{BOOK}")
        assert status == 200
        assert "League rulings" not in page
