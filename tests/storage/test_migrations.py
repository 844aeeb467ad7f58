"""A fresh database is made by ``create_all`` and stamped at the head; the migrations bring a
database made at any earlier revision to exactly the same schema (SQLite and PostgreSQL)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
from sqlalchemy.engine import Engine

import storage.db
from storage.db import (
    create_schema,
    head_revision,
    make_engine,
    schema_diff,
    scratch_schema,
    upgrade_schema,
)
from tests.conftest import SKIP_POSTGRES, postgres_url

MIGRATIONS = Path(storage.db.__file__).parent / "migrations"
REVISIONS = [s.revision for s in reversed(list(ScriptDirectory(str(MIGRATIONS)).walk_revisions()))]
EARLIER = REVISIONS[:-1]


def _version(engine: Engine) -> str:
    with engine.connect() as conn:
        return str(conn.execute(text("select version_num from alembic_version")).scalar_one())


def _schema(engine: Engine) -> dict[str, Any]:
    """Every table's columns (name, type, nullability), keys, uniques, indexes and FKs."""
    found = inspect(engine)
    out: dict[str, Any] = {}
    for table in sorted(found.get_table_names()):
        out[table] = {
            "columns": [
                (c["name"], str(c["type"]), c["nullable"]) for c in found.get_columns(table)
            ],
            "pk": sorted(found.get_pk_constraint(table)["constrained_columns"]),
            "unique": sorted(
                (u["name"] or "", tuple(u["column_names"]))
                for u in found.get_unique_constraints(table)
            ),
            "indexes": sorted(
                (i["name"] or "", tuple(i["column_names"]), bool(i["unique"]))
                for i in found.get_indexes(table)
            ),
            "fks": sorted(
                (tuple(f["constrained_columns"]), f["referred_table"], tuple(f["referred_columns"]))
                for f in found.get_foreign_keys(table)
            ),
        }
    return out


def test_the_revisions_run_in_order_to_one_head():
    assert REVISIONS[0] == "0001"
    assert REVISIONS[-1] == head_revision()
    assert len(set(REVISIONS)) == len(REVISIONS)


def test_a_fresh_database_is_created_whole_and_stamped_at_head(bare_engine):
    upgrade_schema(bare_engine)
    assert _version(bare_engine) == head_revision()
    with bare_engine.connect() as conn:
        assert schema_diff(conn) == []
    upgrade_schema(bare_engine)  # a second run is a no-op
    assert _version(bare_engine) == head_revision()


def test_create_schema_stamps_head_so_later_upgrades_have_nothing_to_do():
    engine = make_engine("sqlite://")
    create_schema(engine)
    assert _version(engine) == head_revision()
    upgrade_schema(engine)
    assert _version(engine) == head_revision()
    engine.dispose()


@pytest.mark.parametrize("revision", EARLIER)
def test_a_database_made_at_an_earlier_revision_upgrades_to_the_fresh_schema(bare_engine, revision):
    upgrade_schema(bare_engine, revision)
    assert _version(bare_engine) == revision
    upgrade_schema(bare_engine)
    assert _version(bare_engine) == head_revision()
    with bare_engine.connect() as conn:
        assert schema_diff(conn) == []
    fresh = _fresh(bare_engine)
    assert _schema(bare_engine) == fresh


def _fresh(like: Engine) -> dict[str, Any]:
    if like.dialect.name == "sqlite":
        engine = make_engine("sqlite://")
        create_schema(engine)
        try:
            return _schema(engine)
        finally:
            engine.dispose()
    with scratch_schema(postgres_url(), prefix="f", create=True) as engine:
        return _schema(engine)


def test_an_unstamped_database_with_the_current_schema_is_stamped_at_head():
    engine = make_engine("sqlite://")
    create_schema(engine)
    with engine.begin() as conn:
        conn.execute(text("drop table alembic_version"))
    upgrade_schema(engine)
    assert _version(engine) == head_revision()
    engine.dispose()


def test_an_unstamped_database_with_the_first_schema_is_upgraded_from_0001():
    engine = make_engine("sqlite://")
    upgrade_schema(engine, "0001")
    with engine.begin() as conn:
        conn.execute(text("drop table alembic_version"))
    upgrade_schema(engine)
    assert _version(engine) == head_revision()
    with engine.connect() as conn:
        assert schema_diff(conn) == []
    engine.dispose()


@pytest.mark.postgres
@pytest.mark.skipif(SKIP_POSTGRES, reason="POKERFLOOR_SKIP_POSTGRES=1")
def test_the_postgres_fixture_schema_is_stamped_at_head():
    with scratch_schema(postgres_url(), prefix="m") as engine:
        assert _version(engine) == head_revision()


def test_0006_rekeys_names_with_the_one_name_key_and_loses_nothing(bare_engine):
    from storage.db import session_scope
    from storage.leagues import get_location
    from storage.players import get_player, list_players

    upgrade_schema(bare_engine, "0005")
    decomposed, fullwidth = "Jose\u0301 Cruz", "Ｂｏｂ"
    with bare_engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO league (id, name, guild_id, preset, overrides) "
                "VALUES (1, 'default', NULL, 'btown', '{}')"
            )
        )
        for pid, name in ((1, decomposed), (2, fullwidth), (3, "Bob")):
            conn.execute(
                text(
                    "INSERT INTO player (id, league_id, display_name, name_key) "
                    "VALUES (:id, 1, :name, :key)"
                ),
                {"id": pid, "name": name, "key": " ".join(name.split()).casefold()},
            )
        conn.execute(
            text("INSERT INTO location (id, league_id, name, name_key) VALUES (1, 1, :n, :k)"),
            {"n": "Ｔａｐ Room", "k": "Ｔａｐ Room".casefold()},
        )
    upgrade_schema(bare_engine)
    with session_scope(bare_engine) as session:
        assert get_player(session=session, league_id=1, name="JOSÉ CRUZ").name == decomposed
        assert get_location(session=session, league_id=1, name="tap room").name == "Ｔａｐ Room"
        # "Ｂｏｂ" would now read as "Bob", who exists: both stay, Ｂｏｂ under his old key.
        names = sorted(p.name for p in list_players(session=session, league_id=1))
        assert names == sorted([decomposed, fullwidth, "Bob"])
        assert get_player(session=session, league_id=1, name="bob").name == "Bob"


def _league_rows_at_0007(engine: Engine) -> None:
    upgrade_schema(engine, "0007")
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO league (id, name, preset, overrides)"
                " VALUES (1, 'default', 'btown', '{}')"
            )
        )
        for sid, name in ((1, "2026 Spring"), (2, "2026 Fall"), (3, "2025 Fall")):
            conn.execute(
                text("INSERT INTO season (id, league_id, name, name_key) VALUES (:i, 1, :n, :k)"),
                {"i": sid, "n": name, "k": name.lower()},
            )
        conn.execute(
            text("INSERT INTO location (id, league_id, name, name_key) VALUES (1, 1, 'Pub', 'pub')")
        )
        conn.execute(
            text(
                "INSERT INTO player (id, league_id, display_name, name_key)"
                " VALUES (1, 1, 'Eve', 'eve')"
            )
        )
        for eid, sid, day in ((1, 1, "2026-04-01"), (2, 2, "2026-11-20")):
            conn.execute(
                text(
                    "INSERT INTO event (id, league_id, season_id, location_id, date, kind, status,"
                    " content_hash, record) VALUES (:e, 1, :s, 1, :d, 'regular', 'void', 'h', '{}')"
                ),
                {"e": eid, "s": sid, "d": day},
            )
        conn.execute(
            text(
                "INSERT INTO strike (id, league_id, player_id, season_id, level, reason, at)"
                " VALUES (1, 1, 1, 2, 1, 'x', :at)"
            ),
            {"at": dt.datetime(2026, 11, 21, 3, 0, tzinfo=dt.UTC)},
        )


def _check_0008(engine: Engine) -> None:
    with engine.connect() as conn:
        current = conn.execute(text("SELECT name FROM season WHERE is_current")).scalars().all()
        day = conn.execute(text("SELECT date FROM strike")).scalar_one()
    assert current == ["2026 Fall"]  # the season of the latest night
    assert str(day) == "2026-11-21"
    with engine.begin() as conn:  # the voided night may be entered again
        conn.execute(
            text(
                "INSERT INTO event (id, league_id, season_id, location_id, date, kind, status,"
                " content_hash, record) VALUES (3, 1, 2, 1, '2026-11-20', 'regular', 'active',"
                " 'h', '{}')"
            )
        )


def test_0008_marks_current_seasons_dates_strikes_and_frees_void_nights_sqlite():
    engine = make_engine("sqlite://")
    _league_rows_at_0007(engine)
    upgrade_schema(engine)
    _check_0008(engine)
    with engine.connect() as conn:
        assert schema_diff(conn) == []


@pytest.mark.postgres
@pytest.mark.skipif(SKIP_POSTGRES, reason="POKERFLOOR_SKIP_POSTGRES=1")
def test_0008_marks_current_seasons_dates_strikes_and_frees_void_nights_postgres():
    with scratch_schema(postgres_url(), prefix="m", create=False) as engine:
        _league_rows_at_0007(engine)
        upgrade_schema(engine)
        _check_0008(engine)
        with engine.connect() as conn:
            assert schema_diff(conn) == []
