"""Statement counts for the benchmarks: the figure a loaded machine does not move.

``counting(engine)`` counts what a block sends: ``sent``, the statements SQLAlchemy executes
plus each PostgreSQL COPY (``storage.db.insert_rows``); ``server``, the statements the
database runs, where an executemany of n rows is n (psycopg 3 pipelines them, but the server
still parses, plans and runs each) and a COPY is one. ``previous_path()`` turns COPY off, so a
benchmark can time the path it replaced (one executemany a table) in the same run.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine

import storage.db


@dataclass
class Statements:
    """What a block sent to the database."""

    sent: int = 0
    server: int = 0


@contextmanager
def counting(engine: Engine) -> Iterator[Statements]:
    """Count the statements sent to ``engine`` inside the block (see the module's doc)."""
    seen = Statements()

    def before(
        _conn: Any, _cursor: Any, _statement: str, parameters: Any, _ctx: Any, many: bool
    ) -> None:
        seen.sent += 1
        # an executemany's rows (a list); a multi-row INSERT binds one flat dict: one statement
        seen.server += len(parameters) if many and isinstance(parameters, list) else 1

    patched = None
    if engine.dialect.name == "postgresql":
        import psycopg

        patched = psycopg.Cursor.copy

        def copy(self: Any, statement: Any, *args: Any, **kwargs: Any) -> Any:
            seen.sent += 1
            seen.server += 1
            return patched(self, statement, *args, **kwargs)  # type: ignore[misc]

        psycopg.Cursor.copy = copy  # type: ignore[method-assign]
    event.listen(engine, "before_cursor_execute", before)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", before)
        if patched is not None:
            import psycopg

            psycopg.Cursor.copy = patched  # type: ignore[method-assign]


@contextmanager
def previous_path() -> Iterator[None]:
    """Inside the block, bulk rows go as one executemany a table (no COPY), as before."""
    kept = storage.db.COPY_MIN_ROWS
    storage.db.COPY_MIN_ROWS = 1 << 62
    try:
        yield
    finally:
        storage.db.COPY_MIN_ROWS = kept
