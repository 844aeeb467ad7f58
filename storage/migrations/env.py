"""Alembic environment: the target is ``SQLModel.metadata`` with every pokerfloor table.

``storage.db.upgrade_schema(engine)`` passes its connection in ``config.attributes``; the
``alembic`` command line works too, with ``-x url=...`` or ``sqlalchemy.url`` set.
"""

from __future__ import annotations

import logging

from alembic import context
from sqlalchemy.engine import Connection
from sqlmodel import SQLModel

import storage.models  # noqa: F401  (registers every table on SQLModel.metadata)
from storage.db import DEFAULT_URL, make_engine

log = logging.getLogger(__name__)

config = context.config
target_metadata = SQLModel.metadata


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    """Run the migrations on the caller's connection, or on a new engine for the URL."""
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option(
        "sqlalchemy.url", DEFAULT_URL
    )
    engine = make_engine(url or DEFAULT_URL)
    try:
        with engine.begin() as conn:
            _run(conn)
    finally:
        engine.dispose()


if context.is_offline_mode():
    raise SystemExit("pokerfloor migrations run online only (use storage.db.upgrade_schema)")
run_migrations_online()
