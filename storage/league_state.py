"""What an import reads of a league before it plans: rules, names, seasons and locations.

One statement each (a ``UNION ALL`` of the rows the plan needs), so a finish or an import pays
one round trip for them, not four.
"""

from __future__ import annotations

import json

from sqlalchemy import Boolean, Text, case, cast, literal, union_all
from sqlalchemy import select as sa_select
from sqlmodel import Session, col

from rulings import LeagueRules, load_league_rules
from storage.errors import NotFound
from storage.league_models import League, Location, Season
from storage.players import PlayerDirectory, league_names


def read_league_state(
    session: Session, league_id: int
) -> tuple[
    LeagueRules, PlayerDirectory, dict[str, tuple[int, str]], bool, dict[str, tuple[int, str]]
]:
    """Read the league's rules, players, aliases, seasons and locations in one statement.

    One round trip, not four (``storage.players.league_names`` with three more selects).

    Returns:
        (the rules, the players' directory, season name key -> (id, name), whether a season
        is current, location name key -> (id, name)).

    Raises:
        NotFound: there is no such league.
    """
    league = sa_select(
        col(League.id), col(League.preset), cast(col(League.overrides), Text), literal("league")
    ).where(col(League.id) == league_id)
    seasons = sa_select(
        col(Season.id),
        col(Season.name_key),
        col(Season.name),
        case((col(Season.is_current), literal("current season")), else_=literal("season")),
    ).where(col(Season.league_id) == league_id)
    locations = sa_select(
        col(Location.id), col(Location.name_key), col(Location.name), literal("location")
    ).where(col(Location.league_id) == league_id)
    rows = session.execute(league_names(league_id, league, seasons, locations)).all()
    found: dict[str, dict[str, tuple[int, str]]] = {"season": {}, "location": {}}
    has_current = False
    rules = None
    for rid, key, name, what in rows:
        if what == "league":
            rules = load_league_rules(key, json.loads(name) if name else {})
        elif what in ("season", "current season", "location"):
            found["location" if what == "location" else "season"][key] = (rid or 0, name)
            has_current = has_current or what == "current season"
    if rules is None:
        raise NotFound(f"there is no league {league_id}")
    directory = PlayerDirectory(session, league_id, rows)
    return rules, directory, found["season"], has_current, found["location"]


def seasons_and_locations(
    session: Session, league_id: int
) -> tuple[dict[str, tuple[int, str]], bool, dict[str, tuple[int, str]]]:
    """Read the league's seasons and locations in one statement (one round trip, not two).

    Returns:
        (season name key -> (id, name), whether a season is current, location name key ->
        (id, name)).
    """
    seasons = sa_select(
        col(Season.id),
        col(Season.name_key),
        col(Season.name),
        col(Season.is_current),
        literal("season").label("what"),
    ).where(col(Season.league_id) == league_id)
    locations = sa_select(
        col(Location.id),
        col(Location.name_key),
        col(Location.name),
        literal(False, Boolean()),
        literal("location").label("what"),
    ).where(col(Location.league_id) == league_id)
    found: dict[str, dict[str, tuple[int, str]]] = {"season": {}, "location": {}}
    has_current = False
    for rid, key, name, current, what in session.execute(union_all(seasons, locations)):
        found[what][key] = (rid or 0, name)
        has_current = has_current or (what == "season" and bool(current))
    return found["season"], has_current, found["location"]
