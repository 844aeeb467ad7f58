"""League commands through the fake Discord on loopback (the real discord.py client and cogs).

One season of 20 locations x 18 weeks x 40 players (14,400 results) is stored first. Then,
one at a time, N interactions each of:
  * ``/help`` (the peer: a trivial command answered straight away through the same stack),
  * ``/standings`` (deferred, season table aggregated in SQL, first page + buttons),
  * ``/standings player:...``, ``/toc``,
  * ``/td bounty`` (a director write: recompute one 40-player event, audit, results channel).
Times are from INTERACTION_CREATE sent to the answer the user sees (the follow-up after a
defer), p50/p99 in ms; ratio = p50 / the /help p50 of the same run. The acknowledgement
(defer) time is reported too: it must stay far below Discord's 3 s.

Run: ``.venv/bin/python benchmarks/league_bot.py`` (``--quick`` for 30 instead of 200).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import rulings  # noqa: E402
from bot.surfaces.discord import EXTENSIONS, LeagueBot  # noqa: E402
from storage.db import make_engine  # noqa: E402
from storage.event_changes import record_guild_events  # noqa: E402
from storage.guild_settings import update_guild_settings  # noqa: E402
from tests.fakediscord import GUILD_ID, MANAGE_GUILD, FakeDiscord, start_bot, stop_bot  # noqa: E402

PLAYERS = [f"Player {i:03d}" for i in range(40)]
RESULTS_CHANNEL = 900_000_000_000_000_800


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def season(rules: rulings.LeagueRules, current: str | None) -> list[rulings.EventRecord]:
    del current
    records = []
    for loc in range(20):
        for week in range(18):
            order = PLAYERS[(loc * 7 + week * 3) % 40 :] + PLAYERS[: (loc * 7 + week * 3) % 40]
            records.append(
                rulings.build_event(
                    season="2026 Fall",
                    location=f"Bar {loc:02d}",
                    date=f"2026-{9 + week // 6:02d}-{1 + (week % 6) * 5:02d}",
                    kind="regular",
                    finish=[[n] for n in order],
                    bounties={order[0]: 1},
                    max_receipt_cents=rules.receipt_max_cents,
                )
            )
    return records


async def measure(fake: FakeDiscord, n: int, send: Any) -> tuple[list[float], list[float]]:
    seen, acks = [], []
    for i in range(n):
        it = await send(i)
        await it.settled(30)
        done = it.followup_at[0] if it.followups else it.callback_at
        seen.append((done - it.sent_at) * 1000)
        acks.append((it.callback_at - it.sent_at) * 1000)
    return seen, acks


async def main(n: int) -> None:
    logging.basicConfig(level=logging.WARNING)
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        fake = FakeDiscord()
        await fake.start()
        bot = LeagueBot(
            fake.settings(database_url=url),
            make_engine(url),
            extensions=EXTENSIONS,
            guild_ready_timeout=0.01,
        )
        await start_bot(fake, bot)
        started = time.perf_counter()
        await bot.db.run(
            record_guild_events, guild_id=GUILD_ID, build=season, actor="bench", allow_new=True
        )
        load_s = time.perf_counter() - started
        await bot.db.run(
            update_guild_settings,
            guild_id=GUILD_ID,
            actor="bench",
            results_channel_id=RESULTS_CHANNEL,
        )
        boss: dict[str, Any] = {"permissions": MANAGE_GUILD, "user_id": 900_000_000_000_000_402}
        cases = {
            "/help (peer)": lambda i: fake.interact("help"),
            "/standings": lambda i: fake.interact("standings"),
            "/standings player": lambda i: fake.interact("standings", {"player": PLAYERS[i % 40]}),
            "/toc": lambda i: fake.interact("toc"),
            "/td bounty (write)": lambda i: fake.interact(
                "td",
                {"event": 1 + i % 360, "player": PLAYERS[i % 40], "chips": 1 + i % 3},
                sub=["bounty"],
                **boss,
            ),
        }
        print(f"league: 360 events, 14,400 results stored in {load_s:.2f} s")
        print(f"{'command':<22} {'p50 ms':>8} {'p99 ms':>8} {'ack p99':>8} {'ratio':>6}")
        peer = None
        for name, send in cases.items():
            await measure(fake, 3, send)  # warm up
            seen, acks = await measure(fake, n, send)
            p50 = pct(seen, 0.5)
            peer = peer or p50
            print(
                f"{name:<22} {p50:>8.1f} {pct(seen, 0.99):>8.1f} {pct(acks, 0.99):>8.1f} "
                f"{p50 / peer:>6.1f}"
            )
        await asyncio.sleep(1.0)  # let the last results-channel post land
        await stop_bot(bot)
        bot.engine.dispose()
        await fake.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="30 interactions per command")
    args = parser.parse_args()
    asyncio.run(main(30 if args.quick else 200))
