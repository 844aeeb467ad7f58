"""Backups: every league in one file of JSON lines, written from one read transaction, and back.

The format (``version`` 1) is plain text, one JSON value a line, gzip-compressed when the file
name ends in ``.gz`` (a reader tells by the first bytes, whatever the name)::

    {"format": "pokerfloor-backup", "version": 1, "revision": "0012",
     "created_at": "2026-12-01T16:00:00+00:00", "database": "sqlite"}
    {"table": "league", "columns": ["id", "name", "guild_id", "preset", "overrides"]}
    [1, "Bar league", 123456789012345678, "btown", {}]
    ...                                    (one array a row, in primary-key order)
    {"table": "player", "columns": [...]}
    ...
    {"end": {"league": 1, "player": 240, ...}}

``revision`` is the database's Alembic revision when the backup was taken; tables come parents
first (foreign keys), columns are named in each table's header, times are ISO 8601 in UTC, dates
``YYYY-MM-DD``, JSON columns inline. The ``end`` line counts every table's rows, so a file cut
short is refused rather than half restored. The deployment's own bookkeeping (the Alembic
stamp, the command-sync digest, the backup schedule) is not league data and is left out.

Restoring is ``storage.restore``.

Both ways stream: a backup reads each table by a server-side cursor (``yield_per``) and writes
batches of lines, a JSON column's text spliced in as stored rather than parsed and written
again; a restore parses a batch of lines at once and hands it to the driver's bulk path
(``executemany`` on SQLite, ``COPY`` on PostgreSQL, whose foreign keys are put back and checked
once the rows are in). Memory holds one batch, whatever the league's size.

The scheduled backup, taken by exactly one of several instances, is ``storage.backup_schedule``.
"""

from __future__ import annotations

import datetime as dt
import gzip
import io
import json
import logging
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from sqlalchemy import (
    JSON,
    MetaData,
    Table,
    Text,
    case,
    cast,
    func,
    select,
    type_coerce,
)
from sqlalchemy.engine import Connection, Engine
from sqlmodel import SQLModel

from storage.db import head_revision
from storage.errors import BackupError

log = logging.getLogger(__name__)

FORMAT = "pokerfloor-backup"
VERSION = 1
NOT_LEAGUE_DATA = frozenset(
    {"alembic_version", "command_sync", "backup_run", "post_failure", "post_failure_notice"}
)
"""The deployment's bookkeeping: never written to a backup, never touched by a restore."""
BATCH_ROWS = 5_000
"""A batch of rows read (a backup) or written (a restore) at once."""


@dataclass(frozen=True)
class BackupSummary:
    """A backup written or restored.

    Attributes:
        path: the file.
        revision: the Alembic revision the file was taken at.
        tables: rows per table, in the file's order.
        size_bytes: the file's size.
        seconds: how long writing or restoring took.
    """

    path: Path
    revision: str
    tables: Mapping[str, int]
    size_bytes: int
    seconds: float

    @property
    def rows(self) -> int:
        """Rows in all tables."""
        return sum(self.tables.values())


# -- writing -------------------------------------------------------------------------------


def as_utc(value: dt.datetime) -> dt.datetime:
    """``value`` in UTC (a naive time is taken as UTC)."""
    return value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value.astimezone(dt.UTC)


def plain_value(value: Any) -> Any:
    """JSON for what ``json`` cannot write itself (times and dates; naive times are UTC)."""
    if isinstance(value, dt.datetime):
        return as_utc(value).isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    raise TypeError(f"cannot write {type(value).__name__} to a backup")


_encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, default=plain_value).encode


def league_tables(conn: Connection) -> list[Table]:
    """The tables a backup holds, parents first.

    The current models' at the head revision, else the database's own (reflected), so a
    database not yet migrated can be backed up as it is.
    """
    if current_revision(conn) == head_revision():
        import storage.models  # noqa: F401  (registers every table)

        tables = SQLModel.metadata.sorted_tables
    else:
        found = MetaData()
        found.reflect(conn)
        tables = found.sorted_tables
    return [t for t in tables if t.name not in NOT_LEAGUE_DATA]


def current_revision(conn: Connection) -> str | None:
    """The database's Alembic revision (None: not stamped)."""
    from alembic.runtime.migration import MigrationContext

    return MigrationContext.configure(conn).get_current_revision()


@contextmanager
def _snapshot(engine: Engine) -> Iterator[Connection]:
    """A connection whose reads all see one moment of the database (one read transaction)."""
    with engine.connect() as conn:
        if conn.dialect.name == "sqlite":
            conn.exec_driver_sql("BEGIN")  # pysqlite opens no transaction for reads by itself
            reader = conn
        else:
            reader = conn.execution_options(isolation_level="REPEATABLE READ")
        try:
            yield reader
        finally:
            reader.rollback()


def _open_write(path: Path, *, is_gzip: bool) -> IO[str]:
    if is_gzip:
        raw = gzip.open(path, "wb", compresslevel=2)  # noqa: SIM115  (the caller's `with`)
        return io.TextIOWrapper(raw, encoding="utf-8", newline="\n")
    return path.open("w", encoding="utf-8", newline="\n")


def write_backup(
    engine: Engine,
    path: str | Path,
    *,
    now: dt.datetime | None = None,
    on_table: Callable[[str], None] | None = None,
) -> BackupSummary:
    """Write every league of ``engine`` to ``path`` from one read transaction.

    The file appears only once whole (written beside it, then renamed), so an interrupted
    backup never leaves a file that looks like one.

    Args:
        engine: the database.
        path: the file to write (``.gz``: compressed); replaced if it exists.
        now: the time recorded in the header (default: now).
        on_table: called with each table's name once it is written (progress).

    Returns:
        What was written.

    Raises:
        BackupError: the folder is missing or the file cannot be written.
    """
    started = time.perf_counter()
    path = Path(path)
    part = path.with_name(path.name + ".part")
    counts: dict[str, int] = {}
    try:
        with _snapshot(engine) as conn, _open_write(part, is_gzip=path.name.endswith(".gz")) as out:
            revision = current_revision(conn) or head_revision()
            out.write(
                _encode(
                    {
                        "format": FORMAT,
                        "version": VERSION,
                        "revision": revision,
                        "created_at": as_utc(now or dt.datetime.now(dt.UTC)).isoformat(),
                        "database": conn.dialect.name,
                    }
                )
                + "\n"
            )
            for table in league_tables(conn):
                counts[table.name] = _write_table(conn, table, out)
                if on_table is not None:
                    on_table(table.name)
            out.write(_encode({"end": counts}) + "\n")
        part.replace(path)
    except OSError as exc:
        part.unlink(missing_ok=True)
        raise BackupError(f"cannot write the backup {path}: {exc.strerror or exc}") from exc
    except BaseException:
        part.unlink(missing_ok=True)
        raise
    return BackupSummary(path, revision, counts, path.stat().st_size, time.perf_counter() - started)


def _write_table(conn: Connection, table: Table, out: IO[str]) -> int:
    columns = list(table.columns)
    out.write(_encode({"table": table.name, "columns": [c.name for c in columns]}) + "\n")
    order = list(table.primary_key.columns) or columns
    documents = [i for i, c in enumerate(columns) if isinstance(c.type, JSON)]
    wanted = [
        _as_text(c, conn.dialect.name) if i in documents else c for i, c in enumerate(columns)
    ]
    per = max(1, BATCH_ROWS // 10) if documents else BATCH_ROWS  # a row with documents: ~2 KB
    result = conn.execution_options(stream_results=True, yield_per=per).execute(
        select(*wanted).select_from(table).order_by(*order)
    )
    line = _line_writer(len(columns), documents)
    count = 0
    for rows in result.partitions():
        out.write("".join([line(row) for row in rows]))
        count += len(rows)
    return count


def _as_text(column: Any, dialect: str) -> Any:
    """A JSON column read as its text, not parsed.

    The text as stored (by one serializer, whatever the database: a backup of a restored
    database is the same file); SQLite's is checked (``json_valid``; ``json()`` fails on what
    is not JSON), PostgreSQL's ``json`` is always valid. Parsing every document and writing
    it again was a third of a backup's time: they are most of its bytes (the events' records
    and the audit log).
    """
    if dialect == "sqlite":
        checked = case((func.json_valid(column) == 1, cast(column, Text)), else_=func.json(column))
        return type_coerce(checked, Text).label(column.name)
    return cast(column, Text).label(column.name)


def _document(value: str | None) -> str:
    """A JSON column's text as it goes in a line.

    A line is one row: a text with a line break in its whitespace (PostgreSQL's ``json`` keeps
    what it was given) is written again without.
    """
    if value is None:
        return "null"
    if "\n" in value or "\r" in value:
        return _encode(json.loads(value))
    return value


def _line_writer(width: int, documents: list[int]) -> Callable[[Any], str]:
    """One row -> its line: the JSON columns' text (``documents``) spliced in as it is."""
    if not documents:
        return lambda row: _encode(list(row)) + "\n"

    def line(row: Any) -> str:
        parts: list[str] = []
        start = 0
        for i in documents:
            if i > start:
                parts.append(_encode(row[start:i])[1:-1])
            parts.append(_document(row[i]))
            start = i + 1
        if start < width:
            parts.append(_encode(row[start:])[1:-1])
        return "[" + ",".join(parts) + "]\n"

    return line


__all__ = ["BackupSummary", "current_revision", "league_tables", "write_backup"]
