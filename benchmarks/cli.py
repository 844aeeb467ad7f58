"""Command-line start-up: whole processes, next to a bare ``python -c "import numpy"`` run alike.

Run: ``.venv/bin/python -m benchmarks.cli [--rounds N] [--before DIR]``; ``--before`` also times
another checkout of the project (e.g. a ``git worktree`` of main) in the same rounds, each
command beside its ``before`` run, for before/after figures from one session.

Targets (issue 10, point 6; issue 18), each as a ratio of wall time to the peer measured in the
same run:

* ``pokerfloor --help`` <= 1.5x;
* ``pokerfloor hand "As Ks Qs Js Ts"`` <= 2.5x;
* ``pokerfloor hand "As Ks vs Qh Qd"`` <= 2.5x (pre-flop: every board counted);
* ``pokerfloor rule "oversized chip"`` <= 4x.

Every process starts the same way (the venv's interpreter, one fresh working directory that
holds a league database, ``pokerfloor.db`` made by ``pokerfloor td season add "2026 Fall"``
before the clock starts, no ``DISCORD_*``/``DATABASE_URL`` in the environment, and
``PYTHONDONTWRITEBYTECODE`` dropped so ``.pyc`` files are written as on any machine). The
commands take turns within each round so a busy machine slows them alike; the figure is the
median over the rounds (the best round is printed too). The warm-up run writes what a first run
writes on any machine (``.pyc`` files, the rulebook index cache of
``bot.surfaces.cli.rulebook_cache``).

Issue 18, before and after (medians of 15 rounds on a shared 2-core machine under load, in
seconds, each beside the peer of its own run):

=================================  ====================  ====================
command                            before (bd961e0)      after
=================================  ====================  ====================
peer: python -c 'import numpy'     0.377                 0.418
pokerfloor --help                  0.237 (0.63x)         0.301 (0.72x)
pokerfloor hand "As Ks Qs Js Ts"   3.396 (9.00x)         0.841 (2.01x)
pokerfloor hand "As Ks vs Qh Qd"   4.423 (11.73x)        1.019 (2.44x)
pokerfloor rule "oversized chip"   1.532 (4.06x)         1.691 (4.05x)
=================================  ====================  ====================

Where the time went: the hand command opened the league database through storage to read the
league's rules (SQLAlchemy, sqlmodel and Alembic imported, the schema checked), now read with
``sqlite3`` by ``storage.light`` when the database is a SQLite file at the newest migration;
and pre-flop equity built a 32 MB table of all 2,598,960 boards in every process, where it now
counts about 150,000 groups of boards that every player values alike
(``rulings.poker.equity._equity_grouped``).

Then, timed with ``--before`` (main at 5da99dd) in the same rounds, load average about 8 (ratios
to the peer, 0.416 s): ``--help`` 0.79x -> 0.68x, ``hand "As Ks Qs Js Ts"`` 2.46x -> 1.76x,
``hand "As Ks vs Qh Qd"`` 2.62x -> 1.92x, ``rule "oversized chip"`` 3.94x -> 3.25x: ``import
rulings`` loads no clock, league or tournament module it is not asked for, the parser holds
the given command's sub-commands only, and a one-shot command runs without the cyclic garbage
collector (docs/development.md has both runs and the CPU times).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

PEER = ("peer: python -c 'import numpy'", [sys.executable, "-c", "import numpy"])
COMMANDS = (
    ("pokerfloor --help", ["--help"], 1.5),
    ('pokerfloor hand "As Ks Qs Js Ts"', ["hand", "As Ks Qs Js Ts"], 2.5),
    ('pokerfloor hand "As Ks vs Qh Qd"', ["hand", "As Ks vs Qh Qd"], 2.5),
    ('pokerfloor rule "oversized chip"', ["rule", "oversized chip"], 4.0),
)


def _run(argv: list[str], cwd: str, env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{argv} failed ({done.returncode}): {done.stderr.decode()[-500:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--before", metavar="DIR", help="another checkout, timed alongside")
    args = parser.parse_args()
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("DISCORD_")
        and k not in ("DATABASE_URL", "RULEBOOK_DIR", "PYTHONDONTWRITEBYTECODE")
    }
    pokerfloor = [sys.executable, "-m", "bot"]
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    trees = {"": here} | ({"before: ": os.path.abspath(args.before)} if args.before else {})
    # Every process, the peer's too, finds the code on the same PYTHONPATH (one checkout).
    runs: list[tuple[str, list[str], dict[str, str]]] = [
        (PEER[0], PEER[1], {**env, "PYTHONPATH": here})
    ]
    for name, argv, _ in COMMANDS:
        for label, tree in trees.items():
            runs.append((label + name, [*pokerfloor, *argv], {**env, "PYTHONPATH": tree}))
    times: dict[str, list[float]] = {name: [] for name, _, _ in runs}
    with tempfile.TemporaryDirectory() as cwd:
        league = [*pokerfloor, "td", "season", "add", "2026 Fall"]
        _run(league, cwd, {**env, "PYTHONPATH": here})  # the league database
        for _name, argv, run_env in runs:  # warm the file cache (and write .pyc files) once
            _run(argv, cwd, run_env)
        for _ in range(args.rounds):
            for name, argv, run_env in runs:
                times[name].append(_run(argv, cwd, run_env))
    peer = statistics.median(times[PEER[0]])
    print(
        f"{args.rounds} rounds, medians (best) in seconds; the machine is shared; load average"
        f" at the end {' '.join(f'{x:.1f}' for x in os.getloadavg())}"
    )
    print(f"{PEER[0]:48} {peer:6.3f} ({min(times[PEER[0]]):.3f})")
    failed = []
    for name, target in [(label + n, t) for n, _, t in COMMANDS for label in trees]:
        median = statistics.median(times[name])
        ratio = median / peer
        met = "ok" if ratio <= target else "MISSED"
        if ratio > target and not name.startswith("before"):
            failed.append(name)
        print(
            f"{name:48} {median:6.3f} ({min(times[name]):.3f})  ratio {ratio:4.2f}"
            f"  target <= {target}  {met}"
        )
    if failed:
        print("targets missed: " + ", ".join(failed))


if __name__ == "__main__":
    main()
