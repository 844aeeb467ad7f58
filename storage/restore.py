"""Restoring a backup (``storage.backup`` writes them): into the current schema, all or nothing.

A backup at the current revision is loaded as it is (columns matched by name); one from an
older revision is first loaded into a scratch SQLite database (a temporary file) at its own
revision and brought forward by the same migrations a live database goes through, then copied.
Either way the target is written in ONE transaction (``replace`` deletes the old rows in that
same transaction). A batch of lines is parsed at once and handed to the driver's bulk path
(``executemany`` on SQLite, ``COPY`` on PostgreSQL, whose foreign keys are put back and checked
once the rows are in). Memory holds one batch, whatever the league's size.
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
from pathlib import Path
from typing import IO, Any

from sqlalchemy import (
    Date,
    DateTime,
    MetaData,
    Table,
    select,
    text,
)
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from storage.backup import (
    BATCH_ROWS,
    FORMAT,
    NOT_LEAGUE_DATA,
    VERSION,
    BackupSummary,
    as_utc,
    league_tables,
    plain_value,
)
from storage.db import head_revision, make_engine, upgrade_schema
from storage.errors import BackupError

log = logging.getLogger(__name__)

BATCH_CHARS = 1_000_000
"""A restore's batch of lines ends at ``BATCH_ROWS`` rows or this many characters, whichever
comes first (an event's record or an audit entry is ~2 KB)."""


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
            parsed = as_utc(dt.datetime.fromisoformat(value))
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
    return [plain_value(v) if isinstance(v, dt.date) else v for v in row]


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


__all__ = ["check_backup", "read_header", "restore_backup"]
