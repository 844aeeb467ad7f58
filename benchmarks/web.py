"""The season page at league scale, beside ``pokerfloor standings --json`` in the same run.

One season of 20 locations x 18 weeks x 40 players (14,400 results, 1,200 players; the
generator of ``benchmarks/league.py``) is imported into an SQLite file. Then, one at a time:
  * ``GET /season/<name>`` over loopback HTTP (aiohttp server and client in one process): the
    standings query, the points-race query, the SVG chart and the 1,200-row page; target
    p99 <= 150 ms;
  * the same request with the browser's ``If-None-Match`` (a refresh: 304);
  * the same request from another browser once the page was rendered (kept by its ETag);
  The first figure renders every request (the page cache off): that is the target's figure.
  * the peer: ``pokerfloor standings --json`` for the same season, called in-process (parser,
    engine, migration check, query, JSON) after every fifth page, so both see the same load;
    and a few runs as a fresh process.
Figures are milliseconds, p50 / p99 (and the best); the machine is shared.

Run: ``.venv/bin/python -m benchmarks.web [--requests 200]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import logging
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from aiohttp.test_utils import TestClient, TestServer

from benchmarks.league import synthetic_season
from bot.surfaces.cli import main as cli_main
from bot.surfaces.web.site import Site
from rulings.league.events import parse_event
from storage.db import make_engine, session_scope, upgrade_schema
from storage.event_import import import_events
from storage.leagues import ensure_league
from storage.web import season_view

ROOT = Path(__file__).resolve().parents[1]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def line(label: str, values: list[float]) -> str:
    return (
        f"{label:<52} p50 {pct(values, 0.5):7.1f}  p99 {pct(values, 0.99):7.1f}  "
        f"best {min(values):7.1f} ms  (n={len(values)})"
    )


def build(url: str) -> tuple[str, int, int]:
    engine = make_engine(url)
    upgrade_schema(engine)
    records = [parse_event(e) for e in synthetic_season(0, random.Random(5))]
    with session_scope(engine) as session:
        league = ensure_league(session=session, actor="bench")
        import_events(records, session=session, league_id=league.id, actor="bench", allow_new=True)
    with session_scope(engine) as session:
        view = season_view(session=session, league_id=league.id)
    engine.dispose()
    results = sum(len(r.participants()) for r in records)
    return view.table.season, len(view.table.rows), results


def cli_once(url: str, season: str) -> float:
    out = io.StringIO()
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(out):
        code = cli_main(["standings", "--json", "--season", season, "--db", url])
    elapsed = (time.perf_counter() - t0) * 1000
    assert code == 0
    assert out.getvalue().startswith("[")
    return elapsed


async def pages(
    url: str, season: str, n: int, *, cached_pages: int = 0, peer: list[float] | None = None
) -> tuple[list[float], list[float], int]:
    """Time the page (and its 304); with ``peer``, the CLI every 5th round, interleaved."""
    engine = make_engine(url)
    site = Site(engine, cached_pages=cached_pages)
    path = f"/season/{season.replace(' ', '%20')}"
    full, fresh = [], []
    size = 0
    async with TestClient(TestServer(site.app())) as client:
        first = await client.get(path)
        assert first.status == 200
        etag = first.headers["ETag"]
        for _ in range(n):
            t0 = time.perf_counter()
            response = await client.get(path)
            body = await response.read()
            full.append((time.perf_counter() - t0) * 1000)
            assert response.status == 200
            size = len(body)
            t0 = time.perf_counter()
            response = await client.get(path, headers={"If-None-Match": etag})
            await response.read()
            fresh.append((time.perf_counter() - t0) * 1000)
            assert response.status == 304
            if peer is not None and len(full) % 5 == 0:
                peer.append(cli_once(url, season))  # same moment, same load
    engine.dispose()
    return full, fresh, size


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--processes", type=int, default=3)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'web.db'}"
        t0 = time.perf_counter()
        season, players, results = build(url)
        print(
            f"season '{season}': {players:,} players, {results:,} results "
            f"(imported in {time.perf_counter() - t0:.1f} s); SQLite file; shared machine"
        )
        peer: list[float] = []
        full, fresh, size = asyncio.run(pages(url, season, args.requests, peer=peer))
        warm, _, _ = asyncio.run(pages(url, season, args.requests // 2, cached_pages=64))
        procs = []
        for _ in range(args.processes):
            t0 = time.perf_counter()
            subprocess.run(
                [str(Path(sys.executable).parent / "pokerfloor"), "standings", "--json",
                 "--season", season, "--db", url],
                cwd=ROOT, check=True, stdout=subprocess.DEVNULL,
            )  # fmt: skip
            procs.append((time.perf_counter() - t0) * 1000)
        print(line(f"GET /season page ({size / 1024:.0f} KiB HTML, chart, 1,200 rows)", full))
        print(line("GET /season page, refresh (If-None-Match -> 304)", fresh))
        print(line("GET /season page, another browser (rendered page kept)", warm))
        print(line("peer: pokerfloor standings --json (in-process)", peer))
        print(line("peer: pokerfloor standings --json (new process)", procs))
        ratio = pct(full, 0.5) / pct(peer, 0.5)
        verdict = "meets" if pct(full, 0.99) <= 150 else "MISSES"
        print(
            f"page p50 / CLI p50 = {ratio:.2f}; page p99 {pct(full, 0.99):.1f} ms {verdict} <= 150"
        )


if __name__ == "__main__":
    main()
