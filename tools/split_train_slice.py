"""Split the labelled "train" slice into a training share and a held-out dev quarter.

The rule model was chosen this way (issue 15): a seeded split of the slice's queries,
stratified by writer and kind, three quarters to train on and a quarter to measure, whole queries
held out; a dev query typed exactly like a training query is dropped from the dev quarter. Writes
two query files of the labelled set's format: train the candidates with
``--holdout train --extra <train file>`` (``tools/build_rule_model.py``,
``tools/distill_rule_model.py``, ``tools/tune_static_model.py``) and measure them on the dev file.
The shipped model is then trained on the whole slice, so the dev figures are not a held-out
measure of what ships.

Run: ``python tools/split_train_slice.py --out DIR [--seed 1515]``
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tomllib
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
QUERIES = ROOT / "tests" / "rulings" / "rulebook" / "rule_queries.toml"


def dump(queries: list[dict[str, Any]], path: Path) -> None:
    """Write queries in the labelled set's TOML format."""
    lines: list[str] = []
    for q in queries:
        lines += [
            "[[query]]",
            f"q = {json.dumps(q['q'], ensure_ascii=False)}",
            f'kind = "{q["kind"]}"',
            f'writer = "{q["writer"]}"',
            "expect = [" + ", ".join(json.dumps(e, ensure_ascii=False) for e in q["expect"]) + "]",
            "",
        ]
    path.write_text("\n".join(lines), encoding="utf-8")


def main() -> None:
    """Split the slice (see the module docstring)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=1515)
    ap.add_argument("--share", type=float, default=0.25, help="the dev share of each stratum")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    queries = tomllib.loads(QUERIES.read_text(encoding="utf-8"))["query"]
    batch = [q for q in queries if q.get("slice") == "train"]
    train: list[dict[str, Any]] = []
    dev: list[dict[str, Any]] = []
    for writer in sorted({q["writer"] for q in batch}):
        groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for q in batch:
            if q["writer"] == writer:
                groups[q["kind"]].append(q)
        for kind in sorted(groups):
            group = groups[kind]
            rng.shuffle(group)
            held = round(len(group) * args.share)
            dev += group[:held]
            train += group[held:]
    seen = {str(q["q"]).strip().lower() for q in queries if q.get("slice") != "train"}
    seen |= {str(q["q"]).strip().lower() for q in train}
    dev = [q for q in dev if str(q["q"]).strip().lower() not in seen]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    dump(train, out / "train.toml")
    dump(dev, out / "dev.toml")
    sys.stderr.write(f"{len(train)} to train on, {len(dev)} held out\n")


if __name__ == "__main__":
    main()
