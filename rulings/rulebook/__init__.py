"""The rulebooks parsed into cited passages, and the search that finds the passage that rules."""

from typing import TYPE_CHECKING

from rulings._lazy import lazy_exports

if TYPE_CHECKING:
    from rulings.rulebook.books import Passage, Rulebook
    from rulings.rulebook.search import (
        MAX_LIMIT,
        Glossary,
        Match,
        RuleIndex,
        SearchResult,
        default_index,
        load_rulebooks,
    )


__all__ = [
    "MAX_LIMIT",
    "Glossary",
    "Match",
    "Passage",
    "RuleIndex",
    "Rulebook",
    "SearchResult",
    "default_index",
    "load_rulebooks",
]

__getattr__ = lazy_exports(__name__, __file__)
