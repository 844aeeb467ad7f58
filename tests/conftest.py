"""Shared fixtures: a database engine on SQLite and on PostgreSQL.

Storage tests take ``engine`` (or ``session``) and run twice: on a fresh in-memory SQLite
database and on PostgreSQL (``TEST_DATABASE_URL``, default the local ``test`` database), where
each test gets a schema of its own that is dropped afterwards. CI has PostgreSQL; a machine
without it fails these tests rather than skipping them, unless ``POKERFLOOR_SKIP_POSTGRES=1``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session

from storage.db import create_schema, make_engine, scratch_schema, session_scope

POSTGRES_URL = os.environ.get(
    "TEST_DATABASE_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
SKIP_POSTGRES = os.environ.get("POKERFLOOR_SKIP_POSTGRES") == "1"


def _postgres_engine() -> Iterator[Engine]:
    with scratch_schema(POSTGRES_URL) as engine:
        yield engine


@pytest.fixture(
    params=[
        pytest.param("sqlite", id="sqlite"),
        pytest.param(
            "postgres",
            id="postgres",
            marks=[
                pytest.mark.postgres,
                pytest.mark.skipif(SKIP_POSTGRES, reason="POKERFLOOR_SKIP_POSTGRES=1"),
            ],
        ),
    ]
)
def engine(request: pytest.FixtureRequest) -> Iterator[Engine]:
    """A fresh, empty database with every table, on SQLite and on PostgreSQL."""
    if request.param == "sqlite":
        eng = make_engine("sqlite://")
        create_schema(eng)
        yield eng
        eng.dispose()
    else:
        yield from _postgres_engine()


@pytest.fixture
def session(engine: Engine) -> Iterator[Session]:
    """One unit of work on ``engine``, committed at the end of the test."""
    with session_scope(engine) as s:
        yield s


def _bare_sqlite() -> Iterator[Engine]:
    engine = make_engine("sqlite://")
    yield engine
    engine.dispose()


def _bare_postgres() -> Iterator[Engine]:
    with scratch_schema(POSTGRES_URL, prefix="m", create=False) as engine:
        yield engine


@pytest.fixture(
    params=[
        pytest.param(_bare_sqlite, id="sqlite"),
        pytest.param(
            _bare_postgres,
            id="postgres",
            marks=[
                pytest.mark.postgres,
                pytest.mark.skipif(SKIP_POSTGRES, reason="POKERFLOOR_SKIP_POSTGRES=1"),
            ],
        ),
    ]
)
def bare_engine(request: pytest.FixtureRequest) -> Iterator[Engine]:
    """An empty database with no tables, on SQLite and on PostgreSQL (migration tests)."""
    yield from request.param()
