"""Drop from the training queries every exact or near duplicate of a sealed query.

The sealed batches (``tests/rulings/rulebook/sealed_queries.toml``) measure the search on
queries it was never trained on; a training query in ``rule_queries.toml`` that is the same
question typed alike (``tests/rulings/rulebook/overlap.py``: equal normalised text, or word sets
with a Jaccard similarity of 0.8 or more) would let the model learn the answer. This removes such
queries from the training file, keeping every other line as it is, and prints only counts: no
sealed query is shown. The suite's ``test_sealed_queries_are_disjoint_from_training`` then holds.

Run: ``python tools/drop_sealed_duplicates.py``
"""

from __future__ import annotations

import sys
import tomllib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
HERE = ROOT / "tests" / "rulings" / "rulebook"


def main() -> None:
    """Rewrite ``rule_queries.toml`` without the sealed batches' near duplicates."""
    from tests.rulings.rulebook.overlap import near_duplicates

    path = HERE / "rule_queries.toml"
    text = path.read_text(encoding="utf-8")
    training = tomllib.loads(text)["query"]
    sealed = tomllib.loads((HERE / "sealed_queries.toml").read_text(encoding="utf-8"))["query"]
    drop = set(near_duplicates([str(q["q"]) for q in training], [str(q["q"]) for q in sealed]))
    lines = text.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.strip() == "[[query]]"]
    assert len(starts) == len(training), "one [[query]] line per query"
    removed: set[int] = set()
    for n in sorted(drop):
        start = starts[n]
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        # the block's own lines; comments after its last key introduce the next block
        last = max(
            i for i in range(start, end) if lines[i].strip() and not lines[i].startswith("#")
        )
        stop = last + 1
        if stop < len(lines) and not lines[stop].strip():
            stop += 1
        removed.update(range(start, stop))
    path.write_text("".join(x for i, x in enumerate(lines) if i not in removed), encoding="utf-8")
    kept = tomllib.loads(path.read_text(encoding="utf-8"))["query"]
    assert len(kept) == len(training) - len(drop)
    slices = Counter(str(training[n].get("slice", "dev")) for n in drop)
    counts = dict(sorted(slices.items()))
    sys.stdout.write(f"dropped {len(drop)} of {len(training)} training queries: {counts}\n")


if __name__ == "__main__":
    main()
