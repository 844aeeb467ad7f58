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

Restoring maps the file into the current schema: a backup at the current revision is loaded
as it is (columns matched by name); one from an older revision is first loaded into a scratch
SQLite database (a temporary file) at its own revision and brought forward by the same
migrations a live database goes through, then copied. Either way the target is written in ONE
transaction: all of it, or nothing (``--replace`` deletes the old rows in that same
transaction).

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
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from sqlalchemy import (
    JSON,
    Date,
    DateTime,
    MetaData,
    Table,
    Text,
    case,
    cast,
    func,
    select,
    text,
    type_coerce,
)
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import SQLModel

from storage.db import head_revision, make_engine, upgrade_schema
from storage.errors import BackupError

log = logging.getLogger(__name__)

FORMAT = "pokerfloor-backup"
VERSION = 1
NOT_LEAGUE_DATA = frozenset(
    {"alembic_version", "command_sync", "backup_run", "post_failure", "post_failure_notice"}
)
"""The deployment's bookkeeping: never written to a backup, never touched by a restore."""
BATCH_ROWS = 5_000
BATCH_CHARS = 1_000_000
"""A batch of rows read or written at once: this many rows, or a restore's batch of lines
reaching this many characters first (an event's record or an audit entry is ~2 KB)."""


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


def _utc(value: dt.datetime) -> dt.datetime:
    return value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value.astimezone(dt.UTC)


def _plain(value: Any) -> Any:
    """JSON for what ``json`` cannot write itself (times and dates; naive times are UTC)."""
    if isinstance(value, dt.datetime):
        return _utc(value).isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    raise TypeError(f"cannot write {type(value).__name__} to a backup")


_encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, default=_plain).encode


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
                        "created_at": _utc(now or dt.datetime.now(dt.UTC)).isoformat(),
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


# -- reading -------------------------------------------------------------------------------


Section = tuple[str, list[str], Iterator[list[list[Any]]]]
"""One table of a backup: its name, its columns, its rows in batches (read once, in order)."""


@contextmanager
def _open_read(path: Path) -> Iterator[IO[str]]:
    try:
        with path.open("rb") as probe:
            is_gzip = probe.read(2) == b"\x1f\x8b"
        raw: Any = gzip.open(path, "rb") if is_gzip else path.open("rb")  # noqa: SIM115
    except OSError as exc:
        raise BackupError(f"cannot read the backup {path}: {exc.strerror or exc}") from exc
    with raw, io.TextIOWrapper(raw, encoding="utf-8") as lines:
        try:
            yield lines
        except (OSError, EOFError, UnicodeDecodeError) as exc:
            raise BackupError(f"{path} is damaged: {exc}") from exc


def read_header(lines: IO[str], path: Path) -> dict[str, Any]:
    """The first line of a backup, checked.

    Raises:
        BackupError: not a pokerfloor backup, or from a newer format than this one reads.
    """
    first = lines.readline()
    try:
        header = json.loads(first)
    except ValueError:
        header = None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise BackupError(f"{path} is not a pokerfloor backup.")
    if not isinstance(header.get("version"), int) or header["version"] > VERSION:
        raise BackupError(
            f"{path} is a backup of format {header.get('version')}; this pokerfloor reads "
            f"format {VERSION} and older: upgrade pokerfloor to restore it."
        )
    if not isinstance(header.get("revision"), str):
        raise BackupError(f"{path} names no schema revision.")
    return header


def check_backup(path: str | Path) -> dict[str, Any]:
    """Read a backup's first line: its header, checked (see ``read_header``).

    Raises:
        BackupError: missing, unreadable, or not a backup this version restores.
    """
    path = Path(path)
    with _open_read(path) as lines:
        return read_header(lines, path)


def _sections(lines: IO[str], path: Path) -> Iterator[Section]:
    """The tables of a backup file after its header; the ``end`` line's counts checked."""
    counts: dict[str, int] = {}
    pending = lines.readline()
    while pending:
        head = _json_line(pending, path)
        if isinstance(head, dict) and "end" in head:
            if head["end"] != counts:
                raise BackupError(f"{path} does not hold the rows its last line counts.")
            return
        if not isinstance(head, dict) or not isinstance(head.get("columns"), list):
            raise BackupError(f"{path}: expected a table's header, found {pending[:60]!r}.")
        name = str(head["table"])
        box: list[str] = []

        def batches(name: str = name, box: list[str] = box) -> Iterator[list[list[Any]]]:
            count = 0
            chunk: list[str] = []
            size = 0
            for line in lines:
                if not line.startswith("["):
                    box.append(line)
                    break
                chunk.append(line)
                size += len(line)
                if len(chunk) >= BATCH_ROWS or size >= BATCH_CHARS:
                    yield _json_rows(chunk, path)
                    count += len(chunk)
                    chunk, size = [], 0
            if chunk:
                yield _json_rows(chunk, path)
                count += len(chunk)
            counts[name] = count

        yield name, [str(c) for c in head["columns"]], batches()
        pending = box[0] if box else ""
    raise BackupError(f"{path} ends early: it was cut off before its last line.")


def _json_rows(chunk: list[str], path: Path) -> list[list[Any]]:
    """Many row lines parsed at once (one ``json.loads`` for the batch: a third faster)."""
    try:
        rows = json.loads("[" + ",".join(chunk) + "]")
    except ValueError:
        for line in chunk:
            _json_line(line, path)  # names the damaged line
        raise
    if not all(isinstance(row, list) for row in rows):
        raise BackupError(f"{path} is damaged: a row is not a list.")
    return rows  # type: ignore[no-any-return]


def _json_line(line: str, path: Path) -> Any:
    try:
        return json.loads(line)
    except ValueError as exc:
        raise BackupError(f"{path} is damaged: a line is not JSON ({line[:60]!r}).") from exc


def _converter(column: Any) -> Callable[[Any], Any] | None:
    """How a file's value becomes the column's (times and dates from ISO text)."""
    kind = column.type
    if isinstance(kind, DateTime):
        keep_zone = bool(getattr(kind, "timezone", False))

        def moment(value: Any) -> Any:
            if value is None:
                return None
            parsed = _utc(dt.datetime.fromisoformat(value))
            return parsed if keep_zone else parsed.replace(tzinfo=None)

        return moment
    if isinstance(kind, Date):
        return lambda value: None if value is None else dt.date.fromisoformat(value)
    return None


def _both(first: Callable[[Any], Any], then: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda value: then(first(value))


def _binders(
    table: Table, columns: list[str], dialect: Any
) -> list[tuple[int, Callable[[Any], Any]]]:
    """Per column that needs it: file value -> what the DBAPI takes (parse, then bind)."""
    out: list[tuple[int, Callable[[Any], Any]]] = []
    for i, name in enumerate(columns):
        column = table.columns[name]
        parse = _converter(column)
        bind = column.type.dialect_impl(dialect).bind_processor(dialect)
        if parse is not None and bind is not None:
            out.append((i, _both(parse, bind)))
        elif parse is not None:
            out.append((i, parse))
        elif bind is not None:
            out.append((i, bind))
    return out


def _load(
    conn: Connection, sections: Iterator[Section], tables: Mapping[str, Table]
) -> dict[str, int]:
    """Insert every section's rows into the table of the same name (columns by name)."""
    counts: dict[str, int] = {}
    for name, columns, rows in sections:
        table = tables.get(name)
        if table is None:
            raise BackupError(f"the backup holds a table '{name}' this database does not have.")
        extra = [c for c in columns if c not in table.columns]
        if extra:
            raise BackupError(f"the backup's table '{name}' has columns this one lacks: {extra}.")
        fix = _binders(table, columns, conn.dialect)
        # The DBAPI's own bulk path with SQLAlchemy's bind processors applied here: the same
        # values a Core insert would send, without its per-row parameter building (half the
        # time of a restore went there); PostgreSQL (psycopg) takes them by COPY.
        prep = conn.dialect.identifier_preparer
        target = f"{prep.format_table(table)} ({', '.join(map(prep.quote, columns))})"
        cursor = conn.connection.cursor()
        copy = getattr(cursor, "copy", None) if conn.dialect.name == "postgresql" else None
        mark = "?" if conn.dialect.paramstyle == "qmark" else "%s"
        sql = f"INSERT INTO {target} VALUES ({', '.join([mark] * len(columns))})"
        refused = conn.dialect.loaded_dbapi.IntegrityError
        count = 0
        for batch in rows:
            for row in batch:
                if len(row) != len(columns):
                    raise BackupError(f"the backup's table '{name}' has a row of the wrong width.")
                for i, convert in fix:
                    row[i] = convert(row[i])
            try:
                if copy is not None:
                    with copy(f"COPY {target} FROM STDIN") as stream:
                        for row in batch:
                            stream.write_row(row)
                else:
                    cursor.executemany(sql, batch)
            except refused as exc:
                raise BackupError(
                    f"the backup's table '{name}' holds a row this database refuses: {exc}"
                ) from exc
            count += len(batch)
        cursor.close()
        counts[name] = count
    return counts


def _rows_of(conn: Connection, tables: list[Table]) -> Iterator[Section]:
    """A database's tables as sections (the scratch database, brought to the head)."""
    for table in tables:
        columns = [c.name for c in table.columns]
        result = conn.execution_options(yield_per=BATCH_ROWS).execute(
            select(table).order_by(*(list(table.primary_key.columns) or table.columns))
        )
        yield table.name, columns, ([_plain_row(r) for r in rows] for rows in result.partitions())


def _plain_row(row: Any) -> list[Any]:
    return [_plain(v) if isinstance(v, dt.date) else v for v in row]


@contextmanager
def _foreign_keys_checked_after(conn: Connection, tables: Mapping[str, Table]) -> Iterator[None]:
    """PostgreSQL: the foreign keys dropped while the rows load, then put back as they were.

    The league tables' keys, in the restore's own transaction, as ``pg_restore`` does.
    Each key is then checked once over its whole table instead of by a trigger per row (the
    triggers were two thirds of the server's time restoring a 144k-result league). A row
    referring to one the backup does not hold fails the restore when its key is put back,
    and the rollback leaves the database, keys included, as it was. SQLite's checks cost
    little (measured: no difference), so it keeps them on.
    """
    if conn.dialect.name != "postgresql":
        yield
        return
    keys = [
        (table, name, definition)
        for table, name, definition in conn.exec_driver_sql(
            "SELECT c.relname, k.conname, pg_get_constraintdef(k.oid) "
            "FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid "
            "WHERE k.contype = 'f' AND c.relnamespace = current_schema()::regnamespace "
            "ORDER BY c.relname, k.conname"
        )
        if table in tables
    ]
    prep = conn.dialect.identifier_preparer
    for table, name, _ in keys:
        conn.exec_driver_sql(f"ALTER TABLE {prep.quote(table)} DROP CONSTRAINT {prep.quote(name)}")
    yield
    for table, name, definition in keys:
        try:
            conn.exec_driver_sql(
                f"ALTER TABLE {prep.quote(table)} ADD CONSTRAINT {prep.quote(name)} {definition}"
            )
        except IntegrityError as exc:
            raise BackupError(
                f"the backup's table '{table}' refers to rows the backup does not hold."
            ) from exc


def _is_empty(conn: Connection, tables: list[Table]) -> bool:
    return all(conn.execute(select(1).select_from(t).limit(1)).first() is None for t in tables)


def _reset_sequences(conn: Connection, tables: list[Table]) -> None:
    """PostgreSQL: each serial id continues after the largest id restored (SQLite needs none)."""
    if conn.dialect.name != "postgresql":
        return
    for table in tables:
        keys = list(table.primary_key.columns)
        if len(keys) != 1 or table.autoincrement_column is None:
            continue
        key = keys[0].name
        conn.execute(
            text(
                f'SELECT setval(pg_get_serial_sequence(:t, :c), MAX("{key}")) '
                f'FROM "{table.name}" HAVING MAX("{key}") IS NOT NULL'
            ),
            {"t": table.name, "c": key},
        )


def restore_backup(engine: Engine, path: str | Path, *, replace: bool = False) -> BackupSummary:
    """Restore the backup at ``path`` into ``engine``'s database, in one transaction.

    The database is first brought to the current schema; a backup from an older revision is
    migrated on the way (see the module's docstring).

    Args:
        engine: the target database (SQLite or PostgreSQL, whichever the backup came from).
        path: the backup file.
        replace: delete what the database holds first (same transaction); without it a
            database holding any league data is refused.

    Returns:
        What was restored.

    Raises:
        BackupError: not a backup, damaged or cut short, from a newer pokerfloor, or the
            database is not empty and ``replace`` was not given. Nothing is changed.
    """
    started = time.perf_counter()
    path = Path(path)
    upgrade_schema(engine)
    with _open_read(path) as lines, engine.connect() as conn:
        revision = read_header(lines, path)["revision"]
        if conn.dialect.name == "sqlite":
            conn.exec_driver_sql("BEGIN IMMEDIATE")  # no other writer between check and load
        try:
            tables = league_tables(conn)
            if not _is_empty(conn, tables):
                if not replace:
                    raise BackupError(
                        "the database already holds league data: restore into an empty one, "
                        "or give --replace to delete what it holds."
                    )
                for table in reversed(tables):
                    conn.execute(table.delete())
            by_name = {t.name: t for t in tables}
            with _foreign_keys_checked_after(conn, by_name):
                if revision == head_revision():
                    counts = _load(conn, _sections(lines, path), by_name)
                else:
                    counts = _migrated_load(conn, lines, path, revision, by_name)
            _reset_sequences(conn, tables)
            conn.commit()
        except BaseException:
            conn.rollback()
            raise
    size = path.stat().st_size
    return BackupSummary(path, revision, counts, size, time.perf_counter() - started)


def _known_revisions() -> set[str]:
    from storage.db import _scripts

    return {s.revision for s in _scripts().walk_revisions()}


def _migrated_load(
    conn: Connection, lines: IO[str], path: Path, revision: str, tables: Mapping[str, Table]
) -> dict[str, int]:
    """Load an older revision's backup: into scratch SQLite at its revision, migrate, copy."""
    if revision not in _known_revisions():
        raise BackupError(
            f"{path} was taken at schema revision {revision}, which this pokerfloor does not "
            "know (a newer version made it): upgrade pokerfloor to restore it."
        )
    # A file, not memory: the migration's copy of the league stays out of the process's memory.
    folder = tempfile.TemporaryDirectory(prefix="pokerfloor-restore-")
    scratch = make_engine(f"sqlite:///{Path(folder.name) / 'scratch.db'}")
    try:
        upgrade_schema(scratch, revision)
        with scratch.begin() as old:
            found = MetaData()
            found.reflect(old)
            old_tables = {t.name: t for t in found.sorted_tables if t.name not in NOT_LEAGUE_DATA}
            _load(old, _sections(lines, path), old_tables)
        upgrade_schema(scratch)
        with scratch.connect() as new:
            return _load(conn, _rows_of(new, league_tables(new)), tables)
    finally:
        scratch.dispose()
        folder.cleanup()


__all__ = [
    "BackupSummary",
    "check_backup",
    "read_header",
    "restore_backup",
    "write_backup",
]
