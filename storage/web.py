"""Read-only queries behind the public league pages (``bot.web``) and ``/me``.

Nothing here writes. The numbers come from the same functions as ``pokerfloor standings`` and
``pokerfloor toc`` (``storage.standings``), so a page and the command line always agree; this
module adds what only the pages show: the points race of a season, a player's history, and the
stamp that tells whether anything changed since a browser last asked (``ETag``).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from sqlalchemy import func
from sqlalchemy import select as sa_select
from sqlmodel import Session, col

import rulings
from rulings import RankBy, RankedRow, Suspension, TocStatus, is_strike_active, name_key, suspension
from rulings import Strike as RulingStrike
from storage.league_models import AuditEntry, Event, Location, Player, Result, Season
from storage.leagues import (
    LeagueInfo,
    LocationInfo,
    get_league,
    get_league_rules,
    list_locations,
    only_league_guild,
)
from storage.players import PlayerInfo, StrikeInfo, get_player, list_strikes
from storage.seasons import SeasonInfo, get_season, list_seasons
from storage.standings import (
    StandingsTable,
    TocTable,
    forfeited_players,
    season_standings,
    season_toc,
)

log = logging.getLogger(__name__)

RACE_TOP = 10
"""How many players the points-race chart follows."""


@dataclass(frozen=True)
class SiteStamp:
    """What the league's pages were built from: every write adds an audit entry.

    Attributes:
        version: the newest audit entry's id (0 before any write).
        changed: when that entry was written (None before any write).
    """

    version: int
    changed: dt.datetime | None


@dataclass(frozen=True)
class RaceEvent:
    """One event on the points-race chart's horizontal axis."""

    id: int
    date: dt.date
    location: str


@dataclass(frozen=True)
class PointsRace:
    """Cumulative RP of some players after each of a season's events, in event order.

    Attributes:
        events: the season's counted events, oldest first.
        lines: (player, RP after each event) in standings order; each tuple has one value per
            event, the last equal to the player's RP in the standings.
    """

    events: tuple[RaceEvent, ...]
    lines: tuple[tuple[str, tuple[int, ...]], ...]


@dataclass(frozen=True)
class SeasonView:
    """Everything the season page shows."""

    table: StandingsTable
    seasons: tuple[SeasonInfo, ...]
    locations: tuple[LocationInfo, ...]
    race: PointsRace


@dataclass(frozen=True)
class PlayerResult:
    """One event a player took part in."""

    event_id: int
    season: str
    location: str
    date: dt.date
    kind: str
    status: str
    position: int | None
    tie_size: int
    rp: int
    bp: int

    @property
    def is_counted(self) -> bool:
        """Whether it counts in standings (active and not the TOC)."""
        return self.status == "active" and self.kind != "toc"


@dataclass(frozen=True)
class SeasonTotal:
    """A player's season as the standings count it (0 RP/BP when forfeited, 3.B.a)."""

    season: str
    rp: int
    bp: int
    events: int
    wins: int
    forfeited: bool


@dataclass(frozen=True)
class StrikeView:
    """A strike, whether it is still on the record, and the suspension it causes."""

    strike: StrikeInfo
    is_active: bool
    suspension: Suspension


@dataclass(frozen=True)
class PlayerView:
    """Everything a player's page (and ``/me``) shows.

    Attributes:
        player: who.
        season: the current season's name (None before any season).
        rank: his row in the current season's standings (None: no points there).
        ranked: how many players the current standings rank.
        toc: his TOC status in the current season (None: no row, or the league has no TOC).
        toc_rp_required: the RP minimum (4.B) of the TOC table, 0 without one.
        toc_bp_required: the BP minimum (4.B), 0 without one.
        totals: each season he played, newest first.
        results: every event he played, newest first.
        strikes: his strikes, newest first.
    """

    player: PlayerInfo
    season: str | None
    rank: RankedRow | None
    ranked: int
    toc: TocStatus | None
    toc_rp_required: int
    toc_bp_required: int
    totals: tuple[SeasonTotal, ...]
    results: tuple[PlayerResult, ...]
    strikes: tuple[StrikeView, ...]


def web_league(*, session: Session, guild_id: int | None = None) -> LeagueInfo:
    """Return the league the pages show: a server's, else the database's only league.

    Picked as the command line picks it (``only_league_guild``): without ``--guild``, the
    only league, else the command line's own.

    Raises:
        NotFound: no such league (yet), or several servers' leagues and no ``--guild``.
    """
    if guild_id is None:
        guild_id = only_league_guild(session=session)
    if guild_id is not None:
        return get_league(session=session, guild_id=guild_id)
    return get_league(session=session)


def site_stamp(*, session: Session, league_id: int) -> SiteStamp:
    """Return the league's newest write (the last audit entry: one indexed row, every request)."""
    newest = session.execute(
        sa_select(col(AuditEntry.id), col(AuditEntry.at))
        .where(col(AuditEntry.league_id) == league_id)
        .order_by(col(AuditEntry.id).desc())
        .limit(1)
    ).first()
    if newest is None:
        return SiteStamp(version=0, changed=None)
    version, changed = newest
    if changed is not None and changed.tzinfo is None:
        changed = changed.replace(tzinfo=dt.UTC)
    return SiteStamp(version=int(version), changed=changed)


def points_race(
    *,
    session: Session,
    league_id: int,
    season_id: int,
    players: Sequence[str],
    location_id: int | None = None,
    forfeited: Collection[str] = (),
) -> PointsRace:
    """Return the cumulative RP of ``players`` after each counted event of a season.

    A forfeited player's line stays at 0, as his standings row does (3.B.a).
    """
    events_q = (
        sa_select(col(Event.id), col(Event.date), col(Location.name))
        .join(Location, col(Location.id) == col(Event.location_id))
        .where(col(Event.league_id) == league_id)
        .where(col(Event.season_id) == season_id)
        .where(col(Event.status) == "active")
        .where(col(Event.kind) != "toc")
        .order_by(col(Event.date), col(Event.id))
    )
    if location_id is not None:
        events_q = events_q.where(col(Event.location_id) == location_id)
    events = tuple(RaceEvent(id=i, date=d, location=n) for i, d, n in session.execute(events_q))
    if not players or not events:
        return PointsRace(events=events, lines=tuple((p, ()) for p in players))
    position = {e.id: i for i, e in enumerate(events)}
    gains: dict[str, list[int]] = {p: [0] * len(events) for p in players}
    # By id, so the covering standings index (season, player, ...) serves the lookup.
    ids = dict(
        session.execute(
            sa_select(col(Player.id), col(Player.display_name))
            .where(col(Player.league_id) == league_id)
            .where(col(Player.name_key).in_([name_key(p) for p in players]))
        ).all()
    )
    results_q = (
        sa_select(col(Result.event_id), col(Result.player_id), col(Result.rp))
        .where(col(Result.season_id) == season_id)
        .where(col(Result.player_id).in_(list(ids)))
        .where(col(Result.is_counted))
    )
    if location_id is not None:
        results_q = results_q.where(col(Result.location_id) == location_id)
    for event_id, player_id, rp in session.execute(results_q):
        name = ids[player_id]
        at = position.get(event_id)
        if at is not None and name in gains and name not in forfeited:
            gains[name][at] += int(rp or 0)
    lines = []
    for name in players:
        total, running = 0, []
        for gain in gains[name]:
            total += gain
            running.append(total)
        lines.append((name, tuple(running)))
    return PointsRace(events=events, lines=tuple(lines))


def season_view(
    *,
    session: Session,
    league_id: int,
    season: str | None = None,
    location: str | None = None,
    by: RankBy = "rp",
    top: int = RACE_TOP,
) -> SeasonView:
    """Return a season's standings (as ``pokerfloor standings``) and its points race.

    The race follows the top ``top`` players by RP (whatever ``by`` ranks the table).

    Raises:
        NotFound: an unknown season or location.
    """
    table = season_standings(
        session=session, league_id=league_id, season=season, location=location, by=by
    )
    seasons = tuple(list_seasons(session=session, league_id=league_id))
    season_id = next(s.id for s in seasons if s.name == table.season)
    locations = tuple(list_locations(session=session, league_id=league_id))
    loc_id = next((x.id for x in locations if x.name == table.location), None)
    by_rp = table if by == "rp" else None
    if by_rp is None:
        leaders = rulings.rank_standings([r.row for r in table.rows], by="rp")[:top]
    else:
        leaders = list(by_rp.rows[:top])
    forfeited = {r.row.player for r in leaders if r.row.rp == 0}
    race = points_race(
        session=session,
        league_id=league_id,
        season_id=season_id,
        players=[r.row.player for r in leaders],
        location_id=loc_id,
        forfeited=forfeited,
    )
    return SeasonView(table=table, seasons=seasons, locations=locations, race=race)


@dataclass(frozen=True)
class TocView:
    """A season's TOC table, and who forfeited it (strike 3, 3.B.a)."""

    table: TocTable
    forfeited: frozenset[str]


def toc_view(*, session: Session, league_id: int, season: str | None = None) -> TocView:
    """Return a season's TOC table (as ``pokerfloor toc``) and its forfeited players.

    Raises:
        NotFound: an unknown season.
        LeagueConfigError: the league has no TOC.
    """
    table = season_toc(session=session, league_id=league_id, season=season)
    found = get_season(session=session, league_id=league_id, name=table.season)
    rules = get_league_rules(session=session, league_id=league_id)
    forfeited = forfeited_players(
        session=session,
        league_id=league_id,
        season_id=found.id,
        forfeit_level=rules.strike_forfeit_level,
    )
    return TocView(table=table, forfeited=frozenset(forfeited))


def _player_results(session: Session, player_id: int) -> tuple[PlayerResult, ...]:
    query = (
        sa_select(
            col(Event.id),
            col(Season.name),
            col(Location.name),
            col(Event.date),
            col(Event.kind),
            col(Event.status),
            col(Result.position),
            col(Result.tie_size),
            col(Result.rp),
            col(Result.bp),
        )
        .select_from(Result)
        .join(Event, col(Event.id) == col(Result.event_id))
        .join(Season, col(Season.id) == col(Event.season_id))
        .join(Location, col(Location.id) == col(Event.location_id))
        .where(col(Result.player_id) == player_id)
        .order_by(col(Event.date).desc(), col(Event.id).desc())
    )
    return tuple(
        PlayerResult(
            event_id=eid,
            season=season,
            location=location,
            date=day,
            kind=kind,
            status=status,
            position=position,
            tie_size=int(tie or 1),
            rp=int(rp or 0),
            bp=int(bp or 0),
        )
        for eid, season, location, day, kind, status, position, tie, rp, bp in session.execute(
            query
        )
    )


def _totals(
    results: Sequence[PlayerResult], seasons: Sequence[SeasonInfo], forfeited: Collection[str]
) -> tuple[SeasonTotal, ...]:
    order = {s.name: i for i, s in enumerate(seasons)}
    acc: dict[str, list[int]] = {}
    for r in results:
        row = acc.setdefault(r.season, [0, 0, 0, 0])
        if not r.is_counted:
            continue
        row[0] += r.rp
        row[1] += r.bp
        if r.kind == "regular":
            row[2] += 1
            row[3] += r.position == 1
    out = [
        SeasonTotal(
            season=name,
            rp=0 if name in forfeited else rp,
            bp=0 if name in forfeited else bp,
            events=events,
            wins=wins,
            forfeited=name in forfeited,
        )
        for name, (rp, bp, events, wins) in acc.items()
    ]
    out.sort(key=lambda t: order.get(t.season, -1), reverse=True)
    return tuple(out)


def _events_after(session: Session, league_id: int, season: str, day: dt.date) -> int:
    count = session.execute(
        sa_select(func.count())
        .select_from(Event)
        .join(Season, col(Season.id) == col(Event.season_id))
        .where(col(Event.league_id) == league_id)
        .where(col(Season.name) == season)
        .where(col(Event.status) == "active")
        .where(col(Event.kind) == "regular")
        .where(col(Event.date) > day)
    ).scalar_one()
    return int(count)


def player_view(*, session: Session, league_id: int, name: str) -> PlayerView:
    """Return a player's history, current standing, TOC progress and strikes.

    A suspension counts the league's regular events held since the strike's date (3.B).

    Raises:
        NotFound: no such player (with a suggestion when one is close).
    """
    info = get_player(session=session, league_id=league_id, name=name)
    rules = get_league_rules(session=session, league_id=league_id)
    seasons = list_seasons(session=session, league_id=league_id)
    results = _player_results(session, info.id)
    strikes = list_strikes(session=session, league_id=league_id, name=info.name)
    forfeited = {s.season for s in strikes if s.level >= rules.strike_forfeit_level}
    current: str | None = None
    rank: RankedRow | None = None
    ranked = 0
    toc: TocStatus | None = None
    rp_required = bp_required = 0
    if seasons:
        current = get_season(session=session, league_id=league_id).name
        table = season_standings(session=session, league_id=league_id, season=current)
        ranked = len(table.rows)
        rank = next((r for r in table.rows if r.row.player == info.name), None)
        try:
            toc_table = season_toc(session=session, league_id=league_id, season=current)
        except rulings.LeagueConfigError:
            toc_table = None
        if toc_table is not None:
            rp_required, bp_required = toc_table.rp_required, toc_table.bp_required
            toc = next((s for s in toc_table.rows if s.player == info.name), None)
    order = [s.name for s in seasons]
    views = []
    for s in reversed(strikes):
        ruling = RulingStrike(player=s.player, season=s.season, level=s.level, reason=s.reason)
        active = current is not None and is_strike_active(ruling, current, order, rules)
        since = _events_after(session, league_id, s.season, s.at.date())
        views.append(
            StrikeView(strike=s, is_active=active, suspension=suspension(ruling, since, rules))
        )
    return PlayerView(
        player=info,
        season=current,
        rank=rank,
        ranked=ranked,
        toc=toc,
        toc_rp_required=rp_required,
        toc_bp_required=bp_required,
        totals=_totals(results, seasons, forfeited),
        results=results,
        strikes=tuple(views),
    )


def season_names(*, session: Session, league_id: int) -> tuple[str, ...]:
    """Return the league's season names, oldest first."""
    return tuple(s.name for s in list_seasons(session=session, league_id=league_id))
