"""Engines and sessions: SQLite by default, PostgreSQL when the URL says so."""

from __future__ import annotations

import datetime as dt
import functools
import json
import logging
import select
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from sqlalchemy import JSON, Table, event, insert, text
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError, DisconnectionError
from sqlalchemy.pool import StaticPool
from sqlmodel import Session, SQLModel, create_engine

from storage.errors import StorageError

if TYPE_CHECKING:
    from alembic.script import ScriptDirectory

log = logging.getLogger(__name__)

DEFAULT_URL = "sqlite:///pokerfloor.db"
SQLITE_BUSY_TIMEOUT_MS = 30_000


def _schema_lock(conn: Any) -> None:
    """On PostgreSQL, hold a transaction-level advisory lock while the schema is made.

    Instances started together on a fresh database otherwise race creating the same tables
    (``UniqueViolation`` on ``pg_type``); with the lock one creates, the others wait and find
    the schema there. Keyed by the current schema, so parallel test schemas do not wait.
    SQLite has one writer anyway.
    """
    if conn.dialect.name == "postgresql":
        conn.execute(
            text("SELECT pg_advisory_xact_lock(hashtext('pokerfloor:' || current_schema()))")
        )


def core_table(model: type[SQLModel]) -> Table:
    """A table class's Core table: ``insert(core_table(Result))`` is one plain executemany.

    The ORM's bulk insert (``insert(Result)`` with a list of rows) costs more than the
    statement itself on a large import; rows that need no ORM behaviour go through Core.
    """
    table: Table = model.__table__  # type: ignore[attr-defined]
    return table


def insert_rows(session: Session, model: type[SQLModel], rows: Sequence[Mapping[str, Any]]) -> None:
    """Insert ``rows`` (dicts with the same keys) into ``model``'s table: one statement.

    In the session's transaction, so a later failure still undoes them. On PostgreSQL one
    ``COPY ... FROM STDIN``: an executemany there runs one INSERT a row on the server
    (pipelined, but each parsed, planned and executed), and a multi-row INSERT makes the
    client parse a query string of thousands of placeholders. On SQLite the driver's
    executemany of one INSERT (a loop in C, no round trips) on values bound by each column's
    own type, as SQLAlchemy binds them, without its per-row work (a quarter of a large CSV
    import's time went to building each row's parameters). Fewer than ``COPY_MIN_ROWS`` rows,
    or a default computed per row: Core's INSERT. Both refuse what neither database can store
    (``_refuse_unstorable``), before anything is sent.
    """
    if not rows:
        return
    table = core_table(model)
    # A column the rows leave out gets its default, as SQLAlchemy's INSERT would give it.
    defaults = [c for c in table.columns if c.name not in rows[0] and c.default is not None]
    if len(rows) < COPY_MIN_ROWS or any(not c.default.is_scalar for c in defaults):  # type: ignore[union-attr]
        session.execute(insert(table), list(rows))
        return
    session.flush()  # pending ORM writes first, as the INSERT would have found them
    connection = session.connection()
    given = list(rows[0])
    names = given + [c.name for c in defaults]
    filled = [c.default.arg for c in defaults]  # type: ignore[union-attr]
    values = [[row[name] for name in given] + filled for row in rows]
    postgres = connection.dialect.name == "postgresql"
    _bind_values(connection, table, names, values, json_only=postgres)
    columns = ", ".join(f'"{name}"' for name in names)
    if not postgres:  # the engine's before_cursor_execute check reads these values
        marks = ", ".join("?" for _ in names)
        sql = f'INSERT INTO "{table.name}" ({columns}) VALUES ({marks})'
        connection.exec_driver_sql(sql, [tuple(line) for line in values])
        return
    problem = _unstorable(values)  # a COPY passes no check of the engine's
    if problem is not None:
        raise StorageError(f"{problem}; nothing was changed")
    statement = f'COPY "{table.name}" ({columns}) FROM STDIN'
    driver: Any = connection.connection.driver_connection
    try:
        with driver.cursor() as cursor, cursor.copy(statement) as copy:
            for line in values:
                copy.write_row(line)
    except driver.Error as exc:  # the one error type callers handle (retries, busy)
        raise DBAPIError.instance(
            statement, None, exc, driver.Error, dialect=connection.dialect
        ) from exc


def _bind_values(
    connection: Connection,
    table: Table,
    names: list[str],
    values: list[list[Any]],
    *,
    json_only: bool,
) -> None:
    """Bind each column's values in place, as SQLAlchemy would bind them for the dialect.

    With ``json_only`` (a COPY, whose driver adapts the rest itself) only JSON, dumped to text
    (None as JSON's null, as an INSERT binds it, unless the column stores None as NULL).
    """
    dialect = connection.dialect
    dumps = getattr(dialect, "_json_serializer", None) or json.dumps
    for i, name in enumerate(names):
        kind = table.c[name].type
        if json_only:
            if isinstance(kind, JSON):
                for line in values:
                    if line[i] is not None or not kind.none_as_null:
                        line[i] = dumps(line[i])
            continue
        process = kind.dialect_impl(dialect).bind_processor(dialect)
        if process is not None:
            for line in values:
                line[i] = process(line[i])


COPY_MIN_ROWS = 2
"""Fewer rows than this are INSERTed, not copied (a COPY costs one round trip more)."""

_INT64 = range(-(2**63), 2**63)


def _unstorable(parameters: Any) -> str | None:
    """Say what in a statement's parameters neither database can store, if anything.

    Walks nested rows (an executemany's list of dicts or tuples) without recursion: a large
    import binds hundreds of thousands of values, so the common ones (exact ``str``, ``int``,
    None, a date) cost one type lookup each, in a loop over a row's values.
    """
    pending = [parameters]
    while pending:
        value = pending.pop()
        if isinstance(value, dict):
            items: Any = value.values()
        elif isinstance(value, list | tuple):
            items = value
        else:
            items = (value,)
        for item in items:
            kind = type(item)
            if kind is str:
                if "\x00" in item:
                    return _NUL
            elif kind is int:
                if item not in _INT64:
                    return f"{item} is beyond 64 bits"
            elif kind in _PLAIN:
                continue
            elif isinstance(item, dict | list | tuple):
                pending.append(item)
            elif isinstance(item, str):
                if "\x00" in item:
                    return _NUL
            elif isinstance(item, int) and item not in _INT64:
                return f"{item} is beyond 64 bits"
    return None


_NUL = "text can't hold a NUL character (\\0)"
_PLAIN = frozenset({type(None), bool, float, dt.date, dt.datetime, dt.time, Decimal})
"""Types bound as they are, with nothing to check."""


def _refuse_unstorable(
    _conn: Any, _cursor: Any, _statement: str, parameters: Any, _context: Any, _many: bool
) -> None:
    """Refuse a NUL in text or an integer beyond 64 bits, the same on both databases.

    PostgreSQL cannot store a NUL and SQLite cannot bind a larger integer; each answered with
    a traceback. Names never get here with a NUL (``rulings.check_name`` refuses control
    characters): this covers every other value (a reason, a ``--guild`` id) with one rule.

    Raises:
        StorageError: what cannot be stored, before the statement runs.
    """
    problem = _unstorable(parameters)
    if problem is not None:
        raise StorageError(f"{problem}; nothing was changed")


def _replace_if_closed(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
    """At each checkout, hand out a new connection if the server has left this one.

    A server that restarts or ends a session (``pg_terminate_backend``, an idle timeout) says
    so on the socket and closes it: an idle pooled connection that has anything to read, or
    that its driver knows is closed, is stale. The pool then discards it and connects again
    (``DisconnectionError`` from a checkout listener), so a director's first command after a
    PostgreSQL restart runs on a fresh connection. This costs no round trip, unlike
    ``pool_pre_ping`` (a ``SELECT 1`` before every transaction). A connection lost without a
    word (a cable pulled) fails its first statement instead; SQLAlchemy then invalidates the
    pool, and the caller's retry (``bot.database``) or its busy answer follows, as before.

    Raises:
        DisconnectionError: the connection is stale (the pool replaces it).
    """
    driver = getattr(dbapi_connection, "driver_connection", dbapi_connection)
    if getattr(driver, "closed", False) or getattr(driver, "broken", False):
        raise DisconnectionError("the connection is closed")
    fileno = getattr(driver, "fileno", None)
    if fileno is None:  # a driver without a socket to look at: nothing to tell
        return
    try:
        fd = fileno()
    except Exception as exc:  # the driver's own "closed" error, whatever its type
        raise DisconnectionError("the connection has no socket") from exc
    if _readable(fd):
        raise DisconnectionError("the server wrote to or closed an idle connection")


def _readable(fd: int) -> bool:
    """Whether the socket ``fd`` has something to read (or was closed), without waiting."""
    if hasattr(select, "poll"):
        poller = select.poll()
        poller.register(fd, select.POLLIN | select.POLLERR | select.POLLHUP)
        return bool(poller.poll(0))
    readable, _, _ = select.select([fd], [], [], 0)
    return bool(readable)


def make_engine(url: str = DEFAULT_URL, *, echo: bool = False) -> Engine:
    """Create an engine for ``url``.

    SQLite gets foreign keys and WAL journaling (file databases) and may be shared across
    threads; an in-memory SQLite URL gets a single shared connection. Any other URL (for
    example ``postgresql+psycopg://...``) is passed to SQLAlchemy as it is; its pool replaces
    a connection the server ended before handing it out (``_replace_if_closed``).
    """
    kwargs: dict[str, Any] = {"echo": echo}
    is_sqlite = url.startswith("sqlite")
    if is_sqlite:
        kwargs["connect_args"] = {"check_same_thread": False}
        if url in ("sqlite://", "sqlite:///:memory:"):
            kwargs["poolclass"] = StaticPool
    engine = create_engine(url, **kwargs)
    event.listen(engine, "before_cursor_execute", _refuse_unstorable)
    if not is_sqlite:
        event.listen(engine.pool, "checkout", _replace_if_closed)
    if is_sqlite:
        is_file = url not in ("sqlite://", "sqlite:///:memory:")

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA foreign_keys=ON")
            if is_file:
                cursor.execute("PRAGMA journal_mode=WAL")
                cursor.execute("PRAGMA synchronous=NORMAL")
                # A writer waits this long for another's lock (a long import, another process).
                cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
            cursor.close()

    return engine


def create_schema(engine: Engine) -> None:
    """Create every table of the current models and stamp the database at the head revision.

    A fresh database is made whole by ``create_all``; the migrations only ever bring an older
    database up to date. A database already stamped keeps its revision (``upgrade_schema``
    moves it).
    """
    import storage.models  # noqa: F401  (registers the tables on SQLModel.metadata)

    with engine.begin() as conn:
        _schema_lock(conn)
        SQLModel.metadata.create_all(conn)
        _stamp_head(conn)


def _stamp_head(conn: Connection) -> None:
    from alembic.runtime.migration import MigrationContext

    context = MigrationContext.configure(conn)
    if context.get_current_revision() is None:
        context.stamp(_scripts(), "head")


@functools.cache
def _scripts() -> ScriptDirectory:
    from alembic.script import ScriptDirectory

    return ScriptDirectory(str(Path(__file__).parent / "migrations"))


def head_revision() -> str:
    """The newest migration's revision (what ``create_schema`` stamps)."""
    head = _scripts().get_current_head()
    assert head is not None, "storage/migrations has no revision"
    return head


@contextmanager
def session_scope(engine: Engine) -> Iterator[Session]:
    """One unit of work: everything inside commits together, or nothing does."""
    with Session(engine, expire_on_commit=False) as session, session.begin():
        yield session


@contextmanager
def scratch_schema(url: str, *, prefix: str = "t", create: bool = True) -> Iterator[Engine]:
    """A throw-away PostgreSQL schema on ``url``, dropped on exit (tests and benchmarks).

    Yields an engine whose connections see only that schema (``search_path``); with
    ``create`` every table is made first.
    """
    schema = f"{prefix}_{uuid.uuid4().hex[:12]}"
    admin = make_engine(url)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    sep = "&" if "?" in url else "?"
    engine = make_engine(f"{url}{sep}options={quote(f'-csearch_path={schema}')}")
    try:
        if create:
            create_schema(engine)
        yield engine
    finally:
        engine.dispose()
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def upgrade_schema(engine: Engine, revision: str = "head") -> None:
    """Bring the database to ``revision`` with the Alembic migrations in ``storage/migrations``.

    An empty database asked for the head is made by ``create_schema`` (``create_all``, stamped
    at the head); one asked for an older revision runs the migrations up to it. A database
    with tables but no ``alembic_version`` (made by ``create_all`` before databases were
    stamped) is stamped at the head when it has the current schema, else at 0001 (the schema
    it was made with before migrations existed) and upgraded.
    """
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import inspect

    tables = set(inspect(engine).get_table_names())
    if not tables and revision == "head":
        create_schema(engine)
        return
    config = Config()
    config.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    with engine.connect() as conn:
        is_sqlite = conn.dialect.name == "sqlite"
        if is_sqlite:
            # A batch migration rebuilds a SQLite table (copy, drop, rename), and dropping a
            # table other rows refer to fails while foreign keys are enforced. The pragma only
            # takes effect outside a transaction: set before the migrations', checked after.
            conn.exec_driver_sql("PRAGMA foreign_keys=OFF")
            conn.commit()
        try:
            with conn.begin():
                _schema_lock(conn)
                # again: another instance may have been first
                tables = set(inspect(conn).get_table_names())
                config.attributes["connection"] = conn
                if "league" in tables and "alembic_version" not in tables:
                    command.stamp(config, "head" if not schema_diff(conn) else "0001")
                command.upgrade(config, revision)
        finally:
            if is_sqlite:
                conn.exec_driver_sql("PRAGMA foreign_keys=ON")
                broken = conn.exec_driver_sql("PRAGMA foreign_key_check").all()
                conn.commit()
        if is_sqlite and broken:
            raise RuntimeError(f"the migration left rows that refer to nothing: {broken[:5]}")


def schema_diff(conn: Connection) -> list[Any]:
    """How the database on ``conn`` differs from the current models (empty: the same)."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    import storage.models  # noqa: F401  (registers the tables on SQLModel.metadata)

    context = MigrationContext.configure(conn, opts={"compare_type": True})
    return list(compare_metadata(context, SQLModel.metadata))
