"""The public league pages: standings, TOC, events, players and rulebooks, read-only.

An ``aiohttp.web`` application over the league database; pages are ``jinja2`` templates with
autoescape on, so every name a director typed shows as text. Each request runs in one worker
thread and one read transaction: it reads the league's newest write (``site_stamp``) first
and answers ``304 Not Modified`` when the browser's ``ETag`` (or ``Last-Modified``) still
holds, so a refresh when no event changed costs one indexed query. Nothing is written, there
is no login, and only what the league shows on Discord is shown. Unknown pages and names get a
404 page; a bug gets a plain 500 page (logged with its traceback), never a traceback.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import logging
import sys
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from email.utils import format_datetime
from importlib import resources
from typing import Any
from urllib.parse import quote, urlencode

import jinja2
from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from markupsafe import Markup, escape
from sqlalchemy.engine import Engine
from sqlmodel import Session

import rulings
import rulings.rulebook
from bot.errors import describe
from bot.surfaces.web.chart import race_chart, to_svg
from bot.surfaces.web.links import anchor
from bot.surfaces.web.live import LivePages
from storage.db import session_scope
from storage.errors import NotFound
from storage.events import get_event
from storage.floor import RulingInfo, list_rulings, rulings_by_section
from storage.web import (
    SiteStamp,
    player_view,
    season_view,
    site_stamp,
    toc_view,
    web_league,
)

log = logging.getLogger(__name__)

TEMPLATE_VERSION = "2"
"""Bumped when the pages' markup changes, so browsers do not keep an old page's ETag."""
RANKINGS = ("rp", "bp", "total")
RULINGS_LISTED = 500
"""The most rulings ``/rulings`` shows (newest first); a search finds older ones."""
QUERY_CHARS = 200
_STATUS_LABEL = {
    "qualified": "Qualified",
    "conversion": "By conversion",
    "not_qualified": "Not yet",
}
_KIND_LABEL = {"regular": "Regular", "second_chance": "Second chance", "toc": "TOC"}
RulesSource = Callable[[], "rulings.rulebook.RuleIndex | None"]


class BadRequest(rulings.RulingsError):
    """A page asked for with a value it cannot take (``?by=xyz``)."""


def _url_text(raw: str) -> str:
    """A name read from the URL; one with a control character (NUL, BEL...) names nothing.

    No stored name holds one, and PostgreSQL refuses NUL in a query outright: every name the
    pages take from a path or a query string comes through here, so such a request is a 404.
    """
    if any(unicodedata.category(c) == "Cc" for c in raw):
        raise web.HTTPNotFound()
    return raw


def _place(position: int | None, tie_size: int) -> str:
    if position is None:
        return "—"
    return f"T{position}" if tie_size > 1 else str(position)


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("bot.surfaces.web", "templates"),
        autoescape=True,  # every page, whatever its file name
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["n"] = lambda v: f"{int(v):,}"
    env.filters["part"] = lambda v: quote(str(v), safe="")
    env.filters["place"] = _place
    env.filters["kind"] = lambda v: _KIND_LABEL.get(v, v)
    env.filters["toc_status"] = lambda v: _STATUS_LABEL.get(v, v)
    env.globals["anchor"] = anchor
    return env


@dataclass(frozen=True)
class Page:
    """A rendered page, or a note that the browser's copy is still good."""

    status: int
    html: str | None
    etag: str
    changed: dt.datetime | None


def _etag(*parts: object) -> str:
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()[:24]
    return f'"{digest}"'


def _is_fresh(headers: Mapping[str, str], etag: str, changed: dt.datetime | None) -> bool:
    """Whether the browser's copy (``If-None-Match`` / ``If-Modified-Since``) is current."""
    tags = headers.get("If-None-Match")
    if tags is not None:
        wanted = {t.strip().removeprefix("W/") for t in tags.split(",")}
        return etag in wanted or "*" in wanted
    since = headers.get("If-Modified-Since")
    if since is None or changed is None:
        return False
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(since)
    except (TypeError, ValueError):
        return False
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return changed.replace(microsecond=0) <= when


class Site:
    """The league's public pages over one database.

    Args:
        engine: the league database (only read).
        guild_id: whose league (``--guild``); None: the only league, else ``default``.
        rules: returns the loaded rulebooks (None while they load).
        public_url: where the site is reached (``PUBLIC_URL``), for absolute links.
        cached_pages: how many rendered pages to keep (by ETag) for browsers without a copy;
            0 renders every request.
    """

    def __init__(
        self,
        engine: Engine,
        *,
        guild_id: int | None = None,
        rules: RulesSource | None = None,
        public_url: str | None = None,
        cached_pages: int = 64,
    ) -> None:
        self.engine = engine
        self.guild_id = guild_id
        self.rules = rules or (lambda: None)
        self.public_url = public_url
        self.env = _environment()
        self.cached_pages = cached_pages
        self._cache: OrderedDict[str, str] = OrderedDict()
        self._cache_lock = threading.Lock()
        self.css = resources.files("bot.surfaces.web").joinpath("static/style.css").read_bytes()
        self.css_etag = _etag("css", hashlib.sha256(self.css).hexdigest())

    # -- the application ---------------------------------------------------------------------

    def app(self) -> web.Application:
        """Build the ``aiohttp.web`` application (GET and HEAD only)."""
        app = web.Application(middlewares=[self._errors, self._headers])
        app.router.add_get("/", self.index)
        app.router.add_get("/season/{name}", self.season)
        app.router.add_get("/toc", self.toc)
        app.router.add_get("/toc/{season}", self.toc)
        app.router.add_get("/event/{id}", self.event)
        app.router.add_get("/player/{name}", self.player)
        app.router.add_get("/rules", self.rulebooks)
        app.router.add_get("/rules/{book}", self.rulebook)
        app.router.add_get("/rulings", self.rulings)
        app.router.add_get("/static/style.css", self.stylesheet)
        LivePages(self).add_routes(app)  # the bar's TV (issue 21)
        return app

    @web.middleware
    async def _headers(self, request: web.Request, handler: Any) -> web.StreamResponse:
        response: web.StreamResponse = await handler(request)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; "
            "base-uri 'none'; frame-ancestors 'none'",
        )
        response.headers.setdefault("Referrer-Policy", "same-origin")
        return response

    @web.middleware
    async def _errors(self, request: web.Request, handler: Any) -> web.StreamResponse:
        try:
            response: web.StreamResponse = await handler(request)
        except web.HTTPNotModified:
            raise
        except web.HTTPException as exc:
            if exc.status < 400:
                raise
            what = "There is no such page." if exc.status == 404 else exc.reason
            return self._error_page(exc.status, what)
        except Exception as exc:  # the one error path: describe() says what the visitor sees
            message, is_bug = describe(exc)
            if is_bug:
                log.exception("web page %s failed", request.path_qs)
                return self._error_page(500, message)
            if not isinstance(exc, rulings.RulingsError):  # the database is not answering
                log.warning("web page %s: %s", request.path_qs, message)
                return self._error_page(503, "The league's records are not available right now.")
            return self._error_page(404 if isinstance(exc, NotFound) else 400, _sentence(message))
        return response

    def _error_page(self, status: int, message: str) -> web.Response:
        html = self.env.get_template("error.html").render(status=status, message=message)
        return web.Response(
            status=status,
            text=html,
            content_type="text/html",
            charset="utf-8",
            headers={"Cache-Control": "no-store"},
        )

    async def _serve(
        self, request: web.Request, build: Callable[[Session, int], tuple[str, dict[str, Any]]]
    ) -> web.StreamResponse:
        """Run ``build`` (returns template and values) unless the browser's copy is current."""
        headers = dict(request.headers)
        key = request.path_qs

        def work() -> Page:
            with session_scope(self.engine) as session:
                league = web_league(session=session, guild_id=self.guild_id)
                stamp: SiteStamp = site_stamp(session=session, league_id=league.id)
                etag = _etag(TEMPLATE_VERSION, league.id, stamp.version, key)
                if _is_fresh(headers, etag, stamp.changed):
                    return Page(304, None, etag, stamp.changed)
                with self._cache_lock:
                    kept = self._cache.get(etag)
                if kept is not None:
                    return Page(200, kept, etag, stamp.changed)
                template, values = build(session, league.id)
            html = self.env.get_template(template).render(**values)
            self._keep(etag, html)
            return Page(200, html, etag, stamp.changed)

        page = await asyncio.to_thread(work)
        return self._respond(page)

    def _keep(self, etag: str, html: str) -> None:
        """Remember a rendered page; its ETag changes with any write, so it is never stale."""
        if self.cached_pages <= 0:
            return
        with self._cache_lock:
            self._cache[etag] = html
            self._cache.move_to_end(etag)
            while len(self._cache) > self.cached_pages:
                self._cache.popitem(last=False)

    def _respond(self, page: Page) -> web.StreamResponse:
        headers = {"ETag": page.etag, "Cache-Control": "no-cache"}
        if page.changed is not None:
            headers["Last-Modified"] = format_datetime(page.changed.astimezone(dt.UTC), usegmt=True)
        if page.html is None:
            return web.Response(status=304, headers=headers)
        return web.Response(
            text=page.html, content_type="text/html", charset="utf-8", headers=headers
        )

    # -- pages ---------------------------------------------------------------------------------

    async def index(self, request: web.Request) -> web.StreamResponse:
        """``/``: the current season's standings."""
        return await self._season(request, None)

    async def season(self, request: web.Request) -> web.StreamResponse:
        """``/season/<name>?location=&by=rp|bp|total``."""
        return await self._season(request, _url_text(request.match_info["name"]))

    async def _season(self, request: web.Request, name: str | None) -> web.StreamResponse:
        by = request.query.get("by", "rp")
        if by not in RANKINGS:
            raise BadRequest("?by= takes rp, bp or total")
        location = _url_text(request.query.get("location") or "") or None

        def build(session: Session, league_id: int) -> tuple[str, dict[str, Any]]:
            view = season_view(
                session=session,
                league_id=league_id,
                season=name,
                location=location,
                by=by,  # type: ignore[arg-type]
            )
            where = f" at {view.table.location}" if view.table.location else ""
            chart = race_chart(view.race, f"Points race (RP), {view.table.season}{where}")

            def link(**changes: str | None) -> str:
                params = {"location": view.table.location, "by": by if by != "rp" else None}
                params.update(changes)
                query = urlencode({k: v for k, v in params.items() if v})
                base = f"/season/{quote(view.table.season, safe='')}"
                return f"{base}?{query}" if query else base

            return "season.html", {
                "view": view,
                "table": view.table,
                "rows": standings_rows(view.table.rows),
                "chart": to_svg(chart),
                "link": link,
                "rankings": RANKINGS,
            }

        return await self._serve(request, build)

    async def toc(self, request: web.Request) -> web.StreamResponse:
        """``/toc/<season>``: qualified, by conversion, short by what, extra chips."""
        name = request.match_info.get("season")
        if name is not None:
            name = _url_text(name)

        def build(session: Session, league_id: int) -> tuple[str, dict[str, Any]]:
            view = toc_view(session=session, league_id=league_id, season=name)
            return "toc.html", {"table": view.table, "forfeited": view.forfeited}

        return await self._serve(request, build)

    async def event(self, request: web.Request) -> web.StreamResponse:
        """``/event/<id>``: the night's finish order and points; a void event says so."""
        raw = request.match_info["id"]
        if not raw.isdigit() or len(raw) > 12:
            raise web.HTTPNotFound()

        def build(session: Session, league_id: int) -> tuple[str, dict[str, Any]]:
            detail = get_event(session=session, league_id=league_id, event_id=int(raw))
            return "event.html", {"detail": detail, "event": detail.event}

        return await self._serve(request, build)

    async def player(self, request: web.Request) -> web.StreamResponse:
        """``/player/<name>``: every event, season totals, TOC progress, strikes."""
        name = _url_text(request.match_info["name"])

        def build(session: Session, league_id: int) -> tuple[str, dict[str, Any]]:
            view = player_view(session=session, league_id=league_id, name=name)
            return "player.html", {"view": view, "player": view.player}

        return await self._serve(request, build)

    def _rule_index(self) -> rulings.rulebook.RuleIndex:
        index = self.rules()
        if index is None:
            raise web.HTTPServiceUnavailable(reason="The rulebooks are still loading.")
        return index

    async def rulebooks(self, request: web.Request) -> web.StreamResponse:
        """``/rules``: the loaded rulebooks."""
        index = self._rule_index()
        books = [index.books[n] for n in index.book_names]
        page = Page(200, None, _etag(TEMPLATE_VERSION, "books", *index.book_names), None)
        if _is_fresh(dict(request.headers), page.etag, None):
            return self._respond(page)
        html = self.env.get_template("rulebooks.html").render(books=books)
        return self._respond(Page(200, html, page.etag, None))

    async def rulebook(self, request: web.Request) -> web.StreamResponse:
        """``/rules/<book>``: the whole book, one anchor per passage (``#2.G.d.6``)."""
        index = self._rule_index()
        name = _url_text(request.match_info["book"])
        book = index.books.get(name)
        if book is None:
            raise NotFound(f"there is no rulebook called '{name}'")
        version, cited = await asyncio.to_thread(self._league_rulings, name)
        etag = _etag(
            TEMPLATE_VERSION, "book", name, len(book.passages), book.passages[-1].key, version
        )
        if _is_fresh(dict(request.headers), etag, None):
            return self._respond(Page(304, None, etag, None))
        blocks = await asyncio.to_thread(rule_blocks, book, cited)
        html = self.env.get_template("rulebook.html").render(book=book, blocks=blocks)
        return self._respond(Page(200, html, etag, None))

    def _league_rulings(self, book: str) -> tuple[int, dict[str, list[RulingInfo]]]:
        """The league's newest write (for the ETag) and its rulings citing ``book``'s rules.

        A database without a league (yet) has none: the book is shown alone.
        """
        with session_scope(self.engine) as session:
            try:
                league = web_league(session=session, guild_id=self.guild_id)
            except NotFound:
                return 0, {}
            stamp = site_stamp(session=session, league_id=league.id)
            return stamp.version, rulings_by_section(
                session=session, league_id=league.id, book=book
            )

    async def rulings(self, request: web.Request) -> web.StreamResponse:
        """``/rulings?q=``: the league's rulings, newest first (``q`` searches them)."""
        query = _url_text(request.query.get("q") or "")[:QUERY_CHARS]

        def build(session: Session, league_id: int) -> tuple[str, dict[str, Any]]:
            found = list_rulings(
                session=session, league_id=league_id, query=query or None, limit=RULINGS_LISTED
            )
            return "rulings.html", {"rulings": found, "query": query}

        return await self._serve(request, build)

    async def stylesheet(self, request: web.Request) -> web.StreamResponse:
        """The one stylesheet."""
        headers = {"ETag": self.css_etag, "Cache-Control": "public, max-age=3600"}
        if _is_fresh(dict(request.headers), self.css_etag, None):
            return web.Response(status=304, headers=headers)
        return web.Response(body=self.css, content_type="text/css", headers=headers)


def standings_rows(rows: Sequence[rulings.RankedRow]) -> Markup:
    """The standings table's body rows, every name escaped.

    Written here rather than in the template: a season of 1,200 players makes this the page's
    hot loop, and a plain join is about four times faster than the template's loop.
    """
    return Markup(
        "\n".join(
            f'<tr><td class="num">{r.rank}</td><td><a href="/player/'
            f'{quote(r.row.player, safe="")}">{escape(r.row.player)}</a></td>'
            f'<td class="num">{r.row.rp:,}</td><td class="num">{r.row.bp:,}</td>'
            f'<td class="num">{r.row.events}</td></tr>'
            for r in rows
        )
    )


@dataclass(frozen=True)
class RuleBlock:
    """One piece of a rulebook page: a heading, or a passage (with its table rows)."""

    heading: str | None = None
    anchor: str | None = None
    section: str = ""
    title: str = ""
    text: str = ""
    rows: tuple[str, ...] = ()
    rulings: tuple[RulingInfo, ...] = ()


def rule_blocks(
    book: rulings.rulebook.Rulebook, cited: Mapping[str, Sequence[RulingInfo]] | None = None
) -> list[RuleBlock]:
    """Lay a book out in reading order: top-level headings, passages, their table rows.

    Each section gets one anchor, on its first passage; a table's rows follow the passage
    that introduces them; the league's rulings citing a section (``cited``, newest first)
    follow its first passage ("League rulings").
    """
    cited = cited or {}
    blocks: list[RuleBlock] = []
    seen: set[str] = set()
    heading: str | None = None
    for p in book.passages:
        top = p.headings[0] if p.headings else None
        if top and top != heading:
            heading = top
            blocks.append(RuleBlock(heading=top))
        if p.table and blocks and blocks[-1].heading is None and blocks[-1].section == p.section:
            last = blocks[-1]
            blocks[-1] = RuleBlock(
                anchor=last.anchor,
                section=last.section,
                title=last.title,
                text=last.text,
                rows=(*last.rows, p.text),
                rulings=last.rulings,
            )
            continue
        first = anchor(p.section) not in seen
        seen.add(anchor(p.section))
        text, rows = ("", (p.text,)) if p.table else (p.text, ())
        blocks.append(
            RuleBlock(
                anchor=anchor(p.section) if first else None,
                section=p.section,
                title=p.title,
                text=text,
                rows=rows,
                rulings=tuple(cited.get(p.section, ())) if first else (),
            )
        )
    return blocks


def _sentence(message: str) -> str:
    return message[:1].upper() + message[1:] + ("" if message.endswith((".", "?", "!")) else ".")


class _ServerLog(logging.LoggerAdapter):  # type: ignore[type-arg]  # generic only in typeshed
    """aiohttp's server log, with a client's malformed request at DEBUG instead of ERROR.

    aiohttp answers a request its parser refuses (an over-long URL or header line, a request
    line that is not HTTP, a bad ``Content-Length``) with a 400 of its own and logs it with a
    traceback at ERROR. That is the client's mistake, not a bug here, and anyone on the
    internet can send one: it is logged at DEBUG in one line. Everything else (a handler's
    exception past the pages' own error page) stays an ERROR with its traceback.
    """

    def log(self, level: int, msg: object, *args: object, **kwargs: Any) -> None:
        """Log as asked, except a refused request: one DEBUG line, no traceback."""
        exc_info = kwargs.get("exc_info")
        error = exc_info if isinstance(exc_info, BaseException) else None
        if exc_info is True:
            error = sys.exc_info()[1]
        if isinstance(error, HttpProcessingError) and 400 <= (error.code or 0) < 500:
            message = " ".join(str(error.message).split())
            self.logger.debug("refused a malformed request (%s): %s", error.code, message)
            return
        self.logger.log(level, msg, *args, **kwargs)


async def start_site(site: Site, host: str, port: int) -> web.AppRunner:
    """Start serving ``site`` on ``host:port`` inside a running event loop (``pokerfloor run``).

    Returns:
        The runner; ``await runner.cleanup()`` stops it.

    Raises:
        OSError: cannot listen there (an address not of this machine, a port in use); nothing
            is left running.
    """
    server_log = _ServerLog(logging.getLogger("aiohttp.server"), {})
    runner = web.AppRunner(site.app(), access_log=None, logger=server_log)
    await runner.setup()
    try:
        await web.TCPSite(runner, host, port).start()
    except BaseException:
        await runner.cleanup()
        raise
    log.info("league pages on http://%s:%d/", host, port)
    return runner
