"""Stage 3, expand: the glossary turns players' words into the rulebook's words."""

from __future__ import annotations

import itertools
import logging
import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources

from rulings.errors import RulebookError
from rulings.rulebook.lexical import (
    _PHRASE_GAP,
)
from rulings.rulebook.normalise import (
    _CHATTY_STEMS,
    _surface,
)
from rulings.rulebook.spell import (
    _CHATTY_WEIGHT,
    _CORRECTED_WEIGHT,
)
from rulings.rulebook.state import IndexState
from rulings.rulebook.tuning import stage_weights, stage_words

log = logging.getLogger(__name__)


_W = stage_weights("expand")
_GLOSSARY_WEIGHT = _W["glossary_weight"]


_REPLACED_WEIGHT = _W["replaced_weight"]


_ONE_OF = (("small", "big"),)  # a question about one of these is not about the other


_WORDS = stage_words("expand")
_BEFORE = tuple(_WORDS["before"].split())


_AFTER = tuple(_WORDS["after"].split())


_MONEY = re.compile(r"\$\s?\d|\d\s?(?:bucks|dollars)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Glossary:
    """Players' words -> rulebook words.

    Attributes:
        pairs: ``(players' phrase, rulebook words)`` as written in the data file.
    """

    pairs: tuple[tuple[str, str], ...]

    @classmethod
    def bundled(cls) -> Glossary:
        """The glossary shipped in ``rulings/data/glossary.toml``.

        Returns:
            The glossary.
        """
        raw = (resources.files("rulings") / "data" / "glossary.toml").read_text(encoding="utf-8")
        return cls.from_toml(raw)

    @classmethod
    def from_toml(cls, text: str) -> Glossary:
        """Read a glossary: TOML tables of ``"players' phrase" = "rulebook words"``.

        Args:
            text: the TOML document.

        Returns:
            The glossary.

        Raises:
            RulebookError: the document is not valid TOML.
        """
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise RulebookError(f"The glossary is not valid TOML: {exc}.") from exc
        pairs: list[tuple[str, str]] = []
        for table in data.values():
            if isinstance(table, dict):
                pairs.extend((str(k), str(v)) for k, v in table.items())
        return cls(tuple(pairs))

    @property
    def words(self) -> frozenset[str]:
        """Every word of the glossary's phrases, as folded surface words."""
        return frozenset(w for phrase, _ in self.pairs for w in _surface(phrase))


def _follows(sequence: Sequence[str], start: int, key: tuple[str, ...]) -> tuple[int, ...] | None:
    """Where ``key`` occurs from ``start`` on, each word within a couple of words of the last.

    "show up 20 minutes late" matches the phrase "show up late"; the order must hold.
    """
    at = start
    positions = [start]
    for word in key[1:]:
        window = sequence[at + 1 : at + 2 + _PHRASE_GAP]
        if word not in window:
            return None
        if "of" in window[: window.index(word)]:
            return None  # "one of my cards" is not "one card"
        at += 1 + window.index(word)
        positions.append(at)
    return tuple(positions)


def _opposite_pairs(content: Sequence[str]) -> dict[tuple[str, str], frozenset[tuple[str, str]]]:
    """``{("after", "flop"): {("befor", "flop"), ("pre", "flop"), ...}}`` for the query's words."""
    out: dict[tuple[str, str], frozenset[tuple[str, str]]] = {}
    for word, after in itertools.pairwise(content):
        if word in _BEFORE:
            out[(word, after)] = frozenset((w, after) for w in _AFTER)
        elif word in _AFTER:
            out[(word, after)] = frozenset((w, after) for w in _BEFORE)
    return out


class Expander(IndexState):
    """The expand stage of ``RuleIndex`` (its methods run on the index)."""

    def query_terms(self, text: str) -> dict[str, float]:
        """The weighted index terms searched for ``text`` (after corrections and glossary).

        Args:
            text: the cleaned query.

        Returns:
            ``{term: weight}``; typed words weigh 1, corrected ones 0.8, glossary words 0.7.
        """
        return self._analyse_query(text)[0]

    def _analyse_query(
        self, text: str
    ) -> tuple[dict[str, float], frozenset[str], bool, list[str], bool]:
        """``query_terms``, own words, poker talk?, content words, gibberish?.

        Own words: the player's untranslated words.
        Poker talk: a glossary phrase matched and no word the player typed is foreign to the
        books; such a query is answered even when its best passage covers little of it.
        Gibberish: a word foreign to the books and no word the books use typed as it is (only
        guesses at typos are left: "xyzzy foo" is not about "food").
        """
        words, sequence, content = self._query_words(text)
        weighted: dict[str, float] = {}
        for term, weight in words:
            weighted[term] = max(weighted.get(term, 0.0), weight)
        replaced: set[str] = set()
        kept: set[str] = set()
        found: list[tuple[tuple[int, ...], tuple[str, ...], tuple[str, ...]]] = []
        for i, word in enumerate(sequence):
            for key, expansion in self._glossary_by_first.get(word, ()):
                positions = _follows(sequence, i, key)
                if positions is not None:
                    found.append((positions, key, expansion))
        # Longest phrases first; a phrase inside a longer one that matched adds nothing.
        found.sort(key=lambda f: -len(f[0]))
        covered: set[int] = set()
        # Phrase -> where it starts: expansions go in in query order, the same on every run.
        at: dict[tuple[tuple[str, ...], tuple[str, ...]], int] = {}
        for positions, key, expansion in found:
            if set(positions) <= covered:
                continue
            covered.update(positions)
            at.setdefault((key, expansion), positions[0])
        if _MONEY.search(text):
            at[(("$",), ("money", "currency", "cash"))] = len(sequence)
        matched_keys = sorted(at, key=at.__getitem__)
        for key, expansion in matched_keys:
            replaced.update(t for t in key if t not in expansion)
            kept.update(expansion)
            # A phrase made only of table talk ("friend") translates with little weight too.
            share = _CHATTY_WEIGHT if all(t in _CHATTY_STEMS for t in key) else 1.0
            for term in expansion:
                weighted[term] = max(weighted.get(term, 0.0), _GLOSSARY_WEIGHT * share)
        # A translation naming both sides of a pair ("who posts" -> small blind, big blind) is
        # vague; a typed word or a translation naming one side ("little blind") picks that side.
        for pair in _ONE_OF:
            picked = {t for t in pair if t in sequence} | {
                t
                for key, expansion in matched_keys
                for t in pair
                if t in expansion
                if not set(pair) <= set(expansion)
            }
            if len(picked) == 1:
                for other in set(pair) - picked:
                    if other not in sequence:
                        weighted.pop(other, None)
        # The player's slang words that the glossary translated count less than the translation.
        for term in replaced - kept:
            if term in weighted:
                weighted[term] = min(weighted[term], _REPLACED_WEIGHT)
        bridged = {t for key, _ in matched_keys for t in key}
        typed = set(sequence)  # single words as typed, not joined forms ("signup")
        own = frozenset(
            t
            for t, w in weighted.items()
            if w >= _CORRECTED_WEIGHT and t in typed and t not in bridged
        )
        slang = [key for key, _ in matched_keys if not all(t in _CHATTY_STEMS for t in key)]
        foreign = [
            t
            for t, w in words
            if w >= _CORRECTED_WEIGHT and t in typed and t not in self._idf and t not in bridged
        ]
        as_typed = any(
            w >= 1.0 and t in typed and not t.isdigit() and (t in self._idf or t in bridged)
            for t, w in words
        )
        gibberish = bool(foreign) and not as_typed
        return weighted, own, bool(slang) and not foreign, content, gibberish
