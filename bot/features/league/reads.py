"""/standings, /toc and /stack: the storage reads behind them.

Each ``*_for`` function is a storage call (keyword-only ``session``) that the handlers
(``bot.features.league.handlers``) run in one transaction on every surface; the pages are built by
``bot.features.league.wording``. A server's league is found by its guild id; guild None is the
database's own league (the command line's and the console's without ``--guild``).
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from dataclasses import dataclass
from typing import TypedDict

from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein
from sqlmodel import Session

import rulings
from bot.features.league import wording as views
from bot.reply import Reply, escape, plural
from rulings import SUGGEST_SCORE, name_key, similar_name
from storage.attendance import count_events_played
from storage.errors import NotFound
from storage.leagues import (
    get_league_rules,
    get_location,
    league_for,
    list_locations,
)
from storage.players import get_player, list_players
from storage.seasons import get_season, list_seasons
from storage.standings import StandingsTable, TocTable, season_standings, season_toc

log = logging.getLogger(__name__)


class Paging(TypedDict):
    """How a table is paged: rows and characters a page, the name column's width."""

    per_page: int
    char_limit: int
    name_width: int | None


DISCORD_PAGE: Paging = {
    "per_page": views.ROWS_PER_PAGE,
    "char_limit": views.DESCRIPTION_LIMIT,
    "name_width": views.NAME_WIDTH,
}
"""A Discord embed's page: a code block within the description limit, names cut to fit."""

TERMINAL_PAGE: Paging = {"per_page": 1_000_000, "char_limit": 1 << 30, "name_width": None}
"""Paging arguments that make one page of any table, names never cut (terminal output)."""


@dataclass(frozen=True)
class Paged:
    """Pages of a table and what is needed to page it again later (button presses).

    Attributes:
        pages: the replies, one per page.
        season_id: the season shown.
        location_id: the location shown, 0 for the whole season.
    """

    pages: tuple[Reply, ...]
    season_id: int
    location_id: int = 0


def _row_for(names: list[str], player: str) -> int:
    key = name_key(player)
    for i, name in enumerate(names):
        if name_key(name) == key:
            return i
    hint = similar_name(key, {name_key(n): n for n in names}, SUGGEST_SCORE)
    extra = f"; did you mean '{hint}'?" if hint else ""
    raise NotFound(f"'{player.strip()}' has no points this season{extra}")


def _player_name(session: Session, league_id: int, player: str) -> str:
    """The display name of ``player`` (an alias resolves to its player).

    Raises:
        NotFound: nobody by that name in the league (with a did-you-mean when one is close).
    """
    try:
        return get_player(session=session, league_id=league_id, name=player).name
    except NotFound:
        pass
    key = name_key(player)
    known: dict[str, str] = {}
    for info in list_players(session=session, league_id=league_id):
        known.update((name_key(n), info.name) for n in (info.name, *info.aliases))
    close = [k for k in known if fuzz.ratio(key, k) >= SUGGEST_SCORE]
    # Equal ratios ("4O" is as near "40" as "04"): the fewest edits in place wins.
    best = max(
        close, key=lambda k: (fuzz.ratio(key, k), Levenshtein.similarity(key, k)), default=None
    )
    extra = f"; did you mean '{known[best]}'?" if best is not None else ""
    raise NotFound(f"there is no player '{' '.join(player.split())}'{extra}")


def standings_player_reply(table: StandingsTable, player: str) -> Reply:
    """One player's line of the standings: rank, RP, BP and events."""
    names = [r.row.player for r in table.rows]
    ranked = table.rows[_row_for(names, player)]
    row = ranked.row
    where = f" at {escape(table.location)}" if table.location else ""
    text = (
        f"**#{ranked.rank}** of {len(table.rows)}{where}: {row.rp:,} RP, {row.bp:,} BP, "
        f"{plural(row.events, 'event')}, {plural(row.wins, 'win')}"
    )
    if ranked.tied_on_points:
        text += "\nLevel on points with the player above; placed by the tie-break."
    return Reply(title=f"{escape(row.player)}, {escape(table.season)}", text=text)


def toc_player_reply(table: TocTable, player: str, rules: rulings.LeagueRules) -> Reply:
    """One player's TOC status with the engine's explanation, citing the league's book."""
    names = [s.player for s in table.rows]
    status = table.rows[_row_for(names, player)]
    label = {
        "qualified": "Qualified",
        "conversion": "Qualified by conversion",
        "forfeited": "Forfeited",
    }.get(status.status, "Not qualified yet")
    lines = [f"**{label}**. {status.reason[:1].upper()}{status.reason[1:]}."]
    if status.extra_chips:
        lines.append(f"Extra starting chips: {status.extra_chips:,}")
    short = status.short_text()
    if short:
        lines.append(f"Short: {short}")
    return Reply(
        title=f"TOC: {escape(status.player)}, {escape(table.season)}",
        text="\n".join(lines),
        citation=rulings.rule_citation(rules, "toc"),
    )


def standings_for(
    *,
    session: Session,
    guild_id: int | None,
    season: str | None = None,
    location: str | None = None,
    player: str | None = None,
    page_size: Paging | None = None,
    mark: str | None = None,
) -> Paged:
    """A season's standings (the current one by default), at one location or for one player.

    ``mark``: the caller's own player (``/me``'s link), marked in the table.

    Raises:
        NotFound: no league, season, location or player by that name (with a suggestion).
    """
    league = league_for(session=session, guild_id=guild_id)
    found = get_season(session=session, league_id=league.id, name=season)
    loc = get_location(session=session, league_id=league.id, name=location) if location else None
    table = season_standings(
        session=session,
        league_id=league.id,
        season=found.name,
        location=loc.name if loc else None,
    )
    if player:
        name = _player_name(session, league.id, player)
        pages: tuple[Reply, ...] = (standings_player_reply(table, name),)
    else:
        paging = page_size or DISCORD_PAGE
        pages = tuple(views.standings_pages(table, mark=mark, **paging))
    return Paged(pages=pages, season_id=found.id, location_id=loc.id if loc else 0)


def toc_for(
    *,
    session: Session,
    guild_id: int | None,
    season: str | None = None,
    player: str | None = None,
    page_size: Paging | None = None,
    mark: str | None = None,
    staff: Collection[str] = (),
) -> Paged:
    """The Tournament of Champions table of a season, or one player's status in it.

    ``mark``: the caller's own player (``/me``'s link), marked in the table. ``staff``:
    players counted as staff (4.G); each must be a player of the league.

    Raises:
        NotFound: no league, season or player by that name.
        LeagueConfigError: the league has no TOC.
    """
    table, name, season_id, rules = toc_table_for(
        session=session, guild_id=guild_id, season=season, player=player, staff=staff
    )
    if name is not None:
        pages: tuple[Reply, ...] = (toc_player_reply(table, name, rules),)
    else:
        paging = page_size or DISCORD_PAGE
        pages = tuple(views.toc_pages(table, mark=mark, **paging))
    return Paged(pages=pages, season_id=season_id)


def toc_table_for(
    *,
    session: Session,
    guild_id: int | None,
    season: str | None = None,
    player: str | None = None,
    staff: Collection[str] = (),
) -> tuple[TocTable, str | None, int, rulings.LeagueRules]:
    """The TOC table, the player asked for (his league spelling), the season's id, the rules.

    Raises:
        NotFound: no league, season, player or staff member by that name.
        LeagueConfigError: the league has no TOC.
    """
    league = league_for(session=session, guild_id=guild_id)
    found = get_season(session=session, league_id=league.id, name=season)
    known_staff = [_player_name(session, league.id, n) for n in staff]
    name = _player_name(session, league.id, player) if player else None
    table = season_toc(session=session, league_id=league.id, season=found.name, staff=known_staff)
    rules = get_league_rules(session=session, league_id=league.id)
    return table, name, found.id, rules


def names_by_id(
    *, session: Session, guild_id: int | None, season_id: int, location_id: int
) -> tuple[str, str | None]:
    """The season's (and location's) name from ids kept in a page button.

    Raises:
        NotFound: the season or location is gone.
    """
    league = league_for(session=session, guild_id=guild_id)
    season = next(
        (s.name for s in list_seasons(session=session, league_id=league.id) if s.id == season_id),
        None,
    )
    if season is None:
        raise NotFound("that season no longer exists; ask again with /standings")
    if not location_id:
        return season, None
    location = next(
        (
            x.name
            for x in list_locations(session=session, league_id=league.id)
            if x.id == location_id
        ),
        None,
    )
    if location is None:
        raise NotFound("that location no longer exists; ask again with /standings")
    return season, location


def league_rules_for(*, session: Session, guild_id: int | None) -> rulings.LeagueRules:
    """The league's rules, or the default preset's when the server has no league yet."""
    try:
        league = league_for(session=session, guild_id=guild_id)
    except NotFound:
        return rulings.load_league_rules()
    return get_league_rules(session=session, league_id=league.id)


def events_played_by(*, session: Session, guild_id: int | None, player: str | None) -> int:
    """The nights stored for a player of the server's league (0: unknown, or no league)."""
    if player is None or not player.strip():
        return 0
    try:
        league = league_for(session=session, guild_id=guild_id)
    except NotFound:
        return 0
    return count_events_played(session=session, league_id=league.id, name=player)


def stack_reply_for(
    rules: rulings.LeagueRules, arrival: rulings.Arrival, player: str | None = None
) -> Reply:
    """The starting stack of one arrival under ``rules``.

    Raises:
        StackError: an arrival the rules do not allow (late and early, past the cutoff...).
    """
    return views.stack_reply(player or "a player", rulings.starting_stack(arrival, rules), rules)


def choices(*, session: Session, guild_id: int | None, what: str, typed: str) -> list[str]:
    """Names for autocomplete: seasons (newest first), locations or players matching ``typed``."""
    try:
        league = league_for(session=session, guild_id=guild_id)
    except NotFound:
        return []
    if what == "season":
        names = [s.name for s in reversed(list_seasons(session=session, league_id=league.id))]
    elif what == "location":
        names = [x.name for x in list_locations(session=session, league_id=league.id)]
    else:
        names = [p.name for p in list_players(session=session, league_id=league.id)]
    key = name_key(typed)
    starts = [n for n in names if name_key(n).startswith(key)]
    inside = [n for n in names if key in name_key(n) and n not in starts]
    return (starts + inside)[:25]
