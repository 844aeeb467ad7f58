"""Bot latency through the fake Discord on loopback (the real discord.py client and cogs).

Measured, all in one run:
  * 500 ``/echo`` (the peer: a trivial command through the same stack), 500 ``/rule`` and
    500 ``/hand`` with a full board, one at a time: p50/p99 from INTERACTION_CREATE sent to
    the interaction callback received by the fake;
  * a burst of 1,000 mixed interactions (rule, full-board hand, preflop equity, echo) sent at
    once: event-loop lag (max and p99 of a 5 ms ticker's overshoot), the worst acknowledgement
    time, how many were acknowledged within 3 s, and when the last answer arrived.
ratio = our p50 / echo p50 (same run). Targets: /rule and /hand p50 <= 30 ms, p99 <= 100 ms;
loop lag <= 50 ms; every interaction acknowledged within 3 s.

Run: ``.venv/bin/python benchmarks/bot.py`` (``--quick`` for 50/100 instead of 500/1,000).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.app import EXTENSIONS, LeagueBot  # noqa: E402
from storage.db import make_engine  # noqa: E402
from tests.fakediscord import FakeDiscord, Interaction  # noqa: E402

T = TypeVar("T")
Sender = Callable[[int], Coroutine[Any, Any, Interaction]]

RULE_QUERIES = [
    "oversized chip",
    "odd chip",
    "string bet",
    "misdeal",
    "dead button",
    "showdown order",
    "one player to a hand",
    "side pot",
    "late registration",
    "chip race",
]
FULL_BOARD_HANDS = [
    ("As Ks vs Qh Qd", "2c 7d 9h Jc 3s"),
    ("Ah Kh vs 7c 7d vs Js Ts", "Qh Jh 2h 7s 9c"),
    ("5c 5d vs Ac Kd", "Ad 5s Kc 2h 9d"),
    ("Tc 9c vs Ah Ad", "8c 7c 2d Kd 3h"),
]
PREFLOP_HANDS = ["As Ks vs Qh Qd", "Ac Kd vs 7s 7h", "Jh Th vs 9c 9d"]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class FakeThread:
    """The fake Discord on its own thread and event loop, like a server on another machine.

    The bot's loop then carries only the bot's work, so its lag is the bot's own (the GIL is
    still shared, which makes the figures pessimistic).
    """

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def __call__(self, coro: Coroutine[Any, Any, T]) -> asyncio.Future[T]:
        return asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self.loop))

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


async def one_at_a_time(on_fake: FakeThread, send: Sender, n: int) -> list[float]:
    times: list[float] = []
    for i in range(n):
        it: Interaction = await on_fake(send(i))
        await on_fake(it.response(wait_s=10))
        assert it.ack_seconds is not None
        times.append(it.ack_seconds * 1000)
        await on_fake(it.settled(wait_s=30))
    return times


def describe(name: str, ms: list[float], peer_p50: float | None) -> str:
    p50, p99 = statistics.median(ms), pct(ms, 0.99)
    ratio = f"  ratio {p50 / peer_p50:.2f}x echo" if peer_p50 else ""
    return f"{name:<22} n={len(ms):<4} p50 {p50:6.2f} ms  p99 {p99:6.2f} ms{ratio}"


async def loop_lag(stop: asyncio.Event, lags: list[float], tick: float = 0.005) -> None:
    while not stop.is_set():
        started = time.perf_counter()
        await asyncio.sleep(tick)
        lags.append((time.perf_counter() - started - tick) * 1000)


async def main(n: int, burst: int) -> int:
    logging.basicConfig(level=logging.ERROR)
    on_fake = FakeThread()
    fake = await on_fake(_new_fake())
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/bench.db"
        bot = LeagueBot(
            fake.settings(database_url=url),
            make_engine(url),
            extensions=(*EXTENSIONS, "tests.bot.probe_cog"),
            guild_ready_timeout=0.01,
        )
        task = asyncio.create_task(bot.start("fake-token"))
        await asyncio.wait_for(bot.wait_until_ready(), 30)
        try:
            return await run(on_fake, fake, n, burst)
        finally:
            await bot.close()
            await asyncio.gather(task, return_exceptions=True)
            await on_fake(fake.stop())
            on_fake.close()


async def _new_fake() -> FakeDiscord:
    fake = FakeDiscord()
    await fake.start()
    return fake


async def run(on_fake: FakeThread, fake: FakeDiscord, n: int, burst: int) -> int:
    def echo(i: int) -> Coroutine[Any, Any, Interaction]:
        return fake.interact("echo", {"text": f"hello {i}"})

    def rule(i: int) -> Coroutine[Any, Any, Interaction]:
        return fake.interact("rule", {"query": RULE_QUERIES[i % len(RULE_QUERIES)]})

    def hand(i: int) -> Coroutine[Any, Any, Interaction]:
        cards, board = FULL_BOARD_HANDS[i % len(FULL_BOARD_HANDS)]
        return fake.interact("hand", {"cards": cards, "board": board})

    def preflop(i: int) -> Coroutine[Any, Any, Interaction]:
        return fake.interact("hand", {"cards": PREFLOP_HANDS[i % len(PREFLOP_HANDS)]})

    # warm-up: imports, lookup tables, rulebook index, first equity
    for warm in (echo, rule, hand, preflop):
        it = await on_fake(warm(0))
        await on_fake(it.settled(wait_s=60))
        failed = it.callback_errors or "went wrong" in str(it.callback)
        title = (await on_fake(it.settled(wait_s=60))).get("embeds", [{}])[0].get("title")
        print(f"warm-up /{warm.__name__}: {'FAILED ' if failed else ''}{title!r}")

    echo_ms = await one_at_a_time(on_fake, echo, n)
    rule_ms = await one_at_a_time(on_fake, rule, n)
    hand_ms = await one_at_a_time(on_fake, hand, n)
    peer = statistics.median(echo_ms)
    print(f"bot through the fake Discord on loopback, {n} interactions each, one at a time")
    print(describe("/echo (peer)", echo_ms, None))
    print(describe("/rule", rule_ms, peer))
    print(describe("/hand full board", hand_ms, peer))

    # the burst: everything sent at once, while a ticker measures event-loop lag
    plan = []
    only = os.environ.get("BENCH_ONLY")  # diagnosis: a burst of one kind only
    for i in range(burst):
        if only:
            plan.append({"echo": echo, "rule": rule, "hand": hand, "preflop": preflop}[only])
            continue
        slot = i % 20
        if slot == 0:
            plan.append(preflop)  # 5 % preflop equity (1.7 M boards each)
        elif slot < 8:
            plan.append(rule)
        elif slot < 15:
            plan.append(hand)
        else:
            plan.append(echo)
    # The fake (same process, another thread) has recorded every request of the phases above;
    # freeze that so the collector's full passes measure the bot's heap, not the fake's.
    gc.collect()
    gc.freeze()
    stop = asyncio.Event()
    lags: list[float] = []
    ticker = asyncio.create_task(loop_lag(stop, lags))
    await asyncio.sleep(0.05)
    started = time.perf_counter()

    async def fire() -> list[Interaction]:
        return [await send(i) for i, send in enumerate(plan)]

    sent = await on_fake(fire())

    async def settle_all() -> None:
        await asyncio.gather(*(it.settled(wait_s=120) for it in sent))

    await on_fake(settle_all())
    finished = time.perf_counter() - started
    stop.set()
    await ticker
    acks = [it.ack_seconds for it in sent if it.ack_seconds is not None]
    refused = sum(1 for it in sent if it.callback_errors)
    deferred = sum(1 for it in sent if it.callback and it.callback["type"] == 5)
    in_time = sum(1 for a in acks if a <= 3.0)
    print(
        f"burst of {burst} mixed ({plan.count(preflop)} preflop equity): "
        f"all answered in {finished:.2f} s, {deferred} deferred"
    )
    print(
        f"  loop lag max {max(lags):.1f} ms  p99 {pct(lags, 0.99):.1f} ms  "
        f"(5 ms ticker, {len(lags)} ticks)"
    )
    worst, typical = max(acks) * 1000, statistics.median(acks) * 1000
    print(
        f"  acknowledgement worst {worst:.0f} ms  p50 {typical:.1f} ms; "
        f"within 3 s: {in_time}/{burst}; refused callbacks: {refused}"
    )
    ok = (
        statistics.median(rule_ms) <= 30
        and pct(rule_ms, 0.99) <= 100
        and statistics.median(hand_ms) <= 30
        and pct(hand_ms, 0.99) <= 100
        and max(lags) <= 50
        and in_time == burst
    )
    print("targets met" if ok else "TARGETS NOT MET")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="50 each and a burst of 100")
    ns = parser.parse_args()
    sys.exit(asyncio.run(main(50 if ns.quick else 500, 100 if ns.quick else 1000)))
