"""What an import reads of a league before it plans: rules, names, seasons and locations.

One statement each (a ``UNION ALL`` of the rows the plan needs), so a finish or an import pays
one round trip for them, not four.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

from sqlalchemy import Boolean, Text, bindparam, case, cast, literal, union_all
from sqlalchemy import select as sa_select
from sqlmodel import Session, col

from rulings import LeagueRules, load_league_rules
from storage.errors import NotFound
from storage.league_models import League, Location, Season
from storage.league_names import league_names
from storage.players import PlayerDirectory


def read_league_state(
    session: Session, league_id: int, names: Collection[str] | None = None
) -> tuple[
    LeagueRules, PlayerDirectory, dict[str, tuple[int, str]], bool, dict[str, tuple[int, str]]
]:
    """Read the league's rules, players, aliases, seasons and locations in one statement.

    One round trip, not four (``storage.league_names.league_names`` with three more selects).
    ``names``: the directory holds only these names (keys, as ``rulings.name_key`` makes them)
    and the players they name: enough to resolve them when no new name is compared with the
    league's others, read in time that does not grow with the league. None: every name.

    Returns:
        (the rules, the players' directory, season name key -> (id, name), whether a season
        is current, location name key -> (id, name)).

    Raises:
        NotFound: there is no such league.
    """
    names_only = names is not None
    statement = _state_statement(session.get_bind().dialect.name, names_only)
    given: dict[str, object] = {"league": league_id}
    if names is not None:
        given["name_keys"] = json.dumps(list(names))
    rows = session.execute(statement, given).all()
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


_STATE_STATEMENTS: dict[tuple[str, bool], Any] = {}


def _state_statement(dialect: str, names_only: bool) -> Any:
    """``read_league_state``'s statement, built once (a dialect, all names or some).

    The league is a parameter (``league``), so each finish or import reuses the one built
    statement instead of constructing five selects again.
    """
    key = (dialect, names_only)
    if key not in _STATE_STATEMENTS:
        league_id: Any = bindparam("league")
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
        _STATE_STATEMENTS[key] = league_names(
            league_id, league, seasons, locations, only=dialect if names_only else None
        )
    return _STATE_STATEMENTS[key]


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
