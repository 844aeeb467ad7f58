"""What tells a question the league's books have no rule on from one they answer.

The ranking is trained to put some passage first, so its scores and margins say little about
whether any passage answers. These signals are read off the books themselves, so they carry
over to a book the model never saw (a league brings its own):

- how many of the query's content words the books use at all ("parking", "wifi", "weather":
  an out-of-scope question uses words no rule uses);
- how much of the query's weight (inverse document frequency; a word no book uses weighs most)
  the passage that covers most of it holds;
- whether the query names the books' topics: a word of their headings or titles;
- the best passage's meaning score measured against the same query's scores over every
  passage (a z-score), and against what the books' own headings score on their passages, so
  the scale of the league's book and model does not matter.

Pure: numpy and the search's own word handling; computed once per index (``ScopeBasis``) and
per query (``scope_signals``).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from rulings.rulebook.books import Passage
from rulings.rulebook.lexical import LexicalIndex
from rulings.rulebook.normalise import CHATTY, is_stop, stem, surface_words
from rulings.rulebook.semantic import SemanticIndex


@dataclass(frozen=True)
class ScopeSignals:
    """What the books say about a query's scope, each comparable across books.

    Attributes:
        known_share: the share of the query's content words that the books (or the glossary)
            use, 0 to 1 (1 for a query with no content word).
        unknown_words: how many content words no book or glossary uses (at most 3).
        idf_cover: the largest share of the query's weight one passage holds, 0 to 1; a
            word no book uses weighs as the rarest word does.
        own_words: how many of the query's words name the books' topics (at most 3).
        cosine_z: the best passage's meaning score in standard deviations above the mean of
            the query's scores over every passage searched.
        cosine_vs_headings: the best meaning score less the median score of the books' own
            headings against their passage (the best passage's book's median).
        phrase_share: the share of the query's neighbouring content words that some book writes
            side by side (0 with fewer than two content words).
        expanded_cover: ``idf_cover`` over the search's own terms (after spelling and glossary,
            each at its weight).
    """

    known_share: float
    unknown_words: float
    idf_cover: float
    own_words: float
    cosine_z: float
    cosine_vs_headings: float
    phrase_share: float
    expanded_cover: float


@dataclass(frozen=True)
class ScopeBasis:
    """What the signals need from the books, worked out once per index.

    Attributes:
        known: every stemmed word the books or the glossary write.
        idf: each indexed term's inverse document frequency.
        postings: each term's passages (their positions in the index).
        own: the books' topic words: every content word of their headings and titles.
        pairs: every pair of terms some passage writes side by side.
        heading_cosine: for each passage, the median meaning score of its book's headings
            against their own passages (each book on its own scale).
    """

    known: frozenset[str]
    idf: Mapping[str, float]
    postings: Mapping[str, tuple[int, ...]]
    own: frozenset[str]
    heading_cosine: np.ndarray
    pairs: frozenset[tuple[str, str]]


def build_basis(
    idf: Mapping[str, float],
    postings: Mapping[str, Sequence[tuple[int, float]]],
    pairs: frozenset[tuple[str, str]],
    glossary_words: frozenset[str],
    passages: Sequence[Passage],
    heading_cosine: np.ndarray,
) -> ScopeBasis:
    """The basis over an index's terms (``postings`` as the lexical index keeps them)."""
    texts = {h for p in passages for h in (*p.headings, p.title)}
    topics = {w for text in texts for w in content_stems(text)}
    return ScopeBasis(
        known=frozenset(idf) | glossary_words,
        idf=idf,
        postings={t: tuple(i for i, _ in found) for t, found in postings.items()},
        own=frozenset(topics),
        heading_cosine=heading_cosine,
        pairs=pairs,
    )


def basis_for(
    lexical: LexicalIndex,
    glossary_words: frozenset[str],
    passages: Sequence[Passage],
    semantic: SemanticIndex | None,
) -> ScopeBasis:
    """The basis of an index: its terms, and its headings' meaning scores (one per passage)."""
    own = np.zeros(len(passages), dtype=np.float64)
    if semantic is not None:
        own = semantic.own_scores([p.title for p in passages]).astype(np.float64)
    return build_basis(
        lexical.idf,
        lexical.postings,
        frozenset(lexical.beside),
        glossary_words,
        passages,
        heading_cosines(passages, own),
    )


def content_stems(text: str) -> list[str]:
    """The query's content words as typed, stemmed: no stop word, table talk or number."""
    return [
        stem(w)
        for w in surface_words(text)
        if not is_stop(w) and w not in CHATTY and not w.isdigit() and len(w) >= 2
    ]


def heading_cosines(passages: Sequence[Passage], own: np.ndarray) -> np.ndarray:
    """Each passage's book's median of its headings' meaning scores against their passages.

    Args:
        passages: the index's passages.
        own: for each passage, its heading's meaning score against that passage.
    """
    books = np.array([p.book for p in passages])
    out = np.zeros(len(passages), dtype=np.float64)
    for book in set(books.tolist()):
        mask = books == book
        out[mask] = float(np.median(own[mask]))
    return out


def _cover(basis: ScopeBasis, weight: Mapping[str, float], allowed: np.ndarray | None) -> float:
    """The largest share of ``weight`` one passage searched holds."""
    total = sum(weight.values())
    held: dict[int, float] = {}
    for w, value in weight.items():
        for i in basis.postings.get(w, ()):
            if allowed is None or allowed[i]:
                held[i] = held.get(i, 0.0) + value
    return max(held.values(), default=0.0) / total if total else 1.0


def scope_signals(
    basis: ScopeBasis,
    text: str,
    terms: Mapping[str, float],
    meaning: np.ndarray | None,
    allowed: np.ndarray | None,
) -> ScopeSignals:
    """The scope signals of a query.

    Args:
        basis: the index's basis.
        text: the query as searched.
        terms: the search's weighted terms for it (``RuleIndex.query_terms``).
        meaning: the query's meaning score for every passage (None without the semantic tier).
        allowed: which passages were searched (None: all).
    """
    words = content_stems(text)
    known = [w for w in words if w in basis.known]
    share = len(known) / len(words) if words else 1.0
    rarest = max(basis.idf.values(), default=1.0)
    cover = _cover(basis, {w: basis.idf.get(w, rarest) for w in dict.fromkeys(words)}, allowed)
    expanded = _cover(basis, {t: w * basis.idf.get(t, rarest) for t, w in terms.items()}, allowed)
    pairs = list(itertools.pairwise(words))
    written = sum((a, b) in basis.pairs or (b, a) in basis.pairs for a, b in pairs)
    z = 0.0
    versus = 0.0
    if meaning is not None and meaning.size:
        scores = meaning if allowed is None else np.where(allowed, meaning, -np.inf)
        top = int(np.argmax(scores))
        searched = meaning if allowed is None else meaning[allowed]
        if searched.size:
            best = float(meaning[top])
            spread = float(searched.std())
            z = (best - float(searched.mean())) / spread if spread > 0 else 0.0
            versus = best - float(basis.heading_cosine[top])
    return ScopeSignals(
        known_share=share,
        unknown_words=float(min(3, len(words) - len(known))),
        idf_cover=cover,
        own_words=float(min(3, sum(w in basis.own for w in dict.fromkeys(words)))),
        cosine_z=z,
        cosine_vs_headings=versus,
        phrase_share=written / len(pairs) if pairs else 0.0,
        expanded_cover=expanded,
    )
