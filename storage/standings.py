"""Standings and the TOC table of a season, aggregated in SQL, ranked by ``rulings``.

Each result row carries the points the engine computed at import, so a season's standings
are one ``GROUP BY player`` over that season's result rows of active (not void) events; the
rows that reach Python are one per player, however large the league grows. Ranking and TOC
status come from ``rulings.league.standings.rank_standings`` and ``rulings.league.toc.toc_table``.

Counting rules (documented in the README): RP and BP add up every active event of the season
except the TOC itself (which pays no league points); ``events``, ``wins`` and ``best_finish``
count regular tournaments only, so a second-chance table the same night is not a second event
played. A player at the forfeit strike level in the season keeps the row but with 0 RP/BP
(3.B.a: the season's points are forfeited) and is never TOC-qualified.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, case, func
from sqlalchemy import select as sa_select
from sqlmodel import Session, col

from rulings import (
    RankBy,
    RankedRow,
    StandingRow,
    TocStatus,
    champion,
    rank_standings,
    toc_table,
)
from storage.league_models import Event, Location, Player, Result, Season, Strike
from storage.leagues import LocationInfo, get_league_rules, get_location
from storage.seasons import SeasonInfo, get_season

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class StandingsTable:
    """A ranked season (or one location of it)."""

    season: str
    location: str | None
    by: str
    rows: tuple[RankedRow, ...]


@dataclass(frozen=True)
class TocTable:
    """Every player's TOC status for a season."""

    season: str
    rp_required: int
    bp_required: int
    rows: tuple[TocStatus, ...]


def _aggregate(
    session: Session, season_id: int, location_id: int | None, *, by_location: bool = False
) -> list[tuple[Any, ...]]:
    """One row per player (per location): name, RP, BP, events, wins, best finish.

    Only ``result`` is scanned (by its season index); the flags copied from the event
    (``is_counted``, ``is_regular``) avoid a join whose plan depends on fresh statistics.
    """
    regular = col(Result.is_regular)
    keys: list[Any] = [col(Result.player_id)]
    if by_location:
        keys.insert(0, col(Result.location_id))
    totals = (
        sa_select(
            *keys,
            func.sum(col(Result.rp)).label("rp"),
            func.sum(col(Result.bp)).label("bp"),
            func.sum(case((regular, 1), else_=0)).label("events"),
            func.sum(case((and_(regular, col(Result.position) == 1), 1), else_=0)).label("wins"),
            func.min(case((regular, col(Result.position)), else_=None)).label("best"),
        )
        .where(col(Result.season_id) == season_id)
        .where(col(Result.is_counted))
        .group_by(*keys)
    )
    if location_id is not None:
        totals = totals.where(col(Result.location_id) == location_id)
    sub = totals.subquery()
    columns: list[Any] = [
        col(Player.display_name),
        sub.c.rp,
        sub.c.bp,
        sub.c.events,
        sub.c.wins,
        sub.c.best,
    ]
    if by_location:
        columns.insert(0, sub.c.location_id)
    query = sa_select(*columns).join(Player, col(Player.id) == sub.c.player_id)
    return [tuple(row) for row in session.execute(query)]


def _row(values: tuple[Any, ...], forfeited: Collection[str]) -> StandingRow:
    name, rp, bp, events, wins, best = values
    if name in forfeited:
        rp = bp = 0
    return StandingRow(
        player=name,
        rp=int(rp or 0),
        bp=int(bp or 0),
        events=int(events or 0),
        wins=int(wins or 0),
        best_finish=int(best) if best is not None else None,
    )


def forfeited_players(
    *, session: Session, league_id: int, season_id: int, forfeit_level: int
) -> set[str]:
    """Return the display names of players at the forfeit strike level in a season."""
    query = (
        sa_select(col(Player.display_name))
        .join(Strike, col(Strike.player_id) == col(Player.id))
        .where(col(Strike.league_id) == league_id)
        .where(col(Strike.season_id) == season_id)
        .where(col(Strike.level) >= forfeit_level)
    )
    return {name for (name,) in session.execute(query)}


def standing_rows(
    *, session: Session, league_id: int, season_id: int, location_id: int | None = None
) -> list[StandingRow]:
    """Return one aggregated row per player of a season (or of one location of it)."""
    rules = get_league_rules(session=session, league_id=league_id)
    forfeited = forfeited_players(
        session=session,
        league_id=league_id,
        season_id=season_id,
        forfeit_level=rules.strike_forfeit_level,
    )
    return [_row(v, forfeited) for v in _aggregate(session, season_id, location_id)]


def season_standings(
    *,
    session: Session,
    league_id: int,
    season: str | None = None,
    location: str | None = None,
    by: RankBy = "rp",
) -> StandingsTable:
    """Rank a season (the current one when ``season`` is None), optionally at one location.

    Raises:
        NotFound: an unknown season or location (with a suggestion when one is close).
    """
    found: SeasonInfo = get_season(session=session, league_id=league_id, name=season)
    loc: LocationInfo | None = (
        get_location(session=session, league_id=league_id, name=location)
        if location is not None
        else None
    )
    rows = standing_rows(
        session=session,
        league_id=league_id,
        season_id=found.id,
        location_id=loc.id if loc else None,
    )
    return StandingsTable(
        season=found.name,
        location=loc.name if loc else None,
        by=by,
        rows=tuple(rank_standings(rows, by=by)),
    )


def _by_location(
    session: Session, league_id: int, season_id: int, forfeited: Collection[str]
) -> dict[int, list[StandingRow]]:
    by_location: dict[int, list[StandingRow]] = {}
    for values in _aggregate(session, season_id, None, by_location=True):
        by_location.setdefault(values[0], []).append(_row(values[1:], forfeited))
    return by_location


def _champions(
    session: Session, league_id: int, by_location: dict[int, list[StandingRow]], owner: str | None
) -> dict[str, str]:
    owner_key = (owner or "").casefold()
    names = dict(
        session.execute(
            sa_select(col(Location.id), col(Location.name)).where(
                col(Location.league_id) == league_id
            )
        ).all()
    )
    out: dict[str, str] = {}
    for lid, rows in by_location.items():
        best = champion([r for r in rows if r.player.casefold() != owner_key], by="rp")
        if best is not None:
            out[names[lid]] = best.player
    return out


def _overall(by_location: dict[int, list[StandingRow]]) -> list[StandingRow]:
    """Add up each player's per-location rows into one season row."""
    totals: dict[str, StandingRow] = {}
    for rows in by_location.values():
        for r in rows:
            seen = totals.get(r.player)
            if seen is None:
                totals[r.player] = r
                continue
            bests = [b for b in (seen.best_finish, r.best_finish) if b is not None]
            totals[r.player] = StandingRow(
                player=r.player,
                rp=seen.rp + r.rp,
                bp=seen.bp + r.bp,
                events=seen.events + r.events,
                wins=seen.wins + r.wins,
                best_finish=min(bests) if bests else None,
            )
    return list(totals.values())


def location_champions(*, session: Session, league_id: int, season_id: int) -> dict[str, str]:
    """Return location name -> its RP champion for a season (locations nobody scored at omitted)."""
    rules = get_league_rules(session=session, league_id=league_id)
    forfeited = forfeited_players(
        session=session,
        league_id=league_id,
        season_id=season_id,
        forfeit_level=rules.strike_forfeit_level,
    )
    by_location = _by_location(session, league_id, season_id, forfeited)
    return _champions(session, league_id, by_location, rules.owner)


def season_toc(
    *,
    session: Session,
    league_id: int,
    season: str | None = None,
    staff: Collection[str] = (),
) -> TocTable:
    """Return every player's TOC status for a season (the current one when None).

    One aggregate query per (location, player) gives both the location champions and, added
    up, the season rows.

    Args:
        session: The unit of work.
        league_id: The league.
        season: The season's name; the current season when None.
        staff: Tournament directors, host employees and sponsors (4.G).

    Raises:
        NotFound: an unknown season.
        LeagueConfigError: the league has no TOC.
    """
    found = get_season(session=session, league_id=league_id, name=season)
    rules = get_league_rules(session=session, league_id=league_id)
    forfeited = forfeited_players(
        session=session,
        league_id=league_id,
        season_id=found.id,
        forfeit_level=rules.strike_forfeit_level,
    )
    by_location = _by_location(session, league_id, found.id, forfeited)
    champions = _champions(session, league_id, by_location, rules.owner)
    table = toc_table(
        _overall(by_location),
        rules,
        owner=rules.owner,
        location_champions=set(champions.values()),
        staff=staff,
        suspended=forfeited,
    )
    return TocTable(
        season=found.name,
        rp_required=rules.toc_rp_required,
        bp_required=rules.toc_bp_required,
        rows=tuple(table),
    )


RESULT_COLUMNS = (
    "event_id",
    "season",
    "location",
    "date",
    "kind",
    "status",
    "player",
    "position",
    "tie_size",
    "rp",
    "bp",
    "finish_rp",
    "finish_bp",
    "bounty_rp",
    "premium_rp",
    "premium_bp",
    "second_chance_bp",
    "receipt_bp",
)


def iter_result_rows(*, session: Session, league_id: int) -> Iterator[tuple[Any, ...]]:
    """Yield every result of the league (``RESULT_COLUMNS``), streamed in batches."""
    query = (
        sa_select(
            col(Event.id),
            col(Season.name),
            col(Location.name),
            col(Event.date),
            col(Event.kind),
            col(Event.status),
            col(Player.display_name),
            col(Result.position),
            col(Result.tie_size),
            col(Result.rp),
            col(Result.bp),
            col(Result.finish_rp),
            col(Result.finish_bp),
            col(Result.bounty_rp),
            col(Result.premium_rp),
            col(Result.premium_bp),
            col(Result.second_chance_bp),
            col(Result.receipt_bp),
        )
        .select_from(Result)
        .join(Event, col(Event.id) == col(Result.event_id))
        .join(Season, col(Season.id) == col(Event.season_id))
        .join(Location, col(Location.id) == col(Event.location_id))
        .join(Player, col(Player.id) == col(Result.player_id))
        .where(col(Event.league_id) == league_id)
        .order_by(col(Event.date), col(Event.id), col(Result.id))
        .execution_options(yield_per=2000)
    )
    for row in session.execute(query):
        yield tuple(row)
