"""Load benchmark of the live clock: many clocks at once against the fake Discord, one process.

Ours: the real bot (discord.py client, the clock cog, its ClockService with APScheduler and a
SQLite file) runs ``--clocks`` clocks with ``--level-seconds`` levels for ``--seconds``.
Peer, in the same run and process, against the same fake: a bare ticker, one task per clock
that ``asyncio.sleep``s until each level and posts it through the same discord.py client, with
no database and no scheduler (the least a clock can do).

Measured at the fake Discord (when each message arrived): lateness of every scheduled level
announcement (level 2 on; level 1 is the start command's own message), exactly-once and order
per clock, and the event loop's lag (a 10 ms sleeper's overshoot).

Targets (issue 6): every announcement exactly once and in order, p99 lateness <= 500 ms,
event-loop lag p99 <= 50 ms.

    .venv/bin/python -m benchmarks.clock                 # 200 clocks, 5 s levels, 30 s
    .venv/bin/python -m benchmarks.clock --seconds 120   # the full two minutes
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import itertools
import logging
import re
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import discord

from bot.app import LeagueBot
from bot.clock_service import ClockService
from storage.db import make_engine
from tests.fakediscord import GUILD_ID, FakeDiscord, start_bot, stop_bot

LEVEL = re.compile(r"Level (\d+): blinds")
OURS_BASE = 700_000_000_000_000_000
PEER_BASE = 800_000_000_000_000_000


@dataclass
class Phase:
    """What one phase measured."""

    name: str
    lateness_ms: list[float] = field(default_factory=list)
    lag_ms: list[float] = field(default_factory=list)
    expected: int = 0
    sent: int = 0
    duplicates: int = 0
    out_of_order: int = 0
    missing: int = 0


def pct(values: list[float], q: float) -> float:
    """The q-th percentile (0-100) of ``values``; NaN when empty."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


async def watch_lag(phase: Phase, stop: asyncio.Event) -> None:
    """Record how late a 10 ms sleep wakes up, until ``stop``."""
    while not stop.is_set():
        started = time.perf_counter()
        await asyncio.sleep(0.01)
        phase.lag_ms.append((time.perf_counter() - started - 0.01) * 1000)


def check(
    phase: Phase,
    fake: FakeDiscord,
    starts: dict[int, float],
    level_s: float,
    horizon: float,
    offset: float,
) -> None:
    """Compare what the fake received per channel with the levels due before ``horizon``.

    ``starts`` maps channel -> wall time (epoch seconds) of level 1; ``offset`` converts the
    fake's perf_counter stamps to epoch seconds.
    """
    seen: dict[int, list[tuple[int, float]]] = {cid: [] for cid in starts}
    for rec in fake.requests:
        if rec.method != "POST" or not rec.path.startswith("/channels/"):
            continue
        cid = int(rec.path.split("/")[2])
        if cid not in seen or not isinstance(rec.body, dict):
            continue
        match = LEVEL.search(rec.body.get("content") or "")
        if match:
            seen[cid].append((int(match.group(1)), rec.at + offset))
    for cid, started in starts.items():
        due = int((horizon - started) // level_s) + 1  # levels 1..due are due by the horizon
        phase.expected += due
        levels = [n for n, _ in seen[cid]]
        phase.sent += sum(1 for n in levels if n <= due)
        phase.duplicates += len(levels) - len(set(levels))
        phase.out_of_order += sum(1 for a, b in itertools.pairwise(levels) if b <= a)
        phase.missing += len(set(range(1, due + 1)) - set(levels))
        for n, arrived in seen[cid]:
            if 2 <= n <= due:
                phase.lateness_ms.append((arrived - (started + (n - 1) * level_s)) * 1000)


async def run_ours(
    fake: FakeDiscord, bot: LeagueBot, clocks: int, level_s: float, seconds: float
) -> Phase:
    """Run the bot's clocks for ``seconds``."""
    phase = Phase("pokerfloor ClockService")
    # discord.py loads extensions as fresh module objects: look the service up, not the class.
    service: ClockService = getattr(bot.get_cog("ClockCog"), "service")  # noqa: B009
    stop = asyncio.Event()
    lag = asyncio.create_task(watch_lag(phase, stop))
    records = await asyncio.gather(
        *(
            service.start_clock(
                guild_id=GUILD_ID,
                channel_id=OURS_BASE + i,
                structure="bar-league",
                created_by=1,
                level_minutes=level_s / 60,
            )
            for i in range(clocks)
        )
    )
    starts = {r.channel_id: r.state.started_at.timestamp() for r in records}
    horizon = min(starts.values()) + seconds
    await asyncio.sleep(horizon - time.time())
    await asyncio.sleep(1.0)  # let announcements due at the horizon land
    stop.set()
    await lag
    await service.stop()
    check(phase, fake, starts, level_s, horizon, time.time() - time.perf_counter())
    return phase


async def run_peer(
    fake: FakeDiscord, bot: LeagueBot, clocks: int, level_s: float, seconds: float
) -> Phase:
    """The bare asyncio.sleep ticker for the same clocks."""
    phase = Phase("bare asyncio.sleep ticker")
    stop = asyncio.Event()
    lag = asyncio.create_task(watch_lag(phase, stop))
    t0 = time.time()
    starts = {PEER_BASE + i: t0 for i in range(clocks)}
    horizon = t0 + seconds
    none = discord.AllowedMentions.none()

    async def ticker(channel_id: int) -> None:
        channel = bot.get_partial_messageable(channel_id)
        n = 1
        while True:
            due = t0 + (n - 1) * level_s
            if due > horizon:
                return
            await asyncio.sleep(max(0.0, due - time.time()))
            small = 2 ** (n - 1)
            await channel.send(f"Level {n}: blinds {small:,}/{2 * small:,}", allowed_mentions=none)
            n += 1

    await asyncio.gather(*(ticker(cid) for cid in starts))
    await asyncio.sleep(1.0)
    stop.set()
    await lag
    check(phase, fake, starts, level_s, horizon, time.time() - time.perf_counter())
    return phase


def report(phase: Phase) -> None:
    """Print one phase's figures."""
    print(f"{phase.name}:")
    print(
        f"  announcements due {phase.expected}, sent {phase.sent}, missing {phase.missing}, "
        f"duplicates {phase.duplicates}, out of order {phase.out_of_order}"
    )
    late = phase.lateness_ms
    print(
        f"  lateness ms: p50 {pct(late, 50):.1f}  p99 {pct(late, 99):.1f}  "
        f"max {max(late, default=float('nan')):.1f}  (n={len(late)})"
    )
    lag = phase.lag_ms
    print(
        f"  loop lag ms: p50 {pct(lag, 50):.2f}  p99 {pct(lag, 99):.2f}  "
        f"max {max(lag, default=float('nan')):.1f}  mean {statistics.fmean(lag or [0]):.2f}"
    )


async def main(argv: list[str] | None = None) -> int:
    """Run both phases and print the figures and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clocks", type=int, default=200)
    parser.add_argument("--level-seconds", type=float, default=5.0)
    parser.add_argument("--seconds", type=float, default=30.0, help="120 for the full run")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("discord").setLevel(logging.ERROR)

    fake = FakeDiscord()
    await fake.start()
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        bot = LeagueBot(
            fake.settings(database_url=url),
            make_engine(url),
            extensions=("bot.app.clock",),
            guild_ready_timeout=0.01,
        )
        await start_bot(fake, bot)
        print(
            f"{args.clocks} clocks, {args.level_seconds:g} s levels, {args.seconds:g} s, "
            f"one process, fake Discord on 127.0.0.1 ({dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC)"
        )
        ours = await run_ours(fake, bot, args.clocks, args.level_seconds, args.seconds)
        peer = await run_peer(fake, bot, args.clocks, args.level_seconds, args.seconds)
        await stop_bot(bot)
        bot.engine.dispose()
    await fake.stop()

    report(ours)
    report(peer)
    ratio = pct(ours.lateness_ms, 99) / max(pct(peer.lateness_ms, 99), 1e-9)
    print(f"p99 lateness ratio ours/peer: {ratio:.2f}")
    ok = (
        ours.missing == 0
        and ours.duplicates == 0
        and ours.out_of_order == 0
        and pct(ours.lateness_ms, 99) <= 500
        and pct(ours.lag_ms, 99) <= 50
    )
    print(
        "targets (exactly once, in order, p99 lateness <= 500 ms, lag p99 <= 50 ms):",
        "met" if ok else "NOT met",
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
