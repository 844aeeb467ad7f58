"""Backup and restore of a 144,000-result league, beside the databases' own tools, same run.

The league of ``benchmarks/league.py`` (10 seasons x 20 locations x 18 weeks x 40 players) is
imported into a SQLite file, then:

- **pokerfloor**: ``storage.backup.write_backup`` (gzip JSON lines, one read transaction) and
  ``restore_backup`` into an empty SQLite file, into an empty PostgreSQL schema (SQLite ->
  PostgreSQL), and that PostgreSQL copy backed up and restored into SQLite again;
- **peers**: SQLite's own online backup (``sqlite3.Connection.backup``, a page copy that cannot
  cross databases or schema versions), ``iterdump`` + ``executescript`` (SQL text), and
  ``pg_dump -Fc`` / ``pg_restore`` for the PostgreSQL copy when those tools are on the PATH.

Each restore is checked: the season standings and TOC read back equal the original's.
The target: backup plus restore under a minute.

Run: ``.venv/bin/python -m benchmarks.backup [--seasons 10] [--no-postgres]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Engine, make_url

from benchmarks.league import POSTGRES_URL, import_league
from storage.backup import restore_backup, write_backup
from storage.db import create_schema, make_engine, scratch_schema, session_scope
from storage.leagues import list_leagues
from storage.seasons import list_seasons
from storage.standings import season_standings, season_toc


def say(line: str) -> None:
    """One line of the report."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


CPU: list[float] = [0.0]


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    """Wall seconds taken by ``fn()``, and what it returned; its CPU seconds in ``CPU[0]``.

    CPU time counts this process and the tools it ran (``pg_dump``), not the PostgreSQL
    server: on a machine shared with other work the wall time depends on the others' load,
    the CPU time much less.
    """
    started, cpu = time.perf_counter(), _cpu()
    result = fn()
    CPU[0] = _cpu() - cpu
    return time.perf_counter() - started, result


def _cpu() -> float:
    import resource

    own, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def league_view(engine: Engine) -> list[Any]:
    """Every season's standings and TOC: what must come back identical."""
    with session_scope(engine) as session:
        (league,) = list_leagues(session=session)
        seasons = list_seasons(session=session, league_id=league.id)
        return [
            (
                season_standings(session=session, league_id=league.id, season=s.name),
                season_toc(session=session, league_id=league.id, season=s.name),
            )
            for s in seasons
        ]


def sqlite_peers(source: Path, folder: Path) -> None:
    """SQLite's own backup API and an SQL-text dump, on the same file."""
    copy = folder / "peer-page-copy.db"

    def page_copy() -> None:
        with sqlite3.connect(source) as src, sqlite3.connect(copy) as dst:
            src.backup(dst)

    seconds, _ = timed(page_copy)
    say(
        f"  peer sqlite3 .backup (page copy, same engine only) {seconds:6.2f} s "
        f"(CPU {CPU[0]:.2f} s)"
    )
    dump = folder / "peer.sql"

    def text_dump() -> None:
        with sqlite3.connect(source) as src, dump.open("w", encoding="utf-8") as out:
            for line in src.iterdump():
                out.write(line + "\n")

    dump_s, _ = timed(text_dump)
    cpu = CPU[0]
    target = folder / "peer-from-sql.db"

    def text_load() -> None:
        with sqlite3.connect(target) as dst:
            dst.executescript(dump.read_text(encoding="utf-8"))

    load_s, _ = timed(text_load)
    say(
        f"  peer sqlite3 iterdump + executescript           {dump_s:6.2f} s + {load_s:6.2f} s"
        f" = {dump_s + load_s:6.2f} s (CPU {cpu + CPU[0]:.2f} s; "
        f"{dump.stat().st_size / 1e6:.1f} MB of SQL)"
    )


def postgres_peers(engine: Engine, folder: Path) -> None:
    """``pg_dump -Fc`` of the schema and ``pg_restore`` into a fresh database."""
    if shutil.which("pg_dump") is None or shutil.which("pg_restore") is None:
        say("  peer pg_dump/pg_restore: not installed")
        return
    url = make_url(POSTGRES_URL)
    schema = engine.url.query.get("options", "")
    schema_name = str(schema).split("search_path=")[-1]
    base = ["-h", url.host or "127.0.0.1", "-p", str(url.port or 5432), "-U", url.username or ""]
    dump = folder / "peer.pgdump"
    dump_s, _ = timed(
        lambda: subprocess.run(
            ["pg_dump", *base, "-Fc", "-n", schema_name, "-f", str(dump), url.database or ""],
            check=True,
        )
    )
    cpu = CPU[0]
    database = f"bench_{uuid.uuid4().hex[:10]}"
    admin = make_engine(POSTGRES_URL).execution_options(isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{database}"')
    try:
        load_s, _ = timed(
            lambda: subprocess.run(["pg_restore", *base, "-d", database, str(dump)], check=True)
        )
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE "{database}"')
        admin.dispose()
    say(
        f"  peer pg_dump -Fc + pg_restore                   {dump_s:6.2f} s + {load_s:6.2f} s"
        f" = {dump_s + load_s:6.2f} s (CPU of the tools {cpu + CPU[0]:.2f} s; "
        f"{dump.stat().st_size / 1e6:.1f} MB)"
    )


def ours(label: str, source: Engine, target: Engine, path: Path, expected: list[Any]) -> None:
    """pokerfloor's backup of ``source`` and restore into ``target``, checked."""
    backup_s, written = timed(lambda: write_backup(source, path))
    cpu = CPU[0]
    restore_s, restored = timed(lambda: restore_backup(target, path))
    cpu += CPU[0]
    same = league_view(target) == expected
    say(
        f"  pokerfloor {label:<36} {backup_s:6.2f} s + {restore_s:6.2f} s"
        f" = {backup_s + restore_s:6.2f} s (CPU {cpu:.2f} s; {written.size_bytes / 1e6:.1f} MB, "
        f"{restored.tables['result']:,} results, standings and TOC "
        f"{'identical' if same else 'DIFFER'})"
    )


def main() -> None:
    """Build the league, then time every backup and restore with its peers."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seasons", type=int, default=10)
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument(
        "--league", type=Path, help="keep the imported league in this SQLite file and reuse it"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        source_file = args.league or folder / "league.db"
        is_new = not source_file.exists()
        source = make_engine(f"sqlite:///{source_file}")
        if is_new:
            create_schema(source)
            import_s, (_, _, results) = timed(lambda: import_league(source, args.seasons))
            say(f"league: {results:,} results imported into SQLite in {import_s:.1f} s")
        else:
            say(f"league: reused from {source_file}")
        expected = league_view(source)
        say(f"backup + restore (seconds; CPUs: {os.cpu_count() or 1})")
        empty = make_engine(f"sqlite:///{folder / 'restored.db'}")
        ours("SQLite -> SQLite", source, empty, folder / "a.jsonl.gz", expected)
        sqlite_peers(source_file, folder)
        if not args.no_postgres:
            with scratch_schema(POSTGRES_URL, prefix="bk", create=False) as pg:
                ours("SQLite -> PostgreSQL", source, pg, folder / "b.jsonl.gz", expected)
                back = make_engine(f"sqlite:///{folder / 'back.db'}")
                ours("PostgreSQL -> SQLite", pg, back, folder / "c.jsonl.gz", expected)
                back.dispose()
                postgres_peers(pg, folder)
        empty.dispose()
        source.dispose()


if __name__ == "__main__":
    main()
