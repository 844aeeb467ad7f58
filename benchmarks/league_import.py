"""Streaming a large import file: peak memory against the whole-file peer, same run.

A synthetic JSON import file of regular nights (40 players each, bounties and receipts) is
written at the size asked for (default 19 MB, under the 20 MB cap), then imported into a fresh
SQLite file twice, each in a child process so the peaks do not mix:

- **pokerfloor**: ``storage.event_files.import_event_file`` (decoded one event at a time,
  stored ``BATCH_EVENTS`` at a time, one transaction);
- **peer**: the path it replaced: ``json.load`` of the whole file, ``parse_events``, one
  ``import_events`` call for every event.

Printed: the peak resident memory of each child (``ru_maxrss``), the same minus the child's
resident memory just before the import (the import's own growth), both as a multiple of the
file's size, and the wall time. The target is a peak under 10x the file's size.

CSV finish lists (``position,player``, one night each; default 50,000, 100,000 and 200,000
rows) are then imported each in a child process (``subprocess``, so a child may run another
tree's code): **pokerfloor** (``import_csv_file``: read a few times a row at a time, stored a
chunk of ``WRITE_ROWS`` rows at a time with the record and audit entry in parts, each
player's points to a sink) beside the **peer** (the
whole text read, ``parse_finish_csv``, ``build_event``, one ``import_events``) and, with
``--before DIR``, the code of that worktree (``read_csv_event`` then ``import_events``),
interleaved at each size. Printed: rows/s (wall and CPU), peak RSS and its growth, the load
average, and the growth per extra row from the smallest and from the second largest file to
the largest (``rulings.name_key``'s cache of 65,536 names fills below that). Targets:
>= 10,000 rows/s; memory flat in the file's size (0 bytes per extra row).

With PostgreSQL reachable (``TEST_DATABASE_URL``), the same file is then streamed into a
scratch schema three times and the results a second printed side by side, on the wall clock
and on CPU (``time.process_time``: the machine is shared), with the statements sent and run by
the server (``benchmarks.statements``): **pokerfloor** (one COPY a table a batch), the path it
replaced (one executemany a table a batch, which psycopg 3 pipelines but the server runs as
one INSERT a row) and SQLAlchemy's multi-row INSERTs of up to 1,000 rows ("insertmanyvalues"
without RETURNING). Target: >= 10,000/s.

Run: ``.venv/bin/python -m benchmarks.league_import [--mb 19]``; the CSV figures alone:
``... --skip-json --before /work/main [--repeat 2]``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import multiprocessing
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from benchmarks.statements import Statements, counting, previous_path

LOCATIONS = 20
FIRST = ["Ada", "Ben", "Cal", "Dee", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jon", "Kai", "Lou"]
LAST = ["Abbott", "Brennan", "Castillo", "Dunmore", "Ellery", "Fairbanks", "Galloway", "Novak"]


def write_file(path: Path, target_bytes: int) -> int:
    """Write nights until the file reaches ``target_bytes``; return how many."""
    rng = random.Random(7)
    pool = [f"{f} {last}" for f in FIRST for last in LAST]
    written = 0
    count = 0
    with path.open("w", encoding="utf-8") as out:
        out.write("[\n")
        start = 0
        while written < target_bytes:
            players = rng.sample(pool, 40)
            day = dt.date(2001, 1, 1) + dt.timedelta(days=count // LOCATIONS)
            night: dict[str, Any] = {
                "season": f"Season {day.year}",
                "location": f"Bar {chr(65 + count % LOCATIONS)}",
                "date": day.isoformat(),
                "kind": "regular",
                "finish": [[p] for p in players[:10]],
                "played": players[10:],
                "bounties": {players[0]: 2, players[3]: 1},
                "receipts": [
                    {"player": players[5], "amount": "12.50", "ref": f"R-{count}-1"},
                    {"player": players[12], "amount": "7", "ref": f"R-{count}-2"},
                ],
            }
            text = ("" if start == 0 else ",\n") + json.dumps(night)
            start = 1
            out.write(text)
            written += len(text)
            count += 1
        out.write("\n]\n")
    return count


def _rss_kb() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def write_csv(path: Path, rows: int) -> None:
    """Write a ``position,player`` finish list of ``rows`` players."""
    with path.open("w", encoding="utf-8") as out:
        out.write("position,player\n")
        for i in range(rows):
            out.write(f"{i + 1},Player {i:06d}\n")


CSV_CHILD = r"""
import datetime as dt, json, resource, sys, time
from pathlib import Path
which, path, db = sys.argv[1:4]
from storage.db import create_schema, make_engine, session_scope
from storage.leagues import ensure_league
from storage.seasons import add_season
engine = make_engine(f"sqlite:///{db}")
create_schema(engine)
with session_scope(engine) as s:
    league = ensure_league(session=s, actor="bench")
    add_season(session=s, league_id=league.id, name="2026 Fall", actor="b")
from rulings import build_event, parse_finish_csv
from storage.event_files import read_csv_event
from storage.event_import import import_events
if which == "stream":
    from storage.csv_import import import_csv_file
def rss_kb():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0
before = rss_kb()
day = dt.date(2026, 11, 20)
started, cpu_started = time.perf_counter(), time.process_time()
players = 0
with session_scope(engine) as s:
    if which == "stream":  # streamed: each player's points to a sink (the caller's choice)
        def count(_points):
            global players
            players += 1
        out = import_csv_file(path, session=s, league_id=league.id, actor="b", location="Bar",
                              day=day, allow_new=True, sink=count)
    else:
        if which == "whole":  # the whole text read, then parsed
            record = build_event(season="2026 Fall", location="Bar", date=day, kind="regular",
                                 finish=parse_finish_csv(Path(path).read_text(encoding="utf-8")))
        else:  # read_csv_event then import_events, as the command line did before
            record = read_csv_event(path, session=s, league_id=league.id, location="Bar", day=day)
        [out] = import_events([record], session=s, league_id=league.id, actor="b",
                              allow_new=True)
        players = len(out.points)
took, cpu = time.perf_counter() - started, time.process_time() - cpu_started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
assert out.event.players == players, (out.event.players, players)
print(json.dumps([players, before, peak, took, cpu]))
"""


def measure_csv(which: str, path: Path, tree: str) -> tuple[int, int, int, float, float]:
    """Import one CSV in a child process running the code of ``tree``.

    Returns:
        (players, rss before KB, peak KB, wall seconds, CPU seconds of the child).
    """
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            [sys.executable, "-c", CSV_CHILD, which, str(path), os.path.join(tmp, "b.db")],
            cwd=tree,
            env={**os.environ, "PYTHONPATH": tree},
            capture_output=True,
            text=True,
            check=False,
        )
    if done.returncode != 0:
        raise SystemExit(f"the {which} import failed in {tree}:\n{done.stderr[-2000:]}")
    players, before, peak, took, cpu = json.loads(done.stdout.strip().splitlines()[-1])
    return int(players), int(before), int(peak), float(took), float(cpu)


def _child(which: str, path: str, db: str, queue: Any) -> None:
    from storage.db import create_schema, make_engine, session_scope
    from storage.event_files import import_event_file
    from storage.event_import import import_events
    from storage.events import parse_events
    from storage.leagues import ensure_league, get_league_rules

    engine = make_engine(f"sqlite:///{db}")
    create_schema(engine)
    with session_scope(engine) as s:
        league = ensure_league(session=s, actor="bench")
    before = _rss_kb()
    started = time.perf_counter()
    cpu_started = time.process_time()
    outcomes: list[Any]
    with session_scope(engine) as s:
        if which == "stream":
            kept: list[tuple[str, int]] = []  # what the command line keeps to report
            import_event_file(
                path,
                session=s,
                league_id=league.id,
                actor="b",
                allow_new=True,
                sink=lambda o: kept.append((o.status, o.event.id)),
            )
            outcomes = list(kept)
        else:
            rules = get_league_rules(session=s, league_id=league.id)
            with open(path, encoding="utf-8") as handle:
                records = parse_events(json.load(handle), rules=rules)
            outcomes = import_events(
                records, session=s, league_id=league.id, actor="b", allow_new=True
            )
    took = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    queue.put((len(outcomes), before, peak, took, cpu))  # outcomes: a list either way


def measure(which: str, path: Path) -> tuple[int, int, int, float, float]:
    """Run one import in a child process.

    Returns:
        (events, rss before KB, peak KB, wall seconds, CPU seconds of the child).
    """
    with tempfile.TemporaryDirectory() as tmp:
        queue: Any = multiprocessing.get_context("fork").Queue()
        proc = multiprocessing.get_context("fork").Process(
            target=_child, args=(which, str(path), os.path.join(tmp, "b.db"), queue)
        )
        proc.start()
        proc.join()
        if proc.exitcode != 0:
            raise SystemExit(f"the {which} import failed (exit {proc.exitcode})")
        result: tuple[int, int, int, float, float] = queue.get(timeout=5)
    return result


POSTGRES_URL = os.environ.get(
    "TEST_DATABASE_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


def postgres_rate(path: Path, *, how: str) -> tuple[int, float, float, Statements]:
    """Stream ``path`` into a scratch PostgreSQL schema.

    Args:
        path: the import file.
        how: ``copy`` (pokerfloor), ``executemany`` (the path COPY replaced) or ``multi-row``
            (SQLAlchemy's multi-row INSERTs of up to 1,000 rows, no COPY).

    Returns:
        (results stored, wall seconds, seconds on CPU, statements sent).
    """
    from sqlalchemy import func, select

    from storage.db import scratch_schema, session_scope
    from storage.event_files import import_event_file
    from storage.league_models import Result
    from storage.leagues import ensure_league

    with scratch_schema(POSTGRES_URL, prefix="bi") as engine:
        engine.dialect.use_insertmanyvalues_wo_returning = how == "multi-row"
        with session_scope(engine) as s:
            league = ensure_league(session=s, actor="bench")
        with ExitStack() as stack:
            if how != "copy":
                stack.enter_context(previous_path())
            seen = stack.enter_context(counting(engine))
            started, cpu_started = time.perf_counter(), time.process_time()
            with session_scope(engine) as s:
                import_event_file(path, session=s, league_id=league.id, actor="b", allow_new=True)
            took, cpu = time.perf_counter() - started, time.process_time() - cpu_started
        with session_scope(engine) as s:
            results = int(s.execute(select(func.count()).select_from(Result)).scalar_one())
    return results, took, cpu, seen


def main() -> None:
    """Write the file, import it both ways, print the figures side by side."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=float, default=19.0, help="file size in MB (<= 20)")
    parser.add_argument("--skip-peer", action="store_true")
    parser.add_argument("--skip-memory", action="store_true", help="PostgreSQL rates only")
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument(
        "--csv-rows",
        type=int,
        nargs="+",
        default=[50_000, 100_000, 200_000],
        help="CSV sizes in rows (0: no CSV runs)",
    )
    parser.add_argument(
        "--before", metavar="DIR", help="also import each CSV with the code of DIR (a worktree)"
    )
    parser.add_argument("--repeat", type=int, default=1, help="CSV runs of each kind and size")
    parser.add_argument("--skip-json", action="store_true", help="CSV figures only")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        sizes = sorted(n for n in args.csv_rows if n > 0)
        if args.skip_json:
            _report_csv(Path(tmp), sizes, args.before, args.repeat)
            return
        path = Path(tmp) / "nights.json"
        nights = write_file(path, int(args.mb * 1_000_000))
        size = path.stat().st_size
        print(f"file: {size / 1e6:.1f} MB, {nights:,} nights, {nights * 40:,} results")
        runs = [] if args.skip_memory else [("pokerfloor (streamed, batches)", "stream")]
        if not args.skip_peer and not args.skip_memory:
            runs.append(("peer (json.load + one import_events)", "whole"))
        for label, which in runs:
            events, before, peak, took, _ = measure(which, path)
            print(
                f"{label}: {events:,} events in {took:.1f} s; peak RSS {peak / 1e3:.0f} MB "
                f"({peak * 1e3 / size:.1f}x the file), growth {(peak - before) / 1e3:.0f} MB "
                f"({(peak - before) * 1e3 / size:.1f}x)"
            )
        if sizes:
            _report_csv(Path(tmp), sizes, args.before, args.repeat)
        if not args.no_postgres:
            _report_postgres(path)


def _report_csv(folder: Path, sizes: list[int], before: str | None, repeat: int) -> None:
    """Import finish lists of each size each way, interleaved; print rates and memory.

    The slope between the smallest and the largest file (bytes of peak growth per extra row)
    says what each row costs: 0 is memory flat in the file's size.
    """
    here = str(Path(__file__).resolve().parents[1])
    runs = [
        ("pokerfloor (import_csv_file, streamed)", "stream", here),
        ("peer (whole text read, parse_finish_csv, import_events)", "whole", here),
    ]
    if before:
        runs.append((f"before ({before}: read_csv_event + import_events)", "before", before))
    growth: dict[str, list[tuple[int, int]]] = {label: [] for label, _, _ in runs}
    print(f"CSV finish lists (one night each, SQLite), {repeat} run(s) each, interleaved:")
    for rows in sizes:
        path = folder / f"finish-{rows}.csv"
        write_csv(path, rows)
        size = path.stat().st_size
        print(f"  {size / 1e6:.1f} MB, {rows:,} rows:")
        for _ in range(repeat):
            for label, which, tree in runs:
                load = os.getloadavg()[0]
                players, start, peak, took, cpu = measure_csv(which, path, tree)
                assert players == rows
                growth[label].append((rows, peak - start))
                print(
                    f"    {label}: {rows / took:,.0f} rows/s ({took:.1f} s; on CPU "
                    f"{rows / cpu:,.0f} rows/s); peak RSS {peak / 1e3:.0f} MB, growth "
                    f"{(peak - start) / 1e3:.1f} MB ({(peak - start) * 1e3 / size:.2f}x the "
                    f"file); load {load:.1f}"
                )
        path.unlink()
    if len(sizes) > 1:
        # From the smallest file, and from the second largest: ``rulings.name_key``'s cache
        # (at most 65,536 names, the process's own) fills below that, whatever the path.
        spans = sorted({(sizes[0], sizes[-1]), (sizes[-2], sizes[-1])})
        for label, points in growth.items():
            slopes = []
            for low, high in spans:
                low_kb = min(kb for r, kb in points if r == low)
                high_kb = min(kb for r, kb in points if r == high)
                slopes.append(
                    f"{(high_kb - low_kb) * 1e3 / (high - low):,.0f} ({low:,} -> {high:,} rows)"
                )
            print(
                f"  {label}: bytes of peak growth per extra row {'; '.join(slopes)}; least "
                "growth of the runs at each size"
            )


def _report_postgres(path: Path) -> None:
    from sqlalchemy.exc import OperationalError

    try:
        ours = postgres_rate(path, how="copy")
    except OperationalError:
        print("PostgreSQL not reachable: skipped")
        return
    runs = [
        ("pokerfloor (COPY a table a batch)", ours),
        (
            "peer: pipelined executemany (the path COPY replaced)",
            postgres_rate(path, how="executemany"),
        ),
        ("peer: multi-row INSERTs of 1,000", postgres_rate(path, how="multi-row")),
    ]
    print(f"PostgreSQL, same run, load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores:")
    for label, (results, took, cpu, seen) in runs:
        print(
            f"  {label}: {results:,} results in {took:.1f} s, {results / took:,.0f}/s "
            f"(on CPU {cpu:.1f} s, {results / cpu:,.0f}/s); statements sent {seen.sent:,}, "
            f"run by the server {seen.server:,}"
        )


if __name__ == "__main__":
    main()
