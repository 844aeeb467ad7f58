"""The league pages over a database written by the CLI: same numbers, escaped, cached, 404s."""

from __future__ import annotations

import functools
import html
import io
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from aiohttp.test_utils import TestClient, TestServer
from PIL import Image
from sqlalchemy import inspect, text

import rulings
import rulings.rulebook
from bot.surfaces.web import chart as web_chart
from bot.surfaces.web import site as web_site
from bot.surfaces.web.links import anchor, rule_url
from bot.surfaces.web.site import Site
from storage.db import make_engine, session_scope
from storage.standings import season_toc
from storage.web import season_view, web_league
from tests.bot.web._data import OLD_SEASON, QUOTE, SCRIPT, SEASON, build_league, cli, cli_json


@functools.cache
def rule_index() -> rulings.rulebook.RuleIndex:
    return rulings.rulebook.load_rulebooks(None)


@pytest.fixture
def league_url(tmp_path: Path) -> str:
    return build_league(tmp_path)


@pytest_asyncio.fixture
async def client(league_url: str) -> AsyncIterator[TestClient[Any, Any]]:
    engine = make_engine(league_url)
    site = Site(engine, rules=rule_index)
    async with TestClient(TestServer(site.app())) as c:
        yield c
    engine.dispose()


_ROW = re.compile(r"<tr[^>]*>(.*?)</tr>", re.S)
_CELL = re.compile(r"<td[^>]*>(.*?)</td>", re.S)
_TAG = re.compile(r"<[^>]+>")


def table_rows(page: str, css: str) -> list[list[str]]:
    """The text of each body cell of the table with class ``css`` (none: no table)."""
    if f'<table class="{css}' not in page:
        return []
    body = page.split(f'<table class="{css}')[1].split("<tbody>")[1].split("</tbody>")[0]
    return [
        [html.unescape(_TAG.sub("", c)).strip() for c in _CELL.findall(row)]
        for row in _ROW.findall(body)
    ]


def number(cell: str) -> int:
    return int(cell.replace(",", ""))


async def get(client: TestClient[Any, Any], path: str, **headers: str) -> tuple[int, str]:
    response = await client.get(path, headers=headers)
    return response.status, await response.text()


@pytest.mark.parametrize("by", ["rp", "bp", "total"])
@pytest.mark.parametrize("location", [None, "Tap Room"])
@pytest.mark.parametrize("season", [SEASON, OLD_SEASON])
async def test_season_page_numbers_equal_the_cli_json(
    client, league_url, capsys, by, location, season
):
    args = ["standings", "--json", "--db", league_url, "--season", season, "--by", by]
    if location:
        args += ["--location", location]
    expected = cli_json(capsys, *args)
    query = f"?by={by}" + (f"&location={location.replace(' ', '+')}" if location else "")
    status, page = await get(client, f"/season/{season.replace(' ', '%20')}{query}")
    assert status == 200
    rows = table_rows(page, "standings")
    assert [
        {"player": r[1], "rp": number(r[2]), "bp": number(r[3]), "events": number(r[4])}
        for r in rows
    ] == expected
    assert [number(r[0]) for r in rows] == list(range(1, len(rows) + 1))


async def test_home_page_is_the_current_season(client, league_url, capsys):
    expected = cli_json(capsys, "standings", "--json", "--db", league_url)
    status, page = await get(client, "/")
    assert status == 200
    assert f"<h1>Standings, {SEASON}</h1>" in page
    assert [r[1] for r in table_rows(page, "standings")] == [e["player"] for e in expected]
    assert 'href="/season/2026%20Spring"' in page  # links to the other seasons


async def test_toc_page_equals_the_cli_json(client, league_url, capsys):
    expected = cli_json(capsys, "toc", "--json", "--db", league_url, "--season", SEASON)
    status, page = await get(client, "/toc/2026%20Fall")
    assert status == 200
    labels = {
        "Qualified": "qualified",
        "By conversion": "conversion",
        "Not yet": "not_qualified",
        "Forfeited": "forfeited",
    }
    got = [
        {
            "player": r[0],
            "status": labels[r[1]],
            "extra_chips": number(r[2]),
            "rp_short": number(r[3]),
            "bp_short": number(r[4]),
        }
        for r in table_rows(page, "toc")
    ]
    assert got == expected
    frank = next(r for r in table_rows(page, "toc") if r[0] == "Frank")
    assert frank[1] == "Forfeited"


async def test_points_race_ends_at_each_leaders_rp(league_url, capsys):
    expected = cli_json(capsys, "standings", "--json", "--db", league_url)
    engine = make_engine(league_url)
    with session_scope(engine) as session:
        league = web_league(session=session)
        view = season_view(session=session, league_id=league.id)
    engine.dispose()
    leaders = expected[:10]
    assert [name for name, _ in view.race.lines] == [e["player"] for e in leaders]
    assert [values[-1] for _, values in view.race.lines] == [e["rp"] for e in leaders]
    assert len(view.race.events) == 4  # the void event and the old season are not in the race
    for _, values in view.race.lines:
        assert list(values) == sorted(values)  # cumulative
    chart = web_chart.race_chart(view.race, "Race")
    svg = str(web_chart.to_svg(chart))
    assert svg.count("<polyline") == len(leaders)
    png = web_chart.to_png(chart)
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    assert image.size == (chart.width * 2, chart.height * 2)
    # The leader's colour is painted (the PNG is the same drawing as the SVG).
    leader = tuple(int(chart.series[0].color[i : i + 2], 16) for i in (1, 3, 5))
    assert leader in {c for _, c in image.convert("RGB").getcolors(1 << 20) or ()}


async def test_event_page_shows_finish_order_and_a_void_event_as_void(client):
    status, page = await get(client, "/event/2")
    assert status == 200
    rows = table_rows(page, "event")
    assert [r[:2] for r in rows[:4]] == [
        ["1", "Alice"],
        ["2", "Bob"],
        ["T3", "Carol"],
        ["T3", "Dave"],
    ]
    assert "VOID" not in page
    status, page = await get(client, "/event/6")
    assert status == 200
    assert "VOID" in page
    assert "wrong night" in page
    assert 'class="event void"' in page


async def test_player_page_history_totals_toc_and_strike(client, league_url, capsys):
    standings = cli_json(capsys, "standings", "--json", "--db", league_url)
    eve = next(r for r in standings if r["player"] == "Eve")
    status, page = await get(client, "/player/eve")  # any case finds the player
    assert status == 200
    assert "<h1>Eve</h1>" in page
    totals = table_rows(page, "totals")
    assert totals[0][0] == SEASON
    assert [number(c) for c in totals[0][1:4]] == [eve["rp"], eve["bp"], eve["events"]]
    assert "Strike 1" in page
    assert "slow roll" in page
    assert "Suspended for" in page
    assert "TOC:" in page
    assert "Short" in page
    status, page = await get(client, "/player/Alice")
    results = table_rows(page, "results")
    assert len(results) == 5  # four events this season (one void) and one in the spring
    assert any("void" in r[1] for r in results)
    _, page = await get(client, "/player/Frank")  # strike 3: the season is forfeited (3.B.a)
    totals = table_rows(page, "totals")
    assert totals[0][0] == f"{SEASON} (forfeited)"
    assert [number(c) for c in totals[0][1:3]] == [0, 0]
    assert "Season points and TOC forfeited (3.B)" in page


async def test_names_are_escaped_everywhere(client):
    pages = [
        "/",
        "/season/2026%20Fall?by=total",
        "/toc",
        "/event/3",
        "/player/%3Cscript%3Ealert%281%29%3C%2Fscript%3E",
        "/player/%22%20onmouseover%3D%22alert%282%29",
        "/player/%3Cscript%3Enobody%3C%2Fscript%3E",  # 404 page echoes the name
        "/season/%3Cscript%3E",
        "/season/2026%20Fall?location=%22%20onmouseover%3D%22x",
    ]
    for path in pages:
        status, page = await get(client, path)
        assert status in (200, 404), path
        assert "<script" not in page, path
        assert 'onmouseover="' not in page, path
    _, page = await get(client, "/player/%3Cscript%3Ealert%281%29%3C%2Fscript%3E")
    assert f"<h1>{html.escape(SCRIPT, quote=True).replace('&#x27;', '&#39;')}</h1>" in page
    _, page = await get(client, "/")
    names = [r[1] for r in table_rows(page, "standings")]
    assert SCRIPT in names
    assert QUOTE in names


@pytest.mark.parametrize(
    ("path", "status", "words"),
    [
        ("/nothing-here", 404, "There is no such page"),
        ("/season/2025%20Winter", 404, "There is no season"),
        ("/season/2026%20Fal", 404, "did you mean"),
        ("/event/999", 404, "There is no event #999"),
        ("/event/abc", 404, "There is no such page"),
        ("/player/Nobody", 404, "There is no player"),
        ("/rules/no-such-book", 404, "There is no rulebook"),
        ("/season/2026%20Fall?by=xyz", 400, "?by= takes rp, bp or total"),
        ("/season/2026%20Fall?location=Nowhere", 404, "There is no location"),
    ],
)
async def test_unknown_pages_get_a_page_not_a_traceback(client, path, status, words):
    got, page = await get(client, path)
    assert got == status
    assert html.escape(words, quote=False) in page
    assert "Traceback" not in page
    assert '<a href="/">Back to the standings</a>' in page


async def test_a_bug_is_a_plain_500_page_and_logged(client, monkeypatch, caplog):
    def broken(**_: Any) -> Any:
        raise RuntimeError("secret internals")

    monkeypatch.setattr(web_site, "season_view", broken)
    status, page = await get(client, "/")
    assert status == 500
    assert "secret internals" not in page
    assert "Traceback" not in page
    assert "Something went wrong" in page
    assert any("secret internals" in str(r.exc_info) for r in caplog.records if r.exc_info)


async def test_a_database_that_does_not_answer_is_a_503_page(client, monkeypatch, caplog):
    from sqlalchemy.exc import OperationalError

    def down(**_: Any) -> Any:
        raise OperationalError("select 1", {}, Exception("connection refused at 10.0.0.5"))

    monkeypatch.setattr(web_site, "season_view", down)
    status, page = await get(client, "/")
    assert status == 503
    assert "not available right now" in page
    assert "10.0.0.5" not in page
    assert not [r for r in caplog.records if r.levelname == "ERROR"]


async def test_refresh_costs_nothing_until_an_event_changes(client, league_url, tmp_path):
    first = await client.get("/season/2026%20Fall")
    assert first.status == 200
    etag, modified = first.headers["ETag"], first.headers["Last-Modified"]
    again = await client.get("/season/2026%20Fall", headers={"If-None-Match": etag})
    assert again.status == 304
    assert await again.read() == b""
    since = await client.get("/season/2026%20Fall", headers={"If-Modified-Since": modified})
    assert since.status == 304
    other = await client.get("/season/2026%20Fall?by=bp", headers={"If-None-Match": etag})
    assert other.status == 200  # another page, another tag
    path = tmp_path / "more.json"
    path.write_text(
        '{"season": "2026 Fall", "location": "Brewpub", "date": "2026-10-08",'
        ' "kind": "regular", "finish": [["Gus"], ["Eve"]]}',
        encoding="utf-8",
    )
    assert cli("event", "import", str(path), "--db", league_url) == 0
    changed = await client.get("/season/2026%20Fall", headers={"If-None-Match": etag})
    assert changed.status == 200
    assert changed.headers["ETag"] != etag
    assert "Gus" in await changed.text()


def _snapshot(url: str) -> dict[str, list[Any]]:
    engine = make_engine(url)
    with engine.connect() as conn:
        names = sorted(inspect(conn).get_table_names())
        out = {n: [tuple(r) for r in conn.execute(text(f'SELECT * FROM "{n}"'))] for n in names}
    engine.dispose()
    return out


async def test_the_site_writes_nothing_and_takes_only_get(client, league_url):
    before = _snapshot(league_url)
    for path in ["/", "/toc", "/event/1", "/player/Bob", "/rules", "/rules/poker-pub", "/x"]:
        await client.get(path)
    response = await client.post("/", data=b"x")
    assert response.status == 405
    assert "Traceback" not in await response.text()
    assert _snapshot(league_url) == before


async def test_rules_page_has_an_anchor_per_passage(client):
    status, page = await get(client, "/rules/btown-poker-league")
    assert status == 200
    book = rule_index().books["btown-poker-league"]
    for section in {p.section for p in book.passages}:
        assert page.count(f'id="{anchor(section)}"') == 1, section
    assert '<section class="passage" id="2.G.d.6">' in page
    status, page = await get(client, "/rules")
    assert 'href="/rules/btown-poker-league"' in page


def test_rule_links_point_at_the_passage():
    assert rule_url("https://poker.example.org/", "btown-poker-league", "2.G.d.6") == (
        "https://poker.example.org/rules/btown-poker-league#2.G.d.6"
    )
    assert rule_url("http://h", "bar-league-rules", "Bar rules 12") == (
        "http://h/rules/bar-league-rules#Bar-rules-12"
    )


async def test_stylesheet_is_served_and_cached(client):
    response = await client.get("/static/style.css")
    assert response.status == 200
    assert response.content_type == "text/css"
    again = await client.get(
        "/static/style.css", headers={"If-None-Match": response.headers["ETag"]}
    )
    assert again.status == 304


def test_rule_answers_link_to_the_passage_when_public_url_is_set():
    from bot.features.rule.wording import rule_reply

    linked = rule_reply(rule_index(), "oversized chip", public_url="https://poker.example.org")
    assert linked.citation == "btown-poker-league 2.G.d.6"
    assert linked.text.endswith(
        "[Read 2.G.d.6 in the rulebook](https://poker.example.org/rules/btown-poker-league#2.G.d.6)"
    )
    plain = rule_reply(rule_index(), "oversized chip")
    assert "https://" not in plain.text
    assert linked.text.startswith(plain.text)


async def test_the_linked_anchor_exists_on_the_rules_page(client):
    from bot.features.rule.wording import rule_reply

    reply = rule_reply(rule_index(), "who deals the second chance table", public_url="http://x")
    link = reply.text.rsplit("(", 1)[1].rstrip(")")
    path, fragment = link.removeprefix("http://x").split("#")
    status, page = await get(client, path)
    assert status == 200
    assert f'id="{fragment}"' in page


async def test_4_d_player_page_short_text_is_the_toc_status_own(client, league_url):
    engine = make_engine(league_url)
    with session_scope(engine) as session:
        league = web_league(session=session)
        table = season_toc(session=session, league_id=league.id)
    engine.dispose()
    eve = next(s for s in table.rows if s.player == "Eve")
    _, page = await get(client, "/player/Eve")
    assert f"Short {html.escape(eve.short_text())} (needs" in page


# Client mistakes: each one a 4xx answer, none an ERROR line (anyone on the internet can send
# them; a director reading the log must not take them for bugs).
MALFORMED = [
    b"GET /" + b"a" * 20_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",  # an over-long URL
    b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 20_000 + b"\r\n\r\n",  # header line
    b"NONSENSE\r\n\r\n",
    b"GET / HTTP/9.9\r\nHost: x\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    b"GET / HTTP/1.1\r\nBad Header\r\n\r\n",
    b"GET /\x00 HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /player/\xff HTTP/1.1\r\nHost: x\r\n\r\n",
    b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 40,  # TLS to a plain port
    b"GET /player/%00 HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /season/2026%20Fall?location=%00 HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /toc/%07 HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /event/99999999999999999999 HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /?by=%00 HTTP/1.1\r\nHost: x\r\n\r\n",
    b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc",
]


async def _status_of(port: int, request: bytes) -> int:
    import asyncio

    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(request)
        await writer.drain()
        line = await asyncio.wait_for(reader.readline(), 20)
    finally:
        writer.close()
    return int(line.split()[1])


async def test_malformed_requests_are_answered_4xx_without_an_error_log(league_url, caplog):
    import logging

    caplog.set_level(logging.DEBUG)
    site = Site(make_engine(league_url), rules=rule_index)
    runner = await web_site.start_site(site, "127.0.0.1", 0)
    try:
        port = runner.addresses[0][1]
        statuses = [await _status_of(port, request) for request in MALFORMED]
    finally:
        await runner.cleanup()
        site.engine.dispose()
    assert all(400 <= s < 500 for s in statuses), statuses
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == [], [r.getMessage() for r in errors]
    assert not [r for r in caplog.records if r.exc_info]  # no traceback at any level


async def test_a_guild_id_beyond_64_bits_is_a_404_not_a_500(league_url):
    engine = make_engine(league_url)
    site = Site(engine, guild_id=2**64 + 5, rules=rule_index)
    try:
        async with TestClient(TestServer(site.app())) as c:
            for path in ("/", "/toc", "/player/Alice", "/event/1"):
                status, page = await get(c, path)
                assert status == 404, path
                assert "There is no league for guild 18446744073709551621" in page
    finally:
        engine.dispose()


def test_the_first_date_label_sits_under_the_first_event_not_the_origin(league_url):
    engine = make_engine(league_url)
    with session_scope(engine) as session:
        view = season_view(session=session, league_id=web_league(session=session).id)
    engine.dispose()
    chart = web_chart.race_chart(view.race, "Race")
    events = view.race.events
    (first, first_x, _), (count, _, _), (last, last_x, last_anchor) = chart.x_labels
    first_event_x = round(chart.left + (chart.right - chart.left) / len(events), 1)
    assert (first, first_x) == (events[0].date.isoformat(), first_event_x)
    assert first_x > chart.left  # the origin is the season's start, before any event
    assert first_x in {x for x, _ in chart.series[0].points}  # the leader's first point
    assert (last, last_x, last_anchor) == (events[-1].date.isoformat(), chart.right, "end")
    assert count == f"{len(events)} events"
    svg = str(web_chart.to_svg(chart))
    assert f'<text x="{first_x}" y="{chart.bottom + 18}" text-anchor="middle"' in svg
