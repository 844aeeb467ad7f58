"""Where a delayed interaction's time went, stage by stage (``benchmarks/bot.py --crowd --trace``).

Hooks the bot's process (the benchmark's own, never the bot's code) and stamps each
interaction with ``time.perf_counter()`` (one monotonic clock for the whole machine, so the
fake Discord's send and callback times line up with the bot's):

  recv      the gateway event parsed (discord.py's ``parse_interaction_create``)
  run       ``SlashRunner.run`` started
  submit    the handler handed to the handler threads (with how many jobs were queued then)
  thread    the handler started on a thread;  done: it returned (with the thread's CPU time)
  index     (``/rule``) the rulebook index asked for, and got
  db        a session opened, its connection checked out of the pool, the session closed
  resumed   the event loop took the handler's result back
  send      the reply's HTTP request started and finished

plus the event loop's lag (a 5 ms ticker) over the crowd.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import gc
import statistics
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from sqlalchemy import event

import bot.database
import storage.db
from bot.surfaces.discord.slash import SlashRunner

Stamps = dict[str, float]
STAMPS: dict[int, Stamps] = {}
READ: dict[int, float] = {}  # when the gateway frame was read (queued for its turn)
_current: contextvars.ContextVar[Stamps | None] = contextvars.ContextVar("stamps", default=None)
LAGS: list[tuple[float, float]] = []  # (when, lag in ms)
PARSE_CPU: list[float] = []  # the loop's CPU seconds parsing each interaction
CPU: list[tuple[float, float, float]] = []  # (when, loop thread CPU s, process CPU s)


GCS: list[tuple[float, int, float, float]] = []  # (when, generation, seconds, CPU seconds)
_gc_started: list[float] = []


def _gc(phase: str, info: dict[str, Any]) -> None:
    if phase == "start":
        _gc_started[:] = [time.perf_counter(), time.thread_time()]
    elif _gc_started:
        started, cpu = _gc_started
        GCS.append(
            (started, info["generation"], time.perf_counter() - started, time.thread_time() - cpu)
        )


def _stamp(key: str, value: float | None = None) -> None:
    stamps = _current.get()
    if stamps is not None and key not in stamps:
        stamps[key] = time.perf_counter() if value is None else value


def install(league_bot: Any) -> None:
    """Hook ``league_bot``'s process; call before it starts."""
    gc.callbacks.append(_gc)
    # The bot parses interactions in turns between users (``InteractionLanes``): ``recv`` is
    # when its turn came and it was parsed, not when its frame was read.
    lanes = getattr(league_bot, "interaction_lanes", None)
    parsers = league_bot._connection.parsers  # bound when the client was built
    parse = parsers["INTERACTION_CREATE"] if lanes is None else lanes.parse

    def parse_interaction_create(data: Any) -> None:
        cpu = time.thread_time()
        iid = int(data["id"])
        STAMPS[iid] = {"recv": time.perf_counter(), "recv_cpu": cpu}
        if iid in READ:
            STAMPS[iid]["read"] = READ[iid]
        parse(data)
        PARSE_CPU.append(time.thread_time() - cpu)

    if lanes is None:
        parsers["INTERACTION_CREATE"] = parse_interaction_create
    else:
        lanes.parse = parse_interaction_create

        class TracedLanes(type(lanes)):  # type: ignore[misc]
            def __call__(self, data: Any) -> None:
                READ[int(data["id"])] = time.perf_counter()
                super().__call__(data)

        lanes.__class__ = TracedLanes

    run = SlashRunner.run

    async def traced_run(self: Any, interaction: Any, *args: Any, **kwargs: Any) -> None:
        stamps = STAMPS.setdefault(interaction.id, {})
        stamps["run"] = time.perf_counter()
        _current.set(stamps)
        await run(self, interaction, *args, **kwargs)

    SlashRunner.run = traced_run  # type: ignore[method-assign]

    context = SlashRunner.context

    def traced_context(self: Any, interaction: Any, *, is_director: bool) -> Any:
        ctx = context(self, interaction, is_director=is_director)
        asked = ctx.rule_index

        def rule_index() -> Any:
            _stamp("index_asked")
            index = asked()
            _stamp("index_got")
            return index

        return replace(ctx, rule_index=rule_index)

    SlashRunner.context = traced_context  # type: ignore[method-assign]

    send = SlashRunner.send

    async def traced_send(self: Any, interaction: Any, reply: Any) -> None:
        _stamp("send")
        await send(self, interaction, reply)
        _stamp("sent")

    SlashRunner.send = traced_send  # type: ignore[method-assign]

    pool = league_bot._handler_pool
    in_thread = league_bot.in_handler_thread

    async def in_handler_thread(fn: Callable[[], Any]) -> Any:
        stamps = _current.get()
        if stamps is not None:
            stamps["submit"] = time.perf_counter()
            stamps["queued"] = float(pool._work.qsize())

        def timed() -> Any:
            _stamp("thread")
            cpu = time.thread_time()
            try:
                return fn()
            finally:
                _stamp("done")
                _stamp("cpu", (time.thread_time() - cpu) * 1000)

        result = await in_thread(timed)
        _stamp("resumed")
        return result

    league_bot.in_handler_thread = in_handler_thread

    scope = storage.db.session_scope

    @contextlib.contextmanager
    def session_scope(engine: Any) -> Iterator[Any]:
        _stamp("db")
        with scope(engine) as session:
            yield session
        _stamp("db_end")

    storage.db.session_scope = session_scope
    bot.database.session_scope = session_scope  # type: ignore[attr-defined]

    @event.listens_for(league_bot.engine, "checkout")
    def checkout(*_: Any) -> None:
        _stamp("db_got")


async def tick(stop: asyncio.Event, every: float = 0.005) -> None:
    """Record the event loop's lag until ``stop``."""
    while not stop.is_set():
        started = time.perf_counter()
        await asyncio.sleep(every)
        LAGS.append((started, (time.perf_counter() - started - every) * 1000))
        CPU.append((started, time.thread_time(), time.process_time()))


STAGES = (
    ("sent", "read"),
    ("read", "recv"),
    ("recv", "run"),
    ("run", "submit"),
    ("submit", "thread"),
    ("thread", "index_asked"),
    ("index_asked", "index_got"),
    ("db", "db_got"),
    ("db_got", "db_end"),
    ("thread", "done"),
    ("done", "resumed"),
    ("resumed", "send"),
    ("send", "callback"),
)


def report(timed: dict[int, tuple[float, float | None, str]], worst: int = 10) -> list[str]:
    """The slowest bystander interactions, stage by stage (ms), and the crowd's handler parts."""
    rows: list[tuple[float, int, Stamps]] = []
    for iid, (sent_at, callback_at, kind) in timed.items():
        stamps = dict(STAMPS.get(iid, {}))
        stamps["sent"] = sent_at
        if callback_at is not None:
            stamps["callback"] = callback_at
        stamps["kind"] = 0.0 if kind == "bystander" else 1.0
        rows.append((sent_at, iid, stamps))
    rows.sort()
    if not rows:
        return []
    t0 = min(s["sent"] for _, _, s in rows if s["kind"] == 1.0) if rows else 0.0
    lines = [
        "stages of the slowest bystander /rule (ms; t = sent, from the crowd's first send):",
        "  t  total | " + " ".join(f"{a[:6]}>{b[:6]}" for a, b in STAGES) + " | queued cpu",
    ]
    bystanders = [s for _, _, s in rows if s["kind"] == 0.0 and "callback" in s]
    bystanders.sort(key=lambda s: s["callback"] - s["sent"], reverse=True)
    for s in bystanders[:worst]:
        parts = [
            f"{(s[b] - s[a]) * 1000:13.1f}" if a in s and b in s else f"{'-':>13}"
            for a, b in STAGES
        ]
        lines.append(
            f"  {(s['sent'] - t0) * 1000:5.0f} {(s['callback'] - s['sent']) * 1000:6.1f} | "
            + " ".join(parts)
            + f" | {s.get('queued', -1):4.0f} {s.get('cpu', -1):5.1f}"
        )
    crowd = [s for _, _, s in rows if s["kind"] == 1.0]
    started = [s for s in crowd if "thread" in s and "done" in s]
    if started:
        wall = [(s["done"] - s["thread"]) * 1000 for s in started]
        cpu = [s.get("cpu", 0.0) for s in started]
        waited = [(s["thread"] - s["submit"]) * 1000 for s in started]
        first = min(s["thread"] for s in started) - t0
        last = max(s["done"] for s in started) - t0
        lines.append(
            f"crowd handler parts: {len(started)} ran from {first * 1000:.0f} to "
            f"{last * 1000:.0f} ms; on a thread p50 {statistics.median(wall):.1f} ms "
            f"(max {max(wall):.1f}), CPU p50 {statistics.median(cpu):.2f} ms; queued for a "
            f"thread p50 {statistics.median(waited):.1f} ms (max {max(waited):.1f})"
        )
        got = sorted((s["recv"], s["recv_cpu"]) for s in crowd if "recv_cpu" in s)
        if len(got) > 1:
            lines.append(
                f"loop CPU from the crowd's first interaction parsed to its last: "
                f"{(got[-1][1] - got[0][1]) * 1000:.0f} ms in {(got[-1][0] - got[0][0]) * 1000:.0f}"
                f" ms of wall ({(got[-1][1] - got[0][1]) * 1000 / (len(got) - 1):.2f} ms an "
                f"interaction); parsing one: p50 {statistics.median(PARSE_CPU) * 1000:.2f} ms CPU"
            )
        acked = sorted((s["callback"] - t0) * 1000 for s in crowd if "callback" in s)
        if acked:
            lines.append(
                f"crowd acknowledged (deferred) from {acked[0]:.0f} to {acked[-1]:.0f} ms "
                f"(p50 {statistics.median(acked):.0f}); in any 100 ms at most "
                f"{max(sum(1 for b in acked if a <= b < a + 100) for a in acked)}"
            )
        arrived = [s["recv"] - s["sent"] for s in crowd if "recv" in s]
        lines.append(
            f"crowd sent over {(max(s['sent'] for s in crowd) - t0) * 1000:.0f} ms; gateway to "
            f"parsed p50 {statistics.median(arrived) * 1000:.1f} ms max {max(arrived) * 1000:.1f}"
        )
    if LAGS:
        worst_lags = sorted(LAGS, key=lambda x: -x[1])[:3]
        lines.append(
            "worst loop lags (t ms, lag ms): "
            + ", ".join(f"({(w - t0) * 1000:.0f}, {lag:.0f})" for w, lag in worst_lags)
        )
        slow_gc = [g for g in GCS if g[2] > 0.005 and g[0] >= t0]
        lines.append(
            f"garbage collections over the crowd: {sum(1 for g in GCS if g[0] >= t0)}, longest "
            + ", ".join(
                f"gen{g[1]} {g[2] * 1000:.0f} ms ({g[3] * 1000:.0f} CPU) "
                f"at {(g[0] - t0) * 1000:.0f}"
                for g in sorted(slow_gc, key=lambda g: -g[2])[:3]
            )
        )
        early_gc = [g for g in GCS if 0 <= g[0] - t0 <= 1.5]
        lines.append(
            f"garbage collections in the first 1.5 s: {len(early_gc)} "
            f"(gen1 {sum(1 for g in early_gc if g[1] == 1)}, "
            f"gen2 {sum(1 for g in early_gc if g[1] == 2)}), "
            f"{sum(g[2] for g in early_gc) * 1000:.0f} ms in all "
            f"({sum(g[3] for g in early_gc) * 1000:.0f} ms of CPU)"
        )
        early = [lag for when, lag in LAGS if 0 <= when - t0 <= 1.5]
        lines.append(
            f"loop lag over the crowd: max {max(lag for _, lag in LAGS):.1f} ms; first 1.5 s: "
            f"max {max(early, default=0):.1f} ms, sum {sum(early):.0f} ms over {len(early)} ticks"
        )
    for a, b in ((0, 0.3), (0.3, 0.6), (0.6, 0.9), (0.9, 1.2), (1.2, 1.5)):
        win = [c for c in CPU if a <= c[0] - t0 <= b]
        if len(win) > 1:
            w = win[-1][0] - win[0][0]
            lines.append(
                f"  {a:.1f}-{b:.1f}s: loop thread CPU {(win[-1][1] - win[0][1]) / w:.0%}, "
                f"process CPU {(win[-1][2] - win[0][2]) / w:.0%} of the wall"
            )
    lines.append(f"threads alive: {threading.active_count()}")
    return lines
