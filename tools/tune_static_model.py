"""Tune the static model end to end on the labelled queries: the rule model's training step.

``tools/rebuild_rule_model.py`` calls ``tune`` (the one documented way to rebuild the model);
this command runs the step alone from any folder holding ``vocab.txt`` and ``static.npz``. The
starting vectors only imitate a transformer; here they are trained for the task itself, with the
bot's own scoring: a text's vector is the sum of its pieces' vectors, normalised; a passage
scores the best cosine of its whole and its sentences (``semantic.passage_text`` and
``semantic.sentence_texts``); the loss is a softmax over every passage, the passages recomputed
from the same vectors at each step (a passage that also answers the query is not a negative). A
penalty keeps the vectors near the starting ones, so a piece no training text uses keeps its
meaning and the rest do not drift far from it.

Training data: ``tests/rulings/rulebook/rule_queries.toml`` (never the sealed batches, which no
training query duplicates) and any ``--extra`` file of the same format; ``--holdout SLICE``
leaves a slice out; ``--without-book BOOK`` leaves out that book's passages and every query any
of whose answers lies in it (a leave-one-book-out fold).

Run: ``python tools/tune_static_model.py --init DIR --out DIR [--without-book BOOK]``
"""

from __future__ import annotations

import argparse
import random
import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
QUERIES = ROOT / "tests" / "rulings" / "rulebook" / "rule_queries.toml"


def say(*parts: object) -> None:
    """Progress on standard error."""
    sys.stderr.write(" ".join(str(p) for p in parts) + "\n")


def load_queries(extra: Sequence[Path] = (), holdout: str = "") -> list[dict[str, Any]]:
    """The labelled training queries (never the sealed batches), less a held-out slice."""
    out: list[dict[str, Any]] = []
    for path in (QUERIES, *extra):
        for q in tomllib.loads(path.read_text(encoding="utf-8"))["query"]:
            if not holdout or q.get("slice") != holdout:
                out.append(q)
    return out


def answer_book(expected: str) -> str:
    """The book of an answer key ("book section [part]")."""
    return expected.split(" ", 1)[0]


def tune(
    initial_vectors: np.ndarray,
    tokenizer: Any,
    passages: Sequence[Any],
    queries: Sequence[dict[str, Any]],
    *,
    epochs: int = 2,
    batch: int = 256,
    lr: float = 0.1,
    anchor: float = 0.3,
    scale: float = 20.0,
    seed: int = 15,
    threads: int = 1,
) -> np.ndarray:
    """The piece vectors trained on ``queries`` against ``passages`` (float32)."""
    import torch  # type: ignore[import-not-found]

    from rulings.rulebook import semantic
    from rulings.rulebook.books import citation_slug

    random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    rows: list[list[int]] = []
    owners: list[int] = []
    for i, p in enumerate(passages):
        for text in (semantic.passage_text(p), *semantic.sentence_texts(p)):
            rows.append(tokenizer.encode(text)[1:-1])
            owners.append(i)
    slugs = [{citation_slug(p.key), citation_slug(p.citation)} for p in passages]
    pairs: list[tuple[list[int], list[int]]] = []
    for q in queries:
        wanted = {citation_slug(e) for e in q["expect"]}
        positives = [i for i, s in enumerate(slugs) if s & wanted]
        if positives:
            pairs.append((tokenizer.encode(str(q["q"]))[1:-1], positives))
    say(f"{len(pairs)} training queries, {len(passages)} passages, {len(rows)} texts")
    # Only the pieces some text uses can move (the others get no gradient): train those rows
    # alone, renumbered, and put them back at the end (the same result, a fraction of the work).
    used_ids = sorted({i for r in rows for i in r} | {i for q, _ in pairs for i in q})
    compact = {piece: n for n, piece in enumerate(used_ids)}
    rows = [[compact[i] for i in r] for r in rows]
    pairs = [([compact[i] for i in q], pos) for q, pos in pairs]

    def bag(seqs: list[list[int]]) -> tuple[Any, Any]:
        flat = torch.tensor([i for s in seqs for i in s], dtype=torch.long)
        starts = np.cumsum([0] + [len(s) for s in seqs[:-1]])
        return flat, torch.tensor(starts, dtype=torch.long)

    full = np.asarray(initial_vectors, dtype=np.float32)
    initial = torch.tensor(full[used_ids])
    weights = torch.nn.Parameter(initial.clone())

    def embed(flat: Any, starts: Any) -> Any:
        summed = torch.nn.functional.embedding_bag(flat, weights, starts, mode="sum")
        return torch.nn.functional.normalize(summed, dim=1)

    passage_flat, passage_starts = bag(rows)
    owner = torch.tensor(owners)
    steps = max(1, epochs * ((len(pairs) + batch - 1) // batch))
    opt = torch.optim.Adam([weights], lr=lr)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: max(0.0, 1 - s / steps))
    for epoch in range(epochs):
        random.shuffle(pairs)
        total = 0.0
        for start in range(0, len(pairs), batch):
            chunk = pairs[start : start + batch]
            chosen = [random.choice(pos) for _, pos in chunk]
            query_flat, query_starts = bag([q for q, _ in chunk])
            sims = embed(query_flat, query_starts) @ embed(passage_flat, passage_starts).T
            # a passage scores the best of its whole and its sentences, as in the bot
            best = torch.full((len(chunk), len(passages)), -2.0).scatter_reduce(
                1, owner.expand(len(chunk), -1), sims, reduce="amax"
            )
            mask = torch.zeros_like(best, dtype=torch.bool)
            for r, ((_, pos), c) in enumerate(zip(chunk, chosen, strict=True)):
                for other in pos:
                    mask[r, other] = other != c
            logits = (scale * best).masked_fill(mask, -1e4)
            loss = torch.nn.functional.cross_entropy(logits, torch.tensor(chosen))
            used = torch.unique(torch.cat([query_flat, passage_flat]))
            drift = ((weights[used] - initial[used]) ** 2).sum(1).mean()
            penalty = anchor * drift / (initial[used] ** 2).sum(1).mean()
            (loss + penalty).backward()
            opt.step()
            sched.step()
            opt.zero_grad()
            total += loss.item() * len(chunk)
        say(f"epoch {epoch} loss {total / max(1, len(pairs)):.3f}")
    tuned = full.copy()
    tuned[used_ids] = weights.detach().numpy()
    return tuned


def fold(
    passages: Sequence[Any], queries: Sequence[dict[str, Any]], without_book: str
) -> tuple[list[Any], list[dict[str, Any]]]:
    """The passages and queries a model may see when ``without_book`` is to be unseen."""
    if not without_book:
        return list(passages), list(queries)
    kept = [p for p in passages if p.book != without_book]
    asked = [q for q in queries if all(answer_book(e) != without_book for e in q["expect"])]
    return kept, asked


def main() -> None:
    """Tune a model (see the module docstring)."""
    from rulings.rulebook import semantic
    from rulings.rulebook.books import bundled_books, parse_books

    ap = argparse.ArgumentParser()
    ap.add_argument("--init", required=True, help="a folder with vocab.txt and static.npz")
    ap.add_argument("--out", required=True)
    ap.add_argument("--extra", action="append", default=[], help="another query file")
    ap.add_argument("--holdout", default="", help="a slice left out of training, e.g. train")
    ap.add_argument("--without-book", default="", help="a book left unseen (its queries too)")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--anchor", type=float, default=0.3, help="pull towards the initial vectors")
    ap.add_argument("--name", default="minilm-l6-rules-static-tuned")
    args = ap.parse_args()

    init = semantic.StaticModel.load(Path(args.init))
    books = parse_books(bundled_books().items())
    everything = [p for book in books.values() for p in book.passages]
    queries = load_queries([Path(e) for e in args.extra], args.holdout)
    passages, asked = fold(everything, queries, args.without_book)
    vectors = tune(
        init.vectors, init.tokenizer, passages, asked, epochs=args.epochs, anchor=args.anchor
    )
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "static.npz").write_bytes(semantic.model_file(vectors, args.name))
    vocabulary = (Path(args.init) / "vocab.txt").read_text(encoding="utf-8")
    (out / "vocab.txt").write_text(vocabulary, encoding="utf-8")
    say("wrote", out)


if __name__ == "__main__":
    main()
