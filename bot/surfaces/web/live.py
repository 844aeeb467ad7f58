"""The bar's TV: ``/live`` and ``/live/<channel>``, a channel's clock and tables on one screen.

``/live`` lists the league's channels with a running clock or an open tournament, one link
each. ``/live/<channel>`` is that channel's night: the level and blinds (and ante) in the
largest type, the time left, the next level and the next break, players left and the average
stack, the seating chart, the last moves and bust-outs, and the reserve list; during a break the
break and what follows; a paused clock says PAUSED. The address is the channel's (its Discord
id; the console's is 0), not one clock's, so a TV keeps one bookmark from one night to the next.

How it stays current:

* the page is complete as served (server-rendered, every name escaped by the template), so it
  is right with scripts off; a ``<noscript>`` refresh reloads it every ``POLL_SECONDS`` then;
* with scripts on, ``/static/live.js`` (a same-origin file, the only script the page's
  content security policy allows) counts the time down every quarter second from the step's
  end time, and polls ``/live/<channel>/now`` every ``POLL_SECONDS`` (2 s) for the page's main
  part. That poll is a conditional GET: its ``ETag`` is the clock's action count, the step the
  clock is on, and the night's version. Screens polling one channel within ``READ_SECONDS``
  (0.25 s) of each other share one read of those versions, a clock's state is read once per
  action count, and a changed main part is rendered once and kept by its ETag, so a poll is
  mostly a 304 answered on the event loop. When the countdown reaches zero the script polls at
  once, so a new level shows within a second. The countdown's reference time comes with every
  answer (``X-Live-Now``), since a kept main part was rendered earlier.

Short polling rather than server-sent events: a changed page is at most one poll (2 s) behind
(the target is 5 s); every request is independent, so a TV rides out a restart of the web
process, a proxy that buffers or cuts long responses, and a phone that sleeps, without any
reconnection logic; and the server holds no connection or per-client state, so 50 screens
cost 25 small requests a second (``benchmarks/web.py``). Events would push a change sooner
but each stream would still have to poll the database for it, since the bot instance that
changed it may be another process.

Everything is read from the database (``storage.live``): the page does not depend on the bot
instance that runs the clock, and keeps working when another instance adopts it. A league that
hides its live pages (``/td settings live_page off``) gets 404 for all of them.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import logging
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from typing import Any, Protocol

import jinja2
from aiohttp import web
from sqlalchemy.engine import Engine

from rulings import (
    BlindLevel,
    Break,
    BustedOut,
    Chart,
    ClockPosition,
    ClockState,
    NightFinished,
    PlayerMoved,
    PlayStarted,
    Seat,
    SignedIn,
    TablesBalanced,
    format_seconds,
    position_at,
)
from storage.db import session_scope
from storage.live import (
    LiveNight,
    LiveStamp,
    is_live_page_shown,
    list_live_channels,
    live_clock,
    live_night,
    live_stamp,
)
from storage.tournaments import LoggedEntry
from storage.web import web_league


class Site(Protocol):
    """What the live pages read of the league site they belong to (``web.site.Site``)."""

    guild_id: int | None
    engine: Engine
    env: jinja2.Environment


log = logging.getLogger(__name__)

POLL_SECONDS = 2.0
"""How often a screen asks for changes."""
READ_SECONDS = 0.25
"""Screens polling one channel within this long of each other share one read of the database."""
LIVE_VERSION = "1"
"""Bumped when the live page's markup changes, so no screen keeps an old fragment."""
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
_CHANNEL_DIGITS = 20
_STATIC = {"live.js": "text/javascript", "live.css": "text/css"}


def live_path(channel_id: int) -> str:
    """The path of a channel's live page.

    >>> live_path(123456789012345678)
    '/live/123456789012345678'
    """
    return f"/live/{channel_id}"


# -- wording: pure functions of the values ------------------------------------------------------


def _ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``11th``, ``23rd``.

    >>> [_ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 102)]
    ['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '22nd', '102nd']
    """
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th') }"


def _ms(moment: dt.datetime) -> int:
    return round(moment.timestamp() * 1000)


@dataclass(frozen=True)
class ClockView:
    """The clock as the page shows it at one moment (words and end times, no maths left).

    ``ends_ms`` and ``break_ms`` (epoch milliseconds) are set only while the clock runs: the
    script counts down to them; ``left`` and ``to_break`` are the same figures at ``now``.
    """

    title: str
    is_break: bool
    blinds: str
    ante: str
    chip_up: str
    left: str
    ends_ms: int | None
    is_paused: bool
    is_ended: bool
    next_level: str
    next_break: str
    to_break: str
    break_ms: int | None
    late: str
    structure: str


def clock_view(state: ClockState, now: dt.datetime) -> ClockView:
    """Where the clock stands at ``now``, in the page's words."""
    pos: ClockPosition = position_at(state, now)
    running = not (pos.is_paused or pos.is_ended)
    step = pos.step
    if isinstance(step, Break):
        title, blinds, ante, chip_up = f"Break {step.number}", "", "", step.chip_up
    else:
        title = f"Level {step.number}"
        blinds = f"{step.small_blind:,} / {step.big_blind:,}"
        ante, chip_up = (f"Ante {step.ante:,}" if step.ante else ""), ""
    nxt: BlindLevel | None = pos.next_level
    next_level = f"Level {nxt.number}: {nxt.blinds}" if nxt is not None else ""
    next_break, to_break, break_ms = "", "", None
    if pos.next_break is not None and pos.seconds_to_break is not None:
        next_break = f"Break {pos.next_break.number}"
        to_break = format_seconds(pos.seconds_to_break)
        if running and math.isfinite(pos.seconds_to_break):
            break_ms = _ms(now + dt.timedelta(seconds=pos.seconds_to_break))
    late = ""
    if pos.is_late_registration_open is not None:
        late = "Open" if pos.is_late_registration_open else "Closed"
    return ClockView(
        title=title,
        is_break=isinstance(step, Break),
        blinds=blinds,
        ante=ante,
        chip_up=chip_up,
        left=format_seconds(pos.remaining),
        ends_ms=_ms(pos.ends_at) if running and pos.ends_at is not None else None,
        is_paused=pos.is_paused,
        is_ended=pos.is_ended,
        next_level=next_level,
        next_break=next_break,
        to_break=to_break,
        break_ms=break_ms,
        late=late,
        structure=state.structure.title,
    )


@dataclass(frozen=True)
class TableView:
    """One table of the seating chart: (seat number, player name or "", has the button)."""

    number: int
    seats: tuple[tuple[int, str, bool], ...]
    players: int


def tables_view(chart: Chart, seats_per_table: int) -> tuple[TableView, ...]:
    """The tables in play, each seat in order (empty seats as "")."""
    occupants = chart.occupants()
    tables = []
    for table in chart.tables:
        seats = []
        for n in range(1, seats_per_table + 1):
            key = occupants.get(Seat(table, n))
            button = chart.buttons.get(table) == n
            seats.append((n, chart.name(key) if key is not None else "", button))
        tables.append(TableView(table, tuple(seats), sum(1 for s in seats if s[1])))
    return tuple(tables)


def _where(seat: Seat) -> str:
    return f"table {seat.table} seat {seat.seat}"


def entry_lines(chart: Chart, logged: LoggedEntry) -> list[str]:
    """One entry of the night's log in words (moves and bust-outs); [] for the rest."""
    entry = logged.entry
    name = chart.name
    if isinstance(entry, BustedOut):
        lines = [f"{name(key)} out in {_ordinal(place)}" for key, place in entry.players]
        lines += [
            f"{name(m.player)} from the reserve list to {_where(m.to_seat)}" for m in entry.seated
        ]
        return lines
    if isinstance(entry, TablesBalanced):
        lines = [f"Table {t} broken" for t in entry.broken]
        return lines + [f"{name(m.player)} moves to {_where(m.to_seat)}" for m in entry.moves]
    if isinstance(entry, PlayerMoved):
        return [f"{name(entry.move.player)} moves to {_where(entry.move.to_seat)}"]
    if isinstance(entry, SignedIn):
        where = _where(entry.seat) if entry.seat is not None else "the reserve list"
        return [f"{entry.player.name} signed in: {where}"]
    if isinstance(entry, PlayStarted):
        return ["Play started"]
    if isinstance(entry, NightFinished):
        return ["The night is over"]
    return []


def night_values(night: LiveNight, now: dt.datetime) -> dict[str, Any]:
    """The template's values for one channel's night."""
    stamp = night.stamp
    clock = clock_view(night.clock, now) if night.clock is not None else None
    values: dict[str, Any] = {
        "channel": stamp.channel_id,
        "clock": clock,
        "now_ms": _ms(now),
        "tournament": None,
    }
    record = night.tournament
    if record is not None:
        chart = record.night.chart
        recent = [line for e in night.recent for line in entry_lines(chart, e)]
        values["tournament"] = {
            "location": record.night.setup.location,
            "status": chart.status,
            "left": chart.remaining,
            "average": chart.average_stack,
            "signed_in": len(chart.players),
            "tables": tables_view(chart, record.night.setup.seats_per_table),
            "reserve": [chart.name(k) for k in chart.reserve],
            "recent": recent[:8],
        }
    return values


def night_etag(league_id: int, stamp: LiveStamp, clock: ClockState | None, now: dt.datetime) -> str:
    """What a screen's copy of the page depends on: the actions, the step, the night's version.

    Time passing changes it only when the clock moves to its next step.
    """
    step: tuple[object, ...] = ()
    if clock is not None:
        pos = position_at(clock, now)
        step = (pos.index, pos.is_paused, pos.is_ended)
    parts = (
        LIVE_VERSION,
        league_id,
        stamp.channel_id,
        stamp.clock_id,
        stamp.clock_version,
        *step,
        stamp.tournament_id,
        stamp.tournament_seq,
    )
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()[:24]
    return f'"{digest}"'


@dataclass(frozen=True)
class _Read:
    """What one read of the database said about a channel, and when (``time.monotonic``)."""

    at: float
    league_id: int
    stamp: LiveStamp
    clock: ClockState | None


# -- the pages ------------------------------------------------------------------------------------


class LivePages:
    """The live pages of one ``Site`` (its database, league and templates).

    Args:
        site: the league pages they belong to.
        now: the wall clock (UTC); tests inject their own.
        poll_seconds: how often a screen asks for changes.
        read_seconds: screens asking within this long of each other share one read of the
            database (``READ_SECONDS``); a change shows at most that much later.
        cached: how many clock states and rendered main parts to keep. A clock's state is
            kept by its action count, a main part by its ETag, so neither is ever stale: when
            a bust changes the page, the first of 50 screens to ask renders it and the other 49
            get the same text.
    """

    def __init__(
        self,
        site: Site,
        *,
        now: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC),
        poll_seconds: float = POLL_SECONDS,
        read_seconds: float = READ_SECONDS,
        cached: int = 64,
    ) -> None:
        self.site = site
        self.now = now
        self.poll_seconds = poll_seconds
        self.cached = cached
        self.read_seconds = read_seconds
        self._reads: dict[int, _Read] = {}
        self._lock = threading.Lock()
        self._clocks: OrderedDict[tuple[int, int], ClockState] = OrderedDict()
        self._parts: OrderedDict[str, str] = OrderedDict()
        folder = resources.files("bot.surfaces.web").joinpath("static")
        self.static = {name: folder.joinpath(name).read_bytes() for name in _STATIC}
        self.static_etag = {
            name: f'"{hashlib.sha256(body).hexdigest()[:24]}"' for name, body in self.static.items()
        }

    def add_routes(self, app: web.Application) -> None:
        """Register ``/live``, ``/live/<channel>``, its poll and the two static files."""
        app.router.add_get("/live", self.index)
        app.router.add_get("/live/{channel}", self.page)
        app.router.add_get("/live/{channel}/now", self.fragment)
        for name in _STATIC:
            app.router.add_get(f"/static/{name}", self.static_file)

    def _league(self, session: Any) -> Any:
        league = web_league(session=session, guild_id=self.site.guild_id)
        if not is_live_page_shown(session=session, league_id=league.id):
            raise web.HTTPNotFound()
        return league

    def _clock(self, session: Any, stamp: LiveStamp) -> ClockState | None:
        """The running clock's state, read once per action count."""
        if stamp.clock_id is None:
            return None
        key = (stamp.clock_id, stamp.clock_version)
        with self._lock:
            state = self._clocks.get(key)
        if state is None:
            state = live_clock(session=session, clock_id=stamp.clock_id)
            self._keep(self._clocks, key, state)
        return state

    def _keep(self, cache: OrderedDict[Any, Any], key: Any, value: Any) -> None:
        with self._lock:
            cache[key] = value
            cache.move_to_end(key)
            while len(cache) > self.cached:
                cache.popitem(last=False)

    @staticmethod
    def _channel(request: web.Request) -> int:
        raw = request.match_info["channel"]
        if not raw.isascii() or not raw.isdigit() or len(raw) > _CHANNEL_DIGITS:
            raise web.HTTPNotFound()
        channel = int(raw)
        if channel >= 1 << 63:  # beyond a stored id (a signed 64-bit column)
            raise web.HTTPNotFound()
        return channel

    def _html(self, template: str, values: dict[str, Any], headers: dict[str, str]) -> web.Response:
        html = self.site.env.get_template(template).render(**values)
        headers["Content-Security-Policy"] = CSP
        return web.Response(text=html, content_type="text/html", charset="utf-8", headers=headers)

    async def index(self, request: web.Request) -> web.StreamResponse:
        """``/live``: one link per channel with a running clock or an open tournament."""

        def work() -> dict[str, Any]:
            now = self.now()
            with session_scope(self.site.engine) as session:
                league = self._league(session)
                channels = list_live_channels(session=session, league=league)
            rows = []
            for c in channels:
                clock = clock_view(c.clock, now) if c.clock is not None else None
                rows.append({"channel": c, "clock": clock, "path": live_path(c.channel_id)})
            return {"rows": rows, "refresh": 30}

        values = await asyncio.to_thread(work)
        return self._html("live_index.html", values, {"Cache-Control": "no-store"})

    async def page(self, request: web.Request) -> web.StreamResponse:
        """``/live/<channel>``: the whole page, as it is now (never cached)."""
        channel = self._channel(request)

        def work() -> dict[str, Any]:
            now = self.now()
            with session_scope(self.site.engine) as session:
                league = self._league(session)
                stamp = live_stamp(session=session, league=league, channel_id=channel)
                clock = self._clock(session, stamp)
                night = live_night(session=session, stamp=stamp, clock=clock)
            values = night_values(night, now)
            values["etag"] = night_etag(league.id, stamp, clock, now)
            return values

        values = await asyncio.to_thread(work)
        values["poll_seconds"] = self.poll_seconds
        values["poll_path"] = f"{live_path(channel)}/now"
        return self._html("live.html", values, {"Cache-Control": "no-store"})

    async def fragment(self, request: web.Request) -> web.StreamResponse:
        """``/live/<channel>/now``: the page's main part, or 304 when nothing changed."""
        channel = self._channel(request)
        wanted = request.headers.get("If-None-Match", "")

        read = self._reads.get(channel)
        if read is None or time.monotonic() - read.at > self.read_seconds:
            read = await asyncio.to_thread(self._read, channel)
        now = self.now()
        etag = night_etag(read.league_id, read.stamp, read.clock, now)
        html: str | None = None
        if etag not in {t.strip().removeprefix("W/") for t in wanted.split(",")}:
            with self._lock:
                html = self._parts.get(etag)
            if html is None:
                html = await asyncio.to_thread(self._render_part, read, etag, now)
        headers = {
            "ETag": etag,
            "Cache-Control": "no-cache",
            "Content-Security-Policy": CSP,
            # The countdown's reference: a kept main part's data-now is when it was rendered.
            "X-Live-Now": str(_ms(self.now())),
        }
        if html is None:
            return web.Response(status=304, headers=headers)
        return web.Response(text=html, content_type="text/html", charset="utf-8", headers=headers)

    def _read(self, channel: int) -> _Read:
        """Read a channel's versions (and its clock, once per action count); shared briefly."""
        with session_scope(self.site.engine) as session:
            league = self._league(session)
            stamp = live_stamp(session=session, league=league, channel_id=channel)
            read = _Read(time.monotonic(), league.id, stamp, self._clock(session, stamp))
        self._reads[channel] = read
        return read

    def _render_part(self, read: _Read, etag: str, now: dt.datetime) -> str:
        """Render the page's main part for ``read`` and keep it by its ETag."""
        with session_scope(self.site.engine) as session:
            night = live_night(session=session, stamp=read.stamp, clock=read.clock)
        html = self.site.env.get_template("live_main.html").render(**night_values(night, now))
        self._keep(self._parts, etag, html)
        return html

    async def static_file(self, request: web.Request) -> web.StreamResponse:
        """The live page's script and stylesheet."""
        name = request.path.rsplit("/", 1)[-1]
        etag = self.static_etag[name]
        headers = {"ETag": etag, "Cache-Control": "public, max-age=300"}
        if etag in request.headers.get("If-None-Match", ""):
            return web.Response(status=304, headers=headers)
        return web.Response(body=self.static[name], content_type=_STATIC[name], headers=headers)


__all__ = [
    "CSP",
    "POLL_SECONDS",
    "ClockView",
    "LivePages",
    "clock_view",
    "live_path",
    "night_values",
]
