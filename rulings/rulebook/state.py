"""What every stage of the search reads: the index's data, built by ``RuleIndex.__init__``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rulings.rulebook.books import Passage, Rulebook

if TYPE_CHECKING:
    from rulings.rulebook.lexical import _Doc
    from rulings.rulebook.present import SearchResult


class IndexState:
    """The index's data: each pipeline stage is a mixin of ``RuleIndex`` reading these."""

    books: dict[str, Rulebook]
    home: str | None
    passages: tuple[Passage, ...]
    _idf: dict[str, float]
    _mean_idf: float
    _avg_length: float
    _docs: list[_Doc]
    _postings: dict[str, list[tuple[int, float]]]
    _bm25: dict[str, list[tuple[int, float, float]]]
    _beside: dict[tuple[str, str], list[int]]
    _compounds: frozenset[str]
    _defines: list[frozenset[tuple[str, ...]]]
    _opens: dict[tuple[str, str], int]
    _parents: set[tuple[str, str]]
    _seen_titles: set[tuple[str, str, tuple[str, ...]]]
    _table_common: dict[tuple[str, str, str | None], frozenset[str]]
    _corrections: dict[str, tuple[tuple[str, ...], tuple[str, ...]]]
    _glossary_words: frozenset[str]
    _known: set[str]
    _pairs: frozenset[tuple[str, str]]
    _sounds: dict[str, list[str]]
    _spelling: list[str]
    _surface_freq: Counter[str]
    _glossary_by_first: dict[str, list[tuple[tuple[str, ...], tuple[str, ...]]]]

    def search(
        self, query: str, books: Sequence[str] | None = None, limit: int = 3
    ) -> SearchResult:
        """Defined by ``RuleIndex``."""
        raise NotImplementedError

    def _query_words(self, text: str) -> tuple[list[tuple[str, float]], list[str], list[str]]:
        """Defined by the spell stage."""
        raise NotImplementedError
