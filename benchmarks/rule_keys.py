"""Dump what the rule search answers for every labelled query, to diff before and after a change.

For each query of ``tests/rulings/rulebook/rule_queries.toml`` (never the sealed batch): whether
it was found, its top-5 passage keys with their scores, the closest sections and the other
leagues' answers; then the autocomplete suggestions for the prefixes the benchmark times. A
change meant to leave the ranking alone must leave this output identical:

    .venv/bin/python benchmarks/rule_keys.py > /tmp/after.txt && diff /tmp/before.txt /tmp/after.txt

Scores are printed rounded as ``Match`` rounds them.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from rulings.rulebook.search import load_rulebooks

HERE = Path(__file__).resolve().parents[1] / "tests" / "rulings" / "rulebook"
QUERIES = HERE / "rule_queries.toml"


def main() -> None:
    index = load_rulebooks()
    texts = [str(q["q"]) for q in tomllib.loads(QUERIES.read_text(encoding="utf-8"))["query"]]
    for q in texts:
        r = index.search(q, limit=5)
        top = " | ".join(f"{m.key} {m.score}" for m in r.matches)
        closest = " | ".join(m.key for m in r.closest)
        others = " | ".join(m.key for m in r.other_leagues)
        print(f"{q!r} found={r.found} top5=[{top}] closest=[{closest}] others=[{others}]")
    prefixes = sorted({q[:n] for q in texts for n in (1, 3, 5, 8, 12, 20)})
    for p in prefixes:
        print(f"complete {p!r}: {[value for _, value in index.autocomplete(p)]}")


if __name__ == "__main__":
    main()
