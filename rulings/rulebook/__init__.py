"""The rulebooks parsed into cited passages, and the search that finds the passage that rules."""

from rulings.rulebook.books import Edition, Passage, Rulebook
from rulings.rulebook.expand import Glossary
from rulings.rulebook.present import Match, SearchResult, WholeSection
from rulings.rulebook.search import MAX_LIMIT, RuleIndex, default_index, load_rulebooks

__all__ = [
    "MAX_LIMIT",
    "Edition",
    "Glossary",
    "Match",
    "Passage",
    "RuleIndex",
    "Rulebook",
    "SearchResult",
    "WholeSection",
    "default_index",
    "load_rulebooks",
]
