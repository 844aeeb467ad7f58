"""Hand engine benchmark: our figures next to eval7 (compiled) and treys, measured in one run.

Run: ``.venv/bin/python benchmarks/hands.py`` (add ``--full-treys`` to time treys on every
pre-flop board instead of extrapolating from a tenth of them; ``--load N`` sets how many busy
processes load the machine for the loaded single-call figures, 0 to skip them; ``--single``
runs the single-call figures only).

Targets (issues 2 and 23):
1. single-call 7-card ``evaluate`` on 200,000 fixed hands: ratio to eval7 >= 1.0, with our
   own ``Card`` objects (what ``parse_cards`` returns) against eval7's ``Card`` objects, on a
   quiet machine and under load (``--load N`` busy processes that each walk 64 MB at random
   and spin the interpreter, started for the loaded rounds only: both evaluators run under
   the same load); the figure for plain card codes (0-51) is printed too;
2. exhaustive heads-up pre-flop equity: >= 10x faster than an eval7 evaluate-loop;
3. 9-player pre-flop exact equity < 0.25 s;
4. table build or load < 0.5 s and < 50 MB.
"""

from __future__ import annotations

import argparse
import itertools
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable, Sequence
from typing import Any

import eval7
import treys

HANDS = 200_000
HEADS_UP = ("As Ks", "Qh Qd")
NINE = ("As Ks", "Qh Qd", "Jc Tc", "9s 9d", "8h 7h", "Ad 2d", "Kc Qc", "5s 4s", "3h 3c")


def best_of(repeat: int, *fns: Callable[[], Any]) -> list[float]:
    """Best wall time of each function over ``repeat`` rounds, the functions taking turns
    within a round so that a busy machine slows them alike."""
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for fn, bucket in zip(fns, times, strict=True):
            start = time.perf_counter()
            fn()
            bucket.append(time.perf_counter() - start)
    return [min(bucket) for bucket in times]


def interleaved(
    rounds: int, chunk: int, named: Sequence[tuple[Callable[[Sequence[Any]], None], Sequence[Any]]]
) -> list[list[float]]:
    """Per-round CPU seconds of each function over its whole data set, taking turns chunk by chunk.

    Every ``chunk`` items each function runs once on its slice, starting with a different one
    each time, so a busy machine (or the one before it) slows them alike. The clock is this
    thread's CPU time: time spent waiting for a CPU is left out, time spent waiting for memory
    (what other processes' evictions cost) is in.
    """
    totals: list[list[float]] = [[] for _ in named]
    size = len(named[0][1])
    for _ in range(rounds):
        spent = [0.0] * len(named)
        for turn, start in enumerate(range(0, size, chunk)):
            for step in range(len(named)):
                i = (turn + step) % len(named)
                fn, data = named[i]
                part = data[start : start + chunk]
                begin = time.thread_time()
                fn(part)
                spent[i] += time.thread_time() - begin
        for bucket, seconds in zip(totals, spent, strict=True):
            bucket.append(seconds)
    return totals


def _busy(megabytes: int) -> None:
    """Load: walk a big array at random (evicting caches) and spin the interpreter, forever."""
    import numpy as np

    walk = np.ones(megabytes << 17, dtype=np.int64)
    rng = np.random.default_rng(os.getpid())
    while True:
        walk[rng.integers(0, len(walk), 1 << 16)] += 1
        spin = 0
        for i in range(20_000):
            spin += i * i


class Load:
    """``n`` busy processes (``_busy``) for the duration of a ``with`` block."""

    def __init__(self, n: int, megabytes: int = 64) -> None:
        self.processes = [
            multiprocessing.Process(target=_busy, args=(megabytes,), daemon=True) for _ in range(n)
        ]

    def __enter__(self) -> Load:
        for process in self.processes:
            process.start()
        time.sleep(0.5)  # let them allocate and get going
        return self

    def __exit__(self, *exc: object) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            process.join()


def line(label: str, ours: float, peer: float, peer_name: str, unit: str, better: str) -> None:
    """Print one figure: ours, the peer's, and the ratio (>1 means we are better)."""
    ratio = ours / peer if better == "higher" else peer / ours
    print(
        f"  {label:<44} ours {ours:>10.3f} {unit:<6} {peer_name} {peer:>10.3f} {unit:<6} "
        f"ratio {ratio:6.2f}"
    )


def import_time() -> float:
    """Seconds to import rulings.poker.hands (builds every evaluation table) in a fresh process."""
    code = (
        "import time, numpy; t = time.perf_counter(); import rulings.poker.hands; "
        "print(time.perf_counter() - t)"
    )
    runs = [
        float(
            subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, check=True
            ).stdout
        )
        for _ in range(3)
    ]
    return min(runs)


def single_call(rng: random.Random, load: int) -> None:
    from rulings.poker.cards import DECK
    from rulings.poker.hands import evaluate

    hands = [tuple(rng.sample(range(52), 7)) for _ in range(HANDS)]
    as_cards = [tuple(DECK[c] for c in h) for h in hands]
    e7 = [[eval7.Card(str(DECK[c])) for c in h] for h in hands]
    treys_cards = [[treys.Card.new(str(DECK[c])) for c in h] for h in hands]
    oracle = treys.Evaluator()

    def ours(part: Sequence[Any]) -> None:
        for h in part:
            evaluate(h)

    def peer_eval7(part: Sequence[Any]) -> None:
        for h in part:
            eval7.evaluate(h)

    def peer_treys() -> None:
        for h in treys_cards[:50_000]:
            oracle.evaluate(h[:2], h[2:])

    def rate(seconds: float) -> float:
        return HANDS / seconds / 1e6

    # Each peer gets its own card objects, as ours does (eval7.Card, treys' int cards).
    named: list[tuple[Callable[[Sequence[Any]], None], Sequence[Any]]] = [
        (ours, as_cards),
        (ours, hands),
        (peer_eval7, e7),
    ]
    print(f"1. single-call 7-card evaluate, {HANDS:,} fixed hands (M hands/s; target >= 1.0)")
    print("   CPU time per round, the three taking turns every 5,000 hands; best / median round")
    quiet_cards = 0.0
    for n in (0, load) if load else (0,):
        with Load(n):
            before = os.getloadavg()[0]
            t_cards, t_ints, t_e7 = interleaved(15 if n == 0 else 9, 5_000, named)
            after = os.getloadavg()[0]
        quiet_cards = quiet_cards or min(t_cards)
        what = "quiet" if n == 0 else f"under load ({n} busy processes)"
        print(f"   {what}: load average {before:.1f} before, {after:.1f} after")
        for label, ours_t in (("7 Card objects", t_cards), ("7 card codes", t_ints)):
            for how, pick in (("best", min), ("median", statistics.median)):
                line(
                    f"evaluate({label}), {how}",
                    rate(pick(ours_t)),
                    rate(pick(t_e7)),
                    "eval7",
                    "M/s",
                    "higher",
                )
            # Each round's two totals come from the same stretch of time: their ratio is
            # paired, so a slow stretch for both leaves it alone.
            paired = sorted(peer / mine for mine, peer in zip(ours_t, t_e7, strict=True))
            print(
                f"  {'  per-round ratios (eval7 time / ours)':<44} median "
                f"{statistics.median(paired):.2f}, range {paired[0]:.2f}-{paired[-1]:.2f}"
            )
    t_treys = best_of(1, peer_treys)[0] * HANDS / 50_000
    line(
        "evaluate(7 Card objects), quiet best",
        rate(quiet_cards),
        rate(t_treys),
        "treys",
        "M/s",
        "higher",
    )
    print("     (treys: wall time on the first 50,000 hands, quiet)")


def _eval7_loop(holes: Sequence[str], fraction: int = 1) -> float:
    """An eval7 evaluate-loop over every remaining board (or every ``fraction``-th)."""
    hole_cards = [[eval7.Card(c) for c in h.split()] for h in holes]
    used = {str(c) for h in hole_cards for c in h}
    deck = [eval7.Card(r + s) for r in "23456789TJQKA" for s in "shdc" if r + s not in used]
    start = time.perf_counter()
    for i, combo in enumerate(itertools.combinations(deck, 5)):
        if i % fraction:
            continue
        board = list(combo)
        max(eval7.evaluate(h + board) for h in hole_cards)
    return time.perf_counter() - start


def _treys_loop(holes: Sequence[str], fraction: int) -> float:
    oracle = treys.Evaluator()
    hole_cards = [[treys.Card.new(c) for c in h.split()] for h in holes]
    used = {c for h in holes for c in h.split()}
    deck = [treys.Card.new(r + s) for r in "23456789TJQKA" for s in "shdc" if r + s not in used]
    start = time.perf_counter()
    for i, combo in enumerate(itertools.combinations(deck, 5)):
        if i % fraction:
            continue
        board = list(combo)
        min(oracle.evaluate(board, h) for h in hole_cards)
    return (time.perf_counter() - start) * fraction


def equity_figures(full_treys: bool) -> None:
    from rulings.poker.cards import parse_cards
    from rulings.poker.equity import exact_equity

    heads_up = [parse_cards(h) for h in HEADS_UP]
    nine = [parse_cards(h) for h in NINE]
    start = time.perf_counter()
    first = exact_equity(heads_up)
    t_first = time.perf_counter() - start
    assert (first.wins[0], first.ties[0], first.wins[1]) == (787_966, 6_732, 917_606)
    t_ours = best_of(5, lambda: exact_equity(heads_up))[0]
    t_e7 = _eval7_loop(HEADS_UP)
    fraction = 1 if full_treys else 10
    t_treys = _treys_loop(HEADS_UP, fraction)
    print("2. exhaustive heads-up pre-flop equity, AsKs vs QhQd, 1,712,304 boards (s)")
    line("exact_equity() with the board table built", t_ours, t_e7, "eval7", "s", "lower")
    line("exact_equity() first call, building the table", t_first, t_e7, "eval7", "s", "lower")
    label = "treys" if full_treys else "treys~"
    line("exact_equity() with the board table built", t_ours, t_treys, label, "s", "lower")
    if not full_treys:
        print("     (treys~: timed on every 10th board, times 10)")
    t_nine = best_of(5, lambda: exact_equity(nine))[0]
    t_nine_e7 = _eval7_loop(NINE)
    print("3. 9-player pre-flop exact equity, 278,256 boards (s; target < 0.25 s)")
    line("exact_equity() for 9 players", t_nine, t_nine_e7, "eval7", "s", "lower")


def table_figures() -> None:
    t_import = import_time()
    code = (
        "import time, rulings.poker.hands; from rulings.poker.equity import board_table; "
        "t = time.perf_counter(); board_table(); print(time.perf_counter() - t)"
    )
    t_build = min(
        float(
            subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, check=True
            ).stdout
        )
        for _ in range(3)
    )
    code = (
        "import time, tracemalloc, numpy; tracemalloc.start(); import rulings.poker.hands as h; "
        "m1 = tracemalloc.get_traced_memory()[1]; tracemalloc.reset_peak(); "
        "from rulings.poker.equity import board_table; base = tracemalloc.get_traced_memory()[0]; "
        "t = time.perf_counter(); tb = board_table(); dt = time.perf_counter() - t; "
        "print(m1, dt, tb.nbytes, base, tracemalloc.get_traced_memory()[1] - base)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    eval_mb, _build_s, table_bytes, _base, peak = out.stdout.split()
    start = time.perf_counter()
    treys.Evaluator()
    t_treys = time.perf_counter() - start
    tracemalloc.start()
    treys.Evaluator()
    treys_mb = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    print("4. tables: build time (s; target < 0.5) and memory (MB; target < 50)")
    print("   peer: treys Evaluator() building its lookup tables (eval7 has none: compiled code)")
    figures = [
        ("evaluation tables: import rulings.poker.hands", t_import, t_treys, "s", 0.5),
        ("board table: build (first pre-flop equity)", t_build, t_treys, "s", 0.5),
        ("evaluation tables: peak traced memory", int(eval_mb) / 1e6, treys_mb, "MB", 50),
        ("board table: arrays kept", int(table_bytes) / 1e6, treys_mb, "MB", 50),
        ("board table: peak traced while building", int(peak) / 1e6, treys_mb, "MB", 50),
    ]
    for label, ours, peer, unit, target in figures:
        status = "met" if ours < target else "NOT met"
        print(
            f"  {label:<44} ours {ours:>10.3f} {unit:<6} treys {peer:>10.3f} {unit:<6} "
            f"target < {target} {unit}: {status}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full-treys", action="store_true", help="time treys on every board")
    parser.add_argument(
        "--load", type=int, default=2, help="busy processes for the loaded single-call figures"
    )
    parser.add_argument(
        "--single", action="store_true", help="only the single-call figures (target 1)"
    )
    args = parser.parse_args()
    rng = random.Random(20261129)
    print(f"pokerfloor hand engine benchmark (Python {sys.version.split()[0]})")
    single_call(rng, args.load)
    if not args.single:
        equity_figures(args.full_treys)
        table_figures()


if __name__ == "__main__":
    main()
