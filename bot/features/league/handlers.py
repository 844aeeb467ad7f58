"""/standings, /toc and /stack; the ◀ ▶ page buttons of the long tables.

Discord gets one page at a time with page buttons whose ``custom_id`` carries what to show
(``pf:st:<season id>:<location id>:<page>``), so they keep working after a restart; the console
and the command line get the whole table as one page.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

import rulings
from bot.command.model import Context
from bot.features.league import wording as views
from bot.features.league.reads import (
    TERMINAL_PAGE,
    Paged,
    Paging,
    events_played_by,
    league_rules_for,
    names_by_id,
    stack_reply_for,
    standings_for,
    toc_for,
    toc_player_reply,
    toc_table_for,
)
from bot.reply import Button, File, Reply

log = logging.getLogger(__name__)


def _page(ctx: Context, kind: str, paged: Paged, page: int) -> Reply:
    """Page ``page`` (1-based) of ``paged``, with ◀ ▶ buttons on Discord."""
    total = len(paged.pages)
    page = max(1, min(page, total))
    reply = paged.pages[page - 1]
    if ctx.surface != "discord" or total <= 1:
        return reply
    buttons = tuple(
        Button(
            label=label,
            custom_id=f"pf:{kind}:{paged.season_id}:{paged.location_id}:{target}",
            disabled=disabled,
        )
        for label, target, disabled in (("◀", page - 1, page <= 1), ("▶", page + 1, page >= total))
    )
    return replace(reply, buttons=buttons)


def _size(ctx: Context) -> Paging | None:
    return None if ctx.surface == "discord" else TERMINAL_PAGE


def _mine(ctx: Context, session: Any) -> str | None:
    """The caller's own player (linked with ``/me link``), to mark in the tables."""
    if ctx.user_id is None:
        return None
    from storage.player_links import linked_player

    try:
        league = ctx.existing_league(session)
    except rulings.RulingsError:
        return None
    mine = linked_player(session=session, league_id=league.id, discord_id=ctx.user_id)
    return mine.name if mine is not None else None


def _chart(ctx: Context, season: str | None, location: str | None) -> File:
    """The points race of the season (top ten by RP) as a PNG: the web page's chart."""
    from bot.surfaces.web.chart import race_chart, to_png
    from storage.web import season_view

    with ctx.transaction() as session:
        league = ctx.existing_league(session)
        view = season_view(session=session, league_id=league.id, season=season, location=location)
    where = f" at {view.table.location}" if view.table.location else ""
    chart = race_chart(view.race, f"Points race (RP), {view.table.season}{where}")
    return File("points-race.png", to_png(chart))


def standings(
    ctx: Context,
    season: str | None = None,
    location: str | None = None,
    player: str | None = None,
    by: str = "rp",
    json: bool = False,
    chart: bool = False,
) -> Reply:
    """``/standings [season] [location] [player] [chart]``: the season's standings."""
    if json or by != "rp":
        return _standings_table(ctx, season, location, by, json=json)
    with ctx.transaction() as session:
        paged = standings_for(
            session=session,
            guild_id=ctx.guild_id,
            season=season,
            location=location,
            player=player,
            page_size=_size(ctx),
            mark=_mine(ctx, session),
        )
    reply = _page(ctx, "st", paged, 1)
    if chart:
        reply = replace(reply, files=(*reply.files, _chart(ctx, season, location)))
    return reply


def _standings_table(
    ctx: Context, season: str | None, location: str | None, by: str, *, json: bool
) -> Reply:
    from storage.leagues import get_location
    from storage.standings import season_standings

    with ctx.transaction() as session:
        league = ctx.existing_league(session)
        where = (
            get_location(session=session, league_id=league.id, name=location) if location else None
        )
        table = season_standings(
            session=session,
            league_id=league.id,
            season=season,
            location=where.name if where else None,
            by=by,  # type: ignore[arg-type]  # one of the option's choices
        )
    rows = [
        {"player": r.row.player, "rp": r.row.rp, "bp": r.row.bp, "events": r.row.events}
        for r in table.rows
    ]
    page = views.standings_pages(table, mark=None, **TERMINAL_PAGE)[0]
    return replace(page, data=rows) if json else page


def toc(
    ctx: Context,
    player: str | None = None,
    season: str | None = None,
    staff: tuple[str, ...] | None = None,
    json: bool = False,
) -> Reply:
    """``/toc [player] [season]``: Tournament of Champions qualification."""
    if json or staff:
        with ctx.transaction() as session:
            table, name, _, rules = toc_table_for(
                session=session, guild_id=ctx.guild_id, season=season, player=player,
                staff=staff or (),
            )  # fmt: skip
        rows = [
            {
                "player": s.player,
                "status": s.status,
                "extra_chips": s.extra_chips,
                "rp_short": s.rp_short,
                "bp_short": s.bp_short,
            }
            for s in table.rows
            if name is None or s.player == name
        ]
        if name is not None:
            return replace(toc_player_reply(table, name, rules), data=rows)
        return replace(views.toc_pages(table, mark=None, **TERMINAL_PAGE)[0], data=rows)
    with ctx.transaction() as session:
        paged = toc_for(
            session=session,
            guild_id=ctx.guild_id,
            season=season,
            player=player,
            page_size=_size(ctx),
            mark=_mine(ctx, session),
        )
    return _page(ctx, "toc", paged, 1)


def _by_id(ctx: Context, kind: str, season_id: str, location_id: str, page: str) -> Reply:
    with ctx.transaction() as session:
        season, location = names_by_id(
            session=session,
            guild_id=ctx.guild_id,
            season_id=int(season_id),
            location_id=int(location_id),
        )
        paged: Paged
        mine = _mine(ctx, session)
        if kind == "toc":
            paged = toc_for(session=session, guild_id=ctx.guild_id, season=season, mark=mine)
        else:
            paged = standings_for(
                session=session,
                guild_id=ctx.guild_id,
                season=season,
                location=location,
                mark=mine,
            )
    return _page(ctx, kind, paged, int(page))


def standings_page(ctx: Context, *args: str) -> Reply:
    """A standings page button: ``pf:st:<season id>:<location id>:<page>``."""
    return _by_id(ctx, "st", *_three(args))


def toc_page(ctx: Context, *args: str) -> Reply:
    """A TOC page button: ``pf:toc:<season id>:<location id>:<page>``."""
    return _by_id(ctx, "toc", *_three(args))


def _three(args: tuple[str, ...]) -> tuple[str, str, str]:
    from bot.errors import BadOption

    if len(args) != 3 or not all(a.isdigit() for a in args):
        raise BadOption("That button is out of date; ask again.")
    return args[0], args[1], args[2]


def stack(
    ctx: Context,
    player: str | None = None,
    early: bool = False,
    on_time: bool = False,
    birthday: bool = False,
    new_player: bool = False,
    brought: int = 0,
    late_big_blind: int | None = None,
) -> Reply:
    """``/stack``: a starting stack with every extra-chip rule, cap and late penalty."""
    arrival = rulings.Arrival(
        early_signin=early,
        on_time=on_time,
        birthday=birthday,
        new_player=new_player,
        new_players_brought=brought,
        late_big_blind=late_big_blind,
        events_played=ctx.db.run_sync(events_played_by, guild_id=ctx.guild_id, player=player)
        if new_player
        else 0,
    )
    rules: Any = ctx.db.run_sync(league_rules_for, guild_id=ctx.guild_id)
    return stack_reply_for(rules, arrival, player)
