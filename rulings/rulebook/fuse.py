"""Fuse the lexical ranking with the semantic scores into one ranking.

A passage's fused score is ``w * lexical / best lexical + (1 - w) * cosine``: the lexical score
scaled so the best passage has 1 (0 for a passage the lexical ranker did not find), the cosine
of its embedding with the query's. The weight ``w`` (one a passage when the league's own book
is one the model was never tuned on: ``unseen_lexical_share`` there) comes from
``rulings/data/search_weights.toml``, re-fitted with the second model on the held-out quarter of
the labelled "train" slice (never on the sealed batch), beside reciprocal-rank fusion, which
measured worse (benchmarks/rules.py keeps both).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def fuse(
    lexical: Sequence[tuple[float, int, float]],
    cosines: np.ndarray,
    allowed: np.ndarray,
    weight: float | np.ndarray,
    depth: int,
) -> list[tuple[float, int, float]]:
    """``(fused score, passage, coverage)``, best first.

    Args:
        lexical: the lexical ranker's ``(score, passage, coverage)``, best first.
        cosines: the semantic score of every passage.
        allowed: a boolean mask of the passages in the books searched.
        weight: the lexical ranker's share, 0 to 1; or one a passage (an array), larger on the
            league's own book's passages the model was never tuned on.
        depth: how many of the semantic ranking's best join the candidates.

    Returns:
        The candidates (lexical ones and the semantic best), fused, best first; coverage is the
        lexical coverage (0 for a passage only the semantic tier found).
    """
    top = lexical[0][0] if lexical else 0.0
    shares = weight if isinstance(weight, np.ndarray) else np.full(len(cosines), weight)
    fused: dict[int, list[float]] = {}
    for score, i, coverage in lexical:
        lex = score / top if top > 0 else 0.0
        w = float(shares[i])
        fused[i] = [w * lex + (1 - w) * float(cosines[i]), coverage]
    masked = np.where(allowed, cosines, -np.inf)
    for i in np.argsort(-masked, kind="stable")[:depth]:
        i = int(i)
        if allowed[i] and i not in fused:
            w = float(shares[i])
            fused[i] = [(1 - w) * float(cosines[i]), 0.0]
    out = [(s, i, c) for i, (s, c) in fused.items()]
    out.sort(key=lambda item: (-item[0], item[1]))
    return out


def reciprocal_rank(
    lexical: Sequence[tuple[float, int, float]],
    cosines: np.ndarray,
    allowed: np.ndarray,
    k: float,
    depth: int,
) -> list[tuple[float, int, float]]:
    """Reciprocal-rank fusion of the two rankings (the candidate it was measured against)."""
    fused: dict[int, list[float]] = {}
    for rank, (_, i, coverage) in enumerate(lexical[:depth]):
        fused[i] = [1 / (k + rank + 1), coverage]
    masked = np.where(allowed, cosines, -np.inf)
    for rank, i in enumerate(np.argsort(-masked, kind="stable")[:depth]):
        i = int(i)
        if allowed[i]:
            fused.setdefault(i, [0.0, 0.0])[0] += 1 / (k + rank + 1)
    out = [(s, i, c) for i, (s, c) in fused.items()]
    out.sort(key=lambda item: (-item[0], item[1]))
    return out
