"""The Alembic migrations build exactly the schema that ``create_schema`` builds."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, text
from sqlalchemy.engine import Engine
from sqlmodel import SQLModel

import storage.models  # noqa: F401
from storage.db import create_schema, make_engine, scratch_schema, upgrade_schema
from tests.conftest import POSTGRES_URL, SKIP_POSTGRES


def _diff(engine: Engine) -> list[object]:
    with engine.connect() as conn:
        ctx = MigrationContext.configure(conn, opts={"compare_type": True})
        return list(compare_metadata(ctx, SQLModel.metadata))


def test_migrations_match_create_all_on_sqlite():
    engine = make_engine("sqlite://")
    upgrade_schema(engine)
    assert _diff(engine) == []
    upgrade_schema(engine)  # a second run is a no-op
    assert "alembic_version" in inspect(engine).get_table_names()


def test_create_schema_database_is_stamped_then_upgraded():
    engine = make_engine("sqlite://")
    create_schema(engine)
    upgrade_schema(engine)
    with engine.connect() as conn:
        assert conn.execute(text("select version_num from alembic_version")).scalar_one()


@pytest.mark.postgres
@pytest.mark.skipif(SKIP_POSTGRES, reason="POKERFLOOR_SKIP_POSTGRES=1")
def test_migrations_match_create_all_on_postgres():
    with scratch_schema(POSTGRES_URL, prefix="m", create=False) as engine:
        upgrade_schema(engine)
        assert _diff(engine) == []
