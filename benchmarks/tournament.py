"""A 200-player tournament night through the /tournament handlers, against a naive balancer.

25 tables of 8 are filled by sign-in, play starts, and players bust one at a time until one is
left; every bust is followed by a balance; the night finishes into a stored event. Each command
goes through its handler (the same code the console and Discord run), so the latency includes
reading the night, deciding, and writing the entry, its snapshot and its audit row; on a SQLite
file, then on PostgreSQL when reachable. The peer runs the same night with a naive balance that
redraws every player into the tables needed, through the same storage path. Moves are counted
beside the fewest any balance could make (players of the broken tables plus the excess of the
kept tables over their even share).

``--store-only`` times only what ``/tournament finish`` writes (the night's event, its results,
its new players and their audit rows) for 50 and 200 new players, wall and on CPU, with the
statements sent and run by the server (``benchmarks.statements``), beside the paths it
replaced, interleaved in the same run: on PostgreSQL one executemany a table (which the server
runs as one INSERT a row), and everywhere the players added one INSERT and one audit INSERT a
player.

``--finish-only`` times ``/tournament finish`` itself through its handler (read the night, score
it, store the event, its results, new players, audit rows, the tournament entry and the
no-shows) for 50 and 200 new players (chip counts at the time limit), after one warm-up finish
so the statements are compiled, as in a running bot; on PostgreSQL beside the path COPY replaced
(the results as one executemany; the new players go in one ``INSERT ... RETURNING`` with their
audit rows either way), interleaved in the same run. Each row also splits the wall time between
the league's import (``storage.event_import.import_events``: the league's rules and names, the
event, results, new players and their audit rows) and the rest (the night read and locked, the
entry with its snapshot and the audit rows of the entry and the event, the no-shows, the
commit), and gives the fastest run beside the median (on a shared machine, the closest to what
the finish costs when it does not wait for a core).

``--finish-only --against DIR`` runs that benchmark alternately in DIR (another checkout, such
as main's, with its own code and schema) and in this one, ``--rounds`` pairs, each a process of
its own, so the two codes' figures sit beside each other under the same load.

Run: ``.venv/bin/python -m benchmarks.tournament [--players 200] [--seed 1] [--no-postgres]
[--store-only] [--finish-only [--against DIR] [--rounds 3]]``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import os
import random
import statistics
import string
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError

from benchmarks.statements import Statements, counting, previous_path
from bot.command.model import Context
from bot.config import Settings
from bot.database import Database
from bot.features.tournament import finish as tf
from bot.features.tournament import handlers as t
from bot.reply import Reply
from rulings import Night, Seat, SeatMove, TablesBalanced, tables_needed
from storage.db import create_schema, make_engine, scratch_schema, session_scope
from storage.leagues import add_location, ensure_league
from storage.players import PlayerDirectory
from storage.seasons import add_season
from storage.tournaments import add_entry, get_open_tournament, list_entries

NOW = dt.datetime(2026, 11, 20, 23, 0, tzinfo=dt.UTC)
POSTGRES_URL = os.environ.get(
    "TEST_DATABASE_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


def naive_balance(night: Night, rng: random.Random) -> tuple[Night, TablesBalanced]:
    """The peer: redraw every player into the fewest tables, evenly (moves: seats changed)."""
    chart = night.chart
    keys = sorted(chart.seated)
    rng.shuffle(keys)
    tables = sorted(chart.tables)[: tables_needed(len(keys), night.setup.seats_per_table)]
    seats = [Seat(tables[i % len(tables)], i // len(tables) + 1) for i in range(len(keys))]
    targets = dict(zip(keys, seats, strict=True))
    # The peer's moves are the players whose seat changed (a real redraw also has swaps).
    moves = tuple(
        SeatMove(chart.name(k), chart.seated[k], targets[k])
        for k in keys
        if targets[k] != chart.seated[k]
    )
    broken = tuple(x for x in chart.tables if x not in tables)
    entry = TablesBalanced(moves, broken)
    redrawn = replace(
        chart, seated=MappingProxyType(targets), tables=tuple(tables), buttons=MappingProxyType({})
    )
    return Night(night.setup, redrawn, (*night.log, entry)), entry


def fewest_moves(counts: dict[int, int], seats_per_table: int) -> int:
    """The fewest moves that leave the fewest tables within one player of each other."""
    players = sum(counts.values())
    needed = tables_needed(players, seats_per_table)
    by_size = sorted(counts.values(), reverse=True)
    kept, broken = by_size[:needed], by_size[needed:]
    low, extra = divmod(players, needed)
    targets = [low + 1] * extra + [low] * (needed - extra)
    return sum(broken) + sum(max(0, c - target) for c, target in zip(kept, targets, strict=True))


def naive_handler(ctx: Context) -> Reply:
    """The peer's /tournament balance: the same storage path, the naive decision."""
    with ctx.transaction() as session:
        record = get_open_tournament(session=session, channel_id=1, for_update=True)
        night, entry = naive_balance(record.night, ctx.extras["rng"])
        add_entry(session=session, record=record, night=night, entry=entry, actor="bench", now=NOW)
    return Reply(title="Balance", text=f"{len(entry.moves)} moves")


def run_night(
    players: int,
    seed: int,
    balance: Callable[[Context], Reply],
    engine: Engine,
    *,
    regulars: bool = False,
) -> tuple[dict[str, list[float]], int, int]:
    """One night; returns per-command latencies (ms), total moves and the fewest possible.

    With ``regulars`` every player is already known to the league (a mid-season night), so
    the finish stores results without creating players.
    """
    with session_scope(engine) as s:
        league = ensure_league(session=s, actor="bench", now=NOW)
        add_location(session=s, league_id=league.id, name="Brewpub", actor="bench")
        add_season(session=s, league_id=league.id, name="2026 Fall", actor="bench")
        if regulars:
            PlayerDirectory(s, league.id).resolve(_names(players), allow_new=True, now=NOW)
    rng = random.Random(seed)
    ctx = Context(
        surface="console",
        settings=Settings(_env_file=None),
        db=Database(engine),
        actor="bench",
        channel_id=1,
        now=lambda: NOW,
        extras={"rng": rng},
    )
    timings: dict[str, list[float]] = defaultdict(list)

    def timed(name: str, fn: Callable[..., Reply], **options: object) -> Reply:
        began = time.perf_counter()
        reply = fn(ctx, **options)
        timings[name].append((time.perf_counter() - began) * 1000)
        return reply

    tables = math.ceil(players / 8)
    timed("open", t.open, location="Brewpub", tables=tables, seats=8)
    names = _names(players)
    for name in names:
        timed("register", t.register, player=name, on_time=True)
    timed("start", t.start)
    moves = fewest = 0
    order = names[:]
    rng.shuffle(order)
    for name in order[:-1]:
        timed("bust", t.bust, players=name)
        with session_scope(engine) as s:
            chart = get_open_tournament(session=s, channel_id=1).night.chart
        fewest += fewest_moves(chart.counts(), 8)
        timed("balance", balance)
    with session_scope(engine) as s:
        record = get_open_tournament(session=s, channel_id=1)
        entries = list_entries(session=s, tournament_id=record.id)
    moves = sum(len(e.entry.moves) for e in entries if isinstance(e.entry, TablesBalanced))
    with counting(engine) as seen:
        cpu_began = time.process_time()
        timed("finish", tf.finish)
        timings["finish CPU"].append((time.process_time() - cpu_began) * 1000)
    timings["finish sent"].append(seen.sent)
    return timings, moves, fewest


def _names(players: int) -> list[str]:
    return [f"Player {i:03d}" for i in range(players)]


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)]


@contextmanager
def _sqlite(folder: Path, name: str) -> Iterator[Engine]:
    engine = make_engine(f"sqlite:///{folder / f'{name}.db'}")
    create_schema(engine)
    try:
        yield engine
    finally:
        engine.dispose()


def _report(label: str, players: int, seed: int, database: Callable[[str], Any]) -> None:
    with database("ours") as engine:
        ours, our_moves, fewest = run_night(players, seed, t.balance, engine)
    with database("peer") as engine:
        peer, peer_moves, _ = run_night(players, seed, naive_handler, engine)
    with database("regulars") as engine:
        known, _, _ = run_night(players, seed, t.balance, engine, regulars=True)
    tables = math.ceil(players / 8)
    print(f"\n{players}-player night, {tables} tables of 8, {label} (shared machine)")
    print(f"{'command':<10} {'n':>5} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for name, values in ours.items():
        if name in ("finish CPU", "finish sent"):
            continue
        print(
            f"{name:<10} {len(values):>5} {statistics.median(values):>8.2f} "
            f"{_p(values, 0.99):>8.2f} {max(values):>8.2f}"
        )
    print(
        f"{'':<10} finish on CPU {ours['finish CPU'][0]:.2f} ms, "
        f"{ours['finish sent'][0]:.0f} statements sent"
    )
    naive = peer["balance"]
    print(
        f"{'peer bal.':<10} {len(naive):>5} {statistics.median(naive):>8.2f} "
        f"{_p(naive, 0.99):>8.2f} {max(naive):>8.2f}"
    )
    print(
        f"finish with every player already in the league: {known['finish'][0]:.2f} ms "
        f"(on CPU {known['finish CPU'][0]:.2f} ms, {known['finish sent'][0]:.0f} statements)"
    )
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"moves: pokerfloor {our_moves}, fewest possible {fewest}, naive redraw {peer_moves}")


def _old_resolve(session: Any, league_id: int, names: list[str]) -> None:
    """The peer: each new player added and audited by a statement of its own."""
    from rulings import name_key
    from storage.audit import add_audit_entry
    from storage.league_models import Player

    for name in names:
        row = Player(league_id=league_id, display_name=name, name_key=name_key(name))
        session.add(row)
        session.flush()
        add_audit_entry(
            session=session,
            league_id=league_id,
            actor="bench",
            action="player.add",
            target=f"player:{name}",
            after={"name": name},
            now=NOW,
        )


def time_finish_store(
    engine: Engine, players: int, *, how: str, day: int
) -> tuple[float, float, Statements]:
    """Store one night of ``players`` new players as /tournament finish does.

    ``how``: ``pokerfloor``; ``executemany`` (the path COPY replaced: one executemany a
    table); ``row-by-row`` (each new player added and audited by statements of its own).

    Returns:
        (wall ms, ms on CPU, statements sent).
    """
    from rulings import build_event
    from storage.event_import import import_events

    names = [f"Night{day} Player {i:03d}" for i in range(players)]
    record = build_event(
        season="2026 Fall",
        location="Brewpub",
        date=dt.date(2026, 10, day),
        kind="regular",
        finish=[[n] for n in names],
    )
    with ExitStack() as stack:
        if how != "pokerfloor":
            stack.enter_context(previous_path())
        seen = stack.enter_context(counting(engine))
        began, cpu_began = time.perf_counter(), time.process_time()
        with session_scope(engine) as s:
            league = ensure_league(session=s, actor="bench", now=NOW)
            if how == "row-by-row":
                _old_resolve(s, league.id, names)
            import_events(
                [record], session=s, league_id=league.id, actor="bench", now=NOW, allow_new=True
            )
        wall, cpu = time.perf_counter() - began, time.process_time() - cpu_began
    return wall * 1000, cpu * 1000, seen


STORE_RUNS = 5


def _store_report(label: str, database: Callable[[str], Any]) -> None:
    with database("store") as engine:
        with session_scope(engine) as s:
            league = ensure_league(session=s, actor="bench", now=NOW)
            add_location(session=s, league_id=league.id, name="Brewpub", actor="bench")
            add_season(session=s, league_id=league.id, name="2026 Fall", actor="bench")
        hows = ["pokerfloor", "row-by-row"]
        if engine.dialect.name == "postgresql":  # on SQLite the previous path is ours
            hows.insert(1, "executemany")
        print(
            f"\n/tournament finish's writes, {label}, load average {os.getloadavg()[0]:.1f} "
            f"(median of {STORE_RUNS}, interleaved)"
        )
        print(f"{'players':>7} {'path':<12} {'wall ms':>8} {'CPU ms':>8} {'sent':>5} {'server':>6}")
        day = 1
        for players in (50, 200):
            runs: dict[str, list[tuple[float, float, Statements]]] = defaultdict(list)
            for _ in range(STORE_RUNS):
                for how in hows:
                    runs[how].append(time_finish_store(engine, players, how=how, day=day))
                    day += 1
            for how in hows:
                wall = statistics.median(r[0] for r in runs[how])
                cpu = statistics.median(r[1] for r in runs[how])
                seen = runs[how][-1][2]
                print(
                    f"{players:>7} {how:<12} {wall:>8.1f} {cpu:>8.1f} {seen.sent:>5} "
                    f"{seen.server:>6}"
                )


FINISH_RUNS = 5


@contextmanager
def _timing_import(spent: list[float]) -> Iterator[None]:
    """Inside the block, the wall time of the finish's league import is added to ``spent``."""
    names = vars(tf)  # the handler's module, as it calls the import
    real = names["import_events"]

    def timed(*args: Any, **kwargs: Any) -> Any:
        began = time.perf_counter()
        try:
            return real(*args, **kwargs)
        finally:
            spent.append((time.perf_counter() - began) * 1000)

    names["import_events"] = timed
    try:
        yield
    finally:
        names["import_events"] = real


def time_finish(
    engine: Engine, players: int, *, previous: bool, night: int
) -> tuple[float, float, Statements, float]:
    """One /tournament finish through its handler, of ``players`` new players (chip counts).

    A night at a location of its own is opened, filled and started first (not timed).

    Returns:
        (wall ms, ms on CPU, statements sent, wall ms of it in the league's import
        ``storage.event_import.import_events``: the event, results, new players and their audit
        rows; the rest is the night's own read, rules, entry, snapshot and no-shows) of the
        finish.
    """
    location = f"Bar {night:03d}"
    with session_scope(engine) as s:
        league = ensure_league(session=s, actor="bench", now=NOW)
        add_location(session=s, league_id=league.id, name=location, actor="bench")
    ctx = Context(
        surface="console",
        settings=Settings(_env_file=None),
        db=Database(engine),
        actor="bench",
        channel_id=1000 + night,
        now=lambda: NOW,
        extras={"rng": random.Random(night)},
    )
    letters = random.Random(night)  # names unlike any other night's (no "looks like" refusal)
    names = ["".join(letters.choices(string.ascii_lowercase, k=14)) for _ in range(players)]
    t.open(ctx, location=location, tables=math.ceil(players / 8), seats=8)
    for name in names:
        t.register(ctx, player=name, on_time=True)
    t.start(ctx)
    chips = ", ".join(f"{name} {1000 + i}" for i, name in enumerate(names))
    with ExitStack() as stack:
        if previous:
            stack.enter_context(previous_path())
        seen = stack.enter_context(counting(engine))
        spent: list[float] = []
        stack.enter_context(_timing_import(spent))
        began, cpu_began = time.perf_counter(), time.process_time()
        tf.finish(ctx, chips=chips)
        wall, cpu = time.perf_counter() - began, time.process_time() - cpu_began
    return wall * 1000, cpu * 1000, seen, sum(spent)


def _finish_report(label: str, database: Callable[[str], Any]) -> None:
    with database("finish") as engine:
        with session_scope(engine) as s:
            league = ensure_league(session=s, actor="bench", now=NOW)
            add_season(session=s, league_id=league.id, name="2026 Fall", actor="bench")
        postgres = engine.dialect.name == "postgresql"
        print(
            f"\n/tournament finish through its handler, new players, {label}, load average "
            f"{os.getloadavg()[0]:.1f} (median of {FINISH_RUNS}, interleaved, after one warm-up)"
        )
        print(
            f"{'players':>7} {'path':<12} {'wall ms':>8} {'CPU ms':>8} {'sent':>5} {'server':>6}"
            f" {'import ms':>9} {'rest ms':>8} {'best ms':>8}"
        )
        night = 1
        time_finish(engine, 10, previous=False, night=night)  # statements compiled once
        for players in (50, 200):
            runs: dict[bool, list[tuple[float, float, Statements, float]]] = defaultdict(list)
            for _ in range(FINISH_RUNS):
                for previous in (False, True) if postgres else (False,):
                    night += 1
                    runs[previous].append(
                        time_finish(engine, players, previous=previous, night=night)
                    )
            for previous, values in runs.items():
                wall = statistics.median(r[0] for r in values)
                cpu = statistics.median(r[1] for r in values)
                seen = values[-1][2]
                imported = statistics.median(r[3] for r in values)
                rest = statistics.median(r[0] - r[3] for r in values)
                best = min(r[0] for r in values)
                how = "executemany" if previous else "pokerfloor"
                print(
                    f"{players:>7} {how:<12} {wall:>8.1f} {cpu:>8.1f} {seen.sent:>5} "
                    f"{seen.server:>6} {imported:>9.1f} {rest:>8.1f} {best:>8.1f}"
                )


def _alternate(other: Path, rounds: int, no_postgres: bool) -> None:
    """``--finish-only`` in ``other`` and in this checkout, alternated, one process each."""
    here = Path(__file__).resolve().parents[1]
    command = [sys.executable, "-m", "benchmarks.tournament", "--finish-only"]
    if no_postgres:
        command.append("--no-postgres")
    for done in range(rounds):
        for tree in (other.resolve(), here):
            print(
                f"\n=== {tree}, pair {done + 1}, load average {os.getloadavg()[0]:.1f}", flush=True
            )
            env = {**os.environ, "PYTHONPATH": str(tree)}
            subprocess.run(command, cwd=tree, env=env, check=True)


def main() -> None:
    """Run both nights and print the figures side by side (SQLite, then PostgreSQL)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--store-only", action="store_true")
    parser.add_argument("--finish-only", action="store_true")
    parser.add_argument("--against", type=Path, help="another checkout, alternated with this one")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if args.against is not None:
        _alternate(args.against, args.rounds, args.no_postgres)
        return
    with tempfile.TemporaryDirectory() as tmp:
        if args.finish_only:
            _finish_report("SQLite file", lambda name: _sqlite(Path(tmp), name))
        elif args.store_only:
            _store_report("SQLite file", lambda name: _sqlite(Path(tmp), name))
        else:
            _report("SQLite file", args.players, args.seed, lambda name: _sqlite(Path(tmp), name))
    if args.no_postgres:
        return
    try:
        with scratch_schema(POSTGRES_URL, prefix="bt"):
            pass
    except OperationalError:
        print("\nPostgreSQL not reachable: skipped")
        return
    if args.finish_only:
        _finish_report("PostgreSQL", lambda name: scratch_schema(POSTGRES_URL, prefix="bt"))
        return
    if args.store_only:
        _store_report("PostgreSQL", lambda name: scratch_schema(POSTGRES_URL, prefix="bt"))
        return
    _report(
        "PostgreSQL",
        args.players,
        args.seed,
        lambda name: scratch_schema(POSTGRES_URL, prefix="bt"),
    )


if __name__ == "__main__":
    main()
