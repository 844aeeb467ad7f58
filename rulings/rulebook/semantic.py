"""Semantic score: a sentence embedding of the query against every passage's.

The model is static embeddings (one vector per word piece) computed from all-MiniLM-L6-v2
(Apache-2.0; see NOTICE) and trained end to end with this module's own scoring on the labelled
queries: ``python tools/rebuild_rule_model.py`` rebuilds it into ``rulings/data/rule_model/``
(see its README). At run time a text is tokenised (BERT's WordPiece, written here), its pieces'
vectors summed and normalised: numpy only, no download, a fraction of a millisecond a query.

A passage is embedded with its headings and, for a table row, its table's title and introducing
sentence; a long passage also by each of its sentences (under its title), and scores the best of
its whole and its sentences, so one sentence that answers is not drowned by the rest.

Passage vectors are cached by the text embedded (a hash of the model and the text): the bundled
books' are shipped beside the model, a book from ``RULEBOOK_DIR`` is embedded at start-up (or
first use) and kept for the process, so it is embedded once whatever index is built over it;
nothing is retrained: a new book is searched with the same model as the bundled ones. Such a
passage is "unseen" (``SemanticIndex.seen``: the model was never tuned on its text); in the
league's own book the fusion gives the lexical ranker more weight on it and lifts its cosine
(``search_weights.toml``'s ``unseen_lexical_share`` and ``unseen_cosine_lift``).
"""

from __future__ import annotations

import hashlib
import io
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Protocol

import numpy as np

from rulings.rulebook.books import Passage

MODEL_DIR = ("data", "rule_model")
_MAX_PIECES = 256
_MAX_WORD_CHARS = 100
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"“])|\n+")
_MIN_SENTENCE_CHARS = 4


def passage_text(p: Passage) -> str:
    """What is embedded for a passage: its headings, its table's title and intro, its text."""
    parts = [h for h in p.headings if h != p.title]
    parts.append(p.title)
    if p.table:
        parts.append(p.table)
    parts.append(p.text)
    return ". ".join(parts)


def sentence_texts(p: Passage) -> list[str]:
    """Each sentence of a passage of several sentences, under the passage's title."""
    pieces = [s for s in _SENTENCE.split(p.text) if len(s.strip()) >= _MIN_SENTENCE_CHARS]
    if len(pieces) < 2:
        return []
    head = p.title if not p.table else f"{p.title}: {p.table.split(':', 1)[0]}"
    return [f"{head}. {s}" for s in pieces]


class Embedder(Protocol):
    """A sentence model: a name for cache keys, and unit vectors for texts."""

    @property
    def name(self) -> str:
        """Identifies the model in cache keys."""
        ...

    def embed(self, texts: Iterable[str]) -> np.ndarray:
        """One unit vector per text."""
        ...


class WordPiece:
    """BERT's uncased tokeniser: lower case, accents dropped, punctuation split, word pieces."""

    def __init__(self, vocabulary: Sequence[str]) -> None:
        self.ids = {piece: i for i, piece in enumerate(vocabulary)}
        self.unknown = self.ids["[UNK]"]
        self.start = self.ids["[CLS]"]
        self.end = self.ids["[SEP]"]

    @staticmethod
    def words(text: str) -> list[str]:
        """Lower-cased words and punctuation marks, accents dropped.

        >>> WordPiece.words("Can't   raise, Héllo!")
        ['can', "'", 't', 'raise', ',', 'hello', '!']
        """
        text = unicodedata.normalize("NFD", text.lower())
        out: list[str] = []
        for token in text.split():
            current = ""
            for ch in token:
                category = unicodedata.category(ch)
                if category == "Mn" or category.startswith("C"):
                    continue
                if category.startswith("P") or (ch.isascii() and not ch.isalnum()):
                    if current:
                        out.append(current)
                        current = ""
                    out.append(ch)
                else:
                    current += ch
            if current:
                out.append(current)
        return out

    def encode(self, text: str) -> list[int]:
        """Word-piece ids framed by ``[CLS]`` and ``[SEP]``, at most 256."""
        ids = [self.start]
        for word in self.words(text):
            ids.extend(self._pieces(word))
        return [*ids[: _MAX_PIECES - 1], self.end]

    def _pieces(self, word: str) -> list[int]:
        if len(word) > _MAX_WORD_CHARS:
            return [self.unknown]
        pieces: list[int] = []
        start = 0
        while start < len(word):
            end = len(word)
            found = None
            while start < end:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                found = self.ids.get(piece)
                if found is not None:
                    break
                end -= 1
            if found is None:
                return [self.unknown]
            pieces.append(found)
            start = end
        return pieces


@dataclass(frozen=True)
class StaticModel:
    """Static embeddings: a weighted mean of word-piece vectors, normalised.

    Attributes:
        name: identifies the model in cache keys.
        tokenizer: the word-piece tokeniser.
        vectors: one row per word piece (float32, already scaled by the piece's weight).
    """

    name: str
    tokenizer: WordPiece
    vectors: np.ndarray

    @classmethod
    def bundled(cls) -> StaticModel:
        """The model shipped in ``rulings/data/rule_model/``."""
        return cls.load(_model_folder())

    @classmethod
    def load(cls, folder: Traversable) -> StaticModel:
        """A model from a folder holding ``vocab.txt`` and ``static.npz``."""
        vocabulary = (folder / "vocab.txt").read_text(encoding="utf-8").splitlines()
        raw = (folder / "static.npz").read_bytes()
        with np.load(io.BytesIO(raw)) as data:
            if "scale" in data:  # int8 rows, each with its own scale (``model_file``)
                vectors = data["vectors"].astype(np.float32) * data["scale"][:, None]
            else:
                vectors = data["vectors"].astype(np.float32)
            name = f"{data['name']}-{hashlib.sha1(raw).hexdigest()[:12]}"
        return cls(name, WordPiece(vocabulary), vectors)

    def embed(self, texts: Iterable[str]) -> np.ndarray:
        """Unit vectors for ``texts``, one row each.

        Args:
            texts: any texts.

        Returns:
            A float32 array of shape (len(texts), dimensions).
        """
        rows = []
        for text in texts:
            ids = self.tokenizer.encode(text)[1:-1]
            row = self.vectors[ids].sum(axis=0) if ids else np.zeros(self.vectors.shape[1])
            rows.append(row)
        out = np.asarray(rows, dtype=np.float32).reshape(-1, self.vectors.shape[1])
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        unit: np.ndarray = out / np.maximum(norms, 1e-9)
        return unit


def model_file(vectors: np.ndarray, name: str) -> bytes:
    """The ``static.npz`` that ``StaticModel.load`` reads: int8 rows, a float32 scale each.

    >>> rows = np.array([[0.5, -1.0], [0.0, 0.0]], dtype=np.float32)
    >>> with np.load(io.BytesIO(model_file(rows, "m"))) as data:
    ...     (data["vectors"] * data["scale"][:, None]).tolist()
    [[0.5039370059967041, -1.0], [0.0, 0.0]]
    """
    rows = np.asarray(vectors, dtype=np.float32)
    scale = np.abs(rows).max(axis=1) / 127
    safe = np.where(scale > 0, scale, 1.0)
    quantised = np.clip(np.rint(rows / safe[:, None]), -127, 127).astype(np.int8)
    buffer = io.BytesIO()
    np.savez_compressed(
        buffer, vectors=quantised, scale=scale.astype(np.float32), name=np.array(name)
    )
    return buffer.getvalue()


def _model_folder() -> Traversable:
    folder = resources.files("rulings")
    for part in MODEL_DIR:
        folder = folder / part
    return folder


def _key(model: str, text: str) -> str:
    return hashlib.sha1(f"{model}\n{text}".encode()).hexdigest()[:16]


def bundled_cache() -> dict[str, np.ndarray]:
    """Passage vectors shipped for the bundled books, keyed by model and text."""
    path = _model_folder() / "passages.npz"
    if not path.is_file():
        return {}
    with np.load(io.BytesIO(path.read_bytes())) as data:
        keys = [str(k) for k in data["keys"]]
        vectors = data["vectors"].astype(np.float32)
    return dict(zip(keys, vectors, strict=True))


def cache_file(model: Embedder, passages: Sequence[Passage]) -> bytes:
    """The ``passages.npz`` that ``bundled_cache`` reads, for these passages."""
    texts = sorted({t for p in passages for t in (passage_text(p), *sentence_texts(p))})
    vectors = model.embed(texts).astype(np.float16)
    buffer = io.BytesIO()
    np.savez_compressed(
        buffer, keys=np.array([_key(model.name, t) for t in texts]), vectors=vectors
    )
    return buffer.getvalue()


# Passages embedded in this process, by model and text hash: an index built again over the
# same book (another home book first, the book re-read unchanged) embeds nothing anew.
_EMBEDDED: dict[str, np.ndarray] = {}


class SemanticIndex:
    """Every passage's vector (and its sentences'), for a cosine score against a query."""

    def __init__(
        self,
        passages: Sequence[Passage],
        model: Embedder,
        cache: dict[str, np.ndarray] | None = None,
    ) -> None:
        self.model = model
        known = cache if cache is not None else {}
        texts: list[str] = []
        owners: list[int] = []
        for i, p in enumerate(passages):
            for text in (passage_text(p), *sentence_texts(p)):
                texts.append(text)
                owners.append(i)
        keys = [_key(model.name, t) for t in texts]
        missing = sorted(
            {t for t, k in zip(texts, keys, strict=True) if k not in known and k not in _EMBEDDED}
        )
        if missing:
            for text, vector in zip(missing, model.embed(missing), strict=True):
                _EMBEDDED[_key(model.name, text)] = vector
        rows = [known[k] if k in known else _EMBEDDED[k] for k in keys]
        self.vectors = np.asarray(rows, dtype=np.float32)
        self.owners = np.asarray(owners, dtype=np.intp)
        self.starts = np.flatnonzero(np.r_[True, self.owners[1:] != self.owners[:-1]])
        self.size = len(passages)
        self.embedded_at_start = len(missing)
        # A passage is "seen" when its vectors (its whole and each sentence) shipped with the
        # model, i.e. the model was tuned on that very text; a RULEBOOK_DIR book or an edited
        # passage is embedded here and is not.
        shipped = np.array([k in known for k in keys], dtype=bool)
        self.seen: np.ndarray = (
            np.logical_and.reduceat(shipped, self.starts) if len(keys) else np.zeros(0, bool)
        )

    def scores(self, query: str) -> np.ndarray:
        """Cosine of the query with each passage: the best of its whole and its sentences."""
        q = self.model.embed([query])[0]
        sims = self.vectors @ q
        # Each passage's rows are contiguous (whole text first, then its sentences).
        best: np.ndarray = np.maximum.reduceat(sims, self.starts)
        return best

    def own_scores(self, texts: Sequence[str]) -> np.ndarray:
        """For each passage ``i``, ``scores(texts[i])[i]``: one text a passage, batched.

        Equal texts are embedded once (passages of a section share their titles).
        """
        unique = list(dict.fromkeys(texts))
        where = {text: i for i, text in enumerate(unique)}
        embedded = self.model.embed(unique)[[where[t] for t in texts]]
        # Each row against its own passage's text: the rows of passage i dotted with text i.
        sims = np.einsum("rd,rd->r", self.vectors, embedded[self.owners])
        best: np.ndarray = np.maximum.reduceat(sims, self.starts)
        return best
