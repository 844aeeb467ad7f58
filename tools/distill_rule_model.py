"""Distil the adapted sentence model into the static model the bot ships.

Step two after ``tools/build_rule_model.py`` (needs torch and transformers, which the project
does not install). Writes ``rulings/data/rule_model/{vocab.txt,static.npz,passages.npz}``.

1. Every word piece of the vocabulary is run through the transformer alone (``[CLS] piece
   [SEP]``, mean-pooled): its static vector, as model2vec distils.
2. Those vectors are then fitted, by ridge regression towards them, so that the mean of a text's
   pieces reproduces the transformer's embedding of the text, over the books' passages and
   sentences and the training queries (the sealed batch is never read).
3. The vectors are reduced by PCA to ``--dims`` and stored as float16.

``--extra FILE`` adds another query file's queries to the fit (the ones the model was trained
with; never a held-out share).

Run: ``python tools/distill_rule_model.py --model DIR [--dims 256] [--ridge 1.0] [--extra FILE]``
"""

from __future__ import annotations

import argparse
import io
import sys
import tomllib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
OUT = ROOT / "rulings" / "data" / "rule_model"


def say(*parts: object, flush: bool = True) -> None:
    """Progress on standard error."""
    sys.stderr.write(" ".join(str(p) for p in parts) + "\n")


def main() -> None:
    """Build the model (see the module docstring)."""
    import torch  # type: ignore[import-not-found]
    from transformers import AutoModel  # type: ignore[import-not-found]

    from rulings.rulebook import semantic
    from rulings.rulebook.books import bundled_books, parse_books

    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--dims", type=int, default=256)
    ap.add_argument("--ridge", type=float, default=1.0)
    ap.add_argument("--name", default="minilm-l6-rules-static")
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--extra", action="append", default=[], help="another query file")
    ap.add_argument("--holdout", default="", help="a slice left out of the fit, e.g. train")
    args = ap.parse_args()
    torch.set_num_threads(2)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    vocabulary = (Path(args.model) / "vocab.txt").read_text(encoding="utf-8").splitlines()
    tokenizer = semantic.WordPiece(vocabulary)
    model = AutoModel.from_pretrained(args.model).eval()

    def encode(batch: list[list[int]]) -> np.ndarray:
        width = max(len(ids) for ids in batch)
        ids = torch.zeros((len(batch), width), dtype=torch.long)
        mask = torch.zeros((len(batch), width), dtype=torch.long)
        for row, seq in enumerate(batch):
            ids[row, : len(seq)] = torch.tensor(seq)
            mask[row, : len(seq)] = 1
        with torch.no_grad():
            hidden = model(input_ids=ids, attention_mask=mask).last_hidden_state
        m = mask.unsqueeze(-1).float()
        pooled = (hidden * m).sum(1) / m.sum(1)
        out: np.ndarray = torch.nn.functional.normalize(pooled, dim=1).numpy()
        return out

    # 1. one vector per word piece
    pieces = [[tokenizer.start, i, tokenizer.end] for i in range(len(vocabulary))]
    cached = Path(args.model) / "pieces.npy"
    if cached.exists():
        base = np.load(cached)
    else:
        base = np.concatenate([encode(pieces[s : s + 512]) for s in range(0, len(pieces), 512)])
        np.save(cached, base)
    say("pieces embedded", base.shape, flush=True)

    # 2. fit: mean of a text's pieces ~ the transformer's embedding of the text
    books = parse_books(bundled_books().items())
    passages = [p for book in books.values() for p in book.passages]
    texts = sorted(
        {t for p in passages for t in (semantic.passage_text(p), *semantic.sentence_texts(p))}
    )
    queries = tomllib.loads(
        (ROOT / "tests" / "rulings" / "rulebook" / "rule_queries.toml").read_text("utf-8")
    )["query"]
    for extra in args.extra:
        queries += tomllib.loads(Path(extra).read_text(encoding="utf-8"))["query"]
    texts += sorted(
        {str(q["q"]) for q in queries if not args.holdout or q.get("slice") != args.holdout}
    )
    encoded = [tokenizer.encode(t) for t in texts]
    stored = Path(args.model) / f"targets-{len(texts)}.npy"
    if stored.exists():
        targets = np.load(stored)
    else:
        targets = np.concatenate([encode(encoded[s : s + 32]) for s in range(0, len(encoded), 32)])
        np.save(stored, targets)
    say("texts embedded", targets.shape, flush=True)
    used = sorted({i for ids in encoded for i in ids[1:-1]})
    column = {piece: n for n, piece in enumerate(used)}
    x = np.zeros((len(texts), len(used)), dtype=np.float64)
    for row, ids in enumerate(encoded):
        inner = ids[1:-1]
        for piece in inner:
            x[row, column[piece]] += 1.0 / len(inner)
    prior = base[used].astype(np.float64)
    lhs = x.T @ x + args.ridge * np.eye(len(used))
    rhs = x.T @ targets + args.ridge * prior
    fitted = base.astype(np.float64).copy()
    fitted[used] = np.linalg.solve(lhs, rhs)
    say("fitted", len(used), "pieces", flush=True)

    # 3. PCA to fewer dimensions
    mean = fitted[used].mean(axis=0)
    _, _, vt = np.linalg.svd(fitted[used] - mean, full_matrices=False)
    vectors = ((fitted - mean) @ vt[: args.dims].T).astype(np.float16)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, vectors=vectors, name=np.array(args.name))
    (out / "static.npz").write_bytes(buffer.getvalue())
    (out / "vocab.txt").write_text("\n".join(vocabulary) + "\n", encoding="utf-8")
    static = semantic.StaticModel.bundled() if out == OUT else None
    if static is not None:
        (out / "passages.npz").write_bytes(semantic.cache_file(static, passages))
    say("wrote", out, flush=True)


if __name__ == "__main__":
    main()
