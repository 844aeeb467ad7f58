"""Build the cross-fitted rule models: K models, each blind to one part of the labelled queries.

The "does it answer" decision (``tools/fit_answers.py``) must be fitted on scores like those a
fresh question gets at run time. The shipped model was tuned on every labelled query of
``tests/rulings/rulebook/rule_queries.toml``, so its scores on them run higher than on any new
question. Here the queries are split into ``PARTS`` parts by a stable hash of their text
(``query_part``; part 0 is the quarter ``fit_answers`` holds out), and model ``k`` is built with
the project's own recipe (``tools/rebuild_rule_model.py``: the same base vectors, the same
``tune_static_model.tune`` and options) on every book and every labelled query but those of part
``k``. ``fit_answers --crossfit DIR`` then scores each part's queries with the model that never
saw them. Never a sealed batch: only ``rule_queries.toml`` is read.

    nice python tools/crossfit_models.py --out build/crossfit [--parts 0,1,2,3]

Each model is written to ``OUT/part-K/`` (``static.npz``, ``vocab.txt``) with a ``DONE`` file
holding how many queries it was tuned on; a part already done is skipped.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

PARTS = 4


def query_part(text: str, parts: int = PARTS) -> int:
    """The part of a labelled query: a hash of its text, stable across runs and machines."""
    return hashlib.sha1(text.encode("utf-8")).digest()[0] % parts


def without_part(queries: Sequence[dict[str, Any]], part: int) -> list[dict[str, Any]]:
    """The queries a model blind to ``part`` is tuned on."""
    return [q for q in queries if query_part(str(q["q"])) != part]


def build_part(out: Path, part: int, *, epochs: int = 2, anchor: float = 0.3) -> Path:
    """Build the model blind to ``part`` into ``out`` (the recipe of ``rebuild_rule_model``)."""
    from rebuild_rule_model import CACHE, NAME, base_folder, base_vectors, say
    from tune_static_model import load_queries, tune

    from rulings.rulebook import semantic
    from rulings.rulebook.books import bundled_books, parse_books

    folder = base_folder()
    vocabulary = (folder / "vocab.txt").read_text(encoding="utf-8")
    tokenizer = semantic.WordPiece(vocabulary.splitlines())
    books = parse_books(bundled_books().items())
    passages = [p for book in books.values() for p in book.passages]
    queries = without_part(load_queries(), part)
    vectors = base_vectors(folder, CACHE)
    vectors = tune(vectors, tokenizer, passages, queries, epochs=epochs, anchor=anchor)
    out.mkdir(parents=True, exist_ok=True)
    (out / "static.npz").write_bytes(semantic.model_file(vectors, f"{NAME}-tuned-part{part}"))
    (out / "vocab.txt").write_text(vocabulary, encoding="utf-8")
    (out / "DONE").write_text(f"{len(queries)} queries\n", encoding="utf-8")
    say("wrote", out)
    return out


def main() -> None:
    """Build the models (see the module docstring)."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    ap.add_argument("--out", type=Path, default=ROOT / "build" / "crossfit")
    ap.add_argument("--parts", default=",".join(str(k) for k in range(PARTS)))
    args = ap.parse_args()
    for part in (int(k) for k in args.parts.split(",")):
        folder = args.out / f"part-{part}"
        if not (folder / "DONE").exists():
            build_part(folder, part)


if __name__ == "__main__":
    main()
