"""League storage at scale: import, standings and TOC, memory, against naive peers.

A synthetic league of 10 seasons x 20 locations x 18 weeks x 40 players (144,000 results)
is imported into SQLite (and PostgreSQL when reachable) in one transaction; then one season's
standings and TOC table are computed. Each figure is printed next to a naive peer measured in
the same run: row-by-row ORM inserts for the import, and load-every-row-into-Python for the
standings. Memory: tracemalloc peak of computing standings at two league sizes.

Run: ``.venv/bin/python benchmarks/league.py [--seasons 10] [--no-postgres]``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import statistics
import tempfile
import time
import tracemalloc
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from rulings.league.events import EventRecord, parse_event
from rulings.league.points import event_points
from rulings.league.standings import StandingRow, rank_standings
from storage.db import create_schema, make_engine, scratch_schema, session_scope
from storage.event_import import import_events
from storage.league_models import Event, Player, Result
from storage.leagues import ensure_league, get_league_rules
from storage.players import PlayerDirectory
from storage.seasons import get_season
from storage.standings import season_standings, season_toc

LOCATIONS = 20
WEEKS = 18
PLAYERS = 40
POOL_PER_LOCATION = 60
POSTGRES_URL = os.environ.get(
    "TEST_DATABASE_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)

FIRST = [
    "Ada", "Ben", "Cal", "Dee", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jon",
    "Kai", "Lou", "Max", "Ned", "Oda", "Pam", "Quin", "Rex", "Sal", "Tia",
]  # fmt: skip
LAST = [
    "Abbott", "Brennan", "Castillo", "Dunmore", "Ellery", "Fairbanks", "Galloway", "Hargrove",
    "Ingram", "Jessup", "Kowalski", "Lindqvist", "Mercado", "Novak", "Okafor", "Pemberton",
    "Quintero", "Rasmussen", "Sorensen", "Thackeray",
]  # fmt: skip


def player_name(location: int, k: int) -> str:
    """A readable, unique name for the k-th regular of a location."""
    return f"{FIRST[k % 20]} {LAST[location]}-{k // 20}{location:02d}"


def synthetic_season(season: int, rng: random.Random) -> Iterator[dict[str, Any]]:
    """One season's events in the JSON import format."""
    start = dt.date(2020, 1, 6) + dt.timedelta(weeks=26 * season)
    for week in range(WEEKS):
        for loc in range(LOCATIONS):
            pool = [player_name(loc, k) for k in range(POOL_PER_LOCATION)]
            if rng.random() < 0.2:  # a few travellers from the next bar
                pool[0] = player_name((loc + 1) % LOCATIONS, 1)
            seated = rng.sample(pool, PLAYERS)
            finish = [[n] for n in seated[:16]]
            if rng.random() < 0.1:
                finish[2:4] = [[seated[2], seated[3]]]
            yield {
                "season": f"Season {season + 1}",
                "location": f"Bar {LAST[loc]}",
                "date": (start + dt.timedelta(weeks=week, days=loc % 5)).isoformat(),
                "kind": "regular",
                "finish": finish,
                "played": seated[16:],
                "bounties": {n: rng.randint(1, 3) for n in rng.sample(seated, 5)},
                "premium_hands": (
                    [{"player": seated[7], "hand": "quads"}] if rng.random() < 0.2 else []
                ),
                "second_chance_winners": [seated[30]],
                "receipts": [
                    {
                        "player": n,
                        "amount": f"{rng.randint(5, 60)}.{rng.randint(0, 99):02d}",
                        "ref": f"S{season}W{week}L{loc}-{i}",
                    }
                    for i, n in enumerate(rng.sample(seated, 10))
                ],
            }


LAST_MIN: list[float] = [0.0]


def timed(fn: Callable[[], Any], repeat: int = 1) -> tuple[float, Any]:
    """Median seconds over ``repeat`` runs, and the last result (the minimum in LAST_MIN)."""
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    LAST_MIN[0] = min(times)
    return statistics.median(times), result


def import_league(engine: Engine, seasons: int) -> tuple[float, float, int]:
    """Parse and import a whole league in one transaction; (parse s, store s, results)."""
    rng = random.Random(5)
    parse_s = store_s = 0.0
    results = 0
    with session_scope(engine) as session:
        league = ensure_league(session=session, actor="bench")
        for season in range(seasons):
            t0 = time.perf_counter()
            records = [parse_event(e) for e in synthetic_season(season, rng)]
            t1 = time.perf_counter()
            import_events(
                records, session=session, league_id=league.id, actor="bench", allow_new=True
            )
            t2 = time.perf_counter()
            parse_s += t1 - t0
            store_s += t2 - t1
            results += sum(len(r.participants()) for r in records)
    return parse_s, store_s, results


def naive_import(engine: Engine, records: list[EventRecord]) -> int:
    """Peer: one ORM object per row, a flush per event (what a first version would do)."""
    count = 0
    with session_scope(engine) as session:
        league = ensure_league(session=session, name="naive-peer", actor="bench")
        rules = get_league_rules(session=session, league_id=league.id)
        directory = PlayerDirectory(session, league.id)
        from storage.league_models import Location, Season

        season = Season(league_id=league.id, name="Naive", name_key="naive")
        session.add(season)
        session.flush()
        locations: dict[str, int] = {}
        for record in records:
            if record.location not in locations:
                loc = Location(
                    league_id=league.id, name=record.location, name_key=record.location.lower()
                )
                session.add(loc)
                session.flush()
                locations[record.location] = loc.id or 0
            ev = Event(
                league_id=league.id,
                season_id=season.id or 0,
                location_id=locations[record.location],
                date=record.date,
                kind=record.kind,
                content_hash=str(uuid.uuid4()),
            )
            session.add(ev)
            session.flush()
            points = event_points(record, rules)
            for name, breakdown in points.items():
                pid = directory.resolve([name], allow_new=True)[name.casefold()]
                total = breakdown.total
                session.add(
                    Result(
                        event_id=ev.id or 0,
                        player_id=pid,
                        season_id=season.id or 0,
                        location_id=locations[record.location],
                        rp=total.rp,
                        bp=total.bp,
                    )
                )
                count += 1
            session.flush()
    return count


def naive_standings(session: Session, league_id: int, season_id: int) -> list[Any]:
    """Peer: load every result and event of the league as ORM objects, aggregate in Python."""
    events = {e.id: e for e in session.exec(select(Event).where(Event.league_id == league_id))}
    names = {p.id: p.display_name for p in session.exec(select(Player))}
    totals: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    best: dict[int, int] = {}
    for r in session.exec(select(Result)):
        ev = events.get(r.event_id)
        if ev is None or r.season_id != season_id or ev.status != "active" or ev.kind == "toc":
            continue
        t = totals[r.player_id]
        t[0] += r.rp
        t[1] += r.bp
        t[2] += 1
        t[3] += r.position == 1
        if r.position is not None:
            best[r.player_id] = min(best.get(r.player_id, 999), r.position)
    rows = [
        StandingRow(names[pid], t[0], t[1], t[2], t[3], best.get(pid)) for pid, t in totals.items()
    ]
    return rank_standings(rows)


def measure(label: str, engine: Engine, seasons: int, naive_events: int) -> dict[str, float]:
    """Import, standings, TOC and the peers on one database."""
    out: dict[str, float] = {}
    parse_s, store_s, results = import_league(engine, seasons)
    out["results"] = results
    out["import_rate"] = results / (parse_s + store_s)
    out["store_rate"] = results / store_s
    print(
        f"[{label}] import {results:,} results: parse {parse_s:.2f} s + store {store_s:.2f} s "
        f"= {out['import_rate']:,.0f} results/s (store only {out['store_rate']:,.0f}/s)"
    )
    peer_records = [parse_event(e) for e in synthetic_season(99, random.Random(7))][:naive_events]
    peer_s, peer_n = timed(lambda: naive_import(engine, peer_records))
    peer_rate = peer_n / peer_s
    print(
        f"[{label}] peer row-by-row ORM import: {peer_n:,} results in {peer_s:.2f} s = "
        f"{peer_rate:,.0f} results/s -> ours is x{out['store_rate'] / peer_rate:.1f}"
    )
    with Session(engine) as session:
        league = ensure_league(session=session, actor="bench")
        season = get_season(
            session=session, league_id=league.id, name=f"Season {(seasons + 1) // 2}"
        )

        def ours() -> tuple[Any, Any]:
            return (
                season_standings(session=session, league_id=league.id, season=season.name),
                season_toc(session=session, league_id=league.id, season=season.name),
            )

        ours()  # warm caches
        ours_s, (table, toc) = timed(ours, repeat=9)
        ours_min = LAST_MIN[0]
        peer_s, peer_rows = timed(lambda: naive_standings(session, league.id, season.id), repeat=3)
        assert [(r.row.player, r.row.rp) for r in table.rows] == [
            (r.row.player, r.row.rp) for r in peer_rows
        ], "peer and ours disagree"
        out["standings_ms"] = ours_s * 1000
        print(
            f"[{label}] one season's standings + TOC ({len(table.rows)} players, "
            f"{sum(r.row.events for r in table.rows):,} results): median {ours_s * 1000:.1f} ms "
            f"(best {ours_min * 1000:.1f} ms); "
            f"peer load-everything standings only: {peer_s * 1000:.0f} ms -> "
            f"ours is x{peer_s / ours_s:.1f} (qualified: "
            f"{sum(s.status != 'not_qualified' for s in toc.rows)})"
        )
    return out


def peak_kib(engine: Engine, fn: Callable[[Session], Any]) -> float:
    """tracemalloc peak (KiB) of ``fn`` run in a fresh session."""
    with Session(engine) as session:
        tracemalloc.start()
        fn(session)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return peak / 1024


def _ours_standings(league_id: int) -> Callable[[Session], Any]:
    return lambda s: season_standings(session=s, league_id=league_id, season="Season 1")


def _peer_standings(league_id: int, season_id: int) -> Callable[[Session], Any]:
    return lambda s: naive_standings(s, league_id, season_id)


def memory(small: int, large: int) -> None:
    """Standings memory at two league sizes: ours stays flat, the naive peer grows."""
    figures = {}
    for seasons in (small, large):
        with tempfile.TemporaryDirectory() as tmp:
            engine = make_engine(f"sqlite:///{Path(tmp) / 'mem.db'}")
            create_schema(engine)
            import_league(engine, seasons)
            with Session(engine) as session:
                lid = ensure_league(session=session, actor="bench").id
                sid = get_season(session=session, league_id=lid, name="Season 1").id
            ours = peak_kib(engine, _ours_standings(lid))
            peer = peak_kib(engine, _peer_standings(lid, sid))
            figures[seasons] = (ours, peer)
            engine.dispose()
    (o1, p1), (o2, p2) = figures[small], figures[large]
    print(
        f"[memory] standings peak, {small} vs {large} seasons: ours {o1:,.0f} KiB vs "
        f"{o2:,.0f} KiB (x{o2 / o1:.2f}); peer {p1:,.0f} KiB vs {p2:,.0f} KiB (x{p2 / p1:.2f})"
    )


def postgres_engine() -> Iterator[Engine]:
    """A throw-away schema in the local PostgreSQL, if reachable."""
    with scratch_schema(POSTGRES_URL, prefix="bench") as engine:
        yield engine


def main() -> None:
    """Run every measurement and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seasons", type=int, default=10)
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--naive-events", type=int, default=60, help="events the peer imports")
    args = parser.parse_args()
    print(f"load average before the run: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print(
        f"synthetic league: {args.seasons} seasons x {LOCATIONS} locations x {WEEKS} weeks x "
        f"{PLAYERS} players = {args.seasons * LOCATIONS * WEEKS * PLAYERS:,} results"
    )
    with tempfile.TemporaryDirectory() as tmp:
        engine = make_engine(f"sqlite:///{Path(tmp) / 'bench.db'}")
        create_schema(engine)
        sqlite = measure("sqlite", engine, args.seasons, args.naive_events)
        engine.dispose()
    verdict = "met" if sqlite["import_rate"] >= 10_000 else "NOT met"
    print(f"target import >= 10,000 results/s on SQLite: {verdict}")
    targets = [("sqlite", sqlite["standings_ms"])]
    if not args.no_postgres:
        try:
            for engine in postgres_engine():
                pg = measure("postgres", engine, args.seasons, args.naive_events)
                targets.append(("postgres", pg["standings_ms"]))
        except Exception as exc:  # a missing server is reported, not fatal
            print(f"[postgres] skipped: {exc.__class__.__name__}: {str(exc).splitlines()[0]}")
    for label, ms in targets:
        print(f"target standings + TOC <= 100 ms on {label}: {'met' if ms <= 100 else 'NOT met'}")
    memory(2, max(args.seasons, 4))


if __name__ == "__main__":
    main()
