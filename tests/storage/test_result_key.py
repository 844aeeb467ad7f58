"""A result row's one key to its event: the event, season and location it names go together."""

from __future__ import annotations

from typing import Any

import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import func, insert, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import col

from storage.db import core_table, session_scope, upgrade_schema
from storage.league_models import Event, Result
from storage.leagues import add_location, ensure_league
from storage.players import PlayerDirectory
from tests.storage._league import NOW, event, load, make_league
from tests.storage.test_migrations import MIGRATIONS, _schema


def _result_of(engine: Engine, league_id: int) -> dict[str, Any]:
    """One stored result row of the league, as the columns an INSERT takes."""
    with session_scope(engine) as s:
        row = s.execute(
            select(core_table(Result))
            .join(Event, col(Event.id) == col(Result.event_id))
            .where(col(Event.league_id) == league_id)
            .order_by(col(Result.id))
            .limit(1)
        ).one()
    values = dict(row._mapping)
    del values["id"]
    return values


def _stored(engine: Engine) -> int:
    with session_scope(engine) as s:
        return int(s.scalar(select(func.count()).select_from(core_table(Result))) or 0)


def _refused(engine: Engine, values: dict[str, Any]) -> None:
    before = _stored(engine)
    with pytest.raises(IntegrityError), session_scope(engine) as s:
        s.execute(insert(core_table(Result)), [values])
    assert _stored(engine) == before


def test_a_result_naming_another_leagues_event_is_refused(engine):
    with session_scope(engine) as s:
        ours = make_league(s)
        load(s, ours, event([["Alice"], ["Bob"]]))
        theirs = ensure_league(session=s, name="Other", guild_id=2, actor="test", now=NOW)
        load(s, theirs, event([["Zed"], ["Yan"]]))
    mine, other = _result_of(engine, ours.id), _result_of(engine, theirs.id)
    # our player's row (our season and location) pointing at the other league's night
    _refused(engine, {**mine, "event_id": other["event_id"], "player_id": mine["player_id"]})


def test_a_result_with_a_season_or_location_not_its_events_is_refused(engine):
    with session_scope(engine) as s:
        league = make_league(s)
        load(s, league, event([["Alice"], ["Bob"]]))
        load(s, league, event([["Alice"], ["Carol"]], season="2027 Spring", date="2027-01-05"))
        elsewhere = add_location(session=s, league_id=league.id, name="Dive Bar", actor="test")
    first = _result_of(engine, league.id)
    with session_scope(engine) as s:
        later_season = s.scalar(
            select(col(Event.season_id)).where(col(Event.season_id) != first["season_id"])
        )
    carol = {**first, "player_id": None}
    with session_scope(engine) as s:
        carol["player_id"] = PlayerDirectory(s, league.id).find("Carol")
    _refused(engine, {**carol, "season_id": later_season})
    _refused(engine, {**carol, "location_id": elsewhere.id})
    with session_scope(engine) as s:  # the same row with its event's season and location
        s.execute(insert(core_table(Result)), [carol])


def test_0021_downgrades_to_the_keys_and_indexes_of_0020(bare_engine):
    upgrade_schema(bare_engine, "0020")
    before = _schema(bare_engine)
    upgrade_schema(bare_engine)
    assert _schema(bare_engine) != before
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with bare_engine.begin() as conn:
        config.attributes["connection"] = conn
        command.downgrade(config, "0020")
    assert _schema(bare_engine) == before
