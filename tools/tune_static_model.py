"""Tune the static model end to end on the labelled queries: step three of the rule model.

After ``tools/build_rule_model.py`` and ``tools/distill_rule_model.py`` (needs torch, which the
project does not install). The distilled word-piece vectors only imitate the transformer; here
they are trained for the task itself, with the bot's own scoring: a text's vector is the sum of
its pieces' vectors, normalised; a passage scores the best cosine of its whole and its sentences
(``semantic.passage_text`` and ``semantic.sentence_texts``); the loss is a softmax over every
passage, the passages recomputed from the same vectors at each step (a passage that also answers
the query is not a negative). A penalty keeps the vectors near the distilled ones, so a piece
no training text uses keeps its meaning and the rest do not drift far from it.

Training data: ``tests/rulings/rulebook/rule_queries.toml`` (never the sealed batch) and any
``--extra`` file of the same format; ``--holdout SLICE`` leaves a slice out (the model was chosen
with ``--holdout train --extra`` a seeded three quarters of that slice, the rest measuring it).
Writes ``static.npz`` and ``vocab.txt`` to ``--out``, and ``passages.npz`` when ``--out`` is the
bundled folder.

Run: ``python tools/tune_static_model.py --init rulings/data/rule_model [--out DIR]``
"""

from __future__ import annotations

import argparse
import io
import random
import sys
import tomllib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
OUT = ROOT / "rulings" / "data" / "rule_model"


def say(*parts: object) -> None:
    """Progress on standard error."""
    sys.stderr.write(" ".join(str(p) for p in parts) + "\n")


def main() -> None:
    """Tune the model (see the module docstring)."""
    import torch  # type: ignore[import-not-found]

    from rulings.rulebook import semantic
    from rulings.rulebook.books import bundled_books, citation_slug, parse_books

    ap = argparse.ArgumentParser()
    ap.add_argument("--init", required=True, help="a folder with vocab.txt and static.npz")
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--extra", action="append", default=[], help="another query file")
    ap.add_argument("--holdout", default="", help="a slice left out of training, e.g. train")
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--anchor", type=float, default=1.0, help="pull towards the initial vectors")
    ap.add_argument("--scale", type=float, default=20.0, help="the softmax's inverse temperature")
    ap.add_argument("--seed", type=int, default=15)
    ap.add_argument("--name", default="minilm-l6-rules-static-tuned")
    args = ap.parse_args()
    random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(2)

    init = semantic.StaticModel.load(Path(args.init))
    tokenizer = init.tokenizer
    books = parse_books(bundled_books().items())
    passages = [p for book in books.values() for p in book.passages]
    rows: list[list[int]] = []
    owners: list[int] = []
    for i, p in enumerate(passages):
        for text in (semantic.passage_text(p), *semantic.sentence_texts(p)):
            rows.append(tokenizer.encode(text)[1:-1])
            owners.append(i)
    slugs = [{citation_slug(p.key), citation_slug(p.citation)} for p in passages]
    files = [ROOT / "tests" / "rulings" / "rulebook" / "rule_queries.toml"]
    files += [Path(extra) for extra in args.extra]
    pairs: list[tuple[list[int], list[int]]] = []
    for path in files:
        for q in tomllib.loads(path.read_text(encoding="utf-8"))["query"]:
            if args.holdout and q.get("slice") == args.holdout:
                continue
            wanted = {citation_slug(e) for e in q["expect"]}
            positives = [i for i, s in enumerate(slugs) if s & wanted]
            if positives:
                pairs.append((tokenizer.encode(str(q["q"]))[1:-1], positives))
    say(f"{len(pairs)} training queries, {len(passages)} passages, {len(rows)} texts")

    def bag(seqs: list[list[int]]) -> tuple[torch.Tensor, torch.Tensor]:
        flat = torch.tensor([i for s in seqs for i in s], dtype=torch.long)
        starts = np.cumsum([0] + [len(s) for s in seqs[:-1]])
        return flat, torch.tensor(starts, dtype=torch.long)

    initial = torch.tensor(init.vectors, dtype=torch.float32)
    weights = torch.nn.Parameter(initial.clone())

    def embed(flat: torch.Tensor, starts: torch.Tensor) -> torch.Tensor:
        summed = torch.nn.functional.embedding_bag(flat, weights, starts, mode="sum")
        return torch.nn.functional.normalize(summed, dim=1)

    passage_flat, passage_starts = bag(rows)
    owner = torch.tensor(owners)
    steps = args.epochs * ((len(pairs) + args.batch - 1) // args.batch)
    opt = torch.optim.Adam([weights], lr=args.lr)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: max(0.0, 1 - s / steps))
    for epoch in range(args.epochs):
        random.shuffle(pairs)
        total = 0.0
        for start in range(0, len(pairs), args.batch):
            chunk = pairs[start : start + args.batch]
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
            logits = (args.scale * best).masked_fill(mask, -1e4)
            loss = torch.nn.functional.cross_entropy(logits, torch.tensor(chosen))
            used = torch.unique(torch.cat([query_flat, passage_flat]))
            drift = ((weights[used] - initial[used]) ** 2).sum(1).mean()
            penalty = args.anchor * drift / (initial[used] ** 2).sum(1).mean()
            (loss + penalty).backward()
            opt.step()
            sched.step()
            opt.zero_grad()
            total += loss.item() * len(chunk)
        say(f"epoch {epoch} loss {total / len(pairs):.3f}")

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    vectors = weights.detach().numpy().astype(np.float16)
    np.savez_compressed(buffer, vectors=vectors, name=np.array(args.name))
    (out / "static.npz").write_bytes(buffer.getvalue())
    vocabulary = (Path(args.init) / "vocab.txt").read_text(encoding="utf-8")
    (out / "vocab.txt").write_text(vocabulary, encoding="utf-8")
    if out == OUT:
        model = semantic.StaticModel.bundled()
        (out / "passages.npz").write_bytes(semantic.cache_file(model, passages))
    say("wrote", out)


if __name__ == "__main__":
    main()
