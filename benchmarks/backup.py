"""Backup and restore of a 144,000-result league, beside the databases' own tools, same run.

The league of ``benchmarks/league.py`` (10 seasons x 20 locations x 18 weeks x 40 players) is
imported into a SQLite file, then:

- **pokerfloor**: ``storage.backup.write_backup`` (gzip JSON lines, one read transaction) and
  ``restore_backup`` into an empty SQLite file, into an empty PostgreSQL schema (SQLite ->
  PostgreSQL), and that PostgreSQL copy backed up and restored into SQLite again and into
  another PostgreSQL schema;
- **peers**: the ``sqlite3`` tool's ``.backup`` (a page copy that cannot cross databases or
  schema versions) and ``.dump`` loaded into a new file (SQL text), and ``pg_dump -Fc`` /
  ``pg_restore`` for the PostgreSQL copy, when those tools are on the PATH.

Each step runs as its own process and is timed there (wall and CPU seconds of the step, the
PostgreSQL server processes' CPU for its own connections, its peak resident memory by GNU
``time``); the tools are timed whole. Each restore is checked: the season standings and TOC
read back equal the original's. The target: backup plus restore under a minute, memory flat
in the league's size (compare ``--seasons 2``).

Run: ``.venv/bin/python -m benchmarks.backup [--seasons 10] [--no-postgres] [--league FILE]``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url

from benchmarks.league import POSTGRES_URL, import_league
from storage.backup import write_backup
from storage.db import create_schema, make_engine, scratch_schema, session_scope
from storage.leagues import list_leagues
from storage.restore import restore_backup
from storage.seasons import list_seasons
from storage.standings import season_standings, season_toc

TIME = "/usr/bin/time"


def say(line: str) -> None:
    """One line of the report."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


@dataclass(frozen=True)
class Run:
    """One timed step, run as its own process.

    Attributes:
        seconds: wall time of the step.
        cpu: CPU seconds of the process (user + system).
        server: CPU seconds of the PostgreSQL server processes serving it (same machine).
        peak_mb: the process's peak resident memory.
        base_mb: its resident memory just before the step (interpreter and imports), when it
            is ours (a tool's is unknown).
        out: what the step printed (ours: a JSON summary).
    """

    seconds: float
    cpu: float
    server: float
    peak_mb: float
    base_mb: float | None
    out: str


def run(argv: list[str], *, stdout: Path | None = None, stdin: Path | None = None) -> Run:
    """``argv`` as a child process: its wall and CPU time and its peak memory.

    Measured by GNU ``time`` (``/usr/bin/time``): a child forked from this process would count
    this process's pages in its peak until it execs.
    """
    with contextlib.ExitStack() as files:
        report = Path(files.enter_context(tempfile.TemporaryDirectory())) / "time"
        out = files.enter_context(stdout.open("wb")) if stdout else subprocess.PIPE
        into = files.enter_context(stdin.open("rb")) if stdin else subprocess.DEVNULL
        started = time.perf_counter()
        done = subprocess.run(
            [TIME, "-f", "%U %S %M", "-o", str(report), *argv],
            stdout=out,
            stdin=into,
            check=False,
        )
        seconds = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"{argv[:3]} failed ({done.returncode})")
        user, system, peak_kb = report.read_text().split()[-3:]
    printed = done.stdout.decode() if done.stdout else ""
    mine = json.loads(printed) if printed.startswith("{") else {}
    return Run(
        seconds=mine.get("seconds", seconds),
        cpu=mine.get("cpu", float(user) + float(system)),
        server=mine.get("server", 0.0),
        peak_mb=int(peak_kb) / 1024,
        base_mb=mine["base_kb"] / 1024 if "base_kb" in mine else None,
        out=printed,
    )


def _server_cpu(pids: set[int]) -> float:
    """CPU seconds so far of these server processes (those still running)."""
    seconds = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        seconds += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return seconds


def _rss_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def child_step(step: str, url: str, path: Path) -> None:
    """In the child: one backup or restore, then its summary as one JSON line on stdout.

    ``seconds`` and ``cpu`` are the step alone (not the interpreter's start and imports);
    ``server`` the CPU of the PostgreSQL processes of its own connections; ``base_kb`` its
    memory before the step.
    """
    engine = make_engine(url)
    backends: set[int] = set()

    def remember(dbapi_connection: Any, _record: Any) -> None:
        with dbapi_connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            backends.add(int(cursor.fetchone()[0]))
        dbapi_connection.rollback()

    if engine.dialect.name == "postgresql":
        event.listen(engine, "connect", remember)
    base = _rss_kb()
    started, cpu = time.perf_counter(), time.process_time()
    done = write_backup(engine, path) if step == "backup" else restore_backup(engine, path)
    server = _server_cpu(backends)  # the pool keeps the connections open until here
    summary = {
        "seconds": time.perf_counter() - started,
        "cpu": time.process_time() - cpu,
        "server": server,
        "base_kb": base,
        "tables": dict(done.tables),
        "size": done.size_bytes,
    }
    engine.dispose()
    sys.stdout.write(json.dumps(summary) + "\n")


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


def _url(engine: Engine) -> str:
    return engine.url.render_as_string(hide_password=False)


def _line(label: str, first: Run, then: Run | None, rest: str, *, server: bool) -> str:
    both = [first] if then is None else [first, then]
    wall = " + ".join(f"{r.seconds:5.2f}" for r in both)
    total = f" = {sum(r.seconds for r in both):5.2f}" if then else ""
    cpu = " + ".join(f"{r.cpu:.2f}" for r in both)
    if server:
        cpu += f" (server {' + '.join(f'{r.server:.2f}' for r in both)})"
    peak = " / ".join(
        f"{r.peak_mb:.0f}" + (f" (+{r.peak_mb - r.base_mb:.0f})" if r.base_mb else "") for r in both
    )
    return f"  {label:<38} {wall}{total} s; CPU {cpu} s; peak RSS {peak} MB; {rest}"


def ours(label: str, source: Engine, target: Engine, path: Path, expected: list[Any]) -> None:
    """pokerfloor's backup of ``source`` and restore into ``target``, each its own process."""
    me = [sys.executable, "-m", "benchmarks.backup", "--child"]
    backup = run([*me, "backup", _url(source), str(path)])
    restore = run([*me, "restore", _url(target), str(path)])
    restored = json.loads(restore.out)
    same = league_view(target) == expected
    on_pg = "postgresql" in (source.dialect.name, target.dialect.name)
    say(
        _line(
            f"pokerfloor {label}",
            backup,
            restore,
            f"{path.stat().st_size / 1e6:.1f} MB, {restored['tables']['result']:,} results, "
            f"standings and TOC {'identical' if same else 'DIFFER'}",
            server=on_pg,
        )
    )


def sqlite_peers(source: Path, folder: Path) -> None:
    """The sqlite3 tool's page copy (``.backup``) and SQL text (``.dump`` then a load)."""
    if shutil.which("sqlite3") is None:
        say("  peer sqlite3: not installed")
        return
    copy = run(["sqlite3", str(source), f".backup '{folder / 'peer-copy.db'}'"])
    say(_line("peer sqlite3 .backup (page copy)", copy, None, "same engine only", server=False))
    dump = folder / "peer.sql"
    written = run(["sqlite3", str(source), ".dump"], stdout=dump)
    loaded = run(["sqlite3", str(folder / "peer-from-sql.db")], stdin=dump)
    say(
        _line(
            "peer sqlite3 .dump + load",
            written,
            loaded,
            f"{dump.stat().st_size / 1e6:.1f} MB of SQL, SQLite only",
            server=False,
        )
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
    dumped = run(["pg_dump", *base, "-Fc", "-n", schema_name, "-f", str(dump), url.database or ""])
    database = f"bench_{uuid.uuid4().hex[:10]}"
    admin = make_engine(POSTGRES_URL).execution_options(isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{database}"')
    try:
        loaded = run(["pg_restore", *base, "-d", database, str(dump)])
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE "{database}"')
        admin.dispose()
    say(
        _line(
            "peer pg_dump -Fc + pg_restore",
            dumped,
            loaded,
            f"{dump.stat().st_size / 1e6:.1f} MB, PostgreSQL only; the server's CPU not counted",
            server=False,
        )
    )


def main() -> None:
    """Build the league, then time every backup and restore with its peers."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seasons", type=int, default=10)
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument(
        "--league", type=Path, help="keep the imported league in this SQLite file and reuse it"
    )
    parser.add_argument("--child", nargs=3, metavar=("STEP", "URL", "FILE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        step, url, path = args.child
        child_step(step, url, Path(path))
        return
    if not Path(TIME).exists():
        raise SystemExit(f"{TIME} (GNU time) measures each step: install it (apt-get install time)")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        source_file = args.league or folder / "league.db"
        is_new = not source_file.exists()
        source = make_engine(f"sqlite:///{source_file}")
        if is_new:
            create_schema(source)
            started = time.perf_counter()
            _, _, results = import_league(source, args.seasons)
            say(
                f"league: {results:,} results imported into SQLite in "
                f"{time.perf_counter() - started:.1f} s"
            )
        else:
            say(f"league: reused from {source_file}")
        expected = league_view(source)
        say(
            f"backup + restore, each its own process (wall s; CPU s; peak RSS MB, in brackets "
            f"above the process's before the step; CPUs: {os.cpu_count() or 1}, load average "
            f"{os.getloadavg()[0]:.1f})"
        )
        empty = make_engine(f"sqlite:///{folder / 'restored.db'}")
        ours("SQLite -> SQLite", source, empty, folder / "a.jsonl.gz", expected)
        sqlite_peers(source_file, folder)
        if not args.no_postgres:
            with scratch_schema(POSTGRES_URL, prefix="bk", create=False) as pg:
                ours("SQLite -> PostgreSQL", source, pg, folder / "b.jsonl.gz", expected)
                back = make_engine(f"sqlite:///{folder / 'back.db'}")
                ours("PostgreSQL -> SQLite", pg, back, folder / "c.jsonl.gz", expected)
                back.dispose()
                with scratch_schema(POSTGRES_URL, prefix="bk", create=False) as pg2:
                    ours("PostgreSQL -> PostgreSQL", pg, pg2, folder / "d.jsonl.gz", expected)
                postgres_peers(pg, folder)
        empty.dispose()
        source.dispose()


if __name__ == "__main__":
    main()
